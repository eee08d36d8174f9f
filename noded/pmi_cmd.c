// SPDX-License-Identifier: MIT
/*
 * The commands of the PMI server (wireup_pmi), PMI-1 and PMI-2, in one
 * table: what each answers, from the step (struct wireup_step) and the
 * key-value space.  Spawn, name publishing and job-connect are refused.
 * pmi_wire.c owns the connections and the fences these feed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "noded/pmi_internal.h"

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
		pmi_reply(c, "cmd=response_to_init pmi_version=2 "
			 "pmi_subversion=0 rc=0");
		c->v2 = true;
	} else if (ver && !strcmp(ver, "1") && sub &&
		   (!strcmp(sub, "1") || !strcmp(sub, "0"))) {
		pmi_reply(c, "cmd=response_to_init pmi_version=1 "
			 "pmi_subversion=1 rc=0");
	} else {
		pmi_reply(c, "cmd=response_to_init pmi_version=1 "
			 "pmi_subversion=1 rc=-1");
		pmi_client_complain(c, "init: unsupported PMI version");
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
	pmi_reply(c, line);
}

static void do_get_appnum(struct pmi_client *c, const struct pmi_msg *m)
{
	(void)m;
	pmi_reply(c, "cmd=appnum appnum=" PMI_APPNUM);
}

static void do_get_my_kvsname(struct pmi_client *c, const struct pmi_msg *m)
{
	char line[128];

	(void)m;
	snprintf(line, sizeof(line), "cmd=my_kvsname kvsname=%s",
		 c->srv->kvsname);
	pmi_reply(c, line);
}

static void do_get_universe_size(struct pmi_client *c,
				 const struct pmi_msg *m)
{
	char line[64];

	(void)m;
	snprintf(line, sizeof(line), "cmd=universe_size size=%u",
		 c->srv->st->ntasks);
	pmi_reply(c, line);
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
		pmi_reply(c, "cmd=put_result rc=0 msg=success");
		return;
	}
	snprintf(line, sizeof(line), "cmd=put_result rc=-1 msg=%s", why);
	for (char *p = line + strlen("cmd=put_result rc=-1 msg="); *p; p++)
		if (*p == ' ')
			*p = '_';
	pmi_reply(c, line);
	pmi_client_complain(c, why);
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
	pmi_reply(c, b.data);
	rota_strbuf_fini(&b);
}

static void do_finalize(struct pmi_client *c, const struct pmi_msg *m)
{
	(void)m;
	c->state = CLIENT_FINALIZED;
	pmi_reply(c, c->v2 ? "cmd=finalize-response;rc=0;" : "cmd=finalize_ack");
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
		pmi_complain(c->srv, "pmi: rank %u: abort (exit code %.16s)%s%s",
			 c->rank, code, i ? ": " : "", text);
	else
		pmi_complain(c->srv, "pmi: rank %u: abort%s%s", c->rank,
			 i ? ": " : "", text);
	pmi_client_drop(c);
}

static void do_unsupported_v1(struct pmi_client *c, const struct pmi_msg *m)
{
	char line[128];
	const char *answer = !strcmp(m->cmd, "publish_name") ? "publish_result"
			     : !strcmp(m->cmd, "unpublish_name")
				     ? "unpublish_result"
				     : "lookup_result";

	snprintf(line, sizeof(line), "cmd=%s rc=-1 msg=not_supported", answer);
	pmi_reply(c, line);
}

static void do_fullinit(struct pmi_client *c, const struct pmi_msg *m)
{
	const struct wireup_step *st = c->srv->st;
	const char *rank = pmi_msg_get(m, "pmirank");
	char text[256];

	if (rank && (strspn(rank, "0123456789") != strlen(rank) ||
		     strtoul(rank, NULL, 10) != c->rank)) {
		pmi_reply_v2_error(c, "fullinit", "not this task's rank");
		pmi_client_complain(c, "fullinit: not this task's rank");
		return;
	}
	c->state = CLIENT_ACTIVE;
	snprintf(text, sizeof(text),
		 "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;"
		 "rank=%u;size=%u;appnum=" PMI_APPNUM ";debugged=FALSE;"
		 "pmiverbose=FALSE;",
		 c->rank, st->ntasks);
	pmi_reply(c, text);
}

static void do_job_getid(struct pmi_client *c, const struct pmi_msg *m)
{
	char text[128];

	(void)m;
	snprintf(text, sizeof(text), "cmd=job-getid-response;rc=0;jobid=%s;",
		 c->srv->kvsname);
	pmi_reply(c, text);
}

static void do_kvs_put(struct pmi_client *c, const struct pmi_msg *m)
{
	const char *why = put(c, pmi_msg_get(m, "key"), pmi_msg_get(m, "value"));

	if (!why) {
		pmi_reply(c, "cmd=kvs-put-response;rc=0;");
		return;
	}
	pmi_reply_v2_error(c, "kvs-put", why);
	pmi_client_complain(c, why);
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
	pmi_reply_found(c, "kvs-get-response", val);
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
	pmi_reply_found(c, "info-getjobattr-response", val);
}

static void do_putnodeattr(struct pmi_client *c, const struct pmi_msg *m)
{
	struct wireup_server *s = c->srv;
	const char *key = pmi_msg_get(m, "key");
	const char *val = pmi_msg_get(m, "value");
	struct rota_error err = { "" };

	if (!key || !val || !pmi_is_kvs_pair(key, val) ||
	    pmi_kvs_put(s->nodeattr, key, val, &err)) {
		pmi_reply_v2_error(c, "info-putnodeattr", "bad key or value");
		pmi_client_complain(c, "info-putnodeattr: bad key or value");
		return;
	}
	pmi_reply(c, "cmd=info-putnodeattr-response;rc=0;");
	/* answer the local tasks that wait for this attribute */
	for (uint32_t i = 0; i < s->nlocal; i++) {
		struct pmi_client *w = &s->clients[i];

		if (w->wait != WAIT_NODEATTR || strcmp(w->wait_key, key))
			continue;
		w->wait = WAIT_NONE;
		pmi_reply_found(w, "info-getnodeattr-response", val);
		w->thrid[0] = '\0';
		if (w->fd >= 0)
			pmi_process(w);
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
		pmi_update_events(c);
		return;
	}
	pmi_reply_found(c, "info-getnodeattr-response", val);
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
		pmi_reply_v2_error(c, name, "unknown command");
	} else {
		/* the PMI-1 answer is the command's name with _result */
		char line[96];

		snprintf(line, sizeof(line),
			 "cmd=%.40s_result rc=-1 msg=unknown_command", m->cmd);
		pmi_reply(c, line);
	}
	pmi_client_complain(c, what);
}

void pmi_dispatch(struct pmi_client *c, const struct pmi_msg *m)
{
	const char *thrid = pmi_msg_get(m, "thrid");

	c->thrid[0] = '\0';
	if (c->v2 && thrid && strlen(thrid) < sizeof(c->thrid) &&
	    strspn(thrid, "0123456789abcdefxABCDEFX") == strlen(thrid))
		strcpy(c->thrid, thrid);
	if (c->state != CLIENT_ACTIVE && !is_allowed_early(m->cmd)) {
		pmi_client_complain(c, c->state == CLIENT_FINALIZED
					   ? "command after finalize"
					   : "command before init");
		pmi_client_drop(c);
		return;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const struct command *cmd = &commands[i];

		if (cmd->v2 != c->v2 || strcmp(cmd->name, m->cmd))
			continue;
		if (cmd->run)
			cmd->run(c, m);
		else
			pmi_enter_fence(c);
		return;
	}
	unknown(c, m);
}
