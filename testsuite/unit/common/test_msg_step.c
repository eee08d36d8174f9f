// SPDX-License-Identifier: MIT
/*
 * Job step codecs (common/msg_step.c): every one round trips, and every
 * decoder refuses what it must with -EPROTO, one line saying why, and its
 * struct left empty (run under ASan, nothing leaks either).  Hostile
 * bodies are a valid body with one key replaced or removed, so each case
 * fails for the reason it names and no other (jansson's type errors do
 * not name the key: those cases look for its words).
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"

#define N(a) ((int)(sizeof(a) / sizeof(*(a))))

/* A heap copy of exactly 'len' bytes, no terminator: ASan sees overreads. */
static char *exact_copy(const char *buf, size_t len)
{
	char *p = malloc(len ? len : 1);

	ck_assert_ptr_nonnull(p);
	memcpy(p, buf, len);
	return p;
}

static void assert_strv_eq(char *const *got, char *const *want)
{
	size_t i = 0;

	for (; want[i]; i++) {
		ck_assert_ptr_nonnull(got[i]);
		ck_assert_str_eq(got[i], want[i]);
	}
	ck_assert_ptr_null(got[i]);
}

/* ---- the codecs behind one interface, for the refusal table ---- */

union step_any {
	struct rota_msg_step_create create;
	struct rota_msg_step_create_reply reply;
	struct rota_step_cred cred;
	struct rota_msg_step_launch launch;
	struct rota_msg_step_complete complete;
};

enum codec { CREATE, REPLY, CRED, LAUNCH, COMPLETE };

static int decode(enum codec c, const char *b, size_t n, union step_any *u,
		  struct rota_error *e)
{
	switch (c) {
	case CREATE: return rota_msg_step_create_decode(b, n, &u->create, e);
	case REPLY: return rota_msg_step_reply_decode(b, n, &u->reply, e);
	case CRED: return rota_step_cred_decode(b, n, &u->cred, e);
	case LAUNCH: return rota_msg_step_launch_decode(b, n, &u->launch, e);
	case COMPLETE:
		return rota_msg_step_complete_decode(b, n, &u->complete, e);
	}
	return -EINVAL;
}

static bool is_empty(enum codec c, const union step_any *u)
{
	const struct rota_msg_step_create *m = &u->create;
	const struct rota_msg_step_create_reply *r = &u->reply;
	const struct rota_step_cred *k = &u->cred;
	const struct rota_msg_step_launch *l = &u->launch;
	const struct rota_msg_step_complete *x = &u->complete;

	switch (c) {
	case CREATE:
		return !m->job_id && !m->ntasks && !m->nnodes &&
		       !m->cpus_per_task && !m->ntasks_per_node &&
		       !m->overlap && !m->nodelist && !m->name;
	case REPLY:
		return !r->job_id && !r->step_id && !r->ntasks && !r->nodes &&
		       !r->nnodes;
	case CRED:
		return !k->job_id && !k->run && !k->node && !k->nodes &&
		       !k->counts && !k->nnodes && !k->cores && !k->ncores &&
		       !k->cpus_per_task && !k->mem_mb && !k->end_time &&
		       !k->gpus && !k->ngpus;
	case LAUNCH:
		return !l->cred && !l->argv && !l->env && !l->cwd && !l->mpi &&
		       !l->pty && !l->rows && !l->cols;
	case COMPLETE:
		return !x->job_id && !x->step_id && !x->exit_code &&
		       !x->failed_rank && !x->cpu_usec && !x->text &&
		       !x->end_job;
	}
	return false;
}

