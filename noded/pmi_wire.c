// SPDX-License-Identifier: MIT
/*
 * The PMI wire-protocol server of one step on one node (wireup_pmi): what
 * MPICH's simple PMI client, or any PMI-1/PMI-2 client, talks to when Rota
 * starts the ranks itself, as Slurm's `srun --mpi=pmi2` does.
 *
 * Each local task gets one end of a socketpair as PMI_FD.  Its puts go to
 * the step's key-value space at once (so that the node's own tasks see
 * them) and to this node's blob; when every local task has entered a
 * barrier (PMI-1) or fence (PMI-2), the blob goes into ONE allgather over
 * Rota's links, and its result (every node's blob) is merged before every
 * local task is answered.  A client that breaks the protocol is told so
 * or closed, with one line through ops->complain(); a task that leaves
 * without finalize fails every fence still to come, rather than hang it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/evloop.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "noded/pmi_kvs.h"
#include "noded/pmi_parse.h"
#include "noded/wireup.h"

#define PMI_KVS_BYTES (64u << 20) /* a step's whole key-value space */
#define PMI_OUT_MAX (1u << 20)	   /* answers a client leaves unread */
#define PMI_COMPLAINTS 8	   /* then the client is closed */
#define PMI_APPNUM "0"

enum client_state {
	CLIENT_NONE = 0,  /* before task_env */
	CLIENT_SILENT,	  /* connected, has said nothing yet */
	CLIENT_ACTIVE,	  /* has sent init */
	CLIENT_FINALIZED, /* said finalize: may leave */
	CLIENT_GONE,	  /* closed */
};

enum client_wait {
	WAIT_NONE = 0,
	WAIT_FENCE,    /* in a barrier or fence */
	WAIT_NODEATTR, /* info-getnodeattr with wait=TRUE */
};

struct pmi_client {
	struct wireup_server *srv;
	uint32_t rank;
	enum client_state state;
	enum client_wait wait;
	bool v2;	  /* after "init pmi_version=2": length-prefixed */
	bool in_mcmd;	  /* skipping a PMI-1 multi-line command */
	bool answer;	  /* fence_answer's mark */
	bool busy;	  /* in process(): answers it causes wait for it */
	int fd;		  /* our end, -1 once closed */
	int child_fd;	  /* the task's end, until task_started */
	struct rota_watch *watch;
	char *in;	  /* PMI2_LEN_SIZE + PMI2_BODY_MAX bytes */
	size_t inlen;
	struct rota_strbuf out;
	size_t outpos;	  /* sent of out */
	unsigned complaints;
	char thrid[64];	  /* echoed in a delayed PMI-2 answer */
	char wait_key[PMI_KEY_MAX + 1];
	char *env[8];	  /* NULL-terminated */
};

struct wireup_server {
	struct rota_evloop *loop;
	const struct wireup_step *st;
	struct wireup_ops ops;
	uint32_t nlocal;
	struct pmi_client *clients; /* nlocal, in local order */
	struct pmi_kvs *kvs;
	struct pmi_kvs *nodeattr;   /* PMI-2 node attributes, this node only */
	struct rota_strbuf blob;    /* this node's puts since the last fence */
	uint32_t nfence;	    /* local tasks in the fence */
	bool gathering;		    /* an allgather is under way */
	uint32_t lost_rank;	    /* the first rank that left, if lost */
	bool lost;
	char kvsname[64];
	char *mapping;		    /* PMI_process_mapping, or NULL */
};

static void client_close(struct pmi_client *c);
static void client_drop(struct pmi_client *c);
static void process(struct pmi_client *c);

