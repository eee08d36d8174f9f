// SPDX-License-Identifier: MIT
/*
 * The main pass's walk list (issue 23): held, dependency-waiting and
 * limit-blocked jobs are kept out of the walk and come back into it, in
 * their place, when they change.  rota diag's sched_visited
 * (core_sched_stats main_visited) counts what the last pass looked at.
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
#include "testsuite/unit/ctld/fixture.h"

#define T0 ((int64_t)1700000000)
#define ANA 1000
#define NHELD 300

static struct core *core;
static struct rota_conf *conf;

static void teardown(void)
{
	fixture_stop(&core, &conf);
}

static uint32_t submit(uint32_t ntasks, bool hold, const char *dependency)
{
	struct rota_job_desc d = {
		.name = rota_xstrdup("job"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		.dependency = dependency ? rota_xstrdup(dependency) : NULL,
		.ntasks = ntasks,
		.cpus_per_task = 1,
		.time_limit = 100,
		.hold = hold,
	};
	struct core_submit req = { .desc = &d, .uid = ANA, .gid = ANA,
				   .user = "ana" };
	struct rota_error err = { "" };
	uint32_t id = 0;
	int rc = core_submit(core, T0, &req, &id, &err);

	ck_assert_msg(rc == 0, "submit: %s", err.text);
	rota_job_desc_clear(&d);
	return id;
}

static enum rota_job_state state(uint32_t id)
{
	return core_job_find(core, id)->state;
}

static uint64_t visited(void)
{
	return core_sched_stats(core)->main_visited;
}

static void release(uint32_t id)
{
	struct rota_error err = { "" };

	ck_assert_msg(core_release(core, T0, id, ANA, false, &err) == 0, "%s",
		      err.text);
}

/* Held jobs ahead of and behind two that wait: only those two walked. */
START_TEST(test_held_not_visited)
{
	uint32_t a, b;

	fixture_start("NodeName=n1 CPUs=8 RealMemory=16G\n"
		      "QueueName=batch Default=yes\n", T0, &core, &conf);
	for (int i = 0; i < NHELD; i++)
		submit(1, true, NULL);
	a = submit(8, false, NULL);
	b = submit(8, false, NULL);
	for (int i = 0; i < NHELD; i++)
		submit(1, true, NULL);
	fixture_pass(core, T0);
	ck_assert_int_eq(state(a), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(b), ROTA_JOB_PENDING);
	ck_assert_uint_eq(visited(), 2);
	/* a held submit changes nothing a pass would walk */
	submit(1, true, NULL);
	core_set_every_pass(core, true);
	fixture_pass(core, T0);
	ck_assert_uint_eq(visited(), 1);
	ck_assert_str_eq(core_job_reason(core, core_job_find(core, b)),
			 "Resources");
}
END_TEST

/*
 * Released jobs, far apart among held ones (beyond the walk list's near
 * search, and near), are started by the next pass in the queue's order.
 */
START_TEST(test_release_starts_in_order)
{
	static const int pick[] = { 290, 10, 150, 151, 80, 220 };
	uint32_t id[NHELD];

	fixture_start("NodeName=n1 CPUs=5 RealMemory=16G\n"
		      "QueueName=batch Default=yes\n", T0, &core, &conf);
	for (int i = 0; i < NHELD; i++)
		id[i] = submit(1, true, NULL);
	fixture_pass(core, T0);
	ck_assert_uint_eq(visited(), 0);
	ck_assert_str_eq(core_job_reason(core, core_job_find(core, id[10])),
			 "JobHeldUser");
	for (size_t i = 0; i < sizeof(pick) / sizeof(pick[0]); i++)
		release(id[pick[i]]);
	fixture_pass(core, T0);
	ck_assert_uint_eq(visited(), 6);
	/* five cores: the first five released in order run, 290 waits */
	ck_assert_int_eq(state(id[10]), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(id[80]), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(id[150]), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(id[151]), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(id[220]), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(id[290]), ROTA_JOB_PENDING);
	ck_assert_int_eq(state(id[0]), ROTA_JOB_PENDING);
	ck_assert_str_eq(core_job_reason(core, core_job_find(core, id[290])),
			 "Resources");
	ck_assert_str_eq(core_job_reason(core, core_job_find(core, id[0])),
			 "JobHeldUser");
}
END_TEST

