// SPDX-License-Identifier: MIT
/*
 * Message codecs: every encode/decode pair round trips, and every decoder
 * refuses hostile bodies with -EPROTO, leaving its struct empty.  jansson is
 * used here only to build hostile bodies and to check escaping.
 */
#include "config.h"

#include <check.h>
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/proto.h"
#include "common/strbuf.h"

#define N(a) ((int)(sizeof(a) / sizeof(*(a))))

/* ---- helpers ---- */

static size_t strv_len(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/* NULL and an empty vector mean the same on the wire. */
static void assert_strv_eq(char *const *got, char *const *want)
{
	size_t n = strv_len(want);

	ck_assert_uint_eq(strv_len(got), n);
	for (size_t i = 0; i < n; i++)
		ck_assert_str_eq(got[i], want[i]);
}

static void assert_u32v_eq(const uint32_t *got, size_t ngot,
			   const uint32_t *want, size_t nwant)
{
	ck_assert_uint_eq(ngot, nwant);
	for (size_t i = 0; i < nwant; i++)
		ck_assert_uint_eq(got[i], want[i]);
}

/* A heap copy of exactly 'len' bytes, no terminator: ASan sees overreads. */
static char *exact_copy(const char *buf, size_t len)
{
	char *p = malloc(len ? len : 1);

	ck_assert_ptr_nonnull(p);
	memcpy(p, buf, len);
	return p;
}

/* ---- the codecs, behind one signature ---- */

union any {
	struct rota_msg_error error;
	struct rota_job_desc desc;
	uint32_t id;
	struct rota_msg_job_list_req req;
	struct rota_msg_job_list list;
	struct rota_msg_job_ids cancel;
	struct rota_msg_text_list text;
	struct rota_node_info node;
	struct rota_msg_node_list nodes;
	struct rota_msg_launch launch;
	struct rota_msg_job_signal sig;
	struct rota_msg_job_end end;
	struct {
		uint32_t job_id;
		uint32_t run;
	} jr;
	char *name;
};

static int dec_error(const char *b, size_t n, union any *u,
		     struct rota_error *e)
{
	return rota_msg_error_decode(b, n, &u->error, e);
}

static int dec_submit(const char *b, size_t n, union any *u,
		      struct rota_error *e)
{
	return rota_msg_submit_decode(b, n, &u->desc, e);
}

static int dec_submit_reply(const char *b, size_t n, union any *u,
			    struct rota_error *e)
{
	return rota_msg_submit_reply_decode(b, n, &u->id, e);
}

static int dec_req(const char *b, size_t n, union any *u,
		   struct rota_error *e)
{
	return rota_msg_job_list_req_decode(b, n, &u->req, e);
}

static int dec_list(const char *b, size_t n, union any *u,
		    struct rota_error *e)
{
	return rota_msg_job_list_decode(b, n, &u->list, e);
}

static int dec_cancel(const char *b, size_t n, union any *u,
		      struct rota_error *e)
{
	return rota_msg_job_ids_decode(b, n, &u->cancel, e);
}

static int dec_text(const char *b, size_t n, union any *u,
		    struct rota_error *e)
{
	return rota_msg_text_list_decode(b, n, &u->text, e);
}

static int dec_node(const char *b, size_t n, union any *u,
		    struct rota_error *e)
{
	return rota_msg_node_decode(b, n, &u->node, e);
}

static int dec_nodes(const char *b, size_t n, union any *u,
		     struct rota_error *e)
{
	return rota_msg_node_list_decode(b, n, &u->nodes, e);
}

static int dec_launch(const char *b, size_t n, union any *u,
		      struct rota_error *e)
{
	return rota_msg_launch_decode(b, n, &u->launch, e);
}

static int dec_signal(const char *b, size_t n, union any *u,
		      struct rota_error *e)
{
	return rota_msg_job_signal_decode(b, n, &u->sig, e);
}

static int dec_end(const char *b, size_t n, union any *u,
		   struct rota_error *e)
{
	return rota_msg_job_end_decode(b, n, &u->end, e);
}

static int dec_job_run(const char *b, size_t n, union any *u,
		       struct rota_error *e)
{
	return rota_msg_job_run_decode(b, n, &u->jr.job_id, &u->jr.run, e);
}

static int dec_job_id(const char *b, size_t n, union any *u,
		      struct rota_error *e)
{
	return rota_msg_job_id_decode(b, n, &u->id, e);
}

static int dec_name(const char *b, size_t n, union any *u,
		    struct rota_error *e)
{
	return rota_msg_name_decode(b, n, &u->name, e);
}

static bool empty_error(const union any *u)
{
	return u->error.code == 0 && !u->error.text;
}

static bool empty_desc(const union any *u)
{
	const struct rota_job_desc *d = &u->desc;

	return !d->name && !d->script && !d->workdir && !d->output &&
	       !d->error && !d->queue && !d->account && !d->constraint &&
	       !d->env && !d->ntasks && !d->cpus_per_task && !d->nodes &&
	       !d->mem_mb && !d->time_limit && !d->no_requeue;
}

static bool empty_id(const union any *u)
{
	return u->id == 0;
}

static bool empty_req(const union any *u)
{
	return u->req.job_id == 0;
}

static bool empty_list(const union any *u)
{
	return !u->list.jobs && !u->list.njobs && !u->list.now;
}

static bool empty_cancel(const union any *u)
{
	return !u->cancel.job_ids && !u->cancel.n;
}

static bool empty_text(const union any *u)
{
	return !u->text.lines && !u->text.n;
}

static bool empty_node(const union any *u)
{
	const struct rota_node_info *n = &u->node;

	return !n->name && !n->state && !n->reason && !n->addr &&
	       !n->features && !n->sockets && !n->cores && !n->pus &&
	       !n->cores_used && !n->memory_mb && !n->memory_used_mb &&
	       !n->jobs && !n->runs && !n->njobs && !n->gpus && !n->ngpus &&
	       !n->gres;
}

static bool empty_nodes(const union any *u)
{
	return !u->nodes.nodes && !u->nodes.n;
}

static bool empty_launch(const union any *u)
{
	const struct rota_msg_launch *m = &u->launch;

	return !m->job_id && !m->run && !m->uid && !m->gid && !m->name &&
	       !m->script &&
	       !m->workdir && !m->output && !m->error && !m->queue &&
	       !m->nodelist && !m->env && !m->cores && !m->ncores &&
	       !m->ntasks && !m->time_limit;
}

static bool empty_signal(const union any *u)
{
	return !u->sig.job_id && !u->sig.run && !u->sig.signo &&
	       !u->sig.cancel;
}

static bool empty_end(const union any *u)
{
	const struct rota_msg_job_end *m = &u->end;

	return !m->job_id && !m->run && m->state == ROTA_JOB_NONE &&
	       !m->exit_code && !m->term_signal && !m->start_time &&
	       !m->end_time && !m->text;
}

static bool empty_job_run(const union any *u)
{
	return !u->jr.job_id && !u->jr.run;
}

static bool empty_name(const union any *u)
{
	return !u->name;
}

static void clear_error(union any *u)
{
	rota_msg_error_clear(&u->error);
}

static void clear_desc(union any *u)
{
	rota_job_desc_clear(&u->desc);
}

static void clear_none(union any *u)
{
}

static void clear_list(union any *u)
{
	rota_msg_job_list_clear(&u->list);
}

static void clear_cancel(union any *u)
{
	rota_msg_job_ids_clear(&u->cancel);
}

static void clear_text(union any *u)
{
	rota_msg_text_list_clear(&u->text);
}

static void clear_node(union any *u)
{
	rota_node_info_clear(&u->node);
}

static void clear_nodes(union any *u)
{
	rota_msg_node_list_clear(&u->nodes);
}

static void clear_launch(union any *u)
{
	rota_msg_launch_clear(&u->launch);
}

static void clear_end(union any *u)
{
	rota_msg_job_end_clear(&u->end);
}

static void clear_name(union any *u)
{
	free(u->name);
	u->name = NULL;
}

#define NODE_GOOD                                                             \
	"{\"name\":\"n1\",\"sockets\":2,\"cores\":8,\"pus\":16,"              \
	"\"cores_used\":4,\"memory_mb\":4096,\"memory_used_mb\":1024,"        \
	"\"features\":[\"ib\",\"gpu\"],\"jobs\":[7,8],\"state\":\"UP\","     \
	"\"reason\":\"\",\"addr\":\"127.0.0.2\",\"runs\":[1,3]}"

#define JOB_GOOD                                                              \
	"{\"id\":1,\"state\":\"RUNNING\",\"uid\":1000,\"gid\":100,"           \
	"\"name\":\"j\",\"user\":\"u\",\"account\":\"a\",\"queue\":\"q\","    \
	"\"nodelist\":\"n[1-2]\",\"reason\":\"\",\"workdir\":\"/w\","         \
	"\"output\":\"/w/o\",\"error\":\"/w/e\",\"constraint\":\"ib\","       \
	"\"ntasks\":2,\"cpus_per_task\":1,\"nodes\":2,\"mem_mb\":10,"         \
	"\"time_limit\":60,\"submit\":90,\"start\":95,\"end\":0,"             \
	"\"exit_code\":0,\"signal\":0,\"runs\":2}"

/* The required keys of each body; every other key of 'good' is optional. */
static const char *const req_error[] = { "code", "text", NULL };
static const char *const req_submit[] = {
	"name",	  "script", "workdir",	  "ntasks", "cpus_per_task",
	"nodes",  "mem_mb", "time_limit", NULL,
};
static const char *const req_job_id[] = { "job_id", NULL };
static const char *const req_list[] = { "now", "jobs", NULL };
static const char *const req_job[] = {
	"id",	  "state",	"uid",	  "gid",    "ntasks",
	"cpus_per_task", "nodes", "mem_mb", "time_limit",
	"submit", "start",	"end",	  "exit_code", "signal",
	NULL,
};
static const char *const req_cancel[] = { "job_ids", NULL };
static const char *const req_text[] = { "lines", NULL };
static const char *const req_node[] = {
	"name",	      "sockets",   "cores",	     "pus",
	"cores_used", "memory_mb", "memory_used_mb", "features",
	"jobs",	      NULL,
};
static const char *const req_nodes[] = { "nodes", NULL };
static const char *const req_launch[] = {
	"job_id", "run",    "uid",   "gid",	    "name",
	"script", "workdir", "output", "queue",	    "nodelist",
	"env",	  "cores",  "ntasks", "time_limit", NULL,
};
static const char *const req_signal[] = { "job_id", "run", "signal",
					  "cancel", NULL };
static const char *const req_end[] = { "job_id", "run",	  "state", "exit_code",
				       "signal", "start", "end",   NULL };
static const char *const req_job_run[] = { "job_id", "run", NULL };
static const char *const req_name[] = { "name", NULL };

enum {
	C_ERROR,
	C_SUBMIT,
	C_SUBMIT_REPLY,
	C_JOB_LIST_REQ,
	C_JOB_LIST,
	C_JOB_LIST_JOB, /* the keys of one job inside the list */
	C_CANCEL,
	C_TEXT_LIST,
	C_NODE,
	C_NODE_LIST,
	C_NODE_LIST_NODE,
	C_LAUNCH,
	C_SIGNAL,
	C_JOB_END,
	C_JOB_RUN,
	C_JOB_ID,
	C_NAME,
};

static const struct codec {
	const char *name;
	int (*decode)(const char *buf, size_t len, union any *u,
		      struct rota_error *err);
	bool (*empty)(const union any *u);
	void (*clear)(union any *u);
	const char *good;	/* a valid body with every optional key */
	const char *at;		/* path of the object 'required' is about */
	const char *const *required;
} codecs[] = {
	[C_ERROR] = { "error", dec_error, empty_error, clear_error,
		      "{\"code\":-2,\"text\":\"no such job\"}", NULL,
		      req_error },
	[C_SUBMIT] = { "submit", dec_submit, empty_desc, clear_desc,
		       "{\"name\":\"job\",\"script\":\"#!/bin/sh\\ntrue\\n\","
		       "\"workdir\":\"/home/u\",\"ntasks\":2,"
		       "\"cpus_per_task\":1,\"nodes\":1,\"mem_mb\":1024,"
		       "\"time_limit\":60,\"output\":\"o.txt\","
		       "\"error\":\"/tmp/e\",\"queue\":\"batch\","
		       "\"account\":\"acct\",\"constraint\":\"ib\","
		       "\"env\":[\"A=1\",\"B=2\"],\"no_requeue\":true}",
		       NULL, req_submit },
	[C_SUBMIT_REPLY] = { "submit_reply", dec_submit_reply, empty_id,
			     clear_none, "{\"job_id\":42}", NULL,
			     req_job_id },
	[C_JOB_LIST_REQ] = { "job_list_req", dec_req, empty_req, clear_none,
			     "{\"job_id\":0}", NULL, req_job_id },
	[C_JOB_LIST] = { "job_list", dec_list, empty_list, clear_list,
			 "{\"now\":100,\"jobs\":[" JOB_GOOD "]}", NULL,
			 req_list },
	[C_JOB_LIST_JOB] = { "job_list", dec_list, empty_list, clear_list,
			     "{\"now\":100,\"jobs\":[" JOB_GOOD "]}", "jobs.0",
			     req_job },
	[C_CANCEL] = { "cancel", dec_cancel, empty_cancel, clear_cancel,
		       "{\"job_ids\":[1,2]}", NULL, req_cancel },
	[C_TEXT_LIST] = { "text_list", dec_text, empty_text, clear_text,
			  "{\"lines\":[\"a\",\"b\"]}", NULL, req_text },
	[C_NODE] = { "node", dec_node, empty_node, clear_node, NODE_GOOD,
		     NULL, req_node },
	[C_NODE_LIST] = { "node_list", dec_nodes, empty_nodes, clear_nodes,
			  "{\"nodes\":[" NODE_GOOD "]}", NULL, req_nodes },
	[C_NODE_LIST_NODE] = { "node_list", dec_nodes, empty_nodes,
			       clear_nodes, "{\"nodes\":[" NODE_GOOD "]}",
			       "nodes.0", req_node },
	[C_LAUNCH] = { "launch", dec_launch, empty_launch, clear_launch,
		       "{\"job_id\":5,\"run\":2,\"uid\":1000,\"gid\":100,\"name\":\"j\","
		       "\"script\":\"#!/bin/sh\\n\",\"workdir\":\"/w\","
		       "\"output\":\"/w/o\",\"queue\":\"q\","
		       "\"nodelist\":\"n1\",\"env\":[\"A=1\"],"
		       "\"cores\":[0,1],\"ntasks\":2,\"time_limit\":60,"
		       "\"error\":\"/w/e\"}",
		       NULL, req_launch },
	[C_SIGNAL] = { "signal", dec_signal, empty_signal, clear_none,
		       "{\"job_id\":5,\"run\":2,\"signal\":15,"
		       "\"cancel\":true}",
		       NULL, req_signal },
	[C_JOB_END] = { "job_end", dec_end, empty_end, clear_end,
			"{\"job_id\":5,\"run\":2,\"state\":\"COMPLETED\","
			"\"exit_code\":0,\"signal\":0,\"start\":1,\"end\":2,"
			"\"text\":\"ok\"}",
			NULL, req_end },
	[C_JOB_RUN] = { "job_run", dec_job_run, empty_job_run, clear_none,
			"{\"job_id\":5,\"run\":2}", NULL, req_job_run },
	[C_JOB_ID] = { "job_id", dec_job_id, empty_id, clear_none,
		       "{\"job_id\":5}", NULL, req_job_id },
	[C_NAME] = { "name", dec_name, empty_name, clear_name,
		     "{\"name\":\"n1\"}", NULL, req_name },
};

/*
 * Decode 'len' bytes of 'buf' expecting failure: -EPROTO, the struct empty
 * (it starts as garbage, so "left alone" would not pass), an error text.
 * Returns the text for the caller to look at.
 */
static const char *expect_refused(const struct codec *c, const char *buf,
				  size_t len)
{
	static struct rota_error err;
	char *copy = exact_copy(buf, len);
	union any u;
	int rc;

	memset(&u, 0x5a, sizeof(u));
	err.text[0] = '\0';
	rc = c->decode(copy, len, &u, &err);
	free(copy);
	ck_assert_msg(rc == -EPROTO, "%s: %.*s: got %d, want -EPROTO",
		      c->name, (int)(len > 300 ? 300 : len), buf, rc);
	ck_assert_msg(c->empty(&u), "%s: struct not empty after failure",
		      c->name);
	ck_assert_msg(err.text[0], "%s: no error text", c->name);
	return err.text;
}

static void expect_accepted(const struct codec *c, const char *buf,
			    size_t len)
{
	struct rota_error err = { "" };
	char *copy = exact_copy(buf, len);
	union any u;
	int rc;

	memset(&u, 0x5a, sizeof(u));
	rc = c->decode(copy, len, &u, &err);
	free(copy);
	ck_assert_msg(rc == 0, "%s: %s: got %d (%s)", c->name, buf, rc,
		      err.text);
	c->clear(&u);
}

/* A text pattern: "*" at the end matches any rest. */
static void assert_text(const char *got, const char *want)
{
	size_t n = strlen(want);

	if (n && want[n - 1] == '*')
		ck_assert_msg(strncmp(got, want, n - 1) == 0,
			      "error '%s' does not start with '%.*s'", got,
			      (int)(n - 1), want);
	else
		ck_assert_str_eq(got, want);
}

/*
 * A JSON value from a short spec:
 *   "#N"     a string of N 'a's;   "#/N" the same starting with '/';
 *   "@N:V"   an array of N copies of the JSON value V;
 *   other    JSON text (\u0000 allowed, to build hostile strings).
 */
static json_t *make_value(const char *spec)
{
	json_error_t jerr;
	json_t *v;

	if (spec[0] == '#') {
		bool slash = spec[1] == '/';
		size_t n = strtoul(spec + 1 + slash, NULL, 10);
		char *s = malloc(n + 1);

		memset(s, 'a', n);
		if (slash && n)
			s[0] = '/';
		v = json_stringn(s, n);
		free(s);
	} else if (spec[0] == '@') {
		char *end;
		size_t n = strtoul(spec + 1, &end, 10);
		json_t *elem = make_value(end + 1);

		v = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append(v, elem);
		json_decref(elem);
	} else {
		v = json_loads(spec, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
	}
	ck_assert_msg(v != NULL, "bad test spec '%s'", spec);
	return v;
}

/* The value at a dotted path ("jobs.0.uid"); numbers index arrays. */
static json_t *walk(json_t *root, const char *path, char *last, size_t max)
{
	char buf[128];
	char *save = NULL;
	char *tok;
	char *next;

	snprintf(buf, sizeof(buf), "%s", path);
	tok = strtok_r(buf, ".", &save);
	while ((next = strtok_r(NULL, ".", &save))) {
		if (json_is_array(root))
			root = json_array_get(root, strtoul(tok, NULL, 10));
		else
			root = json_object_get(root, tok);
		ck_assert_ptr_nonnull(root);
		tok = next;
	}
	snprintf(last, max, "%s", tok);
	return root;
}

/* 'good' with the value at 'path' set to 'v' (NULL: removed). */
static char *mutate(const char *good, const char *path, json_t *v)
{
	json_t *root = json_loads(good, 0, NULL);
	char key[64];
	json_t *parent;
	char *text;

	ck_assert_ptr_nonnull(root);
	parent = walk(root, path, key, sizeof(key));
	if (json_is_array(parent)) {
		size_t i = strtoul(key, NULL, 10);

		if (!v)
			json_array_remove(parent, i);
		else if (i == json_array_size(parent))
			json_array_append_new(parent, v);
		else
			json_array_set_new(parent, i, v);
	} else if (v) {
		json_object_set_new(parent, key, v);
	} else {
		json_object_del(parent, key);
	}
	text = json_dumps(root, JSON_COMPACT);
	ck_assert_ptr_nonnull(text);
	json_decref(root);
	return text;
}

/* ---- generic hostile input, for every decoder ---- */

/* A long Users= list (over a name's 256 bytes) is a value, not an attack. */
START_TEST(test_resv_create_long_value)
{
	char users[1200];
	struct rota_msg_kv kv = { .key = "Users", .value = users };
	struct rota_msg_resv_create m = { .set = &kv, .nset = 1 };
	struct rota_msg_resv_create back;
	struct rota_error err = { "" };
	size_t len;
	char *buf;

	memset(users, 'a', sizeof(users) - 1);
	users[sizeof(users) - 1] = '\0';
	buf = rota_msg_resv_create_encode(&m, &len);
	ck_assert_int_eq(rota_msg_resv_create_decode(buf, len, &back, &err), 0);
	ck_assert_uint_eq(back.nset, 1);
	ck_assert_str_eq(back.set[0].value, users);
	rota_msg_resv_create_clear(&back);
	free(buf);
}
END_TEST

START_TEST(test_good_accepted)
{
	expect_accepted(&codecs[_i], codecs[_i].good,
			strlen(codecs[_i].good));
}
END_TEST

/* Every prefix of a valid body is malformed (and must not crash or leak). */
START_TEST(test_prefixes)
{
	const struct codec *c = &codecs[_i];
	size_t len = strlen(c->good);

	for (size_t n = 0; n < len; n++)
		assert_text(expect_refused(c, c->good, n), "malformed JSON: *");
}
END_TEST

/* jansson itself only takes an object or an array at the top. */
static const struct {
	const char *body;
	const char *error;
} not_objects[] = {
	{ "[]", "message body is not a JSON object" },
	{ "[{}]", "message body is not a JSON object" },
	{ "[{\"job_id\":1}]", "message body is not a JSON object" },
	{ "1", "malformed JSON: '[' or '{' expected near '1'" },
	{ "-1", "malformed JSON: '[' or '{' expected near '-1'" },
	{ "1.5", "malformed JSON: '[' or '{' expected near '1.5'" },
	{ "\"x\"", "malformed JSON: '[' or '{' expected near '\"x\"'" },
	{ "null", "malformed JSON: '[' or '{' expected near 'null'" },
	{ "true", "malformed JSON: '[' or '{' expected near 'true'" },
};

START_TEST(test_not_object)
{
	const struct codec *c = &codecs[_i];

	for (int i = 0; i < N(not_objects); i++)
		assert_text(expect_refused(c, not_objects[i].body,
					   strlen(not_objects[i].body)),
			    not_objects[i].error);
}
END_TEST

static const char *const garbage[] = {
	"",
	" ",
	"{",
	"}",
	"{}}",
	"{} {}",
	"{}x",
	"{\"a\":}",
	"{'a':1}",
	"{\"a\":1,}",
	"{\"a\" 1}",
	"{\"a\":01}",
	"{\"a\":1e}",
	"{\"a\":\"\\x\"}",
	"{\"a\":\"\\ud800\"}",
	"{\"a\":\"\xff\"}",
	"{\"a\":\"\xc0\xaf\"}",
	"{\"a\":\"tab\there\"}",
	"{\"a\":99999999999999999999}",
	"\xef\xbb\xbf{}",
	"{\"a\":NaN}",
	"{\"a\":Infinity}",
};

START_TEST(test_garbage)
{
	const struct codec *c = &codecs[_i];

	for (int i = 0; i < N(garbage); i++)
		assert_text(expect_refused(c, garbage[i], strlen(garbage[i])),
			    "malformed JSON: *");
}
END_TEST

/* Bytes after a NUL terminator are still part of the body. */
START_TEST(test_embedded_nul_byte)
{
	const struct codec *c = &codecs[_i];
	size_t len = strlen(c->good);
	char *buf = malloc(len + 2);

	memcpy(buf, c->good, len);
	buf[len] = '\0';
	buf[len + 1] = '}';
	assert_text(expect_refused(c, buf, len + 1), "malformed JSON: *");
	assert_text(expect_refused(c, buf, len + 2), "malformed JSON: *");
	/* and a NUL byte instead of the first quote */
	buf[1] = '\0';
	assert_text(expect_refused(c, buf, len), "malformed JSON: *");
	free(buf);
}
END_TEST

START_TEST(test_unknown_key)
{
	const struct codec *c = &codecs[_i];
	char path[64];
	char *body;

	snprintf(path, sizeof(path), "%s%sbogus", c->at ? c->at : "",
		 c->at ? "." : "");
	body = mutate(c->good, path, json_integer(1));
	assert_text(expect_refused(c, body, strlen(body)),
		    "bad message: 1 object item(s) left unpacked: bogus");
	free(body);
}
END_TEST

static bool is_required(const struct codec *c, const char *key)
{
	for (const char *const *r = c->required; *r; r++)
		if (strcmp(*r, key) == 0)
			return true;
	return false;
}

/* Each key removed in turn: required ones refused, others optional. */
START_TEST(test_missing_key)
{
	const struct codec *c = &codecs[_i];
	json_t *root = json_loads(c->good, 0, NULL);
	json_t *obj = root;
	const char *key;
	json_t *v;
	size_t nreq = 0;

	if (c->at) {
		char last[64];

		obj = walk(root, c->at, last, sizeof(last));
		obj = json_array_get(obj, strtoul(last, NULL, 10));
	}
	ck_assert_ptr_nonnull(obj);
	json_object_foreach(obj, key, v) {
		char path[64];
		char want[128];
		char *body;

		snprintf(path, sizeof(path), "%s%s%s", c->at ? c->at : "",
			 c->at ? "." : "", key);
		body = mutate(c->good, path, NULL);
		if (is_required(c, key)) {
			snprintf(want, sizeof(want),
				 "bad message: Object item not found: %s", key);
			assert_text(expect_refused(c, body, strlen(body)),
				    want);
			nreq++;
		} else {
			expect_accepted(c, body, strlen(body));
		}
		free(body);
	}
	/* every required key is in 'good', so each was tried */
	for (const char *const *r = c->required; *r; r++, nreq--)
		ck_assert_msg(json_object_get(obj, *r), "%s not in good", *r);
	ck_assert_uint_eq(nreq, 0);
	json_decref(root);
}
END_TEST

/* Each key in turn given values of the wrong type. */
START_TEST(test_wrong_type)
{
	const struct codec *c = &codecs[_i];
	json_t *root = json_loads(c->good, 0, NULL);
	json_t *obj = root;
	const char *key;
	json_t *v;

	if (c->at) {
		char last[64];

		obj = walk(root, c->at, last, sizeof(last));
		obj = json_array_get(obj, strtoul(last, NULL, 10));
	}
	json_object_foreach(obj, key, v) {
		const char *wrong[] = { "null", "{}", "1.5", "[[]]", NULL };
		char path[64];

		if (json_is_string(v))
			wrong[4] = "7";
		else if (json_is_integer(v))
			wrong[4] = "\"7\"";
		else if (json_is_array(v))
			wrong[4] = "\"x\"";
		else if (json_is_boolean(v))
			wrong[4] = "1";
		ck_assert_ptr_nonnull(wrong[4]);
		snprintf(path, sizeof(path), "%s%s%s", c->at ? c->at : "",
			 c->at ? "." : "", key);
		for (int i = 0; i < N(wrong); i++) {
			json_t *w = make_value(wrong[i]);
			char *body = mutate(c->good, path, w);

			expect_refused(c, body, strlen(body));
			free(body);
		}
	}
	json_decref(root);
}
END_TEST

/* Duplicate keys would let two readers see two different messages. */
START_TEST(test_duplicate_key)
{
	const struct codec *c = &codecs[_i];
	size_t len = strlen(c->good);
	char *body = malloc(2 * len);
	size_t n;

	/* {A} -> {A,A-without-braces}: every key twice */
	memcpy(body, c->good, len - 1);
	n = len - 1;
	body[n++] = ',';
	memcpy(body + n, c->good + 1, len - 1);
	n += len - 1;
	assert_text(expect_refused(c, body, n),
		    "malformed JSON: duplicate object key*");
	free(body);
}
END_TEST

/* Nesting far past any real body must not exhaust the stack. */
START_TEST(test_deep_nesting)
{
	const size_t depth = 100000;
	char *body = malloc(2 * depth + 16);
	size_t n = 0;

	n += (size_t)sprintf(body, "{\"name\":");
	memset(body + n, '[', depth);
	n += depth;
	memset(body + n, ']', depth);
	n += depth;
	body[n++] = '}';
	for (int i = 0; i < N(codecs); i++)
		assert_text(expect_refused(&codecs[i], body, n),
			    "malformed JSON: *");
	free(body);
}
END_TEST

/* ---- hostile values, one field at a time ---- */

/* a node whose "runs" does not match its "jobs" */
#define NODE_BAD_RUNS                                                         \
	"{\"name\":\"n2\",\"sockets\":1,\"cores\":1,\"pus\":1,"              \
	"\"cores_used\":0,\"memory_mb\":0,\"memory_used_mb\":0,"           \
	"\"features\":[],\"jobs\":[1,2],\"runs\":[1,1,1]}"

static const struct {
	int codec;
	const char *path;
	const char *value;	/* make_value() spec; NULL: key removed */
	const char *error;	/* exact, or a prefix ending in '*' */
} hostile[] = {
	/* ERROR */
	{ C_ERROR, "code", "0", "code: 0 is outside [-4095, -1]" },
	{ C_ERROR, "code", "5", "code: 5 is outside [-4095, -1]" },
	{ C_ERROR, "code", "-4096", "code: -4096 is outside [-4095, -1]" },
	/* would be -1 once cut to an int */
	{ C_ERROR, "code", "4294967295",
	  "code: 4294967295 is outside [-4095, -1]" },
	{ C_ERROR, "code", "-4294967298",
	  "code: -4294967298 is outside [-4095, -1]" },
	{ C_ERROR, "text", "#1025", "text: longer than 1024 bytes" },
	{ C_ERROR, "text", "\"a\\u0000b\"",
	  "malformed JSON: \\u0000 is not allowed*" },
	{ C_ERROR, "text", "7", "bad message: Expected string, got integer" },

	/* SUBMIT */
	{ C_SUBMIT, "ntasks", "-1", "ntasks: -1 is outside [1, 1048576]" },
	{ C_SUBMIT, "ntasks", "0", "ntasks: 0 is outside [1, 1048576]" },
	{ C_SUBMIT, "ntasks", "1048577",
	  "ntasks: 1048577 is outside [1, 1048576]" },
	{ C_SUBMIT, "ntasks", "4294967298",
	  "ntasks: 4294967298 is outside [1, 1048576]" },
	/* a range's maximum: none (0), or not below its minimum */
	{ C_SUBMIT, "ntasks_max", "1",
	  "ntasks_max: 1 is outside [2, 1048576]" },
	{ C_SUBMIT, "ntasks_max", "1048577",
	  "ntasks_max: 1048577 is outside [2, 1048576]" },
	{ C_SUBMIT, "ntasks_max", "-2",
	  "ntasks_max: -2 is outside [2, 1048576]" },
	{ C_SUBMIT, "cpus_per_task", "0",
	  "cpus_per_task: 0 is outside [1, 65536]" },
	{ C_SUBMIT, "cpus_per_task", "-1",
	  "cpus_per_task: -1 is outside [1, 65536]" },
	{ C_SUBMIT, "nodes", "-1", "nodes: -1 is outside [0, 65536]" },
	{ C_SUBMIT, "nodes", "65537", "nodes: 65537 is outside [0, 65536]" },
	{ C_SUBMIT, "mem_mb", "-1",
	  "mem_mb: -1 is outside [0, 1099511627776]" },
	{ C_SUBMIT, "time_limit", "-1",
	  "time_limit: -1 is outside [0, 1099511627776]" },
	{ C_SUBMIT, "time_limit", "9223372036854775807",
	  "time_limit: 9223372036854775807 is outside [0, 1099511627776]" },
	{ C_SUBMIT, "workdir", "\"tmp/x\"", "workdir: not absolute" },
	{ C_SUBMIT, "workdir", "\"\"", "workdir: not absolute" },
	{ C_SUBMIT, "workdir", "\"./x\"", "workdir: not absolute" },
	{ C_SUBMIT, "workdir", "#/4097", "workdir: longer than 4096 bytes" },
	{ C_SUBMIT, "name", "#257", "name: longer than 256 bytes" },
	{ C_SUBMIT, "queue", "#257", "queue: longer than 256 bytes" },
	{ C_SUBMIT, "account", "#257", "account: longer than 256 bytes" },
	{ C_SUBMIT, "constraint", "#257",
	  "constraint: longer than 256 bytes" },
	{ C_SUBMIT, "output", "#/4097", "output: longer than 4096 bytes" },
	{ C_SUBMIT, "error", "#/4097", "error: longer than 4096 bytes" },
	{ C_SUBMIT, "env.0", "1",
	  "env: entry 0 is not a string of at most 32768 bytes" },
	{ C_SUBMIT, "env.1", "null",
	  "env: entry 1 is not a string of at most 32768 bytes" },
	{ C_SUBMIT, "env.2", "[\"A=1\"]",
	  "env: entry 2 is not a string of at most 32768 bytes" },
	{ C_SUBMIT, "env.1", "#32769",
	  "env: entry 1 is not a string of at most 32768 bytes" },
	{ C_SUBMIT, "env", "@1025:\"A=1\"", "env: more than 1024 entries" },
	{ C_SUBMIT, "env", "{}", "env: not an array" },
	{ C_SUBMIT, "env", "\"A=1\"", "env: not an array" },
	{ C_SUBMIT, "env.0", "\"A=\\u0000B=2\"",
	  "malformed JSON: \\u0000 is not allowed*" },
	{ C_SUBMIT, "name", "\"job\\u0000\"",
	  "malformed JSON: \\u0000 is not allowed*" },
	{ C_SUBMIT, "workdir", "\"/tmp\\u0000/../etc\"",
	  "malformed JSON: \\u0000 is not allowed*" },
	{ C_SUBMIT, "name", "7", "bad message: Expected string, got integer" },
	{ C_SUBMIT, "ntasks", "\"2\"",
	  "bad message: Expected integer, got string" },
	{ C_SUBMIT, "ntasks", "2.0",
	  "bad message: Expected integer, got real" },
	{ C_SUBMIT, "no_requeue", "1",
	  "bad message: Expected true or false, got integer" },
	{ C_SUBMIT, "no_requeue", "\"true\"",
	  "bad message: Expected true or false, got string" },
	{ C_SUBMIT, "no_requeue", "null",
	  "bad message: Expected true or false, got null" },
	{ C_SUBMIT, "no_requeue", "[true]",
	  "bad message: Expected true or false, got array" },
	{ C_SUBMIT, "hold", "1",
	  "bad message: Expected true or false, got integer" },

	/* SUBMIT_REPLY, JOB_LIST request, a body of one job id */
	{ C_SUBMIT_REPLY, "job_id", "-1",
	  "job_id: -1 is outside [0, 4294967295]" },
	{ C_SUBMIT_REPLY, "job_id", "4294967296",
	  "job_id: 4294967296 is outside [0, 4294967295]" },
	{ C_JOB_LIST_REQ, "job_id", "-1",
	  "job_id: -1 is outside [0, 4294967295]" },
	{ C_JOB_LIST_REQ, "job_id", "true",
	  "bad message: Expected integer, got true" },
	{ C_JOB_ID, "job_id", "4294967296",
	  "job_id: 4294967296 is outside [0, 4294967295]" },
	{ C_JOB_ID, "job_id", "-9223372036854775808",
	  "job_id: -9223372036854775808 is outside [0, 4294967295]" },

	/* JOB_LIST reply */
	{ C_JOB_LIST, "now", "\"100\"",
	  "bad message: Expected integer, got string" },
	{ C_JOB_LIST, "jobs", "{}", "jobs: not an array" },
	{ C_JOB_LIST, "jobs.0", "1",
	  "bad message: Expected object, got integer" },
	{ C_JOB_LIST, "jobs.1", "{\"id\":2}",
	  "bad message: Object item not found: state" },
	{ C_JOB_LIST, "jobs.1", "[]",
	  "bad message: Expected object, got array" },
	{ C_JOB_LIST, "jobs.0.state", "\"BOGUS\"", "state: 'BOGUS' unknown" },
	{ C_JOB_LIST, "jobs.0.state", "\"NONE\"", "state: 'NONE' unknown" },
	{ C_JOB_LIST, "jobs.0.state", "\"\"", "state: '' unknown" },
	{ C_JOB_LIST, "jobs.0.id", "0", "id: 0 is outside [1, 4294967295]" },
	{ C_JOB_LIST, "jobs.0.id", "4294967296",
	  "id: 4294967296 is outside [1, 4294967295]" },
	{ C_JOB_LIST, "jobs.0.exit_code", "300",
	  "exit_code: 300 is outside [-1, 255]" },
	{ C_JOB_LIST, "jobs.0.exit_code", "-2",
	  "exit_code: -2 is outside [-1, 255]" },
	{ C_JOB_LIST, "jobs.0.signal", "-1", "signal: -1 is outside [0, 128]" },
	{ C_JOB_LIST, "jobs.0.signal", "129",
	  "signal: 129 is outside [0, 128]" },
	{ C_JOB_LIST, "jobs.0.uid", "4294967296",
	  "uid: 4294967296 is outside [0, 4294967295]" },
	{ C_JOB_LIST, "jobs.0.uid", "-1",
	  "uid: -1 is outside [0, 4294967295]" },
	{ C_JOB_LIST, "jobs.0.gid", "-1",
	  "gid: -1 is outside [0, 4294967295]" },
	{ C_JOB_LIST, "jobs.0.ntasks", "-1",
	  "ntasks: -1 is outside [1, 1048576]" },
	{ C_JOB_LIST, "jobs.0.ntasks", "0",
	  "ntasks: 0 is outside [1, 1048576]" },
	{ C_JOB_LIST, "jobs.0.cpus_per_task", "0",
	  "cpus_per_task: 0 is outside [1, 65536]" },
	{ C_JOB_LIST, "jobs.0.nodes", "-1",
	  "nodes: -1 is outside [0, 4294967295]" },
	{ C_JOB_LIST, "jobs.0.mem_mb", "-1",
	  "mem_mb: -1 is outside [0, 1099511627776]" },
	{ C_JOB_LIST, "jobs.0.time_limit", "-1",
	  "time_limit: -1 is outside [0, 1099511627776]" },
	{ C_JOB_LIST, "jobs.0.submit", "-1",
	  "submit: -1 is outside [0, 9223372036854775807]" },
	{ C_JOB_LIST, "jobs.0.start", "-1",
	  "start: -1 is outside [0, 9223372036854775807]" },
	{ C_JOB_LIST, "jobs.0.end", "-1",
	  "end: -1 is outside [0, 9223372036854775807]" },
	{ C_JOB_LIST, "jobs.0.name", "#257", "name: longer than 256 bytes" },
	{ C_JOB_LIST, "jobs.0.user", "#257", "user: longer than 256 bytes" },
	{ C_JOB_LIST, "jobs.0.reason", "#1025",
	  "reason: longer than 1024 bytes" },
	{ C_JOB_LIST, "jobs.0.nodelist", "#4097",
	  "nodelist: longer than 4096 bytes" },
	{ C_JOB_LIST, "jobs.0.constraint", "#257",
	  "constraint: longer than 256 bytes" },
	{ C_JOB_LIST, "jobs.0.reason", "\"\\u0000\"",
	  "malformed JSON: \\u0000 is not allowed*" },
	/* 4294967295 and 0 once cut to 32 bits */
	{ C_JOB_LIST, "jobs.0.runs", "-1",
	  "runs: -1 is outside [0, 4294967295]" },
	{ C_JOB_LIST, "jobs.0.runs", "4294967296",
	  "runs: 4294967296 is outside [0, 4294967295]" },
	{ C_JOB_LIST, "jobs.0.runs", "\"2\"",
	  "bad message: Expected integer, got string" },
	{ C_JOB_LIST, "jobs.0.runs", "null",
	  "bad message: Expected integer, got null" },

	/* CANCEL and its reply */
	{ C_CANCEL, "job_ids.0", "-1",
	  "job_ids: entry 0 is not a 32-bit unsigned integer" },
	{ C_CANCEL, "job_ids.1", "4294967296",
	  "job_ids: entry 1 is not a 32-bit unsigned integer" },
	{ C_CANCEL, "job_ids.0", "\"1\"",
	  "job_ids: entry 0 is not a 32-bit unsigned integer" },
	{ C_CANCEL, "job_ids.0", "1.0",
	  "job_ids: entry 0 is not a 32-bit unsigned integer" },
	{ C_CANCEL, "job_ids.2", "null",
	  "job_ids: entry 2 is not a 32-bit unsigned integer" },
	{ C_CANCEL, "job_ids", "@65537:1", "job_ids: more than 65536 entries" },
	{ C_CANCEL, "job_ids", "{}", "job_ids: not an array" },
	{ C_CANCEL, "job_ids", "1", "job_ids: not an array" },
	{ C_TEXT_LIST, "lines.0", "1",
	  "lines: entry 0 is not a string of at most 1024 bytes" },
	{ C_TEXT_LIST, "lines.1", "#1025",
	  "lines: entry 1 is not a string of at most 1024 bytes" },
	{ C_TEXT_LIST, "lines", "@65537:\"x\"",
	  "lines: more than 65536 entries" },
	{ C_TEXT_LIST, "lines", "\"x\"", "lines: not an array" },
	{ C_TEXT_LIST, "lines.0", "\"a\\u0000b\"",
	  "malformed JSON: \\u0000 is not allowed*" },

	/* NODE_REGISTER */
	{ C_NODE, "cores", "0", "cores: 0 is outside [1, 1048576]" },
	{ C_NODE, "cores", "-8", "cores: -8 is outside [1, 1048576]" },
	{ C_NODE, "sockets", "0", "sockets: 0 is outside [1, 1048576]" },
	{ C_NODE, "pus", "0", "pus: 0 is outside [1, 4194304]" },
	{ C_NODE, "pus", "4294967297",
	  "pus: 4294967297 is outside [1, 4194304]" },
	{ C_NODE, "cores_used", "9", "cores_used: 9 is outside [0, 8]" },
	{ C_NODE, "cores_used", "-1", "cores_used: -1 is outside [0, 8]" },
	{ C_NODE, "memory_mb", "-1",
	  "memory_mb: -1 is outside [0, 1099511627776]" },
	{ C_NODE, "memory_used_mb", "-1",
	  "memory_used_mb: -1 is outside [0, 1099511627776]" },
	{ C_NODE, "name", "#257", "name: longer than 256 bytes" },
	{ C_NODE, "state", "#33", "state: longer than 32 bytes" },
	{ C_NODE, "reason", "#1025", "reason: longer than 1024 bytes" },
	{ C_NODE, "addr", "#65", "addr: longer than 64 bytes" },
	{ C_NODE, "features.0", "#65",
	  "features: entry 0 is not a string of at most 64 bytes" },
	{ C_NODE, "features.1", "1",
	  "features: entry 1 is not a string of at most 64 bytes" },
	{ C_NODE, "features", "@257:\"f\"", "features: more than 256 entries" },
	{ C_NODE, "features", "\"ib\"", "features: not an array" },
	{ C_NODE, "jobs.0", "-1",
	  "jobs: entry 0 is not a 32-bit unsigned integer" },
	{ C_NODE, "jobs", "{}", "jobs: not an array" },
	{ C_NODE, "name", "\"n\\u00001\"",
	  "malformed JSON: \\u0000 is not allowed*" },
	/* "runs", when sent, says which run of each of "jobs" */
	{ C_NODE, "runs", "[1]", "runs: 1 for 2 jobs" },
	{ C_NODE, "runs", "[1,2,3]", "runs: 3 for 2 jobs" },
	{ C_NODE, "runs", "[]", "runs: 0 for 2 jobs" },
	{ C_NODE, "jobs", "[]", "runs: 2 for 0 jobs" },
	{ C_NODE, "jobs.2", "9", "runs: 2 for 3 jobs" },
	{ C_NODE, "runs.0", "-1",
	  "runs: entry 0 is not a 32-bit unsigned integer" },
	{ C_NODE, "runs.1", "4294967296",
	  "runs: entry 1 is not a 32-bit unsigned integer" },
	{ C_NODE, "runs.0", "\"1\"",
	  "runs: entry 0 is not a 32-bit unsigned integer" },
	{ C_NODE, "runs.1", "1.0",
	  "runs: entry 1 is not a 32-bit unsigned integer" },
	{ C_NODE, "runs", "@1048577:1", "runs: more than 1048576 entries" },
	{ C_NODE, "runs", "{}", "runs: not an array" },
	{ C_NODE, "runs", "null", "runs: not an array" },
	{ C_NODE, "runs", "1", "runs: not an array" },

	/* NODE_LIST reply: a bad node after a good one */
	{ C_NODE_LIST, "nodes", "{}", "nodes: not an array" },
	{ C_NODE_LIST, "nodes.0.cores", "0",
	  "cores: 0 is outside [1, 1048576]" },
	{ C_NODE_LIST, "nodes.1", "1",
	  "bad message: Expected object, got integer" },
	{ C_NODE_LIST, "nodes.1", "{\"name\":\"n2\"}",
	  "bad message: Object item not found: sockets" },
	{ C_NODE_LIST, "nodes", "@65537:1", "nodes: too many" },
	{ C_NODE_LIST, "nodes.0.runs", "[1]", "runs: 1 for 2 jobs" },
	{ C_NODE_LIST, "nodes.1", NODE_BAD_RUNS, "runs: 3 for 2 jobs" },

	/* LAUNCH */
	{ C_LAUNCH, "job_id", "0", "job_id: 0 is outside [1, 4294967295]" },
	{ C_LAUNCH, "run", "0", "run: 0 is outside [1, 4294967295]" },
	{ C_LAUNCH, "run", "-1", "run: -1 is outside [1, 4294967295]" },
	/* 0 once cut to 32 bits */
	{ C_LAUNCH, "run", "4294967296",
	  "run: 4294967296 is outside [1, 4294967295]" },
	{ C_LAUNCH, "run", "\"1\"", "bad message: Expected integer, got string" },
	{ C_LAUNCH, "run", "1.0", "bad message: Expected integer, got real" },
	/* a controller from before runs */
	{ C_LAUNCH, "run", NULL, "bad message: Object item not found: run" },
	{ C_LAUNCH, "job_id", "-5", "job_id: -5 is outside [1, 4294967295]" },
	{ C_LAUNCH, "uid", "4294967296",
	  "uid: 4294967296 is outside [0, 4294967294]" },
	/* (uid_t)-1 means "no change" to setresuid */
	{ C_LAUNCH, "uid", "4294967295",
	  "uid: 4294967295 is outside [0, 4294967294]" },
	{ C_LAUNCH, "uid", "-1", "uid: -1 is outside [0, 4294967294]" },
	{ C_LAUNCH, "gid", "4294967295",
	  "gid: 4294967295 is outside [0, 4294967294]" },
	{ C_LAUNCH, "gid", "-1", "gid: -1 is outside [0, 4294967294]" },
	{ C_LAUNCH, "ntasks", "-1", "ntasks: -1 is outside [1, 1048576]" },
	{ C_LAUNCH, "ntasks", "0", "ntasks: 0 is outside [1, 1048576]" },
	{ C_LAUNCH, "time_limit", "-1",
	  "time_limit: -1 is outside [0, 1099511627776]" },
	{ C_LAUNCH, "mem_mb", "-1", "mem_mb: -1 is outside [0, 1099511627776]" },
	{ C_LAUNCH, "workdir", "\"w\"", "paths must be absolute" },
	{ C_LAUNCH, "workdir", "\"\"", "paths must be absolute" },
	{ C_LAUNCH, "output", "\"o.txt\"", "paths must be absolute" },
	{ C_LAUNCH, "error", "\"e.txt\"", "paths must be absolute" },
	{ C_LAUNCH, "workdir", "#/4097", "workdir: longer than 4096 bytes" },
	{ C_LAUNCH, "output", "#/4097", "output: longer than 4096 bytes" },
	{ C_LAUNCH, "name", "#257", "name: longer than 256 bytes" },
	{ C_LAUNCH, "queue", "#257", "queue: longer than 256 bytes" },
	{ C_LAUNCH, "nodelist", "#4097", "nodelist: longer than 4096 bytes" },
	{ C_LAUNCH, "cores", "[]", "cores: empty" },
	{ C_LAUNCH, "cores.0", "-1",
	  "cores: entry 0 is not a 32-bit unsigned integer" },
	{ C_LAUNCH, "cores.1", "4294967296",
	  "cores: entry 1 is not a 32-bit unsigned integer" },
	{ C_LAUNCH, "cores.0", "\"0\"",
	  "cores: entry 0 is not a 32-bit unsigned integer" },
	{ C_LAUNCH, "cores", "{}", "cores: not an array" },
	{ C_LAUNCH, "env.0", "1",
	  "env: entry 0 is not a string of at most 32768 bytes" },
	{ C_LAUNCH, "env.1", "{}",
	  "env: entry 1 is not a string of at most 32768 bytes" },
	{ C_LAUNCH, "env", "@1057:\"A=1\"", "env: more than 1056 entries" },
	{ C_LAUNCH, "env", "{}", "env: not an array" },
	{ C_LAUNCH, "env.0", "\"LD_PRELOAD=\\u0000/x.so\"",
	  "malformed JSON: \\u0000 is not allowed*" },
	{ C_LAUNCH, "script", "\"#!/bin/sh\\u0000rm -rf /\"",
	  "malformed JSON: \\u0000 is not allowed*" },

	/* SIGNAL_JOB */
	{ C_SIGNAL, "signal", "0", "signal: 0 is outside [1, *" },
	{ C_SIGNAL, "signal", "-9", "signal: -9 is outside [1, *" },
	{ C_SIGNAL, "signal", "65", "signal: 65 is outside [1, *" },
	/* 2^32 + 9: SIGKILL once cut to an int */
	{ C_SIGNAL, "signal", "4294967305",
	  "signal: 4294967305 is outside [1, *" },
	{ C_SIGNAL, "job_id", "0", "job_id: 0 is outside [1, 4294967295]" },
	{ C_SIGNAL, "run", "0", "run: 0 is outside [1, 4294967295]" },
	{ C_SIGNAL, "run", "-1", "run: -1 is outside [1, 4294967295]" },
	{ C_SIGNAL, "run", "4294967296",
	  "run: 4294967296 is outside [1, 4294967295]" },
	{ C_SIGNAL, "run", "true", "bad message: Expected integer, got true" },
	{ C_SIGNAL, "run", NULL, "bad message: Object item not found: run" },
	{ C_SIGNAL, "job_id", "4294967296",
	  "job_id: 4294967296 is outside [1, 4294967295]" },
	{ C_SIGNAL, "cancel", "1",
	  "bad message: Expected true or false, got integer" },
	{ C_SIGNAL, "cancel", "\"true\"",
	  "bad message: Expected true or false, got string" },

	/* JOB_END */
	{ C_JOB_END, "exit_code", "300",
	  "exit_code: 300 is outside [-1, 255]" },
	{ C_JOB_END, "exit_code", "-2", "exit_code: -2 is outside [-1, 255]" },
	/* 0 once cut to an int */
	{ C_JOB_END, "exit_code", "4294967296",
	  "exit_code: 4294967296 is outside [-1, 255]" },
	{ C_JOB_END, "signal", "129", "signal: 129 is outside [0, 128]" },
	{ C_JOB_END, "cpu_usec", "-1",
	  "cpu_usec: -1 is outside [0, 9223372036854775807]" },
	{ C_JOB_END, "mem_peak", "\"1\"",
	  "bad message: Expected integer, got string" },
	{ C_JOB_END, "signal", "-1", "signal: -1 is outside [0, 128]" },
	{ C_JOB_END, "signal", "4294967305",
	  "signal: 4294967305 is outside [0, 128]" },
	{ C_JOB_END, "state", "\"RUNNING\"", "state: 'RUNNING' is not an end" },
	{ C_JOB_END, "state", "\"PENDING\"", "state: 'PENDING' is not an end" },
	{ C_JOB_END, "state", "\"NONE\"", "state: 'NONE' is not an end" },
	{ C_JOB_END, "state", "\"bogus\"", "state: 'bogus' is not an end" },
	{ C_JOB_END, "job_id", "0", "job_id: 0 is outside [1, 4294967295]" },
	{ C_JOB_END, "job_id", "4294967296",
	  "job_id: 4294967296 is outside [1, 4294967295]" },
	{ C_JOB_END, "run", "0", "run: 0 is outside [1, 4294967295]" },
	{ C_JOB_END, "run", "-1", "run: -1 is outside [1, 4294967295]" },
	{ C_JOB_END, "run", "4294967296",
	  "run: 4294967296 is outside [1, 4294967295]" },
	{ C_JOB_END, "run", "\"2\"", "bad message: Expected integer, got string" },
	{ C_JOB_END, "run", NULL, "bad message: Object item not found: run" },
	{ C_JOB_END, "text", "#1025", "text: longer than 1024 bytes" },
	{ C_JOB_END, "text", "\"exec: \\u0000\"",
	  "malformed JSON: \\u0000 is not allowed*" },

	/* JOB_END_ACK */
	{ C_JOB_RUN, "job_id", "0", "job_id: 0 is outside [1, 4294967295]" },
	{ C_JOB_RUN, "job_id", "-1", "job_id: -1 is outside [1, 4294967295]" },
	{ C_JOB_RUN, "job_id", "4294967296",
	  "job_id: 4294967296 is outside [1, 4294967295]" },
	{ C_JOB_RUN, "run", "0", "run: 0 is outside [1, 4294967295]" },
	{ C_JOB_RUN, "run", "-1", "run: -1 is outside [1, 4294967295]" },
	{ C_JOB_RUN, "run", "4294967296",
	  "run: 4294967296 is outside [1, 4294967295]" },
	{ C_JOB_RUN, "run", "-9223372036854775808",
	  "run: -9223372036854775808 is outside [1, 4294967295]" },
	{ C_JOB_RUN, "run", "\"1\"", "bad message: Expected integer, got string" },
	{ C_JOB_RUN, "run", "1.5", "bad message: Expected integer, got real" },
	{ C_JOB_RUN, "run", "null", "bad message: Expected integer, got null" },
	/* the old one-id body */
	{ C_JOB_RUN, "run", NULL, "bad message: Object item not found: run" },
	{ C_JOB_RUN, "job_id", NULL,
	  "bad message: Object item not found: job_id" },

	/* HEARTBEAT */
	{ C_NAME, "name", "#257", "name: longer than 256 bytes" },
	{ C_NAME, "name", "\"n1\\u0000\"",
	  "malformed JSON: \\u0000 is not allowed*" },
	{ C_NAME, "name", "[\"n1\"]",
	  "bad message: Expected string, got array" },
};

START_TEST(test_hostile)
{
	const struct codec *c = &codecs[hostile[_i].codec];
	json_t *v = hostile[_i].value ? make_value(hostile[_i].value) : NULL;
	char *body = mutate(c->good, hostile[_i].path, v);

	assert_text(expect_refused(c, body, strlen(body)), hostile[_i].error);
	free(body);
}
END_TEST

/* The limits themselves are accepted: the refusals above are off by one. */
static const struct {
	int codec;
	const char *path;
	const char *value;
} edges[] = {
	{ C_ERROR, "code", "-1" },
	{ C_ERROR, "code", "-4095" },
	{ C_ERROR, "text", "#1024" },
	{ C_ERROR, "text", "\"\"" },
	{ C_SUBMIT, "ntasks", "1048576" },
	{ C_SUBMIT, "ntasks", "1" },
	{ C_SUBMIT, "cpus_per_task", "65536" },
	{ C_SUBMIT, "nodes", "0" },
	{ C_SUBMIT, "nodes", "65536" },
	{ C_SUBMIT, "mem_mb", "1099511627776" },
	{ C_SUBMIT, "time_limit", "1099511627776" },
	{ C_SUBMIT, "workdir", "\"/\"" },
	{ C_SUBMIT, "workdir", "#/4096" },
	{ C_SUBMIT, "name", "#256" },
	{ C_SUBMIT, "env", "[]" },
	{ C_SUBMIT, "env", "@1024:\"A=1\"" },
	{ C_SUBMIT, "env.0", "#32768" },
	{ C_SUBMIT, "name", "\"\\u00e9\\ud83d\\ude00\"" },
	{ C_SUBMIT, "no_requeue", "false" },
	{ C_SUBMIT, "hold", "true" },
	{ C_SUBMIT_REPLY, "job_id", "4294967295" },
	{ C_JOB_ID, "job_id", "0" },
	{ C_JOB_LIST, "jobs", "[]" },
	{ C_JOB_LIST, "now", "-1" },
	{ C_JOB_LIST, "jobs.0.uid", "4294967295" },
	{ C_JOB_LIST, "jobs.0.exit_code", "-1" },
	{ C_JOB_LIST, "jobs.0.exit_code", "255" },
	{ C_JOB_LIST, "jobs.0.signal", "128" },
	{ C_JOB_LIST, "jobs.0.state", "\"pd\"" },
	{ C_JOB_LIST, "jobs.0.runs", "0" },
	{ C_JOB_LIST, "jobs.0.runs", "4294967295" },
	{ C_CANCEL, "job_ids", "[]" },
	{ C_CANCEL, "job_ids.0", "4294967295" },
	{ C_CANCEL, "job_ids.0", "0" },
	{ C_TEXT_LIST, "lines", "[]" },
	{ C_TEXT_LIST, "lines.0", "#1024" },
	{ C_NODE, "cores_used", "8" },
	{ C_NODE, "features", "[]" },
	{ C_NODE, "runs.0", "4294967295" },
	{ C_NODE, "features", "@256:\"f\"" },
	{ C_NODE, "addr", "#64" },
	{ C_NODE_LIST, "nodes", "[]" },
	{ C_LAUNCH, "uid", "4294967294" },
	{ C_LAUNCH, "uid", "0" },
	{ C_LAUNCH, "time_limit", "0" },
	{ C_LAUNCH, "mem_mb", "1099511627776" },
	{ C_LAUNCH, "env", "[]" },
	{ C_LAUNCH, "env", "@1056:\"A=1\"" },
	{ C_LAUNCH, "cores.0", "4294967295" },
	{ C_LAUNCH, "run", "1" },
	{ C_LAUNCH, "run", "4294967295" },
	{ C_SIGNAL, "signal", "1" },
	{ C_SIGNAL, "cancel", "false" },
	{ C_SIGNAL, "run", "1" },
	{ C_SIGNAL, "run", "4294967295" },
	{ C_JOB_END, "exit_code", "-1" },
	{ C_JOB_END, "exit_code", "255" },
	{ C_JOB_END, "signal", "128" },
	{ C_JOB_END, "state", "\"node_fail\"" },
	{ C_JOB_END, "text", "#1024" },
	{ C_JOB_END, "run", "1" },
	{ C_JOB_END, "run", "4294967295" },
	{ C_JOB_END, "job_id", "4294967295" },
	{ C_JOB_RUN, "job_id", "1" },
	{ C_JOB_RUN, "job_id", "4294967295" },
	{ C_JOB_RUN, "run", "1" },
	{ C_JOB_RUN, "run", "4294967295" },
	{ C_NAME, "name", "#256" },
};

START_TEST(test_edges)
{
	const struct codec *c = &codecs[edges[_i].codec];
	char *body = mutate(c->good, edges[_i].path,
			    make_value(edges[_i].value));

	expect_accepted(c, body, strlen(body));
	free(body);
}
END_TEST

START_TEST(test_signal_max)
{
	char body[96];
	struct rota_msg_job_signal m;
	struct rota_error err = { "" };
	char want[96];

	snprintf(body, sizeof(body),
		 "{\"job_id\":1,\"run\":1,\"signal\":%d,"
		 "\"cancel\":false}", SIGRTMAX);
	ck_assert_int_eq(rota_msg_job_signal_decode(body, strlen(body), &m,
						    &err),
			 0);
	ck_assert_int_eq(m.signo, SIGRTMAX);
	ck_assert_uint_eq(m.run, 1);
	snprintf(body, sizeof(body),
		 "{\"job_id\":1,\"run\":1,\"signal\":%d,"
		 "\"cancel\":false}",
		 SIGRTMAX + 1);
	ck_assert_int_eq(rota_msg_job_signal_decode(body, strlen(body), &m,
						    &err),
			 -EPROTO);
	snprintf(want, sizeof(want), "signal: %d is outside [1, %d]",
		 SIGRTMAX + 1, SIGRTMAX);
	ck_assert_str_eq(err.text, want);
}
END_TEST

/* ---- round trips ---- */

/* A cleared struct is empty again. */
#define ASSERT_EMPTY(fn, m)                                                   \
	do {                                                                  \
		union any u_;                                                 \
                                                                              \
		memset(&u_, 0, sizeof(u_));                                   \
		memcpy(&u_, &(m), sizeof(m));                                 \
		ck_assert(fn(&u_));                                           \
	} while (0)

static char *env_a[] = { "PATH=/usr/bin:/bin", "QUOTE=a\"b\\c",
			 "NL=line1\nline2\ttab\x01\x1f", "EMPTY=",
			 "UTF8=\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", NULL };
static char *env_empty[] = { NULL };

static const struct rota_job_desc descs[] = {
	{
		.name = "full",
		.script = "#!/bin/sh\necho \"hi\" \\\n  there\n",
		.workdir = "/home/alice",
		.output = "out-%j.txt",
		.error = "/tmp/err",
		.queue = "batch",
		.account = "physics",
		.constraint = "ib&largemem",
		.env = env_a,
		.ntasks = 1u << 20,
		.cpus_per_task = 1u << 16,
		.nodes = 1u << 16,
		.mem_mb = (uint64_t)1 << 40,
		.time_limit = (int64_t)1 << 40,
		.no_requeue = true,
		.dependency = "afterok:12:13,afterany:14",
		.kill_on_invalid_dep = true,
		.deadline = (int64_t)1 << 40,
		.jobshare = 1000000000,
		.oticket = 1000,
	},
	{
		/* every optional string NULL, no environment */
		.name = "",
		.script = "",
		.workdir = "/",
		.ntasks = 1,
		.cpus_per_task = 1,
	},
	{
		.name = "e",
		.script = "x",
		.workdir = "/w",
		.queue = "",
		.env = env_empty,
		.ntasks = 3,
		.ntasks_max = 12, /* -n 3-12 */
		.cpus_per_task = 2,
		.nodes = 1,
		.mem_mb = 1,
		.time_limit = 1,
	},
};

START_TEST(test_submit_roundtrip)
{
	const struct rota_job_desc *w = &descs[_i];
	struct rota_job_desc d;
	struct rota_error err = { "" };
	size_t len = 0;
	char *text = rota_msg_submit_encode(w, &len);

	ck_assert_uint_eq(len, strlen(text));
	ck_assert_int_eq(rota_msg_submit_decode(text, len, &d, &err), 0);
	ck_assert_str_eq(d.name, w->name);
	ck_assert_str_eq(d.script, w->script);
	ck_assert_str_eq(d.workdir, w->workdir);
	ck_assert_pstr_eq(d.output, w->output);
	ck_assert_pstr_eq(d.error, w->error);
	ck_assert_pstr_eq(d.queue, w->queue);
	ck_assert_pstr_eq(d.account, w->account);
	ck_assert_pstr_eq(d.constraint, w->constraint);
	ck_assert_ptr_nonnull(d.env);
	assert_strv_eq(d.env, w->env);
	ck_assert_uint_eq(d.ntasks, w->ntasks);
	ck_assert_uint_eq(d.ntasks_max, w->ntasks_max);
	ck_assert(!!strstr(text, "ntasks_max") == !!w->ntasks_max);
	ck_assert_uint_eq(d.cpus_per_task, w->cpus_per_task);
	ck_assert_uint_eq(d.nodes, w->nodes);
	ck_assert_uint_eq(d.mem_mb, w->mem_mb);
	ck_assert_int_eq(d.time_limit, w->time_limit);
	ck_assert(d.no_requeue == w->no_requeue);
	ck_assert_pstr_eq(d.dependency, w->dependency);
	ck_assert(d.kill_on_invalid_dep == w->kill_on_invalid_dep);
	ck_assert_uint_eq(d.jobshare, w->jobshare);
	ck_assert_uint_eq(d.oticket, w->oticket);
	ck_assert(!!strstr(text, "jobshare") == !!w->jobshare);
	ck_assert(!!strstr(text, "kill_on_invalid_dep") ==
		  w->kill_on_invalid_dep);
	ck_assert_int_eq(d.deadline, w->deadline);
	ck_assert(!!strstr(text, "deadline") == !!w->deadline);
	/* sent only when set */
	ck_assert(!!strstr(text, "\"no_requeue\":true") == w->no_requeue);
	ck_assert(!!strstr(text, "no_requeue") == w->no_requeue);
	rota_job_desc_clear(&d);
	ASSERT_EMPTY(empty_desc, d);
	free(text);
}
END_TEST

static const uint32_t ids[] = { 0, 1, 42, UINT32_MAX };

START_TEST(test_id_roundtrips)
{
	struct rota_msg_job_list_req req = { .job_id = ids[_i] };
	struct rota_msg_job_list_req req_out = { 0 };
	uint32_t out = 7;
	size_t len;
	char *text;

	text = rota_msg_submit_reply_encode(ids[_i], &len);
	ck_assert_int_eq(rota_msg_submit_reply_decode(text, len, &out, NULL),
			 0);
	ck_assert_uint_eq(out, ids[_i]);
	free(text);

	out = 7;
	text = rota_msg_job_id_encode(ids[_i], &len);
	ck_assert_int_eq(rota_msg_job_id_decode(text, len, &out, NULL), 0);
	ck_assert_uint_eq(out, ids[_i]);
	free(text);

	text = rota_msg_job_list_req_encode(&req, &len);
	ck_assert_int_eq(rota_msg_job_list_req_decode(text, len, &req_out,
						      NULL),
			 0);
	ck_assert_uint_eq(req_out.job_id, ids[_i]);
	free(text);
}
END_TEST

static const struct {
	int code;
	const char *text;
} errors[] = {
	{ -ENOENT, "job 42: no such job" },
	{ -1, "" },
	{ -4095, "quotes \" and \\ and \n newline \x7f and \xc3\xa9" },
};

START_TEST(test_error_roundtrip)
{
	struct rota_msg_error m;
	size_t len;
	char *text = rota_msg_error_encode(errors[_i].code, errors[_i].text,
					   &len);

	ck_assert_int_eq(rota_msg_error_decode(text, len, &m, NULL), 0);
	ck_assert_int_eq(m.code, errors[_i].code);
	ck_assert_str_eq(m.text, errors[_i].text);
	rota_msg_error_clear(&m);
	ASSERT_EMPTY(empty_error, m);
	free(text);
}
END_TEST

static const uint32_t cancel_ids[] = { 1, 0, UINT32_MAX, 7 };
static const size_t cancel_n[] = { 0, 1, 4 };

START_TEST(test_cancel_roundtrip)
{
	struct rota_msg_job_ids in = {
		.job_ids = cancel_n[_i] ? (uint32_t *)cancel_ids : NULL,
		.n = cancel_n[_i],
	};
	struct rota_msg_job_ids out;
	size_t len;
	char *text = rota_msg_job_ids_encode(&in, &len);

	ck_assert_int_eq(rota_msg_job_ids_decode(text, len, &out, NULL), 0);
	assert_u32v_eq(out.job_ids, out.n, cancel_ids, cancel_n[_i]);
	rota_msg_job_ids_clear(&out);
	free(text);
}
END_TEST

START_TEST(test_text_list_roundtrip)
{
	char *lines[] = { "job 1: not yours", "", "job 3: \"done\"\n\\",
			  "\xe2\x82\xac" };
	size_t n = (size_t)_i;
	struct rota_msg_text_list out;
	size_t len;
	char *text = rota_msg_text_list_encode(lines, n, &len);

	ck_assert_int_eq(rota_msg_text_list_decode(text, len, &out, NULL), 0);
	ck_assert_uint_eq(out.n, n);
	ck_assert_ptr_nonnull(out.lines);
	ck_assert_ptr_null(out.lines[n]);
	for (size_t i = 0; i < n; i++)
		ck_assert_str_eq(out.lines[i], lines[i]);
	rota_msg_text_list_clear(&out);
	free(text);
}
END_TEST

static char *feat_a[] = { "ib", "gpu", "largemem", NULL };
static uint32_t node_jobs[] = { 4, 5, UINT32_MAX };
static uint32_t node_runs[] = { 1, UINT32_MAX, 2 };

static struct rota_gpu_info gpus_a[] = {
	{ .type = "v100", .model = "Tesla V100-SXM3-32GB-H",
	  .busid = "0000:34:00.0", .cores = "0-23", .numa = 0, .job = 7 },
	{ .type = "", .model = "", .busid = "0000:b7:00.0",
	  .cores = "24-47", .numa = 1 },
};

static const struct rota_node_info nodes[] = {
	{
		.name = "n001",
		.gpus = gpus_a,
		.ngpus = 2,
		.gres = "nvme:2,fpga:xilinx:1",
		.state = "UP",
		.reason = "",
		.addr = "127.0.0.2:6818",
		.features = feat_a,
		.sockets = 2,
		.cores = 64,
		.pus = 128,
		.cores_used = 64,
		.memory_mb = (uint64_t)1 << 40,
		.memory_used_mb = 0,
		.jobs = node_jobs,
		.runs = node_runs,
		.njobs = 3,
	},
	{
		/* optional strings NULL, no features, no jobs */
		.name = "n2",
		.sockets = 1,
		.cores = 1,
		.pus = 1,
	},
	{
		.name = "gpu-\"x\"",
		.state = "DOWN",
		.reason = "not responding since \\today\n",
		.features = env_empty,
		.sockets = 1,
		.cores = 4,
		.pus = 8,
		.cores_used = 0,
		.memory_mb = 16,
		.memory_used_mb = 16,
		.jobs = node_jobs,
		.runs = node_runs,	/* sent as [] */
		.njobs = 0,
	},
	{
		/* jobs, but no runs: a node daemon from before runs */
		.name = "n4",
		.features = feat_a,
		.sockets = 2,
		.cores = 2,
		.pus = 2,
		.cores_used = 2,
		.jobs = node_jobs,
		.njobs = 2,
	},
};

static void assert_node_eq(const struct rota_node_info *got,
			   const struct rota_node_info *want)
{
	ck_assert_str_eq(got->name, want->name);
	ck_assert_pstr_eq(got->state, want->state);
	ck_assert_pstr_eq(got->reason, want->reason);
	ck_assert_pstr_eq(got->addr, want->addr);
	ck_assert_ptr_nonnull(got->features);
	assert_strv_eq(got->features, want->features);
	ck_assert_uint_eq(got->sockets, want->sockets);
	ck_assert_uint_eq(got->cores, want->cores);
	ck_assert_uint_eq(got->pus, want->pus);
	ck_assert_uint_eq(got->cores_used, want->cores_used);
	ck_assert_uint_eq(got->memory_mb, want->memory_mb);
	ck_assert_uint_eq(got->memory_used_mb, want->memory_used_mb);
	assert_u32v_eq(got->jobs, got->njobs, want->jobs, want->njobs);
	/* "runs" absent stays NULL; present, it has one entry per job */
	if (want->runs)
		assert_u32v_eq(got->runs, got->njobs, want->runs, want->njobs);
	else
		ck_assert_ptr_null(got->runs);
	ck_assert_pstr_eq(got->gres, want->gres);
	ck_assert_uint_eq(got->ngpus, want->ngpus);
	for (size_t i = 0; i < want->ngpus; i++) {
		ck_assert_str_eq(got->gpus[i].type, want->gpus[i].type);
		ck_assert_str_eq(got->gpus[i].model, want->gpus[i].model);
		ck_assert_str_eq(got->gpus[i].busid, want->gpus[i].busid);
		ck_assert_str_eq(got->gpus[i].cores, want->gpus[i].cores);
		ck_assert_uint_eq(got->gpus[i].numa, want->gpus[i].numa);
		ck_assert_uint_eq(got->gpus[i].job, want->gpus[i].job);
	}
}

/* GPUs a node daemon could not have found: refused with one line. */
START_TEST(test_node_gpus_refused)
{
	static const struct {
		const char *gpus, *want;
	} bad[] = {
		{ "{}", "gpus: not a list of at most 256" },
		{ "[{\"type\":\"v100\",\"model\":\"m\",\"busid\":\"b\","
		  "\"numa\":0}]",
		  "*cores*" },
		{ "[{\"type\":\"v100\",\"model\":\"m\",\"busid\":\"b\","
		  "\"cores\":\"0\",\"numa\":-1}]",
		  "gpus: numa: -1 is outside *" },
		{ "[{\"type\":\"0123456789012345678901234567890123\","
		  "\"model\":\"m\",\"busid\":\"b\",\"cores\":\"0\","
		  "\"numa\":0}]",
		  "gpus: type: longer than 31 bytes" },
	};
	char body[1024];
	struct rota_node_info out;
	struct rota_error err;

	for (size_t i = 0; i < N(bad); i++) {
		snprintf(body, sizeof(body),
			 "{\"name\":\"n\",\"sockets\":1,\"cores\":1,"
			 "\"pus\":1,\"cores_used\":0,\"memory_mb\":1,"
			 "\"memory_used_mb\":0,\"features\":[],\"jobs\":[],"
			 "\"gpus\":%s}",
			 bad[i].gpus);
		ck_assert_int_eq(rota_msg_node_decode(body, strlen(body), &out,
						      &err),
				 -EPROTO);
		ck_assert_msg(fnmatch(bad[i].want, err.text, 0) == 0,
			      "%zu: %s", i, err.text);
		ASSERT_EMPTY(empty_node, out);
	}
}
END_TEST

START_TEST(test_node_roundtrip)
{
	struct rota_node_info out;
	size_t len;
	char *text = rota_msg_node_encode(&nodes[_i], &len);

	ck_assert_int_eq(rota_msg_node_decode(text, len, &out, NULL), 0);
	assert_node_eq(&out, &nodes[_i]);
	ck_assert(!!strstr(text, "\"runs\":") == !!nodes[_i].runs);
	rota_node_info_clear(&out);
	ASSERT_EMPTY(empty_node, out);
	free(text);
}
END_TEST

/* 0, 1, 2 and 3 nodes */
START_TEST(test_node_list_roundtrip)
{
	size_t n = (size_t)_i;
	struct rota_msg_node_list out;
	size_t len;
	char *text = rota_msg_node_list_encode(nodes, n, &len);

	ck_assert_int_eq(rota_msg_node_list_decode(text, len, &out, NULL), 0);
	ck_assert_uint_eq(out.n, n);
	for (size_t i = 0; i < n; i++)
		assert_node_eq(&out.nodes[i], &nodes[i]);
	rota_msg_node_list_clear(&out);
	ASSERT_EMPTY(empty_nodes, out);
	free(text);
}
END_TEST

static uint32_t cores_a[] = { 0, 1, 2, 3, 63, 4095 };
static uint32_t cores_one[] = { 17 };

static const struct rota_msg_launch launches[] = {
	{
		.job_id = 12,
		.run = 1,
		.uid = 1000,
		.gid = 100,
		.name = "sim \"big\"",
		.script = "#!/bin/bash\n#ROTA -n 4\nsrun ./a.out\n",
		.workdir = "/home/alice/run",
		.output = "/home/alice/run/rota-12.out",
		.error = "/home/alice/run/rota-12.err",
		.queue = "batch",
		.nodelist = "n[001-004]",
		.env = env_a,
		.cores = cores_a,
		.ncores = 6,
		.ntasks = 1u << 20,
		.time_limit = (int64_t)1 << 40,
	},
	{
		/* error NULL, no environment, one core, no limit */
		.job_id = UINT32_MAX,
		.run = UINT32_MAX,
		.uid = UINT32_MAX - 1,
		.gid = 0,
		.name = "",
		.script = "",
		.workdir = "/",
		.output = "/dev/null",
		.queue = "",
		.nodelist = "",
		.cores = cores_one,
		.ncores = 1,
		.ntasks = 1,
	},
};

START_TEST(test_launch_roundtrip)
{
	const struct rota_msg_launch *w = &launches[_i];
	struct rota_msg_launch m;
	size_t len;
	char *text = rota_msg_launch_encode(w, &len);

	ck_assert_int_eq(rota_msg_launch_decode(text, len, &m, NULL), 0);
	ck_assert_uint_eq(m.job_id, w->job_id);
	ck_assert_uint_eq(m.run, w->run);
	ck_assert_uint_eq(m.uid, w->uid);
	ck_assert_uint_eq(m.gid, w->gid);
	ck_assert_str_eq(m.name, w->name);
	ck_assert_str_eq(m.script, w->script);
	ck_assert_str_eq(m.workdir, w->workdir);
	ck_assert_str_eq(m.output, w->output);
	ck_assert_pstr_eq(m.error, w->error);
	ck_assert_str_eq(m.queue, w->queue);
	ck_assert_str_eq(m.nodelist, w->nodelist);
	ck_assert_ptr_nonnull(m.env);
	assert_strv_eq(m.env, w->env);
	assert_u32v_eq(m.cores, m.ncores, w->cores, w->ncores);
	ck_assert_uint_eq(m.ntasks, w->ntasks);
	ck_assert_int_eq(m.time_limit, w->time_limit);
	rota_msg_launch_clear(&m);
	ASSERT_EMPTY(empty_launch, m);
	free(text);
}
END_TEST

static const struct rota_msg_job_signal signals[] = {
	{ .job_id = 1, .run = 1, .signo = SIGTERM, .cancel = true },
	{ .job_id = UINT32_MAX, .run = UINT32_MAX, .signo = SIGKILL,
	  .cancel = false },
	{ .job_id = 9, .run = 2, .signo = 1, .cancel = false },
};

START_TEST(test_signal_roundtrip)
{
	struct rota_msg_job_signal m;
	size_t len;
	char *text = rota_msg_job_signal_encode(&signals[_i], &len);

	ck_assert_int_eq(rota_msg_job_signal_decode(text, len, &m, NULL), 0);
	ck_assert_uint_eq(m.job_id, signals[_i].job_id);
	ck_assert_uint_eq(m.run, signals[_i].run);
	ck_assert_int_eq(m.signo, signals[_i].signo);
	ck_assert(m.cancel == signals[_i].cancel);
	free(text);
}
END_TEST

static const struct rota_msg_job_end ends[] = {
	{ .job_id = 1, .run = 1, .state = ROTA_JOB_COMPLETED,
	  .start_time = 100, .end_time = 200 },
	{ .job_id = 2, .run = 2, .state = ROTA_JOB_FAILED, .exit_code = 255 },
	{ .job_id = 3, .run = 1, .state = ROTA_JOB_FAILED, .exit_code = -1,
	  .start_time = 5, .end_time = 5, .text = "exec /w/x: No such file" },
	{ .job_id = 4, .run = 3, .state = ROTA_JOB_CANCELLED,
	  .term_signal = SIGTERM, .start_time = 1, .end_time = 2, .text = "" },
	{ .job_id = 5, .run = 1, .state = ROTA_JOB_TIMEOUT, .term_signal = 128,
	  .start_time = INT64_MAX, .end_time = INT64_MIN },
	{ .job_id = UINT32_MAX, .run = UINT32_MAX,
	  .state = ROTA_JOB_NODE_FAIL, .exit_code = 1, .text = "\"x\"\n" },
	/* what the job's cgroup counted */
	{ .job_id = 6, .run = 1, .state = ROTA_JOB_OUT_OF_MEMORY,
	  .term_signal = SIGKILL, .text = "OutOfMemory", .cpu_usec = 1234567,
	  .mem_peak = (uint64_t)INT64_MAX },
};

START_TEST(test_job_end_roundtrip)
{
	const struct rota_msg_job_end *w = &ends[_i];
	struct rota_msg_job_end m;
	size_t len;
	char *text = rota_msg_job_end_encode(w, &len);

	ck_assert_int_eq(rota_msg_job_end_decode(text, len, &m, NULL), 0);
	ck_assert_uint_eq(m.job_id, w->job_id);
	ck_assert_uint_eq(m.run, w->run);
	ck_assert_int_eq(m.state, w->state);
	ck_assert_int_eq(m.exit_code, w->exit_code);
	ck_assert_int_eq(m.term_signal, w->term_signal);
	ck_assert_int_eq(m.start_time, w->start_time);
	ck_assert_int_eq(m.end_time, w->end_time);
	ck_assert_pstr_eq(m.text, w->text);
	ck_assert_uint_eq(m.cpu_usec, w->cpu_usec);
	ck_assert_uint_eq(m.mem_peak, w->mem_peak);
	rota_msg_job_end_clear(&m);
	ASSERT_EMPTY(empty_end, m);
	free(text);
}
END_TEST

static const struct {
	uint32_t job_id;
	uint32_t run;
} job_runs[] = {
	{ 1, 1 },
	{ 42, 7 },
	{ UINT32_MAX, UINT32_MAX },
	{ 1, UINT32_MAX },
	{ UINT32_MAX, 1 },
};

START_TEST(test_job_run_roundtrip)
{
	uint32_t id = 7, run = 7;
	char want[64];
	size_t len = 0;
	char *text = rota_msg_job_run_encode(job_runs[_i].job_id,
					     job_runs[_i].run, &len);

	ck_assert_uint_eq(len, strlen(text));
	snprintf(want, sizeof(want), "{\"job_id\":%u,\"run\":%u}",
		 job_runs[_i].job_id, job_runs[_i].run);
	ck_assert_str_eq(text, want);
	ck_assert_int_eq(rota_msg_job_run_decode(text, len, &id, &run, NULL),
			 0);
	ck_assert_uint_eq(id, job_runs[_i].job_id);
	ck_assert_uint_eq(run, job_runs[_i].run);
	free(text);
}
END_TEST

/* JOB_USAGE: totals per running job, as they go and come back. */
START_TEST(test_job_usage_roundtrip)
{
	struct rota_job_sample jobs[] = {
		{ 7, 1, 5000000, UINT64_C(1) << 30, 0 },
		{ UINT32_MAX, UINT32_MAX, INT64_MAX, INT64_MAX, INT64_MAX },
	};
	struct rota_msg_job_usage w = { jobs, N(jobs) }, m;
	size_t len = 0;
	char *text = rota_msg_job_usage_encode(&w, &len);

	ck_assert_uint_eq(len, strlen(text));
	ck_assert_int_eq(rota_msg_job_usage_decode(text, len, &m, NULL), 0);
	ck_assert_uint_eq(m.njobs, N(jobs));
	ck_assert_mem_eq(m.jobs, jobs, sizeof(jobs));
	rota_msg_job_usage_clear(&m);
	ck_assert_ptr_null(m.jobs);
	free(text);
	w.njobs = 0;
	text = rota_msg_job_usage_encode(&w, &len);
	ck_assert_str_eq(text, "{\"jobs\":[]}");
	ck_assert_int_eq(rota_msg_job_usage_decode(text, len, &m, NULL), 0);
	ck_assert_uint_eq(m.njobs, 0);
	free(text);
}
END_TEST

static const struct {
	const char *body;
	const char *error;
} bad_usages[] = {
	{ "{\"jobs\":[[0,1,1,1,1]]}",
	  "job id: 0 is outside [1, 4294967295]" },
	{ "{\"jobs\":[[7,1,-1,0,0]]}",
	  "cpu_usec: -1 is outside [0, 9223372036854775807]" },
	{ "{\"jobs\":[[7,4294967296,0,0,0]]}",
	  "run: 4294967296 is outside [0, 4294967295]" },
	{ "{\"jobs\":{}}", "jobs: not an array" },
	{ "{\"jobs\":[],\"more\":1}",
	  "bad message: 1 object item(s) left unpacked: more" },
};

START_TEST(test_job_usage_refused)
{
	struct rota_msg_job_usage m;
	struct rota_error err = { "" };
	const char *b = bad_usages[_i].body;

	ck_assert_int_eq(rota_msg_job_usage_decode(b, strlen(b), &m, &err),
			 -EPROTO);
	ck_assert_str_eq(err.text, bad_usages[_i].error);
	ck_assert_ptr_null(m.jobs);
	ck_assert_uint_eq(m.njobs, 0);
}
END_TEST

static const char *const names[] = { "n1", "", "node-\"q\"\\\n",
				     "\xc3\xa9t\xc3\xa9" };

START_TEST(test_name_roundtrip)
{
	char *out = NULL;
	size_t len;
	char *text = rota_msg_name_encode(names[_i], &len);

	ck_assert_int_eq(rota_msg_name_decode(text, len, &out, NULL), 0);
	ck_assert_str_eq(out, names[_i]);
	free(out);
	free(text);
}
END_TEST

/* ---- the job list, encoded by hand ---- */

static const struct rota_job_info jobs[] = {
	{
		.id = 1,
		.state = ROTA_JOB_RUNNING,
		.uid = 1000,
		.gid = 100,
		.name = "sim \"big\" \\ run",
		.user = "alice",
		.account = "physics",
		.queue = "batch",
		.nodelist = "n[001-004]",
		.reason = "",
		.workdir = "/home/alice",
		.output = "/home/alice/rota-1.out",
		.error = "/home/alice/rota-1.err",
		.constraint = "ib&largemem",
		.ntasks = 4,
		.cpus_per_task = 2,
		.nodes = 4,
		.mem_mb = (uint64_t)1 << 40,
		.time_limit = 3600,
		.submit_time = 1700000000,
		.start_time = 1700000005,
		.end_time = 0,
		.exit_code = 0,
		.term_signal = 0,
		.runs = 1,
	},
	{
		/* optional strings NULL */
		.id = 2,
		.state = ROTA_JOB_PENDING,
		.uid = 0,
		.gid = 0,
		.name = "ctl\x01\x1f\ttab\nnl",
		.user = "root",
		.queue = "debug",
		.nodelist = "",
		.reason = "Resources",
		.workdir = "/",
		.ntasks = 1,
		.cpus_per_task = 1,
		.submit_time = 1700000001,
	},
	{
		.id = UINT32_MAX,
		.state = ROTA_JOB_FAILED,
		.uid = UINT32_MAX,
		.gid = UINT32_MAX,
		.name = "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
		.user = "bob",
		.account = "",
		.queue = "batch",
		.nodelist = "n7",
		.reason = "NonZeroExit",
		.workdir = "/w",
		.output = "/w/o",
		.ntasks = 1u << 20,
		.cpus_per_task = 1u << 16,
		.nodes = 1,
		.mem_mb = 0,
		.time_limit = (int64_t)1 << 40,
		.submit_time = 1,
		.start_time = 2,
		.end_time = INT64_MAX,
		.exit_code = 255,
		.term_signal = 128,
		.runs = UINT32_MAX,
		.dependency = "afterok:12(unfulfilled)?afterany:14(failed)",
	},
};

static void assert_job_eq(const struct rota_job_info *got,
			  const struct rota_job_info *want)
{
	ck_assert_uint_eq(got->id, want->id);
	ck_assert_int_eq(got->state, want->state);
	ck_assert_uint_eq(got->uid, want->uid);
	ck_assert_uint_eq(got->gid, want->gid);
	ck_assert_pstr_eq(got->name, want->name);
	ck_assert_pstr_eq(got->user, want->user);
	ck_assert_pstr_eq(got->account, want->account);
	ck_assert_pstr_eq(got->queue, want->queue);
	ck_assert_pstr_eq(got->nodelist, want->nodelist);
	ck_assert_pstr_eq(got->reason, want->reason);
	ck_assert_pstr_eq(got->workdir, want->workdir);
	ck_assert_pstr_eq(got->output, want->output);
	ck_assert_pstr_eq(got->error, want->error);
	ck_assert_pstr_eq(got->constraint, want->constraint);
	ck_assert_uint_eq(got->ntasks, want->ntasks);
	ck_assert_uint_eq(got->cpus_per_task, want->cpus_per_task);
	ck_assert_uint_eq(got->nodes, want->nodes);
	ck_assert_uint_eq(got->mem_mb, want->mem_mb);
	ck_assert_int_eq(got->time_limit, want->time_limit);
	ck_assert_int_eq(got->submit_time, want->submit_time);
	ck_assert_int_eq(got->start_time, want->start_time);
	ck_assert_int_eq(got->end_time, want->end_time);
	ck_assert_int_eq(got->exit_code, want->exit_code);
	ck_assert_int_eq(got->term_signal, want->term_signal);
	ck_assert_uint_eq(got->runs, want->runs);
	ck_assert_pstr_eq(got->dependency, want->dependency);
}

START_TEST(test_job_list_roundtrip)
{
	struct rota_msg_job_list m;
	struct rota_error err = { "" };
	size_t len = 0;
	char *text = rota_msg_job_list_encode(jobs, 3, 1700000100, &len);

	ck_assert_uint_eq(len, strlen(text));
	ck_assert_msg(rota_msg_job_list_decode(text, len, &m, &err) == 0,
		      "%s", err.text);
	ck_assert_uint_eq(m.njobs, 3);
	ck_assert_int_eq(m.now, 1700000100);
	for (size_t i = 0; i < 3; i++)
		assert_job_eq(&m.jobs[i], &jobs[i]);
	rota_msg_job_list_clear(&m);
	ASSERT_EMPTY(empty_list, m);
	free(text);
}
END_TEST

/* rota why's dependency keys: carried, and optional to the decoder. */
START_TEST(test_why_dependency)
{
	struct rota_msg_why w = {
		.id = 7, .state = ROTA_JOB_PENDING, .ntasks = 1,
		.cpus_per_task = 1, .dependency = "afterok:5(unfulfilled)",
		.dep_type = "afterok", .dep_job = 5,
		.dep_state = ROTA_JOB_RUNNING,
	};
	struct rota_msg_why m;
	struct rota_error err = { "" };
	size_t len = 0;
	char *text = rota_msg_why_encode(&w, &len), *old, *cut;

	ck_assert_msg(rota_msg_why_decode(text, len, &m, &err) == 0, "%s",
		      err.text);
	ck_assert_str_eq(m.dependency, "afterok:5(unfulfilled)");
	ck_assert_str_eq(m.dep_type, "afterok");
	ck_assert_uint_eq(m.dep_job, 5);
	ck_assert_int_eq(m.dep_state, ROTA_JOB_RUNNING);
	rota_msg_why_clear(&m);
	/* an older controller's body: none of the four keys */
	old = strdup(text);
	cut = strstr(old, ",\"dependency\"");
	ck_assert_ptr_nonnull(cut);
	strcpy(cut, "}");
	ck_assert_msg(rota_msg_why_decode(old, strlen(old), &m, &err) == 0,
		      "%s", err.text);
	ck_assert_ptr_null(m.dependency);
	ck_assert_int_eq(m.dep_state, ROTA_JOB_NONE);
	rota_msg_why_clear(&m);
	free(old);
	free(text);
}
END_TEST

/* rota why's kept-cores keys: carried when set, absent when not. */
START_TEST(test_why_kept)
{
	struct rota_msg_why w = {
		.id = 8, .state = ROTA_JOB_PENDING, .ntasks = 3,
		.cpus_per_task = 1, .kept = 2, .kept_node = "max-wn007",
		.kept_queues = "t,u",
	};
	struct rota_msg_why m;
	struct rota_error err = { "" };
	size_t len = 0;
	char *text = rota_msg_why_encode(&w, &len);

	ck_assert_msg(rota_msg_why_decode(text, len, &m, &err) == 0, "%s",
		      err.text);
	ck_assert_uint_eq(m.kept, 2);
	ck_assert_str_eq(m.kept_node, "max-wn007");
	ck_assert_str_eq(m.kept_queues, "t,u");
	rota_msg_why_clear(&m);
	free(text);
	w.kept = 0;
	text = rota_msg_why_encode(&w, &len);
	ck_assert_ptr_null(strstr(text, "kept"));
	ck_assert_msg(rota_msg_why_decode(text, len, &m, &err) == 0, "%s",
		      err.text);
	ck_assert_uint_eq(m.kept, 0);
	ck_assert_ptr_null(m.kept_node);
	rota_msg_why_clear(&m);
	free(text);
}
END_TEST

START_TEST(test_job_list_empty)
{
	struct rota_msg_job_list m;
	size_t len = 0;
	char *text = rota_msg_job_list_encode(NULL, 0, -5, &len);

	ck_assert_str_eq(text, "{\"now\":-5,\"jobs\":[]}");
	ck_assert_uint_eq(len, strlen(text));
	ck_assert_int_eq(rota_msg_job_list_decode(text, len, &m, NULL), 0);
	ck_assert_uint_eq(m.njobs, 0);
	ck_assert_int_eq(m.now, -5);
	rota_msg_job_list_clear(&m);
	free(text);
}
END_TEST

/* The hand-written encoder's text is one jansson reads back strictly. */
START_TEST(test_job_list_is_json)
{
	size_t len = 0;
	char *text = rota_msg_job_list_encode(jobs, 3, 0, &len);
	json_error_t jerr;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	json_t *arr;

	ck_assert_msg(root != NULL, "%s", jerr.text);
	arr = json_object_get(root, "jobs");
	ck_assert_uint_eq(json_array_size(arr), 3);
	ck_assert_str_eq(json_string_value(json_object_get(
				 json_array_get(arr, 1), "name")),
			 jobs[1].name);
	/* NULL strings are left out, not sent as null */
	ck_assert_ptr_null(json_object_get(json_array_get(arr, 1), "account"));
	/* "runs" is always sent, 0 included */
	for (size_t i = 0; i < 3; i++)
		ck_assert_int_eq(json_integer_value(json_object_get(
					 json_array_get(arr, i), "runs")),
				 jobs[i].runs);
	ck_assert(json_is_integer(
		json_object_get(json_array_get(arr, 1), "runs")));
	json_decref(root);
	free(text);
}
END_TEST

/* Bodies from peers that predate the new optional keys decode to defaults. */
START_TEST(test_new_keys_optional)
{
	const struct codec *c;
	union any u;
	char *body;
	char *text;

	c = &codecs[C_JOB_LIST];
	body = mutate(c->good, "jobs.0.runs", NULL);
	ck_assert_int_eq(c->decode(body, strlen(body), &u, NULL), 0);
	ck_assert_uint_eq(u.list.jobs[0].runs, 0);
	c->clear(&u);
	free(body);
	ck_assert_int_eq(c->decode(c->good, strlen(c->good), &u, NULL), 0);
	ck_assert_uint_eq(u.list.jobs[0].runs, 2);
	c->clear(&u);

	c = &codecs[C_NODE];
	body = mutate(c->good, "runs", NULL);
	ck_assert_int_eq(c->decode(body, strlen(body), &u, NULL), 0);
	ck_assert_uint_eq(u.node.njobs, 2);
	ck_assert_ptr_null(u.node.runs);
	c->clear(&u);
	free(body);
	ck_assert_int_eq(c->decode(c->good, strlen(c->good), &u, NULL), 0);
	ck_assert_uint_eq(u.node.njobs, 2);
	ck_assert_ptr_nonnull(u.node.runs);
	ck_assert_uint_eq(u.node.runs[0], 1);
	ck_assert_uint_eq(u.node.runs[1], 3);
	c->clear(&u);
	/* no jobs and an empty "runs" agree */
	body = mutate(c->good, "jobs", json_array());
	text = mutate(body, "runs", json_array());
	free(body);
	ck_assert_int_eq(c->decode(text, strlen(text), &u, NULL), 0);
	ck_assert_uint_eq(u.node.njobs, 0);
	ck_assert_ptr_nonnull(u.node.runs);
	c->clear(&u);
	free(text);

	c = &codecs[C_SUBMIT];
	body = mutate(c->good, "no_requeue", NULL);
	ck_assert_int_eq(c->decode(body, strlen(body), &u, NULL), 0);
	ck_assert(!u.desc.no_requeue);
	c->clear(&u);
	free(body);
	body = mutate(c->good, "no_requeue", json_false());
	ck_assert_int_eq(c->decode(body, strlen(body), &u, NULL), 0);
	ck_assert(!u.desc.no_requeue);
	c->clear(&u);
	free(body);
	ck_assert_int_eq(c->decode(c->good, strlen(c->good), &u, NULL), 0);
	ck_assert(u.desc.no_requeue);
	c->clear(&u);
}
END_TEST

/* ---- job states ---- */

static const struct {
	enum rota_job_state s;
	const char *name;
	const char *abbrev;
	bool final;
} states[] = {
	{ ROTA_JOB_PENDING, "PENDING", "PD", false },
	{ ROTA_JOB_RUNNING, "RUNNING", "R", false },
	{ ROTA_JOB_COMPLETED, "COMPLETED", "CD", true },
	{ ROTA_JOB_FAILED, "FAILED", "F", true },
	{ ROTA_JOB_CANCELLED, "CANCELLED", "CA", true },
	{ ROTA_JOB_TIMEOUT, "TIMEOUT", "TO", true },
	{ ROTA_JOB_NODE_FAIL, "NODE_FAIL", "NF", true },
};

START_TEST(test_state_names)
{
	enum rota_job_state out = ROTA_JOB_NONE;
	char lower[16];
	size_t i;

	ck_assert_str_eq(rota_job_state_name(states[_i].s), states[_i].name);
	ck_assert_str_eq(rota_job_state_short(states[_i].s),
			 states[_i].abbrev);
	ck_assert(rota_job_state_is_final(states[_i].s) == states[_i].final);
	ck_assert_int_eq(rota_job_state_parse(states[_i].name, &out), 0);
	ck_assert_int_eq(out, states[_i].s);
	out = ROTA_JOB_NONE;
	ck_assert_int_eq(rota_job_state_parse(states[_i].abbrev, &out), 0);
	ck_assert_int_eq(out, states[_i].s);
	for (i = 0; states[_i].name[i]; i++)
		lower[i] = (char)tolower((unsigned char)states[_i].name[i]);
	lower[i] = '\0';
	out = ROTA_JOB_NONE;
	ck_assert_int_eq(rota_job_state_parse(lower, &out), 0);
	ck_assert_int_eq(out, states[_i].s);
}
END_TEST

static const char *const bad_states[] = {
	"", "NONE", "?", "PENDINGX", " PENDING", "PEND", "P", "RUNNING ",
	"COMPLETE",
};

START_TEST(test_state_parse_bad)
{
	enum rota_job_state out = ROTA_JOB_TIMEOUT;

	ck_assert_int_eq(rota_job_state_parse(bad_states[_i], &out), -EINVAL);
	ck_assert_int_eq(out, ROTA_JOB_TIMEOUT);
}
END_TEST

START_TEST(test_state_out_of_range)
{
	ck_assert_str_eq(rota_job_state_name(ROTA_JOB_NONE), "NONE");
	ck_assert_str_eq(rota_job_state_name(ROTA_JOB_STATE_COUNT), "NONE");
	ck_assert_str_eq(rota_job_state_name((enum rota_job_state)1000),
			 "NONE");
	ck_assert_str_eq(rota_job_state_short(ROTA_JOB_NONE), "?");
	ck_assert_str_eq(rota_job_state_short(ROTA_JOB_STATE_COUNT), "?");
	ck_assert(!rota_job_state_is_final(ROTA_JOB_NONE));
	ck_assert(!rota_job_state_is_final(ROTA_JOB_STATE_COUNT));
}
END_TEST

/* ---- strbuf ---- */

static const struct {
	const char *in;
	const char *out; /* NULL: only checked by decoding */
} escapes[] = {
	{ "", "\"\"" },
	{ "plain text", "\"plain text\"" },
	{ "a\"b", "\"a\\\"b\"" },
	{ "back\\slash", "\"back\\\\slash\"" },
	{ "\\\"", "\"\\\\\\\"\"" },
	{ "\n", "\"\\u000a\"" },
	{ "\x01", "\"\\u0001\"" },
	{ "\x1f", "\"\\u001f\"" },
	{ "a\tb\rc\bd\fe", "\"a\\u0009b\\u000dc\\u0008d\\u000ce\"" },
	{ " ~\x7f", "\" ~\x7f\"" },
	{ "/", "\"/\"" },
	{ "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
	  "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"" },
	{ "\"\"\"\x01\x02\x03\\\\", NULL },
	{ "</script>\u2028", NULL },
};

START_TEST(test_strbuf_json)
{
	struct rota_strbuf b = { 0 };
	json_error_t jerr;
	json_t *v;
	size_t len;
	char *text;

	rota_strbuf_adds(&b, "x");
	rota_strbuf_add_json(&b, escapes[_i].in);
	text = rota_strbuf_take(&b, &len);
	ck_assert_uint_eq(len, strlen(text));
	ck_assert_int_eq(text[0], 'x');
	if (escapes[_i].out)
		ck_assert_str_eq(text + 1, escapes[_i].out);
	v = json_loads(text + 1, JSON_DECODE_ANY, &jerr);
	ck_assert_msg(v != NULL, "%s: %s", text + 1, jerr.text);
	ck_assert(json_is_string(v));
	ck_assert_str_eq(json_string_value(v), escapes[_i].in);
	ck_assert_uint_eq(json_string_length(v), strlen(escapes[_i].in));
	json_decref(v);
	free(text);
	ck_assert_ptr_null(b.data);
}
END_TEST

/* Every control character, together in one string. */
START_TEST(test_strbuf_json_controls)
{
	struct rota_strbuf b = { 0 };
	char in[32];
	json_t *v;
	char *text;

	for (int c = 1; c < 32; c++)
		in[c - 1] = (char)c;
	in[31] = '\0';
	rota_strbuf_add_json(&b, in);
	text = rota_strbuf_take(&b, NULL);
	for (const char *p = text; *p; p++)
		ck_assert_int_ge((unsigned char)*p, 0x20);
	v = json_loads(text, JSON_DECODE_ANY, NULL);
	ck_assert_ptr_nonnull(v);
	ck_assert_str_eq(json_string_value(v), in);
	json_decref(v);
	free(text);
}
END_TEST

START_TEST(test_strbuf_basics)
{
	struct rota_strbuf b = { 0 };
	size_t len = 99;
	char *text;

	text = rota_strbuf_take(&b, &len);
	ck_assert_str_eq(text, "");
	ck_assert_uint_eq(len, 0);
	free(text);

	rota_strbuf_add_i64(&b, 0);
	rota_strbuf_adds(&b, " ");
	rota_strbuf_add_i64(&b, INT64_MIN);
	rota_strbuf_adds(&b, " ");
	rota_strbuf_add_i64(&b, INT64_MAX);
	rota_strbuf_addf(&b, " %s=%d", "k", -7);
	rota_strbuf_add(&b, " xyz", 2);
	ck_assert_str_eq(b.data, "0 -9223372036854775808 "
				 "9223372036854775807 k=-7 x");
	for (int i = 0; i < 1000; i++)
		rota_strbuf_add(&b, "0123456789", 10);
	ck_assert_uint_eq(b.len, strlen(b.data));
	ck_assert_uint_eq(b.len, 49 + 10000);
	rota_strbuf_fini(&b);
	ck_assert_ptr_null(b.data);
	ck_assert_uint_eq(b.len, 0);
}
END_TEST

/* ---- request ids: "rid", taken off before the strict decoders (issue 18) */

#define RID "0123456789abcdef0123456789abcdef"

START_TEST(test_rid_make)
{
	char a[ROTA_RID_LEN + 1], b[ROTA_RID_LEN + 1];

	ck_assert_int_eq(rota_rid_make(a), 0);
	ck_assert_int_eq(rota_rid_make(b), 0);
	ck_assert(rota_rid_is_valid(a));
	ck_assert(rota_rid_is_valid(b));
	ck_assert_str_ne(a, b);
}
END_TEST

static const struct {
	const char *rid;
	bool valid;
} rids[] = {
	{ RID, true },
	{ "ffffffffffffffffffffffffffffffff", true },
	{ "", false },
	{ "0123456789abcdef0123456789abcde", false },	/* 31 */
	{ "0123456789abcdef0123456789abcdef0", false }, /* 33 */
	{ "0123456789ABCDEF0123456789abcdef", false },	/* upper case */
	{ "0123456789abcdef0123456789abcdeg", false },
	{ "0123456789abcdef 123456789abcdef", false },
};

START_TEST(test_rid_valid)
{
	ck_assert_int_eq(rota_rid_is_valid(rids[_i].rid), rids[_i].valid);
}
END_TEST

/* The requests that carry an id: with one added and taken off, each
 * decodes as it did without (what the controller does before decoding). */
static const int rid_codecs[] = { C_SUBMIT, C_CANCEL, C_NAME, C_JOB_ID };

START_TEST(test_rid_add_take)
{
	const struct codec *c = &codecs[rid_codecs[_i]];
	struct rota_error err = { "" };
	char rid[ROTA_RID_LEN + 1];
	char *with, *rest;
	size_t wlen, rlen;
	union any u;

	with = rota_msg_rid_add(c->good, strlen(c->good), RID, &wlen);
	ck_assert_ptr_nonnull(with);
	ck_assert_uint_eq(wlen, strlen(with));
	/* what an older controller says, and the client looks for */
	ck_assert_int_eq(c->decode(with, wlen, &u, &err), -EPROTO);
	ck_assert_ptr_nonnull(strstr(err.text, "unpacked: rid"));
	ck_assert(c->empty(&u));
	ck_assert_int_eq(rota_msg_rid_take(with, wlen, rid, &rest, &rlen,
					   &err),
			 0);
	ck_assert_str_eq(rid, RID);
	ck_assert_ptr_nonnull(rest);
	ck_assert_ptr_null(strstr(rest, "\"rid\""));
	ck_assert_int_eq(c->decode(rest, rlen, &u, &err), 0);
	c->clear(&u);
	free(rest);
	free(with);
}
END_TEST

START_TEST(test_rid_none)
{
	static const char *const bodies[] = {
		"{}",
		"{\"jobs\":[1,2]}",
		/* the word in a value is no key */
		"{\"name\":\"\\\"rid\\\"\"}",
		"{\"x\":{\"rid\":\"" RID "\"}}",
	};
	struct rota_error err = { "" };
	char rid[ROTA_RID_LEN + 1] = "x";
	char *rest = (char *)bodies;
	size_t rlen = 7;

	for (int i = 0; i < N(bodies); i++) {
		ck_assert_int_eq(rota_msg_rid_take(bodies[i], strlen(bodies[i]),
						   rid, &rest, &rlen, &err),
				 0);
		ck_assert_str_eq(rid, "");
		ck_assert_ptr_null(rest);
		ck_assert_uint_eq(rlen, 0);
	}
}
END_TEST

static const struct {
	const char *body;
	const char *text;
} bad_rids[] = {
	{ "{\"rid\":12}", "rid: expected 32 lowercase hex digits" },
	{ "{\"rid\":null}", "rid: expected 32 lowercase hex digits" },
	{ "{\"rid\":\"0123456789ABCDEF0123456789abcdef\"}",
	  "rid: expected 32 lowercase hex digits" },
	{ "{\"rid\":\"" RID "0\"}", "rid: expected 32 lowercase hex digits" },
	{ "{\"rid\":\"\"}", "rid: expected 32 lowercase hex digits" },
	{ "{\"rid\":\"" RID "\",\"rid\":\"" RID "\"}", "malformed JSON" },
	{ "[\"rid\"]", "message body is not a JSON object" },
	{ "{\"rid\":\"" RID "\"", "malformed JSON" },
};

START_TEST(test_rid_bad)
{
	const char *b = bad_rids[_i].body;
	struct rota_error err = { "" };
	char rid[ROTA_RID_LEN + 1] = "x";
	char *rest = (char *)b;
	size_t rlen = 7;

	ck_assert_int_eq(rota_msg_rid_take(b, strlen(b), rid, &rest, &rlen,
					   &err),
			 -EPROTO);
	ck_assert_ptr_nonnull(strstr(err.text, bad_rids[_i].text));
	ck_assert_str_eq(rid, "");
	ck_assert_ptr_null(rest);
	ck_assert_uint_eq(rlen, 0);
}
END_TEST

START_TEST(test_rid_types)
{
	ck_assert(rota_msg_type_has_rid(ROTA_MSG_SUBMIT));
	ck_assert(rota_msg_type_has_rid(ROTA_MSG_CANCEL));
	ck_assert(rota_msg_type_has_rid(ROTA_MSG_NICE));
	ck_assert(rota_msg_type_has_rid(ROTA_MSG_NODE_ADMIN));
	ck_assert(rota_msg_type_has_rid(ROTA_MSG_RESV_DELETE));
	ck_assert(!rota_msg_type_has_rid(ROTA_MSG_JOB_LIST));
	ck_assert(!rota_msg_type_has_rid(ROTA_MSG_PING));
	ck_assert(!rota_msg_type_has_rid(ROTA_MSG_RECONFIGURE));
	ck_assert(!rota_msg_type_has_rid(ROTA_MSG_JOB_END));
	/* not a JSON object: nothing to add to */
	ck_assert_ptr_null(rota_msg_rid_add("[1]", 3, RID, &(size_t){ 0 }));
}
END_TEST

static Suite *msg_suite(void)
{
	Suite *s = suite_create("msg");
	TCase *tc = tcase_create("hostile");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_good_accepted, 0, N(codecs));
	tcase_add_loop_test(tc, test_prefixes, 0, N(codecs));
	tcase_add_loop_test(tc, test_not_object, 0, N(codecs));
	tcase_add_loop_test(tc, test_garbage, 0, N(codecs));
	tcase_add_loop_test(tc, test_embedded_nul_byte, 0, N(codecs));
	tcase_add_loop_test(tc, test_unknown_key, 0, N(codecs));
	tcase_add_loop_test(tc, test_missing_key, 0, N(codecs));
	tcase_add_loop_test(tc, test_wrong_type, 0, N(codecs));
	tcase_add_loop_test(tc, test_duplicate_key, 0, N(codecs));
	tcase_add_test(tc, test_deep_nesting);
	tcase_add_loop_test(tc, test_hostile, 0, N(hostile));
	tcase_add_loop_test(tc, test_edges, 0, N(edges));
	tcase_add_test(tc, test_signal_max);
	suite_add_tcase(s, tc);

	tc = tcase_create("roundtrip");
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_submit_roundtrip, 0, N(descs));
	tcase_add_loop_test(tc, test_id_roundtrips, 0, N(ids));
	tcase_add_loop_test(tc, test_error_roundtrip, 0, N(errors));
	tcase_add_loop_test(tc, test_cancel_roundtrip, 0, N(cancel_n));
	tcase_add_loop_test(tc, test_text_list_roundtrip, 0, 5);
	tcase_add_loop_test(tc, test_node_roundtrip, 0, N(nodes));
	tcase_add_test(tc, test_node_gpus_refused);
	tcase_add_loop_test(tc, test_node_list_roundtrip, 0, N(nodes) + 1);
	tcase_add_loop_test(tc, test_launch_roundtrip, 0, N(launches));
	tcase_add_loop_test(tc, test_signal_roundtrip, 0, N(signals));
	tcase_add_loop_test(tc, test_job_end_roundtrip, 0, N(ends));
	tcase_add_loop_test(tc, test_job_run_roundtrip, 0, N(job_runs));
	tcase_add_test(tc, test_job_usage_roundtrip);
	tcase_add_loop_test(tc, test_job_usage_refused, 0, N(bad_usages));
	tcase_add_loop_test(tc, test_name_roundtrip, 0, N(names));
	tcase_add_test(tc, test_job_list_roundtrip);
	tcase_add_test(tc, test_why_dependency);
	tcase_add_test(tc, test_why_kept);
	tcase_add_test(tc, test_job_list_empty);
	tcase_add_test(tc, test_job_list_is_json);
	tcase_add_test(tc, test_new_keys_optional);
	suite_add_tcase(s, tc);

	tc = tcase_create("text");
	tcase_add_loop_test(tc, test_state_names, 0, N(states));
	tcase_add_loop_test(tc, test_state_parse_bad, 0, N(bad_states));
	tcase_add_test(tc, test_state_out_of_range);
	tcase_add_loop_test(tc, test_strbuf_json, 0, N(escapes));
	tcase_add_test(tc, test_strbuf_json_controls);
	tcase_add_test(tc, test_strbuf_basics);
	tcase_add_test(tc, test_resv_create_long_value);
	suite_add_tcase(s, tc);

	tc = tcase_create("rid");
	tcase_add_test(tc, test_rid_make);
	tcase_add_loop_test(tc, test_rid_valid, 0, N(rids));
	tcase_add_loop_test(tc, test_rid_add_take, 0, N(rid_codecs));
	tcase_add_test(tc, test_rid_none);
	tcase_add_loop_test(tc, test_rid_bad, 0, N(bad_rids));
	tcase_add_test(tc, test_rid_types);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(msg_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}
