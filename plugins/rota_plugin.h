/* SPDX-License-Identifier: MIT */
#ifndef ROTA_PLUGINS_ROTA_PLUGIN_H
#define ROTA_PLUGINS_ROTA_PLUGIN_H

/*
 * The plugin API: the one project header a policy plugin includes.
 *
 * A plugin is a .so under PluginDir/<kind>/<name>.so exporting one symbol,
 * 'rota_plugin', a const struct rota_plugin naming its ABI, kind and name
 * and pointing at the ops table of its kind (a kernel driver's
 * file_operations).  The controller's loader refuses, in one line naming
 * the file and the reason, a different ABI major or a newer minor, a kind
 * or name that is not what rota.conf asked for, or a missing required op.
 *
 * Plugins never see the controller's structures: they read const views
 * the host passes in, write their outputs into fields marked so, and call
 * back only through struct rota_host (log, settings).  They keep no
 * globals: their state hangs off the handle init() returns.
 *
 * Growth: new ops and view fields are appended and the minor bumped; a
 * host reads an op only if the table's 'size' covers it.  Removing,
 * reordering or retyping anything bumps the major.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ROTA_PLUGIN_ABI_MAJOR 1
#define ROTA_PLUGIN_ABI_MINOR 17 /* 5: jobcomp cpu_usec, mem_peak; 6: steps;
				  7: jobcomp array ids; 8: priority
				  rates_all, context job_state; 9: share
				  targets, held jobs not pending, context
				  job_deadline; 10: ticket policy,
				  override and functional tickets,
				  priority hold_restarts_age; 11: ticket
				  policy weight_department, context
				  job_cores_min, _max; 12: limits
				  admit_counted, running_changed; 13:
				  priority context job_gpus,
				  job_licenses; 14: limits max_gpus,
				  a job's gpus; 15: limits grp_tres,
				  user_tres, account_tres, a job's
				  detail and running_use, a running job's
				  nodes,
				  priority context job_queue_*; 16:
				  priority time_invariant; 17: jobcomp
				  tres, gpus, gpu_idx */
#define ROTA_PLUGIN_ABI ((ROTA_PLUGIN_ABI_MAJOR << 16) | ROTA_PLUGIN_ABI_MINOR)

/*
 * Built as a module (-DROTA_PLUGIN_MODULE) the descriptor is the
 * well-known 'rota_plugin'; linked into a program as a kind's default it
 * takes a unique name, so that several defaults can live in one binary.
 */
#ifdef ROTA_PLUGIN_MODULE
#define ROTA_PLUGIN_EXPORT(kind, name) rota_plugin
#else
#define ROTA_PLUGIN_EXPORT(kind, name) rota_plugin_##kind##_##name
#endif

enum rota_plugin_kind {
	ROTA_PLUGIN_NONE = 0,
	ROTA_PLUGIN_PRIORITY,
	ROTA_PLUGIN_FAIRSHARE,
	ROTA_PLUGIN_LIMITS,
	ROTA_PLUGIN_SCHED,
	ROTA_PLUGIN_JOBCOMP,
};

enum rota_plugin_log {
	ROTA_PLUGIN_LOG_ERR = 1,
	ROTA_PLUGIN_LOG_WARN,
	ROTA_PLUGIN_LOG_INFO,
	ROTA_PLUGIN_LOG_DEBUG,
};

/* A plugin's settings: the rest of its line(s) in rota.conf. */
struct rota_plugin_conf;

/* The host's event loop, as plugins see it (struct rota_host, ABI 1.1). */
struct rota_host_watch;
struct rota_host_timer;
enum {
	ROTA_HOST_EV_READ = 1,
	ROTA_HOST_EV_WRITE = 2,
	ROTA_HOST_EV_ERROR = 4, /* reported only */
};
typedef void (*rota_host_fd_fn)(int fd, unsigned events, void *arg);
typedef void (*rota_host_timer_fn)(void *arg);

/*
 * What the host offers a plugin.  The settings getters parse the value of
 * 'key' (matched ignoring case) in the plugin's section, or leave '*out'
 * at the caller's default when the key is absent; on a bad value they
 * fill 'err' with "file:line: Key: reason" and return -EINVAL.  A key the
 * plugin never asks for is an error the host reports after init().
 */
