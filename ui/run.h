/* SPDX-License-Identifier: MIT */
#ifndef ROTA_UI_RUN_H
#define ROTA_UI_RUN_H

#include <stdbool.h>
#include <stdint.h>

/*
 * `rota run`: a job step inside a job (run_step.c), and the interactive
 * job around it when there is none (cmd_run.c, cmd_alloc.c).
 */
struct run_opts {
	uint32_t ntasks;	/* -n; 0: one per core of the nodes used */
	uint32_t nnodes;	/* -N; 0: the job's */
	uint32_t cpus_per_task;	/* -c; 0: 1 */
	uint32_t ntasks_per_node;
	bool label;		/* "rank: " before every line */
	bool immediate;		/* fail at once if the step must wait */
	bool pty;		/* rank 0 on a terminal (rota run --pty) */
	bool overlap;		/* rota-rsh: all the job's cores, shared */
	bool quiet;		/* no "waiting" lines */
	const char *mpi;	/* "none", "pmi2", "pmix" */
	const char *nodelist;	/* only these of the job's nodes */
	char **argv;		/* the command */
};

/* What became of a step. */
struct run_result {
	int status;		/* rota run's exit status */
	int32_t failed_rank;	/* the first task that failed; -1 none */
	uint64_t cpu_usec;
};

/*
 * Run a step of job 'job_id' and wait for it; 'end_job': end the job with
 * it (an interactive job).  Prints its own errors ("rota run: ...").
 * Returns the exit status: the largest of the tasks' (128+signal for a
 * signal), 1 when the step could not start.
 */
int run_step(const struct run_opts *o, uint32_t job_id, bool end_job);

#endif