static const char *const valid[] = {
	[CREATE] = "{\"job_id\":7,\"ntasks\":4,\"nnodes\":2,"
		   "\"cpus_per_task\":1,\"ntasks_per_node\":0,"
		   "\"overlap\":false,\"nodelist\":\"n[1-2]\","
		   "\"name\":\"hostname\"}",
	[REPLY] = "{\"job_id\":7,\"step_id\":0,\"ntasks\":3,\"nodes\":["
		  "{\"name\":\"n1\",\"addr\":\"127.0.0.2\",\"port\":6820,"
		  "\"uid\":0,\"ntasks\":2,\"cred\":\"MUNGE:a\"},"
		  "{\"name\":\"n2\",\"addr\":\"127.0.0.3\",\"port\":6820,"
		  "\"uid\":0,\"ntasks\":1,\"cred\":\"MUNGE:b\"}]}",
	[CRED] = "{\"job_id\":7,\"run\":1,\"step_id\":0,\"uid\":1000,"
		 "\"gid\":100,\"node\":\"n2\",\"node_id\":1,"
		 "\"nodes\":[\"n1\",\"n2\"],\"counts\":[3,2],"
		 "\"cores\":[0,1,2,3],\"cpus_per_task\":2,\"overlap\":false,"
		 "\"mem_mb\":0,\"end_time\":0}",
	[LAUNCH] = "{\"cred\":\"MUNGE:x\",\"argv\":[\"hostname\"],"
		   "\"env\":[\"A=1\"],\"cwd\":\"/tmp\",\"mpi\":\"none\","
		   "\"pty\":false,\"rows\":0,\"cols\":0}",
	[COMPLETE] = "{\"job_id\":7,\"step_id\":0,\"exit_code\":0,"
		     "\"failed_rank\":-1,\"cpu_usec\":0}",
};

/*
 * One refusal: codec 'c''s valid body with 'key' set to the JSON 'value'
 * (NULL: removed); for REPLY a key of nodes[1] when 'node' is set.
 */
struct bad {
	enum codec c;
	const char *key;
	const char *value;
	const char *want;	/* a part of the error text */
	bool node;
};

