/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_CORE_CORE_H
#define ROTA_CTLD_CORE_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/depend.h"
#include "common/error.h"
#include "common/gres.h"
#include "common/msg.h"
#include "common/taskset.h"

/*
 * The scheduling core: job, node and queue tables and the scheduling pass.
 * A pure library (DESIGN.md): it never reads a clock (every event carries
 * 'now', Unix seconds), never does I/O, and says what must happen on the
 * nodes by queueing actions that its host (rota-ctld, rota sim, a test)
 * takes with core_take_actions().  Single-threaded.
 *
 * Layers, bottom first.  A file calls only files of its own layer or of
 * lower ones, and no two files call each other; a lower layer reaches
 * up only through function pointers the upper one set (the plugins' ops).
 * testsuite/build/layers.sh checks it in make check, from the objects'
 * symbols (nm), against this table.
 *  1 tables     tables jobtab userjobs limit_set plugin_host constraint
 *               share share_usage array_tally changes limit_tally
 *               cursor
 *  2 resources  node gpus licenses gres resv fence estimate
 *  3 placement  place profile feasible
 *  4 policy     usage limits priority tickets ftickets depend
 *  5 moves      jobstate array
 *  6 passes     sched backfill shapes why
 *  7 events     events control node_events resv_admin restore lifecycle
 *               shown
 *
 * tables: the lists, marks, actions, lookups; the account tree and its
 *   usage (share*.c: a module of its own, knowing nothing of jobs); the
 *   plugin host; constraints (--constraint, parsed and matched).
 * resources: what jobs run on: nodes, advance reservations, fences (a
 *   requeued job waits until its last run is over), a job's planned start.
 * placement: where a job fits, now, ever, or over a span of time.
 * policy: usage charged, limits, priorities and the pending order;
 *   dependencies (what a job waits for, and who waits for a job).
 * moves: a job starts, finishes, goes back to the queue, is freed.
 * passes: the main pass, backfill (shapes: what failed in a pass), why
 *   a job waits.
 * events: what the host calls to change the core: submit, cancel, job
 *   end, tick (events.c), job control, node events, reservations, a
 *   journal's restore, create and destroy.  The host may read any layer
 *   through core.h.
 */
struct rota_conf;
struct rota_usage_weights;
struct rota_share_tree;
struct rota_prio_factor;
struct core;
struct constraint;
struct core_deps;

enum node_state {
	NODE_UNKNOWN = 0, /* declared, never registered */
	NODE_UP,
	NODE_DOWN,
};

/* One GPU of a node (gpus.c), in the node's PCI bus order. */
struct core_gpu {
	char *type;		/* "v100"; "": none named */
	char *model;
	char *busid;
	char *cores;		/* the cores nearest it ("0-23") */
	uint64_t *near;		/* the same, a bit a core of the node */
	uint32_t numa;
	uint32_t job;		/* the job using it; 0: free */
};

struct core_node {
	char *name;
	char *addr;
	char **features;	/* config's plus the registered ones */
	enum node_state state;
	char reason[160];	/* why down */
	uint32_t sockets;
	uint32_t cores;
	uint32_t pus;
	uint64_t memory_mb;
	uint32_t cores_used;
	uint64_t mem_used_mb;
	uint8_t *core_busy;	/* per core: 1 if allocated */
	int64_t last_seen;
	int64_t lease_until;	/* its jobs may live until then at most, by
				   the leases granted it (fence.c); 0: none
				   granted since this core began */
	bool drain;		/* an operator drains it: no new jobs */
	bool admin_down;	/* an operator set it down */
	uint32_t test_reserved;	/* cores kept for test queues' jobs */
	uint32_t test_used;	/* cores test queues' jobs use here */
	uint32_t cfg_cores;	/* from rota.conf; 0: as registered */
	uint64_t cfg_memory_mb;
	struct core_gpu *gpus;	/* as registered, as rota.conf allows */
	uint32_t ngpus;
	uint32_t gpus_used;
	uint32_t cfg_gpus;	/* Gres=gpu:N; 0: as the node finds them */
	char cfg_gpu_type[32];	/* Gres=gpu:TYPE:N; "": any */
	struct rota_gres *gres;	/* other generic resources (Gres=nvme:2) */
	size_t ngres;
	uint32_t *gres_used;	/* per gres entry, held by jobs; NULL
				   until a job takes some (gres.c) */
};

struct core_queue {
	char *name;
	uint32_t *nodes;	/* indexes into the node table */
	size_t nnodes;
	int64_t default_time;
	int64_t max_time;
	unsigned priority_tier;
	bool is_default;
	bool charge;		/* its jobs count as usage */
	double priority;	/* Priority=: the priority plugins' factor */
	uint32_t reserved_cores; /* a test queue's ReservedCores; 0: none */
	uint32_t smallest;	/* its smallest node (place.c's cache) */
	uint64_t smallest_stamp; /* the node sizes it was found for */
	size_t next_fit;	/* where the last one-node placement was */
	char **allow_users;	/* NULL-terminated; NULL: anyone */
	char **allow_accounts;
	/* what its nodes have in all, as of the last full priority rating
	   (the priority plugins' TRES weights) */
	uint32_t total_cores;
	uint64_t total_mem_mb;
	uint32_t total_gpus;
};

/* A quality of service; index 0 is "normal". */
struct core_qos {
	char *name;
	double priority;
	int64_t target_wait;	/* Maui's QTTarget, 0: none */
};

/* Why a pending job is held back (Slurm's JobHeldUser, JobHeldAdmin). */
enum core_hold {
	CORE_HOLD_NONE = 0,
	CORE_HOLD_USER,		/* its owner may release it */
	CORE_HOLD_OPERATOR,	/* only an operator may */
};

/*
 * The pending rest of a job array: one record however many tasks wait
 * (Slurm's design).  A task splits off as its own job when it is about to
 * start (or is acted on alone); the record becomes its last task.
 */
struct core_array {
	struct rota_taskset tasks; /* ids not split off yet */
	uint32_t throttle;	/* at most this many running; 0: no limit */
	uint32_t running;	/* its tasks running now */
	uint32_t quota;		/* tasks the limits let this pass start
				   (limits_classify); UINT32_MAX: any */
};

/* A whole array as submitted: its task count, lowest, highest, step. */
struct core_array_shape {
	uint32_t count;
	uint32_t min;
	uint32_t max;
	uint32_t step;		/* its ids' common step; 1 when uneven */
};

