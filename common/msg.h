/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_MSG_H
#define ROTA_COMMON_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/*
 * Message bodies (STYLE 9).  Per message a struct, an _encode that returns a
 * new JSON text (caller frees with free(), '*len' set), a _decode that fills
 * the struct from hostile bytes or leaves it empty and returns -EPROTO with
 * 'err' naming the field, and a _clear that frees what decode allocated.
 * Strings in decoded structs are owned by the struct.
 *
 * One file past 800 lines (STYLE 4) because it is the wire's index, one
 * section per message; the codecs behind it are split by area, msg_*.c.
 */

#define ROTA_MSG_NAME_MAX 256	 /* job, user, queue, account, node names */
#define ROTA_MSG_DEPEND_MAX 32768 /* a --dependency's text */
#define ROTA_MSG_PATH_MAX 4096
#define ROTA_MSG_ENV_MAX 1024	 /* environment entries */
#define ROTA_MSG_LIST_MAX 1048576 /* array elements in a list reply */

enum rota_job_state {
	ROTA_JOB_NONE = 0,
	ROTA_JOB_PENDING,
	ROTA_JOB_RUNNING,
	ROTA_JOB_COMPLETED,	/* exit code 0 */
	ROTA_JOB_FAILED,	/* non-zero exit, a signal, or did not start */
	ROTA_JOB_CANCELLED,
	ROTA_JOB_TIMEOUT,
	ROTA_JOB_NODE_FAIL,
	ROTA_JOB_OUT_OF_MEMORY,	/* the kernel killed it at its memory limit */
	ROTA_JOB_STATE_COUNT,
};

/* "PENDING", ...; static. */
const char *rota_job_state_name(enum rota_job_state s);
/* Two-letter form for tables ("PD", "R", "CD", ...); static. */
const char *rota_job_state_short(enum rota_job_state s);
int rota_job_state_parse(const char *text, enum rota_job_state *out);
bool rota_job_state_is_final(enum rota_job_state s);

/* ---- ERROR reply ---- */
struct rota_msg_error {
	int code;	/* negative errno */
	char *text;	/* the line a user sees */
};
char *rota_msg_error_encode(int code, const char *text, size_t *len);
int rota_msg_error_decode(const char *buf, size_t len, struct rota_msg_error *m,
			  struct rota_error *err);
void rota_msg_error_clear(struct rota_msg_error *m);

/* ---- SUBMIT: what a user asks for ---- */
struct rota_job_desc {
	char *name;
	char *script;
	char *workdir;		/* absolute */
	char *output;		/* NULL: "rota-%j.out" in workdir */
	char *error;		/* NULL: into output */
	char *queue;		/* NULL: the default queue */
	char *account;		/* NULL: none */
	char *constraint;	/* NULL: none; "ib&largemem", "a|b" */
	char *qos;		/* NULL: "normal" */
	char **env;		/* NULL-terminated, may be NULL */
	uint32_t ntasks;	/* >= 1; of a range (-n 2-6): its minimum
				   while pending, the tasks granted once
				   started */
	uint32_t ntasks_max;	/* a range's maximum (Grid Engine's -pe mpi
				   2-6); 0: no range, exactly ntasks */
	uint32_t cpus_per_task; /* >= 1 */
	uint32_t nodes;		/* 0: as many as needed */
	uint64_t mem_mb;	/* per node; 0: not asked */
	uint64_t mem_per_cpu_mb; /* per allocated core; not with mem_mb */
	char *reservation;	/* NULL: none; else runs only inside it */
	int64_t time_limit;	/* seconds; 0: the queue's default */
	bool no_requeue;	/* if its node fails: NODE_FAIL, not requeued */
	int32_t nice;		/* -10000..10000, below 0 for operators */
	uint32_t urgency;	/* Flux's 1..31 (16 by default); 0: unset */
	uint32_t ntasks_per_node; /* 0: as placement finds room */
	bool exclusive;		/* whole nodes, shared with no other job */
	bool hold;		/* submitted held (JobHeldUser) */
	char *array;		/* --array ("0-999%16"); NULL: one job */
	char *dependency;	/* --dependency as given; NULL: none */
	bool kill_on_invalid_dep; /* cancel it if that can never be met */
	int64_t deadline;	/* Grid Engine's -dl: initiation deadline,
				   Unix seconds; 0: none */
	uint32_t jobshare;	/* Grid Engine's -js: functional shares */
	uint32_t oticket;	/* Grid Engine's -ot: override tickets, set
				   by operators (rota update OTickets=) */
	/* GPUs (rota submit's --gpus* options come to one of the two) */
	char *gpu_type;		/* "v100"; NULL: any */
	uint32_t gpus_per_node;	/* on each of its nodes; 0: none */
	uint32_t gpus_per_task;	/* for each task; 0: none */
	char *licenses;		/* --licenses=matlab:1,ansys:2; NULL: none */
	char *gres;		/* generic resources other than GPUs, per
				   node, counts only: "nvme:1,fpga:2";
				   NULL: none */
};
char *rota_msg_submit_encode(const struct rota_job_desc *d, size_t *len);
int rota_msg_submit_decode(const char *buf, size_t len, struct rota_job_desc *d,
			   struct rota_error *err);
void rota_job_desc_clear(struct rota_job_desc *d);

/* SUBMIT_REPLY */
char *rota_msg_submit_reply_encode(uint32_t job_id, size_t *len);
int rota_msg_submit_reply_decode(const char *buf, size_t len, uint32_t *job_id,
				 struct rota_error *err);

/* ---- JOB_LIST: the queue, or one job ---- */
struct rota_msg_job_list_req {
	uint32_t job_id; /* 0: all jobs */
};
char *rota_msg_job_list_req_encode(const struct rota_msg_job_list_req *r,
				   size_t *len);
int rota_msg_job_list_req_decode(const char *buf, size_t len,
				 struct rota_msg_job_list_req *r,
				 struct rota_error *err);

