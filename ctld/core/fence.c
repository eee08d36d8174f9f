// SPDX-License-Identifier: MIT
/*
 * Fences: a job runs in one place at a time.  A running job put back in
 * the queue (its node went down, an operator requeued it) may still be
 * alive where it ran: its node is told to kill it, but may not have heard
 * yet.  Until the core knows that run is over the job stays pending,
 * fenced, and no pass starts it.  The core knows it when:
 *   - the node reports the end of that run (whatever state);
 *   - the node registers without that run (one that registers with the
 *     run of a job requeued meanwhile fences it again);
 *   - the node has been silent for NodeTimeout and the last lease the
 *     controller granted it has surely run out: its supervisors killed
 *     their jobs by then (the lease argument is in docs/config.md,
 *     NodeLease).  Both, because a reconfigure may have lowered
 *     NodeTimeout below a lease granted before it, or turned leases on
 *     for a node that holds none (NodeLease=off: never by time).
 * A node that heartbeats on, yet never reports the run's end, keeps the
 * job fenced: better a job that waits than one that runs twice.
 */
#include "config.h"

#include <stdint.h>

#include "common/conf.h"
#include "common/log.h"
#include "ctld/core/core_internal.h"

void fence_on(struct core *core, struct core_job *job, uint32_t node)
{
	if (job->fence_node)
		return;
	job->fence_node = node + 1;
	core->nfenced++;
	core_walk_update(core, job);
	core_mark_dirty(core, job);
}

void fence_set(struct core *core, struct core_job *job)
{
	/* the batch script (and all a job runs) is on its first node */
	if (job->nalloc)
		fence_on(core, job, job->alloc[0].node);
}

void fence_forget(struct core *core, struct core_job *job)
{
	if (!job->fence_node)
		return;
	job->fence_node = 0;
	core->nfenced--;
	core_walk_update(core, job);
}

static void lift(struct core *core, struct core_job *job, const char *why)
{
	rota_info("job %u: run %u ended on '%s' (%s): it may start again",
		  job->id, job->run, core->nodes[job->fence_node - 1].name,
		  why);
	fence_forget(core, job);
	core_mark_dirty(core, job);
	core_mark_changed(core);
}

bool fence_end(struct core *core, struct core_job *job, uint32_t node,
	       uint32_t run)
{
	if (job->state != ROTA_JOB_PENDING || job->fence_node != node + 1 ||
	    run != job->run)
		return false;
	lift(core, job, "its end reported");
	return true;
}

void fence_register(struct core *core, uint32_t node,
		    const struct rota_node_info *info)
{
	struct core_job *job, *next;

	if (!core->nfenced)
		return;
	for (job = core->pending.head; job; job = next) {
		next = job->next;
		if (job->fence_node == node + 1 &&
		    !node_reports_run(info, job))
			lift(core, job, "its node registered without it");
	}
}

void fence_granted(struct core *core, struct core_node *n, int64_t now)
{
	n->lease_until = core->node_lease
				 ? now + core->node_lease +
					   rota_conf_lease_margin(
						   core->node_timeout)
				 : INT64_MAX;
}

void fence_tick(struct core *core, int64_t now)
{
	struct core_job *job, *next;

	if (!core->nfenced)
		return;
	for (job = core->pending.head; job; job = next) {
		const struct core_node *n;

		next = job->next;
		if (!job->fence_node)
			continue;
		n = &core->nodes[job->fence_node - 1];
		if (now - n->last_seen > core->node_timeout &&
		    now > n->lease_until)
			lift(core, job, "its node's lease has run out");
	}
}

void fence_restore(struct core *core, struct core_job *job, uint32_t node,
		   int64_t now)
{
	job->fence_node = node + 1; /* as recorded: not a change */
	core->nfenced++;
	core_walk_update(core, job);
	/* as for a running job: NodeTimeout from now to hear from it */
	if (core->nodes[node].last_seen < now)
		core->nodes[node].last_seen = now;
}
