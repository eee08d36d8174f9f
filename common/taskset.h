/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_TASKSET_H
#define ROTA_COMMON_TASKSET_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "common/strbuf.h"

/*
 * A job array's task ids (--array, Slurm's syntax): "0-999", "1,3,5-9",
 * "0-1000:10", with "%16" at the end to run at most 16 at once.  Held as
 * a bitmap over the span the expression covers, so that 100,000 pending
 * tasks cost 12.5 KB and taking the next one is O(1) amortized.
 */
#define ROTA_ARRAY_PENDING_REST UINT32_MAX /* the record of a pending rest */
#define ROTA_ARRAY_SIZE_DEFAULT 1001	    /* MaxArraySize, as Slurm's */

struct rota_taskset {
	uint64_t *bits;		/* bit i: task id base + i */
	uint32_t base;
	uint32_t span;		/* bits */
	uint32_t count;		/* ids in the set */
	uint32_t lo;		/* no id below base + lo is in the set */
};

/*
 * Parse 'text' into 'ts'; ids must be below 'max_size' (MaxArraySize).
 * 'throttle' NULL: no "%N" allowed; else *throttle is N, 0 without one.
 * -EINVAL with the reason (no prefix: the caller names the option).
 */
int rota_taskset_parse(const char *text, uint32_t max_size,
		       struct rota_taskset *ts, uint32_t *throttle,
		       struct rota_error *err);
void rota_taskset_fini(struct rota_taskset *ts);
bool rota_taskset_has(const struct rota_taskset *ts, uint32_t id);
void rota_taskset_remove(struct rota_taskset *ts, uint32_t id);
/* The lowest id in the set; UINT32_MAX when it is empty. */
uint32_t rota_taskset_first(struct rota_taskset *ts);
/* The same without moving the cursor that makes _first cheap. */
uint32_t rota_taskset_lowest(const struct rota_taskset *ts);
uint32_t rota_taskset_last(const struct rota_taskset *ts);
/* The id after 'id' in the set (UINT32_MAX: none); 'id' need not be in. */
uint32_t rota_taskset_next(const struct rota_taskset *ts, uint32_t id);
/*
 * The set as the expression that makes it again, shortest first: runs as
 * "5-9", steps as "0-1000:10", the rest "1,3" ("" when empty).
 */
void rota_taskset_format(const struct rota_taskset *ts, struct rota_strbuf *b);
char *rota_taskset_text(const struct rota_taskset *ts);

/*
 * A job of an array as users name it: "12_7" (a task), "12_[3-999%16]"
 * (task ROTA_ARRAY_PENDING_REST, the pending rest: its ids 'rest' and
 * its throttle, 0: none).  Freed by the caller.
 */
char *rota_array_job_name(uint32_t array_id, uint32_t task, const char *rest,
			  uint32_t throttle);

#endif
