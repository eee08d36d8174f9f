// SPDX-License-Identifier: MIT
/* Job array task sets (--array): parsing, the set, its shortest text. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/taskset.h"

static const struct {
	const char *expr;
	const char *text;	/* written back */
	uint32_t count;
	uint32_t throttle;
} good[] = {
	{ "0-999", "0-999", 1000, 0 },
	{ "1,3,5-9", "1,3,5-9", 7, 0 },
	{ "0-1000:10", "0-1000:10", 101, 0 },
	{ "0-1000:10%16", "0-1000:10", 101, 16 },
	{ "7", "7", 1, 0 },
	{ "5-6", "5-6", 2, 0 },
	{ "1,3", "1,3", 2, 0 },
	{ "1,3,5", "1-5:2", 3, 0 },
	{ "3,1,2,2", "1-3", 3, 0 },
	{ "0-9:4", "0-8:4", 3, 0 },
	{ "1-9:100", "1", 1, 0 },
	{ "10-20,0-5%1", "0-5,10-20", 17, 1 },
	{ "1,2,4,6,8,9", "1-2,4,6,8-9", 6, 0 },
	{ "0-20:5,21-30", "0-15:5,20-30", 15, 0 },
};

START_TEST(parse_good)
{
	struct rota_taskset ts;
	struct rota_error err = { "" };
	uint32_t throttle = 99;
	char *text;

	ck_assert_msg(rota_taskset_parse(good[_i].expr, 1001, &ts, &throttle,
					 &err) == 0,
		      "%s: %s", good[_i].expr, err.text);
	text = rota_taskset_text(&ts);
	ck_assert_str_eq(text, good[_i].text);
	ck_assert_uint_eq(ts.count, good[_i].count);
	ck_assert_uint_eq(throttle, good[_i].throttle);
	free(text);
	rota_taskset_fini(&ts);
}
END_TEST

static const struct {
	const char *expr;
	const char *why;
} bad[] = {
	{ "", "no task ids" },
	{ "a", "'a': a task id expected" },
	{ "1-", "'': a task id expected" },
	{ "-1", "'-1': a task id expected" },
	{ "5-1", "5-1: the range runs backwards" },
	{ "1-9:0", "a step of 0" },
	{ "1-9%0", "%0: a throttle of 0 runs no task" },
	{ "1001", "task id 1001: MaxArraySize is 1001 (ids 0 to 1000)" },
	{ "0-99999999999999999999", "task id 9999: MaxArraySize is 1001 (ids 0 to 1000)" },
	{ "1,,2", "',2': a task id expected" },
	{ "1 2", "' 2': not understood" },
	{ "1%2%3", "'%3': not understood" },
	{ "1:2", "':2': not understood" },
};

START_TEST(parse_bad)
{
	struct rota_taskset ts;
	struct rota_error err = { "" };
	uint32_t throttle;

	ck_assert_int_eq(rota_taskset_parse(bad[_i].expr, 1001, &ts,
					    &throttle, &err),
			 -EINVAL);
	ck_assert_str_eq(err.text, bad[_i].why);
	ck_assert_ptr_null(ts.bits);
}
END_TEST

START_TEST(no_throttle_here)
{
	struct rota_taskset ts;
	struct rota_error err = { "" };

	ck_assert_int_eq(rota_taskset_parse("1-5%2", 1001, &ts, NULL, &err),
			 -EINVAL);
	ck_assert_str_eq(err.text, "no throttle (%) here");
}
END_TEST

/* Taking ids out one by one, as a pass starts tasks, lowest first. */
START_TEST(take_in_order)
{
	struct rota_taskset ts;
	struct rota_error err;
	uint32_t want = 0, id;
	char *text;

	ck_assert_int_eq(rota_taskset_parse("0-99999", 100000, &ts, NULL,
					    &err), 0);
	while ((id = rota_taskset_first(&ts)) != UINT32_MAX) {
		ck_assert_uint_eq(id, want);
		want++;
		rota_taskset_remove(&ts, id);
		ck_assert(!rota_taskset_has(&ts, id));
	}
	ck_assert_uint_eq(want, 100000);
	ck_assert_uint_eq(ts.count, 0);
	text = rota_taskset_text(&ts);
	ck_assert_str_eq(text, "");
	free(text);
	ck_assert_uint_eq(rota_taskset_last(&ts), UINT32_MAX);
	rota_taskset_fini(&ts);
}
END_TEST

START_TEST(holes)
{
	struct rota_taskset ts;
	struct rota_error err;
	char *text;

	ck_assert_int_eq(rota_taskset_parse("3-70", 1001, &ts, NULL, &err), 0);
	rota_taskset_remove(&ts, 3);
	rota_taskset_remove(&ts, 64);
	rota_taskset_remove(&ts, 70);
	rota_taskset_remove(&ts, 500); /* not in it: nothing */
	ck_assert_uint_eq(ts.count, 65);
	ck_assert_uint_eq(rota_taskset_first(&ts), 4);
	ck_assert_uint_eq(rota_taskset_last(&ts), 69);
	ck_assert_uint_eq(rota_taskset_next(&ts, 63), 65);
	ck_assert_uint_eq(rota_taskset_next(&ts, 0), 4);
	ck_assert_uint_eq(rota_taskset_next(&ts, 69), UINT32_MAX);
	text = rota_taskset_text(&ts);
	ck_assert_str_eq(text, "4-63,65-69");
	free(text);
	rota_taskset_fini(&ts);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("taskset");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, parse_good, 0, sizeof(good) / sizeof(good[0]));
	tcase_add_loop_test(tc, parse_bad, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, no_throttle_here);
	tcase_add_test(tc, take_in_order);
	tcase_add_test(tc, holes);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