/* A limit-blocked job is not walked, and starts once the limit frees. */
START_TEST(test_limit_frees)
{
	uint32_t one, two;

	fixture_start("NodeName=n1 CPUs=8 RealMemory=16G\n"
		      "QueueName=batch Default=yes\n"
		      "AccountName=physics\n"
		      "UserName=ana Account=physics Default=yes MaxJobs=1\n",
		      T0, &core, &conf);
	one = submit(1, false, NULL);
	two = submit(1, false, NULL);
	for (int i = 0; i < NHELD; i++)
		submit(1, true, NULL);
	fixture_pass(core, T0);
	ck_assert_int_eq(state(one), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(two), ROTA_JOB_PENDING);
	core_set_every_pass(core, true);
	fixture_pass(core, T0);
	ck_assert_uint_eq(visited(), 0); /* 'two' is limited, not walked */
	ck_assert_ptr_nonnull(strstr(core_job_reason(core,
						     core_job_find(core, two)),
				     "MaxJobs"));
	fixture_end_job(core, T0 + 10, one);
	fixture_pass(core, T0 + 10);
	ck_assert_int_eq(state(two), ROTA_JOB_RUNNING);
	ck_assert_uint_eq(visited(), 1);
}
END_TEST

/* A job waiting on a dependency is walked once it is satisfied. */
START_TEST(test_dependency_satisfied)
{
	uint32_t a, b;
	char dep[32];

	fixture_start("NodeName=n1 CPUs=8 RealMemory=16G\n"
		      "QueueName=batch Default=yes\n", T0, &core, &conf);
	a = submit(1, false, NULL);
	snprintf(dep, sizeof(dep), "afterok:%u", a);
	b = submit(1, false, dep);
	fixture_pass(core, T0);
	ck_assert_int_eq(state(a), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(b), ROTA_JOB_PENDING);
	core_set_every_pass(core, true);
	fixture_pass(core, T0);
	ck_assert_uint_eq(visited(), 0);
	fixture_end_job(core, T0 + 10, a);
	fixture_pass(core, T0 + 10);
	ck_assert_int_eq(state(b), ROTA_JOB_RUNNING);
	ck_assert_uint_eq(visited(), 1);
}
END_TEST

/*
 * Random holds, releases, cancels, ends and submits (held or not), with
 * passes between: after each pass no job that is free to run waits while
 * a core is free (1-core jobs, one queue).  A job lost from the walk
 * list fails it.
 */
#define NJOBS 400
#define NCORES 40

static void check_after_pass(const uint32_t *id, size_t n)
{
	uint32_t running = 0, lowest_waiting = UINT32_MAX;

	for (size_t i = 0; i < n; i++) {
		const struct core_job *j = core_job_find(core, id[i]);

		if (!j) /* ended and gone */
			continue;
		if (j->state == ROTA_JOB_RUNNING)
			running++;
		else if (j->state == ROTA_JOB_PENDING && !j->hold &&
			 id[i] < lowest_waiting)
			lowest_waiting = id[i];
	}
	ck_assert_uint_le(running, NCORES);
	if (lowest_waiting != UINT32_MAX)
		ck_assert_msg(running == NCORES,
			      "job %u waits with %u of %d cores used",
			      lowest_waiting, running, NCORES);
}

START_TEST(test_random_moves)
{
	struct rota_error err = { "" };
	uint32_t id[NJOBS];
	size_t n = 0;
	unsigned seed = 12345;
	int64_t t = T0;

	fixture_start("NodeName=n1 CPUs=40 RealMemory=64G\n"
		      "QueueName=batch Default=yes\n", T0, &core, &conf);
	while (n < 100)
		id[n++] = submit(1, rand_r(&seed) % 4 != 0, NULL);
	for (int round = 0; round < 2000; round++) {
		const struct core_job *j = core_job_find(core,
							 id[rand_r(&seed) % n]);
		int op = rand_r(&seed) % 6;

		if (!j)
			continue;
		if (op == 0 && n < NJOBS)
			id[n++] = submit(1, rand_r(&seed) % 4 != 0, NULL);
		else if (op == 1 && j->state == ROTA_JOB_PENDING && !j->hold)
			ck_assert_int_eq(core_hold(core, t, j->id, ANA, false,
						   false, &err), 0);
		else if (op == 2 && j->state == ROTA_JOB_PENDING && j->hold)
			release(j->id);
		else if (op == 3 && j->state == ROTA_JOB_RUNNING)
			fixture_end_job(core, t, j->id);
		else if (op == 4 && j->state == ROTA_JOB_PENDING)
			ck_assert_int_eq(core_cancel(core, t, j->id, ANA, false,
						     &err), 0);
		if (rand_r(&seed) % 3 == 0) {
			fixture_pass(core, t);
			check_after_pass(id, n);
		}
		t++;
	}
}
END_TEST

static Suite *walk_suite(void)
{
	Suite *s = suite_create("walk");
	TCase *tc = tcase_create("walk");

	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_held_not_visited);
	tcase_add_test(tc, test_release_starts_in_order);
	tcase_add_test(tc, test_limit_frees);
	tcase_add_test(tc, test_dependency_satisfied);
	tcase_add_test(tc, test_random_moves);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(walk_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
