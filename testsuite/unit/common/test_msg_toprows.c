// SPDX-License-Identifier: MIT
/*
 * The TOP_ROWS reply's codec (msg_toprows.c, msg_rows.c): rows and the
 * optional running steps round trip; no "steps" key when none runs;
 * hostile steps are refused with their line and leave the struct empty;
 * JOB_ROWS, which shares the reader, still takes no extra key.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"

#define N(a) (sizeof(a) / sizeof(*(a)))

static const struct rota_top_row rows[] = {
	{ .id = 12, .state = ROTA_JOB_RUNNING, .cores = 4, .nodes = 4,
	  .submit_time = 100, .start_time = 110, .priority_milli = -1500,
	  .nice = -3, .urgency = 20, .queue = "batch", .user = "ana",
	  .account = "physics", .name = "sweep", .where = "n[01-04]" },
	{ .id = 13, .state = ROTA_JOB_PENDING, .cores = 1, .hold = 1,
	  .submit_time = 120, .est_start = 900, .queue = "short",
	  .user = "bob", .account = "", .name = "x", .where = "JobHeldUser",
	  .array = "13_[3-999%16]" },
};

static const struct rota_top_step steps[] = {
	{ .job_id = 12, .step_id = 0, .ntasks = 4, .nnodes = 4, .start = 111,
	  .name = "sleep", .nodes = "n[01-04]" },
	{ .job_id = 12, .step_id = 4294967294u, .ntasks = 1, .nnodes = 1,
	  .start = 150, .name = "a \"b\"\n\\c", .nodes = "n01" },
};

static char *encode(size_t nsteps, size_t *len)
{
	struct rota_msg_top_rows m = {
		.rows = (struct rota_top_row *)rows, .n = N(rows), .now = 200,
		.steps = (struct rota_top_step *)steps, .nsteps = nsteps,
	};

	return rota_msg_top_rows_encode(&m, len);
}

START_TEST(test_roundtrip)
{
	struct rota_msg_top_rows m;
	struct rota_error err;
	size_t len, nsteps = (size_t)_i;
	char *text = encode(nsteps, &len);

	ck_assert_uint_eq(len, strlen(text));
	/* an optional key: absent when no step runs */
	ck_assert(!strstr(text, "\"steps\"") == !nsteps);
	ck_assert_msg(rota_msg_top_rows_decode(text, len, &m, &err) == 0, "%s",
		      err.text);
	ck_assert_uint_eq(m.n, N(rows));
	ck_assert_int_eq(m.now, 200);
	ck_assert_uint_eq(m.rows[0].id, 12);
	ck_assert_int_eq(m.rows[0].priority_milli, -1500);
	ck_assert_str_eq(m.rows[1].where, "JobHeldUser");
	ck_assert_str_eq(m.rows[0].array, "");
	ck_assert_str_eq(m.rows[1].array, "13_[3-999%16]");
	ck_assert_uint_eq(m.nsteps, nsteps);
	if (!nsteps)
		ck_assert_ptr_null(m.steps);
	for (size_t i = 0; i < nsteps; i++) {
		ck_assert_uint_eq(m.steps[i].job_id, steps[i].job_id);
		ck_assert_uint_eq(m.steps[i].step_id, steps[i].step_id);
		ck_assert_uint_eq(m.steps[i].ntasks, steps[i].ntasks);
		ck_assert_uint_eq(m.steps[i].nnodes, steps[i].nnodes);
		ck_assert_int_eq(m.steps[i].start, steps[i].start);
		ck_assert_str_eq(m.steps[i].name, steps[i].name);
		ck_assert_str_eq(m.steps[i].nodes, steps[i].nodes);
	}
	free(text);
	rota_msg_top_rows_clear(&m);
}
END_TEST

START_TEST(test_exact_text)
{
	size_t len;
	char *text = encode(1, &len);

	ck_assert_str_eq(strstr(text, "]],\"steps\""),
			 "]],\"steps\":[[12,0,4,4,111,\"sleep\","
			 "\"n[01-04]\"]]}");
	free(text);
}
END_TEST

#define HEAD "{\"now\":1,\"rows\":[]"
#define STEP(cols) HEAD ",\"steps\":[[" cols "]]}"