struct rota_job_info {
	uint32_t id;
	enum rota_job_state state;
	uint32_t uid;
	uint32_t gid;
	char *name;
	char *user;
	char *account;
	char *queue;
	char *nodelist;		/* allocated nodes, hostlist form; "" if none */
	char *reason;		/* why pending, or how it ended; "" if none */
	char *workdir;
	char *output;
	char *error;
	char *constraint;
	uint32_t ntasks;	/* a range's minimum while pending, the tasks
				   granted once running */
	uint32_t ntasks_max;	/* pending with -n MIN-MAX: MAX; else 0 */
	uint32_t cpus_per_task;
	uint32_t nodes;		/* asked; allocated once running */
	uint64_t mem_mb;
	int64_t time_limit;
	int64_t submit_time;	/* Unix seconds; 0 if not yet */
	int64_t start_time;
	int64_t end_time;
	int exit_code;		/* valid once ended without a signal */
	int term_signal;	/* 0: none */
	uint32_t runs;		/* times started (more than 1: requeued) */
	int64_t est_start;	/* pending: backfill's expected start; 0 */
	uint64_t mem_per_cpu_mb; /* 0: not asked */
	char *reservation;	/* NULL: none */
	char *est_nodes;	/* pending: est_start's nodes, hostlist; NULL */
	uint64_t cpu_usec;	/* ended: CPU time from its cgroup; 0: unknown */
	uint64_t mem_peak;	/* ended: memory peak (bytes); 0: unknown */
	uint32_t array_job_id;	/* 0: not of an array */
	uint32_t array_task_id;	/* ROTA_ARRAY_PENDING_REST: the pending rest */
	char *array_tasks;	/* that rest's ids ("3-999"); NULL otherwise */
	uint32_t array_throttle; /* at most this many run at once; 0: any */
	char *dependency;	/* what it still waits for, Slurm's way:
				   "afterok:12(unfulfilled)"; "" if none */
	char *tres_per_node;	/* GPUs asked a node: "gres/gpu:v100:2"; NULL */
	char *tres_per_task;	/* or a task: "gres/gpu:1"; NULL */
	char *gpu_idx;		/* running: its GPUs, "n01:0,1 n02:3"; NULL */
};

struct rota_msg_job_list {
	struct rota_job_info *jobs;
	size_t njobs;
	int64_t now;		/* the controller's clock, for elapsed times */
};
/* Encodes straight to text (50,000 jobs must list fast). */
char *rota_msg_job_list_encode(const struct rota_job_info *jobs, size_t n,
			       int64_t now, size_t *len);
int rota_msg_job_list_decode(const char *buf, size_t len,
			     struct rota_msg_job_list *m,
			     struct rota_error *err);
void rota_msg_job_list_clear(struct rota_msg_job_list *m);

/*
 * ---- JOB_ROWS: the queue listing, one short row per job ----
 * Body: {"now":N,"rows":[[id,"ST",nodes,start,end,"queue","name","user",
 * "where"],...]}, keys and columns in exactly this order; ST is the short
 * state ("PD", "R", ...).  Decoded by a scanner, not a tree: 50,000 rows
 * in a few milliseconds.
 */
struct rota_job_row {
	uint32_t id;
	enum rota_job_state state;
	uint32_t nodes;
	int64_t start_time;	/* 0: not started */
	int64_t end_time;	/* 0: not ended */
	const char *queue;	/* borrowed from the message's arena */
	const char *name;
	const char *user;
	const char *where;	/* nodes once started, the reason while pending */
	uint32_t array_job_id;	/* 0: not of an array */
	const char *array;	/* "12_7", "12_[3-999%16]"; "" if none */
	const char *gres;	/* its GPUs: "gpu:v100:2" a node, "gpu:1/task";
				   "" if none (a row may leave it out) */
};

/*
 * The JOB_ROWS request: {} for every job, or those of one job ("job_id":
 * the job and, if it is an array, its tasks) or of one user ("uid"),
 * picked by the controller from its indexes.
 */
struct rota_msg_job_rows_req {
	uint32_t job_id;	/* 0: any */
	bool by_uid;
	uint32_t uid;		/* with by_uid */
};
char *rota_msg_job_rows_req_encode(const struct rota_msg_job_rows_req *r,
				   size_t *len);
int rota_msg_job_rows_req_decode(const char *buf, size_t len,
				 struct rota_msg_job_rows_req *r,
				 struct rota_error *err);

struct rota_msg_job_rows {
	struct rota_job_row *rows;
	size_t n;
	int64_t now;
	char *arena;		/* owns the rows' strings */
};
char *rota_msg_job_rows_encode(const struct rota_job_row *rows, size_t n,
			       int64_t now, size_t *len);
int rota_msg_job_rows_decode(const char *buf, size_t len,
			     struct rota_msg_job_rows *m,
			     struct rota_error *err);
void rota_msg_job_rows_clear(struct rota_msg_job_rows *m);

/*
 * ---- DIAG_REPLY: the controller's counters, by name ----
 * Body: {"counters":[["requests",12],...]}; a name is [a-z_]+, in the
 * order the controller gives.  New counters need no protocol change.
 */
struct rota_msg_counters {
	char **names;
	int64_t *values;
	size_t n;
};
char *rota_msg_counters_encode(char *const *names, const int64_t *values,
			       size_t n, size_t *len);
int rota_msg_counters_decode(const char *buf, size_t len,
			     struct rota_msg_counters *m,
			     struct rota_error *err);
void rota_msg_counters_clear(struct rota_msg_counters *m);

/*
 * ---- SHARE_REPLY: the fairshare tree, as rota share shows it ----
 * Body: {"plugin":"fairtree","convention":"native","decay":"exponential",
 * "half_life":604800,"time":T,"rows":[{"account":"physics","user":"ana",
 * "depth":2,"shares":..., ...}]}: rows in tree order (preorder), "user"
 * absent on account rows, "level_fs" absent where the algorithm has none
 * and the string "inf" for no usage.  "shares_level" and "usage_level"
 * are among siblings (Slurm's Fair-Tree NormShares and EffectvUsage),
 * "shares_norm" and "usage_norm" of the whole machine; the decoder reads
 * the two level figures as NAN when absent (an older controller's).
 * "ltarget", "starget", "rtarget": Grid Engine's long-term, short-term
 * and running-pass short-term target shares, of the machine, present
 * only where the plugin computes them (sharetree); NAN when absent.
 */
