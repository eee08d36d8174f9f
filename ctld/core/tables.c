// SPDX-License-Identifier: MIT
/*
 * The core's tables and their bookkeeping, the bottom layer (core.h,
 * "Layers"): the pending, running and ended lists, the marks the host
 * reads back (changed jobs for the journal, ended jobs for jobcomp, the
 * passes' "something changed"), the action queue, lookups and iteration.
 * Used by every other file of the core; calls none above it.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/xalloc.h"
#include "ctld/core/core_internal.h"
#include "ctld/core/share.h"

/* ---- lists ---------------------------------------------------------------- */

void job_list_append(struct job_list *l, struct core_job *job)
{
	job->next = NULL;
	job->prev = l->tail;
	if (l->tail)
		l->tail->next = job;
	else
		l->head = job;
	l->tail = job;
	l->n++;
}

void job_list_remove(struct job_list *l, struct core_job *job)
{
	if (l->cursors) /* a listing stands on it: moved on first */
		cursor_unlinked(l, job);
	if (job->prev)
		job->prev->next = job->next;
	else
		l->head = job->next;
	if (job->next)
		job->next->prev = job->prev;
	else
		l->tail = job->prev;
	job->prev = job->next = NULL;
	l->n--;
}

/* ---- the walk list -------------------------------------------------------- */

/*
 * A job joins the walk list where its neighbours in the pending list put
 * it: after the nearest walked job before it, or before the nearest after
 * it.  Either is usually close (a submit lands at the tail, a released
 * job among a few held ones); when neither is within WALK_REACH jobs
 * (core_internal.h), the list is rebuilt before the next pass reads it
 * rather than searched.
 */

static bool walkable(const struct core_job *job)
{
	return job->in_pending && !job->hold && !job->dep_wait &&
	       !job->limited && !job->fence_node;
}

static void walk_link(struct core *core, struct core_job *after,
		      struct core_job *job)
{
	struct walk_list *w = &core->walk;

	job->wprev = after;
	job->wnext = after ? after->wnext : w->head;
	if (job->wnext)
		job->wnext->wprev = job;
	else
		w->tail = job;
	if (after)
		after->wnext = job;
	else
		w->head = job;
	w->n++;
	job->in_walk = true;
}

static void walk_unlink(struct core *core, struct core_job *job)
{
	struct walk_list *w = &core->walk;

	if (job->wprev)
		job->wprev->wnext = job->wnext;
	else
		w->head = job->wnext;
	if (job->wnext)
		job->wnext->wprev = job->wprev;
	else
		w->tail = job->wprev;
	job->wprev = job->wnext = NULL;
	w->n--;
	job->in_walk = false;
}

static void walk_insert(struct core *core, struct core_job *job)
{
	const struct core_job *b = job->prev;
	struct core_job *f = job->next;

	if (core->walk_stale)
		return; /* the rebuild will take it */
	for (unsigned k = 0; k < WALK_REACH; k++) {
		if (!b || b->in_walk) { /* nothing walked between */
			walk_link(core, (struct core_job *)b, job);
			return;
		}
		if (!f) {
			walk_link(core, core->walk.tail, job);
			return;
		}
		if (f->in_walk) {
			walk_link(core, f->wprev, job);
			return;
		}
		b = b->prev;
		f = f->next;
	}
	core->walk_stale = true;
}

void core_walk_update(struct core *core, struct core_job *job)
{
	bool want = walkable(job);

	if (want == job->in_walk)
		return;
	/* held, limited, waiting or fenced: the reason rota top shows */
	changes_mark(core, job);
	if (want)
		walk_insert(core, job);
	else
		walk_unlink(core, job);
}

void core_walk_moved(struct core *core, struct core_job *job)
{
	if (!job->in_walk)
		return;
	walk_unlink(core, job);
	walk_insert(core, job);
}

void core_walk_stale(struct core *core)
{
	core->walk_stale = true;
}

void core_walk_refresh(struct core *core)
{
	if (!core->walk_stale)
		return;
	for (struct core_job *j = core->walk.head, *next; j; j = next) {
		next = j->wnext;
		j->wprev = j->wnext = NULL;
		j->in_walk = false;
	}
	core->walk = (struct walk_list){ 0 };
	core->walk_stale = false;
	for (struct core_job *j = core->pending.head; j; j = j->next)
		if (walkable(j))
			walk_link(core, core->walk.tail, j);
}

/* ---- the pending list ----------------------------------------------------- */

