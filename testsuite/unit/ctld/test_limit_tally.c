// SPDX-License-Identifier: MIT
/*
 * The limits kept from request to request (ctld/core/limit_tally.c,
 * issue 23): each holder's count of queued jobs stays equal to a count
 * from scratch through submits, starts, ends, holds, releases, cancels,
 * requeues and arrays (core_limits_consistent after every step), and
 * MaxSubmitJobs reads it; a pass after a submit judges the jobs that
 * changed, not every pending one (core_sched_stats limits_judged),
 * while a holder reaching or leaving MaxJobs has its jobs judged again,
 * and only its own.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/msg.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "ctld/core/core_internal.h"
#include "testsuite/unit/ctld/fixture.h"

#define T0 ((int64_t)1700000000)
#define ANA 1000
#define BOB 1001
#define NPER 40
#define NHELD 500

static struct core *core;
static struct rota_conf *conf;

static void teardown(void)
{
	fixture_stop(&core, &conf);
}

static int submit_as(const char *user, uid_t uid, const char *array,
		     bool hold, uint32_t *id, struct rota_error *err)
{
	struct rota_job_desc d = {
		.name = rota_xstrdup("job"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		.array = array ? rota_xstrdup(array) : NULL,
		.ntasks = 1,
		.cpus_per_task = 1,
		.time_limit = 100,
		.hold = hold,
	};
	struct core_submit req = { .desc = &d, .uid = uid, .gid = uid,
				   .user = user };
	int rc = core_submit(core, T0, &req, id, err);

	rota_job_desc_clear(&d);
	return rc;
}

static int submit_rc(const char *array, bool hold, uint32_t *id,
		     struct rota_error *err)
{
	return submit_as("ana", ANA, array, hold, id, err);
}

static uint32_t submit(const char *array, bool hold)
{
	struct rota_error err = { "" };
	uint32_t id = 0;

	ck_assert_msg(submit_rc(array, hold, &id, &err) == 0, "submit: %s",
		      err.text);
	ck_assert(core_limits_consistent(core));
	return id;
}

static const char *reason(uint32_t id)
{
	return core_job_reason(core, core_job_find(core, id));
}

static enum rota_job_state state(uint32_t id)
{
	return core_job_find(core, id)->state;
}

static void pass(int64_t now)
{
	fixture_pass(core, now);
	ck_assert(core_limits_consistent(core));
}

/* End every running job at 'now'; returns how many. */
static int end_running(int64_t now)
{
	int n = 0;

	for (uint32_t i = 1; i < 64; i++) {
		const struct core_job *j = core_job_find(core, i);

		if (j && j->state == ROTA_JOB_RUNNING) {
			fixture_end_job(core, now, i);
			n++;
		}
	}
	ck_assert(core_limits_consistent(core));
	return n;
}

/*
 * An array of 12, too many with any job queued: its refusal names the
 * count MaxSubmitJobs read.
 */
static void refused_at(int64_t queued)
{
	struct rota_error err = { "" };
	char want[96];
	uint32_t id;

	snprintf(want, sizeof(want),
		 "MaxSubmitJobs (%lld of 12) for user 'ana'",
		 (long long)queued);
	ck_assert_int_eq(submit_rc("1-12", true, &id, &err), -EINVAL);
	ck_assert_str_eq(err.text, want);
	ck_assert(core_limits_consistent(core));
}

static const char *const limits_conf =
	"NodeName=n1 CPUs=8 RealMemory=16G\n"
	"QueueName=batch Default=yes\n"
	"QOSName=normal MaxJobs=2\n"
	"AccountName=physics\n"
	"UserName=ana Account=physics Default=yes MaxSubmitJobs=12\n";

