// SPDX-License-Identifier: MIT
/*
 * Start-time estimates and rota why, through core.h on the virtual
 * clock: a job behind a reserved job gets its expected nodes and start;
 * core_why names the jobs ahead with their starts, and its --time hint
 * is exact (the job with the hinted limit starts at the next backfill
 * pass, one second longer it waits); held, limited, reservation and
 * running jobs say so and get no what-if.
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
#define ANA 1000
#define BOB 1001

static struct core *core;
static struct rota_conf *conf;

static void teardown(void)
{
	fixture_stop(&core, &conf);
}

struct job {
	uint32_t ntasks;
	uint32_t nodes;
	int64_t limit;
	const char *resv;
};

static uint32_t submit(int64_t now, const struct job *j)
{
	struct rota_job_desc d = {
		.name = rota_xstrdup("job"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		.reservation = j->resv ? rota_xstrdup(j->resv) : NULL,
		.ntasks = j->ntasks,
		.nodes = j->nodes,
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

static void end_job(int64_t now, uint32_t id)
{
	fixture_end_job(core, now, id);
}

static enum rota_job_state state(uint32_t id)
{
	return core_job_find(core, id)->state;
}

static void why(uint32_t id, struct core_why *w)
{
	struct rota_error err = { "" };

	ck_assert_msg(core_why(core, T0, id, ANA, false, w, &err) == 0, "%s",
		      err.text);
}

static void est_nodes_is(uint32_t id, const char *want)
{
	char *nodes = core_job_est_nodelist(core, core_job_find(core, id));

	if (!want)
		ck_assert_ptr_null(nodes);
	else
		ck_assert_str_eq(nodes, want);
	free(nodes);
}

#define TWO_NODES                                                              \
	"NodeName=n1 CPUs=8 RealMemory=16G\n"                                 \
	"NodeName=n2 CPUs=8 RealMemory=16G\n"                                 \
	"QueueName=batch Default=yes\n"                                       \
	"Sched=backfill Resolution=1s\n"

/*
 * n1 and n2, 8 cores each.  A (4 cores) runs on n1 until 100, L (8)
 * fills n2 until 300.  B (8 cores on one node) is reserved on n1 at 100;
 * C (4 cores for 1000) fits beside A now but would delay B.
 */
static uint32_t a, l, b, c;

static void gap_setup(int64_t c_limit)
{
	fixture_start(TWO_NODES, T0, &core, &conf);
	a = submit(T0, &(struct job){ .ntasks = 4, .limit = 100 });
	l = submit(T0, &(struct job){ .ntasks = 8, .limit = 300 });
	fixture_passes(core, T0);
	b = submit(T0, &(struct job){ .ntasks = 8, .nodes = 1, .limit = 100 });
	c = submit(T0, &(struct job){ .ntasks = 4, .limit = c_limit });
	fixture_passes(core, T0);
	ck_assert_int_eq(state(a), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(l), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(b), ROTA_JOB_PENDING);
}

START_TEST(test_est_nodes)
{
	gap_setup(1000);
	ck_assert_int_eq(state(c), ROTA_JOB_PENDING);
	ck_assert_int_eq(core_job_find(core, b)->est_start, T0 + 100);
	est_nodes_is(b, "n1");
	est_nodes_is(c, NULL); /* EASY: one reservation */
	est_nodes_is(a, NULL); /* running: none */
	/* A ends, B starts: its estimate and its nodes are gone */
	end_job(T0 + 100, a);
	fixture_passes(core, T0 + 100);
	ck_assert_int_eq(state(b), ROTA_JOB_RUNNING);
	ck_assert_int_eq(core_job_find(core, b)->est_start, 0);
	ck_assert_ptr_null(core_job_find(core, b)->est_node);
}
END_TEST

START_TEST(test_why_names_job_ahead)
{
	struct core_why w;

	gap_setup(1000);
	why(c, &w);
	ck_assert_str_eq(w.reason, "Priority");
	ck_assert_uint_eq(w.nresv, 1);
	ck_assert_ptr_eq(w.resv[0], core_job_find(core, b));
	ck_assert_int_eq(w.resv[0]->est_start, T0 + 100);
	ck_assert_ptr_eq(w.first, core_job_find(core, b));
	ck_assert_uint_eq(w.nahead, 1);
	ck_assert(!w.fits_now);
	/* 4 cores of n1 until B's reservation at 100 */
	ck_assert_int_eq(w.fit_limit, 100);
	ck_assert_uint_eq(w.fit_tasks, 0);
	/* B itself: nothing ahead, its own reservation */
	why(b, &w);
	ck_assert_str_eq(w.reason, "Resources");
	ck_assert_uint_eq(w.nresv, 0);
	ck_assert_ptr_null(w.first);
}
END_TEST

