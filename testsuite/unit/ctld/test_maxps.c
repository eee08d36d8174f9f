// SPDX-License-Identifier: MIT
/*
 * Maui's MAXPS soft limit through core.h on the virtual clock, with seed
 * 003's own example (Akka): user1 runs a 2-processor job with 9:42:28
 * left (69,896 processor-seconds) and has eight idle 8-processor jobs;
 * 69,896 + 28,800 = 98,696 > 72,000, so none of them starts until the
 * running job ends, in the main pass or in backfill, however many cores
 * are free.  A job may pass the soft limit (up to the hard one) only when
 * no other job is eligible, and two jobs too big for the soft limit on
 * their own do not wait for each other.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/msg.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "plugins/rota_plugin.h"
#include "testsuite/unit/ctld/fixture.h"

#define T0 ((int64_t)1700000000)
#define HOUR 3600

static struct core *core;
static struct rota_conf *conf;

static const char *builddir(void)
{
	const char *b = getenv("top_builddir");

	return b && *b ? b : ROTA_TOP_BUILDDIR;
}

/* Akka's limits (the maui plugin's defaults are seed 003's numbers). */
static void start(void)
{
	char *text = rota_xasprintf(
		"PluginDir=%s/_plugins\n"
		"NodeName=n1 CPUs=128 RealMemory=64G\n"
		"QueueName=batch Default=yes\n"
		"Sched=backfill Resolution=1s\n"
		"Limits=maui\n", builddir());

	fixture_start(text, T0, &core, &conf);
	free(text);
}

static void teardown(void)
{
	fixture_stop(&core, &conf);
}

static uint32_t submit(int64_t now, const char *user, uint32_t cores,
		       int64_t limit)
{
	struct rota_job_desc d = {
		.name = rota_xstrdup("job"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		.ntasks = cores,
		.cpus_per_task = 1,
		.time_limit = limit,
	};
	uid_t uid = strcmp(user, "user1") ? 1002 : 1001;
	struct core_submit req = { .desc = &d, .uid = uid, .gid = uid,
				   .user = user };
	struct rota_error err = { "" };
	uint32_t id = 0;
	int rc = core_submit(core, now, &req, &id, &err);

	ck_assert_msg(rc == 0, "submit: %s", err.text);
	rota_job_desc_clear(&d);
	return id;
}

static enum rota_job_state state(uint32_t id)
{
	return core_job_find(core, id)->state;
}

static const char *reason(uint32_t id)
{
	const char *r = core_job_reason(core, core_job_find(core, id));

	return r ? r : "";
}

static void count_running(const struct core_job *job, void *arg)
{
	*(unsigned *)arg += job->state == ROTA_JOB_RUNNING;
}

static unsigned running(void)
{
	unsigned n = 0;

	core_job_foreach(core, count_running, &n);
	return n;
}

/*
 * The page's showq: the running job (started 9:42:28 + 1s before its end
 * is 34948 s away at T0 + 1), the eight idle jobs (1:00:00, 2:00:00,
 * 2:00:00, 2:00:00, 2:00:00, 1:30:00, 2:29:00, 2:00:00) and eight more
 * that Maui's MaxIdlePerUser 8 blocks.
 */
START_TEST(test_page_example)
{
	static const int64_t idle[] = { 3600, 7200, 7200, 7200, 7200, 5400,
					8940, 7200 };
	uint32_t run, first = 0;
	int64_t t = T0 + 1;

	start();
	run = submit(T0, "user1", 2, 34948 + 1);
	fixture_passes(core, T0);
	ck_assert_int_eq(state(run), ROTA_JOB_RUNNING);
	for (size_t i = 0; i < sizeof(idle) / sizeof(idle[0]); i++) {
		uint32_t id = submit(t, "user1", 8, idle[i]);

		first = first ? first : id;
	}
	for (int i = 0; i < 8; i++)
		submit(t, "user1", 8, 2 * HOUR);
	fixture_passes(core, t);
	ck_assert_str_eq(reason(first), "MaxPS soft (98696 > 72000)");
	/* pass after pass (the bug started one job per pass): none starts */
	for (int k = 1; k < 5; k++)
		fixture_passes(core, t + k);
	ck_assert_uint_eq(running(), 1);
	ck_assert_str_eq(reason(first + 8), "MaxIdlePerUser (8 of 8)");

	/* the running job ends: the 1-hour job (28800) starts, then of the
	   others only the 1:30:00 one fits what is left (43200: 72000, not
	   above); each 2-hour one would make 86400 */
	fixture_end_job(core, t + 5, run);
	fixture_passes(core, t + 6);
	ck_assert_int_eq(state(first), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(first + 5), ROTA_JOB_RUNNING);
	ck_assert_uint_eq(running(), 2);
	ck_assert_int_eq(state(first + 1), ROTA_JOB_PENDING);
	ck_assert_str_eq(reason(first + 1), "MaxPS soft (129600 > 72000)");
}
END_TEST

/* The last eligible job may pass the soft limit, up to the hard one. */
START_TEST(test_alone_passes_soft)
{
	uint32_t run, j;

	start();
	run = submit(T0, "user1", 2, 34948);
	fixture_passes(core, T0);
	j = submit(T0 + 1, "user1", 8, HOUR);
	fixture_passes(core, T0 + 1);
	ck_assert_int_eq(state(run), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(j), ROTA_JOB_RUNNING);
}
END_TEST

/*
 * Two jobs whose own processor-seconds pass the soft limit (16 x 2 h =
 * 115200 each), nothing else: each is "another eligible job" for the
 * other, yet neither may wait for ever.  A job that fits the soft limit
 * on its own still goes first.
 */
START_TEST(test_big_jobs_do_not_wait_for_each_other)
{
	uint32_t a, b, small, run;

	start();
	a = submit(T0, "user1", 16, 2 * HOUR);
	b = submit(T0, "user2", 16, 2 * HOUR);
	fixture_passes(core, T0);
	ck_assert_int_eq(state(a), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(b), ROTA_JOB_RUNNING);
	fixture_stop(&core, &conf);

	/* user1 has 57600 running and a big job first in line; user2's
	   small job (4 x 1 h) is eligible behind it: the big one yields */
	start();
	run = submit(T0, "user1", 8, 2 * HOUR + 1);
	fixture_passes(core, T0);
	a = submit(T0 + 1, "user1", 16, 2 * HOUR);
	small = submit(T0 + 1, "user2", 4, HOUR);
	fixture_pass(core, T0 + 1);
	ck_assert_int_eq(state(run), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(a), ROTA_JOB_PENDING);
	ck_assert_str_eq(reason(a), "MaxPS soft (172800 > 72000)");
	ck_assert_int_eq(state(small), ROTA_JOB_RUNNING);
	/* once it has started, nothing else is eligible: a runs */
	fixture_passes(core, T0 + 2);
	ck_assert_int_eq(state(a), ROTA_JOB_RUNNING);
}
END_TEST

static Suite *maxps_suite(void)
{
	Suite *s = suite_create("maxps");
	TCase *tc = tcase_create("maxps");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_page_example);
	tcase_add_test(tc, test_alone_passes_soft);
	tcase_add_test(tc, test_big_jobs_do_not_wait_for_each_other);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(maxps_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