struct rota_share_row {
	char *account;
	char *user;		/* NULL on an account's row */
	uint32_t depth;
	double shares;
	double shares_norm;	/* of the machine: multiplied down */
	double shares_level;	/* shares / siblings' shares (own included) */
	double usage;		/* decayed core-seconds */
	double usage_norm;	/* usage / the root's usage */
	double usage_level;	/* usage / the parent's usage; root: 1 */
	double usage_eff;	/* what the plugin weighs */
	double level_fs;	/* NAN: none; INFINITY: no usage */
	double value;
	double factor;
	double tickets;
	uint32_t pending;
	uint32_t running;
	double ltarget;		/* NAN: not computed by the plugin */
	double starget;
	double rtarget;
};

struct rota_msg_share {
	char *plugin;
	char *convention;	/* "native" or "flux" */
	char *decay;		/* "exponential" or "halving" */
	int64_t half_life;
	int64_t time;
	struct rota_share_row *rows;
	size_t n;
};
char *rota_msg_share_encode(const struct rota_msg_share *m, size_t *len);
int rota_msg_share_decode(const char *buf, size_t len,
			  struct rota_msg_share *m, struct rota_error *err);
void rota_msg_share_clear(struct rota_msg_share *m);

/*
 * ---- PRIO_REPLY: pending jobs' priorities and their terms ----
 * Body: {"plugin":"multifactor","describe":"WeightAge=1000 ...","rows":
 * [{"id":7,"user":"ana","account":"physics","queue":"batch",
 * "qos":"normal","priority":1234.5,"factors":[["age",3600,0.1,1000,100],
 * ...],"state":"pending"}]}: a factor is [name, raw, normalized, weight,
 * value].  A row may carry "department" (Grid Engine's, for qstat -ext).  "state" is "pending", "held" or "running"; "rates_all" (true,
 * else absent) says the priority plugin rates every job, as Grid Engine
 * does: running jobs are listed too, and held ones have priority 0 and no
 * factors.  PRIO's request is a job id list (as CANCEL's); empty means
 * every job the plugin rates.
 */
struct rota_msg_prio_factor {
	char *name;
	double raw;
	double norm;
	double weight;
	double value;
};

enum rota_prio_row_state {
	ROTA_PRIO_ROW_PENDING = 1,
	ROTA_PRIO_ROW_HELD,
	ROTA_PRIO_ROW_RUNNING,
};

struct rota_prio_row {
	uint32_t id;
	enum rota_prio_row_state state;
	char *array;		/* a job of an array as named: "12_[3-999%16]"
				   (its pending rest), "12_7"; NULL: none */
	uint32_t tasks;		/* the jobs the row stands for: a rest's
				   tasks; 0 (absent) or 1: one */
	char *user;
	char *account;
	char *department;	/* Grid Engine's (rates_all); NULL: absent */
	char *queue;
	char *qos;
	double priority;
	struct rota_msg_prio_factor *factors;
	size_t nfactors;
};

struct rota_msg_prio {
	char *plugin;
	char *describe;
	bool rates_all;		/* running and held jobs rated as well */
	int64_t rated_at;	/* the last rating of every job; 0: none */
	int64_t now;		/* the controller's clock; 0: not said */
	struct rota_prio_row *rows;
	size_t n;
	char *arena;		/* decoded: owns every string */
};
char *rota_msg_prio_encode(const struct rota_msg_prio *m, size_t *len);
/*
 * The same body written a row at a time, straight into its text, so that
 * a reply of 100,000 rows is its text and nothing else: begin with the
 * head ('m's rows ignored), add the rows, finish (the body, to free).
 */
struct rota_msg_prio_writer;
struct rota_msg_prio_writer *rota_msg_prio_begin(const struct rota_msg_prio *m);
void rota_msg_prio_add(struct rota_msg_prio_writer *w,
		       const struct rota_prio_row *r);
char *rota_msg_prio_finish(struct rota_msg_prio_writer *w, size_t *len);
/*
 * The body so far (borrowed, valid until the next add or finish): what
 * finish will return starts with these bytes, unchanged.
 */
const char *rota_msg_prio_written(const struct rota_msg_prio_writer *w,
				  size_t *len);
int rota_msg_prio_decode(const char *buf, size_t len, struct rota_msg_prio *m,
			 struct rota_error *err);
void rota_msg_prio_clear(struct rota_msg_prio *m);

/* ---- CANCEL, PRIO: job ids ---- */
struct rota_msg_job_ids {
	uint32_t *job_ids;
	size_t n;
	char **tasks;		/* NULL, or per job its array tasks ("1-5"),
				   "" for all of it (CANCEL) */
	bool by_uid;		/* PRIO only: the jobs of user 'uid' (with */
	uint32_t uid;		/* no ids: all of that user's) */
};
char *rota_msg_job_ids_encode(const struct rota_msg_job_ids *m, size_t *len);
int rota_msg_job_ids_decode(const char *buf, size_t len,
			   struct rota_msg_job_ids *m, struct rota_error *err);
void rota_msg_job_ids_clear(struct rota_msg_job_ids *m);

/* CANCEL_REPLY: one line per job that could not be cancelled. */
struct rota_msg_text_list {
	char **lines;
	size_t n;
};
char *rota_msg_text_list_encode(char *const *lines, size_t n, size_t *len);
int rota_msg_text_list_decode(const char *buf, size_t len,
			      struct rota_msg_text_list *m,
			      struct rota_error *err);
void rota_msg_text_list_clear(struct rota_msg_text_list *m);

/* ---- NODE_REGISTER and NODE_LIST ---- */

#define ROTA_MSG_GPUS_MAX 256	/* GPUs a node may report */

