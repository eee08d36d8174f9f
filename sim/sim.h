/* SPDX-License-Identifier: MIT */
#ifndef ROTA_SIM_SIM_H
#define ROTA_SIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
#include "sim/swf.h"

/*
 * rota sim: a trace replayed through the scheduling core (ctld/core) on a
 * virtual clock.  setup.c turns a rota.conf plus the trace into the
 * config the core gets (nodes from the header with --flat/--nodes, an
 * account per trace group and a user line per user and group); engine.c
 * runs the event loop; report.c turns the result into figures, CSV and
 * SVG.  Nothing here reads the wall clock: the same trace and config give
 * the same bytes.
 */

enum sim_cluster {
	SIM_CLUSTER_CONFIG = 0,	/* the config's NodeName lines */
	SIM_CLUSTER_FLAT,	/* one node of MaxProcs cores */
	SIM_CLUSTER_NODES,	/* MaxNodes nodes of MaxProcs/MaxNodes cores */
};

enum sim_estimates {
	SIM_ESTIMATES_REQUESTED = 0, /* the limit is the requested time */
	SIM_ESTIMATES_ACTUAL,	     /* the limit is the run time (oracle) */
};

/*
 * When passes run (--semantics).  ROTA: as rota-ctld, all of a second's
 * ends, then its submits, then one main pass, backfill on its Interval.
 * EACH: pyss's event order, the simulator behind many published
 * backfilling studies: a second's submits, then its ends, each event
 * followed by a main and a backfill pass; ends at one second in the
 * order their jobs started.
 */
enum sim_semantics {
	SIM_SEMANTICS_ROTA = 0,
	SIM_SEMANTICS_PYSS,
};

/* --policy: the literature's algorithms, no caps, no window. */
enum sim_policy {
	SIM_POLICY_CONFIG = 0,	/* what the config's lines say */
	SIM_POLICY_FCFS,
	SIM_POLICY_EASY,
	SIM_POLICY_EASY_SJBF,
	SIM_POLICY_CONSERVATIVE,
};

/* --size: a job's cores from the trace's processors. */
enum sim_size {
	SIM_SIZE_REQUESTED = 0,	/* requested; allocated where it is -1 */
	SIM_SIZE_ALLOCATED,	/* allocated; requested where it is -1 */
	SIM_SIZE_MAX,		/* the larger of the two */
};

/*
 * --filter: which trace jobs are replayed.  DEFAULT skips what cannot be
 * replayed (sim_skips); STRICT also what the literature's usual filter
 * drops (predictsim's, Gaussier et al. SC'15): jobs without a requested
 * time, with a negative submit time, or whose requested or allocated
 * processors exceed the machine.
 */
enum sim_filter {
	SIM_FILTER_DEFAULT = 0,
	SIM_FILTER_STRICT,
};

struct sim_options {
	const char *config;	/* rota.conf path; NULL: policy defaults */
	enum sim_filter filter;
	enum sim_cluster cluster;
	enum sim_estimates estimates;
	enum sim_semantics semantics;
	enum sim_policy policy;
	enum sim_size size;
	bool timeline;		/* keep what --svg draws */
	bool every_pass;	/* visit every periodic tick and run every
				   pass, also those that cannot change a
				   decision (idle, nothing changed) */
	bool dependencies;	/* --dependencies: SWF fields 17 and 18, a
				   job submitted after its preceding job */
	bool queues;		/* --queues: SWF field 15 N is the config's
				   N-th queue (-1, 0: the default one) */
	bool per_user;		/* --per-user: the share table */
	/* called now and then with jobs submitted so far; may be NULL */
	void (*progress)(void *arg, size_t done, size_t total);
	void *progress_arg;
};

/* One replayed job, in trace order of the jobs that were submitted. */
struct sim_job {
	int64_t swf_id;		/* the trace's job number */
	size_t trace_index;	/* in swf_trace.jobs */
	int64_t submit;		/* seconds since the log's start, as replayed
				   (--dependencies may move it) */
	int64_t start;		/* -1: never started */
	int64_t end;
	uint32_t cores;
	uint32_t nodes;		/* nodes it ran on */
	uint32_t user;		/* the trace's user number (-1: 0) */
	bool timeout;		/* cut at its limit */
	bool backfilled;	/* started by a backfill pass */
	double priority;	/* the priority plugin's, at start */
};

/* One account or user of the share tree, in the tree's preorder. */
struct sim_share {
	char *name;
	char *account;
	uint32_t depth;
	bool is_user;
	double shares_norm;	/* of the machine */
	double usage;		/* core-seconds the trace's jobs ran, undecayed */
	double usage_share;	/* usage / all usage */
};

/* A step of the timeline: from 'time' on, these cores busy, jobs queued. */
struct sim_step {
	int64_t time;
	uint32_t busy;
	uint32_t queued;
};

