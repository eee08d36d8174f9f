/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_CORE_CORE_INTERNAL_H
#define ROTA_CTLD_CORE_CORE_INTERNAL_H

/*
 * Shared by the files of ctld/core only, grouped by layer (core.h,
 * "Layers"), bottom first, each function under the file that defines it.
 */

#include "common/conf.h"
#include "ctld/core/core.h"
#include "plugins/rota_plugin.h"

struct core_cursor;

struct job_list {
	struct core_job *head;
	struct core_job *tail;
	size_t n;
	struct core_cursor *cursors; /* listings walking it (cursor.c) */
};

/* What the running limits count a running job for (limit_tally.c). */
enum { TALLY_CPU, TALLY_MEM, TALLY_NODE, TALLY_GPU, TALLY_RES };

/*
 * What limit_tally.c keeps per holder, and its table by the set's address
 * and 'sub': 0 for the holder itself; for a QOS, its share of one user
 * (limit_tally_user_key) or of one account (that account's set).
 */
struct limit_tally {
	const struct rota_limit_set *set; /* NULL: a free slot */
	uintptr_t sub;
	int64_t queued;		/* its jobs pending or running, an array's
				   rest counting its tasks (sub 0 only) */
	int64_t held[TALLY_RES]; /* what its running jobs hold: cores, MB,
				   nodes, GPUs */
};
struct tally_table {
	struct limit_tally *v;
	size_t slots;		/* a power of two, or 0 */
	size_t n;
};

/*
 * The pending jobs of one association and QOS that the limits judge (not
 * held nor waiting on a dependency, or marked limited), through core_job
 * bprev/bnext, and the table of them (limit_tally.c).
 */
struct tally_bucket {
	uint32_t assoc;
	uint32_t qos;
	struct core_job *head;
};
struct bucket_table {
	struct tally_bucket *v;	/* by index, which never changes */
	size_t n;
	size_t cap;
	uint32_t *slots;	/* index + 1 by (assoc, qos); 0: empty */
	size_t nslots;		/* a power of two, or 0 */
};

/* The main pass's walk list, threaded through core_job wprev/wnext. */
struct walk_list {
	struct core_job *head;
	struct core_job *tail;
	size_t n;
};

/* An association's running jobs, charged together (usage.c). */
struct usage_run {
	double rate;	/* core-seconds per second, summed */
	double owed;	/* rate x (own mark - charged_all), summed */
	uint32_t jobs;
	uint32_t pos;	/* in run_ids */
};

/* A job that left the table, and the change number it left at. */
struct change_gone {
	uint32_t id;
	int64_t change;
};

/* Gone jobs remembered for deltas: ~1 MB once the first one leaves. */
#define CHANGES_GONE_MAX 65536

/* The change index (changes.c). */
struct core_changes {
	bool on;		 /* core_changes_start() was called */
	int64_t last;		 /* the latest change number given */
	int64_t horizon;	 /* no delta from before this one */
	struct core_job *head;	 /* jobs by change number, oldest first */
	struct core_job *tail;
	struct change_gone *gone; /* a ring of gone_max entries */
	size_t gone_max;	 /* 0: CHANGES_GONE_MAX */
	size_t gone_first;
	size_t ngone;
	size_t sweep;		 /* the next job of 'order' a sweep marks */
	uint32_t *cand;		 /* ids of jobs whose row may have changed */
	size_t ncand;
	size_t cand_cap;
};

struct core {
	struct core_node *nodes;
	size_t nnodes;
	uint32_t *node_slots;	 /* name -> index + 1 (0: empty), open
				    addressing: node_index_build() */
	size_t node_nslots;	 /* a power of two, over twice nnodes */
	struct core_queue *queues;
	size_t nqueues;
	uint32_t default_queue;
	bool *queue_blocked;	 /* per queue: the last pass stopped there */
	bool *blocked_before;	 /* the same, of the pass before (sched.c) */
	bool hold_nodes;	 /* SchedulerHoldNodes */
	bool *node_held;	 /* per node: kept by a refused job's queue for
				    the rest of the main pass */
	uint32_t *queue_pending; /* per queue: jobs in the pending list */
	uint32_t *queue_tried;	 /* per queue: jobs the main pass tried */