/* One GPU of a node, as its daemon found it (noded/gpu_find.c). */
struct rota_gpu_info {
	char *type;		/* "v100"; "" when the model names none */
	char *model;		/* "Tesla V100-SXM3-32GB-H" */
	char *busid;		/* "0000:34:00.0" */
	char *cores;		/* the cores nearest it: "0-23" */
	uint32_t numa;		/* the NUMA node nearest it */
	uint32_t job;		/* NODE_LIST: the job using it; 0: free */
};

struct rota_node_info {
	char *name;
	char *state;		/* "UP", "DOWN", "UNKNOWN" */
	char *reason;		/* "" if none */
	char *addr;
	char **features;	/* NULL-terminated, never NULL once decoded */
	uint32_t sockets;
	uint32_t cores;
	uint32_t pus;
	uint32_t cores_used;
	uint32_t cores_kept;	/* kept for test queues (ReservedCores) */
	uint32_t cores_kept_used; /* of those, used by test jobs */
	uint64_t memory_mb;
	uint64_t memory_used_mb;
	uint32_t step_port;	/* registration: where it takes job steps;
				   0: it takes none (an older daemon) */
	uint32_t step_uid;	/* and the uid it runs as (auth.h: only that
				   uid opens a step client's credential) */
	uint32_t *jobs;		/* running job ids (registration) */
	uint32_t *runs;		/* and which run of each (same count) */
	size_t njobs;
	struct rota_gpu_info *gpus; /* in PCI bus order (index = the job's
				   CUDA_VISIBLE_DEVICES number); NULL: none */
	size_t ngpus;
	char *gres;		/* NODE_LIST: other generic resources, as
				   rota.conf counts them ("nvme:2"); NULL */
	char *gres_used;	/* NODE_LIST: of those, what jobs hold
				   ("nvme:1"); NULL: none */
};
char *rota_msg_node_encode(const struct rota_node_info *n, size_t *len);
int rota_msg_node_decode(const char *buf, size_t len, struct rota_node_info *n,
			 struct rota_error *err);
void rota_node_info_clear(struct rota_node_info *n);
/*
 * The node's generic resources as Slurm writes them: its GPUs counted by
 * type, then the others ("gpu:v100:16,nvme:2"); with 'used', the GPUs in
 * use ("gpu:v100:2"); "" when none.  Caller frees.
 */
char *rota_node_gres_text(const struct rota_node_info *n, bool used);

struct rota_msg_node_list {
	struct rota_node_info *nodes;
	size_t n;
};
char *rota_msg_node_list_encode(const struct rota_node_info *nodes, size_t n,
				size_t *len);
int rota_msg_node_list_decode(const char *buf, size_t len,
			      struct rota_msg_node_list *m,
			      struct rota_error *err);
void rota_msg_node_list_clear(struct rota_msg_node_list *m);

/* ---- LAUNCH: the controller tells a node daemon to run a job ---- */
struct rota_msg_launch {
	uint32_t job_id;
	uint32_t run;		/* the job's how-many-th run (1, 2 after a requeue) */
	uint32_t uid;
	uint32_t gid;
	char *name;
	char *script;
	char *workdir;
	char *output;		/* absolute, expanded */
	char *error;		/* absolute, expanded, or NULL */
	char *queue;
	char *nodelist;
	char **env;		/* NULL-terminated, never NULL once decoded */
	uint32_t *cores;	/* logical core indexes on this node */
	size_t ncores;
	uint32_t *gpus;		/* its GPUs here (the node's indexes); NULL */
	size_t ngpus;
	uint32_t ntasks;
	int64_t time_limit;	/* seconds; 0: none */
	uint64_t mem_mb;	/* its memory on this node; 0: not asked */
};
char *rota_msg_launch_encode(const struct rota_msg_launch *m, size_t *len);
int rota_msg_launch_decode(const char *buf, size_t len,
			   struct rota_msg_launch *m, struct rota_error *err);
void rota_msg_launch_clear(struct rota_msg_launch *m);

/* ---- SIGNAL_JOB, JOB_END_ACK, HEARTBEAT: small fixed bodies ---- */
struct rota_msg_job_signal {
	uint32_t job_id;
	uint32_t run;		/* only that run of the job */
	int signo;
	bool cancel;		/* ends as CANCELLED, with KillWait grace */
};
char *rota_msg_job_signal_encode(const struct rota_msg_job_signal *m,
				 size_t *len);
int rota_msg_job_signal_decode(const char *buf, size_t len,
			       struct rota_msg_job_signal *m,
			       struct rota_error *err);

/* ---- JOB_END: a node daemon reports how a job ended ---- */
struct rota_msg_job_end {
	uint32_t job_id;
	uint32_t run;		/* which run of the job ended */
	enum rota_job_state state; /* COMPLETED, FAILED, CANCELLED, TIMEOUT,
				      OUT_OF_MEMORY */
	int exit_code;
	int term_signal;
	int64_t start_time;
	int64_t end_time;
	char *text;		/* why: a launch failure, "OutOfMemory"; or NULL */
	uint64_t cpu_usec;	/* CPU time from its cgroup; 0: not known */
	uint64_t mem_peak;	/* its memory's peak (bytes); 0: not known */
};
char *rota_msg_job_end_encode(const struct rota_msg_job_end *m, size_t *len);
int rota_msg_job_end_decode(const char *buf, size_t len,
			    struct rota_msg_job_end *m, struct rota_error *err);
void rota_msg_job_end_clear(struct rota_msg_job_end *m);

/*
 * JOB_USAGE (UsageCharge=measured): what the cgroup of each job running
 * here has used so far, {"jobs":[[id, run, cpu_usec, mem_bytes,
 * io_bytes], ...]}.  Totals, not increments: a report lost or repeated
 * changes nothing, the next one carries them all.  No reply.
 */
#define ROTA_MSG_JOB_USAGE_MAX 65536 /* jobs in one report */
struct rota_job_sample {
	uint32_t job_id;
	uint32_t run;
	uint64_t cpu_usec;	/* its CPU time so far */
	uint64_t mem_bytes;	/* its memory now */
	uint64_t io_bytes;	/* read and written so far; 0: not known */
};
struct rota_msg_job_usage {
	struct rota_job_sample *jobs;
	size_t njobs;
};
char *rota_msg_job_usage_encode(const struct rota_msg_job_usage *m,
				size_t *len);
