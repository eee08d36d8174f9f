// SPDX-License-Identifier: MIT
/*
 * UsageCharge=measured through core.h, on the virtual clock: the weighed
 * arithmetic of one report (CPU seconds, the memory integral, io), and
 * that each CPU second is charged once whatever the reports do: repeated,
 * late, lost, of an earlier run (a requeue), of an ended job, after a
 * restart from the journal's records.  UsageCharge=allocated (the
 * default) still charges cores x wall time and refuses reports.
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
#include "ctld/job_record.h"
#include "plugins/rota_plugin.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define T0 ((int64_t)1700000000)
#define GIB (UINT64_C(1) << 30)
#define SEC UINT64_C(1000000)

/* a half-life of ten years: usage over seconds does not visibly decay */
static const char base_conf[] = "NodeName=n1 CPUs=8 RealMemory=16G\n"
				"QueueName=batch Default=yes\n"
				"QueueName=qexp Charge=no\n"
				"AccountName=physics Shares=40\n"
				"UserName=ana Account=physics\n"
				"UserName=bob Account=physics\n"
				"UsageHalfLife=3650d\n";

static struct core *core;
static struct rota_conf *conf;

static void start(const char *more)
{
	char *text = rota_xasprintf("%s%s", base_conf, more);
	struct rota_error err = { "" };
	struct rota_node_info info = {
		.name = "n1", .state = "UP", .reason = "",
		.sockets = 1, .cores = 8, .pus = 8, .memory_mb = 16 * 1024,
	};
	int rc = rota_conf_load_buffer("test.conf", text, strlen(text), &conf,
				       &err);

	free(text);
	ck_assert_msg(rc == 0, "config: %s", err.text);
	rc = core_create(conf, &core, &err);
	ck_assert_msg(rc == 0, "core: %s", err.text);
	ck_assert_int_eq(core_node_register(core, T0, &info, &err), 0);
}

static void teardown(void)
{
	core_destroy(core);
	rota_conf_destroy(conf);
	core = NULL;
	conf = NULL;
}

