// SPDX-License-Identifier: MIT
/*
 * Placement: which nodes, and how many tasks on each, a job gets.  One
 * function answers three questions, by what it counts as available:
 * "does it fit now" (free cores and memory), "could it ever fit" (the
 * nodes' full size, at submit) and "does it fit over [t, t + limit)" (the
 * backfill profile's minimum over that span).
 *
 * A job that asks no node count goes on one node if one can hold all its
 * tasks: the best fit, the node with the least memory, then the fewest
 * cores (next fit among equals), so that a small job leaves the large
 * nodes to the jobs that need them.  Failing that its tasks spread over
 * the queue's nodes in order.  A job that asks N nodes gets N nodes each
 * holding ceil(tasks / N) tasks; --ntasks-per-node=K puts K on each (and
 * sets the node count when --nodes does not).  Memory (--mem) is per
 * node; --mem-per-cpu is per core held, so it bounds the tasks a node
 * takes.  --exclusive takes only idle nodes, and all of their cores.
 *
 * Cores the test queues keep (ReservedCores) on a node they share with
 * other queues are one pool for all of them (lifecycle.c): never counted
 * for an ordinary job, however idle the node; a test job counts them and
 * the ordinary free cores alike, and its cores come out of the pool
 * first, so an ordinary job sees the free cores less what of the pool no
 * test job uses (the backfill profile keeps the same count over time,
 * profile.c).  Advance
 * reservations (resv.c) cut what a node offers now: a job of a reservation
 * gets only that reservation's cores and GPUs, any other job none of the
 * cores and GPUs a reservation holds while it would run; the backfill
 * profile has them as blocks already, and "could it ever" counts a
 * reservation's cores and GPUs only.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "ctld/core/constraint.h"
#include "ctld/core/core_internal.h"
#include "ctld/core/profile.h"
#include "ctld/core/resv.h"

/* Cores the node keeps for test jobs and that none of them uses now. */
static uint32_t test_cores_left(const struct core_node *n)
{
	return n->test_reserved > n->test_used ? n->test_reserved - n->test_used
					       : 0;
}

/*
 * GPUs of the job's type 'job' may count on at node 'n' (a profile's are
 * of any type: no more than the node has of the job's).
 */
static uint32_t node_gpus_avail(const struct place_ctx *c,
				const struct core_job *job,
				const struct core_node *n, int32_t profile)
{
	uint32_t all;

	switch (c->mode) {
	case PLACE_TOTAL:
		/* not registered yet: what its Gres= line declares */
		if (!n->pus && (!job->desc.gpu_type || !n->cfg_gpu_type[0] ||
				!strcmp(job->desc.gpu_type, n->cfg_gpu_type)))
			return n->cfg_gpus;
		return node_gpus_count(n, job->desc.gpu_type, false);
	case PLACE_NOW: return node_gpus_count(n, job->desc.gpu_type, true);
	case PLACE_PROFILE:
		all = node_gpus_count(n, job->desc.gpu_type, false);
		if (profile < 0)
			return 0;
		return (uint32_t)profile < all ? (uint32_t)profile : all;
	}
	return 0;
}

/*
 * Cores, memory and GPUs 'job' may count on at node 'i', or false if
 * none; '*gpus' only for a job that asks for GPUs.
 */