/* One node's share of a running job. */
struct core_alloc {
	uint32_t node;		/* index into the node table */
	uint32_t ncores;
	uint32_t *cores;	/* logical core indexes on that node */
	uint32_t ngpus;
	uint32_t *gpus;		/* the node's GPU indexes (bus order) */
};

/*
 * UsageCharge=measured: how much of a run's cgroup totals (as its node
 * reports them) is charged already, so that each CPU second and byte
 * counts once, however often or late the totals come (usage.c).
 */
struct core_meter {
	uint64_t cpu_usec;	/* CPU time charged up to */
	uint64_t io_bytes;	/* bytes read and written charged up to */
	uint64_t mem_bytes;	/* memory at the last report */
	double charged;		/* weighted usage charged for this run */
	bool baseline;		/* the next report only sets the marks: the
				   run was charged cores x wall time so far
				   (UsageCharge was allocated) */
};

/* A cluster-wide license (licenses.c): rota.conf's Licenses=matlab:10. */
struct core_license {
	char *name;
	uint32_t total;
	uint32_t used;		/* by running jobs */
};
size_t core_license_count(const struct core *core);
const struct core_license *core_license_get(const struct core *core,
					    size_t i);

/* Licenses a job asks for: the license's index, how many. */
struct core_lic {
	uint32_t idx;
	uint32_t count;
};

/* A generic resource other than GPUs a job asks on each node (gres.c). */
struct core_gres {
	uint32_t idx;		/* its name's index in GresTypes */
	uint32_t count;
	char type[ROTA_GRES_NAME_MAX + 1]; /* "": any */
};

struct core_job {
	uint32_t id;
	enum rota_job_state state;
	uid_t uid;
	gid_t gid;
	char *user;		/* the submitter's name */
	uint32_t assoc;		/* the account association it charges */
	uint32_t queue;		/* index into the queue table */
	struct rota_job_desc desc; /* desc.account: resolved at submit */
	uint32_t ntasks_min;	/* -n MIN-MAX: MIN, as desc.ntasks holds
				   the tasks granted while it runs (sched.c);
				   else desc.ntasks */
	struct constraint *constraint;
	struct core_lic *lics;	/* desc.licenses, parsed; NULL: none */
	uint32_t nlics;
	struct core_gres *gres;	/* desc.gres, parsed; NULL: none */
	uint32_t ngres;
	int64_t time_limit;	/* resolved (queue default applied), seconds */
	int64_t submit_time;
	int64_t start_time;
	int64_t end_time;
	int64_t charged_until;	/* usage charged up to here (running) */
	struct core_meter meter; /* UsageCharge=measured: of this run */
	double priority;	/* the priority plugin's, last computed */
	int64_t rated_at;	/* when: its terms are explained as of then */
	double tickets;		/* Grid Engine's tickets it was rated with:
				   override + functional + share-tree */
	double otickets;	/* of which override tickets */
	double ftickets;	/* and functional tickets */
	int64_t eligible_accum;	/* eligible seconds before eligible_since */
	int64_t eligible_since;	/* when it became eligible, if it is */
	uint32_t qos;		/* index into the QOS table */
	uint32_t bypass;	/* times a backfilled job passed it */
	enum core_hold hold;
	uint32_t resv_id;	/* running in this reservation; 0: none */
	bool eligible;		/* pending and free to run (not held,
				   blocked or waiting on a dependency) */
	bool limited;		/* a limit blocks it (limit_reason says
				   which); not eligible meanwhile */
	bool cancel_sent;
	bool dirty;		/* changed since the host last took changes */
	bool recorded;		/* its jobcomp record was handed over */
	uint32_t nest;
	uint32_t est_cap;	/* est_node and est_tasks hold this many */
	int64_t est_start;	/* backfill's reservation for it; 0: none */
	/*
	 * Where that reservation is: node indexes and tasks on each (as a
	 * placement), held only while est_start is (estimate.c).
	 */
	uint32_t *est_node;
	uint32_t *est_tasks;
	/* CORE_LIMIT_REASON_MAX bytes, made when a limit first holds it */
	char *limit_reason;
	/* CORE_LIMIT_DETAIL_MAX bytes: the limit in a sentence for rota
	   why ("user 'ana' holds 6 of the 8 GPUs ..."); NULL: none */
	char *limit_detail;
	int exit_code;
	int term_signal;
	uint64_t cpu_usec;	/* ended: CPU time from its cgroup; 0: unknown */
	uint64_t mem_peak;	/* ended: its memory peak (bytes); 0: unknown */
	const char *reason;	/* static: why pending; NULL when none */
	char *end_text;		/* how it ended, when noteworthy */
	struct core_alloc *alloc;
	uint32_t nalloc;
	uint32_t run;		/* starts so far: 2 after one requeue */
	uint32_t fence_node;	/* pending: node index + 1 where run 'run'
				   may still live (fence.c); 0: none */
	uint32_t array_id;	/* its array's job id; 0: not of an array */
	uint32_t array_task;	/* its task id; ROTA_ARRAY_PENDING_REST
				   while it is the array's pending rest */
	struct core_array *array; /* that rest; NULL for any other job */
	struct core_array_shape shape; /* its array's, for each task's
				   environment (ROTA_ARRAY_TASK_COUNT...) */
	struct core_deps *deps;	/* what it still waits for (depend.c);
				   NULL: none */
	bool dep_wait;		/* a dependency not yet satisfied: not
				   eligible, like a hold */
	size_t order_slot;	/* index in the core's id-ordered index */
	struct core_job *uprev;	/* in its user's list (userjobs.c) */
	struct core_job *unext;
	struct core_job *prev;	/* in the pending or running list */
	struct core_job *next;
	/*
	 * In the walk list (tables.c): the pending jobs the main pass looks
	 * at, those not held, waiting on a dependency, limit-blocked or
	 * fenced, in the pending list's order.
	 */
	struct core_job *wprev;
	struct core_job *wnext;
	bool in_pending;	/* in the pending list */
	bool in_walk;		/* in the walk list */
	bool candidate;		/* its top row may have changed (changes.c) */
	int64_t change;		/* the change number its row last changed
				   at; 0: not since the controller started */
	uint64_t shown;		/* a digest of that row (shown.c) */
	struct core_job *cprev;	/* in the change list, by change number */
	struct core_job *cnext;
	/*
	 * What the limits' holder tallies count of it (limit_tally.c): jobs
	 * and the association and QOS they were counted for; and whether
	 * it waits to be judged again by the limits.
	 */
	uint32_t tally_jobs;
	uint32_t tally_assoc;
	uint32_t tally_qos;
	bool tally_run;		/* counted as running, with tally_held */
	int64_t tally_held[4];	/* cores, MB, nodes, GPUs (TALLY_*) */
	bool limits_look;
	/*
	 * In its association and QOS's list of the pending jobs the limits
	 * judge (limit_tally.c), its index + 1 (0: in none).
	 */
	uint32_t bucket;
	struct core_job *bprev;
	struct core_job *bnext;
};
#define CORE_LIMIT_REASON_MAX 96
#define CORE_LIMIT_DETAIL_MAX 160

