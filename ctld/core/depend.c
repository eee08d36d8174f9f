// SPDX-License-Identifier: MIT
/*
 * Job dependencies (core.h, "Layers": policy), as Slurm 22.05 has them:
 * a pending job with a dependency not yet satisfied waits (dep_wait,
 * reason Dependency) and its eligible time stands still, as a held job's
 * does.  Parts are met as their targets move: after when the target
 * starts (plus its minutes) or is cancelled before it started; afterany
 * when it ends; afterok (and aftercorr, for a plain job) when it
 * completes with exit code 0; afternotok when it ends any other way;
 * singleton while no other job of the name and user runs and none older
 * waits (looked at until the job starts).  A met part is dropped
 * (Slurm's scontrol lists only what is left) and desc.dependency
 * rewritten, so that the journal holds what is left: a part still
 * listed whose target is gone could not be met.  A part that can never
 * be met leaves the job waiting with reason DependencyNeverSatisfied,
 * or cancelled when it asked --kill-on-invalid-dep=yes: the ids go to a
 * list the moves take (core_job_reap_deps), this layer being below
 * them.
 *
 * The work per event is bounded by the jobs it concerns: a table maps a
 * target id to the ids of the jobs that wait for it, which an end or a
 * start of the target walks once.  Stale entries (a dependent since
 * changed, ended or forgotten) are skipped when walked.  after+MIN parts
 * whose target runs wait on the clock in a list core_tick looks at;
 * singleton jobs in another, looked at when a job of their name and user
 * starts or ends.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/depend.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "ctld/core/core_internal.h"

enum dep_state {
	DEP_WAIT = 0,
	DEP_MET,
	DEP_NEVER,		/* its target ended the wrong way, or is gone */
};

struct dep_item {
	enum rota_depend_type type;
	uint32_t job_id;
	uint32_t minutes;
	enum dep_state state;
};

struct core_deps {
	struct dep_item *items;
	size_t n;
	bool any;		/* one met part suffices ('?') */
	bool never;		/* it can never be satisfied */
	bool timed;		/* listed in the timed list */
	uint64_t mark;		/* the cycle search that saw it last */
};

/* A target and the ids of the jobs that wait for it. */
struct dep_slot {
	uint32_t target;	/* 0: free */
	uint32_t n;
	uint32_t cap;
	uint32_t *ids;
};

struct id_list {
	uint32_t *v;
	size_t n;
	size_t cap;
};

struct depend {
	struct dep_slot *slots;	/* open addressing, a power of two */
	size_t nslots;
	size_t used;
	struct id_list timed;	/* jobs with an after+MIN on the clock */
	struct id_list single;	/* pending jobs with a singleton part */
	struct id_list doomed;	/* to cancel: --kill-on-invalid-dep */
	uint64_t gen;		/* cycle searches so far */
};

static void id_push(struct id_list *l, uint32_t id)
{
	core_ids_push(&l->v, &l->n, &l->cap, id);
}

static struct depend *dep_state(struct core *core)
{
	if (!core->depend)
		core->depend = rota_xcalloc(1, sizeof(*core->depend));
	return core->depend;
}

/* ---- the table: target id -> waiting ids ---------------------------------- */

static size_t slot_home(const struct depend *d, uint32_t id)
{
	return (size_t)(id * 2654435761u) & (d->nslots - 1);
}

static struct dep_slot *slot_find(const struct depend *d, uint32_t id)
{
	if (!d->nslots)
		return NULL;
	for (size_t s = slot_home(d, id); d->slots[s].target;
	     s = (s + 1) & (d->nslots - 1))
		if (d->slots[s].target == id)
			return &d->slots[s];
	return NULL;
}

static struct dep_slot *slot_claim(struct depend *d, uint32_t id)
{
	size_t s = slot_home(d, id);

	while (d->slots[s].target && d->slots[s].target != id)
		s = (s + 1) & (d->nslots - 1);
	if (!d->slots[s].target) {
		d->slots[s].target = id;
		d->used++;
	}
	return &d->slots[s];
}

static void table_grow(struct depend *d)
{
	struct dep_slot *old = d->slots;
	size_t n = d->nslots;

	d->nslots = n ? 2 * n : 64;
	d->slots = rota_xcalloc(d->nslots, sizeof(*d->slots));
	d->used = 0;
	for (size_t i = 0; i < n; i++)
		if (old[i].target)
			*slot_claim(d, old[i].target) = old[i];
	free(old);
}

