/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_JOBREC_H
#define ROTA_COMMON_JOBREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/*
 * Job completion records as the jobcomp plugins write them (one JSON
 * object per line; the encoder is plugins/jobcomp/jobcomp_json.c), read
 * back for rota history, and the filters it applies.  Pure: no I/O.
 */
struct rota_jobrec {
	uint32_t id;
	char *cluster;
	char *name;
	char *user;
	char *account;
	char *queue;
	char *nodes;
	char *state;
	uint32_t uid;
	uint32_t gid;
	uint32_t cores;
	uint32_t runs;
	uint64_t memory_mb;
	int64_t time_limit;
	int64_t submit;
	int64_t eligible;
	int64_t start;		/* 0: never ran */
	int64_t end;
	int exit_code;
	int signal;
	double priority;
	double usage;
	uint64_t cpu_usec;	/* 0: not known (or an older record) */
	uint64_t mem_peak;	/* bytes; likewise */
	uint32_t array_job_id;	/* a task of an array: its job id; 0: none */
	uint32_t array_task_id;
	char *array_tasks;	/* an array's rest that ended unstarted */
	char *tres;		/* Slurm's AllocTRES text; NULL: an older record */
	uint32_t gpus;		/* GPUs it held; 0: none */
	char *gpu_idx;		/* which ("n01:0,1 n02:3"); NULL: none */
};

/*
 * Decode one line.  Unknown keys are ignored (a newer writer), missing or
 * mistyped known ones are -EPROTO with 'err'; 'r' is then empty.  Clear
 * with rota_jobrec_clear().
 */
int rota_jobrec_decode(const char *line, size_t len, struct rota_jobrec *r,
		       struct rota_error *err);
void rota_jobrec_clear(struct rota_jobrec *r);

/*
 * What rota history selects.  Lists are comma-separated ("ana,bob"), NULL
 * for any.  A job is in the time window when it ran (or waited, if it
 * never ran) during [since, until]: end >= since and start (else submit)
 * <= until, as sacct's --starttime and --endtime.
 */
struct rota_jobrec_filter {
	const char *users;
	const char *accounts;
	const char *states;	/* state names, case-insensitive */
	int64_t since;		/* INT64_MIN: no bound */
	int64_t until;		/* INT64_MAX: no bound */
	uint32_t job;		/* this job, or all of this array; 0: any */
};
bool rota_jobrec_match(const struct rota_jobrec *r,
		       const struct rota_jobrec_filter *f);

/*
 * A time for --starttime/--endtime (and submit --dl), in local time:
 * "2024-05-01", "2024-05-01T13:30[:00]", "now", "now-2h", "now+2h", or
 * "@UNIXSECONDS".  -EINVAL
 * with 'err' naming the text.
 */
int rota_jobrec_time_parse(const char *text, int64_t now, int64_t *out,
			   struct rota_error *err);

#endif