	struct core_user_jobs *users; /* each user's jobs (userjobs.c) */
	size_t nusers;
	size_t nusers_cap;
	struct core_job **slots; /* open-addressing table by id */
	size_t nslots;
	size_t njobs;
	struct core_job **order; /* every job by id; NULL where one left */
	size_t norder;
	size_t order_cap;
	uint64_t order_epoch;	 /* bumped when 'order' is compacted or
				    sorted: slots kept by cursors expire */
	struct core_cursor *id_cursors; /* listings walking 'order' */
	uint32_t next_id;

	struct job_list pending; /* in scheduling order */
	struct walk_list walk;	 /* of those, the ones a pass may start */
	bool walk_stale;	 /* the walk list is rebuilt before it is read */
	struct job_list running;
	struct job_list done;	 /* in end order, for MinJobAge */

	struct core_action *actions;
	size_t nactions;
	size_t actions_cap;

	uint32_t *dirty;	 /* ids of changed jobs, for the journal */
	size_t ndirty;
	size_t dirty_cap;

	uint32_t *ended;	 /* ids of ended jobs, for jobcomp */
	size_t nended;
	size_t ended_cap;

	int64_t node_timeout;
	int64_t node_lease;	 /* NodeLease, seconds; 0: off */
	int64_t min_job_age;

	struct plugin *fairshare;
	struct share *share;
	struct plugin *priority;
	const struct rota_priority_ops *prio_ops;
	bool prio_factor_only;	 /* the plugin reads fs_factor alone */
	bool prio_rates_all;	 /* it rates held and running jobs too */
	bool prio_static;	 /* its ratings never change (time_invariant) */
	bool prio_hold_restarts; /* a hold restarts a job's eligible time */
	char **deadline_users;	 /* DeadlineUsers, NULL-terminated */
	struct core_qos *qos;	 /* [0] is "normal" */
	size_t nqos;
	bool prio_stale;	 /* rate every job before the next pass */
	int64_t prio_rated_at;	 /* the last rating of every job; 0: none */
	struct rota_prio_context prio_ctx; /* totals of the last rating */
	uint64_t prio_sizes;	/* the sizes_stamp they were taken at */
	uint32_t *pl_node;	 /* a placement's arrays, kept (place.c) */
	uint32_t *pl_tasks;
	size_t pl_cap;
	bool pl_busy;
	uint64_t sizes_stamp;	 /* bumped when a node's size changes */
	struct plugin **limits;	 /* the limits plugins, slurm's first */
	size_t nlimits;
	struct core_license *licenses; /* Licenses=: cluster-wide counts */
	size_t nlicenses;
	char **gres_types;	 /* GresTypes=, NULL-terminated (gres.c) */
	size_t ngres_types;
	bool *lic_waited;	 /* per license: a job of the main pass
				    waits for it (licenses_pass_begin) */
	bool limits_set;	 /* rota.conf sets a limit or loads maui */
	size_t sched_depth;	 /* SchedulerDepth: jobs a main pass sees */
	uint32_t queue_depth;	 /* SchedulerQueueDepth: of one queue; 0 */
	uint32_t max_array_size; /* MaxArraySize */
	int64_t sched_max_us;	 /* SchedulerMaxTime, microseconds */
	int64_t (*work_clock)(void); /* the host's, for time budgets */
	struct plugin *sched;	 /* backfill policy; builtin: none */
	int64_t last_backfill;
	/*
	 * Set by a pass that started nothing and that nothing but a change
	 * could alter; the next pass of its kind is skipped until
	 * core_mark_changed() clears it (Slurm's backfill waits the same way
	 * for a job, node, partition or reservation update: _more_work()).
	 */
	bool main_settled;
	bool bf_settled;
	bool every_pass;	/* never skip (core_set_every_pass) */
	/* kept from pass to pass, so that a pass allocates nothing */
	struct profile *bf_prof;
	struct profile_base *pbase; /* running jobs' ends (profile.c) */
	struct core_job **bf_jobs;
	struct rota_sched_job *bf_view;
	size_t bf_cap;
	struct core_sched_stats sched_stats;
	struct rota_limit_set *qos_limits; /* per QOS, as core->qos */
	double mem_weight;	 /* UsageMemWeight: core-s per GB-s */
	struct rota_billing billing; /* TRESBillingWeights */
	bool measured;		 /* UsageCharge=measured */
	struct rota_usage_weights weights; /* UsageWeights */
	struct core_usage_mark *marks; /* restored, for core_restore_finish */
	size_t nmarks;
	bool marks_measured;	 /* the restored record's usage was measured */
	int64_t calc_period;	 /* PriorityCalcPeriod */
	int64_t last_calc;
	int64_t usage_restored_at; /* the journal's last usage record */
	int64_t charged_all;	 /* every running job charged up to here */
	int64_t latest_mark;	 /* no running job is charged beyond it */
	struct usage_run *run;	 /* per association (usage.c) */
	size_t run_cap;
	uint32_t *run_ids;	 /* associations with running jobs */
	size_t nrun_ids;
	struct core_resv *resv;	 /* reservations, in creation order */
	size_t nresv;
	uint32_t resv_last_id;
	uint64_t resv_stamp;	 /* see resv_changed() */
	size_t nfenced;		 /* pending jobs with a fence_node */
	struct array_tallies *tallies; /* per job array (array_tally.c) */
	struct depend *depend;	 /* dependencies' tables (depend.c); NULL
				    until the first */
	bool dep_reaping;	 /* core_job_reap_deps is at work */
	size_t ndep_wait;	 /* pending jobs with dep_wait */
	struct core_changes changes; /* for rota top's deltas (changes.c) */
	struct tally_table tally; /* per limit holder (limit_tally.c) */
	struct bucket_table buckets; /* their pending jobs, by assoc and QOS */
	uint32_t *look;		 /* ids the limits judge again */
	size_t nlook;
	size_t look_cap;
};