static const struct bad bads[] = {
	/* STEP_CREATE */
	{ CREATE, "job_id", NULL, "job_id", false },
	{ CREATE, "job_id", "0", "job_id: 0 is outside [1, 4294967295]",
	  false },
	{ CREATE, "ntasks", NULL, "ntasks", false },
	{ CREATE, "ntasks", "1048577", "ntasks: 1048577 is outside", false },
	{ CREATE, "ntasks", "-1", "ntasks: -1 is outside", false },
	{ CREATE, "nnodes", "1048577", "nnodes: 1048577 is outside", false },
	{ CREATE, "cpus_per_task", "65537", "cpus_per_task: 65537", false },
	{ CREATE, "ntasks_per_node", "65537", "ntasks_per_node: 65537", false },
	{ CREATE, "overlap", "1", "Expected true or false", false },
	{ CREATE, "overlap", NULL, "overlap", false },
	{ CREATE, "nodelist", "7", "Expected string", false },
	{ CREATE, "name", "\"" "%0300d" "\"", "name: longer than 256", false },
	{ CREATE, "extra", "1", "extra", false },
	/* STEP_CREATE_REPLY */
	{ REPLY, "job_id", "0", "job_id: 0 is outside", false },
	{ REPLY, "ntasks", "0", "ntasks: 0 is outside", false },
	{ REPLY, "ntasks", "4", "ntasks: 4, not the nodes' 3", false },
	{ REPLY, "nodes", "[]", "nodes: not a list of 1 to 65536 nodes",
	  false },
	{ REPLY, "nodes", "{}", "nodes: not a list", false },
	{ REPLY, "nodes", NULL, "nodes", false },
	{ REPLY, "port", "0", "port: 0 is outside [1, 65535]", true },
	{ REPLY, "port", "65536", "port: 65536 is outside", true },
	{ REPLY, "uid", "-1", "uid: -1 is outside", true },
	{ REPLY, "ntasks", "0", "ntasks: 0 is outside", true },
	{ REPLY, "cred", NULL, "cred", true },
	{ REPLY, "cred", "\"" "%5000d" "\"", "cred: longer than 4096", true },
	{ REPLY, "addr", "\"" "%0100d" "\"", "addr: longer than 64", true },
	{ REPLY, "more", "1", "more", true },
	/* the step credential */
	{ CRED, "run", "0", "run: 0 is outside", false },
	{ CRED, "uid", "4294967295", "uid: 4294967295 is outside", false },
	{ CRED, "node_id", "65536", "node_id: 65536 is outside", false },
	{ CRED, "cpus_per_task", "0", "cpus_per_task: 0 is outside", false },
	{ CRED, "mem_mb", "-1", "mem_mb: -1 is outside", false },
	{ CRED, "end_time", "-5", "end_time: -5 is outside", false },
	{ CRED, "counts", "[3]", "counts: 1 for 2 nodes", false },
	{ CRED, "counts", "[3,2,1]", "counts: 3 for 2 nodes", false },
	{ CRED, "nodes", "[]", "counts: 2 for 0 nodes", false },
	{ CRED, "nodes", "[\"n1\",7]", "nodes: entry 1 is not a string",
	  false },
	{ CRED, "counts", "[3,-2]", "counts: entry 1 is not a 32-bit", false },
	{ CRED, "node_id", "0", "node_id: not the node 'n2'", false },
	{ CRED, "node_id", "2", "node_id: not the node 'n2'", false },
	{ CRED, "node", "\"n3\"", "node_id: not the node 'n3'", false },
	{ CRED, "counts", "[3,0]", "counts: a node with no task", false },
	{ CRED, "counts", "[0,2]", "counts: a node with no task", false },
	{ CRED, "counts", "[1048576,2]", "counts: too many tasks", false },
	{ CRED, "counts", "[4294967295,4294967295]",
	  "counts: too many tasks", false },
	{ CRED, "counts", "[1,3]", "cores: 4 for 3 tasks of 2 cpus", false },
	{ CRED, "cores", "[]", "cores: 0 for 2 tasks of 2 cpus", false },
	{ CRED, "cores", "[0,1,2]", "cores: 3 for 2 tasks of 2 cpus", false },
	{ CRED, "cores", "[0,-1]", "cores: entry 1 is not a 32-bit", false },
	{ CRED, "overlap", "\"yes\"", "Expected true or false", false },
	{ CRED, "gid", NULL, "gid", false },
	{ CRED, "extra", "null", "extra", false },
	{ CRED, "gpus", "[1,256]", "gpus: 256 too high", false },
	{ CRED, "gpus", "{}", "gpus: not an array", false },
	/* STEP_LAUNCH */
	{ LAUNCH, "cred", NULL, "cred", false },
	{ LAUNCH, "cred", "\"" "%5000d" "\"", "cred: longer than 4096", false },
	{ LAUNCH, "mpi", "\"openmpi\"",
	  "mpi: 'openmpi' is none of none, pmi2, pmix", false },
	{ LAUNCH, "mpi", "\"\"", "mpi: '' is none of", false },
	{ LAUNCH, "mpi", "\"PMIX\"", "mpi: 'PMIX' is none of", false },
	{ LAUNCH, "cwd", "\"tmp\"", "cwd: not absolute", false },
	{ LAUNCH, "cwd", "\"\"", "cwd: not absolute", false },
	{ LAUNCH, "cwd", "\"/" "%5000d" "\"", "cwd: longer than 4096", false },
	{ LAUNCH, "argv", "[]", "argv: empty", false },
	{ LAUNCH, "argv", "[1]", "argv: entry 0 is not a string", false },
	{ LAUNCH, "argv", "\"hostname\"", "argv: not an array", false },
	{ LAUNCH, "env", "[null]", "env: entry 0 is not a string", false },
	{ LAUNCH, "rows", "65536", "rows: 65536 is outside", false },
	{ LAUNCH, "cols", "-1", "cols: -1 is outside", false },
	{ LAUNCH, "pty", "0", "Expected true or false", false },
	{ LAUNCH, "x", "1", "x", false },
	/* STEP_COMPLETE */
	{ COMPLETE, "job_id", "0", "job_id: 0 is outside", false },
	{ COMPLETE, "exit_code", "256", "exit_code: 256 is outside", false },
	{ COMPLETE, "exit_code", "-1", "exit_code: -1 is outside", false },
	{ COMPLETE, "failed_rank", "-2", "failed_rank: -2 is outside", false },
	{ COMPLETE, "failed_rank", "1048577", "failed_rank: 1048577", false },
	{ COMPLETE, "cpu_usec", "-1", "cpu_usec: -1 is outside", false },
	{ COMPLETE, "text", "\"" "%1025d" "\"", "text: longer than 1024",
	  false },
	{ COMPLETE, "text", "3", "Expected string", false },
	{ COMPLETE, "end_job", "\"yes\"", "Expected true", false },
	{ COMPLETE, "step_id", NULL, "step_id", false },
};

