// SPDX-License-Identifier: MIT
/*
 * The PRIO_REPLY and SHARE_REPLY codecs' newer keys (msg_prio.c,
 * msg_share.c): a prio row's "state" (and "department") and the reply's
 * "rates_all" round trip, are optional (an older controller's reply reads as pending jobs
 * of a plugin that rates pending jobs only) and an unknown state is
 * refused; a share row's "shares_level" and "usage_level" round trip and
 * read as NAN when absent.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"

#define N(a) (sizeof(a) / sizeof(*(a)))

static const enum rota_prio_row_state states[] = {
	ROTA_PRIO_ROW_RUNNING,
	ROTA_PRIO_ROW_PENDING,
	ROTA_PRIO_ROW_HELD,
};

START_TEST(test_prio_state_roundtrip)
{
	struct rota_prio_row rows[N(states)];
	struct rota_msg_prio m = {
		.plugin = "sge",
		.describe = "",
		.rows = rows,
		.n = N(rows),
		.rates_all = _i,
	};
	struct rota_msg_prio out;
	struct rota_error err;
	size_t len;
	char *text;

	for (size_t i = 0; i < N(rows); i++)
		rows[i] = (struct rota_prio_row){
			.id = (uint32_t)i + 1,
			.state = states[i],
			.user = "ana",
			.account = "physics",
			.queue = "t",
			.qos = "normal",
			/* Grid Engine's department, on the first only */
			.department = i ? NULL : "deptA",
		};
	text = rota_msg_prio_encode(&m, &len);
	ck_assert(!strstr(text, "\"rates_all\"") == !_i);
	ck_assert_msg(rota_msg_prio_decode(text, len, &out, &err) == 0, "%s",
		      err.text);
	ck_assert_int_eq(out.rates_all, _i);
	ck_assert_uint_eq(out.n, N(rows));
	for (size_t i = 0; i < N(rows); i++)
		ck_assert_int_eq(out.rows[i].state, states[i]);
	ck_assert_str_eq(out.rows[0].department, "deptA");
	ck_assert_ptr_null(out.rows[1].department);
	rota_msg_prio_clear(&out);
	free(text);
}
END_TEST

static const char prio_old[] =
	"{\"plugin\":\"multifactor\",\"describe\":\"\",\"rows\":[{\"id\":7,"
	"\"user\":\"ana\",\"account\":\"a\",\"queue\":\"q\",\"qos\":\"n\","
	"\"priority\":1.5,\"factors\":[]}]}";

START_TEST(test_prio_state_optional)
{
	struct rota_msg_prio m;
	struct rota_error err;

	ck_assert_msg(
		rota_msg_prio_decode(prio_old, strlen(prio_old), &m, &err) == 0,
		"%s", err.text);
	ck_assert(!m.rates_all);
	ck_assert_uint_eq(m.n, 1);
	ck_assert_int_eq(m.rows[0].state, ROTA_PRIO_ROW_PENDING);
	ck_assert_ptr_null(m.rows[0].department); /* optional too */
	rota_msg_prio_clear(&m);
}
END_TEST

START_TEST(test_prio_state_unknown)
{
	static const char b[] =
		"{\"plugin\":\"sge\",\"describe\":\"\",\"rows\":[{\"id\":7,"
		"\"user\":\"ana\",\"account\":\"a\",\"queue\":\"q\","
		"\"qos\":\"n\",\"priority\":1.5,\"factors\":[],"
		"\"state\":\"zombie\"}],\"rates_all\":true}";
	struct rota_msg_prio m;
	struct rota_error err;

	ck_assert_int_eq(rota_msg_prio_decode(b, strlen(b), &m, &err), -EPROTO);
	ck_assert_str_eq(err.text, "state: unknown");
	ck_assert_ptr_null(m.rows);
	ck_assert_uint_eq(m.n, 0);
}
END_TEST

/* The scanner-read PRIO_REPLY: bad bodies refused with one line. */
#define PH "{\"plugin\":\"p\",\"describe\":\"\",\"rows\":["
#define PROW(k) "{\"id\":1,\"user\":\"u\",\"account\":\"a\"," \
	"\"queue\":\"q\",\"qos\":\"n\",\"priority\":1.5," k "}"
static const struct {
	const char *body;
	const char *want; /* NULL: accepted */
} prio_bodies[] = {
	{ PH "]}", NULL },
	{ PH PROW("\"factors\":[[\"age\",1,2.5e-3,-3,4E2]]") "]}", NULL },
	{ PH "]" ",\"rated_at\":5,\"now\":6}", NULL },
	{ PH PROW("\"factors\":[]") ",]}", "priorities: rows: expected a row" },
	{ PH PROW("\"factors\":[],\"id\":2") "]}", "id: twice" },
	{ PH PROW("\"factors\":[],\"color\":2") "]}", "row: unknown key" },
	{ PH PROW("\"factors\":[[\"a\",1,2,3]]") "]}", "priorities: factor" },
	{ PH PROW("\"factors\":[[\"a\",1,2,3,4,5]]") "]}",
	  "priorities: factor" },
	{ PH PROW("\"factors\":[[\"a\",1,2,3,1.]]") "]}",
	  "priorities: factor: bad number" },
	{ PH PROW("\"factors\":[[\"a\",1,2,3,1e999]]") "]}",
	  "priorities: factor: number out of range" },
	{ PH PROW("") "]}", "priorities: row: expected a key" },
	{ PH "{\"id\":1}]}", "row: a key is missing" },
	{ PH "]}x", "priorities: trailing bytes: unexpected character" },
	{ PH "]", "priorities: expected '}'" },
	{ "{\"plugin\":\"p\",\"rows\":[]}",
	  "priorities: plugin, describe or rows missing" },
	{ PH "],\"rated_at\":-1}", "priorities: rated_at" },
};

