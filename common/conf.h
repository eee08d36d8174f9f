/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_CONF_H
#define ROTA_COMMON_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/gres.h"

/*
 * rota.conf, parsed once into an immutable object (STYLE 11).
 *
 * The file is a list of lines.  '#' starts a comment.  A line is either
 *   Key=Value                       one global setting
 *   Include FILE                    (relative to the including file's folder)
 *   NodeName=EXPR Key=Value ...     one or more nodes (hostlist expression)
 *   QueueName=NAME Key=Value ...    one queue
 *   AccountName=NAME Key=Value ...  one account of the fairshare tree
 *   UserName=NAME Account=A ...     a user's place in one account
 *   QOSName=NAME Key=Value ...      a quality of service
 *   DepartmentName=NAME Users=a,b   a Grid Engine department
 *   Fairshare=NAME Key=Value ...    a plugin and its settings (also
 *                                   Priority, Limits, Sched, JobComp)
 * Values may be double-quoted to hold spaces.  Every global key is declared
 * in one table in conf.c ({name, type, offset, min, max, default}); unknown,
 * duplicate, malformed or out-of-range keys are errors naming file, line and
 * key: "rota.conf:42: KillWait: '-3s' is below 0".
 */

/* The most cores a node line may give (a whole machine as one node in
   rota sim --flat: 16.7 million) */
#define ROTA_NODE_CPUS_MAX (1u << 24)

struct rota_conf_node {
	char *name;
	char *addr;		/* address the node daemon binds; NULL: name */
	char **features;	/* site features, NULL-terminated, never NULL */
	unsigned cpus;		/* 0: as the node reports; at most
				   ROTA_NODE_CPUS_MAX */
	uint64_t memory_mb;	/* 0: as the node reports */
	struct rota_gres *gres;	/* Gres=gpu:v100:16,nvme:2; NULL: none
				   declared (GPUs as the node finds them) */
	size_t ngres;
	const char *file;	/* where it was declared (for messages) */
	unsigned line;
};

struct rota_conf_queue {
	char *name;
	char **nodes;		/* expanded node names, NULL-terminated */
	size_t nnodes;
	bool is_default;
	int64_t default_time;	/* seconds; ROTA_DURATION_UNLIMITED if unset */
	int64_t max_time;	/* seconds; ROTA_DURATION_UNLIMITED if unset */
	unsigned priority_tier; /* higher tiers are scheduled first */
	int priority;		/* Priority=: the priority plugins' queue
				   factor (Slurm's PriorityJobFactor, PBS's
				   queue priority; may be negative) */
	bool charge;		/* Charge: jobs here count as usage */
	unsigned reserved_cores; /* ReservedCores: a test queue's cores on
				   every node it shares with other queues */
	char **allow_users;	/* AllowUsers, NULL-terminated; NULL: all */
	char **allow_accounts;	/* AllowAccounts; NULL: all */
	const char *file;
	unsigned line;
};

/* An amount of each resource a running limit counts; -1 where unset. */
struct rota_conf_tres {
	int64_t cpu;		/* cores */
	int64_t mem;		/* MB */
	int64_t node;
	int64_t gpu;		/* gres/gpu */
};

/*
 * Limits a UserName, AccountName or QOSName line sets; -1 where unset.
 * Counts are jobs, cpus cores, mem MB, times seconds.
 */
