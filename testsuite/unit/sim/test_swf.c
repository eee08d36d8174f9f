// SPDX-License-Identifier: MIT
/*
 * The SWF reader (sim/swf.h): job lines field by field, header keys,
 * comments and blank lines, -1 fields, fractional fields, malformed lines
 * (one error naming the line, or skipped and counted with lenient),
 * unsorted input, gzip through the same path as plain text.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "sim/swf.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define LINE(s) s, strlen(s)

START_TEST(test_job_line)
{
	struct swf_job j;
	struct rota_error err = { "" };
	const char *l = "  7 120 30 600 16 550.5 -1 16 900 -1 1 12 3 4 1 2 5 "
			"45\r";

	ck_assert_int_eq(swf_parse_line(LINE(l), &j, &err), 1);
	ck_assert_int_eq(j.id, 7);
	ck_assert_int_eq(j.submit, 120);
	ck_assert_int_eq(j.wait, 30);
	ck_assert_int_eq(j.run, 600);
	ck_assert_int_eq(j.alloc_procs, 16);
	ck_assert_int_eq(j.req_procs, 16);
	ck_assert_int_eq(j.req_time, 900);
	ck_assert_int_eq(j.status, 1);
	ck_assert_int_eq(j.user, 12);
	ck_assert_int_eq(j.group, 3);
	ck_assert_int_eq(j.queue, 1);
	ck_assert_int_eq(j.partition, 2);
	ck_assert_int_eq(j.prec, 5);
	ck_assert_int_eq(j.think, 45);
}
END_TEST

START_TEST(test_unknown_fields)
{
	struct swf_job j;
	struct rota_error err = { "" };
	const char *l = "1 0 -1 -1 -1 -1 -1 -1 -1 -1 5 -1 -1 -1 -1 -1 -1 -1";

	ck_assert_int_eq(swf_parse_line(LINE(l), &j, &err), 1);
	ck_assert_int_eq(j.run, -1);
	ck_assert_int_eq(j.req_procs, -1);
	ck_assert_int_eq(j.user, -1);
	ck_assert_int_eq(j.status, 5);
	ck_assert_int_eq(j.prec, -1);
	ck_assert_int_eq(j.think, -1);
}
END_TEST

START_TEST(test_comment_and_blank)
{
	struct swf_job j = { .id = 42 };
	struct rota_error err = { "" };

	ck_assert_int_eq(swf_parse_line(LINE("; MaxProcs: 4"), &j, &err), 0);
	ck_assert_int_eq(swf_parse_line(LINE("   \t "), &j, &err), 0);
	ck_assert_int_eq(swf_parse_line("", 0, &j, &err), 0);
	ck_assert_int_eq(j.id, 42); /* untouched */
}
END_TEST

static const struct {
	const char *line;
	const char *error;
} bad[] = {
	{ "1 2 3", "3 fields, not 18" },
	{ "1 0 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1", "more than 18 fields" },
	{ "1 0 0 x1 1 1 1 1 1 1 1 1 1 1 1 1 1 1",
	  "field 4: 'x1' is not a number" },
	{ "1 0 0 1 1 1 1 -5 1 1 1 1 1 1 1 1 1 1", "field 8: -5 is below -1" },
	{ "1 0 0 1. 1 1 1 1 1 1 1 1 1 1 1 1 1 1",
	  "field 4: '1.' is not a number" },
	{ "1 0 0 - 1 1 1 1 1 1 1 1 1 1 1 1 1 1",
	  "field 4: '-' is not a number" },
	{ "1 0 0 1234567890123456789 1 1 1 1 1 1 1 1 1 1 1 1 1 1",
	  "field 4: '1234567890123456789' is not a number" },
	{ "1 0 0 1e3 1 1 1 1 1 1 1 1 1 1 1 1 1 1",
	  "field 4: '1e3' is not a number" },
};

START_TEST(test_malformed)
{
	struct swf_job j = { .id = 42 };
	struct rota_error err = { "" };

	ck_assert_int_eq(swf_parse_line(LINE(bad[_i].line), &j, &err),
			 -EPROTO);
	ck_assert_str_eq(err.text, bad[_i].error);
	ck_assert_int_eq(j.id, 42);
}
END_TEST

static const char trace[] =
	"; Version: 2.2\n"
	"; MaxNodes: 2\n"
	";   MaxProcs:   4\n"
	"; UnixStartTime: 1000\n"
	"\n"
	"1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"2 5 0 10 2 -1 -1 2 20 -1 1 2 1 -1 -1 -1 -1 -1\n"
	"; a comment among jobs\n"
	"3 9 0 10 2 -1 -1 2 20 -1 1 2 1 -1 -1 -1 -1 -1"; /* no newline */

START_TEST(test_trace)
{
	struct swf_trace t;
	struct rota_error err = { "" };

	ck_assert_int_eq(swf_read_buffer("t.swf", trace, strlen(trace), false,
					 &t, &err),
			 0);
	ck_assert_uint_eq(t.n, 3);
	ck_assert_int_eq(t.max_nodes, 2);
	ck_assert_int_eq(t.max_procs, 4);
	ck_assert_int_eq(t.unix_start, 1000);
	ck_assert_int_eq(t.jobs[2].id, 3);
	ck_assert_int_eq(t.jobs[2].submit, 9);
	ck_assert_uint_eq(t.malformed, 0);
	swf_trace_fini(&t);
}
END_TEST

