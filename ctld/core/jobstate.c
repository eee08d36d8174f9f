// SPDX-License-Identifier: MIT
/*
 * A job's moves between the lists (core.h, "Layers": above the policy,
 * below the passes): it starts running, finishes, goes back to the queue,
 * is freed.  Each move keeps what hangs on it right: its cores and those
 * test queues keep, its reservation's, its association's charging and
 * counts, the running jobs' ends the backfill profile starts from.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "common/xalloc.h"
#include "ctld/core/constraint.h"
#include "ctld/core/core_internal.h"
#include "ctld/core/profile.h"
#include "ctld/core/resv.h"
#include "ctld/core/share.h"

void core_running_add(struct core *core, struct core_job *job)
{
	job_list_append(&core->running, job);
	profile_base_add(core, job);
	usage_run_add(core, job);
	share_count_job(core->share, job->assoc, true, 1);
	array_task_runs(core, job, 1);
}

void core_running_remove(struct core *core, struct core_job *job)
{
	usage_run_remove(core, job);
	profile_base_remove(core, job);
	job_list_remove(&core->running, job);
	share_count_job(core->share, job->assoc, true, -1);
	array_task_runs(core, job, -1);
}

/* A test queue's job counts against its nodes' kept cores. */
static void test_cores(struct core *core, const struct core_job *job,
		       bool add)
{
	if (!core->queues[job->queue].reserved_cores)
		return;
	for (uint32_t i = 0; i < job->nalloc; i++) {
		struct core_node *n = &core->nodes[job->alloc[i].node];
		uint32_t c = job->alloc[i].ncores;

		n->test_used = add ? n->test_used + c
				   : n->test_used - (c < n->test_used
							     ? c
							     : n->test_used);
	}
}

/* What a run held, gone (its nodes gave it back already). */
static void alloc_free(struct core_job *job)
{
	for (uint32_t i = 0; i < job->nalloc; i++) {
		free(job->alloc[i].cores);
		free(job->alloc[i].gpus);
	}
	free(job->alloc);
	job->alloc = NULL;
	job->nalloc = 0;
}

void core_job_take(struct core *core, struct core_job *job)
{
	test_cores(core, job, true);
	licenses_take(core, job);
	gres_job_take(core, job);
	resv_job_take(core, job);
}

void core_job_release(struct core *core, struct core_job *job)
{
	resv_job_release(core, job);
	licenses_give(core, job);
	gres_job_give(core, job);
	for (uint32_t i = 0; i < job->nalloc; i++) {
		node_free_cores(&core->nodes[job->alloc[i].node],
				&job->alloc[i],
				core_job_node_mem(job, job->alloc[i].ncores));
		node_free_gpus(&core->nodes[job->alloc[i].node], job->id,
			       &job->alloc[i]);
	}
	test_cores(core, job, false);
}

void core_job_finish(struct core *core, struct core_job *job, int64_t now,
		     enum rota_job_state state)
{
	if (job->state == ROTA_JOB_PENDING) {
		core_job_set_eligible(job, false, now);
		fence_forget(core, job);
		core_pending_remove(core, job);
		est_clear(job);
	} else {
		usage_charge_job(core, job, now);
		core_running_remove(core, job);
	}
	core_job_release(core, job);
	job->state = state;
	job->end_time = now;
	job->reason = NULL;
	core_mark_dirty(core, job);
	core_mark_ended(core, job);
	/* the script and environment are not needed once a job is over */
	free(job->desc.script);
	job->desc.script = NULL;
	job_list_append(&core->done, job);
	array_task_ended(core, job);
	depend_job_ended(core, job, now);
	core_job_reap_deps(core, now);
}

void core_job_reap_deps(struct core *core, int64_t now)
{
	uint32_t id;

	/* a cancel here reaps the jobs it dooms in this same loop */
	if (core->dep_reaping)
		return;
	core->dep_reaping = true;
	while ((id = depend_take_doomed(core))) {
		struct core_job *j = jobtab_find(core, id);

		if (!j || j->state != ROTA_JOB_PENDING || !depend_never(j))
			continue;
		free(j->end_text);
		j->end_text = rota_xstrdup("DependencyNeverSatisfied");
		core_job_finish(core, j, now, ROTA_JOB_CANCELLED);
	}
	core->dep_reaping = false;
}

int core_requeue(struct core *core, int64_t now, uint32_t job_id,
		 const char *reason, bool may_live)
{
	struct core_job *job = jobtab_find(core, job_id);

	if (!job || job->state != ROTA_JOB_RUNNING)
		return -ENOENT;
	if (may_live)
		fence_set(core, job);
	usage_charge_job(core, job, now);
	core_running_remove(core, job);
	core_job_release(core, job);
	alloc_free(job);
	job->state = ROTA_JOB_PENDING;
	job->start_time = 0;
	job->desc.ntasks = job->ntasks_min; /* a range: asks it all again */
	job->reason = reason;
	core_job_set_eligible(job, !job->hold && !job->dep_wait, now);
	prio_enqueue(core, job, now);
	core_mark_dirty(core, job);
	return 0;
}

void core_job_free(struct core_job *job)
{
	rota_job_desc_clear(&job->desc);
	depend_job_free(job);
	constraint_destroy(job->constraint);
	alloc_free(job);
	free(job->lics);
	free(job->gres);
	est_clear(job);
	array_free(job);
	free(job->limit_reason);
	free(job->limit_detail);
	free(job->end_text);
	free(job->user);
	free(job);
}
