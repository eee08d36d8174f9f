// SPDX-License-Identifier: MIT
/*
 * Job completion records: what the plugins write (jobcomp_json.c) is what
 * rota history reads (common/jobrec.c), field for field; hostile lines are
 * refused; rota history's filters and times; the http plugin's spool keeps
 * order, survives a reopen and a torn line, and shrinks once delivered.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/jobrec.h"
#include "plugins/jobcomp/jobcomp_json.h"
#include "plugins/jobcomp/spool.h"

static const struct rota_jobcomp_record sample = {
	.id = 4242,
	.cluster = "local",
	.name = "a \"quoted\"\nname",
	.user = "ana",
	.uid = 1001,
	.gid = 100,
	.account = "chem",
	.queue = "batch",
	.nodes = "n[01-02]",
	.cores = 8,
	.memory_mb = 2048,
	.time_limit = 3600,
	.submit = 1700000000,
	.eligible = 1700000000,
	.start = 1700000010,
	.end = 1700000110,
	.exit_code = 3,
	.signal = 0,
	.state = "FAILED",
	.priority = 0,
	.usage = 800,
	.runs = 2,
	.cpu_usec = 12345678,
	.mem_peak = 87556096,
	.tres = "cpu=8,mem=4G,node=2,gres/gpu=3,gres/gpu:v100=3",
	.gpus = 3,
	.gpu_idx = "n01:0,1 n02:3",
};

START_TEST(roundtrip)
{
	char *json = jobcomp_json_encode(&sample);
	struct rota_jobrec r;
	struct rota_error err = { "" };

	ck_assert_ptr_nonnull(json);
	ck_assert_ptr_null(strchr(json, '\n')); /* one line, always */
	ck_assert_msg(rota_jobrec_decode(json, strlen(json), &r, &err) == 0,
		      "%s", err.text);
	ck_assert_uint_eq(r.id, 4242);
	ck_assert_str_eq(r.cluster, "local");
	ck_assert_str_eq(r.name, sample.name);
	ck_assert_str_eq(r.user, "ana");
	ck_assert_uint_eq(r.uid, 1001);
	ck_assert_uint_eq(r.gid, 100);
	ck_assert_str_eq(r.account, "chem");
	ck_assert_str_eq(r.queue, "batch");
	ck_assert_str_eq(r.nodes, "n[01-02]");
	ck_assert_uint_eq(r.cores, 8);
	ck_assert_uint_eq(r.memory_mb, 2048);
	ck_assert_int_eq(r.time_limit, 3600);
	ck_assert_int_eq(r.submit, 1700000000);
	ck_assert_int_eq(r.eligible, 1700000000);
	ck_assert_int_eq(r.start, 1700000010);
	ck_assert_int_eq(r.end, 1700000110);
	ck_assert_int_eq(r.exit_code, 3);
	ck_assert_int_eq(r.signal, 0);
	ck_assert_str_eq(r.state, "FAILED");
	ck_assert_double_eq(r.usage, 800);
	ck_assert_uint_eq(r.runs, 2);
	ck_assert_uint_eq(r.cpu_usec, 12345678);
	ck_assert_uint_eq(r.mem_peak, 87556096);
	ck_assert_str_eq(r.tres, sample.tres);
	ck_assert_uint_eq(r.gpus, 3);
	ck_assert_str_eq(r.gpu_idx, "n01:0,1 n02:3");
	ck_assert_ptr_nonnull(strstr(json, "\"@timestamp\":\"2023-11-14T22:15:10Z\""));
	rota_jobrec_clear(&r);
	free(json);
}
END_TEST