int rota_msg_job_usage_decode(const char *buf, size_t len,
			      struct rota_msg_job_usage *m,
			      struct rota_error *err);
void rota_msg_job_usage_clear(struct rota_msg_job_usage *m);

/* JOB_END_ACK: the controller has this run's end on disk. */
char *rota_msg_job_run_encode(uint32_t job_id, uint32_t run, size_t *len);
int rota_msg_job_run_decode(const char *buf, size_t len, uint32_t *job_id,
			    uint32_t *run, struct rota_error *err);

/* A body of one job id. */
char *rota_msg_job_id_encode(uint32_t job_id, size_t *len);
int rota_msg_job_id_decode(const char *buf, size_t len, uint32_t *job_id,
			   struct rota_error *err);

/* NODE_ADMIN: an operator drains, resumes or downs a node. */
struct rota_msg_node_admin {
	char *name;
	char *action;	/* "drain", "resume" or "down" */
	char *reason;	/* NULL: none given */
};
char *rota_msg_node_admin_encode(const struct rota_msg_node_admin *m,
				 size_t *len);
int rota_msg_node_admin_decode(const char *buf, size_t len,
			       struct rota_msg_node_admin *m,
			       struct rota_error *err);
void rota_msg_node_admin_clear(struct rota_msg_node_admin *m);

/*
 * The OK that answers a REGISTER or HEARTBEAT: {"lease":N}, N seconds
 * (0: no lease, jobs run on whatever happens); {} decodes as 0.
 */
char *rota_msg_lease_encode(int64_t lease, size_t *len);
int rota_msg_lease_decode(const char *buf, size_t len, int64_t *lease,
			  struct rota_error *err);

/*
 * HEARTBEAT: {"name":..., "steps_refused":N}; N (step launches the node
 * refused, for rota diag) is omitted when 0 and optional when decoded.
 */
char *rota_msg_heartbeat_encode(const char *name, uint64_t steps_refused,
				size_t *len);
int rota_msg_heartbeat_decode(const char *buf, size_t len, char **name,
			      uint64_t *steps_refused, struct rota_error *err);

/* A body of one name: a reservation's (RESV_DELETE, its reply). */
char *rota_msg_name_encode(const char *name, size_t *len);
int rota_msg_name_decode(const char *buf, size_t len, char **name,
			 struct rota_error *err);

/*
 * ---- HOLD, RELEASE, NICE, UPDATE, REQUEUE: acting on jobs (issue 8) ----
 * Body: {"jobs":[7,8],"operator":true,"nice":-5,"relative":true,
 * "set":[["TimeLimit","1:00:00"],["Queue","short"]]}: "jobs" always, the
 * rest only where true, set or non-empty, and only where the type uses
 * them (HOLD "operator"; NICE "nice" and "relative"; UPDATE "set").  The
 * reply, CONTROL_REPLY, is a text list: one line per job refused.
 */
#define ROTA_MSG_CONTROL_SET_MAX 16	/* key=value pairs in one UPDATE */
#define ROTA_MSG_CONTROL_KEY_MAX 32
#define ROTA_MSG_NICE_LIMIT 20000	/* |nice| in a body; core checks more */

struct rota_msg_kv {
	char *key;
	char *value;
};

struct rota_msg_control {
	uint32_t *job_ids;
	size_t n;
	char **tasks;		/* as in struct rota_msg_job_ids */
	bool operator_hold;	/* HOLD: an operator hold */
	bool has_nice;		/* NICE: "nice" given */
	int32_t nice;
	bool relative;		/* NICE: add to the job's nice */
	struct rota_msg_kv *set; /* UPDATE: in the order given */
	size_t nset;
};
char *rota_msg_control_encode(const struct rota_msg_control *m, size_t *len);
int rota_msg_control_decode(const char *buf, size_t len,
			    struct rota_msg_control *m, struct rota_error *err);
void rota_msg_control_clear(struct rota_msg_control *m);

/*
 * ---- RESV_CREATE, RESV_LIST_REPLY: advance reservations (issue 6) ----
 * RESV_CREATE: {"set":[["StartTime","now"],["Duration","2h"],
 * ["Nodes","n[1-4]"],["Users","ana,bob"]]}: the operator's key=value
 * words as typed, which the controller parses (its clock says what "now"
 * is); the reply, RESV_CREATE_REPLY, is a name body.  RESV_DELETE is a
 * name body.  RESV_LIST_REPLY: {"now":N,"resvs":[{"name":"maint",
 * "state":"ACTIVE","start":S,"end":E,"nodes":"n[1-2]","cores":16,
 * "core_count":0,"users":["ana"],"accounts":[]}]}, in creation order;
 * "gpus":G and "gpu_count":M only when not 0, "licenses":"matlab:2" only
 * when it holds some (older peers send none of them).
 */
#define ROTA_MSG_RESV_SET_MAX 16

struct rota_msg_resv_create {
	struct rota_msg_kv *set;
	size_t nset;
};
char *rota_msg_resv_create_encode(const struct rota_msg_resv_create *m,
				  size_t *len);
int rota_msg_resv_create_decode(const char *buf, size_t len,
				struct rota_msg_resv_create *m,
				struct rota_error *err);
void rota_msg_resv_create_clear(struct rota_msg_resv_create *m);

struct rota_resv_info {
	char *name;
	char *state;		/* "ACTIVE" or "INACTIVE" (not started) */
	int64_t start;		/* Unix seconds */
	int64_t end;
	char *nodes;		/* hostlist of its nodes */
	uint32_t cores;		/* reserved, over all its nodes */
	uint32_t core_count;	/* CoreCount= asked; 0: whole nodes */
	uint32_t gpus;		/* GPUs reserved, over all its nodes */
	uint32_t gpu_count;	/* GpuCount= asked */
	char *licenses;		/* Licenses= it holds ("matlab:2"); NULL */
	char **users;		/* NULL-terminated, never NULL once decoded */
	char **accounts;	/* empty: any */
};

