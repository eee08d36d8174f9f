// SPDX-License-Identifier: MIT
/*
 * The replay (sim/sim.h) on hand-made traces whose schedules are worked
 * out on paper below, FCFS (Sched=builtin) and EASY (Sched=backfill);
 * skipped jobs counted by reason; the same trace and config giving the
 * same bytes twice, and with --every-pass; the report's figures.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/sim.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * One node of 4 cores (--flat, MaxProcs 4); fifo priority: submit order.
 *
 *   job  submit  cores  run  limit
 *    1      0      2    100   100
 *    2      0      4     50    50
 *    3      0      2     50    50
 *    4      0      2    200   200
 *    5     10      1     20    20
 *
 * FCFS (strict order; a job waits while any earlier one waits):
 *   t=0    1 starts (2 cores free); 2 needs 4: it and all after wait
 *   t=100  1 ends: 2 starts (4 cores)
 *   t=150  2 ends: 3 and 4 start (2 + 2 cores)
 *   t=200  3 ends: 5 starts
 *   => 1: 0-100, 2: 100-150, 3: 150-200, 4: 150-350, 5: 200-220
 *
 * EASY (Interval=1s Resolution=1s): 2 is reserved at t=100, when 1 ends;
 * a later job may start now if it fits now and ends by 100 (2 needs all
 * 4 cores, so there are no spare cores at the reservation).
 *   t=0    1 starts; backfill: 3 (2 cores, ends 50) starts; 4 would end
 *          at 200: waits
 *   t=10   5 arrives: no core free
 *   t=50   3 ends; backfill: 4 still too long, 5 (ends 70) starts
 *   t=100  1 ends: 2 starts
 *   t=150  2 ends: 4 starts
 *   => 1: 0-100, 2: 100-150, 3: 0-50, 4: 150-350, 5: 50-70
 */
static const char five[] =
	"; MaxProcs: 4\n"
	"; MaxNodes: 1\n"
	"1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"2 0 -1 50 4 -1 -1 4 50 -1 1 2 1 -1 -1 -1 -1 -1\n"
	"3 0 -1 50 2 -1 -1 2 50 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"4 0 -1 200 2 -1 -1 2 200 -1 1 3 2 -1 -1 -1 -1 -1\n"
	"5 10 -1 20 1 -1 -1 1 20 -1 1 2 1 -1 -1 -1 -1 -1\n";

static const int64_t fcfs[][2] = {
	{ 0, 100 }, { 100, 150 }, { 150, 200 }, { 150, 350 }, { 200, 220 },
};
static const int64_t easy[][2] = {
	{ 0, 100 }, { 100, 150 }, { 0, 50 }, { 150, 350 }, { 50, 70 },
};

static char conf_path[64];