struct rota_conf_limits {
	int64_t max_jobs;	/* MaxJobs: running at once */
	int64_t max_submit;	/* MaxSubmitJobs: pending and running */
	int64_t max_wall;	/* MaxWall: a job's time limit */
	int64_t max_cpus;	/* MaxTRES=cpu=N, per job */
	int64_t max_mem;	/* MaxTRES=mem=SIZE, per job */
	int64_t max_nodes;	/* MaxTRES=node=N, per job */
	int64_t cpu_run_mins;	/* GrpTRESRunMins=cpu=N */
	int64_t max_idle;	/* MaxIdle (Maui's MAXIJOB) */
	int64_t max_ps;		/* MaxPS, processor-seconds (soft) */
	int64_t max_ps_hard;	/* MaxPSHard */
	int64_t allocation;	/* Allocation, core-hours a month */
	int64_t max_gpus;	/* MaxTRES=gres/gpu=N, per job */
	/* what the holder's running jobs may hold at once */
	struct rota_conf_tres grp;	/* GrpTRES= */
	struct rota_conf_tres per_user;	/* MaxTRESPerUser= (QOS lines) */
	struct rota_conf_tres per_account; /* MaxTRESPerAccount= (QOS) */
};

/* A quality of service; "normal" exists without a line. */
struct rota_conf_qos {
	char *name;
	unsigned priority;	/* Priority=, for the priority plugins */
	int64_t target_wait;	/* TargetWait= (Maui's QTTarget), 0: none */
	struct rota_conf_limits limits;
	const char *file;
	unsigned line;
};

/* An account of the tree; the root account "root" is implicit. */
struct rota_conf_account {
	char *name;
	char *parent;		/* "root" unless given */
	unsigned shares;
	unsigned priority;	/* Priority= (Slurm's association priority) */
	unsigned fshares;	/* FShares=: Grid Engine's project fshare */
	unsigned otickets;	/* OTickets=: the project's oticket */
	struct rota_conf_limits limits;
	const char *file;
	unsigned line;
};

/* A user's association with one account (one line each). */
struct rota_conf_user {
	char *name;
	char *account;
	unsigned shares;
	unsigned priority;	/* Priority= (Slurm's association priority) */
	unsigned fshares;	/* FShares=: Grid Engine's user fshare */
	unsigned otickets;	/* OTickets=: the user's oticket */
	bool is_default;	/* the user's account when none is asked */
	struct rota_conf_limits limits;
	const char *file;
	unsigned line;
};

/*
 * A Grid Engine department (a userset of type DEPT): its users' jobs
 * share its functional shares and override tickets.  A user in none is
 * in "defaultdepartment", which exists whether or not a line declares it.
 */
struct rota_conf_department {
	char *name;
	char **users;		/* Users=, NULL-terminated, never NULL */
	unsigned fshares;	/* FShares=: the department's fshare */
	unsigned otickets;	/* OTickets=: its oticket */
	const char *file;
	unsigned line;
};

#define ROTA_DEFAULT_DEPARTMENT "defaultdepartment"

/* One Key=Value of a plugin's lines, kept as text for its init(). */
struct rota_conf_setting {
	char *key;
	char *value;
	const char *file;
	unsigned line;
};

/* "Fairshare=ratio MaxFairshare=1e6": a plugin of a kind, its settings. */
struct rota_conf_section {
	char *kind;		/* "Fairshare", "Priority", ... as spelt here */
	char *name;		/* the plugin */
	struct rota_conf_setting *settings;
	size_t nsettings;
	const char *file;	/* its first line */
	unsigned line;
};

/* CgroupVersion: which cgroup hierarchy a node daemon puts jobs in. */
enum rota_cgroup_version {
	ROTA_CGROUP_AUTO = 0,	/* v2 on a v2-only host, else v1 */
	ROTA_CGROUP_V1,
	ROTA_CGROUP_V2,		/* the unified hierarchy, even on a hybrid host */
};

/*
 * UsageCharge: what a running job costs its association.  Allocated:
 * its cores (plus UsageMemWeight per GB asked) times wall time; measured:
 * what its cgroup says it used, weighed by UsageWeights (Grid Engine's
 * usage_weight_list).
 */
enum rota_usage_charge {
	ROTA_CHARGE_ALLOCATED = 0,
	ROTA_CHARGE_MEASURED,
};

