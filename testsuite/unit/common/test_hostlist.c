// SPDX-License-Identifier: MIT
/* Hostlist expansion and compression, good and hostile input. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/xalloc.h"

static const struct {
	const char *expr;
	const char *names; /* space-separated expansion */
} good[] = {
	{ "n1", "n1" },
	{ "n[01-04,07],login1", "n01 n02 n03 n04 n07 login1" },
	{ "127.0.0.[2-5]", "127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5" },
	{ "r[1-2]n[01-02]", "r1n01 r1n02 r2n01 r2n02" },
	{ "n[8-11]", "n8 n9 n10 n11" },
	{ "n[08-11]", "n08 n09 n10 n11" },
	{ "n[098-100]", "n098 n099 n100" },
	{ "n[1-2,005]", "n1 n2 n005" },
	{ "[1-3]", "1 2 3" },
	{ "a[1-2]-ib", "a1-ib a2-ib" },
	{ "n[3],m[0]", "n3 m0" },
	{ "x[1-2][1-2]", "x11 x12 x21 x22" },
	{ "n1,n1", "n1 n1" },
	{ "fe80::[1-2]", "fe80::1 fe80::2" },
};

START_TEST(test_parse_good)
{
	struct rota_hostlist *hl = NULL;
	struct rota_error err = { "" };
	char *want = rota_xstrdup(good[_i].names);
	char *save = NULL;
	size_t n = 0;

	ck_assert_int_eq(rota_hostlist_parse(good[_i].expr, &hl, &err), 0);
	for (char *w = strtok_r(want, " ", &save); w;
	     w = strtok_r(NULL, " ", &save), n++)
		ck_assert_str_eq(rota_hostlist_nth(hl, n), w);
	ck_assert_uint_eq(rota_hostlist_count(hl), n);
	ck_assert_ptr_null(rota_hostlist_nth(hl, n));
	rota_hostlist_destroy(hl);
	free(want);
}
END_TEST

static const struct {
	const char *expr;
	const char *error;
} bad[] = {
	{ "", "empty name" },
	{ "a,,b", "empty name" },
	{ "a,", "empty name" },
	{ ",a", "empty name" },
	{ "n[1-3", "unbalanced '['" },
	{ "n[1-3]]", "unbalanced ']'" },
	{ "n1-3]", "unbalanced ']'" },
	{ "n[1[2]]", "nested '['" },
	{ "n[5-3]", "reversed range '5-3'" },
	{ "n[]", "empty range in brackets" },
	{ "n[1,]", "empty range in brackets" },
	{ "n[a-3]", "bad range 'a-3'" },
	{ "n[1-]", "bad range '1-'" },
	{ "n[-1]", "bad range '-1'" },
	{ "n[1-2-3]", "bad range '1-2-3'" },
	{ "n[1234567890]", "bad range '1234567890'" },
	{ "n 1", "bad character 0x20" },
	{ "n/1", "bad character '/'" },
	{ "n\t1", "bad character 0x09" },
	{ "n[1-65537]", "too many names (limit 65536)" },
	{ "n[1-65536],m", "too many names (limit 65536)" },
	{ "a[1-300]b[1-300]", "too many names (limit 65536)" },
	{ "n[0-999999999]", "too many names (limit 65536)" },
};

START_TEST(test_parse_bad)
{
	struct rota_hostlist *hl = (struct rota_hostlist *)&hl;
	struct rota_error err = { "" };

	ck_assert_int_eq(rota_hostlist_parse(bad[_i].expr, &hl, &err), -EINVAL);
	ck_assert_ptr_null(hl);
	ck_assert_str_eq(err.text, bad[_i].error);
}
END_TEST

START_TEST(test_parse_limits)
{
	struct rota_hostlist *hl = NULL;
	struct rota_error err = { "" };
	char name[1024];

	/* Exactly the maximum is fine. */
	ck_assert_int_eq(rota_hostlist_parse("n[1-65536]", &hl, &err), 0);
	ck_assert_uint_eq(rota_hostlist_count(hl), ROTA_HOSTLIST_MAX);
	ck_assert_str_eq(rota_hostlist_nth(hl, 65535), "n65536");
	rota_hostlist_destroy(hl);

	memset(name, 'a', 256);
	name[256] = '\0';
	ck_assert_int_eq(rota_hostlist_parse(name, &hl, &err), -EINVAL);
	ck_assert_str_eq(err.text, "name too long (limit 255)");

	/* Many single-digit groups: refused by length, not by recursion. */
	name[0] = '\0';
	for (int i = 0; i < 300; i++)
		strcat(name, "[1]");
	ck_assert_int_eq(rota_hostlist_parse(name, &hl, &err), -EINVAL);
	ck_assert_str_eq(err.text, "name too long (limit 255)");
}
END_TEST

static const struct {
	const char *names; /* space-separated */
	const char *expr;
} fmt[] = {
	{ "", "" },
	{ "n1", "n1" },
	{ "n01 n02 n03 n05 m1", "n[01-03,05],m1" },
	{ "n8 n9 n10", "n[8-10]" },
	{ "n10 n8", "n10,n8" },
	{ "n08 n09 n10", "n[08-10]" },
	{ "n1 n01", "n1,n01" },
	{ "a1-ib a2-ib b1-ib", "a[1-2]-ib,b1-ib" },
	{ "login frontend", "login,frontend" },
	{ "n3 n1 n2", "n[3,1-2]" },
	{ "127.0.0.2 127.0.0.3", "127.0.0.[2-3]" },
	{ "r1n01 r1n02 r2n01", "r1n[01-02],r2n01" },
	{ "n1234567890 n1234567891", "n1234567890,n1234567891" },
};

START_TEST(test_format)
{
	char *names = rota_xstrdup(fmt[_i].names);
	const char *v[16];
	char *save = NULL;
	size_t n = 0;
	char *out;

	for (char *w = strtok_r(names, " ", &save); w;
	     w = strtok_r(NULL, " ", &save))
		v[n++] = w;
	out = rota_hostlist_format(v, n);
	ck_assert_str_eq(out, fmt[_i].expr);
	free(out);
	free(names);
}
END_TEST

/* What format writes, parse reads back to the same names. */
START_TEST(test_roundtrip)
{
	struct rota_hostlist *hl = NULL;
	struct rota_hostlist *again = NULL;
	const char **v;
	size_t n;
	char *out;

	ck_assert_int_eq(rota_hostlist_parse(good[_i].expr, &hl, NULL), 0);
	n = rota_hostlist_count(hl);
	v = rota_xcalloc(n, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = rota_hostlist_nth(hl, i);
	out = rota_hostlist_format(v, n);
	ck_assert_int_eq(rota_hostlist_parse(out, &again, NULL), 0);
	ck_assert_uint_eq(rota_hostlist_count(again), n);
	for (size_t i = 0; i < n; i++)
		ck_assert_str_eq(rota_hostlist_nth(again, i), v[i]);
	rota_hostlist_destroy(again);
	rota_hostlist_destroy(hl);
	free(out);
	free(v);
}
END_TEST

static Suite *hostlist_suite(void)
{
	Suite *s = suite_create("hostlist");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_parse_good, 0,
			    sizeof(good) / sizeof(*good));
	tcase_add_loop_test(tc, test_parse_bad, 0, sizeof(bad) / sizeof(*bad));
	tcase_add_test(tc, test_parse_limits);
	tcase_add_loop_test(tc, test_format, 0, sizeof(fmt) / sizeof(*fmt));
	tcase_add_loop_test(tc, test_roundtrip, 0,
			    sizeof(good) / sizeof(*good));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(hostlist_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}
