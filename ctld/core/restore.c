// SPDX-License-Identifier: MIT
/*
 * Rebuilding the tables from a journal (see core.h): each record is a
 * whole job state, so a record replaces what an earlier one built.  Jobs
 * may come back out of id order; core_restore_finish() puts the id index,
 * the pending list (submit order) and the ended list (end order) right.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "ctld/core/constraint.h"
#include "ctld/core/core_internal.h"
#include "ctld/core/share.h"

/* Take a job out of every table and list, its cores back to its nodes. */
static void unlink_job(struct core *core, struct core_job *job)
{
	if (job->state == ROTA_JOB_PENDING)
		core_pending_remove(core, job);
	else if (job->state == ROTA_JOB_RUNNING)
		core_running_remove(core, job);
	else
		job_list_remove(&core->done, job);
	if (job->state == ROTA_JOB_RUNNING)
		core_job_release(core, job);
	limit_tally_forget(core, job);
	jobtab_remove(core, job->id);
}

/* A node of unknown size holding a restored job's core 'c' grows to it. */
static void node_fit(struct core_node *n, uint32_t c)
{
	if (c < n->cores)
		return;
	n->core_busy = rota_xrealloc(n->core_busy, c + 1);
	memset(n->core_busy + n->cores, 0, c + 1 - n->cores);
	n->cores = c + 1;
}

static int restore_alloc(struct core *core, int64_t now,
			 struct core_job *job,
			 const struct core_job_state *st,
			 struct rota_error *err)
{
	job->alloc = rota_xcalloc(st->nalloc ? st->nalloc : 1,
				  sizeof(*job->alloc));
	for (uint32_t i = 0; i < st->nalloc; i++) {
		const struct core_alloc_state *as = &st->alloc[i];
		struct core_alloc *a = &job->alloc[i];
		struct core_node *n;

		if (!core_node_find(core, as->node, &a->node))
			return rota_errorf(err, -ENOENT,
					   "job %u ran on node '%s', which "
					   "rota.conf no longer has",
					   st->id, as->node);
		job->nalloc = i + 1;
		n = &core->nodes[a->node];
		a->ncores = as->ncores;
		a->cores = rota_xcalloc(as->ncores ? as->ncores : 1,
					sizeof(uint32_t));
		for (uint32_t k = 0; k < as->ncores; k++) {
			a->cores[k] = as->cores[k];
			node_fit(n, as->cores[k]);
			if (!n->core_busy[as->cores[k]]) {
				n->core_busy[as->cores[k]] = 1;
				n->cores_used++;
			}
		}
		n->mem_used_mb += core_job_node_mem(job, a->ncores);
		/* its node marks them when it registers (gpus.c) */
		a->ngpus = as->ngpus;
		a->gpus = rota_xcalloc(as->ngpus + 1, sizeof(uint32_t));
		if (as->ngpus)
			memcpy(a->gpus, as->gpus,
			       as->ngpus * sizeof(uint32_t));
		/* its node has NodeTimeout from now to come back with it */
		if (n->last_seen < now)
			n->last_seen = now;
	}
	return 0;
}

static void place_in_list(struct core *core, struct core_job *job)
{
	if (job->state == ROTA_JOB_PENDING)
		core_pending_add(core, job);
	else if (job->state == ROTA_JOB_RUNNING)
		core_running_add(core, job);
	else
		job_list_append(&core->done, job);
}

int core_restore_job(struct core *core, int64_t now,
		     struct core_job_state *st, struct rota_error *err)
{
	struct core_job *job, *old;
	uint32_t node = 0;
	int rc;

