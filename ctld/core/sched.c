// SPDX-License-Identifier: MIT
/*
 * The scheduling pass and placement.  Jobs are taken in order (the pending
 * list is kept in scheduling order: tier, priority, submit time, id; see
 * priority.c); in each queue the pass stops at the first job that does not
 * fit, so a wide job at the head of a queue is never starved by narrow ones
 * behind it (strict order, like Slurm's sched/builtin).
 *
 * Placement: a job that asks no node count goes on one node if one can hold
 * all its tasks, else its tasks spread over the queue's nodes in order.  A
 * job that asks N nodes gets N nodes each holding ceil(tasks / N) tasks.
 * Memory (--mem) is per node.  The same code answers "could this job ever
 * run here?" at submit by placing it on the idle nodes' full size.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "common/xalloc.h"
#include "ctld/core/constraint.h"
#include "ctld/core/core_internal.h"

struct placement {
	uint32_t n;
	uint32_t *node;  /* node indexes */
	uint32_t *tasks; /* tasks on each */
};

static uint32_t cap_cores(const struct core_node *n, bool total)
{
	return total ? node_cores_total(n) : node_cores_free(n);
}

static bool candidate(const struct core_node *n, const struct core_job *job,
		      bool total)
{
	uint64_t mem = total ? node_mem_total(n) : node_mem_free(n);

	if (!total && !node_is_usable(n))
		return false;
	if (job->desc.mem_mb && mem < job->desc.mem_mb)
		return false;
	return constraint_match(job->constraint, n->features);
}

/* Fill 'p' (arrays sized to the queue's node count); true if it fits. */
static bool place(const struct core *core, const struct core_job *job,
		  bool total, struct placement *p)
{
	const struct core_queue *q = &core->queues[job->queue];
	uint32_t cpt = job->desc.cpus_per_task;
	uint32_t left = job->desc.ntasks;
	uint32_t want = job->desc.nodes;
	uint32_t per = want ? (left + want - 1) / want : left;

	p->n = 0;
	if (want > left)
		return false; /* a node without a task */
	/* one node for all, or the asked count with 'per' tasks each */
	for (size_t i = 0; i < q->nnodes && left; i++) {
		const struct core_node *n = &core->nodes[q->nodes[i]];
		/* leave a task for each node still to come: 4 on 3 is 2+1+1 */
		uint32_t most = want ? left - (want - p->n - 1) : left;

		if (!candidate(n, job, total) ||
		    cap_cores(n, total) / cpt < per)
			continue;
		p->node[p->n] = q->nodes[i];
		p->tasks[p->n] = per < most ? per : most;
		left -= p->tasks[p->n++];
	}
	if (left == 0)
		return !want || p->n == want;
	if (want)
		return false;
	/* no count asked and no single node holds it: spread greedily */
	p->n = 0;
	left = job->desc.ntasks;
	for (size_t i = 0; i < q->nnodes && left; i++) {
		const struct core_node *n = &core->nodes[q->nodes[i]];
		uint32_t t;

		if (!candidate(n, job, total))
			continue;
		t = cap_cores(n, total) / cpt;
		if (t == 0)
			continue;
		p->node[p->n] = q->nodes[i];
		p->tasks[p->n] = t < left ? t : left;
		left -= p->tasks[p->n++];
	}
	return left == 0;
}

static void placement_init(struct placement *p, size_t n)
{
	p->n = 0;
	p->node = rota_xcalloc(n ? n : 1, sizeof(uint32_t));
	p->tasks = rota_xcalloc(n ? n : 1, sizeof(uint32_t));
}

static void placement_fini(struct placement *p)
{
	free(p->node);
	free(p->tasks);
}

static void start_job(struct core *core, struct core_job *job, int64_t now,
		      const struct placement *p)
{
	job->alloc = rota_xcalloc(p->n, sizeof(*job->alloc));
	job->nalloc = p->n;
	for (uint32_t i = 0; i < p->n; i++) {
		struct core_alloc *a = &job->alloc[i];

		a->node = p->node[i];
		a->ncores = p->tasks[i] * job->desc.cpus_per_task;
		a->cores = rota_xcalloc(a->ncores, sizeof(uint32_t));
		node_alloc_cores(&core->nodes[a->node], a, job->desc.mem_mb);
	}
	core_pending_remove(core, job);
	prio_set_eligible(job, false, now);
	job_list_append(&core->running, job);
	job->state = ROTA_JOB_RUNNING;
	job->run++;
	job->start_time = now;
	job->charged_until = now;
	job->reason = NULL;
	core_mark_dirty(core, job);
	/* the batch script runs on the first node, as in Slurm */
	core_push_action(core, &(struct core_action){
				       .type = CORE_ACTION_LAUNCH,
				       .job_id = job->id,
				       .run = job->run,
				       .alloc_index = 0,
				       .node = job->alloc[0].node,
			       });
}