enum core_action_type {
	CORE_ACTION_LAUNCH = 1, /* start job on alloc[i] */
	CORE_ACTION_SIGNAL,	/* signal job on alloc[i] */
};

struct core_action {
	enum core_action_type type;
	uint32_t job_id;
	uint32_t run;		/* which run of the job */
	uint32_t alloc_index;
	uint32_t node;
	int signo;
	bool cancel;
};

/* What core_submit needs beyond the user's request. */
struct core_submit {
	struct rota_job_desc *desc; /* taken over on success (left empty) */
	uid_t uid;
	gid_t gid;
	const char *user;	    /* the uid's name, for the account tree */
	bool operator;		    /* may set a negative nice, urgency > 16 */
};

/*
 * Build the tables from a parsed config and load its policy plugins.
 * Caller frees with core_destroy().  'conf' is borrowed for the call only.
 * -EINVAL or -ENOENT with the line in 'err' when a plugin is refused.
 */
int core_create(const struct rota_conf *conf, struct core **out,
		struct rota_error *err);
void core_destroy(struct core *core);

/*
 * Accept a job: checks the queue exists, the time limit, the constraint,
 * the account (desc->account, or the user's default), and that some set of
 * the queue's nodes could ever hold it.  -EINVAL (-ENOENT for an unknown
 * queue or account, -EPERM for an account not the user's) with the user's
 * line in 'err'.
 */
int core_submit(struct core *core, int64_t now, struct core_submit *req,
		uint32_t *job_id, struct rota_error *err);

/*
 * Cancel a job on behalf of 'uid' ('operator': may cancel any).  A pending
 * job ends now; a running one gets SIGNAL actions and ends when its nodes
 * report.  -ENOENT, -EPERM, -EALREADY (already ended).
 */
/*
 * Send 'signo' to a running job's batch script (its process group), as
 * 'uid'; the job ends as the script then does, not as CANCELLED.
 * -ENOENT (not running), -EPERM.
 */
int core_signal(struct core *core, uint32_t job_id, uid_t uid, bool operator,
		int signo, struct rota_error *err);
int core_cancel(struct core *core, int64_t now, uint32_t job_id, uid_t uid,
		bool operator, struct rota_error *err);

/*
 * Hold a pending job ('operator' hold or the user's own) or release it.
 * A held job is not eligible: it is not started and its eligible time
 * (the age factors) stands still.  Users act on their own jobs and may
 * not release an operator hold.  -ENOENT, -EPERM, -EINVAL (not pending,
 * or not held) with the user's line.
 */
int core_hold(struct core *core, int64_t now, uint32_t job_id, uid_t uid,
	      bool is_operator, bool operator_hold, struct rota_error *err);
int core_release(struct core *core, int64_t now, uint32_t job_id, uid_t uid,
		 bool is_operator, struct rota_error *err);

/*
 * The host's clock of elapsed work, in microseconds, for the passes' time
 * budgets (SchedulerMaxTime, backfill's MaxTime).  Without one (the
 * simulator) passes are bounded by their job counts only, so that their
 * decisions never depend on the machine's speed.
 */
void core_set_work_clock(struct core *core, int64_t (*fn)(void));

/*
 * Run every pass even when nothing has changed since the last one started
 * nothing (normally skipped: sched.c, core_mark_changed()).  For tests that
 * check the skipping changes no decision (rota sim --every-pass).
 */
void core_set_every_pass(struct core *core, bool every);

/*
 * Backfill.  Every backfill interval (core_tick) the sched plugin runs a
 * pass over the availability profile: jobs that fit without delaying any
 * reservation start, others get reservations (est_start).  Returns the
 * plugin's result; 'stats' what the pass did.  No-op with the builtin
 * (strict order) plugin.
 */
struct rota_sched_stats;
int core_backfill(struct core *core, int64_t now,
		  struct rota_sched_stats *stats);

/* The scheduler's passes so far, for rota diag. */
struct core_sched_stats {
	uint64_t main_passes;
	uint64_t main_started;
	uint64_t main_last_us;	/* on the host's work clock; 0 without */
	uint64_t main_max_us;
	uint64_t main_depth;	/* jobs tried by the last main pass */
	uint64_t bf_passes;
	uint64_t bf_started;	/* by all backfill passes */
	uint64_t bf_last_us;
	uint64_t bf_max_us;
	uint64_t bf_total_us;
	uint64_t bf_depth;	/* how far down the last pass got */
	uint64_t bf_reserved;	/* reservations of the last pass */
	uint64_t main_skipped;	/* passes not run: nothing had changed */
	uint64_t main_visited;	/* pending jobs the last main pass looked
				   at (held and other parked jobs are not) */
	uint64_t bf_skipped;
	uint64_t limits_judged;	/* pending jobs the limits judged before
				   the last pass (limits_classify) */
};
const struct core_sched_stats *core_sched_stats(const struct core *core);
/*
 * Do the limits' counts kept from request to request (limit_tally.c)
 * match a count from scratch of the queued jobs?  O(jobs): for tests
 * and checks, not for passes.
 */
bool core_limits_consistent(struct core *core);
const char *core_sched_plugin(const struct core *core);
/*
 * Would the next main (backfill) pass be skipped, nothing having changed
 * since one of its kind that started nothing and whose outcome time
 * alone cannot change (sched.c, backfill.c)?  A host may leave its
 * periodic passes out until the next change (rota sim does).
 */
bool core_main_settled(const struct core *core);
bool core_bf_settled(const struct core *core);
void core_sched_describe(const struct core *core, char *buf, size_t len);

/* Start what fits, in order; queues LAUNCH actions.  Returns jobs started. */
unsigned core_schedule(struct core *core, int64_t now);