/* 'value' with its "%Nd" (if any) made N digits long. */
static char *expand(const char *value)
{
	const char *pct = strchr(value, '%');
	char *out;
	int width;

	if (!pct)
		return strdup(value);
	width = atoi(pct + 1);
	out = calloc(strlen(value) + (size_t)width + 1, 1);
	ck_assert_ptr_nonnull(out);
	memcpy(out, value, (size_t)(pct - value));
	memset(out + (pct - value), '7', (size_t)width);
	strcat(out, strchr(pct, 'd') + 1);
	return out;
}

static char *bad_body(const struct bad *b, size_t *len)
{
	json_t *root = json_loads(valid[b->c], 0, NULL);
	json_t *o = b->node ? json_array_get(json_object_get(root, "nodes"), 1)
			    : root;
	char *text;

	ck_assert_ptr_nonnull(o);
	if (b->value) {
		char *v = expand(b->value);
		json_t *j = json_loads(v, JSON_DECODE_ANY, NULL);

		ck_assert_msg(j, "bad test value %s", v);
		json_object_set_new(o, b->key, j);
		free(v);
	} else {
		ck_assert_int_eq(json_object_del(o, b->key), 0);
	}
	text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	*len = strlen(text);
	return text;
}

static void refused(enum codec c, const char *body, size_t len,
		    const char *want)
{
	char *copy = exact_copy(body, len);
	struct rota_error err = { "" };
	union step_any u;

	memset(&u, 0xa5, sizeof(u));
	ck_assert_int_eq(decode(c, copy, len, &u, &err), -EPROTO);
	ck_assert_msg(is_empty(c, &u), "%.200s: not left empty", body);
	ck_assert_msg(err.text[0] && !strchr(err.text, '\n'),
		      "not one line: '%s'", err.text);
	ck_assert_msg(strstr(err.text, want), "%.200s: '%s' does not say '%s'",
		      body, err.text, want);
	free(copy);
}

START_TEST(test_valid_bodies)
{
	for (enum codec c = CREATE; c <= COMPLETE; c++) {
		size_t len = strlen(valid[c]);
		char *copy = exact_copy(valid[c], len);
		struct rota_error err = { "" };
		union step_any u;
		int rc = decode(c, copy, len, &u, &err);

		ck_assert_msg(rc == 0, "%s: %s", valid[c], err.text);
		switch (c) {
		case CREATE: rota_msg_step_create_clear(&u.create); break;
		case REPLY: rota_msg_step_reply_clear(&u.reply); break;
		case CRED: rota_step_cred_clear(&u.cred); break;
		case LAUNCH: rota_msg_step_launch_clear(&u.launch); break;
		case COMPLETE:
			rota_msg_step_complete_clear(&u.complete);
			break;
		}
		ck_assert(is_empty(c, &u));
		free(copy);
	}
}
END_TEST

START_TEST(test_refusals)
{
	const struct bad *b = &bads[_i];
	size_t len;
	char *body = bad_body(b, &len);

	refused(b->c, body, len, b->want);
	free(body);
}
END_TEST

/* Bodies that are not the right JSON at all, for every codec. */
static const char *const not_objects[] = {
	"", "[]", "7", "{", "{\"job_id\":1,\"job_id\":1}", "{} x",
};

START_TEST(test_not_objects)
{
	for (enum codec c = CREATE; c <= COMPLETE; c++)
		refused(c, not_objects[_i], strlen(not_objects[_i]), "");
}
END_TEST

/* ---- round trips ---- */

static const struct rota_msg_step_create creates[] = {
	{ .job_id = 1 },
	{ .job_id = UINT32_MAX, .ntasks = ROTA_STEP_TASKS_MAX,
	  .nnodes = ROTA_STEP_TASKS_MAX, .cpus_per_task = 65536,
	  .ntasks_per_node = 65536, .overlap = true,
	  .nodelist = "n[01-64],login1", .name = "a.out \"quoted\" \t" },
	{ .job_id = 42, .ntasks = 3, .name = "" },
};

