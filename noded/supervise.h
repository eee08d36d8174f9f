/* SPDX-License-Identifier: MIT */
#ifndef ROTA_NODED_SUPERVISE_H
#define ROTA_NODED_SUPERVISE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "noded/cgroup.h"
#include "noded/launch.h"

/*
 * A job's supervisor: a small process of its own, so that jobs outlive the
 * node daemon (a restart, an upgrade, a crash).  It starts the job
 * (launch.c), enforces its time limit (SIGTERM to the process group,
 * KillWait, SIGKILL), takes cancels and signals from the daemon by
 * sigqueue, reaps the job, kills what the job left in its process group
 * and its cgroup (cgroup.h), and writes how it ended.  Everything the daemon needs to find it again
 * is in SpoolDir:
 *   job<ID>.<RUN>.sup  "<supervisor pid> <start time> <job pid>
 *                      <supervisor's kernel start time>" while it runs
 *                      (the job's pid is also its process group);
 *   job<ID>.<RUN>.end  the JOB_END body once it has ended (renamed into
 *                      place, so whole or absent), until acknowledged.
 * RUN tells a requeued job's runs apart: a stray earlier run and the
 * current one may share a node for a moment.
 */
#define SUPERVISE_SIG_SIGNAL SIGUSR1 /* sival_int: the signal to send */
#define SUPERVISE_SIG_CANCEL SIGUSR2

struct supervise_spec {
	struct launch_spec launch;
	uint32_t run;
	int64_t time_limit;	/* seconds; 0: none */
	int64_t kill_wait;	/* seconds between SIGTERM and SIGKILL */
	uint64_t mem_mb;	/* its memory here; 0: not asked */
	char *const *deny_devices; /* cgroup_limits' 'deny'; NULL: none */
	const struct cgroup_env *cgroups; /* NULL: no cgroups */
	const char *lease_path;	/* the node's lease file (lease.h) */
};

/*
 * Start the supervisor and, through it, the job.  Returns once the job has
 * been exec'd or has failed to start: -errno with 'err' from launch_start
 * (no process left behind, no files), or 0 with '*sup' the supervisor.
 * The supervisor is the caller's child (reap it on SIGCHLD) but in a
 * session of its own, and outlives the caller.
 */
int supervise_start(const struct supervise_spec *spec, pid_t *sup,
		    struct rota_error *err);

/*
 * The kernel's start time of process 'pid' (clock ticks since boot), or 0:
 * with the pid, it names a process for good, whatever pids are reused.
 */
uint64_t supervise_starttime(pid_t pid);
/* Is the process 'pid' that started at 'starttime' still there? */
bool supervise_alive(pid_t pid, uint64_t starttime);

#endif