static void table_add(struct depend *d, uint32_t target, uint32_t id)
{
	struct dep_slot *s;

	if ((d->used + 1) * 2 > d->nslots)
		table_grow(d);
	s = slot_claim(d, target);
	if (s->n && s->ids[s->n - 1] == id)
		return; /* afterok:5:5, or a second part on it */
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 2;
		s->ids = rota_xreallocarray(s->ids, s->cap, sizeof(*s->ids));
	}
	s->ids[s->n++] = id;
}

/* Take a target's entry out (backward shift: no tombstones). */
static void table_remove(struct depend *d, struct dep_slot *s)
{
	size_t i = (size_t)(s - d->slots), j = i;

	free(s->ids);
	d->slots[i] = (struct dep_slot){ 0 };
	d->used--;
	for (;;) {
		size_t home;

		j = (j + 1) & (d->nslots - 1);
		if (!d->slots[j].target)
			return;
		home = slot_home(d, d->slots[j].target);
		/* may the entry at j move back to the hole at i? */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && home <= i && home > j)) {
			d->slots[i] = d->slots[j];
			d->slots[j] = (struct dep_slot){ 0 };
			i = j;
		}
	}
}

/* Counted, so that the main pass stops once it has seen all the others. */
static void set_wait(struct core *core, struct core_job *job, bool wait)
{
	if (wait != job->dep_wait)
		core->ndep_wait = wait ? core->ndep_wait + 1
				       : core->ndep_wait - 1;
	job->dep_wait = wait;
	core_walk_update(core, job);
}

/* ---- one part, one job ---------------------------------------------------- */

/* No other job of this name and user runs, and none older waits. */
static bool singleton_free(const struct core *core, const struct core_job *job)
{
	const struct core_job *lists[] = { core->running.head,
					   core->pending.head };

	for (size_t l = 0; l < 2; l++)
		for (const struct core_job *j = lists[l]; j; j = j->next)
			if (j != job && j->uid == job->uid &&
			    strcmp(j->desc.name, job->desc.name) == 0 &&
			    (j->state == ROTA_JOB_RUNNING || j->id < job->id))
				return false;
	return true;
}

/* A job's end as afterok and afternotok read it. */
static enum dep_state ended_as(const struct core_job *t, bool ok_wanted)
{
	if (!rota_job_state_is_final(t->state))
		return DEP_WAIT;
	return core_job_ended_ok(t) == ok_wanted ? DEP_MET : DEP_NEVER;
}

/*
 * aftercorr: task i of this array after task i of array 'id' completed;
 * i is this job's task, or for its pending rest the next to start.  No
 * such task in 'id': nothing to wait for (as Slurm).
 */
static enum dep_state corr_eval(const struct core *core,
				const struct core_job *job, uint32_t id)
{
	const struct core_job *rest = jobtab_find(core, id), *t;
	uint32_t i = job->array ? rota_taskset_lowest(&job->array->tasks)
				: job->array_task;

	if (!job->array_id || i == UINT32_MAX)
		return rest ? ended_as(rest, true) : DEP_NEVER;
	if (rest && rest->array && rota_taskset_has(&rest->array->tasks, i))
		return DEP_WAIT;
	t = core_array_task_find(core, id, i, true);
	return t ? ended_as(t, true) : DEP_MET;
}

/* after, afterany, afterok, afternotok on a whole array (its tally). */
static enum dep_state array_eval(const struct array_tally *a,
				 const struct dep_item *it, int64_t now,
				 bool *timed)
{
	switch (it->type) {
	case ROTA_DEPEND_AFTER:
		if (!a->first_start)
			return a->active ? DEP_WAIT : DEP_MET;
		if (now >= a->first_start + (int64_t)it->minutes * 60)
			return DEP_MET;
		*timed = true;
		return DEP_WAIT;
	case ROTA_DEPEND_AFTERANY:
		return a->active ? DEP_WAIT : DEP_MET;
	case ROTA_DEPEND_AFTEROK:
		return a->active ? DEP_WAIT : a->failed ? DEP_NEVER : DEP_MET;
	case ROTA_DEPEND_AFTERNOTOK:
		return a->active ? DEP_WAIT : a->failed ? DEP_MET : DEP_NEVER;
	default:
		return DEP_NEVER;
	}
}

