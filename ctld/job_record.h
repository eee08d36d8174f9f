/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_JOB_RECORD_H
#define ROTA_CTLD_JOB_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/*
 * What the journal says, one JSON object per record:
 *   {"kind":"job", "id":..., "state":..., ..., "desc":{<SUBMIT body>},
 *    "alloc":[{"node":"n01","cores":[0,1]}]}   a job's whole state;
 *   {"kind":"next_id", "next_id":N}            ids never go back;
 *   {"kind":"usage", "time":T, "usage":[{"account":"a","user":"u",
 *    "usage":X}]}                              every user's decayed
 *                                              usage at T (the last wins);
 *   {"kind":"request", ...}                    a request's first answer,
 *                                              ctld/idem.h's, not here.
 */
struct core;
struct core_job;
struct core_usage;

/* Caller frees the text with free(). */
char *job_record_encode(const struct core *core, const struct core_job *job,
			size_t *len);
char *job_record_next_id(uint32_t next, size_t *len);
/*
 * Usage at 'at' (core_usage_take()'s), with whether the core measures it
 * and its running jobs' meters (core_usage_marks()).
 */
char *job_record_usage(const struct core *core, const struct core_usage *u,
		       size_t n, int64_t at, size_t *len);

/*
 * Apply one record to the core (core_restore_job).  -EINVAL (malformed
 * record) or -ENOENT (its queue or node left rota.conf), with 'err'.
 */
int job_record_apply(struct core *core, int64_t now, const char *rec,
		     size_t len, struct rota_error *err);

#endif
