/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_CORE_PROFILE_H
#define ROTA_CTLD_CORE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Free cores, memory, GPUs and generic resources of every node, and
 * licenses, over time, for one backfill pass (profile.c).  Times are Unix seconds; a duration of 0
 * means unlimited.
 */
struct core;
struct profile;

/*
 * From the nodes' state and the running jobs' limits at 'now', in 'p'
 * (the last pass's, its memory reused) or, if NULL, a new one.
 */
struct profile *profile_renew(struct profile *p, const struct core *core,
			      int64_t now);
/*
 * The running jobs' ends by node, kept as jobs start and stop: a job
 * entering or leaving the running list (jobstate.c).
 */
struct core_job;
void profile_base_add(struct core *core, const struct core_job *job);
void profile_base_remove(struct core *core, const struct core_job *job);
void profile_base_destroy(struct core *core);
/* Does a running job run past its limit (its end is 'any moment')? */
bool profile_overdue(const struct profile *p);
void profile_destroy(struct profile *p);
int64_t profile_now(const struct profile *p);

/*
 * 'test' in what follows: the job may use the cores the node keeps for
 * test queues (ReservedCores), as a test queue's job does; an ordinary
 * job's figures leave all of them out (profile.c).
 */
/* The least free cores, memory and GPUs (NULL: not asked) on 'node'
   over [t, t + d). */
void profile_min_free(const struct profile *p, uint32_t node, int64_t t,
		      int64_t d, bool test, int32_t *cores, int64_t *mem,
		      int32_t *gpus);
/*
 * A job of 'cores' that does not fit on 'node' now cannot start there
 * before this time: the first time the node gains cores and then has
 * at least the power of two below 'cores' free.  INT64_MAX: never.
 */
int64_t profile_gain_bound(struct profile *p, uint32_t node, uint32_t cores);
/* The next time after 'after' when 'node' gains cores; INT64_MAX: none. */
int64_t profile_next_change(const struct profile *p, uint32_t node,
			    int64_t after);
/*
 * The earliest time, from now and not after 'until', when 'node' has
 * 'cores', 'mem' and 'gpus' free over a whole span of 'd' (0: to the end); one
 * walk of the node's steps.  INT64_MAX when there is none.
 */
int64_t profile_earliest(const struct profile *p, uint32_t node, bool test,
			 int32_t cores, int64_t mem, int32_t gpus, int64_t d,
			 int64_t until);
/*
 * Licenses (Licenses=), cluster-wide: does 'job' find all its licenses
 * free over [t, t + d); the earliest time from 'from' it does (INT64_MAX:
 * never); it holds them over [t, t + d), started or reserved.
 */
bool profile_lics_fit(const struct profile *p, const struct core_job *job,
		      int64_t t, int64_t d);
int64_t profile_lics_earliest(const struct profile *p,
			      const struct core_job *job, int64_t from,
			      int64_t d);
void profile_lics_take(struct profile *p, const struct core_job *job,
		       int64_t t, int64_t d);
/*
 * Generic resources other than GPUs (GresTypes), per node and name: the
 * least free of name 'idx' on 'node' over [t, t + d); the job's on
 * 'node' held over [t, t + d).
 */
int32_t profile_gres_min(const struct profile *p, uint32_t node, uint32_t idx,
			 int64_t t, int64_t d);
void profile_gres_take(struct profile *p, uint32_t node,
		       const struct core_job *job, int64_t t, int64_t d);
/* A job started or reserved on 'node' over [t, t + d). */
void profile_take(struct profile *p, uint32_t node, int64_t t, int64_t d,
		  bool test, uint32_t cores, uint64_t mem, uint32_t gpus);

#endif
