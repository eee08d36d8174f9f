/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_RESV_RECORD_H
#define ROTA_CTLD_RESV_RECORD_H

#include <stddef.h>

#include "common/error.h"

/*
 * Advance reservations in the journal (beside job_record.h's kinds):
 *   {"kind":"resv", "id":N, "name":"maint", "start":S, "end":E,
 *    "core_count":C, "parts":[["n01",0],["n02",4]], "users":["ana"],
 *    "accounts":["physics"]}            a reservation's whole state (a
 *                                       part's 0 cores: the whole node;
 *                                       "users", "accounts" only if set;
 *                                       with GPUs, "gpu_count":G and a
 *                                       part's GPUs third, ["n03",4,2];
 *                                       "licenses":"matlab:2" if held);
 *   {"kind":"resv_delete", "name":"maint"}   an operator deleted it.
 * A reservation that ends is not recorded: the core forgets it at its end
 * again after a replay.
 */
struct core;
struct core_resv;

/* Caller frees the text with free(). */
char *resv_record_encode(const struct core *core, const struct core_resv *r,
			 size_t *len);
char *resv_record_delete(const char *name, size_t *len);

/* Is 'kind' one of these records'? */
int resv_record_is_kind(const char *kind);
/*
 * Apply one such record (core_resv_restore or the delete; deleting one
 * the core forgot already is no error).  -EINVAL for a malformed record,
 * -ENOENT when a node left rota.conf, with 'err'.
 */
int resv_record_apply(struct core *core, const char *rec, size_t len,
		      struct rota_error *err);

#endif