static const char *const bad_lines[] = {
	"",
	"not json",
	"[1,2]",
	"{\"id\":1}",
	/* id 0 */
	"{\"id\":0,\"cluster\":\"c\",\"name\":\"n\",\"user\":\"u\",\"uid\":1,"
	"\"gid\":1,\"account\":\"a\",\"queue\":\"q\",\"nodes\":\"\",\"cores\":1,"
	"\"memory_mb\":0,\"time_limit\":1,\"submit\":1,\"eligible\":1,"
	"\"start\":0,\"end\":2,\"exit_code\":0,\"signal\":0,\"state\":\"X\","
	"\"priority\":0,\"usage\":0}",
	/* a negative uid */
	"{\"id\":1,\"cluster\":\"c\",\"name\":\"n\",\"user\":\"u\",\"uid\":-1,"
	"\"gid\":1,\"account\":\"a\",\"queue\":\"q\",\"nodes\":\"\",\"cores\":1,"
	"\"memory_mb\":0,\"time_limit\":1,\"submit\":1,\"eligible\":1,"
	"\"start\":0,\"end\":2,\"exit_code\":0,\"signal\":0,\"state\":\"X\","
	"\"priority\":0,\"usage\":0}",
	/* a string where a number goes */
	"{\"id\":\"1\",\"cluster\":\"c\",\"name\":\"n\",\"user\":\"u\",\"uid\":1,"
	"\"gid\":1,\"account\":\"a\",\"queue\":\"q\",\"nodes\":\"\",\"cores\":1,"
	"\"memory_mb\":0,\"time_limit\":1,\"submit\":1,\"eligible\":1,"
	"\"start\":0,\"end\":2,\"exit_code\":0,\"signal\":0,\"state\":\"X\","
	"\"priority\":0,\"usage\":0}",
	/* a negative GPU count */
	"{\"id\":1,\"cluster\":\"c\",\"name\":\"n\",\"user\":\"u\",\"uid\":1,"
	"\"gid\":1,\"account\":\"a\",\"queue\":\"q\",\"nodes\":\"\",\"cores\":1,"
	"\"memory_mb\":0,\"time_limit\":1,\"submit\":1,\"eligible\":1,"
	"\"start\":0,\"end\":2,\"exit_code\":0,\"signal\":0,\"state\":\"X\","
	"\"priority\":0,\"usage\":0,\"gpus\":-1}",
	/* a duplicate key */
	"{\"id\":1,\"id\":2}",
	/* torn */
	"{\"id\":1,\"cluster\":\"c\",\"name\":\"n\",\"us",
};

START_TEST(bad_line)
{
	const char *line = bad_lines[_i];
	struct rota_jobrec r;
	struct rota_error err = { "" };

	ck_assert_int_eq(rota_jobrec_decode(line, strlen(line), &r, &err),
			 -EPROTO);
	ck_assert_ptr_null(r.user);
	ck_assert_uint_eq(r.id, 0);
	ck_assert_str_ne(err.text, "");
}
END_TEST

START_TEST(unknown_keys_ignored)
{
	const char *line =
		"{\"id\":7,\"cluster\":\"c\",\"name\":\"n\",\"user\":\"u\","
		"\"uid\":1,\"gid\":1,\"account\":\"a\",\"queue\":\"q\","
		"\"nodes\":\"\",\"cores\":1,\"memory_mb\":0,\"time_limit\":1,"
		"\"submit\":1,\"eligible\":1,\"start\":0,\"end\":2,"
		"\"exit_code\":0,\"signal\":0,\"state\":\"CANCELLED\","
		"\"priority\":0,\"usage\":0,\"from_the_future\":[1]}";
	struct rota_jobrec r;
	struct rota_error err;

	ck_assert_int_eq(rota_jobrec_decode(line, strlen(line), &r, &err), 0);
	ck_assert_uint_eq(r.id, 7);
	ck_assert_uint_eq(r.runs, 0);
	rota_jobrec_clear(&r);
}
END_TEST

/* ana's job ran 100..200 in chem, FAILED. */
static const struct {
	struct rota_jobrec_filter f;
	bool match;
} filters[] = {
	{ { NULL, NULL, NULL, INT64_MIN, INT64_MAX, 0 }, true },
	{ { "ana", NULL, NULL, INT64_MIN, INT64_MAX, 0 }, true },
	{ { "bob,ana", NULL, NULL, INT64_MIN, INT64_MAX, 0 }, true },
	{ { "bob", NULL, NULL, INT64_MIN, INT64_MAX, 0 }, false },
	{ { "an", NULL, NULL, INT64_MIN, INT64_MAX, 0 }, false },
	{ { "ana,", NULL, NULL, INT64_MIN, INT64_MAX, 0 }, true },
	{ { NULL, "chem", NULL, INT64_MIN, INT64_MAX, 0 }, true },
	{ { NULL, "physics", NULL, INT64_MIN, INT64_MAX, 0 }, false },
	{ { NULL, NULL, "failed", INT64_MIN, INT64_MAX, 0 }, true },
	{ { NULL, NULL, "COMPLETED,TIMEOUT", INT64_MIN, INT64_MAX, 0 }, false },
	{ { NULL, NULL, NULL, 200, INT64_MAX, 0 }, true },	 /* ended at 200 */
	{ { NULL, NULL, NULL, 201, INT64_MAX, 0 }, false }, /* ended before */
	{ { NULL, NULL, NULL, INT64_MIN, 100, 0 }, true },	 /* started at 100 */
	{ { NULL, NULL, NULL, INT64_MIN, 99, 0 }, false },	 /* not yet started */
	{ { NULL, NULL, NULL, 150, 160, 0 }, true },	 /* running inside */
	{ { "ana", "chem", "FAILED", 0, 1000, 0 }, true },
	{ { "ana", "bio", "FAILED", 0, 1000, 0 }, false },
	{ { NULL, NULL, NULL, INT64_MIN, INT64_MAX, 1 }, true }, /* -j 1 */
	{ { NULL, NULL, NULL, INT64_MIN, INT64_MAX, 2 }, false },
};

