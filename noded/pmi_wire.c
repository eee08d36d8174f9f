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
#include "noded/pmi_internal.h"

static void client_close(struct pmi_client *c);

void pmi_complain(struct wireup_server *s, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	s->ops.complain(s->ops.ctx, line);
}

/* A broken message: complain, and close a client that keeps at it. */
void pmi_client_complain(struct pmi_client *c, const char *what)
{
	pmi_complain(c->srv, "pmi: rank %u: %s", c->rank, what);
	if (++c->complaints >= PMI_COMPLAINTS) {
		pmi_complain(c->srv, "pmi: rank %u: too many errors, closed",
			 c->rank);
		pmi_client_drop(c);
	}
}

/* ---- output ------------------------------------------------------------ */

void pmi_update_events(struct pmi_client *c)
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
	pmi_update_events(c);
}

/*
 * Queue one answer.  PMI-1: 'text' is "cmd=x a=b" and gets its newline.
 * PMI-2: 'text' is "cmd=x;a=b;" (values escaped by the caller) and gets
 * its length, and the client's thrid when it gave one.
 */
void pmi_reply(struct pmi_client *c, const char *text)
{
	if (c->fd < 0)
		return;
	if (c->out.len - c->outpos > PMI_OUT_MAX) {
		pmi_complain(c->srv, "pmi: rank %u: does not read its answers",
			 c->rank);
		pmi_client_drop(c);
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

void pmi_reply_found(struct pmi_client *c, const char *cmd,
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
	pmi_reply(c, b.data);
	rota_strbuf_fini(&b);
}

void pmi_reply_v2_error(struct pmi_client *c, const char *cmd,
			   const char *msg)
{
	struct rota_strbuf b = { 0 };

	rota_strbuf_addf(&b, "cmd=%s-response;rc=-1;errmsg=", cmd);
	add_v2_value(&b, msg);
	rota_strbuf_adds(&b, ";");
	pmi_reply(c, b.data);
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
			pmi_reply(c, c->v2 ? "cmd=kvs-fence-response;rc=0;"
				       : "cmd=barrier_out rc=0");
		else if (c->v2)
			pmi_reply_v2_error(c, "kvs-fence", error);
		else
			/* PMI-1 clients do not look at barrier_out's rc */
			pmi_client_drop(c);
		c->thrid[0] = '\0';
	}
	for (i = 0; i < s->nlocal; i++) {
		struct pmi_client *c = &s->clients[i];

		if (!c->answer || c->fd < 0)
			continue;
		c->answer = false;
		pmi_update_events(c);
		pmi_process(c);
	}
}

static void fence_fail_lost(struct wireup_server *s)
{
	char msg[96];

	if (!s->nfence)
		return;
	snprintf(msg, sizeof(msg), "rank %u left without finalize",
		 s->lost_rank);
	pmi_complain(s, "pmi: fence failed: %s", msg);
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
		pmi_complain(s, "pmi: fence failed: the step's exchange is gone");
		fence_answer(s, "the step's exchange is gone");
	}
}

void pmi_enter_fence(struct pmi_client *c)
{
	c->wait = WAIT_FENCE;
	c->srv->nfence++;
	pmi_update_events(c);
	fence_check(c->srv);
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
		pmi_complain(s, "pmi: an allgather result nobody asked for");
		return;
	}
	s->gathering = false;
	if (merge(s, all, len, &err)) {
		pmi_complain(s, "pmi: fence failed: %s", err.text);
		fence_answer(s, err.text);
		return;
	}
	fence_answer(s, NULL);
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
			pmi_reply(c, "cmd=spawn_result rc=-1 "
				 "errmsg=spawn_not_supported");
		}
		return;
	}
	if (pmi_parse(c->in, len, c->v2, &m, &err)) {
		pmi_client_complain(c, err.text);
		pmi_client_drop(c);
	} else if (m.multi && !c->v2) {
		c->in_mcmd = true;
	} else {
		pmi_dispatch(c, &m);
	}
}

/* Handle the whole messages in the input, unless waiting for an answer. */
void pmi_process(struct pmi_client *c)
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
			pmi_client_complain(c, err.text);
			pmi_client_drop(c);
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
		pmi_complain(s, "pmi: rank %u closed its connection without "
			    "finalize",
			 c->rank);
	c->state = CLIENT_GONE;
	if (s->lost && !s->gathering)
		fence_fail_lost(s);
}

/* Close a client we have complained of already: no second line. */
void pmi_client_drop(struct pmi_client *c)
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
	pmi_process(c);
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
		pmi_client_drop(c); /* a rank that never ran fails the fences */
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