START_TEST(test_create_roundtrip)
{
	const struct rota_msg_step_create *m = &creates[_i];
	struct rota_msg_step_create got;
	struct rota_error err = { "" };
	size_t len;
	char *body = rota_msg_step_create_encode(m, &len);
	char *copy = exact_copy(body, len);

	ck_assert_int_eq(rota_msg_step_create_decode(copy, len, &got, &err),
			 0);
	ck_assert_uint_eq(got.job_id, m->job_id);
	ck_assert_uint_eq(got.ntasks, m->ntasks);
	ck_assert_uint_eq(got.nnodes, m->nnodes);
	ck_assert_uint_eq(got.cpus_per_task, m->cpus_per_task);
	ck_assert_uint_eq(got.ntasks_per_node, m->ntasks_per_node);
	ck_assert_int_eq(got.overlap, m->overlap);
	ck_assert_pstr_eq(got.nodelist, m->nodelist);
	ck_assert_pstr_eq(got.name, m->name);
	rota_msg_step_create_clear(&got);
	free(copy);
	free(body);
}
END_TEST

START_TEST(test_reply_roundtrip)
{
	struct rota_step_node nodes[] = {
		{ .name = "n1", .addr = "127.0.0.2", .port = 1, .uid = 0,
		  .ntasks = 1, .cred = "MUNGE:one" },
		{ .name = "n2", .addr = "::1", .port = 65535,
		  .uid = UINT32_MAX - 1, .ntasks = ROTA_STEP_TASKS_MAX - 1,
		  .cred = "" },
	};
	struct rota_msg_step_create_reply m = {
		.job_id = 9,
		.step_id = UINT32_MAX,
		.ntasks = ROTA_STEP_TASKS_MAX,
		.nodes = nodes,
		.nnodes = 2,
	};
	struct rota_msg_step_create_reply got;
	struct rota_error err = { "" };
	size_t len;
	char *body = rota_msg_step_reply_encode(&m, &len);
	char *copy = exact_copy(body, len);

	ck_assert_msg(rota_msg_step_reply_decode(copy, len, &got, &err) == 0,
		      "%s", err.text);
	ck_assert_uint_eq(got.job_id, 9);
	ck_assert_uint_eq(got.step_id, UINT32_MAX);
	ck_assert_uint_eq(got.ntasks, ROTA_STEP_TASKS_MAX);
	ck_assert_uint_eq(got.nnodes, 2);
	for (size_t i = 0; i < 2; i++) {
		ck_assert_str_eq(got.nodes[i].name, nodes[i].name);
		ck_assert_str_eq(got.nodes[i].addr, nodes[i].addr);
		ck_assert_uint_eq(got.nodes[i].port, nodes[i].port);
		ck_assert_uint_eq(got.nodes[i].uid, nodes[i].uid);
		ck_assert_uint_eq(got.nodes[i].ntasks, nodes[i].ntasks);
		ck_assert_str_eq(got.nodes[i].cred, nodes[i].cred);
	}
	rota_msg_step_reply_clear(&got);
	free(copy);
	free(body);
}
END_TEST