/* A time that never comes: the end of a job with no time limit. */
#define NEVER INT64_MAX

/* When a running job reaches its time limit; NEVER without one. */
static inline int64_t job_limit_end(const struct core_job *j)
{
	return j->time_limit ? j->start_time + j->time_limit : NEVER;
}

/* ==== tables ============================================================= */

/*
 * changes.c: the change index.  changes_mark: the job's row may have
 * changed (O(1); shown.c settles it).  changes_touch: it did, give it
 * the next number.  changes_gone: it leaves the table (before it is
 * freed).  changes_restart: numbers go on from at least 'base', no
 * delta from before.
 */
void changes_mark(struct core *core, struct core_job *job);
size_t changes_take_candidates(struct core *core, uint32_t **ids);
void changes_touch(struct core *core, struct core_job *job);
void changes_gone(struct core *core, struct core_job *job);
void changes_restart(struct core *core, int64_t base);
void changes_fini(struct core *core);

/* tables.c: the lists */
void job_list_append(struct job_list *l, struct core_job *job);
void job_list_remove(struct job_list *l, struct core_job *job);
void core_pending_add(struct core *core, struct core_job *job);
/* Into the pending list right after 'after' (NULL: at the head). */
void core_pending_insert_after(struct core *core, struct core_job *after,
			       struct core_job *job);
void core_pending_remove(struct core *core, struct core_job *job);
/*
 * Hold or release a job in the pending list: a held job is not counted
 * among its association's pending jobs (Grid Engine's share tree leaves
 * held jobs out).
 */
void core_pending_set_hold(struct core *core, struct core_job *job,
			   enum core_hold hold);
/*
 * The walk list (tables.c): the main pass walks only the pending jobs
 * that could start, so that held, dependency-waiting, limit-blocked and
 * fenced jobs cost a pass nothing.  Call core_walk_update after changing
 * any of those marks of a job (a no-op when nothing moves);
 * core_walk_stale when the pending list's order changed wholesale (a
 * re-sort); core_walk_refresh before reading the list (rebuilds it if
 * stale, O(pending jobs) then, O(1) otherwise).
 */
/* How far the walk list's neighbours are looked for before a rebuild. */
#define WALK_REACH 64
void core_walk_update(struct core *core, struct core_job *job);
void core_walk_stale(struct core *core);
/* 'job' moved in the pending list: it moves in the walk list too. */
void core_walk_moved(struct core *core, struct core_job *job);
void core_walk_refresh(struct core *core);

/* tables.c: marks and actions */
/* Append 'id' to a growing id array ('*cap' ids room, doubled). */
void core_ids_push(uint32_t **v, size_t *n, size_t *cap, uint32_t id);
/* A job, node or order changed: the next passes must look. */
void core_mark_changed(struct core *core);
/* A job changed: journal it (core_take_dirty); the passes must look. */
void core_mark_dirty(struct core *core, struct core_job *job);
/* List a final job for its jobcomp record (core_take_ended). */
void core_mark_ended(struct core *core, struct core_job *job);
void core_push_action(struct core *core, const struct core_action *a);
/*
 * Tell 'node' to end run 'run' of job 'id' as a cancel does (its
 * supervisor sends SIGTERM, then SIGKILL after KillWait).
 */
void core_end_run(struct core *core, uint32_t id, uint32_t run,
		  uint32_t node, int signo);