static bool node_avail(const struct place_ctx *c, const struct core_job *job,
		       uint32_t i, uint32_t *cores, uint64_t *mem,
		       uint32_t *gpus)
{
	const struct core_node *n = &c->core->nodes[i];
	bool test = c->kept || c->core->queues[job->queue].reserved_cores > 0;
	bool want_gpus = job->desc.gpus_per_node || job->desc.gpus_per_task;
	uint32_t keep;
	int32_t pc, pg = 0;
	int64_t pm;

	if (want_gpus && c->mode != PLACE_PROFILE) /* its own after */
		*gpus = node_gpus_avail(c, job, n, 0);
	switch (c->mode) {
	case PLACE_TOTAL:
		*cores = node_cores_total(n);
		*mem = node_mem_total(n);
		if (!test) /* never theirs, however idle the node */
			*cores = *cores > n->test_reserved
					 ? *cores - n->test_reserved
					 : 0;
		if (job->desc.reservation)
			*cores = resv_node_cores(c->core, job, i, false, 0,
						 *cores);
		if (job->desc.reservation && want_gpus)
			*gpus = resv_node_gpus(c->core, job, i, false, 0,
					       *gpus);
		return true;
	case PLACE_NOW:
		if (!node_is_usable(n) || (c->held && c->held[i]))
			return false;
		*cores = node_cores_free(n);
		*mem = node_mem_free(n);
		break;
	case PLACE_PROFILE:
		if (!node_is_usable(n))
			return false;
		/* an exclusive job wants the idle node, the pool too */
		profile_min_free(c->prof, i, c->t, c->d,
				 test || job->desc.exclusive, &pc, &pm,
				 want_gpus ? &pg : NULL);
		*cores = pc > 0 ? (uint32_t)pc : 0;
		*mem = pm > 0 ? (uint64_t)pm : 0;
		if (want_gpus)
			*gpus = node_gpus_avail(c, job, n, pg);
		break;
	}
	if (c->mode == PLACE_NOW)
		*cores = resv_node_cores(c->core, job, i, true, c->t, *cores);
	if (c->mode == PLACE_NOW && want_gpus)
		*gpus = resv_node_gpus(c->core, job, i, true, c->t, *gpus);
	/* --exclusive: only an idle node, all of it */
	if (job->desc.exclusive && *cores < node_cores_total(n))
		return false;
	if (test || (c->mode == PLACE_PROFILE && !job->desc.exclusive))
		return true; /* the profile's count leaves the pool out */
	keep = job->desc.exclusive ? n->test_reserved : test_cores_left(n);
	*cores = *cores > keep ? *cores - keep : 0;
	return true;
}

uint32_t place_alloc_cores(const struct core *core, const struct core_job *job,
			   uint32_t node, uint32_t tasks)
{
	const struct core_node *n = &core->nodes[node];
	bool test = core->queues[job->queue].reserved_cores > 0;

	if (!job->desc.exclusive)
		return tasks * job->desc.cpus_per_task;
	return node_cores_total(n) - (test ? 0 : n->test_reserved);
}

/*
 * Has node 'i' the job's generic resources other than GPUs (gres.c), as
 * 'c' counts: in all, free now, or the least free over the span (the
 * profile counts by name: the node's of the job's type bound it)?
 */
static bool gres_fit(const struct place_ctx *c, const struct core_job *job,
		     uint32_t i)
{
	const struct core_node *n = &c->core->nodes[i];

	for (uint32_t k = 0; k < job->ngres; k++) {
		const struct core_gres *g = &job->gres[k];
		uint32_t have = node_gres_count(c->core, n, g->idx, g->type,
						c->mode == PLACE_NOW);
		int32_t p = c->mode == PLACE_PROFILE
				    ? profile_gres_min(c->prof, i, g->idx,
						       c->t, c->d)
				    : (int32_t)have;

		if (p < 0 || (uint32_t)p < g->count || have < g->count)
			return false;
	}
	return true;
}

/* Tasks of 'job' node 'i' can take, 0 if it is no candidate. */
static uint32_t node_tasks(const struct place_ctx *c,
			   const struct core_job *job, uint32_t i)
{
	const struct core_node *n = &c->core->nodes[i];
	uint32_t cores = 0, gpus = 0, tasks;
	uint64_t mem = 0;
	uint64_t per_task = job->desc.mem_per_cpu_mb * job->desc.cpus_per_task;

	/* the cheap checks first: most nodes of a busy machine fail them */
	if (c->cores_bound && (c->cores_bound[i] < job->desc.cpus_per_task ||
			       c->gpus_bound[i] < job_node_gpus(job, 1)))
		return 0;
	if (!node_avail(c, job, i, &cores, &mem, &gpus) ||
	    cores < job->desc.cpus_per_task)
		return 0;
	if (job->desc.mem_mb && mem < job->desc.mem_mb)
		return 0;
	if (job->desc.gpus_per_node && gpus < job->desc.gpus_per_node)
		return 0;
	if (!constraint_match(job->constraint, n->features))
		return 0;
	if (job->ngres && !gres_fit(c, job, i))
		return 0;
	if (job->desc.exclusive && per_task)
		tasks = mem >= core_job_node_mem(job, cores)
				? cores / job->desc.cpus_per_task
				: 0;
	else if (per_task && mem / per_task < cores / job->desc.cpus_per_task)
		tasks = (uint32_t)(mem / per_task);
	else
		tasks = cores / job->desc.cpus_per_task;
	if (job->desc.gpus_per_task && gpus / job->desc.gpus_per_task < tasks)
		tasks = gpus / job->desc.gpus_per_task;
	return tasks;
}