/* Submit and start a job of 'cores' cores now; returns its id. */
static uint32_t run(int64_t now, const char *user, const char *queue,
		    uint32_t cores)
{
	struct rota_job_desc d = {
		.name = rota_xstrdup("job"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		.queue = queue ? rota_xstrdup(queue) : NULL,
		.ntasks = cores,
		.cpus_per_task = 1,
	};
	struct core_submit s = { .desc = &d, .uid = 1000, .gid = 1000,
				 .user = user };
	struct rota_error err = { "" };
	uint32_t id = 0;
	int rc = core_submit(core, now, &s, &id, &err);

	rota_job_desc_clear(&d);
	ck_assert_msg(rc == 0, "submit: %s", err.text);
	core_schedule(core, now);
	ck_assert_int_eq(core_job_find(core, id)->state, ROTA_JOB_RUNNING);
	return id;
}

/* The node reports job 'id' run 'run' at these totals. */
static int report(int64_t now, const char *node, uint32_t id, uint32_t run,
		  uint64_t cpu_usec, uint64_t mem, uint64_t io)
{
	struct rota_job_sample s = {
		.job_id = id, .run = run, .cpu_usec = cpu_usec,
		.mem_bytes = mem, .io_bytes = io,
	};
	struct rota_error err = { "" };

	return core_job_measured(core, now, node, &s, &err);
}

static void end(int64_t now, uint32_t id, uint64_t cpu_usec)
{
	struct rota_msg_job_end e = {
		.job_id = id,
		.run = core_job_find(core, id)->run,
		.state = ROTA_JOB_COMPLETED,
		.cpu_usec = cpu_usec,
	};
	struct rota_error err = { "" };

	ck_assert_int_eq(core_job_end(core, now, "n1", &e, &err), 0);
}

static double usage_of(int64_t now, const char *user)
{
	const struct rota_share_tree *t;

	ck_assert_int_eq(core_share_update(core, now), 0);
	t = core_share_tree(core);
	for (size_t i = 0; i < t->n; i++)
		if (t->nodes[i].is_user && !strcmp(t->nodes[i].name, user))
			return t->nodes[i].usage;
	ck_abort_msg("no user %s", user);
	return -1;
}

/* ---- the arithmetic of one report ---------------------------------------- */

static const struct {
	const char *what;
	struct rota_usage_weights w;
	struct core_meter from;
	uint64_t cpu_usec, mem, io;
	double charge;
} reports[] = {
	{ "cpu=1: CPU seconds", { 1, 0, 0 }, { 0 }, 7 * SEC, GIB, 0, 7 },
	{ "from a mark: the increase", { 1, 0, 0 }, { .cpu_usec = 2 * SEC },
	  7 * SEC, 0, 0, 5 },
	{ "the same totals again: nothing", { 1, 0, 0 },
	  { .cpu_usec = 7 * SEC }, 7 * SEC, 0, 0, 0 },
	{ "late, below the mark: nothing", { 1, 0, 0 },
	  { .cpu_usec = 9 * SEC }, 7 * SEC, 0, 0, 0 },
	{ "mem=1: GB x CPU seconds", { 0, 1, 0 }, { .cpu_usec = 1 * SEC },
	  5 * SEC, 3 * GIB, 0, 12 },
	{ "mem without CPU time: nothing", { 0, 1, 0 },
	  { .cpu_usec = 5 * SEC }, 5 * SEC, 8 * GIB, 0, 0 },
	{ "io=1: GB read and written", { 0, 0, 1 }, { .io_bytes = GIB },
	  0, 0, 3 * GIB, 2 },
	/* weights are normalized: (1 x 4 s + 1 x 2 GB x 4 s) / 2 */
	{ "cpu=1,mem=1: halves of each", { 1, 1, 0 }, { 0 }, 4 * SEC,
	  2 * GIB, 0, 6 },
	{ "cpu=3,io=1: three quarters and one", { 3, 0, 1 }, { 0 }, 4 * SEC,
	  0, 4 * GIB, 4 },
};

START_TEST(test_meter_advance)
{
	struct core_meter m = reports[_i].from;
	double v = core_meter_advance(&m, &reports[_i].w, reports[_i].cpu_usec,
				      reports[_i].mem, reports[_i].io);

	ck_assert_msg(v > reports[_i].charge - 1e-9 &&
			      v < reports[_i].charge + 1e-9,
		      "%s: %g, not %g", reports[_i].what, v,
		      reports[_i].charge);
	/* marks only move up: the same report twice adds nothing */
	ck_assert_uint_ge(m.cpu_usec, reports[_i].cpu_usec);
	ck_assert_uint_ge(m.io_bytes, reports[_i].io);
	ck_assert_double_eq_tol(core_meter_advance(&m, &reports[_i].w,
						   reports[_i].cpu_usec,
						   reports[_i].mem,
						   reports[_i].io),
				0, 1e-12);
}
END_TEST

/* ---- through the core ---------------------------------------------------- */

/* Reports charge what grew, once; what follows the end charges nothing. */
START_TEST(test_charged_once)
{
	uint32_t id;

	start("UsageCharge=measured\n");
	id = run(T0, "ana", NULL, 2);
	ck_assert_int_eq(report(T0 + 10, "n1", id, 1, 5 * SEC, GIB, 0), 0);
	ck_assert_double_eq_tol(usage_of(T0 + 10, "ana"), 5, 1e-3);
	/* repeated, and late (lower totals): nothing more */
	ck_assert_int_eq(report(T0 + 11, "n1", id, 1, 5 * SEC, GIB, 0), 0);
	ck_assert_int_eq(report(T0 + 12, "n1", id, 1, 4 * SEC, GIB, 0), 0);
	ck_assert_double_eq_tol(usage_of(T0 + 12, "ana"), 5, 1e-3);
	/* one lost: the next carries its part */
	ck_assert_int_eq(report(T0 + 30, "n1", id, 1, 9 * SEC, GIB, 0), 0);
	ck_assert_double_eq_tol(usage_of(T0 + 30, "ana"), 9, 1e-3);
	/* an earlier run's, or another node's: not this job's */
	ck_assert_int_eq(report(T0 + 31, "n1", id, 2, 50 * SEC, 0, 0),
			 -ENOENT);
	ck_assert_int_eq(report(T0 + 31, "n2", id, 1, 50 * SEC, 0, 0),
			 -ENOENT);
	end(T0 + 40, id, 12 * SEC);
	ck_assert_double_eq_tol(usage_of(T0 + 40, "ana"), 12, 1e-3);
	ck_assert_double_eq_tol(core_job_usage(core, core_job_find(core, id)),
				12, 1e-9);
	/* after its end: refused, nothing charged */
	ck_assert_int_eq(report(T0 + 41, "n1", id, 1, 20 * SEC, 0, 0),
			 -ENOENT);
	ck_assert_double_eq_tol(usage_of(T0 + 41, "ana"), 12, 1e-3);
}
END_TEST

/* Measured: a job that sleeps on its cores costs about nothing. */
START_TEST(test_wall_time_not_charged)
{
	uint32_t busy, idle;

	start("UsageCharge=measured\n");
	busy = run(T0, "ana", NULL, 2);
	idle = run(T0, "bob", NULL, 2);
	ck_assert_int_eq(report(T0 + 60, "n1", busy, 1, 100 * SEC, 0, 0), 0);
	ck_assert_int_eq(report(T0 + 60, "n1", idle, 1, SEC / 100, 0, 0), 0);
	end(T0 + 100, busy, 160 * SEC);
	end(T0 + 100, idle, SEC / 50);
	ck_assert_double_eq_tol(usage_of(T0 + 200, "ana"), 160, 1e-3);
	ck_assert_double_eq_tol(usage_of(T0 + 200, "bob"), 0.02, 1e-3);
}
END_TEST

/* The default: cores x wall time, reports refused. */
START_TEST(test_allocated_default)
{
	uint32_t id;

	start("");
	id = run(T0, "ana", NULL, 2);
	ck_assert_int_eq(report(T0 + 10, "n1", id, 1, 5 * SEC, 0, 0),
			 -EPERM);
	end(T0 + 100, id, 1 * SEC);
	ck_assert_double_eq_tol(usage_of(T0 + 100, "ana"), 200, 1e-3);
}
END_TEST

/* A Charge=no queue charges nothing, measured or not. */
START_TEST(test_charge_no)
{
	uint32_t id;

	start("UsageCharge=measured\n");
	id = run(T0, "ana", "qexp", 2);
	ck_assert_int_eq(report(T0 + 10, "n1", id, 1, 5 * SEC, 0, 0), 0);
	end(T0 + 20, id, 8 * SEC);
	ck_assert_double_eq_tol(usage_of(T0 + 20, "ana"), 0, 1e-9);
}
END_TEST

/* A requeued job's new run starts from nothing; the old run's reports go. */
START_TEST(test_requeue)
{
	uint32_t id;

	start("UsageCharge=measured\n");
	id = run(T0, "ana", NULL, 2);
	ck_assert_int_eq(report(T0 + 10, "n1", id, 1, 5 * SEC, 0, 0), 0);
	ck_assert_int_eq(core_requeue(core, T0 + 20, id, "test", false), 0);
	core_schedule(core, T0 + 20);
	ck_assert_uint_eq(core_job_find(core, id)->run, 2);
	/* the first run's late report, with more than it had */
	ck_assert_int_eq(report(T0 + 21, "n1", id, 1, 9 * SEC, 0, 0),
			 -ENOENT);
	ck_assert_int_eq(report(T0 + 30, "n1", id, 2, 3 * SEC, 0, 0), 0);
	end(T0 + 40, id, 4 * SEC);
	ck_assert_double_eq_tol(usage_of(T0 + 40, "ana"), 9, 1e-3);
}
END_TEST

/*
 * A restart from the journal's records: the usage record keeps each
 * running job's meter with the usage it is in, so the next report charges
 * only what grew since that record, neither the whole totals again nor
 * nothing.
 */
START_TEST(test_restart)
{
	struct core_usage *u;
	struct core_usage_mark *m;
	struct rota_error err = { "" };
	char *job_rec, *usage_rec;
	size_t n, len_job, len_usage;
	uint32_t id;

	start("UsageCharge=measured\n");
	id = run(T0, "ana", NULL, 2);
	ck_assert_int_eq(report(T0 + 10, "n1", id, 1, 5 * SEC, 0, 0), 0);
	job_rec = job_record_encode(core, core_job_find(core, id), &len_job);
	n = core_usage_take(core, T0 + 15, true, &u);
	ck_assert_uint_eq(core_usage_marks(core, &m), 1);
	free(m);
	usage_rec = job_record_usage(core, u, n, T0 + 15, &len_usage);
	free(u);
	/* after the record, before the restart: lost with the process */
	ck_assert_int_eq(report(T0 + 16, "n1", id, 1, 7 * SEC, 0, 0), 0);

	core_destroy(core);
	ck_assert_int_eq(core_create(conf, &core, &err), 0);
	ck_assert_int_eq(job_record_apply(core, T0 + 20, job_rec, len_job,
					  &err), 0);
	ck_assert_int_eq(job_record_apply(core, T0 + 20, usage_rec, len_usage,
					  &err), 0);
	core_restore_finish(core);
	free(job_rec);
	free(usage_rec);
	ck_assert_double_eq_tol(usage_of(T0 + 20, "ana"), 5, 1e-3);
	/* the totals since start: 7 s, of which 5 s were in the record */
	ck_assert_int_eq(report(T0 + 30, "n1", id, 1, 8 * SEC, 0, 0), 0);
	ck_assert_double_eq_tol(usage_of(T0 + 30, "ana"), 8, 1e-3);
	end(T0 + 40, id, 10 * SEC);
	ck_assert_double_eq_tol(usage_of(T0 + 40, "ana"), 10, 1e-3);
}
END_TEST

/* A restart from job 'id''s record and a usage record taken at 'at'. */
static void restart(int64_t at, uint32_t id)
{
	struct rota_error err = { "" };
	struct core_usage *u;
	char *rec[2];
	size_t len[2], n;

	rec[0] = job_record_encode(core, core_job_find(core, id), &len[0]);
	n = core_usage_take(core, at, true, &u);
	rec[1] = job_record_usage(core, u, n, at, &len[1]);
	free(u);
	core_destroy(core);
	ck_assert_int_eq(core_create(conf, &core, &err), 0);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(job_record_apply(core, at, rec[i], len[i],
						  &err), 0);
		free(rec[i]);
	}
	core_restore_finish(core);
}