static enum dep_state item_eval(const struct core *core,
				const struct core_job *job,
				const struct dep_item *it, int64_t now,
				bool *timed)
{
	const struct array_tally *a;
	const struct core_job *t;
	bool final;

	if (it->type == ROTA_DEPEND_SINGLETON)
		return singleton_free(core, job) ? DEP_MET : DEP_WAIT;
	if (it->type == ROTA_DEPEND_AFTERCORR)
		return corr_eval(core, job, it->job_id);
	/* an array's id: all of its tasks (Slurm's) */
	a = array_tally_find(core, it->job_id);
	if (a)
		return array_eval(a, it, now, timed);
	t = jobtab_find(core, it->job_id);
	if (!t)
		return DEP_NEVER; /* met parts are dropped: this one was not */
	final = rota_job_state_is_final(t->state);
	switch (it->type) {
	case ROTA_DEPEND_AFTER:
		if (t->state == ROTA_JOB_PENDING)
			return DEP_WAIT;
		/* its start, or its cancel if it never started (Slurm's) */
		if (now >= (t->start_time ? t->start_time : t->end_time) +
				   (int64_t)it->minutes * 60)
			return DEP_MET;
		*timed = true;
		return DEP_WAIT;
	case ROTA_DEPEND_AFTERANY:
		return final ? DEP_MET : DEP_WAIT;
	case ROTA_DEPEND_AFTEROK:
		return ended_as(t, true);
	case ROTA_DEPEND_AFTERNOTOK:
		return ended_as(t, false);
	default:
		return DEP_NEVER;
	}
}

/* desc.dependency anew from the parts left (NULL: none). */
static void deps_rewrite(struct core_job *job)
{
	const struct core_deps *deps = job->deps;
	struct rota_depend d = { .n = deps ? deps->n : 0,
				 .any = deps && deps->any };

	d.items = rota_xcalloc(d.n + 1, sizeof(*d.items));
	for (size_t i = 0; i < d.n; i++)
		d.items[i] = (struct rota_depend_item){
			.type = deps->items[i].type,
			.job_id = deps->items[i].job_id,
			.minutes = deps->items[i].minutes,
		};
	free(job->desc.dependency);
	job->desc.dependency = rota_depend_format(&d);
	free(d.items);
}

static void deps_free(struct core_deps *deps)
{
	if (!deps)
		return;
	free(deps->items);
	free(deps);
}

/*
 * Look at every part of a pending job's dependency again: drop the met
 * ones (but singleton, looked at again until the job starts, as Slurm
 * does), and set dep_wait, the reason and the eligible time by what is
 * left.  Marks the job dirty if anything changed.
 */
static void deps_eval(struct core *core, struct core_job *job, int64_t now)
{
	struct core_deps *deps = job->deps;
	size_t k = 0, met = 0, never = 0, n;
	bool timed = false, single = false, ok, was = job->dep_wait, was_never;
	bool keep;

	if (!deps || job->state != ROTA_JOB_PENDING)
		return;
	was_never = deps->never;
	n = deps->n;
	for (size_t i = 0; i < n; i++) {
		struct dep_item *it = &deps->items[i];

		it->state = item_eval(core, job, it, now, &timed);
		met += it->state == DEP_MET;
		never += it->state == DEP_NEVER;
		/* asked again until it starts: singleton, and a rest's
		   aftercorr (its next task is another) */
		keep = it->type == ROTA_DEPEND_SINGLETON ||
		       (it->type == ROTA_DEPEND_AFTERCORR && job->array);
		single |= keep;
		if (it->state != DEP_MET || keep)
			deps->items[k++] = *it;
	}
	ok = deps->any ? met > 0 : met == n;
	deps->n = k;
	deps->never = !ok && (deps->any ? never == n : never > 0);
	if (ok && (deps->any || !single)) {
		deps_free(deps);
		job->deps = NULL;
	}
	if (k < n || !job->deps)
		deps_rewrite(job);
	set_wait(core, job, !ok);
	if (timed && !ok && !job->deps->timed) {
		job->deps->timed = true;
		id_push(&dep_state(core)->timed, job->id);
	}
	if (!ok && job->deps->never && !was_never &&
	    job->desc.kill_on_invalid_dep)
		id_push(&dep_state(core)->doomed, job->id);
	if (k < n || !job->deps || job->dep_wait != was ||
	    (!ok && job->deps->never != was_never)) {
		core_job_set_eligible(job, !job->hold && !job->limited &&
						   !job->dep_wait, now);
		core_mark_dirty(core, job);
	}
}

/* ---- submit, update, restore ---------------------------------------------- */

/* A parsed list as the core keeps it. */
static struct core_deps *deps_from(const struct rota_depend *d)
{
	struct core_deps *deps = rota_xcalloc(1, sizeof(*deps));

	deps->items = rota_xcalloc(d->n + 1, sizeof(*deps->items));
	deps->n = d->n;
	deps->any = d->any;
	for (size_t i = 0; i < d->n; i++)
		deps->items[i] = (struct dep_item){
			.type = d->items[i].type,
			.job_id = d->items[i].job_id,
			.minutes = d->items[i].minutes,
		};
	return deps;
}