struct rota_host {
	size_t size;
	void (*log)(const struct rota_host *host, enum rota_plugin_log level,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
	int (*conf_double)(const struct rota_plugin_conf *conf,
			   const char *key, double min, double max,
			   double *out, char *err, size_t errlen);
	/* durations as rota.conf writes them: "90s", "168h", "7d" */
	int (*conf_duration)(const struct rota_plugin_conf *conf,
			     const char *key, int64_t min, int64_t max,
			     int64_t *out, char *err, size_t errlen);
	int (*conf_bool)(const struct rota_plugin_conf *conf, const char *key,
			 bool *out, char *err, size_t errlen);
	/* one of 'choices' (NULL-terminated); '*out' is its index */
	int (*conf_choice)(const struct rota_plugin_conf *conf,
			   const char *key, const char *const *choices,
			   unsigned *out, char *err, size_t errlen);
	void *priv;		/* the host's, not the plugin's */
	/*
	 * The text of 'key' as written (borrowed: copy it in init), and where:
	 * "file:line" into 'where', for the plugin's own messages about it
	 * ("rota.conf:12: Formula: unknown name 'x' at column 7").  0 and
	 * '*out' left alone when absent.
	 */
	int (*conf_string)(const struct rota_plugin_conf *conf,
			   const char *key, const char **out, char *where,
			   size_t wherelen);
	/* where a setting is written, "file:line: Key" (-ENOENT: absent) */
	int (*conf_where)(const struct rota_plugin_conf *conf, const char *key,
			  char *buf, size_t len);
	/*
	 * ABI 1.1: the host's event loop and state directory, for plugins
	 * that do I/O (jobcomp).  Check ROTA_HOST_HAS(host, member) before
	 * use: rota-ctld offers them; a host without a loop (rota sim, unit
	 * tests) leaves them NULL.  Callbacks run on the loop and must not
	 * block; a watcher or timer may be removed from its own callback.
	 * Events are ROTA_HOST_EV_*.
	 */
	struct rota_host_watch *(*watch_fd)(const struct rota_host *host,
					    int fd, unsigned events,
					    rota_host_fd_fn cb, void *arg);
	void (*watch_set)(struct rota_host_watch *w, unsigned events);
	void (*watch_remove)(struct rota_host_watch *w);
	/* call 'cb' once, 'ms' milliseconds from now */
	struct rota_host_timer *(*timer_add)(const struct rota_host *host,
					     int64_t ms, rota_host_timer_fn cb,
					     void *arg);
	void (*timer_cancel)(struct rota_host_timer *t);
	const char *state_dir;	/* StateDir: for the plugin's own files */
	bool check_only;	/* init() only checks settings: no I/O, no
				   files (rota-ctld -t) */
	void *loop_priv;	/* the host's, for the members above */
};

/* Is 'member' of struct rota_host offered by this host? */
#define ROTA_HOST_HAS(host, member)                                        \
	((host)->size >= offsetof(struct rota_host, member) +               \
				 sizeof((host)->member))

/* ---- fairshare ------------------------------------------------------------ */

#define ROTA_SHARE_NONE UINT32_MAX

/*
 * One node of the account tree: an account, or a user's association with
 * one account (a user in two accounts is two leaves).  The host fills the
 * inputs; the plugin writes the outputs for every node.
 */
struct rota_share_node {
	const char *name;	/* account name, or the user's name */
	const char *account;	/* the account itself, or the user's account */
	uint32_t parent;	/* index; ROTA_SHARE_NONE for the root */
	uint32_t first_child;	/* ROTA_SHARE_NONE when a leaf */
	uint32_t next_sibling;	/* ROTA_SHARE_NONE when the last */
	uint32_t depth;		/* 0 for the root */
	bool is_user;
	/* inputs */
	double shares;		/* raw, as rota.conf gives them */
	double shares_norm;	/* of the machine: shares / siblings' along
				   the path; 1 for the root */
	double usage;		/* decayed charged core-seconds of the subtree */
	double usage_norm;	/* usage / the root's usage; 0 when none */
	uint32_t pending;	/* pending jobs of the subtree, held ones
				   not counted (since ABI 1.9) */
	uint32_t running;	/* running jobs of the subtree */
	/* outputs */
	double usage_eff;	/* the usage the algorithm weighs (classic's
				   effective usage; else usage_norm) */
	double level_fs;	/* Fair-Tree's S/U among siblings; else NAN */
	double value;		/* the algorithm's own figure (IT4I: 0..1e6) */
	double factor;		/* the fairshare factor, in [0, 1] */
	double tickets;		/* share-tree tickets held; else 0 */
};

/*
 * The whole tree, nodes in depth-first preorder (a parent before its
 * children, siblings by name), node 0 the root account "root".
 */
struct rota_share_tree {
	struct rota_share_node *nodes;
	size_t n;
	int64_t now;		/* Unix seconds, from the injected clock */
	/*
	 * Names the tree's shape (nodes, links, is_user and shares): equal
	 * in two calls, the shape is the same, so a plugin may keep what it
	 * derived from it.  0: unknown, derive it again.  Since ABI 1.2.
	 */
	uint64_t shape;
	/*
	 * Each node's usage in the host's own units (indexed as nodes):
	 * usage_ref[i] x one factor common to all nodes is nodes[i].usage,
	 * for a plugin that needs only ratios of usage.  Between two calls
	 * with the same usage_epoch the factor is the same, so a node's
	 * usage_ref changes only when its subtree was charged: the decay
	 * alone moves nothing.  NULL: not given.  While the shape stays
	 * the same the host passes the same nodes, with the outputs the
	 * plugin last wrote still in them (the host may rewrite only
	 * 'factor'), so a plugin that keeps state may write again only
	 * what moved.  Since ABI 1.3.
	 */
	const double *usage_ref;
	uint64_t usage_epoch;
	/*
	 * Since ABI 1.9: where a plugin that computes Grid Engine's targets
	 * (sharetree) writes them, one per node (indexed as nodes); NULL
	 * when the host does not read them.  The host fills them with NAN
	 * (not computed); other plugins leave them alone.
	 */
	struct rota_share_target *targets;
	/*
	 * Since ABI 1.10: where a plugin that deals Grid Engine's tickets
	 * (sharetree) writes the settings of the other ticket policies,
	 * which the host deals (override and functional tickets,
	 * policy_hierarchy); NULL when the host does not read them.  The
	 * host zeroes it before compute(): no functional tickets, no
	 * hierarchy.
	 */
	struct rota_ticket_policy *policy;
};

/*
 * Grid Engine's sched_conf settings of its ticket policies
 * (bench/oracle/FINDINGS.md, rules 7-11).  A Grid Engine project is a
 * Rota account, a department a DepartmentName= line.
 */
struct rota_ticket_policy {
	double functional;	/* weight_tickets_functional; 0: none */
	double weight_user;	/* weight_user */
	double weight_project;	/* weight_project: the account's share */
	double weight_job;	/* weight_job */
	uint32_t max_functional; /* max_functional_jobs_to_schedule */
	bool share_functional;	/* share_functional_shares */
	bool share_override;	/* share_override_tickets */
	char hierarchy[4];	/* policy_hierarchy: "OFS", "F", "" (NONE) */
	/*
	 * Since ABI 1.11: weight_department, the user's department's
	 * share (DepartmentName= lines); an older plugin leaves it 0.
	 */
	double weight_department;
};

/*
 * Grid Engine's targets of a node (sge_calc_node_targets()), each a share
 * of the whole machine, 0 for a node without jobs below it.  Grid Engine
 * computes them twice a pass: among the nodes with running or pending
 * (not held) jobs, for pending jobs' tickets, and among those with
 * running jobs alone, for running jobs' tickets.
 */
struct rota_share_target {
	double oltt;		/* long-term: shares among the active */
	double ostt;		/* short-term: corrected by usage */
	double ostt_running;	/* short-term among the running alone */
};

struct rota_fairshare_ops {
	size_t size;		/* sizeof the plugin's table */
	/* required: set every node's outputs */
	int (*compute)(void *state, struct rota_share_tree *tree);
	/*
	 * Optional, since ABI 1.4: compute() for a host that reads only the
	 * users' factors before its next call (rating pending jobs, most
	 * often), so that it does not pay for what only `rota share`
	 * shows.  The host gives usage_ref and may leave the other inputs
	 * (usage, usage_norm, pending, running) as of an earlier call; the
	 * plugin may leave every output but the factors as it was, and the
	 * factors too when they did not change: the host leaves them alone.
	 * The host calls compute() before it reads anything else.
	 */
	int (*factors)(void *state, struct rota_share_tree *tree);
};

/* ---- priority ------------------------------------------------------------- */

/*
 * A pending job as the priority plugins see it.  The host fills the
 * inputs before compute(); the plugin writes 'priority'.  Higher runs
 * first; within one queue tier, ties go to the earlier submit, then the
 * lower id.
 */
struct rota_prio_job {
	uint32_t id;
	const char *user;
	const char *account;
	const char *queue;
	const char *qos;	/* "normal" unless asked */
	int64_t submit_time;
	int64_t wait_time;	/* now - submit */
	int64_t eligible_time;	/* seconds it could have run: not held,
				   blocked by a limit or waiting on a
				   dependency */
	int64_t time_limit;	/* seconds; 0: none */
	uint32_t nodes;		/* asked (0: as many as the tasks need) */
	uint32_t cores;		/* tasks x cores per task */
	uint64_t mem_mb;	/* the whole job's */
	int32_t nice;		/* subtracted (Slurm); -10000..10000 */
	uint32_t urgency;	/* Flux's 0..31, 16 by default; users may only
				   lower it */
	uint32_t bypass;	/* times a backfilled job passed it */
	double queue_priority;	/* the queue's Priority= */
	double qos_priority;	/* the QOS's Priority= */
	double assoc_priority;	/* the user's association's Priority= */
	int64_t qos_target_wait; /* the QOS's TargetWait=, 0: none */
	/* from the fairshare plugin, at the job's association */
	double fs_factor;	/* [0, 1] */
	double fs_value;	/* the algorithm's own (IT4I: 0..1e6) */
	double fs_shares_norm;	/* its share of the machine */
	double fs_usage_norm;	/* its part of the machine's usage */
	double tickets;		/* Grid Engine's tickets of this job (override,
				   functional and share-tree); else 0 */
	/* output */
	double priority;
};

/* What the whole cluster and queue look like, for normalizing. */
struct rota_prio_context {
	int64_t now;
	uint32_t total_nodes;
	uint32_t total_cores;
	double max_queue_priority; /* 0 when no queue has one */
	double max_qos_priority;
	double max_assoc_priority;
	/*
	 * Since ABI 1.8, for a plugin whose ops set rates_all: what each of
	 * the jobs passed is (ROTA_PRIO_JOB_*), one per job; else NULL.
	 */
	const uint8_t *job_state;
	/*
	 * Since ABI 1.9: each job's initiation deadline (Grid Engine's -dl,
	 * Unix seconds; 0: none), one per job passed.
	 */
	const int64_t *job_deadline;
	/*
	 * Since ABI 1.10: the parts of each job's 'tickets' that are Grid
	 * Engine's override and functional tickets (the rest are share-tree
	 * tickets), one per job passed; NULL: none.  (Arrays beside the jobs
	 * rather than fields of struct rota_prio_job, whose size an older
	 * plugin steps through the jobs by.)
	 */
	const double *job_otickets;
	const double *job_ftickets;
	/*
	 * Since ABI 1.11: each job's task range (rota submit -n MIN-MAX,
	 * Grid Engine's qsub -pe NAME MIN-MAX) as cores, MIN and MAX tasks
	 * x its cores per task, one per job passed, running jobs included
	 * (Grid Engine rates a running one by its range too); both 0 for a
	 * job without one.  A range job's 'cores' is the minimum while it
	 * waits, what it was granted once it runs.  NULL: none has one.
	 */
	const uint32_t *job_cores_min;
	const uint32_t *job_cores_max;
	/*
	 * Since ABI 1.13: each job's GPUs in all (per node times its nodes,
	 * or per task times its tasks; once it runs, those it holds) and its
	 * licenses as asked ("matlab:1,ansys:2"; NULL: none), one per job
	 * passed: the consumables Grid Engine weighs by their urgency.
	 */
	const uint32_t *job_gpus;
	const char *const *job_licenses;
	/*
	 * Since ABI 1.15: what each job's queue has in all (its nodes'
	 * cores, memory in MB, nodes and GPUs), one per job passed: Slurm
	 * weighs a job's TRES against its partition's (PriorityWeightTRES).
	 */
	const uint32_t *job_queue_cores;
	const uint64_t *job_queue_mem_mb;
	const uint32_t *job_queue_nodes;
	const uint32_t *job_queue_gpus;
};

enum {
	ROTA_PRIO_JOB_PENDING,	/* eligible or waiting on a limit */
	ROTA_PRIO_JOB_HELD,	/* held by its user or an operator */
	ROTA_PRIO_JOB_RUNNING,
};

/* One named term of a priority, for rota prio. */
struct rota_prio_factor {
	const char *name;	/* static: "age", "fairshare", ... */
	double raw;		/* the input, in its own unit */
	double norm;		/* as the formula uses it (often [0, 1]) */
	double weight;
	double value;		/* its share of the priority */
};

#define ROTA_PRIO_FACTORS_MAX 16

struct rota_priority_ops {
	size_t size;		/* sizeof the plugin's table */
	/*
	 * Required: set jobs[i].priority for every pending job, all at once
	 * (Grid Engine normalizes urgency over them).  The result must be
	 * finite: a job the formula cannot rate gets a defined value.
	 */
	int (*compute)(void *state, const struct rota_prio_context *ctx,
		       struct rota_prio_job *jobs, size_t n);
	/*
	 * Optional: the terms of one job's priority as the last compute()
	 * made it; returns how many were written (at most 'max').
	 */
	size_t (*explain)(void *state, const struct rota_prio_context *ctx,
			  const struct rota_prio_job *job,
			  struct rota_prio_factor *factors, size_t max);
	/* Optional: one line for rota prio's header (weights, formula). */
	void (*describe)(void *state, char *buf, size_t len);
	/*
	 * Since ABI 1.4: true when compute() reads, of what the fairshare
	 * plugin gives, fs_factor alone.  The host may then pass the other
	 * fs_ fields as of an earlier rating, and tickets 0, and take the
	 * factors from the fairshare plugin's cheaper factors().  explain()
	 * always gets them all.
	 */
	bool fs_factor_only;
	/*
	 * Since ABI 1.8: true when compute() rates every job as Grid Engine
	 * does: it gets the pending jobs, held ones among them, then the
	 * running ones, ctx->job_state telling which is which, and sets a
	 * priority for each (a running job's is shown, not used to order).
	 * The host deals held jobs no tickets.  False: pending jobs only.
	 */
	bool rates_all;
	/*
	 * Since ABI 1.10: true when a hold restarts a job's eligible_time,
	 * as Slurm clears a held job's accrue time (with limits enforced):
	 * after its release it counts from the release.  False: the time
	 * before the hold counts on (PBS's eligible_time, Maui's).
	 */
	bool hold_restarts_age;
	/*
	 * Since ABI 1.16: true when a job's priority depends on nothing
	 * that changes after its submit (fifo): the host need not re-rate
	 * the pending jobs every PriorityCalcPeriod, only rate new ones.
	 */
	bool time_invariant;
};

/* ---- limits --------------------------------------------------------------- */

#define ROTA_LIMIT_NONE (-1)	/* a limit not set */

/* Amounts of each resource a running limit counts: -1 where not set. */
struct rota_limit_tres {
	int64_t cpu;		/* cores */
	int64_t mem;		/* MB */
	int64_t node;
	int64_t gpu;		/* gres/gpu */
};

/*
 * Limits rota.conf sets on one holder (a user's association, an account,
 * a QOS): -1 where not set.  Counts are jobs, cpus are cores, mem is MB,
 * times are seconds; cpu_run_mins is Slurm's GrpTRESRunMins=cpu=N.
 */
struct rota_limit_set {
	int64_t max_jobs;	/* MaxJobs: running at once */
	int64_t max_submit;	/* MaxSubmitJobs: pending and running */
	int64_t max_wall;	/* MaxWall: a job's time limit */
	int64_t max_cpus;	/* MaxTRES=cpu=: per job */
	int64_t max_mem;	/* MaxTRES=mem=: per job, MB */
	int64_t max_nodes;	/* MaxTRES=node=: per job */
	int64_t cpu_run_mins;	/* GrpTRESRunMins=cpu=: cores x minutes
				   left of the holder's running jobs */
	int64_t max_idle;	/* MaxIdle: Maui's idle jobs */
	int64_t max_ps;		/* MaxPS: Maui's soft processor-seconds */
	int64_t max_ps_hard;	/* MaxPSHard */
	int64_t allocation;	/* Allocation: core-hours a month (Maui's
				   soft = allocation x 3600 / 5) */
	int64_t max_gpus;	/* ABI 1.14: MaxTRES=gres/gpu=: per job */
	/*
	 * ABI 1.15: what running jobs may hold at once: the holder's
	 * (GrpTRES=: an account's counts the accounts below it too), and
	 * on a QOS, those of one user or one account in it
	 * (MaxTRESPerUser=, MaxTRESPerAccount=; unset elsewhere).
	 */
	struct rota_limit_tres grp_tres;
	struct rota_limit_tres user_tres;
	struct rota_limit_tres account_tres;
};

/*
 * A job as the limits plugins see it.  Running jobs come first, then
 * pending ones in scheduling order.
 */
struct rota_limit_job {
	uint32_t id;
	const char *user;
	const char *account;	/* the account of the user's association */
	const char *qos;
	uint32_t cores;
	uint32_t nodes;		/* asked (0: as the tasks need); ABI
				   1.15, a running job's: those it holds */
	uint64_t mem_mb;	/* the whole job's */
	int64_t time_limit;	/* seconds; 0: none */
	int64_t remaining;	/* running: seconds left of its limit */
	bool running;
	bool held;		/* pending and held: neither idle nor blocked */
	/* the limits on its holders; chains end at the root's parent */
	const struct rota_limit_set *user_limits;
	const struct rota_limit_set *const *account_limits; /* the account,
				   then its parents up to the root, NULL-ended */
	const struct rota_limit_set *qos_limits;
	/* output of classify(), pending jobs only */
	bool blocked;
	char reason[96];	/* "MaxIdlePerUser (8 of 8)" */
	/*
	 * ABI 1.7: a job array's pending rest is one view standing for
	 * 'count' jobs (0 or 1: one), which limits count as jobs, as Slurm
	 * and Maui do.  classify() may set 'eligible' to how many of them
	 * the limits leave free (0: all, unless blocked), with the reason
	 * for the others.
	 */
	uint32_t count;
	uint32_t eligible;
	uint32_t gpus;		/* ABI 1.14: its GPUs in all */
	/*
	 * ABI 1.15, output of classify() and start() with 'reason': the
	 * limit in a sentence with its numbers, for rota why ("user 'ana'
	 * holds 6 of the 8 GPUs ..."); empty: the reason says it all.
	 */
	char detail[160];
	/*
	 * ABI 1.15, for a pending job (NULL for a running one): what the
	 * running jobs of each of its holders hold now, which the host keeps
	 * as jobs start and end (so that no plugin need count them for
	 * GrpTRES): its user's association, its accounts as in
	 * account_limits, its QOS, then the QOS's share of the job's user
	 * and of its account; a holder it lacks holds 0.
	 */
	const struct rota_limit_tres *running_use;
};

/*
 * ABI 1.12: how many jobs each of a job's holders has in the queue
 * (pending and running, an array's pending rest counting as its tasks),
 * the job itself left out.  The host keeps them as jobs come and go, so
 * that admit_counted() costs the same with 100 or 100,000 jobs queued.
 * 'account' follows the job's account_limits entry for entry; a holder
 * the job does not have (a NULL user_limits, qos_limits) counts 0.
 */
struct rota_limit_counts {
	int64_t user;
	const int64_t *account;
	int64_t qos;
};

struct rota_limits_ops {
	size_t size;
	/*
	 * Optional: may this job be submitted at all?  0, or -EINVAL with
	 * the user's line in 'err' ("--time=6-00:00:00 exceeds MaxWall of
	 * 5-00:00:00").  'queued' are the holder's jobs already in the queue
	 * (the host passes them: running and pending).
	 */
	int (*admit)(void *state, int64_t now, const struct rota_limit_job *job,
		     const struct rota_limit_job *queued, size_t nqueued,
		     char *err, size_t errlen);
	/*
	 * Required: once per scheduling pass, mark each pending job blocked
	 * (with its reason) or leave it idle; 'jobs' are all running jobs
	 * then all pending ones in order.  A blocked job is not eligible:
	 * it does not start, and its eligible time stands still.  Several
	 * plugins see the same array in turn: set 'blocked', never clear it,
	 * and count a job another plugin blocked as blocked (not idle).
	 */
	int (*classify)(void *state, int64_t now, struct rota_limit_job *jobs,
			size_t n);
	/*
	 * Optional: the pass is about to start idle job 'job'; 0 to let it,
	 * or 1 with the reason in 'reason' to keep it waiting (Maui's
	 * processor-second soft limit).  'others_idle' says whether any
	 * other idle job of the pass could still start.  The plugin counts a
	 * job it lets start as running from then on.
	 */
	int (*start)(void *state, int64_t now, const struct rota_limit_job *job,
		     bool others_idle, char *reason, size_t len);
	/*
	 * Since ABI 1.12.  Optional: admit(), with each holder's jobs
	 * counted by the host ('queued') instead of listed.  A host that
	 * knows it calls it instead of admit(), which a plugin may still
	 * give for older hosts.
	 */
	int (*admit_counted)(void *state, int64_t now,
			     const struct rota_limit_job *job,
			     const struct rota_limit_counts *queued, char *err,
			     size_t errlen);
	/*
	 * Since ABI 1.12.  Optional, for a plugin whose classify() judges a
	 * pending job by that job and the running jobs alone, never by the
	 * other pending jobs or their order (Slurm's MaxJobs, not Maui's
	 * MaxIdle).  Called before each classify() with the running jobs
	 * only.  Returns how many holders' pending jobs might be judged
	 * otherwise than at the last call (a holder reached or left a
	 * limit, the numbers of a reason moved), their sets written to
	 * 'moved' (room for 'cap'); 0 if none; more than 'cap' or negative
	 * (always on the first call): any pending job might.  When every
	 * plugin has it, the host hands classify() the running jobs and only
	 * the pending jobs that changed since its last call (submitted,
	 * released, requeued, updated) or have a moved set among their
	 * holders: the others keep their verdicts.  When any job might
	 * move, classify() sees every job, though held ones (neither idle
	 * nor blocked, they need no verdict) may be left out.
	 */
	int (*running_changed)(void *state, int64_t now,
			       const struct rota_limit_job *running, size_t n,
			       const struct rota_limit_set **moved, size_t cap);
};

/* ---- sched: backfill ------------------------------------------------------- */

/* A pending job as a backfill pass sees it, in scheduling order. */
struct rota_sched_job {
	uint32_t id;
	const char *user;
	const char *queue;
	uint32_t queue_index;
	uint32_t cores;
	int64_t time_limit;	/* seconds; 0: none */
	bool eligible;		/* not held, not blocked by a limit */
};

struct rota_sched_pass;		/* the host's, for one pass */

/*
 * What the host offers one backfill pass.  The host keeps the profile of
 * free cores and memory over time (running jobs until their limits, the
 * reservations made so far in this pass): a job it starts never delays
 * a reservation, so the plugin only chooses which jobs to try, which get
 * reservations, and when to stop.
 */
struct rota_sched_host {
	size_t size;
	int64_t now;
	const struct rota_sched_job *jobs;
	size_t njobs;
	struct rota_sched_pass *pass;
	/* Start job i now if it fits without delaying a reservation: 1
	   started, 0 not (it does not fit, or a limit holds it). */
	int (*start)(struct rota_sched_pass *pass, size_t i);
	/* Reserve job i at its earliest start within 'window' seconds
	   (candidate times rounded up to 'resolution'): 0 and the time, or
	   -ENOSPC when it cannot start within the window. */
	int (*reserve)(struct rota_sched_pass *pass, size_t i, int64_t window,
		       int64_t resolution, int64_t *when);
	/* Job i was passed over by 'count' backfilled jobs (Maui's bypass). */
	void (*bypass)(struct rota_sched_pass *pass, size_t i, uint32_t count);
	/* Microseconds of work in this pass; 0 when the host has no work
	   clock (rota sim: its passes never depend on the machine). */
	int64_t (*elapsed_us)(struct rota_sched_pass *pass);
	/* At least the cores any job could start on now (they only fall as
	   jobs start): a job asking for more cannot start.  Since ABI 1.3;
	   NULL: no bound known. */
	uint64_t (*free_cores)(struct rota_sched_pass *pass);
};

/* What a pass did, for rota diag. */
struct rota_sched_stats {
	uint32_t tested;	/* jobs tried */
	uint32_t started;	/* jobs started by backfill */
	uint32_t reserved;	/* reservations made */
	uint32_t depth;		/* how far down the order it got */
	bool capped;		/* stopped by a cap before the end */
};

struct rota_sched_ops {
	size_t size;
	/* Required: one backfill pass over h->jobs. */
	int (*backfill)(void *state, const struct rota_sched_host *h,
			struct rota_sched_stats *stats);
	/* Optional: seconds between passes (Slurm's bf_interval); 30. */
	int64_t (*interval)(void *state);
	/* Optional: one line for rota diag (mode and caps). */
	void (*describe)(void *state, char *buf, size_t len);
};

/* ---- the descriptor ------------------------------------------------------- */

struct rota_plugin {
	uint32_t abi;		/* ROTA_PLUGIN_ABI it was built against */
	enum rota_plugin_kind kind;
	const char *name;
	/*
	 * Optional: validate 'conf' and create the state (NULL is a fine
	 * state).  0, or -EINVAL with the line to show in 'err'.
	 */
	int (*init)(const struct rota_host *host,
		    const struct rota_plugin_conf *conf, void **state,
		    char *err, size_t errlen);
	void (*fini)(void *state); /* optional */
	const void *ops;	/* struct rota_<kind>_ops */
};

/* ---- jobcomp (ABI 1.1) ---------------------------------------------------- */

/*
 * One finished job, as the controller hands it over once its end is safe
 * in the journal.  A const view: strings are borrowed for the call.
 */
/* One job step of a finished job (rota run), in its record. */
struct rota_jobcomp_step {
	uint32_t id;		/* job.id is the step's name: "12.0" */
	const char *name;	/* its command */
	uint32_t ntasks;
	const char *nodes;	/* hostlist text */
	const char *state;	/* COMPLETED, FAILED, CANCELLED */
	int exit_code;		/* the largest of its tasks' (128+signal) */
	int32_t failed_rank;	/* the first task that failed; -1: none */
	uint64_t cpu_usec;	/* its tasks' CPU time, as their nodes said */
	int64_t start;
	int64_t end;
};

struct rota_jobcomp_record {
	uint32_t id;
	const char *cluster;	/* ClusterName */
	const char *name;	/* the job's name */
	const char *user;
	uint32_t uid;
	uint32_t gid;
	const char *account;
	const char *queue;
	const char *nodes;	/* hostlist text, "n[01-02]"; "" if it never ran */
	uint32_t cores;		/* in all */
	uint64_t memory_mb;	/* per node, as asked (--mem-per-cpu: the most on one node) */
	int64_t time_limit;	/* seconds */
	int64_t submit;		/* Unix seconds */
	int64_t eligible;	/* could first start (no holds yet: submit) */
	int64_t start;		/* 0 if it never ran */
	int64_t end;
	int exit_code;
	int signal;		/* the signal that killed it, or 0 */
	const char *state;	/* "COMPLETED", "FAILED", "CANCELLED", ... */
	double priority;	/* at its start */
	double usage;		/* core-seconds charged, undecayed */
	uint32_t runs;		/* starts: 2 after one requeue */
	uint64_t cpu_usec;	/* CPU time, from its cgroup; 0: not known */
	uint64_t mem_peak;	/* memory peak (bytes), likewise */
	/* ABI 1.6: its steps, oldest first (none after a controller restart) */
	const struct rota_jobcomp_step *steps;
	uint32_t nsteps;
	/*
	 * ABI 1.7: a task of a job array: the array's job id, its task id;
	 * for a pending rest that ended so (cancelled), the ids it held
	 */
	uint32_t array_job_id;	/* 0: not of an array */
	uint32_t array_task_id;	/* 4294967295: a rest, see array_tasks */
	const char *array_tasks; /* that rest's ids ("3-999"); else NULL */
	/*
	 * ABI 1.17: what it held, as Slurm's AllocTRES
	 * ("cpu=4,mem=8G,node=1,gres/gpu=2,gres/gpu:v100=2"; "" if it never
	 * ran), its GPUs in all and which ("n01:0,1 n02:3"; "" if none)
	 */
	const char *tres;
	uint32_t gpus;
	const char *gpu_idx;
};

struct rota_jobcomp_ops {
	size_t size;		/* sizeof the plugin's table */
	/*
	 * Required: take one record.  It must be on its way once flush()
	 * returns: in a file, or in the plugin's spool (sent later): the
	 * host counts it delivered.  0, or -errno (the host logs it).
	 */
	int (*record)(void *state, const struct rota_jobcomp_record *r);
	/* Optional: after a batch of record()s, make them durable (fsync). */
	int (*flush)(void *state);
};

#endif