struct rota_msg_resv_list {
	struct rota_resv_info *resvs;
	size_t n;
	int64_t now;
};
char *rota_msg_resv_list_encode(const struct rota_msg_resv_list *m,
				size_t *len);
int rota_msg_resv_list_decode(const char *buf, size_t len,
			      struct rota_msg_resv_list *m,
			      struct rota_error *err);
void rota_msg_resv_list_clear(struct rota_msg_resv_list *m);

/*
 * ---- TOP_ROWS_REPLY: every job, one wide row each, for rota top ----
 * Body: {"now":N,"rows":[[id,"ST",cores,nodes,submit,start,end,
 * priority_milli,nice,urgency,hold,"queue","user","account","name",
 * "where","array"],...]}: keys and columns in exactly this order; priority in
 * thousandths (the scanner reads whole numbers only), hold 0 none, 1
 * user, 2 operator; "where" the nodes once started, the reason while
 * pending; "array" a job of an array as named ("12_[3-999%16]" its
 * pending rest, "12_7"), "" for any other.  Decoded by the scanner like
 * JOB_ROWS: 100,000 rows must
 * decode in a few tens of milliseconds.
 * Then, only when some job has running steps, ,"steps":[[job_id,step_id,
 * ntasks,nnodes,start,"name","nodes"],...] before the '}': the running
 * steps, job after job (issue 19).  An optional key sent only when set,
 * so no ROTA_PROTO_VERSION bump (proto.h): an older rota top refuses a
 * reply that carries it, and only that one.
 *
 * Deltas (issue 23): to a request that carries "since" (TOP_ROWS below)
 * the rows are followed by ,"change":C (C >= 1: the controller's change
 * number as of the reply; the client sends it back as its next "since"),
 * then, only in a delta, ,"since":S (1 <= S <= C: the rows are only the
 * jobs whose row changed after change S, in id order, the others are as
 * the client has them) and, when some job left the table (purged) after
 * S, ,"gone":[id,...]; then "steps", always all of them.  A reply
 * without "since" is full: every row, the client drops what it had (the
 * first refresh; a controller that no longer knows what changed after
 * S: restarted, or its log of gone jobs overflowed).  Keys in exactly
 * this order, each at most once; a request without "since" (an older
 * rota top) gets none of them, and an older controller's reply, which
 * has no "change", reads as a full one.
 */
struct rota_top_row {
	uint32_t id;
	enum rota_job_state state;
	uint32_t cores;		/* ntasks x cpus_per_task */
	uint32_t nodes;
	int64_t submit_time;
	int64_t start_time;	/* 0: not started */
	int64_t end_time;	/* 0: not ended */
	int64_t priority_milli;	/* the last rating x 1000 */
	int32_t nice;
	uint32_t urgency;	/* 0: unset (16) */
	uint32_t hold;		/* 0 none, 1 user, 2 operator */
	int64_t est_start;	/* pending: backfill's expected start; 0 */
	const char *queue;	/* borrowed from the message's arena */
	const char *user;
	const char *account;
	const char *name;
	const char *where;
	const char *array;	/* "12_7", "12_[3-999%16]"; "" if none */
};

/* A running job step, shown under its job (rota top). */
struct rota_top_step {
	uint32_t job_id;
	uint32_t step_id;
	uint32_t ntasks;
	uint32_t nnodes;
	int64_t start;		/* Unix seconds */
	const char *name;	/* its command; borrowed from the arena */
	const char *nodes;	/* hostlist */
};

struct rota_msg_top_rows {
	struct rota_top_row *rows;
	size_t n;
	int64_t now;
	int64_t change;		/* 0: none given (an older controller) */
	int64_t since;		/* a delta since this change; 0: full */
	uint32_t *gone;		/* a delta: the jobs gone since 'since' */
	size_t ngone;
	struct rota_top_step *steps;
	size_t nsteps;
	char *arena;		/* owns the rows' and steps' strings */
};
/* 'm->arena' is not read: the strings may live anywhere. */
char *rota_msg_top_rows_encode(const struct rota_msg_top_rows *m,
			       size_t *len);
/* The same body written a row at a time (as rota_msg_prio_begin). */
struct rota_msg_top_writer;
struct rota_msg_top_writer *rota_msg_top_begin(int64_t now);
void rota_msg_top_add(struct rota_msg_top_writer *w,
		      const struct rota_top_row *r);
/*
 * The change number and, for a delta ('since' >= 1), the gone jobs,
 * written by rota_msg_top_finish after the rows; 'gone' is borrowed
 * until then.  Not called: a reply as to an older rota top.
 */
void rota_msg_top_delta(struct rota_msg_top_writer *w, int64_t change,
			int64_t since, const uint32_t *gone, size_t ngone);
char *rota_msg_top_finish(struct rota_msg_top_writer *w,
			  const struct rota_top_step *steps, size_t nsteps,
			  size_t *len);
int rota_msg_top_rows_decode(const char *buf, size_t len,
			     struct rota_msg_top_rows *m,
			     struct rota_error *err);
void rota_msg_top_rows_clear(struct rota_msg_top_rows *m);

/*
 * ---- TOP_ROWS: the request ----
 * Body: {} (every row, no "change": what an older rota top sends) or
 * {"since":N}, N the "change" of the last reply the client applied, 0
 * when it has none yet: a full reply with "change", or a delta.
 */
struct rota_msg_top_req {
	bool has_since;
	int64_t since;		/* >= 0 */
};
char *rota_msg_top_req_encode(const struct rota_msg_top_req *r, size_t *len);
/* -EPROTO with 'err' for anything else; '*r' is then empty. */
int rota_msg_top_req_decode(const char *buf, size_t len,
			    struct rota_msg_top_req *r,
			    struct rota_error *err);

/*
 * ---- WHY_REPLY: why a job waits, for rota why (msg_why.c) ----
 * The request is a JOB_LIST request naming the job.  Strings are never
 * NULL once decoded; "" means none.  The client writes the paragraph.
 */
