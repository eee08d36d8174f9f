/* SPDX-License-Identifier: MIT */
#ifndef ROTA_NODED_MEMLIMIT_H
#define ROTA_NODED_MEMLIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"

/*
 * A job's memory as a hard limit (ConstrainRAMSpace=yes, as Slurm's
 * task/cgroup does): each job that asked for memory runs in a memory
 * cgroup of its own, whose limit (memory, and memory plus swap where
 * swap is accounted) is its share on the node; past it the kernel's OOM
 * killer ends it, and the job ends FAILED with the reason "OutOfMemory".  The cgroup v1 memory controller, below the daemon's
 * own memory cgroup, so that jobs stay inside whatever limits the node
 * daemon itself was given.
 */

/*
 * Where the daemon's jobs' cgroups go ("<mount><own cgroup>/rota"), made if
 * missing; NULL with 'err' when there is no v1 memory controller, or it
 * cannot be written.  Caller frees.
 */
char *memlimit_base(struct rota_error *err);

/*
 * The job's cgroup, "<base>/job<ID>.<RUN>.<PID>" (PID: the supervisor's,
 * so that daemons sharing a host never collide), with its limit set; one
 * of that name left behind is emptied and made anew.
 * Returns its path (caller frees) or NULL with 'err'.
 */
char *memlimit_create(const char *base, uint32_t job_id, uint32_t run,
		      int pid, uint64_t mem_mb, struct rota_error *err);

/* Did the OOM killer kill anything in it? */
bool memlimit_oom_killed(const char *dir);

/* Kill what is left in it, and remove it. */
void memlimit_remove(const char *dir);

#endif