/* Would 'self' depend on itself through its targets' dependencies? */
static int cycle_check(struct core *core, uint32_t self,
		       const struct core_deps *deps, struct rota_error *err)
{
	struct depend *d = dep_state(core);
	struct id_list stack = { 0 };
	uint32_t found = 0;

	d->gen++;
	for (size_t i = 0; i < deps->n; i++)
		if (deps->items[i].job_id)
			id_push(&stack, deps->items[i].job_id);
	while (stack.n && !found) {
		uint32_t id = stack.v[--stack.n];
		const struct core_job *t = jobtab_find(core, id);

		if (id == self) {
			found = id;
			break;
		}
		if (!t || !t->deps || t->deps->mark == d->gen)
			continue;
		t->deps->mark = d->gen;
		for (size_t i = 0; i < t->deps->n; i++)
			if (t->deps->items[i].job_id)
				id_push(&stack, t->deps->items[i].job_id);
	}
	free(stack.v);
	if (found)
		return rota_errorf(err, -EINVAL,
				   "dependency: job %u would wait for itself "
				   "(a cycle)", self);
	return 0;
}

int depend_prepare(struct core *core, uint32_t self, const char *text,
		   struct core_deps **out, struct rota_error *err)
{
	struct rota_depend d;
	struct core_deps *deps;
	int rc = rota_depend_parse(text ? text : "", &d, err);

	*out = NULL;
	if (rc < 0 || !d.n) {
		rota_depend_clear(&d);
		return rc;
	}
	deps = deps_from(&d);
	for (size_t i = 0; i < d.n && rc == 0; i++)
		if (d.items[i].job_id && !jobtab_find(core, d.items[i].job_id))
			rc = rota_errorf(err, -ENOENT,
					 "dependency: job %u not found",
					 d.items[i].job_id);
	rota_depend_clear(&d);
	if (rc == 0 && self)
		rc = cycle_check(core, self, deps, err);
	if (rc < 0) {
		deps_free(deps);
		return rc;
	}
	*out = deps;
	return 0;
}

/* Wait for the targets: listed under each, singleton in its list. */
static void deps_register(struct core *core, struct core_job *job)
{
	struct depend *d = dep_state(core);
	bool single = false;

	for (size_t i = 0; job->deps && i < job->deps->n; i++) {
		const struct dep_item *it = &job->deps->items[i];

		if (it->type == ROTA_DEPEND_SINGLETON)
			single = true;
		else
			table_add(d, it->job_id, job->id);
	}
	if (single)
		id_push(&d->single, job->id);
}

void depend_attach(struct core *core, struct core_job *job,
		   struct core_deps *deps, int64_t now)
{
	bool was = job->dep_wait;

	deps_free(job->deps);
	job->deps = deps;
	set_wait(core, job, deps != NULL);
	deps_rewrite(job);
	deps_register(core, job);
	deps_eval(core, job, now);
	if (job->dep_wait == was)
		return;
	core_job_set_eligible(job, !job->hold && !job->limited &&
					   !job->dep_wait, now);
	core_mark_dirty(core, job);
}

void depend_restore(struct core *core, struct core_job *job)
{
	struct rota_depend d;
	struct rota_error err = { "" };

	if (job->state != ROTA_JOB_PENDING || !job->desc.dependency ||
	    rota_depend_parse(job->desc.dependency, &d, &err) < 0)
		return;
	if (!d.n) {
		rota_depend_clear(&d);
		return;
	}
	job->deps = deps_from(&d);
	rota_depend_clear(&d);
	set_wait(core, job, true);
	/* its eligible time as journaled: it was not eligible then */
	job->eligible = false;
	deps_register(core, job);
	/*
	 * Targets may be gone (a journal older than MinJobAge): what is
	 * listed was not met then, so a missing one counts as never.  All
	 * parts are looked at again by the next core_tick.
	 */
	job->deps->timed = true;
	id_push(&dep_state(core)->timed, job->id);
}

/* ---- what the targets do -------------------------------------------------- */

/* Singleton jobs of the name and user of 'job' look again. */
static void singles_eval(struct core *core, const struct core_job *job,
			 int64_t now)
{
	struct id_list *l = core->depend ? &core->depend->single : NULL;
	size_t k = 0;

	for (size_t i = 0; l && i < l->n; i++) {
		struct core_job *j = jobtab_find(core, l->v[i]);

		if (!j || !j->deps || j->state != ROTA_JOB_PENDING)
			continue; /* gone, or met: no longer listed */
		l->v[k++] = l->v[i];
		if (j != job && j->uid == job->uid &&
		    strcmp(j->desc.name, job->desc.name) == 0)
			deps_eval(core, j, now);
	}
	if (l)
		l->n = k;
}

