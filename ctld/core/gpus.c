// SPDX-License-Identifier: MIT
/*
 * A node's GPUs and other generic resources (core_internal.h, "gpus.c"):
 * what its daemon found, as its rota.conf line declares or restricts it.
 *
 *   no Gres=gpu on the line    the GPUs the node found, all of them
 *   Gres=gpu[:TYPE]:N          N GPUs (of TYPE) are expected: fewer found
 *                              and the node goes down with the numbers as
 *                              its reason, as with too few cores; more
 *                              found, and the first N (bus order) are
 *                              used, said in one line; GPUs of another
 *                              type are left out, said in one line
 *
 * Other generic resources (Gres=nvme:2, named in GresTypes) are counted
 * as rota.conf says: no daemon reports them.  Slurm does the same with a
 * gres.conf-less node: its GRES are the configured counts.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "ctld/core/core_internal.h"

void node_gres_init(struct core_node *n, const struct rota_conf_node *c)
{
	for (size_t i = 0; i < c->ngres; i++) {
		const struct rota_gres *g = &c->gres[i];

		if (strcmp(g->name, "gpu") != 0) {
			n->gres = rota_xreallocarray(n->gres, n->ngres + 1,
						     sizeof(*n->gres));
			n->gres[n->ngres++] = *g;
			continue;
		}
		/* gpu:a100:4,gpu:v100:4 on one line: their sum, any type */
		snprintf(n->cfg_gpu_type, sizeof(n->cfg_gpu_type), "%s",
			 n->cfg_gpus ? "" : g->type);
		n->cfg_gpus += g->count;
	}
}

static void gpus_clear(struct core_node *n)
{
	for (uint32_t i = 0; i < n->ngpus; i++) {
		free(n->gpus[i].type);
		free(n->gpus[i].model);
		free(n->gpus[i].busid);
		free(n->gpus[i].cores);
		free(n->gpus[i].near);
	}
	free(n->gpus);
	n->gpus = NULL;
	n->ngpus = 0;
	n->gpus_used = 0;
}

void node_gres_fini(struct core_node *n)
{
	gpus_clear(n);
	free(n->gres);
	free(n->gres_used);
}

static bool wanted(const struct core_node *n, const struct rota_gpu_info *g)
{
	return !n->cfg_gpu_type[0] || strcmp(n->cfg_gpu_type, g->type) == 0;
}

/* "gpu:v100" or "gpu" for the messages */
static void gpu_name(const char *type, char *buf, size_t len)
{
	snprintf(buf, len, "gpu%s%s", type[0] ? ":" : "", type);
}

/* "0-3,8" as a bitmap of the node's cores; NULL when not one. */
static uint64_t *near_parse(const char *text, uint32_t ncores)
{
	uint64_t *map = rota_xcalloc(ncores / 64 + 1, sizeof(uint64_t));
	const char *p = text;

	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;

		if (end == p)
			goto bad;
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p)
				goto bad;
		}
		if (lo > hi || hi >= ncores || (*end && *end != ','))
			goto bad;
		for (unsigned long c = lo; c <= hi; c++)
			map[c / 64] |= UINT64_C(1) << (c % 64);
		p = *end ? end + 1 : end;
	}
	return map;
bad:
	free(map);
	return NULL;
}

/* A registering node's running jobs take their GPUs again. */
static void gpus_remark(struct core *core, uint32_t idx,
			const struct rota_node_info *info)
{
	struct core_node *n = &core->nodes[idx];

	for (size_t i = 0; i < info->njobs; i++) {
		const struct core_job *job = jobtab_find(core, info->jobs[i]);

		for (uint32_t k = 0; job && k < job->nalloc; k++) {
			const struct core_alloc *a = &job->alloc[k];

			if (a->node != idx || job->state != ROTA_JOB_RUNNING)
				continue;
			for (uint32_t g = 0; g < a->ngpus; g++) {
				if (a->gpus[g] >= n->ngpus ||
				    n->gpus[a->gpus[g]].job)
					continue;
				n->gpus[a->gpus[g]].job = job->id;
				n->gpus_used++;
			}
		}
	}
}