void core_pending_add(struct core *core, struct core_job *job)
{
	job_list_append(&core->pending, job);
	core->queue_pending[job->queue]++;
	if (!job->hold)
		share_count_job(core->share, job->assoc, false, 1);
	job->in_pending = true;
	core_walk_update(core, job);
}

void core_pending_insert_after(struct core *core, struct core_job *after,
			       struct core_job *job)
{
	struct job_list *l = &core->pending;

	job->prev = after;
	job->next = after ? after->next : l->head;
	if (job->next)
		job->next->prev = job;
	else
		l->tail = job;
	if (after)
		after->next = job;
	else
		l->head = job;
	l->n++;
	core->queue_pending[job->queue]++;
	if (!job->hold)
		share_count_job(core->share, job->assoc, false, 1);
	job->in_pending = true;
	core_walk_update(core, job);
}

void core_pending_remove(struct core *core, struct core_job *job)
{
	job->in_pending = false;
	core_walk_update(core, job);
	job_list_remove(&core->pending, job);
	core->queue_pending[job->queue]--;
	if (!job->hold)
		share_count_job(core->share, job->assoc, false, -1);
}

void core_pending_set_hold(struct core *core, struct core_job *job,
			   enum core_hold hold)
{
	if (!job->hold != !hold)
		share_count_job(core->share, job->assoc, false,
				hold ? -1 : 1);
	job->hold = hold;
	core_walk_update(core, job);
}

/* ---- marks and actions ---------------------------------------------------- */

void core_ids_push(uint32_t **v, size_t *n, size_t *cap, uint32_t id)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = rota_xreallocarray(*v, *cap, sizeof(**v));
	}
	(*v)[(*n)++] = id;
}

void core_mark_changed(struct core *core)
{
	core->main_settled = false;
	core->bf_settled = false;
}

void core_mark_dirty(struct core *core, struct core_job *job)
{
	/* whatever changed a job may change what a pass does */
	core_mark_changed(core);
	changes_mark(core, job); /* rota top's row too, if it shows it */
	limit_tally_job(core, job); /* and what the limits count of it */
	if (job->dirty)
		return;
	job->dirty = true;
	core_ids_push(&core->dirty, &core->ndirty, &core->dirty_cap, job->id);
}

size_t core_take_dirty(struct core *core, uint32_t **ids)
{
	size_t n = core->ndirty;

	for (size_t i = 0; i < n; i++) {
		struct core_job *job = jobtab_find(core, core->dirty[i]);

		if (job)
			job->dirty = false;
	}
	*ids = core->dirty;
	core->dirty = NULL;
	core->ndirty = core->dirty_cap = 0;
	return n;
}

void core_mark_ended(struct core *core, struct core_job *job)
{
	core_ids_push(&core->ended, &core->nended, &core->ended_cap, job->id);
}

size_t core_take_ended(struct core *core, uint32_t **ids)
{
	size_t n = core->nended;

	*ids = core->ended;
	core->ended = NULL;
	core->nended = core->ended_cap = 0;
	return n;
}

void core_job_recorded(struct core *core, uint32_t id)
{
	struct core_job *job = jobtab_find(core, id);

	if (!job || job->recorded)
		return;
	job->recorded = true;
	core_mark_dirty(core, job);
}

void core_push_action(struct core *core, const struct core_action *a)
{
	if (core->nactions == core->actions_cap) {
		core->actions_cap = core->actions_cap ? 2 * core->actions_cap
						      : 64;
		core->actions = rota_xreallocarray(core->actions,
						   core->actions_cap,
						   sizeof(*core->actions));
	}
	core->actions[core->nactions++] = *a;
}

size_t core_take_actions(struct core *core, struct core_action **out)
{
	size_t n = core->nactions;

	*out = core->actions;
	core->actions = NULL;
	core->nactions = core->actions_cap = 0;
	return n;
}

void core_end_run(struct core *core, uint32_t id, uint32_t run,
		  uint32_t node, int signo)
{
	core_push_action(core, &(struct core_action){
				       .type = CORE_ACTION_SIGNAL,
				       .job_id = id,
				       .run = run,
				       .node = node,
				       .signo = signo,
				       .cancel = true,
			       });
}

/* ---- a job's eligible time ------------------------------------------------ */

int64_t core_job_eligible_time(const struct core_job *job, int64_t now)
{
	int64_t t = job->eligible_accum;

	if (job->eligible && now > job->eligible_since)
		t += now - job->eligible_since;
	return t;
}