static void dependents_eval(struct core *core, uint32_t target, int64_t now,
			    bool last)
{
	struct depend *d = core->depend;
	struct dep_slot *s = d ? slot_find(d, target) : NULL;

	if (!s)
		return;
	/* deps_eval adds nothing to the table: 's' stays put */
	for (uint32_t i = 0; i < s->n; i++) {
		struct core_job *j = jobtab_find(core, s->ids[i]);

		if (j)
			deps_eval(core, j, now);
	}
	if (last)
		table_remove(d, s);
}

void depend_job_started(struct core *core, struct core_job *job, int64_t now)
{
	dependents_eval(core, job->id, now, false);
	if (job->array_id && job->array_id != job->id)
		dependents_eval(core, job->array_id, now, false);
	singles_eval(core, job, now);
}

void depend_job_ended(struct core *core, struct core_job *job, int64_t now)
{
	const struct array_tally *a = job->array_id
		? array_tally_find(core, job->array_id) : NULL;

	set_wait(core, job, false); /* cancelled while it waited */
	/*
	 * Every part on it is decided now: it is never looked up again.
	 * On an array's id, once the last of its tasks has ended.
	 */
	if (job->id != job->array_id)
		dependents_eval(core, job->id, now, true);
	if (job->array_id)
		dependents_eval(core, job->array_id, now, !a || !a->active);
	singles_eval(core, job, now);
}

void depend_again(struct core *core, struct core_job *job, int64_t now)
{
	deps_eval(core, job, now);
}

void depend_tick(struct core *core, int64_t now)
{
	struct id_list *l = core->depend ? &core->depend->timed : NULL;
	size_t n = l ? l->n : 0;

	if (!n)
		return;
	/* those still timed push themselves again, past the old end */
	for (size_t i = 0; i < n; i++) {
		struct core_job *j = jobtab_find(core, l->v[i]);

		if (!j || !j->deps)
			continue;
		j->deps->timed = false;
		deps_eval(core, j, now);
	}
	memmove(l->v, l->v + n, (l->n - n) * sizeof(*l->v));
	l->n -= n;
}

uint32_t depend_take_doomed(struct core *core)
{
	struct id_list *l = core->depend ? &core->depend->doomed : NULL;

	return l && l->n ? l->v[--l->n] : 0;
}

void depend_job_free(struct core_job *job)
{
	deps_free(job->deps);
	job->deps = NULL;
}

void depend_fini(struct core *core)
{
	struct depend *d = core->depend;

	if (!d)
		return;
	for (size_t i = 0; i < d->nslots; i++)
		free(d->slots[i].ids);
	free(d->slots);
	free(d->timed.v);
	free(d->single.v);
	free(d->doomed.v);
	free(d);
	core->depend = NULL;
}

/* ---- what is shown -------------------------------------------------------- */

bool depend_never(const struct core_job *job)
{
	return job->deps && job->deps->never;
}

char *core_job_dependency(const struct core_job *job)
{
	const struct core_deps *deps = job->deps;
	struct rota_strbuf b = { 0 };
	size_t len;

	for (size_t i = 0; deps && i < deps->n; i++) {
		const struct dep_item *it = &deps->items[i];

		if (it->state == DEP_MET)
			continue; /* a singleton free now */
		if (b.len)
			rota_strbuf_adds(&b, deps->any ? "?" : ",");
		rota_strbuf_adds(&b, rota_depend_type_name(it->type));
		if (it->job_id)
			rota_strbuf_addf(&b, ":%u", it->job_id);
		if (it->minutes)
			rota_strbuf_addf(&b, "+%u", it->minutes);
		rota_strbuf_adds(&b, it->state == DEP_NEVER ? "(failed)"
							    : "(unfulfilled)");
	}
	return rota_strbuf_take(&b, &len);
}

bool core_job_dep_waits_for(const struct core *core,
			    const struct core_job *job,
			    struct core_dep_wait *out)
{
	const struct core_deps *deps = job->dep_wait ? job->deps : NULL;

	*out = (struct core_dep_wait){ 0 };
	for (size_t i = 0; deps && i < deps->n; i++) {
		const struct dep_item *it = &deps->items[i];

		/* never satisfied: name a part that failed */
		if (it->state == DEP_MET ||
		    (deps->never && it->state != DEP_NEVER))
			continue;
		out->type = it->type;
		out->job_id = it->job_id;
		out->target = it->job_id ? jobtab_find(core, it->job_id)
					 : NULL;
		return true;
	}
	return false;
}
