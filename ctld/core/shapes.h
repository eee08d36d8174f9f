/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_CORE_SHAPES_H
#define ROTA_CTLD_CORE_SHAPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Job shapes that failed during one backfill pass (shapes.c).  Within a
 * pass availability only shrinks (jobs start, reservations are made), so
 * a job at least as large in every respect as one that failed, of the
 * same queue and kind, fails too and need not be tried.
 */
#define SHAPES_MAX 256

struct core_job;

struct shape {
	uint32_t queue;
	const char *constraint;
	uint32_t ntasks;
	uint32_t cpt;
	uint32_t nodes;
	uint32_t per_node;	/* --ntasks-per-node */
	bool exclusive;
	uint64_t mem;
	uint64_t mem_per_cpu;
	int64_t limit;		/* 0 (none) counts as the longest */
	uint32_t gpn;		/* GPUs a node, a task (desc's) */
	uint32_t gpt;
	const char *gpu_type;	/* NULL: any */
	const char *gres;	/* desc.gres, desc.licenses: a job of other */
	const char *licenses;	/* ones (or none) is not alike */
};

/* A ring: once full, the oldest shape makes room.  Not zeroed: cheap. */
struct shapes {
	struct shape s[SHAPES_MAX];
	size_t n;
	size_t next;
};

static inline void shapes_init(struct shapes *m)
{
	m->n = m->next = 0;
}

/* Is 'job' at least as large as a shape that failed? */
bool shapes_cover(const struct shapes *m, const struct core_job *job);
void shapes_add(struct shapes *m, const struct core_job *job);

#endif