int node_gpus_register(struct core *core, uint32_t idx,
		       const struct rota_node_info *info,
		       struct rota_error *err)
{
	struct core_node *n = &core->nodes[idx];
	uint32_t found = 0, take;
	char what[48];

	for (size_t i = 0; i < info->ngpus; i++)
		found += wanted(n, &info->gpus[i]);
	gpu_name(n->cfg_gpu_type, what, sizeof(what));
	if (n->cfg_gpus && found < n->cfg_gpus)
		return rota_errorf(err, -EINVAL,
				   "node '%s' has %u %s, rota.conf says %u",
				   n->name, found, what, n->cfg_gpus);
	take = n->cfg_gpus ? n->cfg_gpus : found;
	if (found > take)
		rota_warn("node '%s' has %u %s, rota.conf declares %u: the "
			  "first %u used",
			  n->name, found, what, take, take);
	if (found < info->ngpus)
		rota_warn("node '%s' has %zu GPUs of other types than "
			  "rota.conf's %s: left out",
			  n->name, info->ngpus - found, what);
	gpus_clear(n);
	n->gpus = rota_xcalloc(take + 1, sizeof(*n->gpus));
	for (size_t i = 0; i < info->ngpus && n->ngpus < take; i++) {
		const struct rota_gpu_info *g = &info->gpus[i];
		uint64_t *near;

		if (!wanted(n, g))
			continue;
		near = near_parse(g->cores, info->cores);
		if (!near) {
			rota_warn("node '%s': GPU %s: cores '%s' are not its "
				  "own: none taken as near it",
				  n->name, g->busid, g->cores);
			near = rota_xcalloc(info->cores / 64 + 1,
					    sizeof(uint64_t));
		}
		n->gpus[n->ngpus++] = (struct core_gpu){
			.type = rota_xstrdup(g->type),
			.model = rota_xstrdup(g->model),
			.busid = rota_xstrdup(g->busid),
			.cores = rota_xstrdup(g->cores),
			.near = near,
			.numa = g->numa,
		};
	}
	gpus_remark(core, idx, info);
	return 0;
}

uint32_t job_gpus_total(const struct core_job *job)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < job->nalloc; i++)
		n += job->alloc[i].ngpus;
	if (n || job->nalloc)
		return n;
	return job->desc.gpus_per_task
		       ? job->desc.gpus_per_task * job->desc.ntasks
		       : job->desc.gpus_per_node *
				 (job->desc.nodes ? job->desc.nodes : 1);
}

uint32_t job_node_gpus(const struct core_job *job, uint32_t tasks)
{
	return job->desc.gpus_per_node ? job->desc.gpus_per_node
				       : job->desc.gpus_per_task * tasks;
}

static bool of_type(const struct core_gpu *g, const char *type)
{
	return !type || strcmp(g->type, type) == 0;
}

uint32_t node_gpus_count(const struct core_node *n, const char *type,
			 bool free_only)
{
	uint32_t c = 0;

	if (!type) /* the usual question, without a walk */
		return free_only ? n->ngpus - n->gpus_used : n->ngpus;
	for (uint32_t i = 0; i < n->ngpus; i++)
		c += of_type(&n->gpus[i], type) && (!free_only || !n->gpus[i].job);
	return c;
}

static uint32_t popcount_free(const struct core_node *n, const uint64_t *map)
{
	uint32_t c = 0;

	for (uint32_t i = 0; i < n->cores; i++)
		c += (map[i / 64] >> (i % 64)) & 1 && !n->core_busy[i];
	return c;
}

/*
 * The NUMA node to take GPUs from first: one with 'want' free GPUs and
 * 'ncores' free cores near them, the one with the fewest such GPUs (the
 * larger groups stay whole); else one with 'want' GPUs and the most free
 * cores near; else the one with the most free GPUs.
 */
