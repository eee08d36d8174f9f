/* SPDX-License-Identifier: MIT */
#ifndef ROTA_NODED_CGROUP_H
#define ROTA_NODED_CGROUP_H

#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/error.h"

/*
 * Every job in a cgroup of its own (DESIGN.md "State and failure"), so
 * that its end ends all of it, whatever it did with setsid, double forks
 * or daemons.  The cgroup is below the node daemon's own ("<own>/rota/
 * job<ID>.<RUN>.<PID>", PID the supervisor's so that daemons sharing a host
 * never collide), on cgroup v1 (one per controller hierarchy) or v2 (one),
 * with, where the controller is there:
 *   memory   the job's memory as a limit (ConstrainRAMSpace; memory plus
 *            swap), and its peak;
 *   pids     MaxTasksPerJob as a limit on its tasks (threads count);
 *   cpuset   its cores, those launch.c binds it to;
 *   cpuacct  its CPU time (v2: cpu.stat, in every cgroup);
 *   freezer  v1: freeze, SIGKILL all, thaw: nothing can fork meanwhile
 *            (v2: cgroup.kill does that in the kernel).
 * Without cgroups (not root) jobs run as before: their end kills their
 * process group only.
 */

enum cgroup_ctl {
	CGROUP_MEMORY,
	CGROUP_PIDS,
	CGROUP_CPUSET,
	CGROUP_CPUACCT,
	CGROUP_FREEZER,
	CGROUP_DEVICES,
	CGROUP_NCTL,
};

/* The daemon's cgroup setup, made once at start; read-only afterwards. */
struct cgroup_env {
	int version;		 /* 1 or 2 */
	bool has[CGROUP_NCTL];	 /* controllers jobs get */
	char *base[CGROUP_NCTL]; /* v1: each controller's "<own>/rota";
				    v2: base[0] only, the one "<own>/rota" */
	char *mems;		 /* v1 cpuset.mems for jobs' cpusets */
	bool kill_file;		 /* v2: cgroup.kill is there (Linux 5.14) */
	bool constrain_ram;	 /* memory limits on */
	unsigned max_tasks;	 /* MaxTasksPerJob; 0: no limit */
};

/*
 * Find the hierarchy (CgroupVersion: auto, v1 or v2) and the controllers
 * the daemon may use, make the base cgroups, and say in '*summary' (one
 * line for the log, caller frees) what is on and what is off and why.
 * Returns the setup (free with cgroup_env_destroy()), or NULL when jobs
 * get no cgroup at all (not root, no hierarchy, a base cannot be made).
 */
struct cgroup_env *cgroup_env_create(const struct rota_conf *conf,
				     char **summary);
void cgroup_env_destroy(struct cgroup_env *env);

/* What a job's cgroup holds it to. */
struct cgroup_limits {
	uint64_t mem_mb;  /* 0: no memory limit */
	const char *cpus; /* host CPU list ("0-1,4"); NULL: the base's */
	char *const *deny; /* v1 devices.deny rules ("c 195:3 rwm"): the
			      node's GPUs that are not the job's; NULL */
};

/* What a job used, read from its cgroup at its end; 0: not known. */
struct cgroup_usage {
	uint64_t cpu_usec; /* user plus system CPU time */
	uint64_t mem_peak; /* bytes */
	bool oom_killed;   /* the OOM killer killed something in it */
	unsigned left;	   /* processes it still held when killed */
};

struct cgroup_job;

/*
 * Make the job's cgroup(s) "job<ID>.<RUN>.<PID>" with its limits; one of
 * that name left behind (a supervisor killed with -9) is emptied and made
 * anew.  Returns 0 with '*out' (end with cgroup_job_end()) or -errno with
 * 'err'; nothing is left then.
 */
int cgroup_job_create(const struct cgroup_env *env, uint32_t job_id,
		      uint32_t run, int pid, const struct cgroup_limits *lim,
		      struct cgroup_job **out, struct rota_error *err);

/*
 * The cgroup.procs files the job's first process writes "0" to, before
 * it drops privileges (launch.c); NULL-terminated, borrowed until
 * cgroup_job_end().
 */
const char *const *cgroup_job_procs(const struct cgroup_job *cg);

/*
 * The job is over: kill everything still in its cgroup (v1: frozen while
 * killed; v2: cgroup.kill) and wait until it is empty, read what it used
 * into '*usage' (may be NULL), remove it and free 'cg'.  Blocks (up to a
 * few seconds): supervisors only.  'cg' may be NULL ('*usage' zeroed).
 */
void cgroup_job_end(struct cgroup_job *cg, struct cgroup_usage *usage);

/*
 * Kill everything in the job's cgroup now, as cgroup_job_end() does, but
 * keep it ('cg' may be NULL: nothing to do).  Blocks as that does.
 */
void cgroup_job_kill(struct cgroup_job *cg);

/*
 * What a running job's cgroup has used so far (UsageCharge=measured):
 * CPU time, memory now (v1 memory.usage_in_bytes, v2 memory.current) and
 * bytes read and written (v2 io.stat; v1: 0, jobs get no blkio cgroup).
 */
struct cgroup_sample {
	uint64_t cpu_usec;
	uint64_t mem_bytes;
	uint64_t io_bytes;
};

/*
 * Read the cgroup "job<ID>.<RUN>.<PID>" of a running job into '*s' (what
 * cannot be read is 0).  Returns 0, or -ENOENT when it has no CPU time
 * to read (no such cgroup, or no CPU accounting).  Does not block.
 */
int cgroup_job_sample(const struct cgroup_env *env, uint32_t job_id,
		      uint32_t run, int pid, struct cgroup_sample *s);

/*
 * A supervisor died without ending its job: end what is left in the
 * job's cgroup "job<ID>.<RUN>.<PID>" as cgroup_job_end() does, if it is
 * there.  Returns how many processes it killed.  Blocks as that does.
 */
unsigned cgroup_job_reap(const struct cgroup_env *env, uint32_t job_id,
			 uint32_t run, int pid);

#endif