#define ROTA_MSG_WHY_AHEAD_MAX 8
/* A job that stands before the asked one. */
struct rota_why_job {
	uint32_t id;		/* 0: none */
	char *queue;
	int64_t est_start;	/* its backfill reservation; 0: none */
	char *est_nodes;	/* where, hostlist; "" if none */
};
struct rota_msg_why {
	int64_t now;
	/* its GPUs ("gres/gpu:v100:2" per node or task; NULL: none), and
	   those of its type on its queue's nodes: free now, in all */
	char *tres;
	bool tres_per_task;
	uint32_t gpus_free;
	uint32_t gpus_total;
	/* its first generic resource other than GPUs ("nvme:1" per node;
	   NULL: none), and its queue's nodes' of that name: free, in all */
	char *gres;
	uint32_t gres_free;
	uint32_t gres_total;
	uint32_t id;
	enum rota_job_state state;
	char *user;
	char *queue;
	char *reason;		/* as rota show job's Reason= */
	char *sched;		/* the sched plugin: builtin reserves none */
	char *reservation;	/* its advance reservation, if any */
	uint32_t hold;		/* 0: none, 1: its owner's, 2: an operator's */
	bool limited;		/* a limit blocks it: reason says which */
	uint32_t ntasks;
	uint32_t cpus_per_task;
	int64_t time_limit;	/* 0: unlimited */
	int64_t est_start;	/* its own backfill reservation; 0: none */
	char *est_nodes;
	uint32_t nahead;	/* eligible jobs of its queue ahead of it */
	struct rota_why_job first; /* the first of them */
	struct rota_why_job *resv; /* ahead of it with a reservation */
	size_t nresv;		   /* at most ROTA_MSG_WHY_AHEAD_MAX */
	uint32_t resv_total;	   /* all of those, listed or not */
	bool fits_now;		/* it would start at the next pass */
	int64_t fit_limit;	/* the longest limit that starts now; 0 */
	uint32_t fit_tasks;	/* the most tasks that start now; 0 */
	/*
	 * Its dependency as rota show job gives it ("" if none), and the
	 * part it waits for: its type ("afterok", "" if none), its job (0:
	 * singleton) and that job's state (ROTA_JOB_NONE: forgotten).
	 * Optional keys: no ROTA_PROTO_VERSION bump.
	 */
	char *dependency;
	char *dep_type;
	uint32_t dep_job;
	enum rota_job_state dep_state;
	/* an array's job as named ("12_[3-999%16]"; NULL: none) and the
	   tasks its record stands for (1: one); optional keys too */
	char *array;
	uint32_t tasks;
	/*
	 * So many cores of node kept_node are free but kept for the test
	 * queues kept_queues ("t,u": ReservedCores), and the job would fit
	 * with them (0, NULL: not so); optional keys too.
	 */
	uint32_t kept;
	char *kept_node;
	char *kept_queues;
};
char *rota_msg_why_encode(const struct rota_msg_why *m, size_t *len);
int rota_msg_why_decode(const char *buf, size_t len, struct rota_msg_why *m,
			struct rota_error *err);
void rota_msg_why_clear(struct rota_msg_why *m);

/*
 * ---- request ids (msg_rid.c, issue 18) ----
 * A request that changes state may carry {"rid":"<32 hex digits>"}, made
 * by the client at random and kept over its retries: the controller
 * answers a repeat of (its uid, rid) with the first answer.  The key is
 * optional, so no ROTA_PROTO_VERSION bump (see proto.h).
 */
#define ROTA_RID_LEN 32

/* SUBMIT, CANCEL, NODE_ADMIN, HOLD, ...: the types that take a "rid". */
bool rota_msg_type_has_rid(unsigned type);
/* Exactly ROTA_RID_LEN lowercase hex digits. */
bool rota_rid_is_valid(const char *s);
/* A fresh random id (getrandom); -errno if the kernel gives none. */
int rota_rid_make(char out[ROTA_RID_LEN + 1]);
/*
 * The body 'buf' (a JSON object) with "rid" added; caller frees with
 * free().  NULL if 'buf' is not a JSON object.
 */
char *rota_msg_rid_add(const char *buf, size_t len, const char *rid,
		       size_t *out_len);
/*
 * Take "rid" off a request body: 'rid' gets it ("" if there is none) and
 * '*rest' the body without it (caller frees with free()), or NULL when
 * the body had none and is to be used as it is.  -EPROTO with 'err' for
 * a malformed body or id.
 */
int rota_msg_rid_take(const char *buf, size_t len,
		      char rid[ROTA_RID_LEN + 1], char **rest, size_t *rest_len,
		      struct rota_error *err);

/* ---- Job steps (msg_step.c; DESIGN.md "Parallel work inside a job") ---- */
#define ROTA_STEP_TASKS_MAX (1u << 20)

/* STEP_CREATE: `rota run` asks for a step inside its job. */
struct rota_msg_step_create {
	uint32_t job_id;
	uint32_t ntasks;	  /* 0: one per core of the nodes used */
	uint32_t nnodes;	  /* 0: the job's, or fewer if fewer tasks */
	uint32_t cpus_per_task;	  /* 0: 1 */
	uint32_t ntasks_per_node; /* 0: spread evenly */
	bool overlap;		  /* one task per node on all the job's cores
				     there, beside other steps (rota-rsh) */
	char *nodelist;		  /* only these of the job's nodes; or NULL */
	char *name;		  /* the command, for listings; or NULL */
};
char *rota_msg_step_create_encode(const struct rota_msg_step_create *m,
				  size_t *len);
int rota_msg_step_create_decode(const char *buf, size_t len,
				struct rota_msg_step_create *m,
				struct rota_error *err);
void rota_msg_step_create_clear(struct rota_msg_step_create *m);

