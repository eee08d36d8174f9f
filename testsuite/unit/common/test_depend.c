// SPDX-License-Identifier: MIT
/* --dependency text: every form, its canonical text, every refusal. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/depend.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const struct {
	const char *text;
	const char *canon;	/* the formatted text; NULL: none */
	size_t n;
	bool any;
	enum rota_depend_type first;
	uint32_t first_id;
	uint32_t first_min;
} good[] = {
	{ "", NULL, 0, false, ROTA_DEPEND_NONE, 0, 0 },
	{ "afterok:12", "afterok:12", 1, false, ROTA_DEPEND_AFTEROK, 12, 0 },
	{ "afterok:12:13,afterany:14", "afterok:12,afterok:13,afterany:14", 3,
	  false, ROTA_DEPEND_AFTEROK, 12, 0 },
	{ "afterok:1?afternotok:2", "afterok:1?afternotok:2", 2, true,
	  ROTA_DEPEND_AFTEROK, 1, 0 },
	{ "after:7", "after:7", 1, false, ROTA_DEPEND_AFTER, 7, 0 },
	{ "after:7+10", "after:7+10", 1, false, ROTA_DEPEND_AFTER, 7, 10 },
	{ "after:7+10:8", "after:7+10,after:8", 2, false, ROTA_DEPEND_AFTER,
	  7, 10 },
	{ "afterany:3", "afterany:3", 1, false, ROTA_DEPEND_AFTERANY, 3, 0 },
	{ "afternotok:4", "afternotok:4", 1, false, ROTA_DEPEND_AFTERNOTOK, 4,
	  0 },
	{ "aftercorr:5", "aftercorr:5", 1, false, ROTA_DEPEND_AFTERCORR, 5,
	  0 },
	{ "singleton", "singleton", 1, false, ROTA_DEPEND_SINGLETON, 0, 0 },
	{ "singleton,afterok:2", "singleton,afterok:2", 2, false,
	  ROTA_DEPEND_SINGLETON, 0, 0 },
	{ "afterok:4294967294", "afterok:4294967294", 1, false,
	  ROTA_DEPEND_AFTEROK, 4294967294u, 0 },
};

START_TEST(test_good)
{
	struct rota_depend d;
	struct rota_error err = { "" };
	char *text;

	ck_assert_int_eq(rota_depend_parse(good[_i].text, &d, &err), 0);
	ck_assert_uint_eq(d.n, good[_i].n);
	ck_assert(d.any == good[_i].any);
	if (d.n) {
		ck_assert_int_eq(d.items[0].type, good[_i].first);
		ck_assert_uint_eq(d.items[0].job_id, good[_i].first_id);
		ck_assert_uint_eq(d.items[0].minutes, good[_i].first_min);
	}
	text = rota_depend_format(&d);
	if (good[_i].canon)
		ck_assert_str_eq(text, good[_i].canon);
	else
		ck_assert_ptr_null(text);
	free(text);
	rota_depend_clear(&d);
}
END_TEST

static const struct {
	const char *text;
	const char *error;
} bad[] = {
	{ "afterfoo:1", "dependency: unknown type 'afterfoo' (after, afterany, "
			"afterok, afternotok, aftercorr, singleton)" },
	{ "AFTEROK:1", "dependency: unknown type 'AFTEROK' (after, afterany, "
		       "afterok, afternotok, aftercorr, singleton)" },
	{ "afterok", "dependency: afterok needs a job id (afterok:ID)" },
	{ "afterok:", "dependency: bad job id '' in afterok" },
	{ "afterok:x", "dependency: bad job id 'x' in afterok" },
	{ "afterok:0", "dependency: bad job id '0' in afterok" },
	{ "afterok:-3", "dependency: bad job id '-3' in afterok" },
	{ "afterok:4294967295", "dependency: bad job id '4294967295' in "
				"afterok" },
	{ "afterok:1::2", "dependency: bad job id '' in afterok" },
	{ "afterok:12+5", "dependency: '+minutes' only with after, not "
			  "afterok ('12+5')" },
	{ "after:12+", "dependency: bad minutes in '12+' (0 to 527040)" },
	{ "after:12+x", "dependency: bad minutes in '12+x' (0 to 527040)" },
	{ "after:12+999999", "dependency: bad minutes in '12+999999' (0 to "
			     "527040)" },
	{ "singleton:3", "dependency: singleton takes no job id "
			 "('singleton:3')" },
	{ "afterok:1,", "dependency: an empty part" },
	{ ",afterok:1", "dependency: an empty part" },
	{ "afterok:1,,afterany:2", "dependency: an empty part" },
	{ "afterok:1,afterany:2?afterok:3",
	  "dependency 'afterok:1,afterany:2?afterok:3': ',' (all) and '?' "
	  "(any) cannot be mixed" },
};

START_TEST(test_bad)
{
	struct rota_depend d;
	struct rota_error err = { "" };

	ck_assert_int_eq(rota_depend_parse(bad[_i].text, &d, &err), -EINVAL);
	ck_assert_str_eq(err.text, bad[_i].error);
	ck_assert_uint_eq(d.n, 0);
	ck_assert_ptr_null(d.items);
}
END_TEST

/* More than ROTA_DEPEND_MAX ids is refused before anything grows past. */
START_TEST(test_too_many)
{
	struct rota_depend d;
	struct rota_error err = { "" };
	char *text = malloc(16 + 8 * (ROTA_DEPEND_MAX + 1));
	size_t len = 0;

	len += (size_t)sprintf(text, "afterok");
	for (int i = 1; i <= ROTA_DEPEND_MAX + 1; i++)
		len += (size_t)sprintf(text + len, ":%d", i);
	ck_assert_int_eq(rota_depend_parse(text, &d, &err), -EINVAL);
	ck_assert_str_eq(err.text, "dependency: more than 1024 jobs");
	free(text);
}
END_TEST

START_TEST(test_type_name)
{
	ck_assert_str_eq(rota_depend_type_name(ROTA_DEPEND_AFTERNOTOK),
			 "afternotok");
	ck_assert_str_eq(rota_depend_type_name((enum rota_depend_type)99),
			 "none");
}
END_TEST

static Suite *depend_suite(void)
{
	Suite *s = suite_create("depend");
	TCase *tc = tcase_create("parse");

	tcase_add_loop_test(tc, test_good, 0, N(good));
	tcase_add_loop_test(tc, test_bad, 0, N(bad));
	tcase_add_test(tc, test_too_many);
	tcase_add_test(tc, test_type_name);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(depend_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}
