// SPDX-License-Identifier: MIT
/*
 * Scheduling through core.h on the virtual clock: backfill on hand-built
 * cases with known answers (a gap that fits, one a second too short, a
 * job that would delay the top reservation), EASY against conservative
 * where they differ, bypass counts, cores kept for a test queue, best-fit
 * placement, the main pass's depth, and a random workload in which no
 * backfilled job ever delays the top job past its reservation.
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

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define T0 ((int64_t)1700000000)
#define GB 1024

static struct core *core;
static struct rota_conf *conf;

/* A core from 'text'; nodes registered at T0 with their CPUs= sizes. */
static void start(const char *text)
{
	fixture_start(text, T0, &core, &conf);
}

static void teardown(void)
{
	fixture_stop(&core, &conf);
}

static uint32_t submit_q(int64_t now, const char *queue, uint32_t cores,
			 int64_t limit, uint64_t mem_mb)
{
	struct rota_job_desc d = {
		.name = rota_xstrdup("job"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		.queue = queue ? rota_xstrdup(queue) : NULL,
		.ntasks = cores,
		.cpus_per_task = 1,
		.time_limit = limit,
		.mem_mb = mem_mb,
	};
	struct core_submit req = { .desc = &d, .uid = 1000, .gid = 1000,
				   .user = "ana" };
	struct rota_error err = { "" };
	uint32_t id = 0;
	int rc = core_submit(core, now, &req, &id, &err);

	ck_assert_msg(rc == 0, "submit: %s", err.text);
	rota_job_desc_clear(&d);
	return id;
}

static uint32_t submit(int64_t now, uint32_t cores, int64_t limit)
{
	return submit_q(now, NULL, cores, limit, 0);
}

static enum rota_job_state state(uint32_t id)
{
	return core_job_find(core, id)->state;
}

static void end_job(int64_t now, uint32_t id)
{
	fixture_end_job(core, now, id);
}

static void drop_actions(void)
{
	fixture_drop_actions(core);
}

static struct rota_sched_stats backfill(int64_t now)
{
	struct rota_sched_stats st;

	ck_assert_int_eq(core_backfill(core, now, &st), 0);
	drop_actions();
	return st;
}

#define ONE_NODE(cpus, sched)                                                  \
	"NodeName=n1 CPUs=" cpus " RealMemory=16G\n"                          \
	"QueueName=batch Default=yes\n" sched "\n"

/* ---- the hand-built cases ------------------------------------------- */

/* A (4 of 8 cores) runs until 100; B needs all 8: reserved at 100. */
static uint32_t a, b;

static void gap_setup(const char *sched)
{
	char text[512];

	snprintf(text, sizeof(text), ONE_NODE("8", "%s"), sched);
	start(text);
	a = submit(T0, 4, 100);
	b = submit(T0, 8, 100);
	core_schedule(core, T0);
	drop_actions();
	ck_assert_int_eq(state(a), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(b), ROTA_JOB_PENDING);
}

START_TEST(test_gap_fits)
{
	uint32_t c;

	gap_setup("Sched=backfill Resolution=1s");
	c = submit(T0, 4, 100); /* ends as B's reservation begins */
	core_schedule(core, T0); /* strict order: C waits behind B */
	drop_actions();
	ck_assert_int_eq(state(c), ROTA_JOB_PENDING);
	backfill(T0);
	ck_assert_int_eq(state(c), ROTA_JOB_RUNNING);
	ck_assert_int_eq(core_job_find(core, b)->est_start, T0 + 100);
	ck_assert_uint_eq(core_job_find(core, b)->bypass, 1);
}
END_TEST

START_TEST(test_gap_one_second_short)
{
	uint32_t c;

	gap_setup("Sched=backfill Resolution=1s");
	c = submit(T0, 4, 101); /* would hold a core B needs at T0 + 100 */
	backfill(T0);
	ck_assert_int_eq(state(c), ROTA_JOB_PENDING);
	ck_assert_uint_eq(core_job_find(core, b)->bypass, 0);
}
END_TEST

/* A long narrow job would delay B: it waits, though cores are free. */
START_TEST(test_would_delay_top)
{
	uint32_t c, d;

	gap_setup("Sched=backfill Resolution=1s");
	c = submit(T0, 2, 1000);
	d = submit(T0, 2, 50);
	backfill(T0);
	ck_assert_int_eq(state(c), ROTA_JOB_PENDING);
	ck_assert_int_eq(state(d), ROTA_JOB_RUNNING);
	/* the reservation holds: B starts when A ends */
	end_job(T0 + 50, d);
	end_job(T0 + 100, a);
	core_schedule(core, T0 + 100);
	drop_actions();
	ck_assert_int_eq(state(b), ROTA_JOB_RUNNING);
}
END_TEST

/*
 * Steps at one instant are one change (issue 25's minimal case): at
 * T0 + 100 job 1 and job 3 end as job 2's reservation begins.  Counted
 * one step at a time the node dips below what job 4 needs at that
 * instant; counted together it has 2 cores to spare, so EASY starts
 * jobs 3 and 4 at once.
 */
START_TEST(test_same_instant_steps)
{
	uint32_t j1, j2, j3, j4;

	start(ONE_NODE("10", "Sched=backfill Resolution=1s"));
	j1 = submit(T0, 5, 100);
	core_schedule(core, T0);
	drop_actions();
	ck_assert_int_eq(state(j1), ROTA_JOB_RUNNING);
	j2 = submit(T0 + 1, 8, 50);
	j3 = submit(T0 + 1, 3, 99);
	j4 = submit(T0 + 1, 2, 500);
	core_schedule(core, T0 + 1);
	drop_actions();
	backfill(T0 + 1);
	ck_assert_int_eq(state(j2), ROTA_JOB_PENDING);
	ck_assert_int_eq(core_job_find(core, j2)->est_start, T0 + 100);
	ck_assert_int_eq(state(j3), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(j4), ROTA_JOB_RUNNING);
}
END_TEST

/* NoCaps lifts the Window too: a start two days ahead is reserved. */
START_TEST(test_nocaps_window)
{
	const char *sched[] = { "Sched=backfill Resolution=1s",
				"Sched=backfill Resolution=1s NoCaps=yes" };
	char text[512];
	uint32_t j1, j2;

	snprintf(text, sizeof(text), ONE_NODE("8", "%s"), sched[_i]);
	start(text);
	j1 = submit(T0, 8, 2 * 86400);
	core_schedule(core, T0);
	drop_actions();
	ck_assert_int_eq(state(j1), ROTA_JOB_RUNNING);
	j2 = submit(T0, 8, 100);
	backfill(T0);
	ck_assert_int_eq(core_job_find(core, j2)->est_start,
			 _i ? T0 + 2 * 86400 : 0);
}
END_TEST

/*
 * Order=shortest (EASY-SJBF): after the head's reservation, the jobs
 * behind it are tried shortest limit first.  4 cores free until 100: C
 * (90 s) fits, and so does D (50 s) behind it; in priority order C takes
 * them, shortest first D does.
 */
START_TEST(test_order_shortest)
{
	const char *sched[] = { "Sched=backfill Resolution=1s",
				"Sched=backfill Resolution=1s Order=shortest" };
	char text[512];
	uint32_t ja, jb, jc, jd;

	snprintf(text, sizeof(text), ONE_NODE("10", "%s"), sched[_i]);
	start(text);
	ja = submit(T0, 6, 100);
	core_schedule(core, T0);
	drop_actions();
	ck_assert_int_eq(state(ja), ROTA_JOB_RUNNING);
	jb = submit(T0, 10, 100);
	jc = submit(T0, 4, 90);
	jd = submit(T0, 4, 50);
	backfill(T0);
	ck_assert_int_eq(state(jb), ROTA_JOB_PENDING);
	ck_assert_int_eq(core_job_find(core, jb)->est_start, T0 + 100);
	ck_assert_int_eq(state(jc), _i ? ROTA_JOB_PENDING : ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(jd), _i ? ROTA_JOB_RUNNING : ROTA_JOB_PENDING);
}
END_TEST

/*
 * A pass that started nothing is not run again until something changes,
 * and each kind of change makes the next one run (sched.c).
 */
START_TEST(test_settled_passes)
{
	const struct core_sched_stats *s;
	struct rota_error err = { "" };
	uint32_t c;

	gap_setup("Sched=backfill Resolution=1s");
	c = submit(T0, 4, 1000); /* would delay B */
	s = core_sched_stats(core);
	backfill(T0);
	backfill(T0 + 30);
	backfill(T0 + 60);
	ck_assert_uint_eq(s->bf_passes, 1);
	ck_assert_uint_eq(s->bf_skipped, 2);
	ck_assert_int_eq(core_job_find(core, b)->est_start, T0 + 100);
	core_schedule(core, T0 + 60);
	core_schedule(core, T0 + 61);
	ck_assert_uint_eq(s->main_skipped, 1);
	/* a hold, a release, a node drained: each a new pass */
	ck_assert_int_eq(core_hold(core, T0 + 62, c, 1000, false, false, &err),
			 0);
	backfill(T0 + 62);
	ck_assert_uint_eq(s->bf_passes, 2);
	ck_assert_int_eq(core_release(core, T0 + 63, c, 1000, false, &err), 0);
	backfill(T0 + 63);
	ck_assert_uint_eq(s->bf_passes, 3);
	ck_assert_int_eq(core_node_admin(core, T0 + 64, "n1", "drain", NULL,
					 &err), 0);
	backfill(T0 + 64);
	ck_assert_uint_eq(s->bf_passes, 4);
	ck_assert_int_eq(core_node_admin(core, T0 + 65, "n1", "resume", NULL,
					 &err), 0);
	backfill(T0 + 65);
	backfill(T0 + 66);
	ck_assert_uint_eq(s->bf_passes, 5);
	/* an end: A's cores go to B */
	end_job(T0 + 100, a);
	core_schedule(core, T0 + 100);
	drop_actions();
	ck_assert_int_eq(state(b), ROTA_JOB_RUNNING);
}
END_TEST

/*
 * EASY with its reservation made only tries starts: the pass ends once
 * every job left asks for more cores than are free, and not before a
 * narrow one further down.
 */
START_TEST(test_easy_stops_when_nothing_fits)
{
	struct rota_sched_stats st;
	uint32_t c, d, e;

	gap_setup("Sched=backfill Resolution=1s");
	c = submit(T0, 5, 50); /* 4 cores free: C and D fit nowhere */
	d = submit(T0, 6, 50);
	st = backfill(T0);
	ck_assert_int_eq(core_job_find(core, b)->est_start, T0 + 100);
	ck_assert_uint_eq(st.reserved, 1);
	ck_assert_uint_eq(st.tested, 1); /* B; C and D not tried */
	ck_assert_uint_eq(st.depth, 1);
	ck_assert_int_eq(state(c), ROTA_JOB_PENDING);
	ck_assert_int_eq(state(d), ROTA_JOB_PENDING);
	e = submit(T0 + 1, 2, 50); /* behind them, and it fits */
	st = backfill(T0 + 1);
	ck_assert_uint_eq(st.tested, 4);
	ck_assert_int_eq(state(e), ROTA_JOB_RUNNING);
	ck_assert_uint_eq(core_job_find(core, c)->bypass, 1);
}
END_TEST

/*
 * The 4 cores free now are the top job's from 100 on: no job of 200
 * can use them, and the pass stops at the reservation.  A job of 50
 * could (it ends before): then the others are tried.
 */
START_TEST(test_easy_stops_at_held_cores)
{
	struct rota_sched_stats st;
	uint32_t c, e;

	start(ONE_NODE("8", "Sched=backfill Resolution=1s"));
	a = submit(T0, 4, 100);
	core_schedule(core, T0);
	b = submit(T0, 8, 300);
	c = submit(T0, 2, 200);
	submit(T0, 1, 200);
	st = backfill(T0);
	ck_assert_int_eq(core_job_find(core, b)->est_start, T0 + 100);
	ck_assert_uint_eq(st.tested, 1); /* B; the others not tried */
	ck_assert_int_eq(state(c), ROTA_JOB_PENDING);
	e = submit(T0 + 1, 2, 50);
	st = backfill(T0 + 1);
	ck_assert_uint_eq(st.tested, 4);
	ck_assert_int_eq(state(e), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(c), ROTA_JOB_PENDING);
}
END_TEST

/* A reservation beyond the window may come within it: never settled. */
START_TEST(test_window_not_settled)
{
	gap_setup("Sched=backfill Resolution=1s Window=60s");
	submit(T0, 5, 1000); /* fits nowhere now: no start to settle it */
	backfill(T0);
	ck_assert_int_eq(core_job_find(core, b)->est_start, 0);
	backfill(T0 + 30);
	ck_assert_uint_eq(core_sched_stats(core)->bf_passes, 2);
	ck_assert_uint_eq(core_sched_stats(core)->bf_skipped, 0);
	/* now B's start is within the window: reserved, then settled */
	backfill(T0 + 45);
	ck_assert_int_eq(core_job_find(core, b)->est_start, T0 + 100);
	backfill(T0 + 50);
	ck_assert_uint_eq(core_sched_stats(core)->bf_passes, 3);
}
END_TEST

/* Without backfill (builtin), C waits behind B in strict order. */
START_TEST(test_builtin_no_backfill)
{
	uint32_t c;

	gap_setup("Sched=builtin");
	c = submit(T0, 4, 100);
	backfill(T0);
	ck_assert_int_eq(state(c), ROTA_JOB_PENDING);
}
END_TEST

/*
 * 16 cores; A holds 12 until 100.  B (12 cores) is reserved [100, 200)
 * and C (16 cores) would come [200, 300).  D (4 cores for 1000 s) fits
 * beside B, but over C's span: EASY (one reservation) starts it,
 * conservative (a reservation for every job) keeps it for C.
 */
static const char *const modes[] = { "easy", "conservative" };

START_TEST(test_easy_vs_conservative)
{
	char sched[128];
	char text[512];
	uint32_t c, d;

	snprintf(sched, sizeof(sched),
		 "Sched=backfill Mode=%s NoCaps=yes Resolution=1s", modes[_i]);
	snprintf(text, sizeof(text), ONE_NODE("16", "%s"), sched);
	start(text);
	a = submit(T0, 12, 100);
	core_schedule(core, T0);
	b = submit(T0, 12, 100);
	c = submit(T0, 16, 100);
	d = submit(T0, 4, 1000);
	backfill(T0);
	ck_assert_int_eq(core_job_find(core, b)->est_start, T0 + 100);
	if (_i == 0) {
		ck_assert_int_eq(state(d), ROTA_JOB_RUNNING);
		ck_assert_int_eq(core_job_find(core, c)->est_start, 0);
	} else {
		ck_assert_int_eq(state(d), ROTA_JOB_PENDING);
		ck_assert_int_eq(core_job_find(core, c)->est_start, T0 + 200);
		ck_assert_int_eq(core_job_find(core, d)->est_start, T0 + 300);
	}
}
END_TEST

/* EASY with ReservationDepth=2 reserves for C as well. */
START_TEST(test_reservation_depth)
{
	char text[512];
	uint32_t c, d;

	snprintf(text, sizeof(text), ONE_NODE("16", "%s"),
		 "Sched=backfill ReservationDepth=2 Resolution=1s");
	start(text);
	a = submit(T0, 12, 100);
	core_schedule(core, T0);
	b = submit(T0, 12, 100);
	c = submit(T0, 16, 100);
	d = submit(T0, 4, 1000);
	backfill(T0);
	ck_assert_int_eq(core_job_find(core, c)->est_start, T0 + 200);
	ck_assert_int_eq(state(d), ROTA_JOB_PENDING);
	(void)b;
}
END_TEST

/* ---- placement ------------------------------------------------------- */

/* ReservedCores=2: ordinary jobs get 6 of 8, a test job starts at once. */
START_TEST(test_reserved_cores)
{
	uint32_t j[4], t;

	start("NodeName=n1 CPUs=8 RealMemory=16G\n"
	      "QueueName=batch Default=yes\n"
	      "QueueName=test ReservedCores=2 MaxTime=1:00:00\n");
	for (int i = 0; i < 4; i++)
		j[i] = submit(T0, 2, 600);
	core_schedule(core, T0);
	drop_actions();
	ck_assert_int_eq(state(j[2]), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(j[3]), ROTA_JOB_PENDING);
	t = submit_q(T0, "test", 2, 600, 0);
	core_schedule(core, T0);
	drop_actions();
	ck_assert_int_eq(state(t), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(j[3]), ROTA_JOB_PENDING);
}
END_TEST

/* An ordinary job can never have the kept cores: refused at submit. */
START_TEST(test_reserved_cores_submit)
{
	struct rota_job_desc d = {
		.name = rota_xstrdup("wide"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		.ntasks = 8,
		.cpus_per_task = 1,
	};
	struct core_submit req = { .desc = &d, .uid = 1000, .gid = 1000,
				   .user = "ana" };
	struct rota_error err = { "" };
	uint32_t id;

	start("NodeName=n1 CPUs=8 RealMemory=16G\n"
	      "QueueName=batch Default=yes\n"
	      "QueueName=test ReservedCores=2\n");
	ck_assert_int_eq(core_submit(core, T0, &req, &id, &err), -EINVAL);
	rota_job_desc_clear(&d);
}
END_TEST

/* Best fit: a small job takes the small node, listed after the big. */
START_TEST(test_best_fit)
{
	uint32_t s, bigjob;

	start("NodeName=big CPUs=8 RealMemory=1T Features=largemem\n"
	      "NodeName=small CPUs=8 RealMemory=16G\n"
	      "QueueName=batch Default=yes\n");
	s = submit_q(T0, NULL, 2, 60, 4 * GB);
	bigjob = submit_q(T0, NULL, 2, 60, 512 * GB);
	core_schedule(core, T0);
	drop_actions();
	ck_assert_str_eq(core_node_get(core, core_job_find(core, s)
						      ->alloc[0].node)->name,
			 "small");
	ck_assert_str_eq(core_node_get(core, core_job_find(core, bigjob)
						      ->alloc[0].node)->name,
			 "big");
}
END_TEST

static uint32_t submit_shape(int64_t now, uint32_t tasks, uint32_t per_node,
			     bool exclusive)
{
	struct rota_job_desc d = {
		.name = rota_xstrdup("job"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		.ntasks = tasks,
		.cpus_per_task = 1,
		.time_limit = 600,
		.ntasks_per_node = per_node,
		.exclusive = exclusive,
	};
	struct core_submit req = { .desc = &d, .uid = 1000, .gid = 1000,
				   .user = "ana" };
	struct rota_error err = { "" };
	uint32_t id = 0;

	ck_assert_msg(core_submit(core, now, &req, &id, &err) == 0, "%s",
		      err.text);
	rota_job_desc_clear(&d);
	return id;
}

/* --exclusive waits for an idle node and holds all of its cores. */
START_TEST(test_exclusive)
{
	uint32_t small, ex, after;
	const struct core_job *j;

	start("NodeName=n[1-2] CPUs=8 RealMemory=16G\n"
	      "QueueName=batch Default=yes\n");
	small = submit(T0, 1, 600);
	ex = submit_shape(T0, 2, 0, true);
	after = submit(T0, 1, 600);
	core_schedule(core, T0);
	drop_actions();
	j = core_job_find(core, ex);
	ck_assert_int_eq(j->state, ROTA_JOB_RUNNING);
	ck_assert_uint_eq(j->alloc[0].ncores, 8);
	ck_assert_uint_ne(j->alloc[0].node,
			  core_job_find(core, small)->alloc[0].node);
	/* the third job shares the small one's node, not the exclusive's */
	ck_assert_uint_eq(core_job_find(core, after)->alloc[0].node,
			  core_job_find(core, small)->alloc[0].node);
}
END_TEST

/* --ntasks-per-node=2 spreads 4 tasks over 2 nodes, 2 each. */
START_TEST(test_ntasks_per_node)
{
	const struct core_job *j;
	uint32_t id;

	start("NodeName=n[1-2] CPUs=8 RealMemory=16G\n"
	      "QueueName=batch Default=yes\n");
	id = submit_shape(T0, 4, 2, false);
	core_schedule(core, T0);
	drop_actions();
	j = core_job_find(core, id);
	ck_assert_int_eq(j->state, ROTA_JOB_RUNNING);
	ck_assert_uint_eq(j->nalloc, 2);
	ck_assert_uint_eq(j->alloc[0].ncores, 2);
	ck_assert_uint_eq(j->alloc[1].ncores, 2);
}
END_TEST

/* SchedulerDepth=2: a main pass tries two jobs, the rest waits. */
START_TEST(test_main_depth)
{
	uint32_t j[4];

	start(ONE_NODE("8", "SchedulerDepth=2"));
	for (int i = 0; i < 4; i++)
		j[i] = submit(T0, 1, 60);
	ck_assert_uint_eq(core_schedule(core, T0), 2);
	ck_assert_int_eq(state(j[2]), ROTA_JOB_PENDING);
	ck_assert_uint_eq(core_schedule(core, T0), 2);
	ck_assert_int_eq(state(j[3]), ROTA_JOB_RUNNING);
	drop_actions();
}
END_TEST

/*
 * SchedulerQueueDepth=2 (Slurm's partition_job_depth): a main pass tries
 * two jobs of each queue; the third of medium40:test waits with reason
 * Priority while the other queue goes on, and the next pass takes it.
 */
START_TEST(test_queue_depth)
{
	uint32_t t[3], m[2];

	start("NodeName=n1 CPUs=8 RealMemory=16G\n"
	      "QueueName=medium40:test Default=yes\n"
	      "QueueName=medium40\n"
	      "SchedulerQueueDepth=2\n");
	for (int i = 0; i < 3; i++)
		t[i] = submit_q(T0, "medium40:test", 1, 60, 0);
	for (int i = 0; i < 2; i++)
		m[i] = submit_q(T0, "medium40", 1, 60, 0);
	ck_assert_uint_eq(core_schedule(core, T0), 4);
	ck_assert_int_eq(state(t[1]), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(t[2]), ROTA_JOB_PENDING);
	ck_assert_str_eq(core_job_reason(core, core_job_find(core, t[2])),
			 "Priority");
	ck_assert_int_eq(state(m[1]), ROTA_JOB_RUNNING);
	ck_assert_uint_eq(core_sched_stats(core)->main_depth, 4);
	ck_assert_uint_eq(core_schedule(core, T0), 1);
	ck_assert_int_eq(state(t[2]), ROTA_JOB_RUNNING);
	drop_actions();
}
END_TEST

/* SchedulerQueueDepth=0 (the default): no bound per queue. */
START_TEST(test_queue_depth_off)
{
	start(ONE_NODE("8", "SchedulerQueueDepth=0"));
	for (int i = 0; i < 5; i++)
		submit(T0, 1, 60);
	ck_assert_uint_eq(core_schedule(core, T0), 5);
	drop_actions();
}
END_TEST

/* ---- never delayed ---------------------------------------------------- */

struct running {
	uint32_t id;
	int64_t end;
};

/*
 * A random workload on 4 nodes of 8 cores, jobs running exactly to their
 * limits: a job that a backfill pass reserved for starts no later than
 * the earliest time it was promised.
 */
#define RANDOM_JOBS 150

static void record_promises(int64_t *promise)
{
	for (uint32_t id = 1; id <= RANDOM_JOBS; id++) {
		const struct core_job *j = core_job_find(core, id);

		if (j && j->state == ROTA_JOB_PENDING && j->est_start &&
		    (!promise[id] || j->est_start < promise[id]))
			promise[id] = j->est_start;
	}
}

START_TEST(test_never_delays_reservation)
{
	int64_t promise[RANDOM_JOBS + 1] = { 0 };
	int64_t end[RANDOM_JOBS + 1] = { 0 };
	unsigned seed = 12345u + (unsigned)_i;
	size_t done = 0, kept = 0;
	int64_t t;

	start("NodeName=n[1-4] CPUs=8 RealMemory=16G\n"
	      "QueueName=batch Default=yes\n"
	      "Sched=backfill Mode=easy NoCaps=yes Resolution=1s\n");
	for (int i = 0; i < RANDOM_JOBS; i++)
		submit(T0, 1 + (unsigned)rand_r(&seed) % 16,
		       10 + rand_r(&seed) % 300);
	for (t = T0; t < T0 + 50000 && done < RANDOM_JOBS; t++) {
		for (uint32_t id = 1; id <= RANDOM_JOBS; id++) {
			if (end[id] == t) {
				end_job(t, id);
				done++;
			}
		}
		core_schedule(core, t);
		if ((t - T0) % 7 == 0) { /* a backfill pass now and then */
			backfill(t);
			record_promises(promise);
		}
		drop_actions();
		for (uint32_t id = 1; id <= RANDOM_JOBS; id++) {
			const struct core_job *j = core_job_find(core, id);

			if (j->state != ROTA_JOB_RUNNING || end[id])
				continue;
			end[id] = t + j->time_limit;
			ck_assert_msg(!promise[id] || t <= promise[id],
				      "job %u started at +%lld, promised "
				      "+%lld", id, (long long)(t - T0),
				      (long long)(promise[id] - T0));
			kept += promise[id] != 0;
		}
	}
	ck_assert_uint_eq(done, RANDOM_JOBS);
	ck_assert_uint_gt(kept, 10); /* reservations were made and kept */
}
END_TEST

static Suite *backfill_suite(void)
{
	Suite *s = suite_create("backfill");
	TCase *tc = tcase_create("backfill");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_gap_fits);
	tcase_add_test(tc, test_gap_one_second_short);
	tcase_add_test(tc, test_would_delay_top);
	tcase_add_test(tc, test_same_instant_steps);
	tcase_add_loop_test(tc, test_nocaps_window, 0, 2);
	tcase_add_loop_test(tc, test_order_shortest, 0, 2);
	tcase_add_test(tc, test_builtin_no_backfill);
	tcase_add_test(tc, test_settled_passes);
	tcase_add_test(tc, test_easy_stops_when_nothing_fits);
	tcase_add_test(tc, test_easy_stops_at_held_cores);
	tcase_add_test(tc, test_window_not_settled);
	tcase_add_loop_test(tc, test_easy_vs_conservative, 0, N(modes));
	tcase_add_test(tc, test_reservation_depth);
	tcase_add_test(tc, test_reserved_cores);
	tcase_add_test(tc, test_reserved_cores_submit);
	tcase_add_test(tc, test_best_fit);
	tcase_add_test(tc, test_main_depth);
	tcase_add_test(tc, test_queue_depth);
	tcase_add_test(tc, test_queue_depth_off);
	tcase_add_test(tc, test_exclusive);
	tcase_add_test(tc, test_ntasks_per_node);
	tcase_add_loop_test(tc, test_never_delays_reservation, 0, 5);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(backfill_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