/* One node of a step, as the controller hands it to `rota run`. */
struct rota_step_node {
	char *name;
	char *addr;		/* where its daemon takes steps */
	uint32_t port;
	uint32_t uid;		/* the uid that daemon runs as */
	uint32_t ntasks;
	char *cred;		/* the sealed rota_step_cred for that node */
};
struct rota_msg_step_create_reply {
	uint32_t job_id;
	uint32_t run;		/* the job's run the step is in; 0: unknown */
	uint32_t step_id;
	uint32_t ntasks;
	struct rota_step_node *nodes;
	size_t nnodes;
};
char *rota_msg_step_reply_encode(const struct rota_msg_step_create_reply *m,
				 size_t *len);
int rota_msg_step_reply_decode(const char *buf, size_t len,
			       struct rota_msg_step_create_reply *m,
			       struct rota_error *err);
void rota_msg_step_reply_clear(struct rota_msg_step_create_reply *m);

/*
 * What a step credential vouches for, sealed by the controller for one
 * node (rota_auth_seal): that job, that run, that step, that owner, these
 * cores.  Ranks are given out in node order: node n has counts[n] tasks.
 */
struct rota_step_cred {
	uint32_t job_id;
	uint32_t run;
	uint32_t step_id;
	uint32_t uid;
	uint32_t gid;
	char *node;		/* the node it is for */
	uint32_t node_id;	/* its place in 'nodes' */
	char **nodes;		/* the step's nodes, NULL-terminated */
	uint32_t *counts;	/* tasks per node, in that order */
	size_t nnodes;
	uint32_t *cores;	/* the node's cores for the step (logical) */
	size_t ncores;
	uint32_t cpus_per_task;
	bool overlap;		/* every task may use all of 'cores' */
	uint64_t mem_mb;	/* the job's memory on the node; 0: none */
	int64_t end_time;	/* when the job's time runs out; 0: never */
	int64_t expires;	/* launch by then (Unix time); 0: munge's TTL */
	uint32_t *gpus;		/* the job's GPUs on the node (its indexes) */
	size_t ngpus;
};
char *rota_step_cred_encode(const struct rota_step_cred *c, size_t *len);
/* Checks the layout too: counts match nodes, node_id in range, cores
 * enough for the node's tasks. */
int rota_step_cred_decode(const char *buf, size_t len,
			  struct rota_step_cred *c, struct rota_error *err);
void rota_step_cred_clear(struct rota_step_cred *c);

/* STEP_LAUNCH: `rota run` to a node daemon. */
struct rota_msg_step_launch {
	char *cred;
	char **argv;		/* NULL-terminated, at least one */
	char **env;		/* NULL-terminated */
	char *cwd;		/* absolute */
	char *mpi;		/* "none", "pmi2", "pmix" */
	bool pty;		/* rank 0 on a pseudo-terminal */
	uint32_t rows;		/* its size; 0: unknown */
	uint32_t cols;
};
char *rota_msg_step_launch_encode(const struct rota_msg_step_launch *m,
				  size_t *len);
int rota_msg_step_launch_decode(const char *buf, size_t len,
				struct rota_msg_step_launch *m,
				struct rota_error *err);
void rota_msg_step_launch_clear(struct rota_msg_step_launch *m);

/*
 * STEP_COMPLETE: `rota run` tells the controller how its step ended;
 * step_id ROTA_STEP_NONE with end_job: `rota alloc` ends its job.
 */
#define ROTA_STEP_NONE UINT32_MAX
struct rota_msg_step_complete {
	uint32_t job_id;
	uint32_t step_id;
	int exit_code;		/* the largest of the tasks' (128+signal) */
	int32_t failed_rank;	/* the first task that failed; -1: none */
	uint64_t cpu_usec;	/* of all its tasks, as their nodes said */
	char *text;		/* why it failed, one line; or NULL */
	uint32_t run;		/* the run the step was in (its reply's);
				   0: unknown, taken as the current one */
	bool end_job;		/* an interactive job: end it with its step
				   (its holder script exits 0, or 1 when
				   the step failed) */
};
char *rota_msg_step_complete_encode(const struct rota_msg_step_complete *m,
				    size_t *len);
int rota_msg_step_complete_decode(const char *buf, size_t len,
				  struct rota_msg_step_complete *m,
				  struct rota_error *err);
void rota_msg_step_complete_clear(struct rota_msg_step_complete *m);

/*
 * The small step frames, {"key":int,...} with exactly these keys:
 * STEP_SIGNAL {signal}, STEP_TASK_END {rank, status}, STEP_WINSIZE
 * {rows, cols}, STEP_DONE {cpu_usec, mem_peak}.  Each value must lie in
 * [0, max[i]].
 */
char *rota_msg_ints_encode(const char *const *keys, const int64_t *v,
			   size_t n, size_t *len);
int rota_msg_ints_decode(const char *buf, size_t len,
			 const char *const *keys, const int64_t *max,
			 int64_t *v, size_t n, struct rota_error *err);

/* STEP_LIST_REPLY: steps, for rota queue --steps and rota show job. */
struct rota_step_info {
	uint32_t job_id;
	uint32_t step_id;
	char *name;
	char *user;
	uint32_t ntasks;
	char *nodelist;
	enum rota_job_state state; /* RUNNING, COMPLETED, FAILED, CANCELLED */
	int exit_code;
	int32_t failed_rank;
	uint64_t cpu_usec;
	int64_t start;
	int64_t end;		/* 0: running */
};
struct rota_msg_step_list {
	struct rota_step_info *steps;
	size_t n;
	int64_t now;
};
char *rota_msg_step_list_encode(const struct rota_step_info *s, size_t n,
				int64_t now, size_t *len);
int rota_msg_step_list_decode(const char *buf, size_t len,
			      struct rota_msg_step_list *m,
			      struct rota_error *err);
void rota_msg_step_list_clear(struct rota_msg_step_list *m);

/* STEP_IO's raw body: "<rank> <fd>\n" then the bytes. */
char *rota_step_io_encode(uint32_t rank, unsigned fd, const void *data,
			  size_t n, size_t *len);
/* '*data' points into 'buf'. */
int rota_step_io_decode(const char *buf, size_t len, uint32_t *rank,
			unsigned *fd, const char **data, size_t *n,
			struct rota_error *err);

#endif
