// SPDX-License-Identifier: MIT
/*
 * Task ranges (rota submit -n MIN-MAX, Grid Engine's -pe mpi 2-6),
 * through core.h: a range job starts with the most tasks of its range
 * that fit then, and those are its tasks while it runs; it waits while
 * not even its minimum fits; a requeue asks the whole range again; a
 * backfill reservation holds, at the earliest start of its minimum, the
 * most that fit then (as Grid Engine reserves a PE range); the limits
 * cut the range's maximum at submit and judge the tasks placed at
 * start, and refusing them lets the minimum start.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/msg.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "plugins/rota_plugin.h"
#include "testsuite/unit/ctld/fixture.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define T0 ((int64_t)1700000000)
#define ANA 1000

static struct core *core;
static struct rota_conf *conf;

static void teardown(void)
{
	fixture_stop(&core, &conf);
}

struct job {
	uint32_t ntasks;
	uint32_t ntasks_max;	/* 0: no range */
	uint32_t nodes;
	uint32_t per_node;
	int64_t limit;
};

static uint32_t submit(int64_t now, const struct job *j)
{
	struct rota_job_desc d = {
		.name = rota_xstrdup("job"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		.ntasks = j->ntasks,
		.ntasks_max = j->ntasks_max,
		.nodes = j->nodes,
		.ntasks_per_node = j->per_node,
		.cpus_per_task = 1,
		.time_limit = j->limit,
	};
	struct core_submit req = { .desc = &d, .uid = ANA, .gid = ANA,
				   .user = "ana" };
	struct rota_error err = { "" };
	uint32_t id = 0;
	int rc = core_submit(core, now, &req, &id, &err);

	ck_assert_msg(rc == 0, "submit: %s", err.text);
	rota_job_desc_clear(&d);
	return id;
}

static const struct core_job *job(uint32_t id)
{
	return core_job_find(core, id);
}

/* Tasks the job holds: the cores of its nodes, one task each. */
static uint32_t cores_held(uint32_t id)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < job(id)->nalloc; i++)
		n += job(id)->alloc[i].ncores;
	return n;
}

#define TWO_NODES                                                              \
	"NodeName=n1 CPUs=8 RealMemory=16G\n"                                 \
	"NodeName=n2 CPUs=8 RealMemory=16G\n"                                 \
	"QueueName=batch Default=yes\n"

/*
 * n1 and n2, 8 cores each; jobs of 'busy1' and 'busy2' tasks run on
 * them first (3 and 2 cores left with 5 and 6), then the range job.
 */
static const struct range_case {
	uint32_t busy1, busy2;
	struct job r;
	uint32_t granted;	/* 0: it waits */
	uint32_t nalloc;
} range_cases[] = {
	/* all of it fits on one node */
	{ 0, 0, { .ntasks = 2, .ntasks_max = 6 }, 6, 1 },
	/* 3 + 2 free: the most is 5, spread over both */
	{ 5, 6, { .ntasks = 2, .ntasks_max = 12 }, 5, 2 },
	/* the maximum fits, spread */
	{ 5, 6, { .ntasks = 2, .ntasks_max = 4 }, 4, 2 },
	/* -N 1: the most one node holds */
	{ 5, 6, { .ntasks = 2, .ntasks_max = 12, .nodes = 1 }, 3, 1 },
	/* -N 2: ceil(n / 2) on the first, the rest on the second: 3 + 2 */
	{ 5, 6, { .ntasks = 1, .ntasks_max = 12, .nodes = 2 }, 5, 2 },
	/* -N 2 --ntasks-per-node=2: at most 4, and at least a task each */
	{ 0, 0, { .ntasks = 1, .ntasks_max = 12, .nodes = 2, .per_node = 2 },
	  4, 2 },
	/* not even the minimum fits: it waits */
	{ 5, 6, { .ntasks = 6, .ntasks_max = 8 }, 0, 0 },
	/* the minimum exactly */
	{ 5, 8, { .ntasks = 3, .ntasks_max = 8 }, 3, 1 },
};

START_TEST(test_range_most_that_fit)
{
	const struct range_case *c = &range_cases[_i];
	uint32_t r;

	fixture_start(TWO_NODES, T0, &core, &conf);
	if (c->busy1)
		submit(T0, &(struct job){ .ntasks = c->busy1 });
	if (c->busy2)
		submit(T0, &(struct job){ .ntasks = c->busy2 });
	fixture_pass(core, T0);
	r = submit(T0, &c->r);
	ck_assert_uint_eq(job(r)->desc.ntasks, c->r.ntasks); /* pending */
	fixture_pass(core, T0 + 1);
	if (!c->granted) {
		ck_assert_int_eq(job(r)->state, ROTA_JOB_PENDING);
		ck_assert_str_eq(core_job_reason(core, job(r)), "Resources");
		ck_assert_uint_eq(job(r)->desc.ntasks, c->r.ntasks);
		return;
	}
	ck_assert_int_eq(job(r)->state, ROTA_JOB_RUNNING);
	ck_assert_uint_eq(job(r)->desc.ntasks, c->granted);
	ck_assert_uint_eq(cores_held(r), c->granted);
	ck_assert_uint_eq(job(r)->nalloc, c->nalloc);
	ck_assert_uint_eq(job(r)->ntasks_min, c->r.ntasks);
	ck_assert_uint_eq(job(r)->desc.ntasks_max, c->r.ntasks_max);
}
END_TEST