	if (st->id == 0 || st->state == ROTA_JOB_NONE ||
	    st->state >= ROTA_JOB_STATE_COUNT ||
	    (st->state == ROTA_JOB_RUNNING && st->nalloc == 0))
		return rota_errorf(err, -EINVAL, "job %u: inconsistent record",
				   st->id);
	job = rota_xcalloc(1, sizeof(*job));
	rc = core_find_queue(core, st->queue, &job->queue, err);
	if (rc == 0 && st->desc.constraint)
		rc = constraint_parse(st->desc.constraint, &job->constraint,
				      err);
	if (rc == 0 && st->state == ROTA_JOB_RUNNING) {
		job->desc.mem_mb = st->desc.mem_mb;
		job->desc.mem_per_cpu_mb = st->desc.mem_per_cpu_mb;
		rc = restore_alloc(core, now, job, st, err);
		if (rc < 0) /* give back what it took */
			for (uint32_t i = 0; i < job->nalloc; i++)
				node_free_cores(
					&core->nodes[job->alloc[i].node],
					&job->alloc[i],
					core_job_node_mem(job, job->alloc[i].ncores));
	}
	/* as for a running job's node: its previous run may live there */
	if (rc == 0 && st->fence && st->state == ROTA_JOB_PENDING &&
	    !core_node_find(core, st->fence, &node))
		rc = rota_errorf(err, -ENOENT,
				 "its previous run may still be alive on node "
				 "'%s', which rota.conf no longer has",
				 st->fence);
	if (rc < 0) {
		job->desc = (struct rota_job_desc){ 0 };
		core_job_free(job);
		return rc == -ENOENT
			       ? rota_errorf(err, rc, "job %u: %s", st->id,
					     err->text)
			       : rc;
	}
	old = jobtab_find(core, st->id);
	if (old) {
		fence_forget(core, old);
		unlink_job(core, old);
		core_job_free(old);
	}
	job->desc = st->desc;
	st->desc = (struct rota_job_desc){ 0 };
	job->ntasks_min = st->ntasks_min && st->ntasks_min <= job->desc.ntasks
				  ? st->ntasks_min
				  : job->desc.ntasks;
	/* lenient, as below: licenses rota.conf no longer counts are none */
	licenses_job_parse(core, job, &(struct rota_error){ { 0 } });
	gres_job_parse(core, job, &(struct rota_error){ { 0 } });
	/* with its request: a job of a reservation counts in it again */
	if (job->nalloc)
		core_job_take(core, job);
	job->id = st->id;
	job->state = st->state;
	job->uid = st->uid;
	job->gid = st->gid;
	job->user = st->user ? rota_xstrdup(st->user)
			     : rota_xasprintf("%u", (unsigned)st->uid);
	/* lenient: a job rota.conf no longer allows still runs its course */
	share_assoc(core->share, job->user, job->desc.account, true,
		    &job->assoc, NULL);
	free(job->desc.account);
	job->desc.account =
		rota_xstrdup(share_assoc_account(core->share, job->assoc));
	job->time_limit = st->time_limit;
	job->submit_time = st->submit_time;
	job->start_time = st->start_time;
	job->end_time = st->end_time;
	job->exit_code = st->exit_code;
	job->term_signal = st->term_signal;
	job->cpu_usec = st->cpu_usec;
	job->mem_peak = st->mem_peak;
	job->run = st->run;
	job->eligible_accum = st->eligible_accum;
	job->eligible_since = st->eligible_since;
	job->hold = st->hold;
	job->eligible = st->state == ROTA_JOB_PENDING && !st->hold;
	job->end_text = st->end_text ? rota_xstrdup(st->end_text) : NULL;
	job->recorded = st->recorded;
	if (st->fence && st->state == ROTA_JOB_PENDING)
		fence_restore(core, job, node, now);
	job->array_id = st->array_id;
	job->array_task = st->array_task;
	job->shape = st->array_shape;
	if (st->array_rest)
		array_restore(job, st->array_rest);
	jobtab_insert(core, job);
	place_in_list(core, job);
	core_raise_next_id(core, job->id + 1);
	return 0;
}

static int by_id(const void *a, const void *b)
{
	const struct core_job *x = *(const struct core_job *const *)a;
	const struct core_job *y = *(const struct core_job *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int by_end(const void *a, const void *b)
{
	const struct core_job *x = *(const struct core_job *const *)a;
	const struct core_job *y = *(const struct core_job *const *)b;

	if (x->end_time != y->end_time)
		return x->end_time < y->end_time ? -1 : 1;
	return by_id(a, b);
}

/* Re-thread a list in the order 'cmp' gives. */
static void sort_list(struct job_list *l, int (*cmp)(const void *,
						     const void *))
{
	size_t n = l->n, i = 0;
	struct core_job **v = rota_xcalloc(n + 1, sizeof(*v));

	for (struct core_job *j = l->head; j; j = j->next)
		v[i++] = j;
	qsort(v, n, sizeof(*v), cmp);
	*l = (struct job_list){ 0 };
	for (i = 0; i < n; i++)
		job_list_append(l, v[i]);
	free(v);
}


void core_restore_finish(struct core *core)
{
	/* the last usage record holds every charge up to its time */
	for (struct core_job *j = core->running.head; j; j = j->next)
		j->charged_until = j->start_time > core->usage_restored_at
					   ? j->start_time
					   : core->usage_restored_at;
	core->charged_all = core->usage_restored_at;
	usage_run_rebuild(core);
	usage_marks_apply(core);
	array_recount(core);
	jobtab_sort(core);
	/* ratings are not journaled: all are rated before the next pass */
	prio_sort(core);
	core_walk_stale(core); /* its jobs came back in any order */
	core->prio_stale = true;
	sort_list(&core->done, by_end);
	/* every target is back: dependencies may look them up */
	for (struct core_job *j = core->pending.head; j; j = j->next)
		depend_restore(core, j);
	/* the limits count every job as it now is, held and waiting too */
	limit_tally_rebuild(core);
	/* ends whose records may not have reached jobcomp: offer them again */
	for (struct core_job *j = core->done.head; j; j = j->next)
		if (!j->recorded)
			core_mark_ended(core, j);
}

uint32_t core_next_id(const struct core *core)
{
	return core->next_id;
}

void core_raise_next_id(struct core *core, uint32_t next)
{
	if (next > core->next_id)
		core->next_id = next;
}