static const struct {
	const char *body;
	const char *want; /* NULL: accepted */
} bodies[] = {
	{ HEAD "}", NULL },
	{ HEAD ",\"steps\":[]}", NULL },
	{ STEP("1,0,4,2,5,\"sleep\",\"n[1-2]\""), NULL },
	{ " { \"now\" : 1 , \"rows\" : [ ] , \"steps\" : [ [ 1 , 0 , 4 , 2 "
	  ", 5 , \"sleep\" , \"n1\" ] ] } ",
	  NULL },
	{ STEP("0,0,4,2,5,\"sleep\",\"n1\""), "top rows: step job id" },
	{ STEP("1,4294967295,4,2,5,\"sleep\",\"n1\""), "top rows: step id" },
	{ STEP("1,0,-4,2,5,\"sleep\",\"n1\""), "top rows: step tasks" },
	{ STEP("1,0,4,4294967296,5,\"s\",\"n1\""), "top rows: step nodes" },
	{ STEP("1,0,4,2,1.5,\"sleep\",\"n1\""),
	  "top rows: step start: not a whole number" },
	{ STEP("1,0,4,2,5,7,\"n1\""), "top rows: step name" },
	{ STEP("1,0,4,2,5,\"sleep\""), "top rows: expected ','" },
	{ STEP("1,0,4,2,5,\"sleep\",\"n1\",3"),
	  "top rows: expected ']' after a step" },
	{ HEAD ",\"stepz\":[]}", "top rows: unexpected key" },
	{ HEAD ",\"steps\":{}}", "top rows: expected '['" },
	{ HEAD ",\"steps\":[],\"steps\":[]}", "top rows: unexpected key" },
	{ HEAD ",}", "top rows: expected a key" },
	/* the delta keys (issue 23): in order, each once, each with its own */
	{ HEAD ",\"change\":5}", NULL },
	{ HEAD ",\"change\":5,\"since\":5}", NULL },
	{ HEAD ",\"change\":5,\"since\":2,\"gone\":[3,1],\"steps\":[]}", NULL },
	{ HEAD ",\"change\":5,\"since\":2,\"gone\":[ ]}", NULL },
	{ HEAD ",\"change\":0}", "top rows: change" },
	{ HEAD ",\"change\":-1}", "top rows: change" },
	{ HEAD ",\"change\":1.5}", "top rows: change: not a whole number" },
	{ HEAD ",\"change\":5,\"since\":6}", "top rows: since" },
	{ HEAD ",\"change\":5,\"since\":0}", "top rows: since" },
	{ HEAD ",\"since\":2}", "top rows: unexpected key" },
	{ HEAD ",\"change\":5,\"gone\":[1]}", "top rows: unexpected key" },
	{ HEAD ",\"since\":2,\"change\":5}", "top rows: unexpected key" },
	{ HEAD ",\"steps\":[],\"change\":5}", "top rows: unexpected key" },
	{ HEAD ",\"change\":5,\"change\":5}", "top rows: unexpected key" },
	{ HEAD ",\"change\":5,\"since\":2,\"gone\":[0]}",
	  "top rows: gone job id" },
	{ HEAD ",\"change\":5,\"since\":2,\"gone\":[4294967296]}",
	  "top rows: gone job id" },
	{ HEAD ",\"change\":5,\"since\":2,\"gone\":[1,]}",
	  "top rows: gone job id" },
	{ HEAD ",\"change\":5,\"since\":2,\"gone\":[1 2]}",
	  "top rows: expected ',' or ']'" },
	{ HEAD ",\"change\":5,\"since\":2,\"gone\":1}",
	  "top rows: expected '['" },
	{ HEAD ",\"change\":5,}", "top rows: expected a key" },
	{ HEAD ",\"steps\":[[1,0,4,2,5,\"a\",\"n1\"],]}",
	  "top rows: expected a row" },
	{ HEAD ",\"steps\":[1]}", "top rows: expected a row" },
	{ HEAD ",\"steps\":[]", "top rows: expected '}'" },
	{ HEAD ",\"steps\":[]}x", "top rows: trailing bytes" },
};

START_TEST(test_bodies)
{
	struct rota_msg_top_rows m;
	struct rota_error err = { "" };
	const char *b = bodies[_i].body;
	int rc = rota_msg_top_rows_decode(b, strlen(b), &m, &err);

	if (!bodies[_i].want) {
		ck_assert_msg(rc == 0, "%s: %s", b, err.text);
		rota_msg_top_rows_clear(&m);
		return;
	}
	ck_assert_int_eq(rc, -EPROTO);
	ck_assert_msg(strncmp(err.text, bodies[_i].want,
			      strlen(bodies[_i].want)) == 0,
		      "%s: '%s', want '%s'", b, err.text, bodies[_i].want);
	ck_assert_ptr_null(m.rows);
	ck_assert_ptr_null(m.steps);
	ck_assert_ptr_null(m.arena);
	ck_assert_ptr_null(m.gone);
	ck_assert_uint_eq(m.n + m.nsteps + m.ngone, 0);
	ck_assert_int_eq(m.change + m.since, 0);
}
END_TEST

/*
 * A delta round trips: the change, its base and the gone ids; a full
 * reply to a new client has "change" alone; the writer leaves out what
 * its absence means (no "gone" when none left), and an old reply reads
 * as full with no change number.
 */