/*
 * A restart that turns UsageCharge from allocated to measured: a job that
 * ran before the last usage record was charged its cores x wall time up
 * to it, so its first report only sets its meter; what its cgroup counts
 * after that is charged.  A job the record did not know is measured from
 * its start.
 */
START_TEST(test_allocated_to_measured)
{
	struct core_usage *u;
	struct rota_error err = { "" };
	struct rota_conf *measured;
	char *rec[3], *text = rota_xasprintf("%sUsageCharge=measured\n",
					     base_conf);
	size_t len[3], n;
	uint32_t id;

	ck_assert_int_eq(rota_conf_load_buffer("test.conf", text, strlen(text),
					       &measured, &err), 0);
	free(text);
	start("");
	id = run(T0, "ana", NULL, 2);
	rec[0] = job_record_encode(core, core_job_find(core, id), &len[0]);
	n = core_usage_take(core, T0 + 100, true, &u);
	rec[1] = job_record_usage(core, u, n, T0 + 100, &len[1]);
	free(u);
	ck_assert_ptr_null(strstr(rec[1], "measured"));
	core_destroy(core);
	rota_conf_destroy(conf);
	conf = measured;
	ck_assert_int_eq(core_create(conf, &core, &err), 0);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(job_record_apply(core, T0 + 105, rec[i],
						  len[i], &err), 0);
		free(rec[i]);
	}
	core_restore_finish(core);
	ck_assert_double_eq_tol(usage_of(T0 + 105, "ana"), 200, 1e-2);
	/* restarted again before its first report: it still waits for one */
	restart(T0 + 107, id);
	ck_assert_int_eq(report(T0 + 110, "n1", id, 1, 150 * SEC, 0, 0), 0);
	ck_assert_double_eq_tol(usage_of(T0 + 110, "ana"), 200, 1e-2);
	ck_assert_int_eq(report(T0 + 120, "n1", id, 1, 153 * SEC, 0, 0), 0);
	ck_assert_double_eq_tol(usage_of(T0 + 120, "ana"), 203, 1e-2);
	/* and a record now says it is measured */
	n = core_usage_take(core, T0 + 130, true, &u);
	rec[2] = job_record_usage(core, u, n, T0 + 130, &len[2]);
	free(u);
	ck_assert_ptr_nonnull(strstr(rec[2], "\"measured\":true"));
	free(rec[2]);
}
END_TEST

