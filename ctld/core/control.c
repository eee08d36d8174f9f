// SPDX-License-Identifier: MIT
/*
 * Job control after submit (core.h, "Job control"; "Layers": top): hold,
 * release, nice, update and a user's requeue.
 *
 * Every function checks in the same order (the job exists, the caller may
 * touch it, it is in a state the change makes sense for, every value is
 * allowed) and changes nothing until all checks pass.  A pending job whose
 * rating inputs changed is taken out of the pending list and put back
 * through prio_enqueue, which rates it alone: the order and `rota prio`
 * show the change at once, not at the next PriorityCalcPeriod.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "common/xalloc.h"
#include "ctld/core/core_internal.h"

#define NICE_MAX 10000		/* as priority.c checks at submit */
#define URGENCY_DEFAULT 16
#define URGENCY_MAX 31

static int need_pending(const struct core_job *job, struct rota_error *err)
{
	if (job->state == ROTA_JOB_PENDING)
		return 0;
	return rota_errorf(err, -EINVAL, "job %u: not pending (%s)", job->id,
			   rota_job_state_name(job->state));
}

/* A pending job the caller may act on. */
static int held_job(struct core *core, uint32_t id, uid_t uid,
		    bool is_operator, struct core_job **out,
		    struct rota_error *err)
{
	int rc = core_job_access(core, id, uid, is_operator, out, err);

	return rc < 0 ? rc : need_pending(*out, err);
}

/* Put a pending job back in the order after its rating inputs changed. */
static void rerate(struct core *core, struct core_job *job, int64_t now)
{
	core_pending_remove(core, job);
	prio_enqueue(core, job, now);
	core_mark_dirty(core, job);
}

int core_hold(struct core *core, int64_t now, uint32_t job_id, uid_t uid,
	      bool is_operator, bool operator_hold, struct rota_error *err)
{
	struct core_job *job;
	int rc = held_job(core, job_id, uid, is_operator, &job, err);

	if (rc < 0)
		return rc;
	if (operator_hold && !is_operator)
		return rota_errorf(err, -EPERM,
				   "job %u: only operators place an operator "
				   "hold", job_id);
	if (job->hold == CORE_HOLD_OPERATOR && !is_operator)
		return rota_errorf(err, -EPERM,
				   "job %u: already held by an operator",
				   job_id);
	core_pending_set_hold(core, job, operator_hold ? CORE_HOLD_OPERATOR
						       : CORE_HOLD_USER);
	job->reason = NULL;
	job->limited = false; /* held first: limits look again on release */
	core_walk_update(core, job);
	core_job_set_eligible(job, false, now);
	if (core->prio_hold_restarts) /* Slurm clears its accrue time */
		job->eligible_accum = 0;
	core_mark_dirty(core, job);
	if (core->prio_rates_all) /* Grid Engine rates a held job 0 */
		rerate(core, job, now);
	return 0;
}

int core_release(struct core *core, int64_t now, uint32_t job_id, uid_t uid,
		 bool is_operator, struct rota_error *err)
{
	struct core_job *job;
	int rc = held_job(core, job_id, uid, is_operator, &job, err);

	if (rc < 0)
		return rc;
	if (job->hold == CORE_HOLD_NONE)
		return rota_errorf(err, -EINVAL, "job %u: not held", job_id);
	if (job->hold == CORE_HOLD_OPERATOR && !is_operator)
		return rota_errorf(err, -EPERM,
				   "job %u: held by an operator: only an "
				   "operator may release it", job_id);
	core_pending_set_hold(core, job, CORE_HOLD_NONE);
	core_job_set_eligible(job, !job->limited && !job->dep_wait, now);
	core_mark_dirty(core, job);
	if (core->prio_rates_all)
		rerate(core, job, now);
	return 0;
}


int core_nice(struct core *core, int64_t now, uint32_t job_id, uid_t uid,
	      bool is_operator, int32_t nice, bool relative,
	      struct rota_error *err)
{
	struct core_job *job;
	int64_t v;
	int rc = core_job_access(core, job_id, uid, is_operator, &job, err);