/*
 * A node daemon registered.  Jobs the core ran there that the node no
 * longer has end as NODE_FAIL.  -ENOENT for a node rota.conf does not
 * declare.
 */
int core_node_register(struct core *core, int64_t now,
		       const struct rota_node_info *info,
		       struct rota_error *err);
/*
 * The node's daemon asks for its lease to be renewed (a heartbeat): true,
 * and it is heard from now; false if the core has declared it down since
 * (not by an operator): it must register again, so that its jobs are
 * reconciled, and its lease runs out meanwhile.
 */
bool core_node_seen(struct core *core, int64_t now, const char *name);
/*
 * A reconfigure: the lease another core granted node 'name' runs until
 * 'until' whatever this core's NodeLease (fence.c waits for it).
 */
void core_node_keep_lease(struct core *core, const char *name,
			  int64_t until);
/*
 * The node's daemon stopped answering (its link closed): no new jobs go
 * there, but its jobs run on under their supervisors; if it is not back
 * within NodeTimeout of its last word, core_tick() sets it down.
 */
void core_node_unreachable(struct core *core, int64_t now, const char *name,
			   const char *reason);
/*
 * The node is gone (missed heartbeats, or an operator's down): its jobs
 * wait in the queue again for their next run (a requeue), or end as
 * NODE_FAIL if they were submitted --no-requeue.
 */
void core_node_down(struct core *core, int64_t now, const char *name,
		    const char *reason);
/*
 * An operator's "drain" (no new jobs; running ones finish), "down" (as if
 * it failed: its jobs are requeued or end) or "resume" (undo both; the
 * node is up again once its daemon is heard).  -ENOENT unknown node,
 * -EINVAL unknown action.
 */
int core_node_admin(struct core *core, int64_t now, const char *name,
		    const char *action, const char *reason,
		    struct rota_error *err);
/* "UP", "DOWN", "UNKNOWN", "DRAINING" (jobs left) or "DRAINED"; static. */
const char *core_node_state_name(const struct core_node *n);

/*
 * Put a started job back in the queue: its cores are freed and it waits
 * again in submit order.  'may_live': the run may still be alive on its
 * node (it was launched and not seen to end), so the job is fenced until
 * it is known to be over (fence.c); false when it never started there or
 * has ended.  -ENOENT if it is not running.
 */
int core_requeue(struct core *core, int64_t now, uint32_t job_id,
		 const char *reason, bool may_live);

/*
 * A node reports a job's end.  -ENOENT if the job is unknown, its batch
 * script does not run on 'node', or the end is of an earlier run.  The script runs on the job's first node
 * (as in Slurm), so that node's report ends the job and frees all its nodes.
 */
int core_job_end(struct core *core, int64_t now, const char *node,
		 const struct rota_msg_job_end *end, struct rota_error *err);

/*
 * Time passes: nodes silent for 'node_timeout' go down, ended jobs older
 * than 'min_job_age' are forgotten.
 */
void core_tick(struct core *core, int64_t now);

/*
 * Usage and fairshare.  Running jobs are charged (cores x seconds, plus
 * UsageMemWeight per GB of memory, nothing in a Charge=no queue) every
 * PriorityCalcPeriod from core_tick() and when they end;
 * core_share_update() charges them up to 'now', decays every usage to
 * 'now' and runs the fairshare plugin: its view is then current.
 */
int core_share_update(struct core *core, int64_t now);
/* Borrowed until the next event. */
const struct rota_share_tree *core_share_tree(const struct core *core);
const char *core_share_plugin(const struct core *core);
/* Fairshare Convention=flux: factors read as 2^(-U/S). */
bool core_share_flux(const struct core *core);
/* Index of a job's association in core_share_tree(). */
uint32_t core_job_share_index(const struct core *core,
			      const struct core_job *job);
/*
 * A job's Grid Engine department (its user's DepartmentName=, else
 * "defaultdepartment"); borrowed until the core is destroyed.
 */
const char *core_job_department(const struct core *core,
				const struct core_job *job);

/*
 * UsageCharge=measured: a node's report of what the cgroup of a job whose
 * batch script runs there has used so far (JOB_USAGE).  The association
 * is charged the weighted increase over what was charged before
 * (UsageWeights, normalized to add up to 1): CPU seconds, the memory
 * integral (memory now x CPU seconds since the last report, in GB x s)
 * and GB read and written.  A report repeated, late, of an earlier run
 * or of an ended job charges nothing.  -ENOENT if the job is not running
 * on 'node' in run s->run; -EPERM if usage is not measured.
 */
int core_job_measured(struct core *core, int64_t now, const char *node,
		      const struct rota_job_sample *s, struct rota_error *err);
/*
 * The pure arithmetic of one report: the weighted usage of moving 'm' up
 * to the totals 'cpu_usec' and 'io_bytes' with 'mem_bytes' in use now
 * (0 if nothing grew), and 'm' moved there.  Exposed for tests.
 */
double core_meter_advance(struct core_meter *m,
			  const struct rota_usage_weights *w,
			  uint64_t cpu_usec, uint64_t mem_bytes,
			  uint64_t io_bytes);

/* What a running job's meter has charged, as the journal keeps it. */
struct core_usage_mark {
	uint32_t job_id;
	uint32_t run;
	uint64_t cpu_usec;
	uint64_t io_bytes;
	double charged;
	bool baseline;		/* its next report sets it, charging nothing */
};
/*
 * The meters of the running jobs that have charged something (or wait
 * for a first report to set them) (caller
 * frees '*out' with free()); a usage record keeps them with the usage
 * they are in, so that after a restart the next report charges only what
 * is new.  0 and NULL when there are none.
 */
size_t core_usage_marks(const struct core *core,
			struct core_usage_mark **out);
/*
 * Put back the meters of a usage record (replacing any an earlier record
 * gave); core_restore_finish() gives them to the running jobs of the
 * same id and run.  'm' is copied.  'measured': the record's usage was
 * measured; if not, and usage is measured now, a job running before the
 * record was charged cores x wall time up to it, and its first report
 * sets its meter without charging.
 */
void core_usage_restore_marks(struct core *core,
			      const struct core_usage_mark *m, size_t n,
			      bool measured);
/* Is usage measured (UsageCharge=measured)? */
bool core_usage_is_measured(const struct core *core);