/* A pending job stops or starts being eligible (its eligible time). */
void core_job_set_eligible(struct core_job *job, bool eligible, int64_t now);

/* tables.c: lookup */
/*
 * The job 'id' if 'uid' may act on it (its owner, or an operator);
 * -ENOENT or -EPERM with the user's line otherwise.
 */
int core_job_access(struct core *core, uint32_t id, uid_t uid,
		    bool is_operator, struct core_job **out,
		    struct rota_error *err);
/* A queue by name (NULL: the default); -ENOENT with the user's line. */
int core_find_queue(const struct core *core, const char *name, uint32_t *out,
		    struct rota_error *err);
/* It ended COMPLETED with exit code 0 (what afterok asks). */
bool core_job_ended_ok(const struct core_job *job);
/*
 * Task 'task' of array 'id' split off as a job of its own, pending or
 * running (and with 'ended', ended and still known); NULL otherwise.
 * Walks those lists: for actions on tasks and aftercorr, not passes.
 */
struct core_job *core_array_task_find(const struct core *core, uint32_t id,
				      uint32_t task, bool ended);
/* A NULL-terminated name list's copy (NULL stays NULL); and its free. */
char **core_names_copy(char *const *v);
void core_names_free(char **v);

/* A user's jobs in id order (userjobs.c); 'used' marks a table entry. */
struct core_user_jobs {
	uid_t uid;
	bool used;
	size_t n;
	struct core_job *head;
	struct core_job *tail;
};
void userjobs_insert(struct core *core, struct core_job *job);
void userjobs_remove(struct core *core, struct core_job *job);
void userjobs_fini(struct core *core);

/*
 * cursor.c: core_cursor's bookkeeping (core.h).  _unlinked: 'job' is
 * leaving list 'l' (job_list_remove calls it while the job is still
 * linked).  _detach: 'l' is about to be reordered: its cursors take the
 * ids ahead of them and leave it.  _orphan_all: the core is destroyed.
 */
void cursor_unlinked(struct job_list *l, const struct core_job *job);
void cursor_detach(struct job_list *l);
void cursor_orphan_all(struct core *core);

/* jobtab.c: also keeps userjobs.c's lists */
void jobtab_insert(struct core *core, struct core_job *job);
void jobtab_remove(struct core *core, uint32_t id);
struct core_job *jobtab_find(const struct core *core, uint32_t id);
/* Sort the id index after restoring jobs out of order. */
void jobtab_sort(struct core *core);
/* Every job in id order. */
void jobtab_foreach(const struct core *core,
		    void (*fn)(const struct core_job *job, void *arg), void *arg);
void jobtab_fini(struct core *core);

/*
 * array_tally.c: per job array, by its id: its tasks pending or running,
 * those that ended otherwise than COMPLETED (exit 0), and its first
 * task's start (0: none yet).  _get makes one; _find is NULL for an id
 * that is no array's.
 */
struct array_tally {
	uint32_t id;		/* 0: a free slot */
	uint32_t active;
	uint32_t failed;
	int64_t first_start;
};
struct array_tally *array_tally_get(struct core *core, uint32_t id);
const struct array_tally *array_tally_find(const struct core *core,
					   uint32_t id);
void array_tally_reset(struct core *core);
void array_tally_fini(struct core *core);

/*
 * limit_tally.c: what the limits keep from request to request, so that
 * their cost does not grow with the queue (issue 23): per holder (a
 * struct rota_limit_set: a user's association, an account, a QOS) its
 * jobs in the queue, and the jobs changed since the limits last judged
 * them.  Only while core->limits_set.  limit_tally_job: 'job' changed
 * (core_mark_dirty calls it): counted again, listed to be judged.
 */
void limit_tally_job(struct core *core, struct core_job *job);
/* Holder 'set''s jobs in the queue (0 for NULL or none). */
int64_t limit_tally_queued(const struct core *core,
			   const struct rota_limit_set *set);
/* The key of a QOS's share of the running jobs of user 'uid'. */
uintptr_t limit_tally_user_key(uid_t uid);
/*
 * What the running jobs of holder 'set' ('sub' 0), or of its share 'sub'
 * (a QOS's of one user or account), hold now, into 'out' (TALLY_RES
 * entries; 0 for none).
 */
void limit_tally_held(const struct core *core, const struct rota_limit_set *set,
		      uintptr_t sub, int64_t *out);
/*
 * The jobs listed since the last call, each once, into '*jobs' (caller
 * frees, and clears their limits_look; jobs gone are left out); returns
 * how many.
 */
