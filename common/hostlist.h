/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_HOSTLIST_H
#define ROTA_COMMON_HOSTLIST_H

#include <stddef.h>

#include "common/error.h"

/*
 * Hostlist expressions, as every HPC admin writes them: "n[01-04,07],login1",
 * "127.0.0.[2-5]", "r[1-2]n[01-02]" (brackets multiply).  Zero padding follows
 * the width of the range's first number.  An expression expands to at most
 * ROTA_HOSTLIST_MAX names, so hostile input cannot exhaust memory.
 */
#define ROTA_HOSTLIST_MAX 65536

struct rota_hostlist;

/*
 * Expand 'expr' into a new list, in the order written; caller frees with
 * rota_hostlist_destroy().  Returns 0, or -EINVAL with 'err' naming what is
 * wrong (unbalanced bracket, reversed range, empty name, too many names);
 * '*out' is NULL on failure.
 */
int rota_hostlist_parse(const char *expr, struct rota_hostlist **out,
			struct rota_error *err);
void rota_hostlist_destroy(struct rota_hostlist *hl);

size_t rota_hostlist_count(const struct rota_hostlist *hl);
/* The i-th name (i < count); borrowed, valid until the list is destroyed. */
const char *rota_hostlist_nth(const struct rota_hostlist *hl, size_t i);

/*
 * Compress 'n' names into one expression ("n[01-03,05],m1"), keeping their
 * order; caller frees the result with free().
 */
char *rota_hostlist_format(const char *const *names, size_t n);

#endif