/* One user's usage in one account, as the journal keeps it. */
struct core_usage {
	const char *account;	/* borrowed from the core */
	const char *user;
	double usage;		/* decayed core-seconds at the export time */
};
/*
 * If usage changed since the last call, or 'all' (a snapshot): charge
 * running jobs up to 'now' and give every non-zero usage as of 'now'
 * (caller frees the array with free(); its strings are the core's,
 * valid until the next event).  Otherwise 0 and NULL.
 */
size_t core_usage_take(struct core *core, int64_t now, bool all,
		       struct core_usage **out);
/*
 * Put back the usage of a journal record taken at time 'at', replacing
 * all there was (the last record wins); core_restore_finish() then charges
 * running jobs only from 'at' on.
 */
void core_usage_restore(struct core *core, const struct core_usage *u,
			size_t n, int64_t at);

/*
 * Priorities.  The priority plugin rates every pending job every
 * PriorityCalcPeriod (from core_tick) and at once on core_prio_update();
 * a new job is rated alone at submit.  Pending jobs are kept in
 * scheduling order: jobs of a reservation, then queue tier, then
 * priority, then submit time, then id.
 */
int core_prio_update(struct core *core, int64_t now);
/* <0 when pending job 'a' comes before 'b' in the scheduling order. */
int core_prio_order(const struct core *core, const struct core_job *a,
		    const struct core_job *b);
/*
 * Rate every job if a plugin that rates all (Grid Engine's) rated one
 * alone since its last rating of all: such a lone rating only places the
 * job, and leaves the plugin's ranges (nurg's, ntckts') as that one job's
 * until the next rating of all, which comes before the next pass anyway.
 */
int core_prio_refresh(struct core *core, int64_t now);
/* Does the priority plugin's rating never change after submit (fifo)? */
bool core_prio_static(const struct core *core);
/* When every job was last rated (core_prio_update); 0: never. */
int64_t core_prio_rated_at(const struct core *core);
const char *core_prio_plugin(const struct core *core);
/*
 * True when the priority plugin rates all (plugin ABI 1.8, Grid Engine's
 * way): running jobs have a priority and terms too, held ones 0 and none.
 */
bool core_prio_rates_all(const struct core *core);
/* The plugin's one-line description of its weights or formula. */
void core_prio_describe(const struct core *core, char *buf, size_t len);
/*
 * The terms of a pending job's priority as of its last rating (at
 * job->rated_at, so that they add up to the priority it was given), at
 * most 'max'; 0 when the plugin gives none.
 */
size_t core_prio_explain(struct core *core,
			 const struct core_job *job,
			 struct rota_prio_factor *factors, size_t max);
/* Seconds the job has been eligible to run, up to 'now'. */
int64_t core_job_eligible_time(const struct core_job *job, int64_t now);
const struct core_qos *core_qos_get(const struct core *core, uint32_t i);

/* Take the queued actions (caller frees the array with free()). */
size_t core_take_actions(struct core *core, struct core_action **out);

/*
 * Durability.  Every job whose state changed since the last call, by id:
 * the host writes each one's state to its journal before it answers or
 * acts (caller frees the array with free()).  A changed job is not
 * forgotten (MinJobAge) before it has been taken.
 */
size_t core_take_dirty(struct core *core, uint32_t **ids);

/* A job as a journal keeps it: enough to rebuild it exactly. */
struct core_alloc_state {
	const char *node;
	uint32_t ncores;
	const uint32_t *cores;
	uint32_t ngpus;
	const uint32_t *gpus;
};

struct core_job_state {
	uint32_t id;
	enum rota_job_state state;
	uid_t uid;
	gid_t gid;
	const char *user;	  /* NULL: unknown, the uid as text */
	const char *queue;	  /* by name: rota.conf may reorder queues */
	struct rota_job_desc desc; /* taken over by core_restore_job */
	uint32_t ntasks_min;	  /* a range's minimum; 0: desc.ntasks */
	int64_t time_limit;
	int64_t submit_time;
	int64_t start_time;
	int64_t end_time;
	int exit_code;
	int term_signal;
	uint64_t cpu_usec;
	uint64_t mem_peak;
	uint32_t run;
	const char *end_text;	  /* NULL: none */
	int64_t eligible_accum;
	int64_t eligible_since;
	enum core_hold hold;
	const char *fence;	  /* pending: node its last run may live on */
	const struct core_alloc_state *alloc; /* running jobs */
	uint32_t nalloc;
	bool recorded;		  /* its jobcomp record was handed over */
	uint32_t array_id;	  /* as in struct core_job */
	uint32_t array_task;
	const char *array_rest;	  /* a pending rest's ids; NULL: none */
	struct core_array_shape array_shape;
};

/*
 * Put a job back as a journal recorded it, replacing any job of that id
 * (records are whole states: the last one wins).  A running job takes its
 * recorded cores again; its nodes must register within NodeTimeout of
 * 'now' or it ends as NODE_FAIL.  -ENOENT (with the line to show) when its
 * queue or a node is no longer in rota.conf; -EINVAL for a bad record.
 * 'st->desc' is taken over on success and left to the caller on failure.
 * Call core_restore_finish() once all are back.
 */
int core_restore_job(struct core *core, int64_t now,
		     struct core_job_state *st, struct rota_error *err);
void core_restore_finish(struct core *core);
/* The id the next submitted job will get; never below 'next'. */
uint32_t core_next_id(const struct core *core);
void core_raise_next_id(struct core *core, uint32_t next);

/*
 * A job's GPU request as Slurm's TRES ("gres/gpu:v100:2", per node or
 * per task as it asked; NULL: none), and its GPUs while it runs ("n01:0,1
 * n02:3", the nodes' indexes; NULL: none).  Caller frees.
 */
char *core_job_tres(const struct core_job *job);
/*
 * Its other generic resources per node, "nvme:1,fpga:x:2" after each
 * 'prefix' ("gres/" for Slurm's TRES); NULL when none; caller frees.
 */
char *core_job_gres_text(const struct core *core, const struct core_job *job,
			 const char *prefix);
/* What jobs hold of a node's other generic resources, "nvme:1"; NULL:
   none.  Caller frees. */
char *core_node_gres_used(const struct core_node *n);
/* Of its queue's usable nodes, its 'i'th generic resource: free, in all. */
void core_queue_gres(const struct core *core, const struct core_job *job,
		     uint32_t i, uint32_t *free_now, uint32_t *total);