/* A usage record's meters are checked as every record is. */
START_TEST(test_bad_mark)
{
	static const char rec[] =
		"{\"kind\":\"usage\",\"time\":1,\"usage\":[],"
		"\"measured\":true,\"marks\":[[0,1,5,0,1.5]]}";
	struct rota_error err = { "" };

	start("UsageCharge=measured\n");
	ck_assert_int_eq(job_record_apply(core, T0, rec, strlen(rec), &err),
			 -EINVAL);
	ck_assert_str_eq(err.text, "usage record: mark 0 is bad");
}
END_TEST

/* UsageCharge and UsageWeights: read, and refused with a reason. */
static const struct {
	const char *line;
	const char *error; /* NULL: accepted */
} keys[] = {
	{ "UsageCharge=measured\nUsageWeights=cpu=1,mem=0.5\n", NULL },
	{ "UsageCharge=wall\n", "test.conf:8: UsageCharge: 'wall' is not "
				"allocated or measured" },
	{ "UsageWeights=cpu=1,net=2\n",
	  "test.conf:8: UsageWeights: 'net=2' is not cpu=, mem= or io=" },
	{ "UsageWeights=cpu=-1\n", "test.conf:8: UsageWeights: 'cpu=-1': a "
				   "weight is a number from 0 to 1000000" },
	{ "UsageWeights=cpu=0,mem=0\n", "test.conf:8: UsageWeights: "
					"'cpu=0,mem=0': the weights add up "
					"to 0" },
};