START_TEST(filter)
{
	struct rota_jobrec r = {
		.id = 1, .user = "ana", .account = "chem", .state = "FAILED",
		.submit = 50, .start = 100, .end = 200,
	};

	ck_assert_int_eq(rota_jobrec_match(&r, &filters[_i].f),
			 filters[_i].match);
}
END_TEST

START_TEST(filter_never_ran)
{
	/* cancelled while pending: it "was" there from submit to end */
	struct rota_jobrec r = { .id = 1, .user = "u", .account = "a",
				 .state = "CANCELLED", .submit = 50,
				 .start = 0, .end = 60 };
	struct rota_jobrec_filter f = { .since = INT64_MIN, .until = 55 };

	ck_assert(rota_jobrec_match(&r, &f));
	f.until = 49;
	ck_assert(!rota_jobrec_match(&r, &f));
}
END_TEST

START_TEST(times)
{
	struct tm tm = { .tm_year = 124, .tm_mon = 4, .tm_mday = 1,
			 .tm_hour = 13, .tm_min = 30, .tm_isdst = -1 };
	struct rota_error err = { "" };
	int64_t t;

	ck_assert_int_eq(rota_jobrec_time_parse("now", 1000, &t, &err), 0);
	ck_assert_int_eq(t, 1000);
	ck_assert_int_eq(rota_jobrec_time_parse("now-2h", 10000, &t, &err), 0);
	ck_assert_int_eq(t, 10000 - 7200);
	ck_assert_int_eq(rota_jobrec_time_parse("now+2h", 10000, &t, &err), 0);
	ck_assert_int_eq(t, 10000 + 7200);
	ck_assert_int_eq(rota_jobrec_time_parse("@123", 0, &t, &err), 0);
	ck_assert_int_eq(t, 123);
	ck_assert_int_eq(rota_jobrec_time_parse("2024-05-01T13:30", 0, &t,
						&err), 0);
	ck_assert_int_eq(t, (int64_t)mktime(&tm));
	tm = (struct tm){ .tm_year = 124, .tm_mon = 4, .tm_mday = 1,
			  .tm_isdst = -1 };
	ck_assert_int_eq(rota_jobrec_time_parse("2024-05-01", 0, &t, &err), 0);
	ck_assert_int_eq(t, (int64_t)mktime(&tm));
	ck_assert_int_eq(rota_jobrec_time_parse("yesterday", 0, &t, &err),
			 -EINVAL);
	ck_assert_str_eq(err.text, "'yesterday': not a time "
				   "(YYYY-MM-DD[THH:MM[:SS]], now, now-2h, "
				   "now+2h, @UNIXSECONDS)");
	ck_assert_int_eq(rota_jobrec_time_parse("now-2", 0, &t, &err),
			 -EINVAL);
	ck_assert_int_eq(rota_jobrec_time_parse("@12x", 0, &t, &err),
			 -EINVAL);
	ck_assert_int_eq(rota_jobrec_time_parse("2024-05-01T", 0, &t, &err),
			 -EINVAL);
}
END_TEST

/* ---- the spool ------------------------------------------------------------ */

static char dir[64];
static char path[128];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/rota-spool.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/spool", dir);
}

static void teardown(void)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static struct spool *open_ok(void)
{
	struct spool *s;
	char err[160] = "";

	ck_assert_msg(spool_open(path, &s, err, sizeof(err)) == 0, "%s", err);
	return s;
}

static void expect_head(struct spool *s, uint32_t id, const char *doc)
{
	uint32_t got = 0;
	const char *d = spool_head(s, &got);

	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(got, id);
	ck_assert_str_eq(d, doc);
}

static off_t file_size(void)
{
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	return st.st_size;
}