size_t limit_tally_take(struct core *core, struct core_job ***jobs);
/* Its 'limited' mark changed: it may join or leave its holders' lists. */
void limit_tally_index(struct core *core, struct core_job *job);
/*
 * Append to '*jobs' ('n' so far, grown) the pending jobs the limits
 * judge that have one of 'sets' among their holders, but for those
 * with limits_look set (listed already); returns the new count.
 */
size_t limit_tally_holders_jobs(struct core *core,
				const struct rota_limit_set *const *sets,
				size_t nsets, struct core_job ***jobs, size_t n);
/* A job about to be freed without an event (a restore's replaced one). */
void limit_tally_forget(struct core *core, struct core_job *job);
/* Count every job again (a restore put them back without events). */
void limit_tally_rebuild(struct core *core);
void limit_tally_fini(struct core *core);

/* limit_set.c */
struct rota_conf_limits;
/* rota.conf's limits (NULL: none) in the plugins' form. */
void limits_from_conf(const struct rota_conf_limits *c,
		      struct rota_limit_set *out);

/* ==== resources ========================================================== */

/* node.c */
/* The cores of 'prefer' (a bitmap; NULL: none) first, then the lowest. */
void node_alloc_cores(struct core_node *n, struct core_alloc *a,
		      uint64_t mem_mb, const uint64_t *prefer);
void node_free_cores(struct core_node *n, const struct core_alloc *a,
		     uint64_t mem_mb);
uint32_t node_cores_free(const struct core_node *n);
uint64_t node_mem_free(const struct core_node *n);
bool node_is_usable(const struct core_node *n);
/* Cores and memory the node will have (config, else registration). */
uint32_t node_cores_total(const struct core_node *n);
uint64_t node_mem_total(const struct core_node *n);
/* The whole job's memory, for limits and priority factors. */
uint64_t job_total_mem(const struct core_job *job);
/* Does the node's registration list this run of the job? */
/*
 * Index the nodes by name for core_node_find(), which heartbeats, job
 * ends and registrations call: a walk of 10,000 names was a sixth of the
 * controller's time at that size (bench/scale).  Called once the node
 * table is built; freed by core_destroy().
 */
void node_index_build(struct core *core);
bool node_reports_run(const struct rota_node_info *info,
		      const struct core_job *job);
/*
 * The test queues whose kept cores (ReservedCores, one pool per node made
 * by lifecycle.c) node 'node' holds, comma-separated in configuration
 * order ("t,u"; "" if none), into 'buf' (cut to 'len').
 */
void node_kept_queues(const struct core *core, uint32_t node, char *buf,
		      size_t len);

/*
 * fence.c: a requeued job waits until its previous run is known to be over
 * (fence_set before its allocation is freed); the other calls lift fences
 * on what the core learns.  fence_end: true if the end was of a fenced
 * run.  fence_restore: a journal's fenced job; fence_forget: a fenced job
 * that leaves the queue another way.
 */
void fence_set(struct core *core, struct core_job *job);
/* Fence 'job' on node index 'node' (a run of it found there). */
void fence_on(struct core *core, struct core_job *job, uint32_t node);
bool fence_end(struct core *core, struct core_job *job, uint32_t node,
	       uint32_t run);
void fence_register(struct core *core, uint32_t node,
		    const struct rota_node_info *info);
void fence_tick(struct core *core, int64_t now);
void fence_restore(struct core *core, struct core_job *job, uint32_t node,
		   int64_t now);
void fence_forget(struct core *core, struct core_job *job);
/* The node was granted a lease (registered, or heartbeat answered) now. */
void fence_granted(struct core *core, struct core_node *n, int64_t now);

/* resv.c: see resv.h */

/* ==== placement ========================================================== */

/* place.c: which nodes a job gets, by what counts as available */
enum place_mode {
	PLACE_NOW = 1,		/* free cores and memory now */
	PLACE_TOTAL,		/* the nodes' full size (could it ever?) */
	PLACE_PROFILE,		/* the least free over [t, t + d) */
};

struct profile;
struct place_ctx {
	struct core *core;	/* placement caches node sizes in it */
	enum place_mode mode;
	const struct profile *prof; /* PLACE_PROFILE */
	int64_t t;
	int64_t d;		/* 0: unlimited */
	bool kept;		/* count the test queues' kept cores as the
				   job's (rota why: are they what it lacks?) */
	const bool *held;	/* PLACE_NOW: nodes no job may take now (the
				   main pass's SchedulerHoldNodes); NULL */
	/*
	 * PLACE_PROFILE at the profile's now: at most this many cores and
	 * GPUs free on each node (backfill's bounds), so that a node short
	 * of them is passed over without a walk of its steps; NULL: none
	 */
	const uint32_t *cores_bound;
	const uint32_t *gpus_bound;
};