static const char broken[] =
	"; MaxProcs: 4\n"
	"1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"2 5 0 ten 2 -1 -1 2 20 -1 1 2 1 -1 -1 -1 -1 -1\n"
	"3 9 0 10 2 -1 -1 2 20 -1 1 2 1 -1 -1 -1 -1\n"
	"4 9 0 10 2 -1 -1 2 20 -1 1 2 1 -1 -1 -1 -1 -1\n";

START_TEST(test_strict_error_names_line)
{
	struct swf_trace t;
	struct rota_error err = { "" };

	ck_assert_int_eq(swf_read_buffer("b.swf", broken, strlen(broken),
					 false, &t, &err),
			 -EPROTO);
	ck_assert_str_eq(err.text, "b.swf:3: field 4: 'ten' is not a number");
	ck_assert_ptr_null(t.jobs);
	ck_assert_uint_eq(t.n, 0);
}
END_TEST

START_TEST(test_lenient_counts)
{
	struct swf_trace t;
	struct rota_error err = { "" };

	ck_assert_int_eq(swf_read_buffer("b.swf", broken, strlen(broken), true,
					 &t, &err),
			 0);
	ck_assert_uint_eq(t.n, 2);
	ck_assert_uint_eq(t.malformed, 2);
	ck_assert_uint_eq(t.first_bad_line, 3);
	ck_assert_str_eq(t.first_bad, "field 4: 'ten' is not a number");
	ck_assert_int_eq(t.jobs[1].id, 4);
	swf_trace_fini(&t);
}
END_TEST

START_TEST(test_nul_byte)
{
	static const char text[] =
		"1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"2 0 0 1\0 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n";
	struct swf_trace t;
	struct rota_error err = { "" };

	ck_assert_int_eq(swf_read_buffer("n.swf", text, sizeof(text) - 1,
					 false, &t, &err),
			 -EPROTO);
	ck_assert_str_eq(err.text, "n.swf:2: NUL byte");
}
END_TEST

START_TEST(test_unsorted_sorted)
{
	static const char text[] =
		"2 50 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"1 10 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"3 10 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n";
	struct swf_trace t;
	struct rota_error err = { "" };

	ck_assert_int_eq(swf_read_buffer("u.swf", text, strlen(text), false,
					 &t, &err),
			 0);
	ck_assert_int_eq(t.jobs[0].id, 1);
	ck_assert_int_eq(t.jobs[1].id, 3);
	ck_assert_int_eq(t.jobs[2].id, 2);
	swf_trace_fini(&t);
}
END_TEST

/* The same trace as a gzip file and as a plain file, and a long line. */
START_TEST(test_files)
{
	char gz[] = "/tmp/test_swf_XXXXXX";
	char plain[] = "/tmp/test_swf_XXXXXX";
	int fd1 = mkstemp(gz);
	int fd2 = mkstemp(plain);
	gzFile g = gzdopen(fd1, "wb");
	FILE *f = fdopen(fd2, "w");
	struct swf_trace t;
	struct rota_error err = { "" };
	char *longline = malloc(200000);

	ck_assert_int_eq(gzputs(g, trace), (int)strlen(trace));
	gzclose(g);
	memset(longline, '7', 199999);
	longline[199999] = '\0';
	fprintf(f, "%s\n%s\n", trace, longline);
	fclose(f);
	ck_assert_int_eq(swf_read(gz, false, &t, &err), 0);
	ck_assert_uint_eq(t.n, 3);
	ck_assert_int_eq(t.max_procs, 4);
	swf_trace_fini(&t);
	ck_assert_int_eq(swf_read(plain, false, &t, &err), -EPROTO);
	ck_assert_str_eq(strchr(err.text, ':'), ":10: longer than 1024 bytes");
	ck_assert_int_eq(swf_read(plain, true, &t, &err), 0);
	ck_assert_uint_eq(t.n, 3);
	ck_assert_uint_eq(t.malformed, 1);
	swf_trace_fini(&t);
	unlink(gz);
	unlink(plain);
	free(longline);
	ck_assert_int_eq(swf_read("/nonexistent/x.swf", false, &t, &err),
			 -ENOENT);
	ck_assert_str_eq(err.text,
			 "/nonexistent/x.swf: No such file or directory");
}
END_TEST

static Suite *swf_suite(void)
{
	Suite *s = suite_create("swf");
	TCase *tc = tcase_create("swf");

	tcase_add_test(tc, test_job_line);
	tcase_add_test(tc, test_unknown_fields);
	tcase_add_test(tc, test_comment_and_blank);
	tcase_add_loop_test(tc, test_malformed, 0, N(bad));
	tcase_add_test(tc, test_trace);
	tcase_add_test(tc, test_strict_error_names_line);
	tcase_add_test(tc, test_lenient_counts);
	tcase_add_test(tc, test_nul_byte);
	tcase_add_test(tc, test_unsorted_sorted);
	tcase_add_test(tc, test_files);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(swf_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