/*
 * The hint is exact: C resubmitted with the hinted limit starts at the
 * next pass; one second or a minute longer, it waits.
 */
static const int64_t over[] = { 0, 1, 60 };

START_TEST(test_hint_exact)
{
	struct core_update u = { 0 };
	struct rota_error err = { "" };
	struct core_why w;

	gap_setup(1000);
	why(c, &w);
	ck_assert_int_eq(w.fit_limit, 100);
	u.time_limit = w.fit_limit + over[_i];
	ck_assert_msg(core_update(core, T0, c, ANA, false, &u, &err) == 0,
		      "%s", err.text);
	fixture_passes(core, T0);
	ck_assert_int_eq(state(c), over[_i] ? ROTA_JOB_PENDING
					    : ROTA_JOB_RUNNING);
	ck_assert_int_eq(core_job_find(core, b)->est_start, T0 + 100);
}
END_TEST

/*
 * Fewer tasks: A holds 4 cores of n1 until 100, B is reserved 6 of them
 * from 100: 2 stay free throughout.
 */
START_TEST(test_fewer_tasks)
{
	struct core_why w;
	uint32_t d;

	fixture_start(TWO_NODES, T0, &core, &conf);
	a = submit(T0, &(struct job){ .ntasks = 4, .limit = 100 });
	l = submit(T0, &(struct job){ .ntasks = 8, .limit = 300 });
	fixture_passes(core, T0);
	b = submit(T0, &(struct job){ .ntasks = 6, .nodes = 1, .limit = 100 });
	c = submit(T0, &(struct job){ .ntasks = 4, .limit = 1000 });
	fixture_passes(core, T0);
	ck_assert_int_eq(state(c), ROTA_JOB_PENDING);
	why(c, &w);
	ck_assert_uint_eq(w.fit_tasks, 2);
	ck_assert_int_eq(w.fit_limit, 100);
	/* two tasks of it start now, beside B's reservation */
	d = submit(T0, &(struct job){ .ntasks = 2, .limit = 1000 });
	fixture_passes(core, T0);
	ck_assert_int_eq(state(d), ROTA_JOB_RUNNING);
	ck_assert_int_eq(core_job_find(core, b)->est_start, T0 + 100);
}
END_TEST

/*
 * A wide job's expected nodes: n[1-4] of 4 cores; A holds n1 and n2
 * until 100, R holds n3 until 500; W (3 nodes) is reserved at 100 on the
 * three others.  S (4 cores for 200) behind it: EASY reserves nothing
 * for it, and it would backfill now on n4 with a limit of 100;
 * conservative reserves it after W, at 200, on a node W frees.
 */
static const char *const modes[] = { "easy", "conservative" };

START_TEST(test_wide_est_nodes)
{
	char text[256];
	struct core_why w;
	uint32_t wide, r, s;

	snprintf(text, sizeof(text),
		 "NodeName=n[1-4] CPUs=4 RealMemory=16G\n"
		 "QueueName=batch Default=yes\n"
		 "Sched=backfill Mode=%s Resolution=1s\n",
		 modes[_i]);
	fixture_start(text, T0, &core, &conf);
	a = submit(T0, &(struct job){ .ntasks = 8, .nodes = 2, .limit = 100 });
	r = submit(T0, &(struct job){ .ntasks = 4, .nodes = 1, .limit = 500 });
	fixture_passes(core, T0);
	ck_assert_int_eq(state(a), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(r), ROTA_JOB_RUNNING);
	est_nodes_is(a, NULL);
	wide = submit(T0,
		      &(struct job){ .ntasks = 12, .nodes = 3, .limit = 100 });
	s = submit(T0, &(struct job){ .ntasks = 4, .limit = 200 });
	fixture_passes(core, T0);
	ck_assert_int_eq(state(s), ROTA_JOB_PENDING);
	ck_assert_int_eq(core_job_find(core, wide)->est_start, T0 + 100);
	est_nodes_is(wide, "n[1-2,4]");
	why(s, &w);
	ck_assert_uint_eq(w.nresv, 1);
	ck_assert_ptr_eq(w.resv[0], core_job_find(core, wide));
	ck_assert_int_eq(w.fit_limit, 100);
	if (_i == 0) {
		est_nodes_is(s, NULL);
		return;
	}
	ck_assert_int_eq(core_job_find(core, s)->est_start, T0 + 200);
	est_nodes_is(s, "n1");
}
END_TEST