START_TEST(test_keys)
{
	char *text = rota_xasprintf("%s%s", base_conf, keys[_i].line);
	struct rota_error err = { "" };
	struct rota_conf *c = NULL;
	int rc = rota_conf_load_buffer("test.conf", text, strlen(text), &c,
				       &err);

	free(text);
	if (!keys[_i].error) {
		ck_assert_msg(rc == 0, "%s", err.text);
		ck_assert_int_eq(c->usage_charge, ROTA_CHARGE_MEASURED);
		ck_assert_double_eq(c->usage_weights.mem, 0.5);
		ck_assert_double_eq(c->usage_weights.io, 0);
	} else {
		ck_assert_int_eq(rc, -EINVAL);
		ck_assert_str_eq(err.text, keys[_i].error);
	}
	rota_conf_destroy(c);
}
END_TEST

static Suite *measured_suite(void)
{
	Suite *s = suite_create("measured");
	TCase *tc = tcase_create("usage");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_loop_test(tc, test_meter_advance, 0, N(reports));
	tcase_add_test(tc, test_charged_once);
	tcase_add_test(tc, test_wall_time_not_charged);
	tcase_add_test(tc, test_allocated_default);
	tcase_add_test(tc, test_charge_no);
	tcase_add_test(tc, test_requeue);
	tcase_add_test(tc, test_restart);
	tcase_add_test(tc, test_allocated_to_measured);
	tcase_add_test(tc, test_bad_mark);
	tcase_add_loop_test(tc, test_keys, 0, N(keys));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(measured_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
