// SPDX-License-Identifier: MIT
/*
 * The node table (core.h, "Layers": resources): each node's size, its
 * free cores and memory, the cores a job takes and gives back, and the
 * memory a job needs per node, the test queues that keep cores on it
 * (lifecycle.c makes the pool).  What changes a node's state is in
 * node_events.c.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "ctld/core/core_internal.h"

uint32_t node_cores_total(const struct core_node *n)
{
	return n->cfg_cores ? n->cfg_cores : n->cores;
}

uint64_t node_mem_total(const struct core_node *n)
{
	return n->cfg_memory_mb ? n->cfg_memory_mb : n->memory_mb;
}

uint32_t node_cores_free(const struct core_node *n)
{
	return n->cores - n->cores_used;
}

uint64_t node_mem_free(const struct core_node *n)
{
	return n->memory_mb - n->mem_used_mb;
}

bool node_is_usable(const struct core_node *n)
{
	return n->state == NODE_UP && !n->drain;
}

const char *core_node_state_name(const struct core_node *n)
{
	if (n->drain && n->state != NODE_DOWN)
		return n->cores_used ? "DRAINING" : "DRAINED";
	switch (n->state) {
	case NODE_UP: return "UP";
	case NODE_DOWN: return "DOWN";
	default: return "UNKNOWN";
	}
}

uint64_t core_job_node_mem(const struct core_job *job, uint32_t ncores)
{
	return job->desc.mem_mb ? job->desc.mem_mb
				: job->desc.mem_per_cpu_mb * ncores;
}

uint64_t job_total_mem(const struct core_job *job)
{
	uint32_t nodes = job->nalloc ? job->nalloc : job->desc.nodes;

	if (job->desc.mem_per_cpu_mb)
		return job->desc.mem_per_cpu_mb * job->desc.ntasks *
		       job->desc.cpus_per_task;
	return job->desc.mem_mb * (nodes ? nodes : 1);
}

/*
 * Merge the two ascending runs of 'v', [0, mid) and [mid, n), into one:
 * the preferred cores and the rest, each taken in order.
 */
static void merge_runs(uint32_t *v, uint32_t mid, uint32_t n)
{
	uint32_t *head = rota_xmalloc((size_t)mid * sizeof(*v) + 1);
	uint32_t i = 0, j = mid, k = 0;

	memcpy(head, v, (size_t)mid * sizeof(*v));
	while (i < mid)
		v[k++] = j < n && v[j] < head[i] ? v[j++] : head[i++];
	free(head);
}

static bool bit(const uint64_t *map, uint32_t i)
{
	return map && (map[i / 64] >> (i % 64)) & 1;
}

void node_alloc_cores(struct core_node *n, struct core_alloc *a,
		      uint64_t mem_mb, const uint64_t *prefer)
{
	uint32_t got = 0, preferred = 0;

	/* a second round for the rest when 'prefer' is short */
	for (int round = prefer ? 0 : 1; round < 2; round++) {
		for (uint32_t c = 0; c < n->cores && got < a->ncores; c++) {
			if (n->core_busy[c] || (!round && !bit(prefer, c)))
				continue;
			n->core_busy[c] = 1;
			a->cores[got++] = c;
		}
		preferred = round ? preferred : got;
	}
	/* in order, as without (a job's cores stay together on a socket) */
	if (prefer && preferred && preferred < got)
		merge_runs(a->cores, preferred, got);
	n->cores_used += got;
	n->mem_used_mb += mem_mb;
}

void node_free_cores(struct core_node *n, const struct core_alloc *a,
		     uint64_t mem_mb)
{
	for (uint32_t i = 0; i < a->ncores; i++) {
		if (a->cores[i] < n->cores && n->core_busy[a->cores[i]]) {
			n->core_busy[a->cores[i]] = 0;
			n->cores_used--;
		}
	}
	n->mem_used_mb -= mem_mb < n->mem_used_mb ? mem_mb : n->mem_used_mb;
}

bool node_reports_run(const struct rota_node_info *info,
		      const struct core_job *job)
{
	for (size_t i = 0; i < info->njobs; i++) {
		if (info->jobs[i] == job->id &&
		    (!info->runs || info->runs[i] == job->run))
			return true;
	}
	return false;
}

/* FNV-1a: node names are short and few; this spreads them well enough */
static uint32_t name_hash(const char *name)
{
	uint32_t h = 2166136261u;

	for (const unsigned char *s = (const unsigned char *)name; *s; s++)
		h = (h ^ *s) * 16777619u;
	return h;
}

void node_index_build(struct core *core)
{
	size_t mask;

	core->node_nslots = 16;
	while (core->node_nslots < 2 * core->nnodes + 1)
		core->node_nslots *= 2;
	mask = core->node_nslots - 1;
	core->node_slots = rota_xcalloc(core->node_nslots, sizeof(uint32_t));
	for (size_t i = 0; i < core->nnodes; i++) {
		size_t k = name_hash(core->nodes[i].name) & mask;

		while (core->node_slots[k])
			k = (k + 1) & mask;
		core->node_slots[k] = (uint32_t)i + 1;
	}
}

const struct core_node *core_node_find(const struct core *core,
				       const char *name, uint32_t *index)
{
	size_t mask = core->node_nslots - 1;
	size_t k = name_hash(name) & mask;

	for (; core->node_nslots && core->node_slots[k]; k = (k + 1) & mask) {
		uint32_t i = core->node_slots[k] - 1;

		if (strcmp(core->nodes[i].name, name) == 0) {
			if (index)
				*index = i;
			return &core->nodes[i];
		}
	}
	if (index)
		*index = UINT32_MAX;
	return NULL;
}

const struct core_node *core_node_get(const struct core *core, uint32_t i)
{
	return i < core->nnodes ? &core->nodes[i] : NULL;
}

size_t core_node_count(const struct core *core)
{
	return core->nnodes;
}

void node_kept_queues(const struct core *core, uint32_t node, char *buf,
		      size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t q = 0; q < core->nqueues && at < len; q++) {
		const struct core_queue *tq = &core->queues[q];
		bool on = false;

		for (size_t k = 0; k < tq->nnodes && tq->reserved_cores; k++)
			on = on || tq->nodes[k] == node;
		if (!on)
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       at ? "," : "", tq->name);
	}
}
