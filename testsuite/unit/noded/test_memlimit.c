// SPDX-License-Identifier: MIT
/*
 * Memory cgroups for jobs (noded/memlimit.c) on the real cgroup v1 memory
 * controller: the limits written, a leftover cgroup of the same name made
 * anew, removal with a process still inside.  Passes vacuously where the
 * host gives none (not root, no v1 memory controller).
 */
#include "config.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "noded/memlimit.h"

static char *base;

static void setup(void)
{
	struct rota_error err;

	base = geteuid() == 0 ? memlimit_base(&err) : NULL;
	if (!base)
		fprintf(stderr, "test_memlimit: skipped: %s\n",
			geteuid() ? "not root" : err.text);
}

static void teardown(void)
{
	free(base);
}

static unsigned long long read_num(const char *dir, const char *name)
{
	char path[4096];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	ck_assert_int_eq(fscanf(f, "%llu", &v), 1);
	fclose(f);
	return v;
}

static bool has(const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

START_TEST(test_limits)
{
	struct rota_error err;
	char *dir;

	if (!base)
		return;
	dir = memlimit_create(base, 7, 2, getpid(), 300, &err);
	ck_assert_msg(dir, "%s", err.text);
	ck_assert_ptr_nonnull(strstr(dir, "/job7.2."));
	ck_assert_uint_eq(read_num(dir, "memory.limit_in_bytes"), 300ull << 20);
	if (has(dir, "memory.memsw.limit_in_bytes"))
		ck_assert_uint_eq(read_num(dir, "memory.memsw.limit_in_bytes"),
				  300ull << 20);
	ck_assert(!memlimit_oom_killed(dir));
	memlimit_remove(dir);
	ck_assert(!has(dir, "."));
	free(dir);
}
END_TEST

/* A supervisor killed with -9 leaves its cgroup, tasks and all. */
START_TEST(test_leftover_made_anew)
{
	struct rota_error err;
	char *dir, *again, procs[4096];
	pid_t child;
	FILE *f;

	if (!base)
		return;
	dir = memlimit_create(base, 8, 1, getpid(), 100, &err);
	ck_assert_msg(dir, "%s", err.text);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	f = fopen(procs, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%d\n", (int)child);
	ck_assert_int_eq(fclose(f), 0);

	again = memlimit_create(base, 8, 1, getpid(), 200, &err);
	ck_assert_msg(again, "%s", err.text);
	ck_assert_str_eq(again, dir);
	/* its task was killed on the way, and the new limit is set */
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	ck_assert_uint_eq(read_num(again, "memory.limit_in_bytes"),
			  200ull << 20);
	memlimit_remove(again);
	ck_assert(!has(again, "."));
	free(again);
	free(dir);
}
END_TEST

static Suite *memlimit_suite(void)
{
	Suite *s = suite_create("memlimit");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_leftover_made_anew);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(memlimit_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