bool place_node_fits(const struct place_ctx *c, const struct core_job *job,
		     uint32_t node)
{
	return node_tasks(c, job, node) >= job->desc.ntasks;
}

/* Is node a smaller than node b: less memory, then fewer cores? */
static bool smaller(const struct core *core, uint32_t a, uint32_t b)
{
	const struct core_node *x = &core->nodes[a];
	const struct core_node *y = &core->nodes[b];

	if (node_mem_total(x) != node_mem_total(y))
		return node_mem_total(x) < node_mem_total(y);
	return node_cores_total(x) < node_cores_total(y);
}

/* The queue's smallest node size, once per change of node sizes. */
static uint32_t smallest(struct core *core, struct core_queue *q)
{
	if (q->smallest_stamp != core->sizes_stamp || !q->nnodes) {
		q->smallest = q->nnodes ? q->nodes[0] : UINT32_MAX;
		for (size_t i = 1; i < q->nnodes; i++)
			if (smaller(core, q->nodes[i], q->smallest))
				q->smallest = q->nodes[i];
		q->smallest_stamp = core->sizes_stamp;
	}
	return q->smallest;
}

/*
 * The best single node for all the tasks, or UINT32_MAX: the smallest
 * that fits; among equals the next one after the queue's last choice
 * (next fit: a busy machine's full nodes are not walked again for every
 * job), so a node of the queue's smallest size that fits ends the search.
 */
static uint32_t best_node(const struct place_ctx *c,
			  const struct core_job *job, uint32_t tasks)
{
	struct core_queue *q = &c->core->queues[job->queue];
	uint32_t least = smallest(c->core, q);
	uint32_t best = UINT32_MAX;
	size_t at = 0;

	for (size_t k = 0; k < q->nnodes; k++) {
		size_t i = (q->next_fit + k) % q->nnodes;
		uint32_t n = q->nodes[i];

		if (node_tasks(c, job, n) < tasks)
			continue;
		if (best == UINT32_MAX || smaller(c->core, n, best)) {
			best = n;
			at = i;
		}
		if (!smaller(c->core, least, best))
			break; /* none is smaller than this one */
	}
	if (best != UINT32_MAX)
		q->next_fit = at;
	return best;
}

/* Exactly 'want' nodes, 'per' tasks each (the last ones may get fewer). */
static bool place_count(const struct place_ctx *c, const struct core_job *job,
			uint32_t tasks, uint32_t want, uint32_t per,
			struct placement *p)
{
	const struct core_queue *q = &c->core->queues[job->queue];
	uint32_t left = tasks;

	for (size_t i = 0; i < q->nnodes && left; i++) {
		/* leave a task for each node still to come: 4 on 3 is 2+1+1 */
		uint32_t most = left - (want - p->n - 1);

		if (node_tasks(c, job, q->nodes[i]) < (per < most ? per : most))
			continue;
		p->node[p->n] = q->nodes[i];
		p->tasks[p->n] = per < most ? per : most;
		left -= p->tasks[p->n++];
	}
	return left == 0 && p->n == want;
}

/* No count asked and no single node holds it: spread greedily. */
static bool place_spread(const struct place_ctx *c,
			 const struct core_job *job, uint32_t tasks,
			 struct placement *p)
{
	const struct core_queue *q = &c->core->queues[job->queue];
	uint32_t left = tasks;