START_TEST(spool_order_and_reopen)
{
	struct spool *s = open_ok();
	uint32_t id;

	ck_assert_ptr_null(spool_head(s, &id));
	ck_assert_int_eq(spool_push(s, 3, "{\"id\":3}"), 0);
	ck_assert_int_eq(spool_push(s, 1, "{\"id\":1}"), 0);
	ck_assert_int_eq(spool_push(s, 2, "{\"id\":2}"), 0);
	ck_assert_int_eq(spool_sync(s), 0);
	ck_assert_uint_eq(file_size(), 3 * strlen("3 {\"id\":3}\n"));
	spool_close(s);
	/* a crash: all three again, in the order they were pushed */
	s = open_ok();
	ck_assert_uint_eq(spool_count(s), 3);
	expect_head(s, 3, "{\"id\":3}");
	ck_assert_int_eq(spool_pop(s), 0);
	expect_head(s, 1, "{\"id\":1}");
	spool_close(s);
	/* delivered but not all: at least once, so 3 comes again */
	s = open_ok();
	ck_assert_uint_eq(spool_count(s), 3);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(spool_pop(s), 0);
	ck_assert_ptr_null(spool_head(s, &id));
	ck_assert_uint_eq(file_size(), 0); /* all delivered: emptied */
	ck_assert_int_eq(spool_push(s, 9, "{}"), 0);
	spool_close(s);
	s = open_ok();
	ck_assert_uint_eq(spool_count(s), 1);
	expect_head(s, 9, "{}");
	spool_close(s);
}
END_TEST

START_TEST(spool_torn_line)
{
	int fd = open(path, O_WRONLY | O_CREAT, 0600);
	const char text[] = "5 {\"a\":1}\nnonsense line\n6 {\"b\":2}\n7 {\"c\"";
	struct spool *s;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, sizeof(text) - 1),
			 (ssize_t)sizeof(text) - 1);
	close(fd);
	s = open_ok();
	ck_assert_uint_eq(spool_count(s), 2);
	expect_head(s, 5, "{\"a\":1}");
	spool_pop(s);
	expect_head(s, 6, "{\"b\":2}");
	/* the torn record is cut off, so the next push starts a clean line */
	ck_assert_int_eq(spool_push(s, 8, "{}"), 0);
	spool_close(s);
	s = open_ok();
	ck_assert_uint_eq(spool_count(s), 3);
	spool_pop(s);
	spool_pop(s);
	expect_head(s, 8, "{}");
	spool_close(s);
}
END_TEST

START_TEST(spool_rewrite)
{
	struct spool *s = open_ok();
	char *doc = malloc(4096);
	off_t before;

	memset(doc, 'x', 4095);
	doc[4095] = '\0';
	for (uint32_t i = 1; i <= 600; i++)
		ck_assert_int_eq(spool_push(s, i, doc), 0);
	before = file_size();
	for (int i = 0; i < 500; i++)
		ck_assert_int_eq(spool_pop(s), 0);
	/* once delivered lines were most of it, it was rewritten (at 300) */
	ck_assert_int_le(file_size(), before / 2);
	spool_close(s);
	s = open_ok();
	ck_assert_uint_le(spool_count(s), 300);
	while (spool_count(s) > 100)
		spool_pop(s);
	expect_head(s, 501, doc);
	spool_close(s);
	free(doc);
}
END_TEST

START_TEST(spool_cannot_open)
{
	struct spool *s;
	char err[160];

	ck_assert_int_eq(spool_open("/nonexistent/dir/spool", &s, err,
				    sizeof(err)),
			 -ENOENT);
	ck_assert_ptr_null(s);
	ck_assert_str_eq(err, "'/nonexistent/dir/spool': No such file or "
			      "directory");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jobcomp");
	TCase *tc = tcase_create("records");
	TCase *sp = tcase_create("spool");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, roundtrip);
	tcase_add_loop_test(tc, bad_line, 0,
			    sizeof(bad_lines) / sizeof(bad_lines[0]));
	tcase_add_test(tc, unknown_keys_ignored);
	tcase_add_loop_test(tc, filter, 0,
			    sizeof(filters) / sizeof(filters[0]));
	tcase_add_test(tc, filter_never_ran);
	tcase_add_test(tc, times);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(sp, setup, teardown);
	tcase_add_test(sp, spool_order_and_reopen);
	tcase_add_test(sp, spool_torn_line);
	tcase_add_test(sp, spool_rewrite);
	tcase_add_test(sp, spool_cannot_open);
	suite_add_tcase(s, sp);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