/* UsageWeights="cpu=1,mem=0,io=0": as given; their sum is above 0. */
struct rota_usage_weights {
	double cpu;	/* per CPU second */
	double mem;	/* per GB x CPU second (memory integral) */
	double io;	/* per GB read or written */
};

enum rota_usage_decay {
	ROTA_DECAY_EXPONENTIAL = 0, /* continuously, by UsageHalfLife */
	ROTA_DECAY_HALVING,	    /* cut in half every UsageHalfLife */
};

/*
 * The part of NodeTimeout a node's lease leaves unused (see NodeLease in
 * docs/config.md): 1 s for a supervisor to notice, 1 s to kill, and 2% of
 * NodeTimeout for the two hosts' clocks to run at different rates.
 */
static inline int64_t rota_conf_lease_margin(int64_t node_timeout)
{
	return 2 + (node_timeout + 49) / 50; /* rounded up */
}

/*
 * TRESBillingWeights (conf_billing.c): what a second of each allocated
 * resource costs; unset, a job costs its cores (plus UsageMemWeight).
 */
#define ROTA_BILLING_TYPES_MAX 8
struct rota_billing {
	bool set;
	double cpu;		/* per core */
	double mem_gb;		/* per GB */
	double gpu;		/* per GPU of a type not listed below */
	struct {
		char type[32];
		double weight;
	} typed[ROTA_BILLING_TYPES_MAX];
	size_t ntyped;
};

struct rota_conf {
	char *path;		/* the top file as given */
	char *cluster_name;	/* ClusterName, default "rota" */
	char *ctld_addr;	/* CtldAddr, default "127.0.0.1" */
	char *ctld_user;	/* CtldUser: the controller's user, "root" */
	int64_t client_retry;	/* ClientRetry: clients retry this long, 60s */
	unsigned ctld_port;	/* CtldPort, default 6817, 0 = any (tests) */
	unsigned noded_port;	/* NodedPort, default 0 (any) */
	char *state_dir;	/* StateDir, default /var/spool/rota/ctld */
	char *spool_dir;	/* SpoolDir, default /var/spool/rota/noded */
	char *log_file;		/* LogFile, default NULL (stderr) */
	char *log_level;	/* LogLevel, default "info" */
	int64_t heartbeat_interval; /* HeartbeatInterval, default 30s */
	int64_t node_timeout;	/* NodeTimeout, default 300s */
	int64_t kill_wait;	/* KillWait, default 30s */
	int64_t node_lease;	/* NodeLease (seconds), resolved: 0 is off */
	int64_t min_job_age;	/* MinJobAge, default 300s */
	int64_t sched_interval; /* SchedulerInterval, default 60s */
	unsigned sched_depth;	/* SchedulerDepth: jobs one main pass sees */
	unsigned max_array_size; /* MaxArraySize: task ids below it */
	int64_t sched_max_time; /* SchedulerMaxTime (seconds; 0: no bound) */
	unsigned sched_queue_depth; /* SchedulerQueueDepth: per queue; 0 none */
	bool sched_hold_nodes;	/* SchedulerHoldNodes: a job that does not
				   fit keeps its queue's nodes from the
				   pass's later jobs (Slurm's main loop) */
	unsigned sched_max_rpc;	/* SchedulerMaxRPC: defer a pass; 0 off */
	uint64_t largemem_mb;	/* LargeMemory, default 256G */
	char **gres_types;	/* GresTypes=nvme,fpga: generic resources
				   besides "gpu" (always known); NULL-term. */
	uint64_t max_frame;	/* MaxMessageSize (bytes), default 16M */
	unsigned max_connections; /* MaxConnections: client connections */
	unsigned max_connections_per_addr; /* MaxConnectionsPerAddr */
	int64_t auth_timeout;	/* AuthTimeout: seconds to the first credential */
	char **operators;	/* Operators=root,ana: user names, NULL-term. */
	char **deadline_users;	/* DeadlineUsers: may give a job an
				   initiation deadline (--dl); NULL-term. */
	char *plugin_dir;	/* PluginDir, default the install path */
	int64_t usage_half_life; /* UsageHalfLife, default 7d */
	enum rota_usage_decay usage_decay; /* UsageDecay */
	double usage_mem_weight; /* UsageMemWeight: core-s per GB-s, 0 */
	struct rota_billing billing; /* TRESBillingWeights */
	struct rota_gres *licenses; /* Licenses=matlab:10: cluster-wide
				   counts (no type); NULL: none */
	size_t nlicenses;
	enum rota_usage_charge usage_charge; /* UsageCharge */
	struct rota_usage_weights usage_weights; /* UsageWeights */
	int64_t priority_calc_period; /* PriorityCalcPeriod, default 5m */
	bool enforce_accounts;	/* EnforceAccounts: unlisted users refused */
	bool constrain_ram;	/* ConstrainRAMSpace: --mem is a hard limit */
	unsigned max_tasks_per_job; /* MaxTasksPerJob: pids.max; 0: none */
	enum rota_cgroup_version cgroup_version; /* CgroupVersion */
	struct rota_conf_node *nodes;
	size_t nnodes;
	struct rota_conf_queue *queues;
	size_t nqueues;
	struct rota_conf_account *accounts; /* in file order */
	size_t naccounts;
	struct rota_conf_user *users;	    /* in file order */
	size_t nusers;
	struct rota_conf_section *sections; /* in file order */
	size_t nsections;
	struct rota_conf_qos *qos;	    /* in file order */
	size_t nqos;
	struct rota_conf_department *departments; /* in file order */
	size_t ndepartments;
};

