// SPDX-License-Identifier: MIT
/*
 * Node events (core.h, "Layers": top): a node daemon registers, answers,
 * falls silent or goes down, and an operator drains, downs or resumes it.
 * A node's size is what rota.conf says when it says it (CPUs=,
 * RealMemory=), else what the node daemon found with hwloc; a node that
 * registers with fewer cores or less memory than rota.conf promises stays
 * down with the reason, as Slurm does, so that jobs are never placed on
 * resources that are not there.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/core/core_internal.h"

int core_node_admin(struct core *core, int64_t now, const char *name,
		    const char *action, const char *reason,
		    struct rota_error *err)
{
	struct core_node *n;
	uint32_t idx;

	if (!core_node_find(core, name, &idx))
		return rota_errorf(err, -ENOENT, "node '%s': not found", name);
	n = &core->nodes[idx];
	if (strcmp(action, "drain") == 0) {
		n->drain = true;
		snprintf(n->reason, sizeof(n->reason), "drained: %s",
			 reason ? reason : "by an operator");
	} else if (strcmp(action, "down") == 0) {
		char why[128];

		snprintf(why, sizeof(why), "set down: %s",
			 reason ? reason : "by an operator");
		n->admin_down = true;
		core_node_down(core, now, name, why);
	} else if (strcmp(action, "resume") == 0) {
		n->drain = false;
		n->admin_down = false;
		if (n->state == NODE_DOWN && n->cores &&
		    now - n->last_seen <= core->node_timeout)
			n->state = NODE_UP;
		if (n->state == NODE_UP)
			n->reason[0] = '\0';
	} else {
		return rota_errorf(err, -EINVAL, "'%s': not drain, resume or "
				   "down", action);
	}
	core_mark_changed(core);
	return 0;
}

static void merge_features(struct core_node *n, char *const *extra)
{
	size_t have = 0, add = 0;

	while (n->features[have])
		have++;
	for (char *const *e = extra; e && *e; e++)
		add++;
	n->features = rota_xreallocarray(n->features, have + add + 1,
					 sizeof(char *));
	for (char *const *e = extra; e && *e; e++) {
		bool dup = false;

		for (size_t i = 0; i < have && !dup; i++)
			dup = strcmp(n->features[i], *e) == 0;
		if (!dup)
			n->features[have++] = rota_xstrdup(*e);
	}
	n->features[have] = NULL;
}

/*
 * Jobs whose batch script ran on node 'idx' (their first node: the others
 * only hold cores) that it does not report are not running there: their
 * launch was lost on the way, or the node lost them.  Requeued, as Slurm
 * requeues a batch job missing from its node, unless --no-requeue.
 */
static void reconcile_jobs(struct core *core, int64_t now, uint32_t idx,
			   const struct rota_node_info *info)
{
	const char *name = core->nodes[idx].name;
	struct core_job *job, *next;

	for (job = core->running.head; job; job = next) {
		next = job->next;
		if (job->alloc[0].node != idx)
			continue;
		if (node_reports_run(info, job)) {
			/* the first order may have found no link: again */
			if (job->cancel_sent)
				core_end_run(core, job->id, job->run, idx,
					     SIGTERM);
		} else if (!job->desc.no_requeue) {
			rota_warn("job %u: node '%s' registered without it: "
				  "requeued", job->id, name);
			core_requeue(core, now, job->id, "NodeFail", false);
		} else {
			rota_warn("job %u: node '%s' registered without it, "
				  "ending it as NODE_FAIL", job->id, name);
			job->end_text = rota_xasprintf(
				"node %s restarted without it", name);
			core_job_finish(core, job, now, ROTA_JOB_NODE_FAIL);
		}
	}
}

/*
 * The node's real core count, keeping the cores jobs hold (jobs restored
 * from the journal may be there before the node has said its size).
 */
static void resize_cores(struct core_node *n, uint32_t cores)
{
	uint32_t keep = n->cores < cores ? n->cores : cores;

	if (cores == n->cores && n->core_busy)
		return;
	for (uint32_t c = cores; c < n->cores; c++) {
		if (n->core_busy[c])
			return; /* it shrank under a running job: keep as is */
	}
	n->core_busy = rota_xrealloc(n->core_busy, cores ? cores : 1);
	if (cores > keep)
		memset(n->core_busy + keep, 0, cores - keep);
	n->cores = cores;
}

/*
 * The node's registration lists the job's run (any run: an old daemon);
 * its run 'run', 0 when the daemon does not say.
 */
static bool is_run(const struct core_job *job, uint32_t run)
{
	return !run || run == job->run;
}

/*
 * A returning node may still run jobs that have moved on meanwhile
 * (requeued when it was declared down, cancelled, forgotten): tell it to
 * kill them, so that no job runs in two places; a job back in the queue
 * waits for that run's end (a fence).
 */
static void kill_strays(struct core *core, uint32_t idx,
			const struct rota_node_info *info)
{
	for (size_t i = 0; i < info->njobs; i++) {
		struct core_job *job = jobtab_find(core, info->jobs[i]);
		uint32_t run = info->runs ? info->runs[i] : 0;

		if (job && job->state == ROTA_JOB_RUNNING &&
		    job->alloc[0].node == idx && is_run(job, run))
			continue;
		rota_warn("job %u: still on node '%s', which no longer runs "
			  "it: killing it there",
			  info->jobs[i], core->nodes[idx].name);
		core_end_run(core, info->jobs[i], run, idx, SIGKILL);
		if (job && job->state == ROTA_JOB_PENDING && job->run &&
		    is_run(job, run))
			fence_on(core, job, idx);
	}
}

