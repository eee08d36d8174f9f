// SPDX-License-Identifier: MIT
/* Durations, sizes and booleans: every form, and what is refused and why. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>

#include "common/units.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const struct {
	const char *text;
	enum rota_duration_flags flags;
	int64_t seconds;
} dur_good[] = {
	{ "30", ROTA_DURATION_BARE_MINUTES, 1800 },
	{ "0", ROTA_DURATION_BARE_MINUTES, 0 },
	{ "5:30", ROTA_DURATION_BARE_MINUTES, 330 },
	{ "1:02:03", ROTA_DURATION_BARE_MINUTES, 3723 },
	{ "2-3", ROTA_DURATION_BARE_MINUTES, 2 * 86400 + 3 * 3600 },
	{ "2-3:04", ROTA_DURATION_BARE_MINUTES, 2 * 86400 + 3 * 3600 + 240 },
	{ "1-00:00:05", ROTA_DURATION_BARE_MINUTES, 86405 },
	{ "90s", ROTA_DURATION_NEED_UNIT, 90 },
	{ "15m", ROTA_DURATION_NEED_UNIT, 900 },
	{ "2h", ROTA_DURATION_NEED_UNIT, 7200 },
	{ "7d", ROTA_DURATION_NEED_UNIT, 7 * 86400 },
	{ "2H", ROTA_DURATION_BARE_MINUTES, 7200 },
	{ "1:30", ROTA_DURATION_NEED_UNIT, 90 },
	{ "UNLIMITED", ROTA_DURATION_NEED_UNIT, ROTA_DURATION_UNLIMITED },
	{ "infinite", ROTA_DURATION_BARE_MINUTES, ROTA_DURATION_UNLIMITED },
	{ "Unlimited", ROTA_DURATION_BARE_MINUTES, ROTA_DURATION_UNLIMITED },
	{ "36600d", ROTA_DURATION_NEED_UNIT, ROTA_DURATION_MAX },
};

START_TEST(test_duration_good)
{
	int64_t v = -1;
	struct rota_error err = { "" };

	ck_assert_int_eq(rota_duration_parse(dur_good[_i].text,
					     dur_good[_i].flags, &v, &err),
			 0);
	ck_assert_int_eq(v, dur_good[_i].seconds);
}
END_TEST

static const struct {
	const char *text;
	enum rota_duration_flags flags;
	const char *error;
} dur_bad[] = {
	{ "", ROTA_DURATION_BARE_MINUTES, "empty duration" },
	{ "30", ROTA_DURATION_NEED_UNIT,
	  "'30' has no unit (write 30s, 30m, 30h or 30d)" },
	{ "-3s", ROTA_DURATION_NEED_UNIT, "'-3s' is negative" },
	{ "-5", ROTA_DURATION_BARE_MINUTES, "'-5' is negative" },
	{ "5x", ROTA_DURATION_BARE_MINUTES, "'5x' is not a duration" },
	{ "s", ROTA_DURATION_BARE_MINUTES, "'s' is not a duration" },
	{ "1:2:3:4", ROTA_DURATION_BARE_MINUTES,
	  "'1:2:3:4' is not a duration" },
	{ "1:", ROTA_DURATION_BARE_MINUTES, "'1:' is not a duration" },
	{ ":1", ROTA_DURATION_BARE_MINUTES, "':1' is not a duration" },
	{ "1-", ROTA_DURATION_BARE_MINUTES, "'1-' is not a duration" },
	{ "1-2-3", ROTA_DURATION_BARE_MINUTES, "'1-2-3' is not a duration" },
	{ " 5", ROTA_DURATION_BARE_MINUTES, "' 5' is not a duration" },
	{ "1.5h", ROTA_DURATION_BARE_MINUTES, "'1.5h' is not a duration" },
	{ "0x10", ROTA_DURATION_BARE_MINUTES, "'0x10' is not a duration" },
	{ "36601d", ROTA_DURATION_NEED_UNIT, "'36601d' is too long" },
	{ "99999999999999999999s", ROTA_DURATION_NEED_UNIT,
	  "'99999999999999999999s' is not a duration" },
};

START_TEST(test_duration_bad)
{
	int64_t v = 42;
	struct rota_error err = { "" };

	ck_assert_int_eq(rota_duration_parse(dur_bad[_i].text,
					     dur_bad[_i].flags, &v, &err),
			 -EINVAL);
	ck_assert_str_eq(err.text, dur_bad[_i].error);
	ck_assert_int_eq(v, 42);
}
END_TEST

static const struct {
	int64_t seconds;
	const char *text;
} dur_fmt[] = {
	{ 0, "00:00:00" },
	{ 59, "00:00:59" },
	{ 3723, "01:02:03" },
	{ 86400, "1-00:00:00" },
	{ 90061, "1-01:01:01" },
	{ -5, "00:00:00" },
	{ ROTA_DURATION_UNLIMITED, "UNLIMITED" },
};

START_TEST(test_duration_format)
{
	char buf[32];
	int64_t back;

	rota_duration_format(dur_fmt[_i].seconds, buf, sizeof(buf));
	ck_assert_str_eq(buf, dur_fmt[_i].text);
	if (dur_fmt[_i].seconds < 0)
		return;
	ck_assert_int_eq(rota_duration_parse(buf, ROTA_DURATION_NEED_UNIT,
					     &back, NULL),
			 0);
	ck_assert_int_eq(back, dur_fmt[_i].seconds);
}
END_TEST

static const struct {
	const char *text;
	uint64_t mb;
} size_good[] = {
	{ "512", 512 },
	{ "0", 0 },
	{ "512M", 512 },
	{ "64G", 65536 },
	{ "64g", 65536 },
	{ "2T", 2 * 1024 * 1024 },
	{ "1.5T", 1536 * 1024 },
	{ "1.5G", 1536 },
	{ "1024K", 1 },
	{ "512K", 1 }, /* rounded up: not "unset" */
	{ "1K", 1 },
	{ "0K", 0 },
	{ "16777215T", UINT64_C(16777215) << 20 },
	/* decimals of large sizes (fuzz_units found these refused) */
	{ "1757812.5T", UINT64_C(3515625) << 19 },
	{ "16383.999T", UINT64_C(17179868136) }, /* rounded up */
};