static void write_conf(const char *text)
{
	FILE *f;

	/* one name per process: the report prints it */
	snprintf(conf_path, sizeof(conf_path), "/tmp/test_sim_%d.conf",
		 (int)getpid());
	f = fopen(conf_path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void teardown(void)
{
	if (conf_path[0])
		unlink(conf_path);
	conf_path[0] = '\0';
}

static void run(const char *trace, const char *conf, struct sim_options *o,
		struct sim_result *r)
{
	struct swf_trace t;
	struct rota_error err = { "" };

	ck_assert_int_eq(swf_read_buffer("t.swf", trace, strlen(trace), false,
					 &t, &err),
			 0);
	write_conf(conf);
	o->config = conf_path;
	ck_assert_msg(sim_run(o, &t, r, &err) == 0, "sim: %s", err.text);
	swf_trace_fini(&t);
}

static void check_schedule(const struct sim_result *r, const int64_t (*want)[2])
{
	ck_assert_uint_eq(r->njobs, 5);
	for (size_t i = 0; i < 5; i++) {
		ck_assert_int_eq(r->jobs[i].swf_id, (int64_t)i + 1);
		ck_assert_msg(r->jobs[i].start == want[i][0] &&
				      r->jobs[i].end == want[i][1],
			      "job %zu: %lld-%lld, want %lld-%lld", i + 1,
			      (long long)r->jobs[i].start,
			      (long long)r->jobs[i].end,
			      (long long)want[i][0], (long long)want[i][1]);
	}
}

START_TEST(test_fcfs)
{
	struct sim_options o = { .cluster = SIM_CLUSTER_FLAT };
	struct sim_result r;

	run(five, "Sched=builtin\n", &o, &r);
	check_schedule(&r, fcfs);
	ck_assert_uint_eq(r.total_cores, 4);
	ck_assert_uint_eq(r.bf_started, 0);
	sim_result_fini(&r);
}
END_TEST

START_TEST(test_easy)
{
	struct sim_options o = { .cluster = SIM_CLUSTER_FLAT };
	struct sim_result r;
	struct sim_stats s;

	run(five, "Sched=backfill Interval=1s Resolution=1s\n", &o, &r);
	check_schedule(&r, easy);
	ck_assert_uint_eq(r.bf_started, 2);
	ck_assert(r.jobs[2].backfilled && r.jobs[4].backfilled);
	ck_assert(!r.jobs[0].backfilled && !r.jobs[1].backfilled);
	sim_stats_compute(&r, &s);
	/* waits 0, 100, 0, 150, 40 */
	ck_assert_double_eq_tol(s.wait_mean, 58.0, 1e-9);
	ck_assert_double_eq_tol(s.wait_median, 40.0, 1e-9);
	ck_assert_double_eq_tol(s.wait_p95, 150.0, 1e-9);
	ck_assert_int_eq(s.makespan, 350);
	/* 2*100 + 4*50 + 2*50 + 2*200 + 1*20 = 920 of 4 * 350 */
	ck_assert_double_eq_tol(s.utilization, 920.0 / 1400.0, 1e-9);
	/* (100/100 + 150/50 + 50/50 + 350/200 + 60/20) / 5 */
	ck_assert_double_eq_tol(s.bsld_mean, (1 + 3 + 1 + 1.75 + 3) / 5.0,
				1e-9);
	sim_result_fini(&r);
}
END_TEST

/* --policy: the literature's algorithms on `five` (worked out above). */
static const struct {
	enum sim_policy policy;
	const int64_t (*want)[2];
} presets[] = {
	{ SIM_POLICY_FCFS, fcfs },
	{ SIM_POLICY_EASY, easy },
	{ SIM_POLICY_EASY_SJBF, easy },
	{ SIM_POLICY_CONSERVATIVE, easy },
};

START_TEST(test_policy_presets)
{
	struct sim_options o = { .cluster = SIM_CLUSTER_FLAT,
				 .policy = presets[_i].policy,
				 .semantics = SIM_SEMANTICS_PYSS };
	struct sim_result r;
	struct swf_trace t;
	struct rota_error err = { "" };

	run(five, "", &o, &r);
	check_schedule(&r, presets[_i].want);
	sim_result_fini(&r);
	/* the policy is --policy's: the config's own lines are refused */
	ck_assert_int_eq(swf_read_buffer("t.swf", five, strlen(five), false,
					 &t, &err), 0);
	write_conf("\nSched=backfill\n");
	o.config = conf_path;
	ck_assert_int_eq(sim_run(&o, &t, &r, &err), -EINVAL);
	ck_assert_msg(strstr(err.text, ":2: the config has a Sched= line; "
				       "--policy sets it"),
		      "%s", err.text);
	sim_result_fini(&r);
	swf_trace_fini(&t);
}
END_TEST

/*
 * Issue 25's minimal case: 10 cores; 1 (5 cores, 100 s) runs from 0; at
 * 1 come 2 (8 cores: reserved at 100), 3 (3 cores, limit 99: ends at
 * 100) and 4 (2 cores, 500 s).  At 100, 1 and 3 free the 8 cores 2
 * needs while 4 runs on: EASY starts 3 and 4 at once.
 */
START_TEST(test_same_instant)
{
	static const char trace[] =
		"; MaxProcs: 10\n; MaxNodes: 1\n"
		"1 0 -1 100 5 -1 -1 5 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"2 1 -1 50 8 -1 -1 8 50 -1 1 2 1 -1 -1 -1 -1 -1\n"
		"3 1 -1 99 3 -1 -1 3 99 -1 1 3 1 -1 -1 -1 -1 -1\n"
		"4 1 -1 500 2 -1 -1 2 500 -1 1 4 1 -1 -1 -1 -1 -1\n";
	struct sim_options o = { .cluster = SIM_CLUSTER_FLAT,
				 .policy = SIM_POLICY_EASY,
				 .semantics = SIM_SEMANTICS_PYSS };
	struct sim_result r;

	run(trace, "", &o, &r);
	ck_assert_int_eq(r.jobs[1].start, 100);
	ck_assert_int_eq(r.jobs[2].start, 1);
	ck_assert_int_eq(r.jobs[3].start, 1);
	sim_result_fini(&r);
}
END_TEST

/*
 * --semantics: 4 cores; A (2 cores, 100 s, limit 100) and B (2 cores,
 * 100 s, limit 200) from 0; D (4 cores, 10 s) at 1, C (2 cores, 100 s)
 * at 2.  Both end at 100.  pyss: after A's end alone D is reserved at
 * 200 (B's limit) and C, ending by then, backfills (100-200); B's end
 * then leaves D 2 cores short until 200.  Rota: both ends, then one
 * pass: D starts at 100, C after it at 110.
 */
START_TEST(test_semantics)
{
	static const char trace[] =
		"; MaxProcs: 4\n; MaxNodes: 1\n"
		"1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"2 0 -1 100 2 -1 -1 2 200 -1 1 2 1 -1 -1 -1 -1 -1\n"
		"3 1 -1 10 4 -1 -1 4 10 -1 1 3 1 -1 -1 -1 -1 -1\n"
		"4 2 -1 100 2 -1 -1 2 100 -1 1 4 1 -1 -1 -1 -1 -1\n";
	static const int64_t want[2][2] = { { 100, 110 }, { 200, 100 } };
	struct sim_options o = { .cluster = SIM_CLUSTER_FLAT,
				 .policy = SIM_POLICY_EASY,
				 .semantics = (enum sim_semantics)_i };
	struct sim_result r;

	run(trace, "", &o, &r);
	ck_assert_int_eq(r.jobs[2].start, want[_i][0]);
	ck_assert_int_eq(r.jobs[3].start, want[_i][1]);
	sim_result_fini(&r);
}
END_TEST

/*
 * pyss frees a job that runs to its limit before any event of its last
 * second.  4 cores; 1 (2 cores) and 2 (1 core) run 0-100 to their limit,
 * 3 (1 core) 0-1000; 4 (4 cores) waits for 1000; 5 (3 cores, 50 s) and 6
 * (2 cores, 10 s) behind it.  At 100 pyss's pass after 1's end sees 1's
 * and 2's cores free: 5 backfills (100-150), then 6 (150-160).  Ending 1
 * alone first would backfill 6 (100-110) on its 2 cores and 5 at 110.
 * (pyss itself, predictsim's copy, prints these times.)
 */
START_TEST(test_at_limit)
{
	static const char trace[] =
		"; MaxProcs: 4\n; MaxNodes: 1\n"
		"1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"2 0 -1 100 1 -1 -1 1 100 -1 1 2 1 -1 -1 -1 -1 -1\n"
		"3 0 -1 1000 1 -1 -1 1 1000 -1 1 3 1 -1 -1 -1 -1 -1\n"
		"4 1 -1 50 4 -1 -1 4 50 -1 1 4 1 -1 -1 -1 -1 -1\n"
		"5 2 -1 50 3 -1 -1 3 50 -1 1 5 1 -1 -1 -1 -1 -1\n"
		"6 3 -1 10 2 -1 -1 2 10 -1 1 6 1 -1 -1 -1 -1 -1\n";
	struct sim_options o = { .cluster = SIM_CLUSTER_FLAT,
				 .policy = SIM_POLICY_EASY,
				 .semantics = SIM_SEMANTICS_PYSS };
	struct sim_result r;

	run(trace, "", &o, &r);
	ck_assert_int_eq(r.jobs[0].end, 100);
	ck_assert_int_eq(r.jobs[1].end, 100);
	ck_assert_int_eq(r.jobs[3].start, 1000);
	ck_assert_int_eq(r.jobs[4].start, 100);
	ck_assert_int_eq(r.jobs[5].start, 150);
	ck_assert_uint_eq(r.bf_started, 2);
	sim_result_fini(&r);
}
END_TEST

/* --size: requested, allocated or the larger (-1: the other). */
START_TEST(test_size)
{
	static const char trace[] =
		"; MaxProcs: 8\n; MaxNodes: 1\n"
		"1 0 -1 10 4 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"2 0 -1 10 3 -1 -1 -1 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"3 0 -1 10 -1 -1 -1 5 10 -1 1 1 1 -1 -1 -1 -1 -1\n";
	static const uint32_t want[3][3] = {
		{ 2, 3, 5 }, { 4, 3, 5 }, { 4, 3, 5 },
	};
	struct sim_options o = { .cluster = SIM_CLUSTER_FLAT,
				 .size = (enum sim_size)_i };
	struct sim_result r;

	run(trace, "", &o, &r);
	for (size_t k = 0; k < 3; k++)
		ck_assert_uint_eq(r.jobs[k].cores, want[_i][k]);
	sim_result_fini(&r);
}
END_TEST

/* --filter strict: no requested time, or processors beyond the machine. */
START_TEST(test_filter)
{
	static const char trace[] =
		"; MaxProcs: 4\n; MaxNodes: 1\n"
		"1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"2 0 -1 10 2 -1 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"3 0 -1 10 8 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1\n";
	struct sim_options o = { .cluster = SIM_CLUSTER_FLAT,
				 .filter = (enum sim_filter)_i };
	struct sim_result r;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	run(trace, "", &o, &r);
	ck_assert_uint_eq(r.njobs, _i ? 1 : 3);
	ck_assert_uint_eq(r.skips.wide, _i ? 1 : 0);
	ck_assert_uint_eq(r.skips.no_estimate, _i ? 1 : 0);
	f = open_memstream(&text, &len);
	sim_report_print(f, &r);
	fclose(f);
	ck_assert_int_eq(strstr(text, ", 1 without a requested time "
				      "(--filter strict)\n") != NULL, _i);
	free(text);
	sim_result_fini(&r);
}
END_TEST

/* The trace's users and groups become the share tree's leaves. */
START_TEST(test_accounts)
{
	struct sim_options o = { .cluster = SIM_CLUSTER_FLAT };
	struct sim_result r;
	double g1 = -1;

	run(five, "Sched=builtin\nAccountName=g1 Shares=3\n", &o, &r);
	for (size_t i = 0; i < r.nshares; i++)
		if (!r.shares[i].is_user && strcmp(r.shares[i].name, "g1") == 0)
			g1 = r.shares[i].shares_norm;
	ck_assert_double_eq_tol(g1, 0.75, 1e-9); /* 3 of 3 + 1 (g2) */
	/* g1 ran jobs 1, 2, 3, 5: 200 + 200 + 100 + 20 of 920 */
	for (size_t i = 0; i < r.nshares; i++)
		if (!r.shares[i].is_user && strcmp(r.shares[i].name, "g1") == 0)
			ck_assert_double_eq_tol(r.shares[i].usage_share,
						520.0 / 920.0, 1e-9);
	sim_result_fini(&r);
}
END_TEST

static const char skips[] =
	"; MaxProcs: 4\n"
	"1 0 -1 10 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"2 0 -1 10 8 -1 -1 8 100 -1 1 1 1 -1 -1 -1 -1 -1\n"  /* wide */
	"3 0 -1 0 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1\n"   /* zero */
	"4 0 -1 -1 -1 -1 -1 2 100 -1 5 1 1 -1 -1 -1 -1 -1\n" /* cancelled */
	"5 0 -1 0 2 -1 -1 2 100 -1 5 1 1 -1 -1 -1 -1 -1\n"   /* cancelled */
	"6 0 -1 -1 2 -1 -1 2 100 -1 0 1 1 -1 -1 -1 -1 -1\n"  /* unknown */
	"7 0 -1 10 -1 -1 -1 -1 100 -1 1 1 1 -1 -1 -1 -1 -1\n" /* unknown */
	"8 0 -1 10 3 -1 -1 -1 100 -1 1 1 1 -1 -1 -1 -1 -1\n" /* alloc'd 3 */
	"9 0 -1 500 1 -1 -1 1 100 -1 1 1 1 -1 -1 -1 -1 -1\n" /* cut */
	"10 0 -1 10 1 -1 -1 1 99999 -1 1 1 1 -1 -1 -1 -1 -1\n"; /* refused */

START_TEST(test_skips)
{
	struct sim_options o = { .cluster = SIM_CLUSTER_FLAT };
	struct sim_result r;

	run(skips, "QueueName=q Nodes=ALL MaxTime=1000\n", &o, &r);
	ck_assert_uint_eq(r.trace_jobs, 10);
	ck_assert_uint_eq(r.skips.wide, 1);
	ck_assert_uint_eq(r.skips.zero, 1);
	ck_assert_uint_eq(r.skips.cancelled, 2);
	ck_assert_uint_eq(r.skips.unknown, 2);
	ck_assert_uint_eq(r.skips.refused, 1);
	ck_assert_msg(strncmp(r.skips.first_refusal, "job 10: ", 8) == 0,
		      "%s", r.skips.first_refusal);
	ck_assert_uint_eq(r.njobs, 3);
	ck_assert_uint_eq(r.jobs[1].cores, 3);
	ck_assert(r.jobs[2].timeout);
	ck_assert_int_eq(r.jobs[2].end - r.jobs[2].start, 100);
	sim_result_fini(&r);
}
END_TEST

START_TEST(test_nodes_from_header)
{
	static const char trace[] =
		"; MaxProcs: 4\n; MaxNodes: 2\n"
		"1 0 -1 10 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n";
	struct sim_options o = { .cluster = SIM_CLUSTER_NODES };
	struct sim_result r;
	struct swf_trace t;
	struct rota_error err = { "" };

	run(trace, "", &o, &r);
	ck_assert_uint_eq(r.nnodes, 2);
	ck_assert_uint_eq(r.total_cores, 4);
	ck_assert_uint_eq(r.jobs[0].nodes, 2);
	sim_result_fini(&r);
	/* nodes in the config and --nodes: refused, naming the line */
	ck_assert_int_eq(swf_read_buffer("t.swf", trace, strlen(trace), false,
					 &t, &err),
			 0);
	teardown();
	write_conf("NodeName=n1 CPUs=4\n");
	o.config = conf_path;
	ck_assert_int_eq(sim_run(&o, &t, &r, &err), -EINVAL);
	ck_assert_msg(strstr(err.text, "--nodes: ") && strstr(err.text, ":1: "),
		      "%s", err.text);
	sim_result_fini(&r);
	swf_trace_fini(&t);
}
END_TEST

/*
 * --dependencies (fields 17 and 18), one node of 4 cores, FCFS; every
 * job asks 1 core, so none waits for cores: a job starts when submitted.
 *
 *   job  submit  wait  run  status  field 17  field 18
 *    1      0     40   100    1        -1        -1
 *    4      0     -1    -1    5        -1        -1   cancelled: skipped
 *    2     10     -1    50    1         1        30
 *    5     50     -1    10    1         4         5   4 not replayed
 *    6     60     -1    10    1         5         0
 *    8     70     -1    10    1         8        -1   names itself
 *    9     80     -1    10    1        10        -1   names a later job
 *   10     90     -1    10    1        99        -1   no such job
 *    7    160     -1    10    1         1        -1   think: log's gap
 *    3    500     -1    10    1         2        20
 *
 * Replayed: 1 runs 0-100.  4 is skipped at 0, so 5 keeps its time: 50-60
 * (same).  6 follows 5's end plus 0: 60-70 (same).  8, 9, 10 at their
 * recorded times.  2 follows 1's end plus 30: 130-180 (later than 10).
 * 3 follows 2 (a chain) plus 20: 200-210 (earlier than 500).  7 follows
 * 1 with field 18 -1: 1 ended at 0 + 40 + 100 = 140 in the log, 7 came
 * 20 s later, so 100 + 20: 120-130 (earlier than 160).
 */
#define DEP(id, submit, wait, run, status, prec, think)                        \
	#id " " #submit " " #wait " " #run " 1 -1 -1 1 1000 -1 " #status      \
	    " 1 1 -1 -1 -1 " #prec " " #think "\n"
static const char deps_trace[] =
	"; MaxProcs: 4\n"
	DEP(1, 0, 40, 100, 1, -1, -1)
	DEP(4, 0, -1, -1, 5, -1, -1)
	DEP(2, 10, -1, 50, 1, 1, 30)
	DEP(5, 50, -1, 10, 1, 4, 5)
	DEP(6, 60, -1, 10, 1, 5, 0)
	DEP(8, 70, -1, 10, 1, 8, -1)
	DEP(9, 80, -1, 10, 1, 10, -1)
	DEP(10, 90, -1, 10, 1, 99, -1)
	DEP(7, 160, -1, 10, 1, 1, -1)
	DEP(3, 500, -1, 10, 1, 2, 20);

/* swf id, submit, start, end; in submit order */
static const int64_t deps_on[][4] = {
	{ 1, 0, 0, 100 },    { 5, 50, 50, 60 },	  { 6, 60, 60, 70 },
	{ 8, 70, 70, 80 },   { 9, 80, 80, 90 },	  { 10, 90, 90, 100 },
	{ 7, 120, 120, 130 }, { 2, 130, 130, 180 }, { 3, 200, 200, 210 },
};
static const int64_t deps_off[][4] = {
	{ 1, 0, 0, 100 },    { 2, 10, 10, 60 },	  { 5, 50, 50, 60 },
	{ 6, 60, 60, 70 },   { 8, 70, 70, 80 },	  { 9, 80, 80, 90 },
	{ 10, 90, 90, 100 }, { 7, 160, 160, 170 }, { 3, 500, 500, 510 },
};

static void check_times(const struct sim_result *r, const int64_t (*want)[4],
			size_t n)
{
	ck_assert_uint_eq(r->njobs, n);
	for (size_t i = 0; i < n; i++) {
		const struct sim_job *j = &r->jobs[i];

		ck_assert_msg(j->swf_id == want[i][0] &&
				      j->submit == want[i][1] &&
				      j->start == want[i][2] &&
				      j->end == want[i][3],
			      "#%zu: job %lld %lld %lld-%lld, want job %lld "
			      "%lld %lld-%lld",
			      i, (long long)j->swf_id, (long long)j->submit,
			      (long long)j->start, (long long)j->end,
			      (long long)want[i][0], (long long)want[i][1],
			      (long long)want[i][2], (long long)want[i][3]);
	}
}

static char *report_text(const struct sim_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	sim_report_print(f, r);
	fclose(f);
	return buf;
}

START_TEST(test_dependencies)
{
	struct sim_options o = { .cluster = SIM_CLUSTER_FLAT,
				 .dependencies = true };
	struct sim_result r;
	const struct sim_dep_counts *c = &r.deps;
	char *text;

	run(deps_trace, "Sched=builtin\n", &o, &r);
	check_times(&r, deps_on, N(deps_on));
	ck_assert(c->enabled);
	ck_assert_uint_eq(c->follows, 5);	/* 2, 3, 5, 6, 7 */
	ck_assert_uint_eq(c->later, 1);		/* 2 */
	ck_assert_uint_eq(c->earlier, 2);	/* 3, 7 */
	ck_assert_uint_eq(c->same, 2);		/* 5, 6 */
	ck_assert_uint_eq(c->prec_skipped, 1);	/* 5 */
	ck_assert_uint_eq(c->no_think, 1);	/* 7 */
	ck_assert_uint_eq(c->not_in_trace, 1);	/* 10 */
	ck_assert_uint_eq(c->malformed, 2);	/* 8, 9 */
	ck_assert_str_eq(c->first_malformed, "job 8: field 17 names itself");
	ck_assert_uint_eq(c->never, 0);
	ck_assert_uint_eq(r.skips.cancelled, 1);
	text = report_text(&r);
	ck_assert_msg(strstr(text, "\ndependencies  5 jobs follow an earlier "
				   "job (field 17): 1 submitted later than "
				   "recorded, 2 earlier, 2 at it\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "\n  ignored     1 naming no job of the "
				   "trace, 2 themselves or a later job (first: "
				   "job 8: field 17 names itself)\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "\nmakespan      210 s"), "%s", text);
	free(text);
	sim_result_fini(&r);
}
END_TEST

/* Without the option fields 17 and 18 are not read: recorded times. */
START_TEST(test_dependencies_off)
{
	struct sim_options o = { .cluster = SIM_CLUSTER_FLAT };
	struct sim_result r;
	char *text;

	run(deps_trace, "Sched=builtin\n", &o, &r);
	check_times(&r, deps_off, N(deps_off));
	ck_assert(!r.deps.enabled);
	text = report_text(&r);
	ck_assert_msg(!strstr(text, "dependencies"), "%s", text);
	ck_assert_msg(strstr(text, "\nmakespan      510 s"), "%s", text);
	free(text);
	sim_result_fini(&r);
}
END_TEST

/*
 * A job the queue makes wait delays its follower: 1 (4 cores, 0-100)
 * holds the machine, 2 (4 cores, submitted at 0) runs 100-150, and 3
 * follows 2 with think time 10, so it comes at 160, though recorded at
 * 20; 4 follows 3, whose trace line is cancelled and never runs: 4 keeps
 * its recorded time, but 3 is only found skipped at 160, so 4 comes then.
 */
START_TEST(test_dependencies_queue)
{
	static const char trace[] =
		"; MaxProcs: 4\n"
		"1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"2 0 -1 50 4 -1 -1 4 50 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"3 20 -1 -1 1 -1 -1 1 50 -1 5 1 1 -1 -1 -1 2 10\n"
		"4 30 -1 5 1 -1 -1 1 50 -1 1 1 1 -1 -1 -1 3 0\n";
	static const int64_t want[][4] = {
		{ 1, 0, 0, 100 }, { 2, 0, 100, 150 }, { 4, 160, 160, 165 },
	};
	struct sim_options o = { .cluster = SIM_CLUSTER_FLAT,
				 .dependencies = true };
	struct sim_result r;

	run(trace, "Sched=builtin\n", &o, &r);
	check_times(&r, want, N(want));
	ck_assert_uint_eq(r.deps.follows, 2);
	ck_assert_uint_eq(r.deps.prec_skipped, 1);
	ck_assert_uint_eq(r.deps.later, 1);	/* 4; 3 was not replayed */
	ck_assert_uint_eq(r.skips.cancelled, 1);
	sim_result_fini(&r);
}
END_TEST

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/*
 * --svg under --compare: each run's three lines (utilization, queue,
 * waits' CDF) and six bars (size classes) in its colour, a legend line
 * each, the four panels with their axes.
 */
START_TEST(test_svg_compare)
{
	struct sim_options o = { .cluster = SIM_CLUSTER_FLAT,
				 .timeline = true };
	struct sim_result r[2];
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	run(five, "Sched=builtin\n", &o, &r[0]);
	run(five, "Sched=backfill Interval=1s Resolution=1s\n", &o, &r[1]);
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(sim_report_svg(f, r, 2), 0);
	fclose(f);
	ck_assert_uint_eq(count(buf, "<polyline"), 6);
	ck_assert_uint_eq(count(buf, "stroke=\"#1f5fa8\""), 3);
	ck_assert_uint_eq(count(buf, "stroke=\"#d1495b\""), 3);
	/* 6 bars and a legend swatch each */
	ck_assert_uint_eq(count(buf, "fill=\"#1f5fa8\""), 7);
	ck_assert_uint_eq(count(buf, "fill=\"#d1495b\""), 7);
	ck_assert_ptr_nonnull(strstr(buf, ">Utilization<"));
	ck_assert_ptr_nonnull(strstr(buf, ">Waits: "));
	ck_assert_ptr_nonnull(strstr(buf, "by job size<"));
	ck_assert_ptr_nonnull(strstr(buf, ">days from the first submit<"));
	ck_assert_ptr_nonnull(strstr(buf, "sched/backfill (easy"));
	free(buf);
	sim_result_fini(&r[0]);
	sim_result_fini(&r[1]);
}
END_TEST

/* Everything printed, as rota sim --csv --svg writes it. */
static char *render(const char *trace, const char *conf, bool every,
		    bool deps)
{
	struct sim_options o = { .cluster = SIM_CLUSTER_NODES,
				 .timeline = true, .every_pass = every,
				 .dependencies = deps };
	struct sim_result r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	run(trace, conf, &o, &r);
	teardown();
	sim_report_print(f, &r);
	ck_assert_int_eq(sim_report_csv(f, &r), 0);
	ck_assert_int_eq(sim_report_svg(f, &r, 1), 0);
	sim_result_fini(&r);
	fclose(f);
	return buf;
}

/*
 * A random trace: 300 jobs of 1-8 cores on 4 nodes of 4 cores; with
 * 'deps' a third of them follow one of the 5 jobs before them, with a
 * think time of up to 10 minutes or -1.
 */
static char *random_trace(unsigned seed, bool deps)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int64_t t = 0;

	fprintf(f, "; MaxProcs: 16\n; MaxNodes: 4\n");
	for (int i = 1; i <= 300; i++) {
		int64_t run = 1 + rand_r(&seed) % 3000;
		int64_t req = run + rand_r(&seed) % 4000 - 500;

		int prec = -1;
		int think = -1;

		t += rand_r(&seed) % 400;
		if (deps && i > 1 && rand_r(&seed) % 3 == 0) {
			prec = i - 1 - rand_r(&seed) % (i > 5 ? 5 : i - 1);
			think = rand_r(&seed) % 601 - 1;
		}
		fprintf(f,
			"%d %lld 0 %lld 1 -1 -1 %d %lld -1 1 %d %d -1 -1 -1 "
			"%d %d\n",
			i, (long long)t, (long long)run,
			1 + rand_r(&seed) % 8, (long long)(req > 0 ? req : 60),
			1 + rand_r(&seed) % 7, 1 + rand_r(&seed) % 3, prec,
			think);
	}
	fclose(f);
	return buf;
}

/* Remove the line starting with 'prefix'. */
static void drop_line(char *buf, const char *prefix)
{
	char *l = strstr(buf, prefix);
	char *nl = l ? strchr(l, '\n') : NULL;

	ck_assert_ptr_nonnull(nl);
	memmove(l, nl + 1, strlen(nl + 1) + 1);
}

static const char *const policies[] = {
	"Sched=builtin\n",
	"Sched=backfill\n",
	"Sched=backfill Mode=conservative\n",
	"Sched=backfill\nUsageHalfLife=1h\nPriorityCalcPeriod=2m\n"
	"Priority=multifactor WeightAge=1000 WeightFairshare=10000 "
	"WeightJobSize=100\n",
};

/* Policy 'i' on a random trace: twice, and with --every-pass. */
static void same_bytes(int i, bool deps)
{
	char *trace = random_trace(7 + (unsigned)i, deps);
	char plugins[256];
	char *conf;
	char *a;
	char *b;
	char *c;

	snprintf(plugins, sizeof(plugins), "PluginDir=%s\n", PLUGIN_DIR);
	conf = malloc(strlen(plugins) + strlen(policies[i]) + 1);
	strcpy(conf, plugins);
	strcat(conf, policies[i]);
	a = render(trace, conf, false, deps);
	b = render(trace, conf, false, deps);
	c = render(trace, conf, true, deps);
	ck_assert_msg(strcmp(a, b) == 0, "two runs differ");
	/* --every-pass: the same, but for the count of passes */
	drop_line(a, "backfilled ");
	drop_line(c, "backfilled ");
	if (strcmp(a, c) != 0 && getenv("TEST_SIM_DUMP") &&
	    atoi(getenv("TEST_SIM_DUMP")) == i) {
		FILE *f = fopen("/tmp/test_sim_a", "w");

		fputs(a, f);
		fclose(f);
		f = fopen("/tmp/test_sim_c", "w");
		fputs(c, f);
		fclose(f);
	}
	ck_assert_msg(strcmp(a, c) == 0, "--every-pass differs");
	free(a);
	free(b);
	free(c);
	free(conf);
	free(trace);
}

START_TEST(test_same_bytes)
{
	same_bytes(_i, false);
}
END_TEST

/* The same with jobs released by their preceding job's end. */
START_TEST(test_same_bytes_deps)
{
	same_bytes(_i, true);
}
END_TEST

static Suite *sim_suite(void)
{
	Suite *s = suite_create("sim");
	TCase *tc = tcase_create("sim");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_fcfs);
	tcase_add_test(tc, test_easy);
	tcase_add_loop_test(tc, test_policy_presets, 0, N(presets));
	tcase_add_test(tc, test_same_instant);
	tcase_add_loop_test(tc, test_semantics, 0, 2);
	tcase_add_test(tc, test_at_limit);
	tcase_add_loop_test(tc, test_size, 0, 3);
	tcase_add_test(tc, test_svg_compare);
	tcase_add_loop_test(tc, test_filter, 0, 2);
	tcase_add_test(tc, test_accounts);
	tcase_add_test(tc, test_skips);
	tcase_add_test(tc, test_nodes_from_header);
	tcase_add_test(tc, test_dependencies);
	tcase_add_test(tc, test_dependencies_off);
	tcase_add_test(tc, test_dependencies_queue);
	tcase_add_loop_test(tc, test_same_bytes, 0, N(policies));
	tcase_add_loop_test(tc, test_same_bytes_deps, 0, N(policies));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sim_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