void core_job_set_eligible(struct core_job *job, bool eligible, int64_t now)
{
	if (eligible == job->eligible)
		return;
	if (!eligible)
		job->eligible_accum = core_job_eligible_time(job, now);
	job->eligible = eligible;
	job->eligible_since = now;
}

/* ---- lookup and iteration ------------------------------------------------- */

bool core_job_ended_ok(const struct core_job *job)
{
	return job->state == ROTA_JOB_COMPLETED && job->exit_code == 0;
}

struct core_job *core_array_task_find(const struct core *core, uint32_t id,
				      uint32_t task, bool ended)
{
	const struct job_list *lists[] = { &core->pending, &core->running,
					   &core->done };

	for (size_t l = 0; l < (ended ? 3u : 2u); l++)
		for (struct core_job *j = lists[l]->head; j; j = j->next)
			if (j->array_id == id && j->array_task == task)
				return j;
	return NULL;
}

int core_job_access(struct core *core, uint32_t id, uid_t uid,
		    bool is_operator, struct core_job **out,
		    struct rota_error *err)
{
	struct core_job *job = jobtab_find(core, id);

	*out = NULL;
	if (!job)
		return rota_errorf(err, -ENOENT, "job %u: not found", id);
	if (!is_operator && job->uid != uid)
		return rota_errorf(err, -EPERM,
				   "job %u: permission denied: it belongs to "
				   "%s", id, job->user);
	*out = job;
	return 0;
}

int core_find_queue(const struct core *core, const char *name,
		      uint32_t *out, struct rota_error *err)
{
	if (!name) {
		if (!core->nqueues)
			return rota_errorf(err, -ENOENT,
					   "no queue is configured");
		*out = core->default_queue;
		return 0;
	}
	for (size_t i = 0; i < core->nqueues; i++) {
		if (strcmp(core->queues[i].name, name) == 0) {
			*out = (uint32_t)i;
			return 0;
		}
	}
	return rota_errorf(err, -ENOENT, "queue '%s' does not exist", name);
}

char **core_names_copy(char *const *v)
{
	size_t n = 0;
	char **copy;

	if (!v)
		return NULL;
	while (v[n])
		n++;
	copy = rota_xcalloc(n + 1, sizeof(*copy));
	for (size_t i = 0; i < n; i++)
		copy[i] = rota_xstrdup(v[i]);
	return copy;
}

void core_names_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

const struct core_job *core_job_find(const struct core *core, uint32_t id)
{
	return jobtab_find(core, id);
}

size_t core_job_count(const struct core *core)
{
	return core->njobs;
}

void core_pending_foreach(const struct core *core,
			  void (*fn)(const struct core_job *job, void *arg),
			  void *arg)
{
	for (const struct core_job *j = core->pending.head; j; j = j->next)
		fn(j, arg);
}

size_t core_pending_count(const struct core *core)
{
	return core->pending.n;
}

void core_counts(const struct core *core, struct core_counts *out)
{
	*out = (struct core_counts){
		.pending = core->pending.n,
		.running = core->running.n,
		.ended = core->done.n,
	};
	for (size_t i = 0; i < core->nnodes; i++)
		out->nodes_up += core->nodes[i].state == NODE_UP;
}

void core_job_foreach(const struct core *core,
		      void (*fn)(const struct core_job *job, void *arg),
		      void *arg)
{
	jobtab_foreach(core, fn, arg);
}

const struct core_queue *core_queue_get(const struct core *core, uint32_t i)
{
	return i < core->nqueues ? &core->queues[i] : NULL;
}

char *core_job_nodelist(const struct core *core, const struct core_job *job)
{
	const char **names = rota_xcalloc(job->nalloc + 1, sizeof(char *));
	char *text;

	for (uint32_t i = 0; i < job->nalloc; i++)
		names[i] = core->nodes[job->alloc[i].node].name;
	text = rota_hostlist_format(names, job->nalloc);
	free(names);
	return text;
}

/* For rota prio: a plugin that rates all has its running jobs shown too. */
bool core_prio_rates_all(const struct core *core)
{
	return core->prio_rates_all;
}

void core_running_foreach(const struct core *core,
			  void (*fn)(const struct core_job *job, void *arg),
			  void *arg)
{
	for (const struct core_job *j = core->running.head; j; j = j->next)
		fn(j, arg);
}

size_t core_running_count(const struct core *core)
{
	return core->running.n;
}