	if (rc == 0)
		rc = need_pending(job, err);
	if (rc < 0)
		return rc;
	v = relative ? (int64_t)job->desc.nice + nice : nice;
	if (v < -NICE_MAX || v > NICE_MAX)
		return rota_errorf(err, -EINVAL,
				   "job %u: nice %lld is out of range "
				   "(-%d..%d)", job_id, (long long)v,
				   NICE_MAX, NICE_MAX);
	if (v < 0 && !is_operator)
		return rota_errorf(err, -EPERM,
				   "job %u: permission denied: only operators "
				   "may set a negative nice (%lld)", job_id,
				   (long long)v);
	job->desc.nice = (int32_t)v;
	rerate(core, job, now);
	return 0;
}

static int check_urgency(const struct core_job *job, uint32_t urgency,
			 bool is_operator, struct rota_error *err)
{
	uint32_t cur = job->desc.urgency ? job->desc.urgency : URGENCY_DEFAULT;

	if (urgency < 1 || urgency > URGENCY_MAX)
		return rota_errorf(err, -EINVAL,
				   "job %u: Urgency=%u is out of range (1..%d)",
				   job->id, urgency, URGENCY_MAX);
	if (is_operator)
		return 0;
	if (urgency > cur)
		return rota_errorf(err, -EPERM,
				   "job %u: permission denied: users may only "
				   "lower the urgency (%u to %u)",
				   job->id, cur, urgency);
	return 0;
}

/*
 * The job's time limit in queue 'q' after the update, as core_submit
 * resolves it: the asked limit, else the queue's default, else its max.
 */
static int check_time(const struct core_job *job, const struct core_queue *q,
		      int64_t asked, bool is_operator, int64_t *out,
		      struct rota_error *err)
{
	int64_t cur = job->time_limit ? job->time_limit
				      : ROTA_DURATION_UNLIMITED;
	char a[32], m[32];
	int64_t t;

	if (asked && asked > cur && !is_operator) {
		rota_duration_format(asked, a, sizeof(a));
		rota_duration_format(cur, m, sizeof(m));
		return rota_errorf(err, -EPERM,
				   "job %u: permission denied: only operators "
				   "may raise a time limit (%s above %s)",
				   job->id, a, m);
	}
	if (!asked)
		asked = job->desc.time_limit;
	t = asked ? asked
		  : (q->default_time != ROTA_DURATION_UNLIMITED
			     ? q->default_time
			     : q->max_time);
	if (t > q->max_time) {
		rota_duration_format(t, a, sizeof(a));
		rota_duration_format(q->max_time, m, sizeof(m));
		return rota_errorf(err, -EINVAL,
				   "job %u: TimeLimit=%s exceeds the maximum "
				   "of queue '%s' (%s)",
				   job->id, a, q->name, m);
	}
	*out = t == ROTA_DURATION_UNLIMITED ? 0 : t;
	return 0;
}

static int check_name(const struct core_job *job, const char *name,
		      struct rota_error *err)
{
	if (!*name || strlen(name) > ROTA_MSG_NAME_MAX)
		return rota_errorf(err, -EINVAL,
				   "job %u: Name must be 1 to %d bytes",
				   job->id, ROTA_MSG_NAME_MAX);
	for (const char *c = name; *c; c++) {
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return rota_errorf(err, -EINVAL,
					   "job %u: Name: control characters "
					   "are not allowed", job->id);
	}
	return 0;
}

/* The job fits queue 'queue' (its nodes, the job's constraint)? */
static int check_fit(struct core *core, struct core_job *job, uint32_t queue,
		     struct rota_error *err)
{
	uint32_t old = job->queue;
	struct rota_error why;
	int rc;

	job->queue = queue;
	rc = sched_check_feasible(core, job, &why);
	job->queue = old;
	if (rc < 0)
		return rota_errorf(err, rc, "job %u: %s", job->id, why.text);
	return 0;
}

