/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_CORE_CONSTRAINT_H
#define ROTA_CTLD_CORE_CONSTRAINT_H

#include <stdbool.h>

#include "common/error.h"

/*
 * Node feature expressions of --constraint: feature names joined by '&'
 * (and) and '|' (or), '&' binding tighter, as in "ib&largemem|bigmem".
 */
struct constraint;

/* Compile; caller frees with constraint_destroy().  -EINVAL with 'err'. */
int constraint_parse(const char *text, struct constraint **out,
		     struct rota_error *err);
void constraint_destroy(struct constraint *c);
/* Does a node with 'features' (NULL-terminated) satisfy it? NULL c: yes. */
bool constraint_match(const struct constraint *c, char *const *features);

#endif