START_TEST(test_cred_roundtrip)
{
	char *names[] = { "n1", "n2", "n3", NULL };
	uint32_t counts[] = { 1, 4, 2 };
	uint32_t cores[] = { 7, 0, 3, 1, 2, 5, 4, 6 };
	uint32_t gpus[] = { 5, 2 };
	struct rota_step_cred c = {
		.job_id = UINT32_MAX,
		.run = 3,
		.step_id = 0,
		.uid = 1000,
		.gid = UINT32_MAX - 1,
		.node = "n2",
		.node_id = 1,
		.nodes = names,
		.counts = counts,
		.nnodes = 3,
		.cores = cores,
		.ncores = 8,
		.cpus_per_task = 2,
		.overlap = _i == 1,
		.mem_mb = (uint64_t)1 << 40,
		.end_time = 1700000000,
		/* a step of a GPU job: this node's GPUs; else none sent */
		.gpus = _i == 1 ? NULL : gpus,
		.ngpus = _i == 1 ? 0 : 2,
	};
	struct rota_step_cred got;
	struct rota_error err = { "" };
	size_t len;
	char *body;
	char *copy;

	if (_i == 1) {
		/* an overlapping step: more tasks than its cores hold */
		counts[1] = 9;
		c.ncores = 1;
	}
	body = rota_step_cred_encode(&c, &len);
	copy = exact_copy(body, len);
	ck_assert_msg(rota_step_cred_decode(copy, len, &got, &err) == 0, "%s",
		      err.text);
	ck_assert_uint_eq(got.job_id, c.job_id);
	ck_assert_uint_eq(got.run, c.run);
	ck_assert_uint_eq(got.step_id, c.step_id);
	ck_assert_uint_eq(got.uid, c.uid);
	ck_assert_uint_eq(got.gid, c.gid);
	ck_assert_str_eq(got.node, "n2");
	ck_assert_uint_eq(got.node_id, 1);
	assert_strv_eq(got.nodes, names);
	ck_assert_uint_eq(got.nnodes, 3);
	for (size_t i = 0; i < 3; i++)
		ck_assert_uint_eq(got.counts[i], counts[i]);
	ck_assert_uint_eq(got.ncores, c.ncores);
	for (size_t i = 0; i < c.ncores; i++)
		ck_assert_uint_eq(got.cores[i], cores[i]);
	ck_assert_uint_eq(got.cpus_per_task, 2);
	ck_assert_int_eq(got.overlap, c.overlap);
	ck_assert_uint_eq(got.mem_mb, c.mem_mb);
	ck_assert_int_eq(got.end_time, c.end_time);
	ck_assert_uint_eq(got.ngpus, c.ngpus);
	for (size_t i = 0; i < c.ngpus; i++)
		ck_assert_uint_eq(got.gpus[i], gpus[i]);
	ck_assert_int_eq(strstr(body, "\"gpus\"") != NULL, c.ngpus > 0);
	rota_step_cred_clear(&got);
	free(copy);
	free(body);
}
END_TEST

START_TEST(test_launch_roundtrip)
{
	char *argv[] = { "sh", "-c", "echo \"$A\" | tr a b", NULL };
	char *env[] = { "A=1", "B=", "C=x=y", NULL };
	char *none[] = { NULL };
	static const char *const mpis[] = { "none", "pmi2", "pmix" };
	struct rota_msg_step_launch m = {
		.cred = "MUNGE:abc",
		.argv = argv,
		.env = _i == 0 ? env : none,
		.cwd = "/home/ana/run 1",
		.mpi = (char *)mpis[_i],
		.pty = _i == 2,
		.rows = _i == 2 ? 65535 : 0,
		.cols = _i == 2 ? 80 : 0,
	};
	struct rota_msg_step_launch got;
	struct rota_error err = { "" };
	size_t len;
	char *body = rota_msg_step_launch_encode(&m, &len);
	char *copy = exact_copy(body, len);

	ck_assert_msg(rota_msg_step_launch_decode(copy, len, &got, &err) == 0,
		      "%s", err.text);
	ck_assert_str_eq(got.cred, m.cred);
	assert_strv_eq(got.argv, argv);
	assert_strv_eq(got.env, m.env);
	ck_assert_str_eq(got.cwd, m.cwd);
	ck_assert_str_eq(got.mpi, m.mpi);
	ck_assert_int_eq(got.pty, m.pty);
	ck_assert_uint_eq(got.rows, m.rows);
	ck_assert_uint_eq(got.cols, m.cols);
	rota_msg_step_launch_clear(&got);
	free(copy);
	free(body);
}
END_TEST

static const struct rota_msg_step_complete completes[] = {
	{ .job_id = 1, .failed_rank = -1 },
	{ .job_id = 5, .step_id = 3, .exit_code = 137, .failed_rank = 12,
	  .cpu_usec = INT64_MAX, .text = "task 12 on n2: killed by signal 9" },
	{ .job_id = 5, .step_id = ROTA_STEP_NONE, .exit_code = 255,
	  .failed_rank = ROTA_STEP_TASKS_MAX, .end_job = true, .text = "" },
};