START_TEST(test_held)
{
	struct rota_error err = { "" };
	struct core_why w;

	gap_setup(1000);
	ck_assert_int_eq(core_hold(core, T0, c, ANA, false, false, &err), 0);
	why(c, &w);
	ck_assert_str_eq(w.reason, "JobHeldUser");
	ck_assert(!w.fits_now && !w.fit_limit && !w.fit_tasks);
}
END_TEST

START_TEST(test_limited)
{
	struct core_why w;
	uint32_t one, two;

	fixture_start("NodeName=n1 CPUs=8 RealMemory=16G\n"
		      "QueueName=batch Default=yes\n"
		      "Sched=backfill Resolution=1s\n"
		      "AccountName=physics\n"
		      "UserName=ana Account=physics Default=yes MaxJobs=1\n",
		      T0, &core, &conf);
	one = submit(T0, &(struct job){ .ntasks = 1, .limit = 100 });
	two = submit(T0, &(struct job){ .ntasks = 1, .limit = 100 });
	fixture_passes(core, T0);
	ck_assert_int_eq(state(one), ROTA_JOB_RUNNING);
	why(two, &w);
	ck_assert_ptr_nonnull(strstr(w.reason, "MaxJobs"));
	ck_assert(w.job->limited);
	ck_assert(!w.fits_now && !w.fit_limit);
}
END_TEST

START_TEST(test_reservation)
{
	static char *const ana[] = { "ana", NULL };
	struct core_resv_req req = {
		.name = "maint",
		.start = T0 + 1000,
		.end = T0 + 2000,
		.nodes = "n1",
		.users = ana,
	};
	struct rota_error err = { "" };
	struct core_why w;
	uint32_t j;

	fixture_start(TWO_NODES, T0, &core, &conf);
	ck_assert_msg(core_resv_create(core, T0, &req, NULL, &err) == 0, "%s",
		      err.text);
	j = submit(T0, &(struct job){ .ntasks = 1, .limit = 100,
				      .resv = "maint" });
	fixture_passes(core, T0);
	ck_assert_int_eq(state(j), ROTA_JOB_PENDING);
	why(j, &w);
	ck_assert_str_eq(w.reason, "Reservation");
	ck_assert(!w.fits_now && !w.fit_limit);
}
END_TEST

START_TEST(test_running_and_access)
{
	struct rota_error err = { "" };
	struct core_why w;

	gap_setup(1000);
	why(a, &w);
	ck_assert_int_eq(w.job->state, ROTA_JOB_RUNNING);
	ck_assert_uint_eq(w.nresv, 0);
	/* another user may not ask; an operator may */
	ck_assert_int_eq(core_why(core, T0, c, BOB, false, &w, &err), -EPERM);
	ck_assert_int_eq(core_why(core, T0, c, BOB, true, &w, &err), 0);
	ck_assert_int_eq(core_why(core, T0, 999, ANA, false, &w, &err),
			 -ENOENT);
}
END_TEST

/* Sched=builtin: no reservations, no what-if. */
START_TEST(test_builtin)
{
	struct core_why w;

	fixture_start("NodeName=n1 CPUs=8 RealMemory=16G\n"
		      "QueueName=batch Default=yes\n",
		      T0, &core, &conf);
	a = submit(T0, &(struct job){ .ntasks = 4, .limit = 100 });
	b = submit(T0, &(struct job){ .ntasks = 8, .limit = 100 });
	c = submit(T0, &(struct job){ .ntasks = 4, .limit = 1000 });
	fixture_passes(core, T0);
	why(c, &w);
	ck_assert_str_eq(w.sched, "builtin");
	ck_assert_str_eq(w.reason, "Priority");
	ck_assert_ptr_eq(w.first, core_job_find(core, b));
	ck_assert(!w.fits_now && !w.fit_limit && !w.fit_tasks);
}
END_TEST

static Suite *why_suite(void)
{
	Suite *s = suite_create("why");
	TCase *tc = tcase_create("why");

	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_est_nodes);
	tcase_add_test(tc, test_why_names_job_ahead);
	tcase_add_loop_test(tc, test_hint_exact, 0, N(over));
	tcase_add_test(tc, test_fewer_tasks);
	tcase_add_loop_test(tc, test_wide_est_nodes, 0, N(modes));
	tcase_add_test(tc, test_held);
	tcase_add_test(tc, test_limited);
	tcase_add_test(tc, test_reservation);
	tcase_add_test(tc, test_running_and_access);
	tcase_add_test(tc, test_builtin);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(why_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