START_TEST(test_prio_bodies)
{
	const char *b = prio_bodies[_i].body;
	struct rota_error err = { "" };
	struct rota_msg_prio m;
	int rc = rota_msg_prio_decode(b, strlen(b), &m, &err);

	if (!prio_bodies[_i].want) {
		ck_assert_msg(rc == 0, "%s: %s", b, err.text);
		rota_msg_prio_clear(&m);
		return;
	}
	ck_assert_int_eq(rc, -EPROTO);
	ck_assert_str_eq(err.text, prio_bodies[_i].want);
	ck_assert_ptr_null(m.rows);
	ck_assert_ptr_null(m.arena);
}
END_TEST

START_TEST(test_prio_reals)
{
	static const char b[] = PH PROW(
		"\"factors\":[[\"x\",0.1,-2.5e-3,1e+20,33333.333333333336]]")
		"]}";
	struct rota_error err = { "" };
	struct rota_msg_prio m;

	ck_assert_msg(rota_msg_prio_decode(b, strlen(b), &m, &err) == 0, "%s",
		      err.text);
	ck_assert(m.rows[0].priority == 1.5);
	ck_assert(m.rows[0].factors[0].raw == 0.1);
	ck_assert(m.rows[0].factors[0].norm == -2.5e-3);
	ck_assert(m.rows[0].factors[0].weight == 1e20);
	ck_assert(m.rows[0].factors[0].value == 100000.0 / 3);
	rota_msg_prio_clear(&m);
}
END_TEST

START_TEST(test_share_levels)
{
	struct rota_share_row rows[] = {
		{ .account = "root",
		  .shares = 1,
		  .shares_norm = 1,
		  .shares_level = 1,
		  .usage_level = 1,
		  .level_fs = NAN },
		{ .account = "physics",
		  .user = "ana",
		  .depth = 1,
		  .shares = 3,
		  .shares_norm = 0.3,
		  .shares_level = 0.75,
		  .usage = 4,
		  .usage_norm = 0.4,
		  .usage_level = 1,
		  .level_fs = INFINITY },
	};
	struct rota_msg_share m = {
		.plugin = "fairtree",
		.convention = "native",
		.decay = "exponential",
		.half_life = 604800,
		.time = 1,
		.rows = rows,
		.n = N(rows),
	};
	struct rota_msg_share out;
	struct rota_error err;
	size_t len;
	char *text = rota_msg_share_encode(&m, &len);

	ck_assert_msg(rota_msg_share_decode(text, len, &out, &err) == 0, "%s",
		      err.text);
	ck_assert_uint_eq(out.n, 2);
	ck_assert(out.rows[1].shares_level == 0.75);
	ck_assert(out.rows[1].usage_level == 1);
	ck_assert(out.rows[1].shares_norm == 0.3);
	rota_msg_share_clear(&out);
	free(text);
}
END_TEST

START_TEST(test_share_levels_optional)
{
	static const char b[] =
		"{\"plugin\":\"classic\",\"convention\":\"native\","
		"\"decay\":\"exponential\",\"half_life\":60,\"time\":1,"
		"\"rows\":[{\"account\":\"root\",\"depth\":0,\"shares\":1,"
		"\"shares_norm\":1,\"usage\":0,\"usage_norm\":0,"
		"\"usage_eff\":1,\"value\":1,\"factor\":1,\"tickets\":0,"
		"\"pending\":0,\"running\":0}]}";
	struct rota_msg_share m;
	struct rota_error err;

	ck_assert_msg(rota_msg_share_decode(b, strlen(b), &m, &err) == 0, "%s",
		      err.text);
	ck_assert(isnan(m.rows[0].shares_level));
	ck_assert(isnan(m.rows[0].usage_level));
	rota_msg_share_clear(&m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("msg_views");
	TCase *tc = tcase_create("codec");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_prio_state_roundtrip, 0, 2);
	tcase_add_test(tc, test_prio_state_optional);
	tcase_add_test(tc, test_prio_state_unknown);
	tcase_add_loop_test(tc, test_prio_bodies, 0, N(prio_bodies));
	tcase_add_test(tc, test_prio_reals);
	tcase_add_test(tc, test_share_levels);
	tcase_add_test(tc, test_share_levels_optional);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
