/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_STEP_H
#define ROTA_CTLD_STEP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "common/msg.h"

/*
 * Job steps, the controller's side (DESIGN.md "Parallel work inside a
 * job").  A step is laid out inside its job's allocation, on cores no other
 * step holds (an overlapping step, rota-rsh's, takes every core of its
 * node and holds none), and gets a credential per node sealed for that
 * node's daemon.  `rota run` reports the step's end; a job's end ends its
 * steps on every node of the job (STEPS_KILL), whoever reported what.
 * Steps live in memory only: after a controller restart the running ones
 * go on (their nodes know them) and are no longer listed.
 */
struct ctld;

/* Ended steps a job keeps listed (and in its record): the latest. */
#define STEP_KEEP 256

/* Seconds a step's credentials may wait for their launch. */
#define STEP_CRED_TTL 60

/* One step, for listings. */
struct ctld_step {
	uint32_t job_id;
	uint32_t id;
	uint32_t ntasks;
	uint32_t cpus_per_task;
	uint32_t nnodes;
	char *nodelist;
	char *name;
	enum rota_job_state state; /* RUNNING, COMPLETED, FAILED, CANCELLED */
	int exit_code;
	int32_t failed_rank;
	uint64_t cpu_usec;
	int64_t start;
	int64_t end;
	char *text;
	bool overlap;
	/* which of the job's alloc entries, and the cores held on each */
	uint32_t *alloc_index;
	uint32_t *count;	/* tasks per node */
	uint32_t **cores;
	uint32_t *ncores;
	struct ctld_step *next;
};

/*
 * Lay out a step for 'uid' (the job's owner, or root) and seal its
 * credentials.  -ENOENT (no such running job), -EPERM, -EINVAL (can never
 * fit the job), -EBUSY (other steps hold the cores it needs now), with the
 * user's line in 'err'.
 */
int steps_create(struct ctld *ctld, uid_t uid,
		 const struct rota_msg_step_create *req,
		 struct rota_msg_step_create_reply *reply,
		 struct rota_error *err);

/* `rota run` reports its step's end: the cores are free again. */
int steps_complete(struct ctld *ctld, uid_t uid,
		   const struct rota_msg_step_complete *m,
		   struct rota_error *err);

/*
 * Jobs whose run is over: tell every node of each to end its steps, and
 * forget the steps of jobs the core has forgotten.  Cheap when no job has
 * steps; called after every event.
 */
void steps_sweep(struct ctld *ctld);

/* The steps of job 'id', oldest first (NULL: none). */
const struct ctld_step *steps_of_job(const struct ctld *ctld, uint32_t id);
/* Those of its run 'run' only (an earlier run's are not its record's). */
const struct ctld_step *steps_of_run(const struct ctld *ctld, uint32_t id,
				     uint32_t run);

/*
 * Calls 'fn' for each running step, job after job, oldest first (rota
 * top).  Walks the jobs that have steps, never the job table: its cost
 * is the steps', whatever the queue's length.  'fn' must not create or
 * end steps; the step is borrowed until the next event.
 */
void steps_foreach_running(const struct ctld *ctld,
			   void (*fn)(const struct ctld_step *s, void *arg),
			   void *arg);

/*
 * The steps of job 'job_id' (0: of every job) as listings show them; the
 * strings are borrowed until the next event.  Caller frees '*out'.
 */
size_t steps_list(const struct ctld *ctld, uint32_t job_id,
		  struct rota_step_info **out);

void steps_destroy(struct ctld *ctld);

/* rpc_step.c */
struct peer;
struct rota_frame;
void rpc_step_create(struct peer *p, const struct rota_frame *f);
void rpc_step_complete(struct peer *p, const struct rota_frame *f);
void rpc_step_list(struct peer *p, const struct rota_frame *f);

#endif