static int check_size(struct core_node *n, const struct rota_node_info *info,
		      struct rota_error *err)
{
	if (n->cfg_cores && info->cores < n->cfg_cores)
		return rota_errorf(err, -EINVAL,
				   "node '%s' has %u cores, rota.conf says %u",
				   n->name, info->cores, n->cfg_cores);
	if (n->cfg_memory_mb && info->memory_mb < n->cfg_memory_mb)
		return rota_errorf(err, -EINVAL,
				   "node '%s' has %llu MB, rota.conf says %llu",
				   n->name, (unsigned long long)info->memory_mb,
				   (unsigned long long)n->cfg_memory_mb);
	return 0;
}

int core_node_register(struct core *core, int64_t now,
		       const struct rota_node_info *info,
		       struct rota_error *err)
{
	struct rota_error why;
	uint32_t idx;
	struct core_node *n;
	int rc;

	if (!core_node_find(core, info->name, &idx))
		return rota_errorf(err, -ENOENT,
				   "node '%s' is not declared in rota.conf",
				   info->name);
	n = &core->nodes[idx];
	rc = check_size(n, info, &why);
	if (rc == 0)
		rc = node_gpus_register(core, idx, info, &why);
	if (rc < 0) {
		/* its jobs cannot be trusted to be there either */
		core_node_down(core, now, n->name, why.text);
		snprintf(n->reason, sizeof(n->reason), "%s", why.text);
		n->state = NODE_DOWN;
		return rota_errorf(err, rc, "%s", why.text);
	}
	reconcile_jobs(core, now, idx, info);
	kill_strays(core, idx, info);
	fence_register(core, idx, info);
	resize_cores(n, n->cfg_cores ? n->cfg_cores : info->cores);
	n->sockets = info->sockets;
	n->pus = info->pus;
	n->memory_mb = n->cfg_memory_mb ? n->cfg_memory_mb : info->memory_mb;
	core->sizes_stamp++; /* placement's smallest nodes may change */
	core_mark_changed(core);
	merge_features(n, info->features);
	n->last_seen = now;
	fence_granted(core, n, now);
	if (n->admin_down)
		return 0; /* an operator's down holds until resume */
	n->state = NODE_UP;
	if (!n->drain)
		n->reason[0] = '\0';
	return 0;
}

bool core_node_seen(struct core *core, int64_t now, const char *name)
{
	struct core_node *n;
	uint32_t idx;

	if (!core_node_find(core, name, &idx))
		return false;
	n = &core->nodes[idx];
	if (n->state == NODE_DOWN && !n->admin_down)
		return false;
	n->last_seen = now;
	fence_granted(core, n, now);
	return true;
}

void core_node_keep_lease(struct core *core, const char *name,
			  int64_t until)
{
	uint32_t idx;

	if (core_node_find(core, name, &idx) &&
	    core->nodes[idx].lease_until < until)
		core->nodes[idx].lease_until = until;
}

void core_node_unreachable(struct core *core, int64_t now, const char *name,
			   const char *reason)
{
	uint32_t idx;

	if (!core_node_find(core, name, &idx) ||
	    core->nodes[idx].state != NODE_UP)
		return;
	core->nodes[idx].state = NODE_UNKNOWN;
	core_mark_changed(core);
	snprintf(core->nodes[idx].reason, sizeof(core->nodes[idx].reason),
		 "%s", reason);
}

void core_node_down(struct core *core, int64_t now, const char *name,
		    const char *reason)
{
	struct core_job *job, *next;
	uint32_t idx;

	if (!core_node_find(core, name, &idx) ||
	    core->nodes[idx].state == NODE_DOWN)
		return;
	core->nodes[idx].state = NODE_DOWN;
	core_mark_changed(core);
	snprintf(core->nodes[idx].reason, sizeof(core->nodes[idx].reason),
		 "%s", reason);
	rota_warn("node '%s' down: %s", name, reason);
	for (job = core->running.head; job; job = next) {
		next = job->next;
		for (uint32_t a = 0; a < job->nalloc; a++) {
			if (job->alloc[a].node != idx)
				continue;
			/*
			 * Wherever it runs, that run must end: a node still
			 * linked (an operator's down) hears it now, a silent
			 * one kills it at its lease's end, or when back.
			 */
			core_end_run(core, job->id, job->run,
				     job->alloc[0].node, SIGKILL);
			/*
			 * Requeued, fenced until that run is over; its end,
			 * of an earlier run, is not taken for the next's.
			 */
			if (!job->desc.no_requeue && !job->cancel_sent) {
				rota_warn("job %u: node '%s' down: requeued",
					  job->id, name);
				core_requeue(core, now, job->id, "NodeFail",
					     true);
				break;
			}
			free(job->end_text);
			job->end_text = rota_xasprintf("node %s: %s",
						       core->nodes[idx].name,
						       reason);
			/* a job being cancelled is over: never run again */
			core_job_finish(core, job, now,
					job->cancel_sent ? ROTA_JOB_CANCELLED
							 : ROTA_JOB_NODE_FAIL);
			break;
		}
	}
}