struct placement {
	uint32_t n;
	uint32_t *node;		/* node indexes */
	uint32_t *tasks;	/* tasks on each */
	bool kept;		/* the arrays are the core's */
};

void placement_init(struct core *core, struct placement *p);
void placement_fini(struct core *core, struct placement *p);
/*
 * Where the job fits, in 'p'; false if it does not.  A task range (-n
 * MIN-MAX) gets the most of its tasks that fit.
 */
bool place_job(const struct place_ctx *c, const struct core_job *job,
	       struct placement *p);
/* As place_job with exactly 'tasks' tasks, whatever the job asked. */
bool place_tasks(const struct place_ctx *c, const struct core_job *job,
		 uint32_t tasks, struct placement *p);
/* Cores the job holds on 'node' for 'tasks' (all of it if exclusive). */
uint32_t place_alloc_cores(const struct core *core, const struct core_job *job,
			   uint32_t node, uint32_t tasks);
/* Would all of the job's tasks fit on this one node? */
bool place_node_fits(const struct place_ctx *c, const struct core_job *job,
		     uint32_t node);

/*
 * estimate.c: a backfill pass reserved 'job' at 't' on 'p' (its nodes are
 * copied); est_clear forgets the reservation and frees its nodes.
 */
void est_set(struct core_job *job, int64_t t, const struct placement *p);
/* No reservation now; the arrays are kept for the next pass's. */
void est_forget(struct core_job *job);
void est_clear(struct core_job *job);

/* feasible.c: would 'job' fit on an idle set of its queue's nodes? */
int sched_check_feasible(struct core *core, const struct core_job *job,
			 struct rota_error *err);

/* profile.c: see profile.h */

/* ==== policy ============================================================= */

/* usage.c */
/* Charge a running job's use of its cores up to 'now'. */
void usage_charge_job(struct core *core, struct core_job *job, int64_t now);
/* A job joins or leaves the running list (charged up to its end first). */
/* UsageCharge=measured: charge a job's totals' increase (core.h). */
void usage_charge_measured(struct core *core, struct core_job *job,
			   int64_t now, uint64_t cpu_usec, uint64_t mem_bytes,
			   uint64_t io_bytes);
/* Give restored meters to their running jobs, once they are all back. */
void usage_marks_apply(struct core *core);
void usage_run_add(struct core *core, const struct core_job *job);
void usage_run_remove(struct core *core, const struct core_job *job);
/* Every running job's marks are set anew (a restore): sum them again. */
void usage_run_rebuild(struct core *core);
/* Resolve the job's association at submit (job->assoc). */
int usage_submit_assoc(struct core *core, struct core_job *job,
		       const char *user, struct rota_error *err);
/* Once the job is accepted: desc.account becomes its association's. */
void usage_submit_account(struct core *core, struct core_job *job);
/* core_share_update(), the fairshare plugin left to run when read. */
void usage_rerate(struct core *core, int64_t now);

/* limits.c */
/* ---- licenses.c: cluster-wide licenses ---- */
void licenses_init(struct core *core, const struct rota_conf *conf);
void licenses_fini(struct core *core);
/* desc.licenses into job->lics; -EINVAL with one line for a name the
   cluster does not count or more than it has */
int licenses_job_parse(const struct core *core, struct core_job *job,
		       struct rota_error *err);
/*
 * Are the job's licenses free at 'now' for its limit?  Those its own
 * reservation holds come from it; the others from what is left once
 * the reservations that would hold some meanwhile have theirs.
 */
bool licenses_free(const struct core *core, const struct core_job *job,
		   int64_t now);
/*
 * The main pass keeps licenses for the jobs that wait for them: once one
 * waits for a license, no later job of the pass takes it (backfill,
 * which plans them, may start one that gives it back in time).
 * licenses_pass_begin at the start of a pass; licenses_may_take: the
 * job's licenses are free and none is waited for, else false with the
 * ones it lacks marked waited for.
 */
void licenses_pass_begin(struct core *core);
bool licenses_may_take(struct core *core, const struct core_job *job,
		       int64_t now);