/* Through every move a job makes, the counts match a count from scratch. */
START_TEST(test_counts_follow_jobs)
{
	struct rota_error err = { "" };
	uint32_t id[5], arr;

	fixture_start(limits_conf, T0, &core, &conf);
	for (int i = 0; i < 5; i++)
		id[i] = submit(NULL, false);
	pass(T0 + 1);
	ck_assert_int_eq(state(id[0]), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(id[1]), ROTA_JOB_RUNNING);
	ck_assert_str_eq(reason(id[2]), "MaxJobsPerQOS (2 of 2)");
	ck_assert_str_eq(reason(id[4]), "MaxJobsPerQOS (2 of 2)");

	/* held and released: counted all along, judged again on release */
	ck_assert_int_eq(core_hold(core, T0 + 2, id[3], ANA, false, false,
				   &err), 0);
	ck_assert(core_limits_consistent(core));
	ck_assert_str_eq(reason(id[3]), "JobHeldUser");
	ck_assert_int_eq(core_release(core, T0 + 3, id[3], ANA, false, &err),
			 0);
	pass(T0 + 3);
	ck_assert_str_eq(reason(id[3]), "MaxJobsPerQOS (2 of 2)");

	/* an array of 6 waiting tasks counts as 6 */
	arr = submit("1-6", false);
	refused_at(11);

	/* one ends: the QOS leaves its limit, the next in order starts */
	fixture_end_job(core, T0 + 4, id[0]);
	ck_assert(core_limits_consistent(core));
	refused_at(10);
	pass(T0 + 5);
	ck_assert_int_eq(state(id[2]), ROTA_JOB_RUNNING);
	ck_assert_str_eq(reason(id[4]), "MaxJobsPerQOS (2 of 2)");

	/* cancelled pending, requeued running */
	ck_assert_int_eq(core_cancel(core, T0 + 6, id[4], ANA, false, &err),
			 0);
	ck_assert(core_limits_consistent(core));
	refused_at(9);
	ck_assert_int_eq(core_requeue_job(core, T0 + 7, id[1], ANA, false,
					  &err), 0);
	ck_assert(core_limits_consistent(core));
	refused_at(9);

	fixture_end_job(core, T0 + 8, id[2]);
	refused_at(8);
	pass(T0 + 9); /* id[3] and the array's first task (id[1] is fenced) */
	ck_assert_int_eq(end_running(T0 + 10), 2);
	refused_at(6);

	/* tasks split off the array as they start: still 5 of them */
	pass(T0 + 11);
	refused_at(6);
	ck_assert_int_eq(end_running(T0 + 12), 2);
	refused_at(4);
	pass(T0 + 13); /* two more: the rest keeps one */
	ck_assert_str_eq(reason(arr), "MaxJobsPerQOS (2 of 2)");
	refused_at(4);

	/* the array's rest cancelled: its task leaves, 2 run on */
	ck_assert_int_eq(core_cancel(core, T0 + 14, arr, ANA, false, &err), 0);
	ck_assert(core_limits_consistent(core));
	refused_at(3);
}
END_TEST

/*
 * With NHELD held jobs and some limited ones queued, a pass after a
 * submit judges that one job, not all of them; an end that frees the
 * QOS has the limited ones judged again.
 */
/*
 * What running jobs hold, per holder and per user and account of a QOS,
 * follows starts and ends and matches a count from scratch; the running
 * limits read it (MaxTRESPerUser, GrpTRES) without counting jobs.
 */
