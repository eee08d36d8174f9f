// SPDX-License-Identifier: MIT
/*
 * Job arrays (core.h, struct core_array; "Layers": moves).  As Slurm
 * does, a pending array is one record however many tasks it has: the job
 * submitted, holding the ids not started yet.  When a pass is about to
 * start a task, the lowest id splits off into a job of its own (a new job
 * id, the array's id and its task id, a copy of the request) and starts;
 * the record stays where it is in the order.  Its last task is the record
 * itself, which then keeps the array's job id, as Slurm's does.  A throttle
 * (%N) holds the rest back while N of its tasks run.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "common/xalloc.h"
#include "ctld/core/constraint.h"
#include "ctld/core/core_internal.h"

static struct core_array_shape shape_of(struct rota_taskset *ts)
{
	struct core_array_shape sh = {
		.count = ts->count,
		.min = rota_taskset_first(ts),
		.max = rota_taskset_last(ts),
		.step = 1,
	};
	uint32_t id = sh.min, next = rota_taskset_next(ts, id);

	if (next == UINT32_MAX)
		return sh;
	sh.step = next - id;
	for (; next != UINT32_MAX; id = next, next = rota_taskset_next(ts, id))
		if (next - id != sh.step) {
			sh.step = 1;
			break;
		}
	return sh;
}

int array_submit(struct core *core, struct core_job *job,
		 struct rota_error *err)
{
	struct core_array *a;
	struct rota_error why;

	if (!job->desc.array)
		return 0;
	a = rota_xcalloc(1, sizeof(*a));
	if (rota_taskset_parse(job->desc.array, core->max_array_size,
			       &a->tasks, &a->throttle, &why) < 0) {
		free(a);
		return rota_errorf(err, -EINVAL, "--array=%s: %s",
				   job->desc.array, why.text);
	}
	a->quota = UINT32_MAX;
	job->array = a;
	job->array_task = ROTA_ARRAY_PENDING_REST;
	job->shape = shape_of(&a->tasks);
	return 0;
}

void array_free(struct core_job *job)
{
	if (!job->array)
		return;
	rota_taskset_fini(&job->array->tasks);
	free(job->array);
	job->array = NULL;
}

bool array_throttled(const struct core *core, const struct core_job *job)
{
	const struct core_job *rest = job->array ? job
				      : job->array_id
					      ? jobtab_find(core, job->array_id)
					      : NULL;

	/* a task split off pending (acted on alone) counts as the rest's */
	return rest && rest->array && rest->array->throttle &&
	       rest->array->running >= rest->array->throttle;
}

bool array_spent(const struct core_job *job)
{
	return job->array && !job->array->quota;
}

void array_accepted(struct core *core, const struct core_job *job)
{
	if (job->array)
		array_tally_get(core, job->id)->active =
			job->array->tasks.count;
}

void array_task_ended(struct core *core, const struct core_job *job)
{
	struct array_tally *a;
	uint32_t n = job->array ? job->array->tasks.count : 1;

	if (!job->array_id)
		return;
	a = array_tally_get(core, job->array_id);
	a->active -= n < a->active ? n : a->active;
	if (!core_job_ended_ok(job))
		a->failed += n;
}

void array_task_runs(struct core *core, const struct core_job *job,
		     int delta)
{
	struct core_job *rest;

	if (!job->array_id)
		return;
	if (delta > 0 && job->start_time) {
		struct array_tally *a = array_tally_get(core, job->array_id);

		if (!a->first_start || job->start_time < a->first_start)
			a->first_start = job->start_time;
	}
	rest = jobtab_find(core, job->array_id);
	if (!rest || !rest->array)
		return; /* no rest left to throttle */
	if (delta < 0 && !rest->array->running)
		return;
	rest->array->running = (uint32_t)((int)rest->array->running + delta);
	if (delta < 0)
		core_mark_changed(core); /* a throttled rest may go on */
}

/*
 * The request of 'from', every string its own (a string field added to
 * struct rota_job_desc needs its line here, or the copy shares it).
 */
