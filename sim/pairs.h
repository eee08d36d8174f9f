/* SPDX-License-Identifier: MIT */
#ifndef ROTA_SIM_PAIRS_H
#define ROTA_SIM_PAIRS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The distinct (group, user) pairs of a trace, each with a sum: a trace
 * has hundreds of them over hundreds of thousands of jobs, so they are
 * gathered in a hash and only the few are sorted.
 */
struct sim_pair {
	int64_t group;
	int64_t user;
	double sum;
};

struct sim_pairs {
	struct sim_pair *v;	/* sim_pairs_sort: by group, then user */
	size_t n;
	size_t cap;
	uint32_t *slot;		/* index + 1 into v; 0: empty */
	size_t nslots;
};

/* Add 'value' to the pair's sum, adding the pair if new. */
void sim_pairs_add(struct sim_pairs *p, int64_t group, int64_t user,
		   double value);
/* Sort v; the hash is dropped (no more adds). */
void sim_pairs_sort(struct sim_pairs *p);
void sim_pairs_free(struct sim_pairs *p);

#endif
