// SPDX-License-Identifier: MIT
/*
 * The journal and snapshot files: replay order, a torn last record cut off,
 * damage elsewhere refused with file and offset, compaction.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctld/journal.h"

static char dir[64];
static char seen[16][64];
static int nseen;

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/rota-journal.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	nseen = 0;
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static int record_cb(const char *rec, size_t len, void *arg,
		     struct rota_error *err)
{
	ck_assert_int_lt(nseen, 16);
	ck_assert_uint_lt(len, sizeof(seen[0]));
	memcpy(seen[nseen], rec, len);
	seen[nseen++][len] = '\0';
	return 0;
}

static struct journal *open_ok(void)
{
	struct journal *j;
	struct rota_error err = { "" };

	nseen = 0;
	ck_assert_msg(journal_open(dir, record_cb, NULL, &j, &err) == 0, "%s",
		      err.text);
	return j;
}

static void write_three(void)
{
	struct journal *j = open_ok();
	struct rota_error err;

	ck_assert_int_eq(journal_append(j, "one", 3), 0);
	ck_assert_int_eq(journal_append(j, "two", 3), 0);
	ck_assert_int_eq(journal_sync(j, &err), 0);
	ck_assert_int_eq(journal_append(j, "three", 5), 0);
	ck_assert_int_eq(journal_sync(j, &err), 0);
	ck_assert_uint_eq(journal_size(j), 3 * 8 + 11);
	journal_close(j);
}

static char *path(const char *name)
{
	static char p[128];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

START_TEST(test_replay_in_order)
{
	struct journal *j;

	write_three();
	j = open_ok();
	ck_assert_int_eq(nseen, 3);
	ck_assert_str_eq(seen[0], "one");
	ck_assert_str_eq(seen[1], "two");
	ck_assert_str_eq(seen[2], "three");
	journal_close(j);
}
END_TEST

START_TEST(test_torn_tail_is_cut)
{
	struct journal *j;
	struct stat st;
	int fd;

	write_three();
	/* a crash while writing a fourth record: its header and half of it */
	fd = open(path("journal"), O_WRONLY | O_APPEND);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "\x0a\0\0\0\x01\x02\x03\x04half", 12), 12);
	close(fd);
	j = open_ok();
	ck_assert_int_eq(nseen, 3);
	journal_close(j);
	ck_assert_int_eq(stat(path("journal"), &st), 0);
	ck_assert_int_eq(st.st_size, 3 * 8 + 11);
}
END_TEST

START_TEST(test_damage_in_the_middle_refused)
{
	struct rota_error err = { "" };
	struct journal *j;
	char want[300];
	int fd;

	write_three();
	/* one bit of "two" flips: records follow, so it is not a torn tail */
	fd = open(path("journal"), O_WRONLY);
	ck_assert_int_eq(pwrite(fd, "T", 1, 8 + 3 + 8), 1);
	close(fd);
	ck_assert_int_eq(journal_open(dir, record_cb, NULL, &j, &err),
			 -EILSEQ);
	ck_assert_ptr_null(j);
	snprintf(want, sizeof(want),
		 "%s: damaged record at offset 11 of 35 (a CRC mismatch); "
		 "refusing to start: run 'rota-ctld --salvage'",
		 path("journal"));
	ck_assert_str_eq(err.text, want);
}
END_TEST

static int emit_two(struct journal_snapshot *s, void *arg)
{
	int rc = journal_snapshot_add(s, "alpha", 5);

	return rc ? rc : journal_snapshot_add(s, "beta", 4);
}

START_TEST(test_compact)
{
	struct rota_error err;
	struct journal *j;

	write_three();
	j = open_ok();
	ck_assert_int_eq(journal_compact(j, emit_two, NULL, &err), 0);
	ck_assert_uint_eq(journal_size(j), 0);
	ck_assert_int_eq(journal_append(j, "after", 5), 0);
	ck_assert_int_eq(journal_sync(j, &err), 0);
	journal_close(j);
	j = open_ok();
	ck_assert_int_eq(nseen, 3);
	ck_assert_str_eq(seen[0], "alpha");
	ck_assert_str_eq(seen[1], "beta");
	ck_assert_str_eq(seen[2], "after");
	journal_close(j);
	ck_assert_int_eq(access(path("snapshot.1.new"), F_OK), -1);
	/* the previous generation stays: a fresh one, with no snapshot */
	ck_assert_int_eq(access(path("journal"), F_OK), 0);
	ck_assert_int_eq(access(path("snapshot.1"), F_OK), 0);
	ck_assert_int_eq(access(path("journal.1"), F_OK), 0);
}
END_TEST

START_TEST(test_damaged_snapshots_refused)
{
	struct rota_error err = { "" };
	struct journal *j;
	int fd;

	j = open_ok();
	ck_assert_int_eq(journal_compact(j, emit_two, NULL, &err), 0);
	ck_assert_int_eq(journal_compact(j, emit_two, NULL, &err), 0);
	journal_close(j);
	/* both snapshots damaged: nothing to fall back to */
	fd = open(path("snapshot.2"), O_WRONLY | O_APPEND);
	ck_assert_int_eq(write(fd, "\x09\0\0\0xxxxtorn", 12), 12);
	close(fd);
	fd = open(path("snapshot.1"), O_WRONLY);
	ck_assert_int_eq(pwrite(fd, "A", 1, 8), 1);
	close(fd);
	ck_assert_int_eq(journal_open(dir, record_cb, NULL, &j, &err),
			 -EILSEQ);
	ck_assert_msg(strstr(err.text, "snapshot.2: damaged record "
					       "at offset 25 of 53 (records after the end record)"), "%s", err.text);
	ck_assert_ptr_nonnull(strstr(err.text, "run 'rota-ctld --salvage'"));
}
END_TEST

static int failing_cb(const char *rec, size_t len, void *arg,
		      struct rota_error *err)
{
	return rota_errorf(err, -ENOENT, "record says no");
}

START_TEST(test_record_error_stops_replay)
{
	struct rota_error err = { "" };
	struct journal *j;

	write_three();
	ck_assert_int_eq(journal_open(dir, failing_cb, NULL, &j, &err),
			 -ENOENT);
	ck_assert_str_eq(err.text, "record says no");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("journal");
	TCase *tc = tcase_create("files");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_replay_in_order);
	tcase_add_test(tc, test_torn_tail_is_cut);
	tcase_add_test(tc, test_damage_in_the_middle_refused);
	tcase_add_test(tc, test_compact);
	tcase_add_test(tc, test_damaged_snapshots_refused);
	tcase_add_test(tc, test_record_error_stops_replay);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