START_TEST(test_complete_roundtrip)
{
	const struct rota_msg_step_complete *m = &completes[_i];
	struct rota_msg_step_complete got;
	struct rota_error err = { "" };
	size_t len;
	char *body = rota_msg_step_complete_encode(m, &len);
	char *copy = exact_copy(body, len);

	ck_assert_msg(rota_msg_step_complete_decode(copy, len, &got, &err) ==
			      0,
		      "%s", err.text);
	ck_assert_uint_eq(got.job_id, m->job_id);
	ck_assert_uint_eq(got.step_id, m->step_id);
	ck_assert_int_eq(got.exit_code, m->exit_code);
	ck_assert_int_eq(got.failed_rank, m->failed_rank);
	ck_assert_uint_eq(got.cpu_usec, m->cpu_usec);
	ck_assert_pstr_eq(got.text, m->text);
	ck_assert_int_eq(got.end_job, m->end_job);
	rota_msg_step_complete_clear(&got);
	free(copy);
	free(body);
}
END_TEST

/* ---- the small frames: {"key":int,...} ---- */

static const char *const task_end_keys[] = { "rank", "status" };
static const int64_t task_end_max[] = { ROTA_STEP_TASKS_MAX, 0xffff };

START_TEST(test_ints_roundtrip)
{
	const int64_t v[] = { ROTA_STEP_TASKS_MAX, 0 };
	int64_t got[2] = { -1, -1 };
	struct rota_error err = { "" };
	size_t len;
	char *body = rota_msg_ints_encode(task_end_keys, v, 2, &len);
	char *copy = exact_copy(body, len);

	ck_assert_int_eq(rota_msg_ints_decode(copy, len, task_end_keys,
					      task_end_max, got, 2, &err),
			 0);
	ck_assert_int_eq(got[0], v[0]);
	ck_assert_int_eq(got[1], v[1]);
	free(copy);
	free(body);
}
END_TEST

static const struct {
	const char *body;
	const char *want;
} bad_ints[] = {
	{ "{\"rank\":1}", "1 keys, not 2" },
	{ "{\"rank\":1,\"status\":0,\"x\":0}", "3 keys, not 2" },
	{ "{\"rank\":1,\"stat\":0}", "status: not an integer" },
	{ "{\"rank\":1,\"status\":\"0\"}", "status: not an integer" },
	{ "{\"rank\":1.5,\"status\":0}", "rank: not an integer" },
	{ "{\"rank\":-1,\"status\":0}", "rank: -1 is outside [0, 1048576]" },
	{ "{\"rank\":1048577,\"status\":0}", "rank: 1048577 is outside" },
	{ "{\"rank\":0,\"status\":65536}", "status: 65536 is outside" },
	{ "{\"rank\":0,\"rank\":0}", "malformed JSON" },
	{ "[0,0]", "not a JSON object" },
	{ "", "malformed JSON" },
};

START_TEST(test_ints_bad)
{
	size_t len = strlen(bad_ints[_i].body);
	char *copy = exact_copy(bad_ints[_i].body, len);
	struct rota_error err = { "" };
	int64_t v[2] = { 0, 0 };

	ck_assert_int_eq(rota_msg_ints_decode(copy, len, task_end_keys,
					      task_end_max, v, 2, &err),
			 -EPROTO);
	ck_assert_msg(strstr(err.text, bad_ints[_i].want),
		      "%s: '%s' does not say '%s'", bad_ints[_i].body,
		      err.text, bad_ints[_i].want);
	ck_assert(!strchr(err.text, '\n'));
	free(copy);
}
END_TEST

/* ---- STEP_IO's raw body ---- */

static const struct {
	uint32_t rank;
	unsigned fd;
	const char *data;
	size_t n;
} ios[] = {
	{ 0, 0, "", 0 },
	{ 0, 1, "hello\n", 6 },
	{ ROTA_STEP_TASKS_MAX, 2, "a\0b\nc", 5 },
	{ 17, 1, "\n\n", 2 },
};