	for (size_t i = 0; i < q->nnodes && left; i++) {
		uint32_t t = node_tasks(c, job, q->nodes[i]);

		if (t == 0)
			continue;
		p->node[p->n] = q->nodes[i];
		p->tasks[p->n] = t < left ? t : left;
		left -= p->tasks[p->n++];
	}
	return left == 0;
}

bool place_tasks(const struct place_ctx *c, const struct core_job *job,
		 uint32_t tasks, struct placement *p)
{
	uint32_t want = job->desc.nodes;
	uint32_t per_node = job->desc.ntasks_per_node;
	uint32_t node;

	p->n = 0;
	if (per_node && !want)
		want = (tasks + per_node - 1) / per_node;
	if (want > tasks || (per_node && (uint64_t)want * per_node < tasks))
		return false; /* a node without a task, or too few slots */
	if (want > 1)
		return place_count(c, job, tasks, want,
				   per_node ? per_node
					    : (tasks + want - 1) / want,
				   p);
	node = best_node(c, job, tasks);
	if (node != UINT32_MAX) {
		p->node[0] = node;
		p->tasks[0] = tasks;
		p->n = 1;
		return true;
	}
	if (want == 1)
		return false;
	p->n = 0;
	return place_spread(c, job, tasks, p);
}

/*
 * A range (-n MIN-MAX): the most tasks that fit, as Grid Engine gives a
 * PE range job the most slots it finds.  Whatever fits with n tasks fits
 * with fewer (one node holding n holds n - 1; N nodes of ceil(n / N)
 * hold ceil((n - 1) / N)), once the range is cut to what -N and
 * --ntasks-per-node allow (a task per node at least, per_node each at
 * most), so a bisection finds it in log2(MAX - MIN) placements.
 */
bool place_job(const struct place_ctx *c, const struct core_job *job,
	       struct placement *p)
{
	uint32_t lo = job->desc.ntasks, hi = job->desc.ntasks_max;
	uint32_t nodes = job->desc.nodes;

	if (!hi || hi <= lo)
		return place_tasks(c, job, lo, p);
	if (nodes > lo)
		lo = nodes < hi ? nodes : hi;
	if (nodes && job->desc.ntasks_per_node &&
	    (uint64_t)nodes * job->desc.ntasks_per_node < hi)
		hi = nodes * job->desc.ntasks_per_node;
	if (hi < lo)
		return false;
	if (place_tasks(c, job, hi, p))
		return true;
	if (!place_tasks(c, job, lo, p))
		return false;
	while (hi - lo > 1) { /* lo fits, hi does not */
		uint32_t mid = lo + (hi - lo) / 2;

		if (place_tasks(c, job, mid, p))
			lo = mid;
		else
			hi = mid;
	}
	return place_tasks(c, job, lo, p);
}

/*
 * A pass or a submit's check places one job after another: the arrays
 * (a node's worth each) are the core's, kept between them.  A placement
 * made while another holds them gets its own.
 */
void placement_init(struct core *core, struct placement *p)
{
	size_t n = core->nnodes ? core->nnodes : 1;

	p->n = 0;
	p->kept = !core->pl_busy;
	if (!p->kept) {
		p->node = rota_xcalloc(n, sizeof(uint32_t));
		p->tasks = rota_xcalloc(n, sizeof(uint32_t));
		return;
	}
	if (core->pl_cap < n) {
		core->pl_cap = n;
		core->pl_node = rota_xreallocarray(core->pl_node, n,
						   sizeof(uint32_t));
		core->pl_tasks = rota_xreallocarray(core->pl_tasks, n,
						    sizeof(uint32_t));
	}
	core->pl_busy = true;
	p->node = core->pl_node;
	p->tasks = core->pl_tasks;
}

void placement_fini(struct core *core, struct placement *p)
{
	if (p->kept) {
		core->pl_busy = false;
		return;
	}
	free(p->node);
	free(p->tasks);
}