static void complain(struct wireup_server *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void complain(struct wireup_server *s, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	s->ops.complain(s->ops.ctx, line);
}

/* A broken message: complain, and close a client that keeps at it. */
static void client_complain(struct pmi_client *c, const char *what)
{
	complain(c->srv, "pmi: rank %u: %s", c->rank, what);
	if (++c->complaints >= PMI_COMPLAINTS) {
		complain(c->srv, "pmi: rank %u: too many errors, closed",
			 c->rank);
		client_drop(c);
	}
}

/* ---- output ------------------------------------------------------------ */

static void update_events(struct pmi_client *c)
{
	unsigned ev = 0;

	if (c->fd < 0)
		return;
	if (c->wait == WAIT_NONE)
		ev |= ROTA_EV_READ;
	if (c->outpos < c->out.len)
		ev |= ROTA_EV_WRITE;
	rota_watch_set_events(c->watch, ev);
}

static void flush(struct pmi_client *c)
{
	while (c->fd >= 0 && c->outpos < c->out.len) {
		ssize_t n = send(c->fd, c->out.data + c->outpos,
				 c->out.len - c->outpos, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			client_close(c);
			return;
		}
		c->outpos += (size_t)n;
	}
	if (c->outpos == c->out.len) {
		c->out.len = 0;
		c->outpos = 0;
	}
	update_events(c);
}

/*
 * Queue one answer.  PMI-1: 'text' is "cmd=x a=b" and gets its newline.
 * PMI-2: 'text' is "cmd=x;a=b;" (values escaped by the caller) and gets
 * its length, and the client's thrid when it gave one.
 */
static void reply(struct pmi_client *c, const char *text)
{
	if (c->fd < 0)
		return;
	if (c->out.len - c->outpos > PMI_OUT_MAX) {
		complain(c->srv, "pmi: rank %u: does not read its answers",
			 c->rank);
		client_drop(c);
		return;
	}
	if (!c->v2) {
		rota_strbuf_addf(&c->out, "%s\n", text);
	} else {
		size_t n = strlen(text);

		if (c->thrid[0])
			n += strlen("thrid=;") + strlen(c->thrid);
		rota_strbuf_addf(&c->out, "%-6zu%s", n, text);
		if (c->thrid[0])
			rota_strbuf_addf(&c->out, "thrid=%s;", c->thrid);
	}
	flush(c);
}

/* Append a PMI-2 value with its ';' doubled. */
static void add_v2_value(struct rota_strbuf *b, const char *v)
{
	for (; *v; v++) {
		if (*v == ';')
			rota_strbuf_add(b, ";", 1);
		rota_strbuf_add(b, v, 1);
	}
}

static void reply_found(struct pmi_client *c, const char *cmd,
			const char *val)
{
	struct rota_strbuf b = { 0 };

	rota_strbuf_addf(&b, "cmd=%s;rc=0;found=%s;", cmd,
			 val ? "TRUE" : "FALSE");
	if (val) {
		rota_strbuf_adds(&b, "value=");
		add_v2_value(&b, val);
		rota_strbuf_adds(&b, ";");
	}
	reply(c, b.data);
	rota_strbuf_fini(&b);
}

static void reply_v2_error(struct pmi_client *c, const char *cmd,
			   const char *msg)
{
	struct rota_strbuf b = { 0 };

	rota_strbuf_addf(&b, "cmd=%s-response;rc=-1;errmsg=", cmd);
	add_v2_value(&b, msg);
	rota_strbuf_adds(&b, ";");
	reply(c, b.data);
	rota_strbuf_fini(&b);
}

/* ---- fences ------------------------------------------------------------ */

static void fence_answer(struct wireup_server *s, const char *error)
{
	uint32_t i;

	/* settle the fence first: answers may close clients, input may
	 * start the next fence */
	for (i = 0; i < s->nlocal; i++) {
		s->clients[i].answer = s->clients[i].wait == WAIT_FENCE;
		if (s->clients[i].answer)
			s->clients[i].wait = WAIT_NONE;
	}
	s->nfence = 0;
	for (i = 0; i < s->nlocal; i++) {
		struct pmi_client *c = &s->clients[i];

		if (!c->answer)
			continue;
		if (!error)
			reply(c, c->v2 ? "cmd=kvs-fence-response;rc=0;"
				       : "cmd=barrier_out rc=0");
		else if (c->v2)
			reply_v2_error(c, "kvs-fence", error);
		else
			/* PMI-1 clients do not look at barrier_out's rc */
			client_drop(c);
		c->thrid[0] = '\0';
	}
	for (i = 0; i < s->nlocal; i++) {
		struct pmi_client *c = &s->clients[i];

		if (!c->answer || c->fd < 0)
			continue;
		c->answer = false;
		update_events(c);
		process(c);
	}
}

static void fence_fail_lost(struct wireup_server *s)
{
	char msg[96];

	if (!s->nfence)
		return;
	snprintf(msg, sizeof(msg), "rank %u left without finalize",
		 s->lost_rank);
	complain(s, "pmi: fence failed: %s", msg);
	fence_answer(s, msg);
}

/* Every local task is in the fence: start the allgather. */
static void fence_check(struct wireup_server *s)
{
	size_t len = s->blob.len;
	char *blob;
	int rc;

	if (s->lost) {
		fence_fail_lost(s);
		return;
	}
	if (s->gathering || s->nfence < s->nlocal)
		return;
	blob = rota_strbuf_take(&s->blob, NULL);
	s->gathering = true;
	rc = s->ops.allgather(s->ops.ctx, blob ? blob : "", blob ? len : 0);
	free(blob);
	if (rc < 0 && s->gathering) {
		s->gathering = false;
		complain(s, "pmi: fence failed: the step's exchange is gone");
		fence_answer(s, "the step's exchange is gone");
	}
}

static int merge_node(struct wireup_server *s, const char *blob, size_t len,
		      struct rota_error *err)
{
	size_t pos = 0;
	const char *key;
	const char *val;
	int rc;

	while ((rc = pmi_blob_next(blob, len, &pos, &key, &val, err)) > 0) {
		rc = pmi_kvs_put(s->kvs, key, val, err);
		if (rc)
			return rc;
	}
	return rc;
}

static int merge(struct wireup_server *s, const unsigned char *all,
		 size_t len, struct rota_error *err)
{
	size_t pos = 0;

	for (uint32_t n = 0; n < s->st->nnodes; n++) {
		size_t blen;
		int rc;

		if (len - pos < 4)
			return rota_errorf(err, -EPROTO, "node %u missing", n);
		blen = (size_t)all[pos] << 24 | (size_t)all[pos + 1] << 16 |
		       (size_t)all[pos + 2] << 8 | all[pos + 3];
		pos += 4;
		if (blen > len - pos)
			return rota_errorf(err, -EPROTO,
					   "node %u: blob cut short", n);
		rc = merge_node(s, (const char *)all + pos, blen, err);
		if (rc)
			return rc;
		pos += blen;
	}
	if (pos != len)
		return rota_errorf(err, -EPROTO, "%zu bytes too many",
				   len - pos);
	return 0;
}

static void pmi_done(struct wireup_server *s, const void *all, size_t len)
{
	struct rota_error err = { "" };

	if (!s->gathering) {
		complain(s, "pmi: an allgather result nobody asked for");
		return;
	}
	s->gathering = false;
	if (merge(s, all, len, &err)) {
		complain(s, "pmi: fence failed: %s", err.text);
		fence_answer(s, err.text);
		return;
	}
	fence_answer(s, NULL);
}

/* ---- commands ---------------------------------------------------------- */

struct command {
	const char *name;
	bool v2;	/* a PMI-2 command (else PMI-1) */
	void (*run)(struct pmi_client *c, const struct pmi_msg *m);
};

static void do_init(struct pmi_client *c, const struct pmi_msg *m)
{
	const char *ver = pmi_msg_get(m, "pmi_version");
	const char *sub = pmi_msg_get(m, "pmi_subversion");

	if (ver && !strcmp(ver, "2")) {
		reply(c, "cmd=response_to_init pmi_version=2 "
			 "pmi_subversion=0 rc=0");
		c->v2 = true;
	} else if (ver && !strcmp(ver, "1") && sub &&
		   (!strcmp(sub, "1") || !strcmp(sub, "0"))) {
		reply(c, "cmd=response_to_init pmi_version=1 "
			 "pmi_subversion=1 rc=0");
	} else {
		reply(c, "cmd=response_to_init pmi_version=1 "
			 "pmi_subversion=1 rc=-1");
		client_complain(c, "init: unsupported PMI version");
		return;
	}
	c->state = CLIENT_ACTIVE;
}

static void do_get_maxes(struct pmi_client *c, const struct pmi_msg *m)
{
	char line[128];

	(void)m;
	snprintf(line, sizeof(line),
		 "cmd=maxes kvsname_max=%zu keylen_max=%d vallen_max=%d",
		 sizeof(c->srv->kvsname), PMI_KEY_MAX, PMI_VAL_MAX);
	reply(c, line);
}

static void do_get_appnum(struct pmi_client *c, const struct pmi_msg *m)
{
	(void)m;
	reply(c, "cmd=appnum appnum=" PMI_APPNUM);
}

static void do_get_my_kvsname(struct pmi_client *c, const struct pmi_msg *m)
{
	char line[128];

	(void)m;
	snprintf(line, sizeof(line), "cmd=my_kvsname kvsname=%s",
		 c->srv->kvsname);
	reply(c, line);
}

static void do_get_universe_size(struct pmi_client *c,
				 const struct pmi_msg *m)
{
	char line[64];

	(void)m;
	snprintf(line, sizeof(line), "cmd=universe_size size=%u",
		 c->srv->st->ntasks);
	reply(c, line);
}

static void enter_fence(struct pmi_client *c)
{
	c->wait = WAIT_FENCE;
	c->srv->nfence++;
	update_events(c);
	fence_check(c->srv);
}

/* A put from either protocol; NULL or why it was refused. */
static const char *put(struct pmi_client *c, const char *key,
		       const char *val)
{
	struct wireup_server *s = c->srv;
	struct rota_error err = { "" };

	if (!key || !val || !pmi_is_kvs_pair(key, val))
		return "bad key or value";
	if (s->blob.len + strlen(key) + strlen(val) + 2 > PMI_KVS_BYTES ||
	    pmi_kvs_put(s->kvs, key, val, &err))
		return "key-value space full";
	pmi_blob_add(&s->blob, key, val);
	return NULL;
}

static bool is_my_kvs(struct pmi_client *c, const struct pmi_msg *m)
{
	const char *name = pmi_msg_get(m, "kvsname");

	return name && !strcmp(name, c->srv->kvsname);
}

static void do_put(struct pmi_client *c, const struct pmi_msg *m)
{
	const char *why = is_my_kvs(c, m) ? put(c, pmi_msg_get(m, "key"),
						  pmi_msg_get(m, "value"))
					  : "unknown kvsname";
	char line[96];

	if (!why) {
		reply(c, "cmd=put_result rc=0 msg=success");
		return;
	}
	snprintf(line, sizeof(line), "cmd=put_result rc=-1 msg=%s", why);
	for (char *p = line + strlen("cmd=put_result rc=-1 msg="); *p; p++)
		if (*p == ' ')
			*p = '_';
	reply(c, line);
	client_complain(c, why);
}

static const char *job_attr(struct wireup_server *s, const char *key)
{
	if (!strcmp(key, "PMI_process_mapping"))
		return s->mapping;
	return NULL;
}

static void do_get(struct pmi_client *c, const struct pmi_msg *m)
{
	const char *key = pmi_msg_get(m, "key");
	const char *val = NULL;
	struct rota_strbuf b = { 0 };

	if (key && is_my_kvs(c, m)) {
		val = job_attr(c->srv, key);
		if (!val)
			val = pmi_kvs_get(c->srv->kvs, key);
	}
	if (val)
		rota_strbuf_addf(&b, "cmd=get_result rc=0 msg=success value=%s",
				 val);
	else
		rota_strbuf_adds(&b, "cmd=get_result rc=-1 msg=key_not_found");
	reply(c, b.data);
	rota_strbuf_fini(&b);
}

static void do_finalize(struct pmi_client *c, const struct pmi_msg *m)
{
	(void)m;
	c->state = CLIENT_FINALIZED;
	reply(c, c->v2 ? "cmd=finalize-response;rc=0;" : "cmd=finalize_ack");
}

static void do_abort(struct pmi_client *c, const struct pmi_msg *m)
{
	const char *code = pmi_msg_get(m, "exitcode");
	const char *msg = pmi_msg_get(m, "msg");
	char text[200];
	size_t i;

	/* the message is the task's: keep it one printable line */
	snprintf(text, sizeof(text), "%s", msg ? msg : "");
	for (i = 0; text[i]; i++)
		if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
			text[i] = ' ';
	if (code)
		complain(c->srv, "pmi: rank %u: abort (exit code %.16s)%s%s",
			 c->rank, code, i ? ": " : "", text);
	else
		complain(c->srv, "pmi: rank %u: abort%s%s", c->rank,
			 i ? ": " : "", text);
	client_drop(c);
}

static void do_unsupported_v1(struct pmi_client *c, const struct pmi_msg *m)
{
	char line[128];
	const char *answer = !strcmp(m->cmd, "publish_name") ? "publish_result"
			     : !strcmp(m->cmd, "unpublish_name")
				     ? "unpublish_result"
				     : "lookup_result";

	snprintf(line, sizeof(line), "cmd=%s rc=-1 msg=not_supported", answer);
	reply(c, line);
}

static void do_fullinit(struct pmi_client *c, const struct pmi_msg *m)
{
	const struct wireup_step *st = c->srv->st;
	const char *rank = pmi_msg_get(m, "pmirank");
	char text[256];

	if (rank && (strspn(rank, "0123456789") != strlen(rank) ||
		     strtoul(rank, NULL, 10) != c->rank)) {
		reply_v2_error(c, "fullinit", "not this task's rank");
		client_complain(c, "fullinit: not this task's rank");
		return;
	}
	c->state = CLIENT_ACTIVE;
	snprintf(text, sizeof(text),
		 "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;"
		 "rank=%u;size=%u;appnum=" PMI_APPNUM ";debugged=FALSE;"
		 "pmiverbose=FALSE;",
		 c->rank, st->ntasks);
	reply(c, text);
}

static void do_job_getid(struct pmi_client *c, const struct pmi_msg *m)
{
	char text[128];

	(void)m;
	snprintf(text, sizeof(text), "cmd=job-getid-response;rc=0;jobid=%s;",
		 c->srv->kvsname);
	reply(c, text);
}

static void do_kvs_put(struct pmi_client *c, const struct pmi_msg *m)
{
	const char *why = put(c, pmi_msg_get(m, "key"), pmi_msg_get(m, "value"));

	if (!why) {
		reply(c, "cmd=kvs-put-response;rc=0;");
		return;
	}
	reply_v2_error(c, "kvs-put", why);
	client_complain(c, why);
}

static void do_kvs_get(struct pmi_client *c, const struct pmi_msg *m)
{
	const char *key = pmi_msg_get(m, "key");
	const char *jobid = pmi_msg_get(m, "jobid");
	const char *val = NULL;

	if (key && (!jobid || !strcmp(jobid, c->srv->kvsname))) {
		val = job_attr(c->srv, key);
		if (!val)
			val = pmi_kvs_get(c->srv->kvs, key);
	}
	reply_found(c, "kvs-get-response", val);
}

static void do_getjobattr(struct pmi_client *c, const struct pmi_msg *m)
{
	const char *key = pmi_msg_get(m, "key");
	const char *val = NULL;
	char size[16];

	if (key && !strcmp(key, "universeSize")) {
		snprintf(size, sizeof(size), "%u", c->srv->st->ntasks);
		val = size;
	} else if (key) {
		val = job_attr(c->srv, key);
	}
	reply_found(c, "info-getjobattr-response", val);
}

static void do_putnodeattr(struct pmi_client *c, const struct pmi_msg *m)
{
	struct wireup_server *s = c->srv;
	const char *key = pmi_msg_get(m, "key");
	const char *val = pmi_msg_get(m, "value");
	struct rota_error err = { "" };

	if (!key || !val || !pmi_is_kvs_pair(key, val) ||
	    pmi_kvs_put(s->nodeattr, key, val, &err)) {
		reply_v2_error(c, "info-putnodeattr", "bad key or value");
		client_complain(c, "info-putnodeattr: bad key or value");
		return;
	}
	reply(c, "cmd=info-putnodeattr-response;rc=0;");
	/* answer the local tasks that wait for this attribute */
	for (uint32_t i = 0; i < s->nlocal; i++) {
		struct pmi_client *w = &s->clients[i];

		if (w->wait != WAIT_NODEATTR || strcmp(w->wait_key, key))
			continue;
		w->wait = WAIT_NONE;
		reply_found(w, "info-getnodeattr-response", val);
		w->thrid[0] = '\0';
		if (w->fd >= 0)
			process(w);
	}
}

static void do_getnodeattr(struct pmi_client *c, const struct pmi_msg *m)
{
	const char *key = pmi_msg_get(m, "key");
	const char *wait = pmi_msg_get(m, "wait");
	const char *val = key ? pmi_kvs_get(c->srv->nodeattr, key) : NULL;

	if (!val && key && wait && !strcmp(wait, "TRUE") &&
	    strlen(key) <= PMI_KEY_MAX) {
		strcpy(c->wait_key, key);
		c->wait = WAIT_NODEATTR;
		update_events(c);
		return;
	}
	reply_found(c, "info-getnodeattr-response", val);
}

static const struct command commands[] = {
	{ .name = "init", .run = do_init },
	{ .name = "get_maxes", .run = do_get_maxes },
	{ .name = "get_appnum", .run = do_get_appnum },
	{ .name = "get_my_kvsname", .run = do_get_my_kvsname },
	{ .name = "get_universe_size", .run = do_get_universe_size },
	{ .name = "barrier_in", .run = NULL /* enter_fence */ },
	{ .name = "put", .run = do_put },
	{ .name = "get", .run = do_get },
	{ .name = "finalize", .run = do_finalize },
	{ .name = "abort", .run = do_abort },
	{ .name = "publish_name", .run = do_unsupported_v1 },
	{ .name = "unpublish_name", .run = do_unsupported_v1 },
	{ .name = "lookup_name", .run = do_unsupported_v1 },
	{ .name = "fullinit", .v2 = true, .run = do_fullinit },
	{ .name = "job-getid", .v2 = true, .run = do_job_getid },
	{ .name = "kvs-put", .v2 = true, .run = do_kvs_put },
	{ .name = "kvs-fence", .v2 = true, .run = NULL /* enter_fence */ },
	{ .name = "kvs-get", .v2 = true, .run = do_kvs_get },
	{ .name = "info-getjobattr", .v2 = true, .run = do_getjobattr },
	{ .name = "info-putnodeattr", .v2 = true, .run = do_putnodeattr },
	{ .name = "info-getnodeattr", .v2 = true, .run = do_getnodeattr },
	{ .name = "finalize", .v2 = true, .run = do_finalize },
	{ .name = "abort", .v2 = true, .run = do_abort },
};

/* What a client that has not said init may send. */
static bool is_allowed_early(const char *cmd)
{
	return !strcmp(cmd, "init") || !strcmp(cmd, "fullinit");
}

static void unknown(struct pmi_client *c, const struct pmi_msg *m)
{
	char what[128];

	snprintf(what, sizeof(what), "unknown command '%.40s'", m->cmd);
	for (char *p = what; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	if (c->v2) {
		char name[48];

		snprintf(name, sizeof(name), "%.40s", m->cmd);
		for (char *p = name; *p; p++)
			if (!strchr("abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_", *p))
				*p = '_';
		reply_v2_error(c, name, "unknown command");
	} else {
		/* the PMI-1 answer is the command's name with _result */
		char line[96];

		snprintf(line, sizeof(line),
			 "cmd=%.40s_result rc=-1 msg=unknown_command", m->cmd);
		reply(c, line);
	}
	client_complain(c, what);
}

static void dispatch(struct pmi_client *c, const struct pmi_msg *m)
{
	const char *thrid = pmi_msg_get(m, "thrid");

	c->thrid[0] = '\0';
	if (c->v2 && thrid && strlen(thrid) < sizeof(c->thrid) &&
	    strspn(thrid, "0123456789abcdefxABCDEFX") == strlen(thrid))
		strcpy(c->thrid, thrid);
	if (c->state != CLIENT_ACTIVE && !is_allowed_early(m->cmd)) {
		client_complain(c, c->state == CLIENT_FINALIZED
					   ? "command after finalize"
					   : "command before init");
		client_drop(c);
		return;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const struct command *cmd = &commands[i];

		if (cmd->v2 != c->v2 || strcmp(cmd->name, m->cmd))
			continue;
		if (cmd->run)
			cmd->run(c, m);
		else
			enter_fence(c);
		return;
	}
	unknown(c, m);
}

/* The end of a PMI-1 multi-line command ("mcmd=spawn" ... "endcmd"). */
static bool is_endcmd(const char *line, size_t len)
{
	return (len == 7 && !memcmp(line, "endcmd\n", 7)) ||
	       (len == 8 && !memcmp(line, "endcmd\r\n", 8));
}

/* One framed message of 'len' bytes at the start of the input. */
static void handle(struct pmi_client *c, size_t len)
{
	struct rota_error err = { "" };
	struct pmi_msg m;

	if (c->in_mcmd) {
		/* the lines of a spawn we refuse need not parse */
		if (is_endcmd(c->in, len)) {
			c->in_mcmd = false;
			reply(c, "cmd=spawn_result rc=-1 "
				 "errmsg=spawn_not_supported");
		}
		return;
	}
	if (pmi_parse(c->in, len, c->v2, &m, &err)) {
		client_complain(c, err.text);
		client_drop(c);
	} else if (m.multi && !c->v2) {
		c->in_mcmd = true;
	} else {
		dispatch(c, &m);
	}
}

/* Handle the whole messages in the input, unless waiting for an answer. */
static void process(struct pmi_client *c)
{
	/*
	 * A message can complete a fence at once (a rank has left, the
	 * allgather failed), whose answer processes the waiting clients'
	 * input again: this client's loop goes on with it, after the
	 * message it is in is consumed.
	 */
	if (c->busy)
		return;
	c->busy = true;
	while (c->fd >= 0 && c->wait == WAIT_NONE && c->inlen) {
		struct rota_error err = { "" };
		size_t len;
		int rc = pmi_frame(c->in, c->inlen, c->v2, &len, &err);

		if (rc == 0)
			break;
		if (rc < 0) {
			client_complain(c, err.text);
			client_drop(c);
			break;
		}
		handle(c, len);
		if (c->fd < 0)
			break;
		c->inlen -= len;
		memmove(c->in, c->in + len, c->inlen);
	}
	c->busy = false;
}

/* ---- connections ------------------------------------------------------- */

static void client_close(struct pmi_client *c)
{
	struct wireup_server *s = c->srv;

	if (c->fd < 0)
		return;
	rota_watch_remove(c->watch);
	c->watch = NULL;
	close(c->fd);
	c->fd = -1;
	if (c->wait == WAIT_FENCE)
		s->nfence--;
	c->wait = WAIT_NONE;
	c->inlen = 0;
	if (c->state != CLIENT_FINALIZED && !s->lost) {
		s->lost = true;
		s->lost_rank = c->rank;
	}
	if (c->state == CLIENT_ACTIVE)
		complain(s, "pmi: rank %u closed its connection without "
			    "finalize",
			 c->rank);
	c->state = CLIENT_GONE;
	if (s->lost && !s->gathering)
		fence_fail_lost(s);
}

/* Close a client we have complained of already: no second line. */
static void client_drop(struct pmi_client *c)
{
	if (c->state == CLIENT_ACTIVE)
		c->state = CLIENT_SILENT;
	client_close(c);
}

static void client_cb(struct rota_evloop *loop, int fd, unsigned events,
		      void *arg)
{
	struct pmi_client *c = arg;
	size_t cap = PMI2_LEN_SIZE + PMI2_BODY_MAX;
	ssize_t n;

	(void)loop;
	if (events & ROTA_EV_WRITE)
		flush(c);
	if (c->fd < 0 || !(events & (ROTA_EV_READ | ROTA_EV_ERROR)))
		return;
	if (c->wait != WAIT_NONE || c->inlen == cap) {
		/* not reading now: only a hang-up matters */
		if (events & ROTA_EV_ERROR)
			client_close(c);
		return;
	}
	if (!c->in)
		c->in = rota_xmalloc(cap); /* tasks that never speak cost none */
	n = read(fd, c->in + c->inlen, cap - c->inlen);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		client_close(c);
		return;
	}
	/* PMI-2 clients greet in PMI-1; one that starts with a length is
	 * taken at its word */
	if (c->state == CLIENT_SILENT && !c->inlen &&
	    (c->in[0] == ' ' || (c->in[0] >= '0' && c->in[0] <= '9')))
		c->v2 = true;
	c->inlen += (size_t)n;
	process(c);
}

/* ---- the wireup_impl --------------------------------------------------- */

/*
 * PMI_process_mapping: "(vector,(node,nnodes,ppn),...)", each triple
 * meaning that nodes node .. node+nnodes-1 hold ppn consecutive ranks each,
 * in rank order.  Built from the real rank layout; NULL if a rank has no
 * node or the text would not fit a value (MPICH then falls back).
 */
static char *mapping_format(const struct wireup_step *st)
{
	uint32_t *node_of = rota_xcalloc(st->ntasks ? st->ntasks : 1,
					 sizeof(*node_of));
	struct rota_strbuf b = { 0 };
	uint32_t r = 0;
	uint32_t tn = 0, tk = 0, tp = 0; /* the triple being built */
	char *out = NULL;

	for (uint32_t i = 0; i < st->ntasks; i++)
		node_of[i] = UINT32_MAX;
	for (uint32_t n = 0; n < st->nnodes; n++)
		for (uint32_t i = 0; i < st->count[n]; i++)
			if (st->ranks[st->first[n] + i] < st->ntasks)
				node_of[st->ranks[st->first[n] + i]] = n;
	rota_strbuf_adds(&b, "(vector");
	while (r < st->ntasks) {
		uint32_t node = node_of[r];
		uint32_t run = 0;

		if (node == UINT32_MAX)
			goto out;
		while (r < st->ntasks && node_of[r] == node)
			r++, run++;
		if (tk && run == tp && node == tn + tk) {
			tk++;
			continue;
		}
		if (tk)
			rota_strbuf_addf(&b, ",(%u,%u,%u)", tn, tk, tp);
		tn = node, tk = 1, tp = run;
	}
	if (tk)
		rota_strbuf_addf(&b, ",(%u,%u,%u)", tn, tk, tp);
	rota_strbuf_adds(&b, ")");
	if (b.len <= PMI_VAL_MAX)
		out = rota_strbuf_take(&b, NULL);
out:
	rota_strbuf_fini(&b);
	free(node_of);
	return out;
}

static int pmi_create(struct rota_evloop *loop, const struct wireup_step *st,
		      const struct wireup_ops *ops,
		      struct wireup_server **out, char *err, size_t errlen)
{
	struct wireup_server *s;

	*out = NULL;
	if (st->node_id >= st->nnodes) {
		snprintf(err, errlen, "pmi: node %u of %u", st->node_id,
			 st->nnodes);
		return -EINVAL;
	}
	s = rota_xcalloc(1, sizeof(*s));
	s->loop = loop;
	s->st = st;
	s->ops = *ops;
	s->nlocal = st->count[st->node_id];
	s->clients = rota_xcalloc(s->nlocal ? s->nlocal : 1,
				  sizeof(*s->clients));
	for (uint32_t i = 0; i < s->nlocal; i++) {
		s->clients[i].srv = s;
		s->clients[i].rank = st->ranks[st->first[st->node_id] + i];
		s->clients[i].fd = -1;
		s->clients[i].child_fd = -1;
	}
	s->kvs = pmi_kvs_create(PMI_KVS_BYTES);
	s->nodeattr = pmi_kvs_create(PMI_KVS_BYTES / 16);
	snprintf(s->kvsname, sizeof(s->kvsname), "rota.%u.%u", st->job_id,
		 st->step_id);
	s->mapping = mapping_format(st);
	*out = s;
	return 0;
}

static struct pmi_client *find_client(struct wireup_server *s, uint32_t rank)
{
	for (uint32_t i = 0; i < s->nlocal; i++)
		if (s->clients[i].rank == rank)
			return &s->clients[i];
	return NULL;
}

static int pmi_task_env(struct wireup_server *s, uint32_t rank, char ***env,
			int *child_fd, char *err, size_t errlen)
{
	struct pmi_client *c = find_client(s, rank);
	int sv[2];
	int i = 0;

	*env = NULL;
	*child_fd = -1;
	if (!c || c->state != CLIENT_NONE || c->fd >= 0 || c->watch) {
		snprintf(err, errlen, "pmi: rank %u: not a new task here",
			 rank);
		return -EINVAL;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		int e = errno;

		snprintf(err, errlen, "pmi: socketpair: %s", strerror(e));
		return -e;
	}
	fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
	c->fd = sv[0];
	c->child_fd = sv[1];
	c->watch = rota_evloop_add_fd(s->loop, c->fd, ROTA_EV_READ,
				      client_cb, c);
	c->state = CLIENT_SILENT;
	c->env[i++] = rota_xasprintf("PMI_FD=%d", sv[1]);
	c->env[i++] = rota_xasprintf("PMI_RANK=%u", rank);
	c->env[i++] = rota_xasprintf("PMI_SIZE=%u", s->st->ntasks);
	c->env[i++] = rota_xasprintf("PMI_JOBID=%s", s->kvsname);
	c->env[i++] = rota_xasprintf("PMI_SPAWNED=0");
	c->env[i] = NULL;
	*env = c->env;
	*child_fd = sv[1];
	return 0;
}

static void pmi_task_started(struct wireup_server *s, uint32_t rank,
			     pid_t pid)
{
	struct pmi_client *c = find_client(s, rank);

	if (!c)
		return;
	if (c->child_fd >= 0) {
		close(c->child_fd);
		c->child_fd = -1;
	}
	if (pid < 0)
		client_drop(c); /* a rank that never ran fails the fences */
}

static void pmi_destroy(struct wireup_server *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->nlocal; i++) {
		struct pmi_client *c = &s->clients[i];

		if (c->watch)
			rota_watch_remove(c->watch);
		if (c->fd >= 0)
			close(c->fd);
		if (c->child_fd >= 0)
			close(c->child_fd);
		free(c->in);
		rota_strbuf_fini(&c->out);
		for (int j = 0; c->env[j]; j++)
			free(c->env[j]);
	}
	free(s->clients);
	pmi_kvs_destroy(s->kvs);
	pmi_kvs_destroy(s->nodeattr);
	rota_strbuf_fini(&s->blob);
	free(s->mapping);
	free(s);
}

const struct wireup_impl wireup_pmi = {
	.name = "pmi",
	.create = pmi_create,
	.task_env = pmi_task_env,
	.task_started = pmi_task_started,
	.done = pmi_done,
	.destroy = pmi_destroy,
};