START_TEST(test_held_follow_jobs)
{
	static const char text[] =
		"NodeName=n1 CPUs=8 RealMemory=16G\n"
		"QueueName=batch Default=yes\n"
		"QOSName=normal MaxTRESPerUser=cpu=3 GrpTRES=cpu=5\n"
		"AccountName=physics\n"
		"UserName=ana Account=physics\n"
		"UserName=bob Account=physics\n";
	const struct rota_limit_set *q;
	struct rota_error err = { "" };
	uint32_t ana[4], bob[3];
	int64_t h[TALLY_RES];

	fixture_start(text, T0, &core, &conf);
	q = &core->qos_limits[0];
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(submit_as("ana", ANA, NULL, false, &ana[i],
					   &err), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(submit_as("bob", BOB, NULL, false, &bob[i],
					   &err), 0);
	ck_assert(core_limits_consistent(core));
	pass(T0 + 1);
	ck_assert_int_eq(state(ana[2]), ROTA_JOB_RUNNING);
	ck_assert_str_eq(reason(ana[3]), "QOSMaxCpuPerUserLimit (3 + 1 > 3)");
	ck_assert_int_eq(state(bob[1]), ROTA_JOB_RUNNING);
	ck_assert_str_eq(reason(bob[2]), "QOSGrpCpuLimit (5 + 1 > 5)");
	limit_tally_held(core, q, 0, h);
	ck_assert_int_eq(h[TALLY_CPU], 5);
	ck_assert_int_eq(h[TALLY_NODE], 5);
	limit_tally_held(core, q, limit_tally_user_key(ANA), h);
	ck_assert_int_eq(h[TALLY_CPU], 3);
	limit_tally_held(core, q, limit_tally_user_key(BOB), h);
	ck_assert_int_eq(h[TALLY_CPU], 2);
	/* ana's first ends: her fourth starts, bob's third still waits */
	fixture_end_job(core, T0 + 2, ana[0]);
	ck_assert(core_limits_consistent(core));
	pass(T0 + 3);
	ck_assert_int_eq(state(ana[3]), ROTA_JOB_RUNNING);
	ck_assert_str_eq(reason(bob[2]), "QOSGrpCpuLimit (5 + 1 > 5)");
	ck_assert_int_eq(end_running(T0 + 4), 5);
	pass(T0 + 5);
	ck_assert_int_eq(state(bob[2]), ROTA_JOB_RUNNING);
	limit_tally_held(core, q, limit_tally_user_key(ANA), h);
	ck_assert_int_eq(h[TALLY_CPU], 0);
	limit_tally_held(core, q, 0, h);
	ck_assert_int_eq(h[TALLY_CPU], 1);
}
END_TEST

/* A job of 'cores' cores and 'limit' seconds for 'user'. */
static uint32_t submit_sized(const char *user, uid_t uid, uint32_t cores,
			     int64_t limit)
{
	struct rota_job_desc d = {
		.name = rota_xstrdup("job"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		.ntasks = 1,
		.cpus_per_task = cores,
		.time_limit = limit,
	};
	struct core_submit req = { .desc = &d, .uid = uid, .gid = uid,
				   .user = user };
	struct rota_error err = { "" };
	uint32_t id = 0;

	ck_assert_msg(core_submit(core, T0, &req, &id, &err) == 0,
		      "submit: %s", err.text);
	rota_job_desc_clear(&d);
	return id;
}

/*
 * Backfill starts the jobs that fit before the head job's start, and
 * counts each it starts: of ana's three 1-core jobs, all idle before the
 * pass, it starts two under her GrpTRES=cpu=2 and holds the third.
 */
START_TEST(test_backfill_counts_started)
{
	static const char text[] =
		"NodeName=n1 CPUs=8 RealMemory=16G\n"
		"QueueName=batch Default=yes\n"
		"Sched=backfill\n"
		"AccountName=physics\n"
		"UserName=ana Account=physics GrpTRES=cpu=2\n"
		"UserName=bob Account=physics\n";
	uint32_t blocker, head, a[3];

	fixture_start(text, T0, &core, &conf);
	blocker = submit_sized("bob", BOB, 5, 1000);
	pass(T0 + 1);
	ck_assert_int_eq(state(blocker), ROTA_JOB_RUNNING);
	head = submit_sized("bob", BOB, 8, 1000);
	for (int i = 0; i < 3; i++)
		a[i] = submit_sized("ana", ANA, 1, 100);
	pass(T0 + 2); /* the main pass: the head job waits, the rest too */
	ck_assert_int_eq(state(a[0]), ROTA_JOB_PENDING);
	fixture_passes(core, T0 + 2);
	ck_assert(core_limits_consistent(core));
	ck_assert_int_eq(state(head), ROTA_JOB_PENDING);
	ck_assert_int_eq(state(a[0]), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(a[1]), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(a[2]), ROTA_JOB_PENDING);
	ck_assert_str_eq(reason(a[2]), "AssocGrpCpuLimit (2 + 1 > 2)");
}
END_TEST

START_TEST(test_submit_judges_one)
{
	const struct core_sched_stats *st;
	uint32_t a, b, c, late;

	fixture_start("NodeName=n1 CPUs=8 RealMemory=16G\n"
		      "QueueName=batch Default=yes\n"
		      "QOSName=normal MaxJobs=1\n",
		      T0, &core, &conf);
	st = core_sched_stats(core);
	for (int i = 0; i < NHELD; i++)
		submit(NULL, true);
	a = submit(NULL, false);
	b = submit(NULL, false);
	c = submit(NULL, false);
	pass(T0 + 1);
	ck_assert_int_eq(state(a), ROTA_JOB_RUNNING);
	ck_assert_str_eq(reason(b), "MaxJobsPerQOS (1 of 1)");
	/* the start moved the QOS to its limit: its jobs judged again */
	pass(T0 + 2);
	ck_assert_uint_eq(st->limits_judged, 2);
	/* nothing changed since: nothing judged */
	pass(T0 + 3);
	ck_assert_uint_eq(st->limits_judged, 0);

	submit(NULL, true);
	late = submit(NULL, false);
	pass(T0 + 4);
	ck_assert_uint_eq(st->limits_judged, 2);
	ck_assert_str_eq(reason(late), "MaxJobsPerQOS (1 of 1)");

	/* the QOS frees a place: its waiting jobs (not the held) judged */
	fixture_end_job(core, T0 + 5, a);
	pass(T0 + 6);
	ck_assert_int_eq(state(b), ROTA_JOB_RUNNING);
	ck_assert_uint_le(st->limits_judged, 3);
	ck_assert_str_eq(reason(c), "MaxJobsPerQOS (1 of 1)");
	ck_assert_str_eq(reason(late), "MaxJobsPerQOS (1 of 1)");
}
END_TEST

/*
 * A holder that leaves its limit has its own jobs judged again, not
 * those of another holder that did not move.
 */
START_TEST(test_moved_holder_only)
{
	const struct core_sched_stats *st;
	struct rota_error err = { "" };
	uint32_t ana[NPER], bob[NPER];

	fixture_start("NodeName=n1 CPUs=8 RealMemory=16G\n"
		      "QueueName=batch Default=yes\n"
		      "AccountName=physics\n"
		      "UserName=ana Account=physics Default=yes MaxJobs=1\n"
		      "UserName=bob Account=physics Default=yes MaxJobs=1\n",
		      T0, &core, &conf);
	st = core_sched_stats(core);
	for (int i = 0; i < NPER; i++) {
		ck_assert_int_eq(submit_as("ana", ANA, NULL, false, &ana[i],
					   &err), 0);
		ck_assert_int_eq(submit_as("bob", BOB, NULL, false, &bob[i],
					   &err), 0);
	}
	pass(T0 + 1);
	ck_assert_int_eq(state(ana[0]), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(bob[0]), ROTA_JOB_RUNNING);
	pass(T0 + 2); /* both reached their limits: all judged again */
	ck_assert_uint_eq(st->limits_judged, 2 * (NPER - 1));
	ck_assert_str_eq(reason(bob[1]), "MaxJobsPerUser (1 of 1)");

	/* ana's ends: her jobs judged, bob's left as they were */
	fixture_end_job(core, T0 + 3, ana[0]);
	pass(T0 + 4);
	ck_assert_uint_eq(st->limits_judged, NPER - 1);
	ck_assert_int_eq(state(ana[1]), ROTA_JOB_RUNNING);
	pass(T0 + 5); /* and again as the next of hers starts */
	ck_assert_uint_eq(st->limits_judged, NPER - 2);
	ck_assert_str_eq(reason(ana[2]), "MaxJobsPerUser (1 of 1)");
	ck_assert_str_eq(reason(bob[1]), "MaxJobsPerUser (1 of 1)");
	pass(T0 + 6);
	ck_assert_uint_eq(st->limits_judged, 0);
}
END_TEST

/* A pending job as a journal keeps it (the last record of an id wins). */
static void restore(uint32_t id, enum core_hold hold, const char *dep)
{
	struct rota_error err = { "" };
	struct core_job_state st = {
		.id = id, .state = ROTA_JOB_PENDING, .uid = ANA, .gid = ANA,
		.user = "ana", .queue = "batch", .time_limit = 100,
		.submit_time = T0, .exit_code = -1, .eligible_since = T0,
		.hold = hold,
		.desc = {
			.name = rota_xstrdup("job"),
			.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
			.workdir = rota_xstrdup("/tmp"),
			.dependency = dep ? rota_xstrdup(dep) : NULL,
			.ntasks = 1,
			.cpus_per_task = 1,
			.time_limit = 100,
		},
	};

	ck_assert_msg(core_restore_job(core, T0, &st, &err) == 0, "%s",
		      err.text);
	rota_job_desc_clear(&st.desc);
}

/* A journal's jobs come back without events: counted all the same. */
START_TEST(test_restored_counted)
{
	fixture_start(limits_conf, T0, &core, &conf);
	restore(1, CORE_HOLD_NONE, NULL);
	restore(2, CORE_HOLD_NONE, NULL);
	restore(2, CORE_HOLD_USER, NULL); /* replaces the first */
	restore(3, CORE_HOLD_NONE, "afterok:1");
	restore(4, CORE_HOLD_NONE, NULL);
	core_restore_finish(core);
	ck_assert(core_limits_consistent(core));
	refused_at(4);
	pass(T0 + 1);
	ck_assert_int_eq(state(1), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(4), ROTA_JOB_RUNNING);
	ck_assert_str_eq(reason(2), "JobHeldUser");
	ck_assert_str_eq(reason(3), "Dependency");
	refused_at(4);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("limit_tally");
	TCase *tc = tcase_create("tally");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_counts_follow_jobs);
	tcase_add_test(tc, test_submit_judges_one);
	tcase_add_test(tc, test_held_follow_jobs);
	tcase_add_test(tc, test_backfill_counts_started);
	tcase_add_test(tc, test_moved_holder_only);
	tcase_add_test(tc, test_restored_counted);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