/*
 * Read and validate 'path' and what it includes; caller frees with
 * rota_conf_destroy().  Returns 0, -ENOENT (file missing), -EINVAL (bad
 * content) or -ELOOP (Include nested past 8 levels or a cycle); 'err' holds
 * "file:line: Key: reason".  '*out' is NULL on failure.
 */
int rota_conf_load(const char *path, struct rota_conf **out,
		   struct rota_error *err);

/*
 * The same from a buffer: 'name' is used in messages and as the base of
 * relative Includes (its folder).  For tests and fuzzing.
 */
int rota_conf_load_buffer(const char *name, const char *text, size_t len,
			  struct rota_conf **out, struct rota_error *err);

void rota_conf_destroy(struct rota_conf *conf);

/*
 * The file to read when none is named: $ROTA_CONF, else the installed
 * "$sysconfdir/rota/rota.conf".  Borrowed (environment or static).
 */
const char *rota_conf_default_path(void);

/* Lookups; borrowed pointers valid until the conf is destroyed, or NULL. */
const struct rota_conf_node *rota_conf_node_find(const struct rota_conf *conf,
						 const char *name);
const struct rota_conf_queue *
rota_conf_queue_find(const struct rota_conf *conf, const char *name);
/* The queue marked Default=yes, else the first one, else NULL. */
const struct rota_conf_queue *
rota_conf_default_queue(const struct rota_conf *conf);
/* The section of 'kind' ("Fairshare", ignoring case), or NULL. */
const struct rota_conf_section *
rota_conf_section_find(const struct rota_conf *conf, const char *kind);
/* The QOS 'name' if a line declares it, or NULL. */
const struct rota_conf_qos *rota_conf_qos_find(const struct rota_conf *conf,
					       const char *name);
/* The account 'name' ("root" is implicit: NULL too), or NULL. */
const struct rota_conf_account *
rota_conf_account_find(const struct rota_conf *conf, const char *name);
/* The department 'user' is in: its line, or NULL (defaultdepartment). */
const struct rota_conf_department *
rota_conf_department_of(const struct rota_conf *conf, const char *user);
/* Is 'user' named in Operators? (root always is) */
bool rota_conf_is_operator(const struct rota_conf *conf, const char *user);

#endif