char *core_job_gpu_idx(const struct core *core, const struct core_job *job);
/* The GPUs of the job's type on its queue's usable nodes: free, all. */
void core_queue_gpus(const struct core *core, const struct core_job *job,
		     uint32_t *free_now, uint32_t *total);

/* Lookups and iteration; borrowed pointers valid until the next event. */
const struct core_job *core_job_find(const struct core *core, uint32_t id);
/* Every known job in id order; 'fn' must not call back into the core. */
void core_job_foreach(const struct core *core,
		      void (*fn)(const struct core_job *job, void *arg),
		      void *arg);
size_t core_job_count(const struct core *core);
/* One user's jobs in id order, and their count (an index: no walk). */
void core_user_jobs_foreach(const struct core *core, uid_t uid,
			    void (*fn)(const struct core_job *job, void *arg),
			    void *arg);
size_t core_user_job_count(const struct core *core, uid_t uid);
/* Pending jobs in scheduling order; 'fn' must not call back into the core. */
void core_pending_foreach(const struct core *core,
			  void (*fn)(const struct core_job *job, void *arg),
			  void *arg);
size_t core_pending_count(const struct core *core);
/*
 * Running jobs, in the order they started (after a restart, the order
 * they were restored in; core_pending_foreach's rules), and their number.
 */
void core_running_foreach(const struct core *core,
			  void (*fn)(const struct core_job *job, void *arg),
			  void *arg);
size_t core_running_count(const struct core *core);

/*
 * A cursor: a place in a listing that a long reply walks a slice at a
 * time, over many events, without copying the listing first (issue 23).
 * The core keeps it valid: a job leaving the list it points at moves it
 * on to the next one.  Kinds:
 *  CORE_CURSOR_BY_ID    every job in id order (the id index), up to the
 *                       last id given when the cursor was made;
 *  CORE_CURSOR_PENDING  the pending list in scheduling order;
 *  CORE_CURSOR_RUNNING  the running list in start order.
 * The rules a listing gets (ctld/stream.h says them to its readers):
 *  - a job in its list from the cursor's creation to the end of the
 *    walk is returned exactly once, and in the list's order;
 *  - a job that joins or leaves meanwhile may be returned or not (a job
 *    that left and came back, a requeue, may be returned twice);
 *  - when the pending order is rebuilt under a cursor (a rating moved
 *    jobs: prio_sort), the cursor takes, then and only then, a copy of
 *    the ids still ahead of it in the old order and finishes in that
 *    order, skipping those that have left the list by their turn: the
 *    listing stays one consistent order, never half of two;
 *  - when the core is destroyed under it (a reconfiguration builds a new
 *    one), the cursor keeps the ids ahead of it likewise and goes on in
 *    whatever core core_cursor_next is given, looking them up by id.
 * _create: the caller owns it, and frees it with _destroy (NULL is
 * fine), before or after the core's end.  _next: the next job, borrowed
 * until the next event, or NULL at the end (and ever after).  'core' is
 * the current core: the one the cursor was made in, or its successor.
 */
enum core_cursor_kind {
	CORE_CURSOR_BY_ID = 1,
	CORE_CURSOR_PENDING,
	CORE_CURSOR_RUNNING,
};
struct core_cursor;
struct core_cursor *core_cursor_create(struct core *core,
				       enum core_cursor_kind kind);
const struct core_job *core_cursor_next(struct core *core,
					struct core_cursor *c);
void core_cursor_destroy(struct core_cursor *c);
struct core_counts {
	size_t pending;
	size_t running;
	size_t ended;	/* kept for MinJobAge */
	size_t nodes_up;
};
void core_counts(const struct core *core, struct core_counts *out);
size_t core_node_count(const struct core *core);
const struct core_node *core_node_get(const struct core *core, uint32_t i);
/* NULL, and *index UINT32_MAX, when there is no such node. */
const struct core_node *core_node_find(const struct core *core,
				       const char *name, uint32_t *index);
const struct core_queue *core_queue_get(const struct core *core, uint32_t i);
/*
 * Why a pending job waits (Slurm's words: "Resources", "Priority", "None"),
 * or how an ended one ended (NULL if plainly); static or borrowed.
 */
const char *core_job_reason(const struct core *core,
			    const struct core_job *job);
/*
 * What a job still waits for, Slurm's way: "afterok:12(unfulfilled),
 * afterany:14(failed)"; "" when nothing.  Caller frees.
 */
char *core_job_dependency(const struct core_job *job);
/* The first part of a job's dependency not met. */
struct core_dep_wait {
	enum rota_depend_type type; /* ROTA_DEPEND_NONE: it waits for none */
	uint32_t job_id;	    /* 0: singleton */
	const struct core_job *target; /* NULL: singleton, or forgotten */
};
/* Fill 'out'; false (and 'out' zeroed) if it waits for nothing. */
bool core_job_dep_waits_for(const struct core *core,
			    const struct core_job *job,
			    struct core_dep_wait *out);
/* Hostlist text of a job's nodes; caller frees. */
char *core_job_nodelist(const struct core *core, const struct core_job *job);
/*
 * A job of an array as users name it: "12_7" (a task), "12_[3-999%16]"
 * (the pending rest, its throttle); NULL for a job of no array.  Freed by
 * the caller.
 */
char *core_job_array_name(const struct core_job *job);
/*
 * The jobs an action on "ID" or "ID_TASKS" means ('tasks' NULL or "":
 * the job, or all of an array that is pending (and with 'running', that
 * runs), its record first; else those tasks of array ID, as "7",
 * "1-5,9"): their ids in '*out' (freed
 * by the caller), their count returned.  Pending tasks named alone split
 * off the rest into jobs of their own, as Slurm's do.  Tasks neither
 * pending nor running, and ids that are no array, are named in
 * err->text ("" when all were found).
 */
size_t core_array_select(struct core *core, int64_t now, uint32_t id,
			 const char *tasks, bool running, uint32_t **out,
			 struct rota_error *err);
/*
 * Hostlist text of the nodes a pending job's backfill reservation is on
 * (estimate.c); NULL when it has none.  Caller frees.
 */
char *core_job_est_nodelist(const struct core *core,
			    const struct core_job *job);

/*
 * rota why (why.c): why a job waits and what would start it sooner, read
 * from the last passes' results without changing anything.  The job
 * pointers are borrowed, valid until the next call that changes the core.
 */