/* A requeued range job asks its whole range again: 6 of 2-8, then 8. */
START_TEST(test_range_requeue)
{
	uint32_t a, r;

	fixture_start(TWO_NODES, T0, &core, &conf);
	a = submit(T0, &(struct job){ .ntasks = 10 });
	fixture_pass(core, T0);
	r = submit(T0, &(struct job){ .ntasks = 2, .ntasks_max = 8 });
	fixture_pass(core, T0);
	ck_assert_uint_eq(job(r)->desc.ntasks, 6);
	fixture_end_job(core, T0 + 10, a);
	ck_assert_int_eq(core_requeue(core, T0 + 11, r, "requeued", false), 0);
	ck_assert_int_eq(job(r)->state, ROTA_JOB_PENDING);
	ck_assert_uint_eq(job(r)->desc.ntasks, 2);
	fixture_pass(core, T0 + 12);
	ck_assert_int_eq(job(r)->state, ROTA_JOB_RUNNING);
	ck_assert_uint_eq(job(r)->desc.ntasks, 8);
	ck_assert_uint_eq(cores_held(r), 8);
}
END_TEST

/*
 * Backfill: A fills n1 until 100, B n2 until 200.  R (2-16, 50 s) is
 * reserved at 100, the earliest its minimum fits, for the most that fit
 * then: n1's 8.  C (1 task, 60 s) would overlap it: it waits.  At 100 R
 * starts with 8.
 */
START_TEST(test_range_reservation)
{
	uint32_t a, b, r, c;
	uint32_t held = 0;

	fixture_start(TWO_NODES "Sched=backfill Resolution=1s\n", T0, &core,
		      &conf);
	a = submit(T0, &(struct job){ .ntasks = 8, .limit = 100 });
	b = submit(T0, &(struct job){ .ntasks = 8, .limit = 200 });
	fixture_passes(core, T0);
	r = submit(T0, &(struct job){ .ntasks = 2, .ntasks_max = 16,
				      .limit = 50 });
	fixture_passes(core, T0);
	ck_assert_int_eq(job(r)->est_start, T0 + 100);
	for (uint32_t i = 0; i < job(r)->nest; i++)
		held += job(r)->est_tasks[i];
	ck_assert_uint_eq(held, 8);
	c = submit(T0 + 1, &(struct job){ .ntasks = 1, .limit = 60 });
	fixture_passes(core, T0 + 1);
	ck_assert_int_eq(job(c)->state, ROTA_JOB_PENDING);
	fixture_end_job(core, T0 + 100, a);
	fixture_passes(core, T0 + 100);
	ck_assert_int_eq(job(r)->state, ROTA_JOB_RUNNING);
	ck_assert_uint_eq(job(r)->desc.ntasks, 8);
	ck_assert_int_eq(job(b)->state, ROTA_JOB_RUNNING);
}
END_TEST

static const char *builddir(void)
{
	const char *b = getenv("top_builddir");

	return b && *b ? b : ROTA_TOP_BUILDDIR;
}

/*
 * Maui's MaxPS at 1000 processor-seconds (soft and hard) on a 16-core
 * node, jobs of 100 s.  A, 1-8, alone: 8 x 100 = 800, it starts with 8.
 * B, 1-16, is admitted as 1-10 (the most the limit lets it ever hold,
 * 10 x 100).  A second later A holds 8 x 99 = 792: the 8 cores free
 * would make 792 + 800 > 1000, refused; its minimum, 792 + 100, starts.
 */
START_TEST(test_range_limits)
{
	char *text = rota_xasprintf("PluginDir=%s/_plugins\n"
				    "NodeName=n1 CPUs=16 RealMemory=16G\n"
				    "QueueName=batch Default=yes\n"
				    "Limits=maui MaxPS=1000 MaxPSHard=1000\n",
				    builddir());
	uint32_t a, b;

	fixture_start(text, T0, &core, &conf);
	free(text);
	a = submit(T0, &(struct job){ .ntasks = 1, .ntasks_max = 8,
				      .limit = 100 });
	ck_assert_uint_eq(job(a)->desc.ntasks_max, 8);
	fixture_pass(core, T0);
	ck_assert_int_eq(job(a)->state, ROTA_JOB_RUNNING);
	ck_assert_uint_eq(job(a)->desc.ntasks, 8);
	b = submit(T0 + 1, &(struct job){ .ntasks = 1, .ntasks_max = 16,
					  .limit = 100 });
	ck_assert_uint_eq(job(b)->desc.ntasks_max, 10);
	fixture_pass(core, T0 + 1);
	ck_assert_int_eq(job(b)->state, ROTA_JOB_RUNNING);
	ck_assert_uint_eq(job(b)->desc.ntasks, 1);
	ck_assert_uint_eq(cores_held(b), 1);
}
END_TEST

/* Slurm's MaxTRES=cpu=10 of the QOS: -n 2-16 is queued as 2-10. */
START_TEST(test_range_max_tres)
{
	uint32_t r;

	fixture_start("NodeName=n1 CPUs=16 RealMemory=16G\n"
		      "QueueName=batch Default=yes\n"
		      "QOSName=normal MaxTRES=cpu=10\n",
		      T0, &core, &conf);
	r = submit(T0, &(struct job){ .ntasks = 2, .ntasks_max = 16 });
	ck_assert_uint_eq(job(r)->desc.ntasks_max, 10);
	fixture_pass(core, T0);
	ck_assert_uint_eq(job(r)->desc.ntasks, 10);
	ck_assert_uint_eq(cores_held(r), 10);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("range");
	TCase *tc = tcase_create("range");
	SRunner *sr;
	int failed;

	tcase_add_unchecked_fixture(tc, NULL, teardown);
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_loop_test(tc, test_range_most_that_fit, 0, N(range_cases));
	tcase_add_test(tc, test_range_requeue);
	tcase_add_test(tc, test_range_reservation);
	tcase_add_test(tc, test_range_limits);
	tcase_add_test(tc, test_range_max_tres);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