START_TEST(test_io_roundtrip)
{
	struct rota_error err = { "" };
	const char *data;
	uint32_t rank;
	unsigned fd;
	size_t len, n;
	char *body = rota_step_io_encode(ios[_i].rank, ios[_i].fd,
					 ios[_i].data, ios[_i].n, &len);
	char *copy = exact_copy(body, len);

	ck_assert_int_eq(rota_step_io_decode(copy, len, &rank, &fd, &data, &n,
					     &err),
			 0);
	ck_assert_uint_eq(rank, ios[_i].rank);
	ck_assert_uint_eq(fd, ios[_i].fd);
	ck_assert_uint_eq(n, ios[_i].n);
	ck_assert(n == 0 || memcmp(data, ios[_i].data, n) == 0);
	ck_assert(data >= copy && data + n == copy + len);
	free(copy);
	free(body);
}
END_TEST

static const struct {
	const char *body;
	const char *want;
} bad_ios[] = {
	{ "", "no header line" },
	{ "0 1", "no header line" },
	{ "0 1 hello", "no header line" },
	{ "0000000000000000000000 1\n", "no header line" },
	{ "\n", "bad rank" },
	{ " 0 1\n", "bad rank" },
	{ "x 1\n", "bad rank" },
	{ "-1 1\n", "bad rank" },
	{ "1\n", "bad rank" },
	{ "1048577 1\n", "bad rank" },
	{ "4294967296 1\n", "bad rank" },
	/* 2^64: must not wrap around to rank 0 */
	{ "18446744073709551616 1\n", "bad rank" },
	{ "0 \n", "bad stream" },
	{ "0 3\n", "bad stream" },
	{ "0  1\n", "bad stream" },
	{ "0 1 \n", "bad stream" },
	{ "0 1x\n", "bad stream" },
	{ "0 -1\n", "bad stream" },
	{ "0 1\rdata\n", "bad stream" },
	/* 2^64 + 1: must not wrap around to stdout */
	{ "0 18446744073709551617\n", "bad stream" },
};

START_TEST(test_io_bad)
{
	size_t len = strlen(bad_ios[_i].body);
	char *copy = exact_copy(bad_ios[_i].body, len);
	struct rota_error err = { "" };
	const char *data = NULL;
	uint32_t rank = 99;
	unsigned fd = 99;
	size_t n = 99;

	ck_assert_int_eq(rota_step_io_decode(copy, len, &rank, &fd, &data, &n,
					     &err),
			 -EPROTO);
	ck_assert_msg(strstr(err.text, bad_ios[_i].want),
		      "'%s': '%s' does not say '%s'", bad_ios[_i].body,
		      err.text, bad_ios[_i].want);
	/* a refusal leaves nothing to read by mistake */
	ck_assert(rank == 0 && fd == 0 && n == 0 && !data);
	free(copy);
}
END_TEST

/* An empty frame's body may be NULL. */
START_TEST(test_io_null)
{
	struct rota_error err = { "" };
	const char *data = NULL;
	uint32_t rank;
	unsigned fd;
	size_t n;

	ck_assert_int_eq(rota_step_io_decode(NULL, 0, &rank, &fd, &data, &n,
					     &err),
			 -EPROTO);
	ck_assert_str_eq(err.text, "STEP_IO: no header line");
}
END_TEST

static Suite *msg_step_suite(void)
{
	Suite *s = suite_create("msg_step");
	TCase *tc = tcase_create("codecs");

	tcase_add_test(tc, test_valid_bodies);
	tcase_add_loop_test(tc, test_refusals, 0, N(bads));
	tcase_add_loop_test(tc, test_not_objects, 0, N(not_objects));
	tcase_add_loop_test(tc, test_create_roundtrip, 0, N(creates));
	tcase_add_test(tc, test_reply_roundtrip);
	tcase_add_loop_test(tc, test_cred_roundtrip, 0, 2);
	tcase_add_loop_test(tc, test_launch_roundtrip, 0, 3);
	tcase_add_loop_test(tc, test_complete_roundtrip, 0, N(completes));
	tcase_add_test(tc, test_ints_roundtrip);
	tcase_add_loop_test(tc, test_ints_bad, 0, N(bad_ints));
	tcase_add_loop_test(tc, test_io_roundtrip, 0, N(ios));
	tcase_add_loop_test(tc, test_io_bad, 0, N(bad_ios));
	tcase_add_test(tc, test_io_null);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(msg_step_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
