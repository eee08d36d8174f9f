// SPDX-License-Identifier: MIT
/*
 * Cores kept for test queues (ReservedCores), through core.h on the
 * virtual clock, as Maxwell keeps them: one pool per node, shared by the
 * test queues t and u.  An s job never takes the pool, in the main pass,
 * in backfill or in its start estimate; a t job and a u job share it; a
 * test job also takes ordinary free cores; the largest count of the test
 * queues is the pool; a refusal at submit and rota why name the pool
 * when it is what a job lacks.
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
#include "plugins/rota_plugin.h"
#include "testsuite/unit/ctld/fixture.h"

#define T0 ((int64_t)1700000000)

/* One 8-core node, s for everyone, t and u keeping 2 cores together. */
#define MAXWELL(t, u, sched)                                                   \
	"NodeName=n1 CPUs=8 RealMemory=16G\n"                                 \
	"QueueName=s Default=yes\n"                                           \
	"QueueName=t ReservedCores=" t " MaxTime=1:00:00\n"                   \
	"QueueName=u ReservedCores=" u " MaxTime=1:00:00\n" sched "\n"

static struct core *core;
static struct rota_conf *conf;

static void start(const char *text)
{
	fixture_start(text, T0, &core, &conf);
}

static void teardown(void)
{
	fixture_stop(&core, &conf);
}

/* Submit 'cores' tasks of one core to 'queue'; 0 and 'err' if refused. */
static uint32_t try_submit(const char *queue, uint32_t cores, int64_t limit,
			   struct rota_error *err)
{
	struct rota_job_desc d = {
		.name = rota_xstrdup("job"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		.queue = rota_xstrdup(queue),
		.ntasks = cores,
		.cpus_per_task = 1,
		.time_limit = limit,
	};
	struct core_submit req = { .desc = &d, .uid = 1000, .gid = 1000,
				   .user = "ana" };
	uint32_t id = 0;
	int rc = core_submit(core, T0, &req, &id, err);