/*
 * A reservation's Licenses= ('text') into 'r': -EINVAL for a name the
 * cluster does not count, -EBUSY when the reservations over its span
 * would hold more than the cluster has; the line in 'err'.
 */
struct core_resv;
int licenses_resv_parse(const struct core *core, const char *text,
			struct core_resv *r, struct rota_error *err);

void licenses_take(struct core *core, const struct core_job *job);
void licenses_give(struct core *core, const struct core_job *job);

/* ---- gres.c: generic resources other than GPUs, counts per node ---- */
void gres_init(struct core *core, const struct rota_conf *conf);
void gres_fini(struct core *core);
/* desc.gres into job->gres; -EINVAL with one line for a name GresTypes
   does not declare */
int gres_job_parse(const struct core *core, struct core_job *job,
		   struct rota_error *err);
/* Node 'n''s count of GresTypes name 'idx' (of 'type'; NULL or "": any),
   all or free. */
uint32_t node_gres_count(const struct core *core, const struct core_node *n,
			 uint32_t idx, const char *type, bool free_only);
/* A running job takes its counts on its nodes, or gives them back. */
void gres_job_take(struct core *core, const struct core_job *job);
void gres_job_give(struct core *core, const struct core_job *job);
/* At submit, after no placement fit: -EINVAL with the line when some
   resource is more than any node of its queue has; else 0. */
int gres_explain(const struct core *core, const struct core_job *job,
		 struct rota_error *err);

/* ---- gpus.c: a node's GPUs and generic resources ---- */
struct rota_conf_node;
void node_gres_init(struct core_node *n, const struct rota_conf_node *c);
void node_gres_fini(struct core_node *n);
/*
 * Take the GPUs a registering node found, as its rota.conf line allows;
 * -EINVAL with the numbers in 'err' when it has fewer than declared.
 */
int node_gpus_register(struct core *core, uint32_t idx,
		       const struct rota_node_info *info,
		       struct rota_error *err);
/* The job's GPUs in all: those it holds, else those it asks for. */
uint32_t job_gpus_total(const struct core_job *job);
/* The GPUs 'job' wants on a node where it has 'tasks' tasks. */
uint32_t job_node_gpus(const struct core_job *job, uint32_t tasks);
/* The node's GPUs of 'type' (NULL: any): all of them, or the free ones. */
uint32_t node_gpus_count(const struct core_node *n, const char *type,
			 bool free_only);
/*
 * Give 'a' 'want' free GPUs of the job's type, near one another and near
 * 'ncores' free cores when the node has such a group (one socket's);
 * '*near' the cores nearest them, to be taken first (NULL: none; the
 * caller frees it).
 */
void node_alloc_gpus(struct core_node *n, const struct core_job *job,
		     struct core_alloc *a, uint32_t want, uint32_t ncores,
		     uint64_t **near);
void node_free_gpus(struct core_node *n, uint32_t job_id,
		    const struct core_alloc *a);

int limits_init(struct core *core, const struct rota_conf *conf,
		struct rota_error *err);
void limits_fini(struct core *core);
/*
 * May this job of 'user' be queued?  -EINVAL with the user's line.  A
 * task range is judged by its minimum, and its maximum cut to the most
 * the limits admit.
 */
int limits_admit(struct core *core, int64_t now, struct core_job *job,
		 const char *user, struct rota_error *err);
/* Before a pass: which pending jobs the limits block (job->limited). */
void limits_classify(struct core *core, int64_t now);
/* May the pass start this idle job now?  false with job->reason set. */
bool limits_may_start(struct core *core, int64_t now, struct core_job *job,
		      bool others_idle);

/* priority.c */
int prio_init(struct core *core, const struct rota_conf *conf,
	      struct rota_error *err);
void prio_fini(struct core *core);
/* Resolve and check the job's QOS, nice, urgency and deadline at submit. */
int prio_submit_check(struct core *core, struct core_job *job,
		      const char *user, bool operator, struct rota_error *err);
/* Rate a new or requeued job alone and put it in the pending list. */
void prio_enqueue(struct core *core, struct core_job *job, int64_t now);
/* Order the pending list by the last ratings (after a restore). */
void prio_sort(struct core *core);

/*
 * depend.c: job dependencies.  depend_prepare parses 'text' for job
 * 'self' (0: one being submitted), checks its targets exist and, for an
 * existing job, that it makes no cycle; '*out' NULL for no dependency;
 * -EINVAL or -ENOENT with the user's line.  depend_attach gives it to
 * 'job' (in the job table; any old one is dropped) and looks at it at
 * once.  The events call the others: a job started (after, singleton),
 * ended (all), time passed (after+MIN).  depend_restore: a journal's
 * pending job (core_restore_finish, once all jobs are back).
 */