#define CORE_WHY_AHEAD_MAX 8
struct core_why {
	const struct core_job *job;
	const char *reason;	/* core_job_reason's */
	const char *sched;	/* the sched plugin: "builtin" reserves none */
	/* eligible jobs of its queue ahead of it, and the first that waits */
	size_t nahead;
	const struct core_job *first;
	/* jobs ahead of it holding a backfill reservation, in order */
	const struct core_job *resv[CORE_WHY_AHEAD_MAX];
	size_t nresv;		/* all of them: may exceed the array */
	/*
	 * The what-if, against the running jobs, the advance reservations
	 * and the reservations of the jobs ahead: would it start now as it
	 * is; else the longest time limit (60 s or more, below its own) and
	 * the most tasks with which it would, without delaying any of them.
	 */
	bool fits_now;
	int64_t fit_limit;	/* 0: none */
	uint32_t fit_tasks;	/* 0: none */
	struct core_dep_wait dep; /* what its dependency waits for */
	/*
	 * An ordinary job waiting for Resources that would fit now with
	 * the cores kept for test queues (ReservedCores): so many of them,
	 * free, on this node (the first of its placement with some), kept
	 * for these queues ("t,u"); 0 and NULL otherwise.  Any sched
	 * plugin.
	 */
	uint32_t kept;
	const char *kept_node;	/* borrowed from the node table */
	char kept_queues[64];
	/* a limited job's reason and its limit's sentence ('reason' then
	   points here) */
	char limit_text[CORE_LIMIT_REASON_MAX + CORE_LIMIT_DETAIL_MAX];
};
/*
 * Fill 'out' for job 'job_id' as 'uid' sees it (its owner, or an
 * operator: core_job_access's errors).  The what-if is computed for a
 * pending job that is neither held, nor blocked by a limit, nor of an
 * advance reservation, and only under a backfill sched plugin.
 */
int core_why(struct core *core, int64_t now, uint32_t job_id, uid_t uid,
	     bool is_operator, struct core_why *out, struct rota_error *err);

/*
 * Advance reservations (resv.c, resv_admin.c), as Slurm's scontrol create
 * reservation: cores and GPUs of some nodes, and licenses, set aside over
 * [start, end) for the jobs that name the reservation (--reservation)
 * and whose user and account it allows.
 * While it is active no other job is placed on those cores, and no other
 * job starts that would still hold them when it begins.  Its jobs wait
 * (reason Reservation) until it starts, run only on its cores, go before
 * every other job, and run on to their own limits once it ends; it is
 * forgotten when it ends.  Cores are counted per node, not named: a
 * reservation holds so many cores of a node, whichever they are.
 */
struct core_resv_part {
	uint32_t node;		/* index into the node table */
	uint32_t cores;		/* reserved there; 0 with 'whole' */
	bool whole;		/* all of the node, whatever size it registers,
				   its GPUs too */
	uint32_t used;		/* of those, held by the reservation's jobs */
	uint32_t gpus;		/* GPUs reserved there; 0 with 'whole' */
	uint32_t gpus_used;	/* of the GPUs, held by its jobs */
};

struct core_resv {
	uint32_t id;		/* never reused while the controller runs */
	char *name;
	int64_t start;
	int64_t end;
	uint32_t core_count;	/* CoreCount= asked; 0: whole nodes */
	uint32_t gpu_count;	/* GpuCount= (TRES=gres/gpu=N) asked */
	struct core_lic *lics;	/* Licenses=matlab:2 it holds; NULL: none */
	uint32_t *lics_used;	/* per entry, held by its running jobs */
	uint32_t nlics;
	char **users;		/* NULL-terminated; NULL: any user */
	char **accounts;	/* NULL-terminated; NULL: any account */
	struct core_resv_part *parts;
	uint32_t nparts;
	bool active;		/* start crossed, end not yet */
};

/* What an operator asks (rota resv create); the daemon parsed the text. */
struct core_resv_req {
	const char *name;	/* NULL: "resvN", the next free N */
	int64_t start;
	int64_t end;
	const char *nodes;	/* hostlist; NULL: any nodes (CoreCount) */
	uint32_t core_count;	/* 0: all the cores of 'nodes' */
	uint32_t gpu_count;	/* GPUs among the cores (CoreCount only) */
	const char *licenses;	/* "matlab:2" held over its span; NULL */
	char *const *users;	/* NULL-terminated or NULL, as core_resv */
	char *const *accounts;
};

/*
 * Create a reservation.  -EINVAL (bad name, times, node list, nothing
 * asked, no user or account named), -ENOENT (unknown node or account),
 * -EEXIST (the name is taken) or -EBUSY (its cores are reserved already
 * over that time, or not enough are left), with the operator's line in
 * 'err'.  '*out' (may be NULL) is the new one, borrowed until the next
 * event.  Users are names; the daemon checks that they exist.
 */
int core_resv_create(struct core *core, int64_t now,
		     const struct core_resv_req *req,
		     const struct core_resv **out, struct rota_error *err);
/* Forget one; its running jobs run on.  -ENOENT with the line. */
int core_resv_delete(struct core *core, int64_t now, const char *name,
		     struct rota_error *err);
/*
 * Put back a journaled reservation as it was (parts by node name, no
 * overlap check; one already ended is dropped at the next event),
 * replacing one of the same name (the last record wins).
 * -ENOENT when a node left rota.conf, -EINVAL for a bad record.
 */
struct core_resv_state {
	uint32_t id;
	const char *name;
	int64_t start;
	int64_t end;
	uint32_t core_count;
	uint32_t gpu_count;
	const char *licenses;	  /* NULL: none */
	char *const *users;
	char *const *accounts;
	const char *const *nodes; /* per part */
	const uint32_t *cores;	  /* per part; 0: the whole node */
	const uint32_t *gpus;	  /* per part; NULL: none (old records) */
	uint32_t nparts;
};
int core_resv_restore(struct core *core, const struct core_resv_state *st,
		      struct rota_error *err);
/* Lookups and iteration, in creation order; borrowed until the next event. */
size_t core_resv_count(const struct core *core);
const struct core_resv *core_resv_get(const struct core *core, size_t i);
const struct core_resv *core_resv_find(const struct core *core,
				       const char *name);
/* Cores it holds on part 'i''s node. */
uint32_t core_resv_part_cores(const struct core *core,
			      const struct core_resv *r, uint32_t i);
/* Its Licenses= as text ("matlab:2"), NULL when none; caller frees. */
char *core_resv_licenses_text(const struct core *core,
			      const struct core_resv *r);