static uint32_t best_numa(const struct core_node *n, const char *type,
			  uint32_t want, uint32_t ncores)
{
	uint32_t best = UINT32_MAX, best_gpus = 0, best_cores = 0;
	int best_rank = -1;

	for (uint32_t i = 0; i < n->ngpus; i++) {
		const struct core_gpu *g = &n->gpus[i];
		uint32_t gpus = 0, cores;
		bool seen = false;
		int rank;

		for (uint32_t k = 0; k < i && !seen; k++)
			seen = n->gpus[k].numa == g->numa;
		if (seen)
			continue; /* weighed with the first of its NUMA node */
		for (uint32_t k = i; k < n->ngpus; k++)
			gpus += n->gpus[k].numa == g->numa &&
				of_type(&n->gpus[k], type) && !n->gpus[k].job;
		if (!gpus)
			continue;
		cores = popcount_free(n, g->near);
		rank = gpus >= want ? (cores >= ncores ? 2 : 1) : 0;
		if (rank > best_rank ||
		    (rank == best_rank &&
		     (rank == 2   ? gpus < best_gpus
		      : rank == 1 ? cores > best_cores
				  : gpus > best_gpus))) {
			best = g->numa;
			best_rank = rank;
			best_gpus = gpus;
			best_cores = cores;
		}
	}
	return best;
}

void node_alloc_gpus(struct core_node *n, const struct core_job *job,
		     struct core_alloc *a, uint32_t want, uint32_t ncores,
		     uint64_t **near)
{
	const char *type = job->desc.gpu_type;
	uint32_t words = n->cores / 64 + 1;

	*near = NULL;
	a->ngpus = 0;
	a->gpus = rota_xcalloc(want + 1, sizeof(uint32_t));
	while (a->ngpus < want) {
		uint32_t numa = best_numa(n, type, want - a->ngpus, ncores);

		if (numa == UINT32_MAX)
			break; /* placement counted them: never */
		for (uint32_t i = 0; i < n->ngpus && a->ngpus < want; i++) {
			struct core_gpu *g = &n->gpus[i];

			if (g->numa != numa || g->job || !of_type(g, type))
				continue;
			g->job = job->id;
			n->gpus_used++;
			a->gpus[a->ngpus++] = i;
			if (!*near)
				*near = rota_xcalloc(words, sizeof(uint64_t));
			for (uint32_t w = 0; w < words; w++)
				(*near)[w] |= g->near[w];
		}
	}
}

void node_free_gpus(struct core_node *n, uint32_t job_id,
		    const struct core_alloc *a)
{
	for (uint32_t i = 0; i < a->ngpus; i++) {
		if (a->gpus[i] < n->ngpus && n->gpus[a->gpus[i]].job == job_id) {
			n->gpus[a->gpus[i]].job = 0;
			n->gpus_used--;
		}
	}
}

char *core_job_tres(const struct core_job *job)
{
	uint32_t n = job->desc.gpus_per_node ? job->desc.gpus_per_node
					     : job->desc.gpus_per_task;

	if (!n)
		return NULL;
	return rota_xasprintf("gres/gpu%s%s:%u", job->desc.gpu_type ? ":" : "",
			      job->desc.gpu_type ? job->desc.gpu_type : "", n);
}

char *core_job_gpu_idx(const struct core *core, const struct core_job *job)
{
	struct rota_strbuf b = { 0 };
	size_t len;

	for (uint32_t i = 0; i < job->nalloc; i++) {
		const struct core_alloc *a = &job->alloc[i];

		if (!a->ngpus)
			continue;
		rota_strbuf_addf(&b, "%s%s:", b.len ? " " : "",
				 core->nodes[a->node].name);
		for (uint32_t g = 0; g < a->ngpus; g++)
			rota_strbuf_addf(&b, "%s%u", g ? "," : "", a->gpus[g]);
	}
	return rota_strbuf_take(&b, &len);
}

void core_queue_gpus(const struct core *core, const struct core_job *job,
		     uint32_t *free_now, uint32_t *total)
{
	const struct core_queue *q = &core->queues[job->queue];

	*free_now = *total = 0;
	for (size_t i = 0; i < q->nnodes; i++) {
		const struct core_node *n = &core->nodes[q->nodes[i]];

		if (!node_is_usable(n))
			continue;
		*free_now += node_gpus_count(n, job->desc.gpu_type, true);
		*total += node_gpus_count(n, job->desc.gpu_type, false);
	}
}