	rota_job_desc_clear(&d);
	return rc == 0 ? id : 0;
}

static uint32_t submit(const char *queue, uint32_t cores, int64_t limit)
{
	struct rota_error err = { "" };
	uint32_t id = try_submit(queue, cores, limit, &err);

	ck_assert_msg(id, "submit: %s", err.text);
	return id;
}

static enum rota_job_state state(uint32_t id)
{
	return core_job_find(core, id)->state;
}

/* Eight 1-core s jobs on an idle node: six run, in both passes. */
START_TEST(test_s_never_takes_kept)
{
	uint32_t j[8];

	start(MAXWELL("2", "2", "Sched=backfill Resolution=1s"));
	for (int i = 0; i < 8; i++)
		j[i] = submit("s", 1, 600);
	fixture_passes(core, T0);
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(state(j[i]), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(j[6]), ROTA_JOB_PENDING);
	ck_assert_int_eq(state(j[7]), ROTA_JOB_PENDING);
	fixture_passes(core, T0 + 1);
	ck_assert_int_eq(state(j[6]), ROTA_JOB_PENDING);
}
END_TEST

/*
 * A t job and a u job share the one pool: with both running, the six
 * ordinary cores are all the s jobs' still (two pools of 2 would leave
 * them 4), and a second t job finds nothing.
 */
START_TEST(test_t_and_u_share_kept)
{
	uint32_t t, u, s, t2;

	start(MAXWELL("2", "2", ""));
	t = submit("t", 1, 600);
	u = submit("u", 1, 600);
	fixture_pass(core, T0);
	ck_assert_int_eq(state(t), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(u), ROTA_JOB_RUNNING);
	s = submit("s", 6, 600);
	t2 = submit("t", 1, 600);
	fixture_pass(core, T0);
	ck_assert_int_eq(state(s), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(t2), ROTA_JOB_PENDING);
}
END_TEST

/* The s jobs hold all their cores: t and u still start, in the pool. */
START_TEST(test_t_and_u_get_kept)
{
	uint32_t s, t, u;

	start(MAXWELL("2", "2", ""));
	s = submit("s", 6, 600);
	fixture_pass(core, T0);
	ck_assert_int_eq(state(s), ROTA_JOB_RUNNING);
	t = submit("t", 1, 600);
	u = submit("u", 1, 600);
	fixture_pass(core, T0);
	ck_assert_int_eq(state(t), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(u), ROTA_JOB_RUNNING);
}
END_TEST

/* A 5-core t job takes the pool and 3 ordinary cores: s gets the rest. */
START_TEST(test_t_takes_ordinary_too)
{
	uint32_t t, s, s2, u;

	start(MAXWELL("2", "2", ""));
	t = submit("t", 5, 600);
	s = submit("s", 3, 600);
	s2 = submit("s", 1, 600);
	fixture_pass(core, T0);
	ck_assert_int_eq(state(t), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(s), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(s2), ROTA_JOB_PENDING);
	/* with one s core busy, a u job may have all the 7 others */
	fixture_end_job(core, T0 + 10, t);
	fixture_end_job(core, T0 + 10, s);
	fixture_pass(core, T0 + 10);
	ck_assert_int_eq(state(s2), ROTA_JOB_RUNNING);
	u = submit("u", 7, 600);
	fixture_pass(core, T0 + 10);
	ck_assert_int_eq(state(u), ROTA_JOB_RUNNING);
}
END_TEST

/* t keeps 2, u 3: the pool is 3 (the largest), not 5 and not 2. */
START_TEST(test_largest_count_kept)
{
	struct rota_error err = { "" };
	uint32_t s;

	start(MAXWELL("2", "3", ""));
	s = submit("s", 5, 600);
	fixture_pass(core, T0);
	ck_assert_int_eq(state(s), ROTA_JOB_RUNNING);
	ck_assert_uint_eq(try_submit("s", 6, 600, &err), 0);
	ck_assert_str_eq(err.text,
			 "6 tasks x 1 cpus: more cores than queue 's' may "
			 "use: 3 of each node's 8 cores are kept for queues "
			 "t,u (ReservedCores)");
}
END_TEST

/*
 * The start estimate: t (2 cores) ends at 100, A (s, 4) at 1000; B (s,
 * 4) cannot have the pool the t job gives back at 100: it starts at
 * 1000, and a pass at 100 starts nothing.
 */
START_TEST(test_estimate_leaves_kept)
{
	uint32_t t, a, b;

	start(MAXWELL("2", "2", "Sched=backfill Resolution=1s"));
	t = submit("t", 2, 100);
	a = submit("s", 4, 1000);
	b = submit("s", 4, 100);
	fixture_passes(core, T0);
	ck_assert_int_eq(state(t), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(a), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(b), ROTA_JOB_PENDING);
	ck_assert_int_eq(core_job_find(core, b)->est_start, T0 + 1000);
	fixture_end_job(core, T0 + 100, t);
	fixture_passes(core, T0 + 100);
	ck_assert_int_eq(state(b), ROTA_JOB_PENDING);
	ck_assert_int_eq(core_job_find(core, b)->est_start, T0 + 1000);
}
END_TEST

/* A t job takes 2 ordinary cores and the pool: B still starts at 1000. */
START_TEST(test_t_beside_estimate)
{
	uint32_t a, b, t;

	start(MAXWELL("2", "2", "Sched=backfill Resolution=1s"));
	a = submit("s", 4, 1000);
	b = submit("s", 6, 100); /* waits for A: reserved at 1000 */
	t = submit("t", 4, 600); /* 2 ordinary + the pool, ends before */
	fixture_passes(core, T0);
	ck_assert_int_eq(state(a), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(b), ROTA_JOB_PENDING);
	ck_assert_int_eq(state(t), ROTA_JOB_RUNNING);
	ck_assert_int_eq(core_job_find(core, b)->est_start, T0 + 1000);
}
END_TEST

/* rota why: B would fit with the 2 kept cores, and is told so. */
START_TEST(test_why_names_kept)
{
	struct rota_error err = { "" };
	struct core_why w;
	uint32_t a, b;

	start(MAXWELL("2", "2", ""));
	a = submit("s", 4, 1000);
	b = submit("s", 4, 100);
	fixture_pass(core, T0);
	ck_assert_int_eq(state(a), ROTA_JOB_RUNNING);
	ck_assert_int_eq(core_why(core, T0, b, 1000, false, &w, &err), 0);
	ck_assert_str_eq(w.reason, "Resources");
	ck_assert_uint_eq(w.kept, 2);
	ck_assert_str_eq(w.kept_node, "n1");
	ck_assert_str_eq(w.kept_queues, "t,u");
}
END_TEST

/*
 * Not named when they are not what it lacks: a job too wide even with
 * them, one behind its queue's first (Priority), a job of t.
 */
START_TEST(test_why_kept_not_the_reason)
{
	struct rota_error err = { "" };
	struct core_why w;
	uint32_t a, b, c, t;

	start(MAXWELL("2", "2", ""));
	a = submit("s", 4, 1000);
	b = submit("s", 5, 100); /* 4 free with the pool: still short */
	c = submit("s", 1, 100); /* fits in the pool, behind b */
	t = submit("t", 6, 100); /* a t job has the pool: 4, short */
	fixture_pass(core, T0);
	ck_assert_int_eq(state(a), ROTA_JOB_RUNNING);
	ck_assert_int_eq(core_why(core, T0, b, 1000, false, &w, &err), 0);
	ck_assert_str_eq(w.reason, "Resources");
	ck_assert_uint_eq(w.kept, 0);
	ck_assert_ptr_null(w.kept_node);
	ck_assert_int_eq(core_why(core, T0, c, 1000, false, &w, &err), 0);
	ck_assert_str_eq(w.reason, "Priority");
	ck_assert_uint_eq(w.kept, 0);
	ck_assert_int_eq(core_why(core, T0, t, 1000, false, &w, &err), 0);
	ck_assert_str_eq(w.reason, "Resources");
	ck_assert_uint_eq(w.kept, 0);
}
END_TEST

static Suite *kept_suite(void)
{
	Suite *s = suite_create("kept");
	TCase *tc = tcase_create("kept");

	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_s_never_takes_kept);
	tcase_add_test(tc, test_t_and_u_share_kept);
	tcase_add_test(tc, test_t_and_u_get_kept);
	tcase_add_test(tc, test_t_takes_ordinary_too);
	tcase_add_test(tc, test_largest_count_kept);
	tcase_add_test(tc, test_estimate_leaves_kept);
	tcase_add_test(tc, test_t_beside_estimate);
	tcase_add_test(tc, test_why_names_kept);
	tcase_add_test(tc, test_why_kept_not_the_reason);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(kept_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
