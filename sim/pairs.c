// SPDX-License-Identifier: MIT
/* Distinct (group, user) pairs of a trace (pairs.h). */
#include "config.h"

#include <stdlib.h>

#include "common/xalloc.h"
#include "sim/pairs.h"

static size_t hash(int64_t group, int64_t user, size_t mask)
{
	uint64_t h = (uint64_t)group * 0x9e3779b97f4a7c15u ^
		     (uint64_t)user * 0xc2b2ae3d27d4eb4fu;

	return (size_t)(h ^ h >> 29) & mask;
}

static void rehash(struct sim_pairs *p)
{
	p->nslots = p->nslots ? 2 * p->nslots : 256;
	free(p->slot);
	p->slot = rota_xcalloc(p->nslots, sizeof(*p->slot));
	for (size_t i = 0; i < p->n; i++) {
		size_t k = hash(p->v[i].group, p->v[i].user, p->nslots - 1);

		while (p->slot[k])
			k = (k + 1) & (p->nslots - 1);
		p->slot[k] = (uint32_t)i + 1;
	}
}

void sim_pairs_add(struct sim_pairs *p, int64_t group, int64_t user,
		   double value)
{
	size_t k;

	if (2 * (p->n + 1) > p->nslots)
		rehash(p);
	for (k = hash(group, user, p->nslots - 1); p->slot[k];
	     k = (k + 1) & (p->nslots - 1)) {
		struct sim_pair *e = &p->v[p->slot[k] - 1];

		if (e->group == group && e->user == user) {
			e->sum += value;
			return;
		}
	}
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		p->v = rota_xreallocarray(p->v, p->cap, sizeof(*p->v));
	}
	p->v[p->n] = (struct sim_pair){ group, user, value };
	p->slot[k] = (uint32_t)++p->n;
}

static int by_pair(const void *a, const void *b)
{
	const struct sim_pair *x = a;
	const struct sim_pair *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return (x->user > y->user) - (x->user < y->user);
}

void sim_pairs_sort(struct sim_pairs *p)
{
	free(p->slot);
	p->slot = NULL;
	p->nslots = 0;
	qsort(p->v, p->n, sizeof(*p->v), by_pair);
}

void sim_pairs_free(struct sim_pairs *p)
{
	free(p->v);
	free(p->slot);
	*p = (struct sim_pairs){ 0 };
}