/* Every check of core_update, in order; the resolved queue and limit. */
static int update_check(struct core *core, struct core_job *job,
			bool is_operator, const struct core_update *u,
			uint32_t *queue, int64_t *limit, struct rota_error *err)
{
	bool pending_only = u->queue || u->time_limit || u->urgency ||
			    u->dependency;
	int rc = 0;

	*queue = job->queue;
	*limit = job->time_limit;
	if (rota_job_state_is_final(job->state))
		return rota_errorf(err, -EINVAL, "job %u: already %s",
				   job->id, rota_job_state_name(job->state));
	if (pending_only)
		rc = need_pending(job, err);
	if (rc == 0 && u->name)
		rc = check_name(job, u->name, err);
	if (rc == 0 && u->urgency)
		rc = check_urgency(job, u->urgency, is_operator, err);
	if (rc == 0 && u->set_oticket && !is_operator)
		rc = rota_errorf(err, -EPERM, "job %u: only operators may "
				 "set override tickets", job->id);
	if (rc == 0 && u->queue &&
	    core_find_queue(core, u->queue, queue, err) < 0)
		rc = rota_errorf(err, -ENOENT, "job %u: queue '%s' does not "
				 "exist", job->id, u->queue);
	if (rc == 0 && (u->queue || u->time_limit))
		rc = check_time(job, &core->queues[*queue], u->time_limit,
				is_operator, limit, err);
	if (rc == 0 && u->queue)
		rc = check_fit(core, job, *queue, err);
	return rc;
}

int core_update(struct core *core, int64_t now, uint32_t job_id, uid_t uid,
		bool is_operator, const struct core_update *u,
		struct rota_error *err)
{
	struct core_job *job;
	struct core_deps *deps = NULL;
	struct rota_error why = { "" };
	uint32_t queue = 0;
	int64_t limit = 0;
	int rc = core_job_access(core, job_id, uid, is_operator, &job, err);

	if (rc == 0)
		rc = update_check(core, job, is_operator, u, &queue, &limit,
				  err);
	/* last: nothing may fail once it is made */
	if (rc == 0 && u->dependency) {
		rc = depend_prepare(core, job->id, u->dependency, &deps, &why);
		if (rc < 0)
			rota_errorf(err, rc, "job %u: %s", job->id, why.text);
	}
	if (rc < 0)
		return rc;
	if (u->name) {
		free(job->desc.name);
		job->desc.name = rota_xstrdup(u->name);
	}
	if (u->set_jobshare)
		job->desc.jobshare = u->jobshare;
	if (u->set_oticket)
		job->desc.oticket = u->oticket;
	if (u->set_jobshare || u->set_oticket)
		core->prio_stale = true; /* tickets dealt again */
	if (job->state != ROTA_JOB_PENDING) {
		core_mark_dirty(core, job);
		return 0;
	}
	core_pending_remove(core, job);
	job->queue = queue;
	job->time_limit = limit;
	if (u->time_limit)
		job->desc.time_limit = u->time_limit;
	if (u->queue) {
		free(job->desc.queue);
		job->desc.queue = rota_xstrdup(core->queues[queue].name);
	}
	if (u->urgency)
		job->desc.urgency = u->urgency;
	prio_enqueue(core, job, now);
	core_mark_dirty(core, job);
	if (u->dependency) {
		depend_attach(core, job, deps, now);
		core_job_reap_deps(core, now);
	}
	return 0;
}

int core_requeue_job(struct core *core, int64_t now, uint32_t job_id,
		     uid_t uid, bool is_operator, struct rota_error *err)
{
	struct core_job *job;
	int rc = core_job_access(core, job_id, uid, is_operator, &job, err);

	if (rc < 0)
		return rc;
	if (job->state != ROTA_JOB_RUNNING)
		return rota_errorf(err, -EINVAL,
				   "job %u: not running (%s): only a running "
				   "job can be requeued", job_id,
				   rota_job_state_name(job->state));
	if (job->cancel_sent)
		return rota_errorf(err, -EALREADY,
				   "job %u: being cancelled", job_id);
	if (job->desc.no_requeue)
		return rota_errorf(err, -EINVAL,
				   "job %u: submitted --no-requeue", job_id);
	/* the run ends on its node as a cancel would; its end is then stale */
	core_end_run(core, job->id, job->run, job->alloc[0].node, SIGTERM);
	return core_requeue(core, now, job_id, "Requeued", true);
}