/* Why trace jobs were not replayed; each counted, never silent. */
struct sim_skips {
	size_t wide;		/* more processors than the machine */
	size_t zero;		/* run time 0 */
	size_t cancelled;	/* status 5 with run time 0 or -1 */
	size_t unknown;		/* run time or size -1 */
	size_t refused;		/* core_submit said no (first_refusal) */
	size_t no_estimate;	/* --filter strict: no requested time */
	bool strict;		/* --filter strict was given */
	char first_refusal[200];
};

/*
 * --dependencies: what SWF fields 17 and 18 did (sim/deps.h).  A job that
 * "follows" names an earlier job of the trace in field 17; it is
 * submitted when that job ends plus its think time, or at its recorded
 * time when that job was not replayed.
 */
struct sim_dep_counts {
	bool enabled;		/* the option was given */
	size_t follows;		/* jobs whose field 17 names an earlier job */
	size_t later;		/* of those replayed: submitted later than
				   recorded */
	size_t earlier;		/* ... earlier than recorded */
	size_t same;		/* ... at the recorded second */
	size_t prec_skipped;	/* preceding job not replayed (skipped or
				   refused): recorded time kept */
	size_t no_think;	/* field 18 -1: the recorded gap, else 0 */
	size_t not_in_trace;	/* field 17 names no job of the trace:
				   recorded time kept */
	size_t malformed;	/* names itself or a later job: ignored */
	char first_malformed[96];
	size_t never;		/* still held when the replay ended */
};

struct sim_result {
	char *config_name;	/* the config's path, or "(defaults)" */
	char *policy;		/* "priority/fifo sched/backfill ..." */
	uint64_t total_cores;
	size_t nnodes;
	size_t trace_jobs;	/* job lines in the trace */
	size_t malformed;	/* lines skipped under --lenient */
	struct sim_skips skips;
	struct sim_dep_counts deps;
	struct sim_job *jobs;
	size_t njobs;
	uint64_t bf_started;	/* core_sched_stats()->bf_started */
	uint64_t main_passes;
	uint64_t bf_passes;
	uint64_t main_skipped;	/* passes not run: nothing had changed */
	uint64_t bf_skipped;
	struct sim_share *shares;
	size_t nshares;
	struct sim_step *steps;	/* with sim_options.timeline */
	size_t nsteps;
};

/*
 * Build the config for 'trace' (setup.c): the file at 'opt->config' (or
 * nothing), plus generated NodeName/QueueName lines with --flat/--nodes
 * and AccountName/UserName lines for the trace's groups and users that
 * the file does not declare.  -EINVAL with the reason in 'err' (a config
 * error names file and line).  Caller frees '*text'.
 */
int sim_config_text(const struct sim_options *opt,
		    const struct swf_trace *trace, char **text,
		    struct rota_error *err);

/* The user and account names of trace ids: "u<N>", "g<N>" (-1: 0). */
void sim_user_name(int64_t id, char *buf, size_t len);
void sim_account_name(int64_t id, char *buf, size_t len);

/*
 * Replay 'trace' (engine.c).  0, or -errno with the line in 'err' (a
 * config the core refuses, a node without CPUs=).  Caller frees 'out'
 * with sim_result_fini() in either case.
 */
int sim_run(const struct sim_options *opt, const struct swf_trace *trace,
	    struct sim_result *out, struct rota_error *err);
void sim_result_fini(struct sim_result *r);
/*
 * What sim_run does before its first event: the config read, the core
 * and its plugins made, the nodes registered; so that every config of a
 * --compare is known good before the first replay.  0 or -errno, 'err'.
 */
int sim_check(const struct sim_options *opt, const struct swf_trace *trace,
	      struct rota_error *err);

/* The figures report.c derives from one run. */
struct sim_stats {
	size_t jobs;		/* replayed and started */
	double utilization;	/* core-seconds used / offered, 0..1 */
	double wait_mean;
	double wait_median;
	double wait_p95;
	double bsld_mean;	/* bounded slowdown, 10 s threshold */
	int64_t makespan;	/* first submit to last end */
	size_t timeouts;
	uint64_t backfilled;
	/*
	 * Fairness between users: Jain's index of the users' mean bounded
	 * slowdowns, (sum x)^2 / (n sum x^2), 1 when every user is slowed
	 * alike, 1/n when one user bears it all; and the worst user's.
	 */
	double fair_jain;
	size_t users;
	uint32_t worst_user;
	double worst_bsld;
};

void sim_stats_compute(const struct sim_result *r, struct sim_stats *s);
/* The text report of one run. */
void sim_report_print(FILE *f, const struct sim_result *r);
/* --per-user: each account's and user's usage share against its share. */
void sim_report_shares(FILE *f, const struct sim_result *r);
/* One table, a column per run. */
void sim_report_compare(FILE *f, const struct sim_result *r, size_t n);
/* The per-job CSV; -errno on a write error. */
int sim_report_csv(FILE *f, const struct sim_result *r);
/*
 * The figures of 'n' runs overlaid (svg.c): utilization and queue
 * length over time, the waits' CDF, bounded slowdown by job size;
 * -errno on a write error.
 */
int sim_report_svg(FILE *f, const struct sim_result *r, size_t n);

#endif
