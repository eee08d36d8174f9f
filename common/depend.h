/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_DEPEND_H
#define ROTA_COMMON_DEPEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/*
 * Job dependencies as users write them (Slurm's --dependency): a list of
 * "type:id[:id...]" parts joined by ',' (all of them must be satisfied)
 * or by '?' (any one suffices), never both:
 *
 *   after:ID[+MIN]   ID started (or was cancelled), MIN minutes ago
 *   afterany:ID      ID ended, in any state
 *   afterok:ID       ID completed with exit code 0
 *   afternotok:ID    ID ended any other way (failed, timeout, node
 *                    failure, cancelled, out of memory)
 *   aftercorr:ID     task i of ID's array ended ok (task i of this one);
 *                    a plain job as afterok
 *   singleton        no other job of this name and user runs (nor an
 *                    older one of them waits as singleton)
 *
 * The client parses to refuse early; the controller parses again and is
 * authoritative (it also checks the ids exist).
 */

enum rota_depend_type {
	ROTA_DEPEND_NONE = 0,
	ROTA_DEPEND_AFTER,
	ROTA_DEPEND_AFTERANY,
	ROTA_DEPEND_AFTEROK,
	ROTA_DEPEND_AFTERNOTOK,
	ROTA_DEPEND_AFTERCORR,
	ROTA_DEPEND_SINGLETON,
};

/* Parts a dependency may have: bounds what a request can make us hold. */
#define ROTA_DEPEND_MAX 1024
/* after:ID+MIN: at most a year's minutes */
#define ROTA_DEPEND_MINUTES_MAX (366u * 24 * 60)

struct rota_depend_item {
	enum rota_depend_type type;
	uint32_t job_id;	/* 0 for singleton */
	uint32_t minutes;	/* after:ID+MIN; 0 otherwise */
};

struct rota_depend {
	struct rota_depend_item *items;
	size_t n;
	bool any;		/* joined by '?' */
};

/*
 * Parse 'text' into 'out' (caller clears with rota_depend_clear).  An
 * empty text is an empty list (no dependency: what `Dependency=` sets).
 * -EINVAL with one line in 'err' naming what is wrong; 'out' is then
 * left empty.
 */
int rota_depend_parse(const char *text, struct rota_depend *out,
		      struct rota_error *err);
/*
 * The canonical text ("afterok:12,afterany:14", "after:3+10"), one part
 * per item; NULL for an empty list.  Caller frees.
 */
char *rota_depend_format(const struct rota_depend *d);
/* "afterok", ...; static. */
const char *rota_depend_type_name(enum rota_depend_type t);
void rota_depend_clear(struct rota_depend *d);

#endif