START_TEST(test_delta_roundtrip)
{
	static const uint32_t gone[] = { 7, 9, 4000000000u };
	static const struct {
		int64_t change, since;
		size_t ngone;
		const char *tail;
	} c[] = {
		{ 0, 0, 0, "]]}" },
		{ 1700000000000042, 0, 0, "]],\"change\":1700000000000042}" },
		{ 50, 50, 0, "]],\"change\":50,\"since\":50}" },
		{ 50, 41, 3,
		  "]],\"change\":50,\"since\":41,"
		  "\"gone\":[7,9,4000000000]}" },
	};
	struct rota_msg_top_rows m = {
		.rows = (struct rota_top_row *)rows,
		.n = N(rows),
		.now = 200,
		.change = c[_i].change,
		.since = c[_i].since,
		.gone = (uint32_t *)gone,
		.ngone = c[_i].ngone,
	};
	struct rota_msg_top_rows d;
	struct rota_error err;
	size_t len, len2;
	char *text = rota_msg_top_rows_encode(&m, &len), *again;

	ck_assert_str_eq(strstr(text, "]]"), c[_i].tail);
	ck_assert_msg(rota_msg_top_rows_decode(text, len, &d, &err) == 0, "%s",
		      err.text);
	ck_assert_int_eq(d.change, c[_i].change);
	ck_assert_int_eq(d.since, c[_i].since);
	ck_assert_uint_eq(d.ngone, c[_i].ngone);
	for (size_t i = 0; i < d.ngone; i++)
		ck_assert_uint_eq(d.gone[i], gone[i]);
	ck_assert_uint_eq(d.n, N(rows));
	again = rota_msg_top_rows_encode(&d, &len2);
	ck_assert_str_eq(again, text);
	free(again);
	free(text);
	rota_msg_top_rows_clear(&d);
}
END_TEST

/* The request: {} (an older rota top) or {"since":N}, N >= 0. */
static const struct {
	const char *body;
	int rc;
	bool has_since;
	int64_t since;
	const char *text; /* the encoding of what was read */
} reqs[] = {
	{ "{}", 0, false, 0, "{}" },
	{ "{\"since\":0}", 0, true, 0, "{\"since\":0}" },
	{ "{\"since\":1700000000000042}", 0, true, 1700000000000042,
	  "{\"since\":1700000000000042}" },
	{ "{\"since\":-1}", -EPROTO, false, 0, NULL },
	{ "{\"since\":1.5}", -EPROTO, false, 0, NULL },
	{ "{\"since\":\"5\"}", -EPROTO, false, 0, NULL },
	{ "{\"since\":5,\"x\":1}", -EPROTO, false, 0, NULL },
	{ "[]", -EPROTO, false, 0, NULL },
	{ "", -EPROTO, false, 0, NULL },
};

START_TEST(test_request)
{
	struct rota_msg_top_req r = { .has_since = true, .since = 9 };
	struct rota_error err = { "" };
	size_t len;
	char *text;
	int rc = rota_msg_top_req_decode(reqs[_i].body, strlen(reqs[_i].body),
					 &r, &err);

	ck_assert_msg(rc == reqs[_i].rc, "%s: %d %s", reqs[_i].body, rc,
		      err.text);
	ck_assert(r.has_since == reqs[_i].has_since);
	ck_assert_int_eq(r.since, reqs[_i].since);
	if (rc < 0) {
		ck_assert(err.text[0]);
		return;
	}
	text = rota_msg_top_req_encode(&r, &len);
	ck_assert_str_eq(text, reqs[_i].text);
	free(text);
}
END_TEST

/* A step name past the limit is refused, at the limit taken. */
START_TEST(test_name_limit)
{
	char name[ROTA_MSG_NAME_MAX + 2], body[ROTA_MSG_NAME_MAX + 128];
	struct rota_msg_top_rows m;
	struct rota_error err;

	memset(name, 'a', sizeof(name) - 1);
	name[ROTA_MSG_NAME_MAX + 1] = '\0';
	name[ROTA_MSG_NAME_MAX] = '\0';
	snprintf(body, sizeof(body), STEP("1,0,1,1,5,\"%s\",\"n1\""), name);
	ck_assert_int_eq(rota_msg_top_rows_decode(body, strlen(body), &m, &err),
			 0);
	rota_msg_top_rows_clear(&m);
	name[ROTA_MSG_NAME_MAX] = 'a';
	snprintf(body, sizeof(body), STEP("1,0,1,1,5,\"%s\",\"n1\""), name);
	ck_assert_int_eq(rota_msg_top_rows_decode(body, strlen(body), &m, &err),
			 -EPROTO);
	ck_assert_str_eq(err.text, "top rows: step name");
}
END_TEST

/* JOB_ROWS shares the reader: it takes no key after its rows. */
START_TEST(test_job_rows_no_tail)
{
	static const char b[] = HEAD ",\"steps\":[]}";
	struct rota_msg_job_rows m;
	struct rota_error err;

	ck_assert_int_eq(rota_msg_job_rows_decode(b, strlen(b), &m, &err),
			 -EPROTO);
	ck_assert_str_eq(err.text, "job rows: expected '}'");
	ck_assert_ptr_null(m.rows);
	ck_assert_ptr_null(m.arena);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("msg_toprows");
	TCase *tc = tcase_create("codec");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_roundtrip, 0, N(steps) + 1);
	tcase_add_test(tc, test_exact_text);
	tcase_add_loop_test(tc, test_bodies, 0, N(bodies));
	tcase_add_test(tc, test_name_limit);
	tcase_add_loop_test(tc, test_delta_roundtrip, 0, 4);
	tcase_add_loop_test(tc, test_request, 0, N(reqs));
	tcase_add_test(tc, test_job_rows_no_tail);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