unsigned core_schedule(struct core *core, int64_t now)
{
	bool *blocked = core->queue_blocked;
	struct placement p;
	size_t nblocked = 0, active = 0;
	unsigned started = 0;
	struct core_job *job, *next;

	if (core->prio_stale)
		core_prio_update(core, now);
	/* the pass ends once every queue with pending jobs has stopped */
	for (size_t q = 0; q < core->nqueues; q++)
		active += core->queue_pending[q] > 0;
	memset(blocked, 0, core->nqueues * sizeof(bool));
	placement_init(&p, core->nnodes);
	for (job = core->pending.head; job && nblocked < active;
	     job = next) {
		next = job->next;
		if (job->hold)
			continue; /* not eligible: it blocks nothing */
		if (blocked[job->queue]) {
			job->reason = "Priority";
			continue;
		}
		if (place(core, job, false, &p)) {
			start_job(core, job, now, &p);
			started++;
			continue;
		}
		job->reason = "Resources";
		blocked[job->queue] = true;
		nblocked++;
	}
	placement_fini(&p);
	return started;
}

static int explain_infeasible(const struct core *core,
			      const struct core_job *job,
			      struct rota_error *err)
{
	const struct core_queue *q = &core->queues[job->queue];
	uint32_t matching = 0, max_cores = 0;
	uint64_t max_mem = 0;
	char size[32];

	for (size_t i = 0; i < q->nnodes; i++) {
		const struct core_node *n = &core->nodes[q->nodes[i]];

		if (!constraint_match(job->constraint, n->features))
			continue;
		matching++;
		if (node_mem_total(n) > max_mem)
			max_mem = node_mem_total(n);
		if (node_cores_total(n) > max_cores)
			max_cores = node_cores_total(n);
	}
	if (!matching)
		return rota_errorf(err, -EINVAL,
				   "--constraint=%s: no node of queue '%s' "
				   "has these features",
				   job->desc.constraint, q->name);
	if (job->desc.nodes > matching)
		return rota_errorf(err, -EINVAL,
				   "--nodes=%u: queue '%s' has %u such nodes",
				   job->desc.nodes, q->name, matching);
	if (job->desc.nodes > job->desc.ntasks)
		return rota_errorf(err, -EINVAL,
				   "--nodes=%u: more nodes than the %u tasks",
				   job->desc.nodes, job->desc.ntasks);
	if (job->desc.mem_mb > max_mem) {
		rota_size_format_mb(max_mem, size, sizeof(size));
		return rota_errorf(err, -EINVAL,
				   "--mem=%lluM: no node of queue '%s' has "
				   "that much memory (largest: %s)",
				   (unsigned long long)job->desc.mem_mb,
				   q->name, size);
	}
	return rota_errorf(err, -EINVAL,
			   "%u tasks x %u cpus: more cores than the nodes of "
			   "queue '%s' have (largest node: %u cores)",
			   job->desc.ntasks, job->desc.cpus_per_task, q->name,
			   max_cores);
}

const char *core_job_reason(const struct core *core,
			    const struct core_job *job)
{
	if (job->state != ROTA_JOB_PENDING)
		return job->end_text;
	if (job->hold)
		return job->hold == CORE_HOLD_USER ? "JobHeldUser"
						   : "JobHeldAdmin";
	if (job->reason)
		return job->reason;
	/* not reached by the last pass: its queue stopped ahead of it */
	return core->queue_blocked[job->queue] ? "Priority" : "None";
}

int sched_check_feasible(const struct core *core, const struct core_job *job,
			 struct rota_error *err)
{
	const struct core_queue *q = &core->queues[job->queue];
	struct placement p;
	bool fits;

	/* a node of unknown size (not registered, no CPUs=) may hold it */
	for (size_t i = 0; i < q->nnodes; i++) {
		const struct core_node *n = &core->nodes[q->nodes[i]];

		if (!node_cores_total(n) &&
		    constraint_match(job->constraint, n->features))
			return 0;
	}
	placement_init(&p, core->nnodes);
	fits = place(core, job, true, &p);
	placement_fini(&p);
	return fits ? 0 : explain_infeasible(core, job, err);
}