START_TEST(test_size_good)
{
	uint64_t v = 42;
	struct rota_error err = { "" };

	ck_assert_int_eq(rota_size_parse_mb(size_good[_i].text, &v, &err), 0);
	ck_assert_uint_eq(v, size_good[_i].mb);
}
END_TEST

static const struct {
	const char *text;
	const char *error;
} size_bad[] = {
	{ "", "empty size" },
	{ "-5G", "'-5G' is negative" },
	{ "5X", "'5X' is not a size" },
	{ "5GB", "'5GB' is not a size" },
	{ "G", "'G' is not a size" },
	{ "1.5", "'1.5' is not a size" },
	{ "1.", "'1.' is not a size" },
	{ ".5G", "'.5G' is not a size" },
	{ "1.2345G", "'1.2345G' is not a size" },
	{ " 5", "' 5' is not a size" },
	{ "0x10", "'0x10' is not a size" },
	{ "16777216T", "'16777216T' is too large" },
	{ "99999999999999999999", "'99999999999999999999' is too large" },
};

START_TEST(test_size_bad)
{
	uint64_t v = 42;
	struct rota_error err = { "" };

	ck_assert_int_eq(rota_size_parse_mb(size_bad[_i].text, &v, &err),
			 -EINVAL);
	ck_assert_str_eq(err.text, size_bad[_i].error);
	ck_assert_uint_eq(v, 42);
}
END_TEST

START_TEST(test_size_bytes)
{
	uint64_t v = 0;

	ck_assert_int_eq(rota_size_parse_bytes("64K", &v, NULL), 0);
	ck_assert_uint_eq(v, 65536);
	ck_assert_int_eq(rota_size_parse_bytes("16", &v, NULL), 0);
	ck_assert_uint_eq(v, 16 << 20);
	ck_assert_int_eq(rota_size_parse_bytes("1.5K", &v, NULL), 0);
	ck_assert_uint_eq(v, 1536);
	ck_assert_int_eq(rota_size_parse_bytes("1.001K", &v, NULL), 0);
	ck_assert_uint_eq(v, 1025); /* 1025.024 rounded down */
}
END_TEST

static const struct {
	uint64_t mb;
	const char *text;
} size_fmt[] = {
	{ 0, "0M" },
	{ 512, "512M" },
	{ 1000, "1000M" },
	{ 1500, "1500M" },
	{ 1536, "1.5G" },
	{ 65536, "64G" },
	{ 1536 * 1024, "1.5T" },
	{ 1024 * 1024 + 1024, "1025G" },
	{ 262144, "256G" },
	{ UINT64_C(3515625) << 19, "1757812.5T" },
};

START_TEST(test_size_format)
{
	char buf[32];
	uint64_t back;

	rota_size_format_mb(size_fmt[_i].mb, buf, sizeof(buf));
	ck_assert_str_eq(buf, size_fmt[_i].text);
	ck_assert_int_eq(rota_size_parse_mb(buf, &back, NULL), 0);
	ck_assert_uint_eq(back, size_fmt[_i].mb);
}
END_TEST

static const struct {
	const char *text;
	int rc;
	bool value;
} bools[] = {
	{ "yes", 0, true },   { "YES", 0, true },    { "true", 0, true },
	{ "True", 0, true },  { "1", 0, true },      { "on", 0, true },
	{ "no", 0, false },   { "false", 0, false }, { "0", 0, false },
	{ "OFF", 0, false },  { "", -EINVAL, false }, { "y", -EINVAL, false },
	{ "2", -EINVAL, false }, { "yes ", -EINVAL, false },
};

START_TEST(test_bool)
{
	bool v = !bools[_i].value;

	ck_assert_int_eq(rota_bool_parse(bools[_i].text, &v), bools[_i].rc);
	if (bools[_i].rc == 0)
		ck_assert(v == bools[_i].value);
}
END_TEST

static Suite *units_suite(void)
{
	Suite *s = suite_create("units");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_duration_good, 0, N(dur_good));
	tcase_add_loop_test(tc, test_duration_bad, 0, N(dur_bad));
	tcase_add_loop_test(tc, test_duration_format, 0, N(dur_fmt));
	tcase_add_loop_test(tc, test_size_good, 0, N(size_good));
	tcase_add_loop_test(tc, test_size_bad, 0, N(size_bad));
	tcase_add_test(tc, test_size_bytes);
	tcase_add_loop_test(tc, test_size_format, 0, N(size_fmt));
	tcase_add_loop_test(tc, test_bool, 0, N(bools));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(units_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}