struct core_deps;
int depend_prepare(struct core *core, uint32_t self, const char *text,
		   struct core_deps **out, struct rota_error *err);
void depend_attach(struct core *core, struct core_job *job,
		   struct core_deps *deps, int64_t now);
void depend_restore(struct core *core, struct core_job *job);
void depend_job_started(struct core *core, struct core_job *job, int64_t now);
void depend_job_ended(struct core *core, struct core_job *job, int64_t now);
/* Its parts asked again (an array's rest whose next task is another). */
void depend_again(struct core *core, struct core_job *job, int64_t now);
void depend_tick(struct core *core, int64_t now);
/* A job --kill-on-invalid-dep=yes whose dependency failed; 0: none. */
uint32_t depend_take_doomed(struct core *core);
/* Its dependency can never be satisfied. */
bool depend_never(const struct core_job *job);
void depend_job_free(struct core_job *job);
void depend_fini(struct core *core);

/* ==== moves ============================================================== */

/* jobstate.c */
/* Into or out of the running list, its ends kept for backfill. */
void core_running_add(struct core *core, struct core_job *job);
void core_running_remove(struct core *core, struct core_job *job);
/*
 * A running job's cores: counted (for a test queue's kept cores) once it
 * holds them, given back to its nodes when it stops.
 */
void core_job_take(struct core *core, struct core_job *job);
void core_job_release(struct core *core, struct core_job *job);
/* Move a job to its final state, freeing its cores. */
void core_job_finish(struct core *core, struct core_job *job, int64_t now,
		     enum rota_job_state state);
/*
 * Cancel the pending jobs whose dependency failed and that asked for it
 * (--kill-on-invalid-dep=yes), and those that then fail in turn.
 */
void core_job_reap_deps(struct core *core, int64_t now);
/* Free a job that is in no list and no table. */
void core_job_free(struct core_job *job);

/* array.c: job arrays, their pending rest as one record */
/* At submit: --array read into job->array; -EINVAL with the user's line. */
int array_submit(struct core *core, struct core_job *job,
		 struct rota_error *err);
/*
 * The job a pass starts for 'job': itself, or for an array's pending rest
 * of more than one task its lowest task, split off into the pending list
 * (the rest stays where it is); the last task is the record itself.
 */
struct core_job *array_next_task(struct core *core, struct core_job *job);
/* Its throttle (%N) holds the rest back: N of its tasks run. */
bool array_throttled(const struct core *core, const struct core_job *job);
/* Its limits let this pass start no more of its tasks (MaxIdle...). */
bool array_spent(const struct core_job *job);
/* Accepted at submit: its tasks counted in its tally. */
void array_accepted(struct core *core, const struct core_job *job);
/* A task, or a rest, reached its final state: counted in the tally. */
void array_task_ended(struct core *core, const struct core_job *job);
/* A task of an array starts or stops running (the throttle's count). */
void array_task_runs(struct core *core, const struct core_job *job,
		     int delta);
void array_free(struct core_job *job);
/* A journal's pending rest 'rest' (its ids as text) put back. */
void array_restore(struct core_job *job, const char *rest);
/* Every rest's running tasks counted again (after a restore). */
void array_recount(struct core *core);

/* ==== passes ============================================================= */

/* sched.c */
/*
 * May this pending job be tried now: not held, not blocked by a limit,
 * not waiting for its reservation to open.
 */
bool sched_eligible(const struct core *core, const struct core_job *job);
/*
 * May the limits let 'job' start as placed in 'p' (limits_may_start)?
 * A task range is judged by the tasks placed; refused, by its minimum
 * alone, placed again in 'p' by 'c' (a limit on cores may allow MIN
 * where it refuses the most that fit).
 */
bool sched_may_start(struct core *core, int64_t now, struct core_job *job,
		     bool others_idle, const struct place_ctx *c,
		     struct placement *p);
/* Start 'job' now on 'p'. */
void sched_start(struct core *core, struct core_job *job, int64_t now,
		 const struct placement *p);

/* backfill.c */
int sched_init(struct core *core, const struct rota_conf *conf,
	       struct rota_error *err);
void sched_fini(struct core *core);
/* A backfill pass if the plugin's interval has passed (core_tick). */
void sched_tick(struct core *core, int64_t now);

#endif