static void desc_copy(struct rota_job_desc *to, const struct rota_job_desc *from)
{
	*to = *from;
	to->name = from->name ? rota_xstrdup(from->name) : NULL;
	to->script = from->script ? rota_xstrdup(from->script) : NULL;
	to->workdir = from->workdir ? rota_xstrdup(from->workdir) : NULL;
	to->output = from->output ? rota_xstrdup(from->output) : NULL;
	to->error = from->error ? rota_xstrdup(from->error) : NULL;
	to->queue = from->queue ? rota_xstrdup(from->queue) : NULL;
	to->account = from->account ? rota_xstrdup(from->account) : NULL;
	to->constraint = from->constraint ? rota_xstrdup(from->constraint)
					  : NULL;
	to->qos = from->qos ? rota_xstrdup(from->qos) : NULL;
	to->reservation = from->reservation ? rota_xstrdup(from->reservation)
					    : NULL;
	to->array = from->array ? rota_xstrdup(from->array) : NULL;
	to->dependency = from->dependency ? rota_xstrdup(from->dependency)
					  : NULL;
	to->gpu_type = from->gpu_type ? rota_xstrdup(from->gpu_type) : NULL;
	to->licenses = from->licenses ? rota_xstrdup(from->licenses) : NULL;
	to->gres = from->gres ? rota_xstrdup(from->gres) : NULL;
	to->env = core_names_copy(from->env);
}

/* Task 'id' of 'rest' as a pending job of its own, not in any list yet. */
static struct core_job *split(struct core *core, struct core_job *rest,
			      uint32_t id)
{
	struct core_job *t = rota_xcalloc(1, sizeof(*t));
	struct rota_error err;

	desc_copy(&t->desc, &rest->desc);
	t->ntasks_min = rest->ntasks_min;
	if (t->desc.constraint)
		/* the rest's parsed: it parses again the same */
		constraint_parse(t->desc.constraint, &t->constraint, &err);
	licenses_job_parse(core, t, &err); /* so is this */
	gres_job_parse(core, t, &err);
	t->id = core->next_id++;
	t->state = ROTA_JOB_PENDING;
	t->uid = rest->uid;
	t->gid = rest->gid;
	t->user = rota_xstrdup(rest->user);
	t->assoc = rest->assoc;
	t->queue = rest->queue;
	t->qos = rest->qos;
	t->time_limit = rest->time_limit;
	t->submit_time = rest->submit_time;
	t->priority = rest->priority;
	t->eligible = rest->eligible;
	t->eligible_accum = rest->eligible_accum;
	t->eligible_since = rest->eligible_since;
	t->hold = rest->hold;
	t->exit_code = -1;
	t->array_id = rest->id;
	t->array_task = id;
	t->shape = rest->shape;
	rota_taskset_remove(&rest->array->tasks, id);
	jobtab_insert(core, t);
	/* both journaled: a task split off for an action that then fails
	   must not vanish from the rest and from the journal at once */
	core_mark_dirty(core, rest);
	core_mark_dirty(core, t);
	return t;
}

/*
 * A task split off pending waits for what the rest still waits for (the
 * rest's dependency text holds only the parts not yet met).
 */
static void inherit_deps(struct core *core, const struct core_job *rest,
			 struct core_job *t, int64_t now)
{
	struct core_deps *deps = NULL;
	struct rota_error err;

	if (rest->deps && t->desc.dependency &&
	    depend_prepare(core, 0, t->desc.dependency, &deps, &err) == 0)
		depend_attach(core, t, deps, now);
}

/* Task 'id' of the rest 'job' as a pending job of its own (see core.h). */
static struct core_job *take_task(struct core *core, struct core_job *job,
				  uint32_t id)
{
	struct core_job *t;

	if (job->array->tasks.count <= 1) {
		/* the last task: the record itself */
		job->array_task = id;
		array_free(job);
		core_mark_dirty(core, job);
		return job;
	}
	t = split(core, job, id);
	/* right after the rest: where the order has it */
	core_pending_insert_after(core, job, t);
	return t;
}

struct core_job *array_next_task(struct core *core, struct core_job *job)
{
	if (!job->array)
		return job;
	if (job->array->quota != UINT32_MAX)
		job->array->quota--;
	return take_task(core, job, rota_taskset_first(&job->array->tasks));
}

/* All of array 'id' pending (or running too), its record first. */
static void whole(struct core *core, uint32_t id, bool running, uint32_t **v,
		  size_t *n, size_t *cap)
{
	const struct job_list *lists[] = { &core->pending, &core->running };

	core_ids_push(v, n, cap, id);
	for (size_t i = 0; i < (running ? 2u : 1u); i++)
		for (struct core_job *j = lists[i]->head; j; j = j->next)
			if (j->array_id == id && j->id != id)
				core_ids_push(v, n, cap, j->id);
}