/* GPUs it holds on part 'i''s node (a whole node: all of them). */
uint32_t core_resv_part_gpus(const struct core *core,
			     const struct core_resv *r, uint32_t i);
/*
 * The next start or end of any reservation after 'now', INT64_MAX if
 * none: a pass must run then even when nothing else changed.
 */
int64_t core_resv_next_boundary(const struct core *core, int64_t now);
/*
 * Bumped by every change of the reservations (resv_changed() in resv.c:
 * create, delete, a start or an end crossed), for the skip logic.
 */
uint64_t core_resv_stamp(const struct core *core);

/*
 * Job completion records (jobcomp).  The ids of jobs that reached a final
 * state and whose record was not handed over yet, in end order: the host
 * takes them once its journal holds their ends (after state_commit's
 * fsync), hands their records to its jobcomp plugins and then calls
 * core_job_recorded(), which the journal keeps with the job's next write.
 * core_restore_finish() lists again every final job not marked recorded:
 * a crash between the fsync and the hand-over gives the record twice at
 * worst, never zero times.  Caller frees the array with free(); ids of
 * jobs since forgotten or already recorded may be in it (skip them).
 */
size_t core_take_ended(struct core *core, uint32_t **ids);
void core_job_recorded(struct core *core, uint32_t id);
/* Core-seconds its last run was charged (undecayed); 0 if it never ran. */
double core_job_usage(const struct core *core, const struct core_job *job);
/*
 * Memory a job holds on a node where it has 'ncores' cores: its --mem,
 * or --mem-per-cpu times those cores (node.c).
 */
uint64_t core_job_node_mem(const struct core_job *job, uint32_t ncores);

/*
 * Job control (control.c), on behalf of 'uid' ('is_operator': may act on
 * any job; users act on their own).  A refusal is -EPERM with "job N:
 * permission denied: ..." in 'err'; -ENOENT unknown job; -EINVAL a value
 * out of range or a job in the wrong state.  Nothing changes on failure.
 *
 * core_nice: set a pending job's nice ('relative': add 'nice' to it),
 * -10000..10000; a negative result only for operators.  The job is
 * re-rated at once.
 */
int core_nice(struct core *core, int64_t now, uint32_t job_id, uid_t uid,
	      bool is_operator, int32_t nice, bool relative,
	      struct rota_error *err);

/* What core_update changes; unset fields stay as they are. */
struct core_update {
	const char *name;	/* NULL: unchanged */
	const char *queue;	/* NULL: unchanged */
	int64_t time_limit;	/* seconds or ROTA_DURATION_UNLIMITED; 0: unchanged */
	uint32_t urgency;	/* Flux's 1..31; 0: unchanged */
	const char *dependency;	/* NULL: unchanged; "": none */
	bool set_jobshare;	/* false: jobshare unchanged */
	uint32_t jobshare;	/* Grid Engine's -js (qalter -js) */
	bool set_oticket;	/* false: oticket unchanged */
	uint32_t oticket;	/* Grid Engine's -ot (qalter -ot) */
};
/*
 * Change a job: its name at any time before it ends; its queue, time
 * limit and urgency while it is pending.  Users may only lower the time
 * limit and the urgency, and not raise urgency above 16; operators may do
 * anything.  The time limit (or the new queue's default) must be within
 * the queue's MaxTime and the job must fit the queue's nodes.  Its
 * dependency (while pending) is checked as at submit, and for a cycle.
 * Its job share and override tickets (only operators set these) change
 * while it is pending or running, as with Grid Engine's qalter.
 * All or nothing; the job is re-rated at once.
 */
int core_update(struct core *core, int64_t now, uint32_t job_id, uid_t uid,
		bool is_operator, const struct core_update *u,
		struct rota_error *err);

/*
 * Send a running job back to the queue: its run is signalled (SIGTERM,
 * then SIGKILL after KillWait, as a cancel) with SIGNAL actions, its cores
 * are freed now and it waits again for its next run, its age kept.
 * -EINVAL if it is not running or was submitted --no-requeue, -EALREADY
 * if it is being cancelled.
 */
int core_requeue_job(struct core *core, int64_t now, uint32_t job_id,
		     uid_t uid, bool is_operator, struct rota_error *err);

/*
 * ---- rota top's deltas (changes.c, shown.c; issue 23) ----
 * Each job's top row (state, times, priority in thousandths, nice, hold,
 * reason or nodes, expected start, ...) carries the change number at
 * which it last changed.  Events only mark the jobs they may have
 * changed; core_changes_settle() compares those rows' digests with
 * what they were and numbers the ones that differ.  The host settles
 * after every scheduling pass and tick, and before it asks what changed.
 */
/* A priority as a top row shows it: x 1000, rounded; 0 if not finite. */
int64_t core_priority_milli(double v);
/* Number the marked jobs whose row differs; O(marked jobs). */
void core_changes_settle(struct core *core);
/*
 * Once, after the journal's replay: every job's row as it is now counts
 * as seen, and numbers go on from at least 'base' (the host's start in
 * microseconds, above any number a previous controller gave), so that
 * no delta from a previous run is ever answered.  Until then nothing is
 * marked or numbered (rota sim, most tests: no cost).
 */
void core_changes_start(struct core *core, int64_t base);
/*
 * Mark the next 'n' jobs of the table, round and round, and settle: the
 * host's tick sweeps, so that a row no event marked (a limit's reason
 * whose text changed) is found within jobs / n ticks.
 */
void core_changes_sweep(struct core *core, size_t n);
/* The latest change number (0: none yet). */
int64_t core_change_number(const struct core *core);
/* Gone jobs the index remembers (tests: a small log overflows soon). */
void core_changes_set_log(struct core *core, size_t max);

/* What changed after a change number; core_delta_clear frees it. */
struct core_delta {
	uint32_t *ids;		/* jobs whose row changed, in id order */
	size_t n;
	uint32_t *gone;		/* jobs that left the table, in id order */
	size_t ngone;
};
/*
 * The jobs changed and gone after change 'since', in O(changes): call
 * core_changes_settle() first.  -ESTALE ('*out' empty) when that cannot
 * be told: 'since' is 0, from before the start or the oldest gone job
 * remembered, or beyond the latest number; the host then sends all.
 */
int core_changes_since(const struct core *core, int64_t since,
		       struct core_delta *out);
void core_delta_clear(struct core_delta *d);

#endif