size_t core_array_select(struct core *core, int64_t now, uint32_t id,
			 const char *tasks, bool running, uint32_t **out,
			 struct rota_error *err)
{
	struct core_job *job = jobtab_find(core, id), *t;
	struct rota_taskset ts;
	struct rota_strbuf missing = { 0 };
	size_t n = 0, cap = 0;

	*out = NULL;
	err->text[0] = '\0';
	if (!tasks || !*tasks) {
		if (job && job->array_id == id)
			whole(core, id, running, out, &n, &cap);
		else
			core_ids_push(out, &n, &cap, id);
		return n;
	}
	if (!job || job->array_id != id) {
		rota_errorf(err, -ENOENT, "job %u_[%s]: %u is not an array",
			    id, tasks, id);
		return 0;
	}
	if (rota_taskset_parse(tasks, UINT32_MAX, &ts, NULL, err) < 0) {
		rota_errorf(err, -EINVAL, "job %u_[%s]: %s", id, tasks,
			    err->text);
		return 0;
	}
	for (uint32_t k = rota_taskset_first(&ts); k != UINT32_MAX;
	     k = rota_taskset_next(&ts, k)) {
		if (job->array && rota_taskset_has(&job->array->tasks, k)) {
			t = take_task(core, job, k);
			if (t != job)
				inherit_deps(core, job, t, now);
		}
		else if (!job->array && job->array_task == k)
			t = job;
		else
			t = core_array_task_find(core, id, k, false);
		if (t)
			core_ids_push(out, &n, &cap, t->id);
		else
			rota_strbuf_addf(&missing, "%s%u", missing.len ? ","
								       : "",
					 k);
	}
	if (job->array && job->deps) /* its next task may be another */
		depend_again(core, job, now);
	if (missing.len)
		rota_errorf(err, -ENOENT, "job %u_[%s]: no such task pending "
			    "or running", id, missing.data);
	rota_strbuf_fini(&missing);
	rota_taskset_fini(&ts);
	return n;
}

void array_restore(struct core_job *job, const char *rest)
{
	struct core_array *a = rota_xcalloc(1, sizeof(*a));
	struct rota_taskset whole;
	struct rota_error err;

	/* lenient: MaxArraySize may have been lowered since */
	if (rota_taskset_parse(rest, UINT32_MAX, &a->tasks, NULL, &err) < 0 ||
	    !a->tasks.count) {
		free(a);
		return;
	}
	if (job->desc.array &&
	    rota_taskset_parse(job->desc.array, UINT32_MAX, &whole,
			       &a->throttle, &err) == 0)
		rota_taskset_fini(&whole);
	a->quota = UINT32_MAX;
	job->array = a;
	job->array_task = ROTA_ARRAY_PENDING_REST;
}

/* One job's part in its array's tally, as a journal left it. */
static void recount_one(const struct core_job *j, void *arg)
{
	struct core *core = arg;
	struct array_tally *a;
	uint32_t n = j->array ? j->array->tasks.count : 1;

	if (!j->array_id)
		return;
	a = array_tally_get(core, j->array_id);
	if (!rota_job_state_is_final(j->state))
		a->active += n;
	else if (!core_job_ended_ok(j))
		a->failed += n;
	if (j->start_time && (!a->first_start || j->start_time < a->first_start))
		a->first_start = j->start_time;
}

void array_recount(struct core *core)
{
	for (struct core_job *j = core->pending.head; j; j = j->next)
		if (j->array)
			j->array->running = 0;
	for (struct core_job *j = core->running.head; j; j = j->next)
		array_task_runs(core, j, 1);
	array_tally_reset(core);
	jobtab_foreach(core, recount_one, core);
}

char *core_job_array_name(const struct core_job *job)
{
	char *rest, *name;

	if (!job->array_id)
		return NULL;
	rest = job->array ? rota_taskset_text(&job->array->tasks) : NULL;
	name = rota_array_job_name(job->array_id, job->array_task, rest,
				   job->array ? job->array->throttle : 0);
	free(rest);
	return name;
}
