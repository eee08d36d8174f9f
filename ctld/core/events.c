// SPDX-License-Identifier: MIT
/*
 * The core's events (core.h, "Layers": top): a job submitted, cancelled,
 * signalled or ended, and the passing of time.  Node events are in
 * node_events.c, job control in control.c, reservations in resv_admin.c.
 * See core.h for the contract (pure library, injected time).
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/units.h"
#include "common/xalloc.h"
#include "ctld/core/constraint.h"
#include "ctld/core/core_internal.h"
#include "ctld/core/resv.h"
#include "ctld/core/share.h"

static int resolve_time(const struct core_queue *q, int64_t asked,
			int64_t *out, struct rota_error *err)
{
	char a[32], m[32];
	/* no DefaultTime: the queue's MaxTime, as Slurm does */
	int64_t t = asked ? asked
			  : (q->default_time != ROTA_DURATION_UNLIMITED
				     ? q->default_time
				     : q->max_time);

	if (t > q->max_time) {
		rota_duration_format(asked, a, sizeof(a));
		rota_duration_format(q->max_time, m, sizeof(m));
		return rota_errorf(err, -EINVAL,
				   "--time=%s exceeds the maximum of queue "
				   "'%s' (%s)",
				   a, q->name, m);
	}
	*out = t == ROTA_DURATION_UNLIMITED ? 0 : t;
	return 0;
}

static bool listed(char *const *names, const char *name)
{
	for (size_t i = 0; names && names[i]; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return !names;
}

/* AllowUsers and AllowAccounts of the job's queue. */
static int queue_allows(const struct core *core, const struct core_job *job,
			const char *user, struct rota_error *err)
{
	const struct core_queue *q = &core->queues[job->queue];
	const char *account = share_assoc_account(core->share, job->assoc);

	if (!listed(q->allow_users, user))
		return rota_errorf(err, -EPERM,
				   "queue '%s' is not open to user '%s'",
				   q->name, user);
	if (!listed(q->allow_accounts, account))
		return rota_errorf(err, -EPERM,
				   "queue '%s' is not open to account '%s'",
				   q->name, account);
	return 0;
}

int core_submit(struct core *core, int64_t now, struct core_submit *req,
		uint32_t *job_id, struct rota_error *err)
{
	struct core_job *job = rota_xcalloc(1, sizeof(*job));
	struct core_deps *deps = NULL;
	int rc;

	*job_id = 0;
	rc = core_find_queue(core, req->desc->queue, &job->queue, err);
	if (rc == 0)
		rc = resolve_time(&core->queues[job->queue],
				  req->desc->time_limit, &job->time_limit,
				  err);
	if (rc == 0 && req->desc->constraint)
		rc = constraint_parse(req->desc->constraint, &job->constraint,
				      err);
	job->desc = *req->desc;
	job->ntasks_min = job->desc.ntasks;
	if (rc == 0)
		rc = licenses_job_parse(core, job, err);
	if (rc == 0)
		rc = gres_job_parse(core, job, err);
	if (rc == 0)
		rc = resv_submit_check(core, job, err);
	if (rc == 0)
		rc = sched_check_feasible(core, job, err);
	if (rc == 0)
		rc = prio_submit_check(core, job, req->user, req->operator,
				       err);
	if (rc == 0)
		rc = usage_submit_assoc(core, job, req->user, err);
	if (rc == 0)
		rc = queue_allows(core, job, req->user, err);
	if (rc == 0)
		rc = resv_submit_allows(core, job, req->user, err);
	if (rc == 0)
		rc = array_submit(core, job, err);
	if (rc == 0)
		rc = limits_admit(core, now, job, req->user, err);
	if (rc == 0)
		rc = depend_prepare(core, 0, job->desc.dependency, &deps, err);
	if (rc < 0) {
		job->desc = (struct rota_job_desc){ 0 };
		core_job_free(job);
		return rc;
	}
	*req->desc = (struct rota_job_desc){ 0 };
	usage_submit_account(core, job);
	job->user = rota_xstrdup(req->user);
	job->id = core->next_id++;
	if (job->array) {
		job->array_id = job->id;
		array_accepted(core, job);
	}
	job->uid = req->uid;
	job->gid = req->gid;
	job->state = ROTA_JOB_PENDING;
	job->submit_time = now;
	job->exit_code = -1;
	jobtab_insert(core, job);
	/* --hold: as if its owner held it at once (never eligible yet) */
	if (job->desc.hold)
		job->hold = CORE_HOLD_USER;
	depend_attach(core, job, deps, now);
	core_job_set_eligible(job, !job->desc.hold && !job->dep_wait, now);
	prio_enqueue(core, job, now);
	core_mark_dirty(core, job);
	*job_id = job->id;
	/* --kill-on-invalid-dep=yes on a dependency already failed */
	core_job_reap_deps(core, now);
	return 0;
}

int core_cancel(struct core *core, int64_t now, uint32_t job_id, uid_t uid,
		bool operator, struct rota_error *err)
{
	struct core_job *job = jobtab_find(core, job_id);

	if (!job)
		return rota_errorf(err, -ENOENT, "job %u: not found", job_id);
	if (!operator && job->uid != uid)
		return rota_errorf(err, -EPERM,
				   "job %u: not yours to cancel", job_id);
	if (rota_job_state_is_final(job->state))
		return rota_errorf(err, -EALREADY, "job %u: already %s",
				   job_id, rota_job_state_name(job->state));
	if (job->state == ROTA_JOB_PENDING) {
		core_job_finish(core, job, now, ROTA_JOB_CANCELLED);
		return 0;
	}
	if (!job->cancel_sent) {
		job->cancel_sent = true;
		core_end_run(core, job->id, job->run, job->alloc[0].node,
			     SIGTERM);
	}
	return 0;
}

int core_signal(struct core *core, uint32_t job_id, uid_t uid, bool operator,
		int signo, struct rota_error *err)
{
	struct core_job *job = jobtab_find(core, job_id);

	if (!job || job->state != ROTA_JOB_RUNNING)
		return rota_errorf(err, -ENOENT, "job %u: not running",
				   job_id);
	if (!operator && job->uid != uid)
		return rota_errorf(err, -EPERM, "job %u: not yours to signal",
				   job_id);
	core_push_action(core, &(struct core_action){
				       .type = CORE_ACTION_SIGNAL,
				       .job_id = job->id,
				       .run = job->run,
				       .node = job->alloc[0].node,
				       .signo = signo,
			       });
	return 0;
}

int core_job_end(struct core *core, int64_t now, const char *node,
		 const struct rota_msg_job_end *end, struct rota_error *err)
{
	struct core_job *job = jobtab_find(core, end->job_id);
	uint32_t idx;

	if (job && core_node_find(core, node, &idx) &&
	    fence_end(core, job, idx, end->run))
		return 0;
	if (!job || job->state != ROTA_JOB_RUNNING ||
	    !core_node_find(core, node, &idx) || job->alloc[0].node != idx)
		return rota_errorf(err, -ENOENT,
				   "job %u: not running on node '%s'",
				   end->job_id, node);
	if (end->run != job->run)
		return rota_errorf(err, -ENOENT,
				   "job %u: the end of run %u, not of run %u",
				   end->job_id, end->run, job->run);
	/* its node lost its lease and killed it: a node failure */
	if (end->state == ROTA_JOB_NODE_FAIL && !job->desc.no_requeue &&
	    !job->cancel_sent) {
		rota_warn("job %u: killed on '%s' (%s): requeued", job->id,
			  node, end->text ? end->text : "node failure");
		return core_requeue(core, now, job->id, "NodeFail", false);
	}
	job->exit_code = end->exit_code;
	job->term_signal = end->term_signal;
	job->cpu_usec = end->cpu_usec;
	job->mem_peak = end->mem_peak;
	/* the last CPU seconds at the memory last reported (or its peak) */
	if (core->measured) {
		uint64_t mem = job->meter.mem_bytes ? job->meter.mem_bytes
						    : end->mem_peak;

		usage_charge_measured(core, job, now, end->cpu_usec, mem,
				      job->meter.io_bytes);
	}
	if (end->text)
		job->end_text = rota_xstrdup(end->text);
	core_job_finish(core, job, now, end->state);
	return 0;
}

void core_tick(struct core *core, int64_t now)
{
	struct core_job *job;

	for (size_t i = 0; i < core->nnodes; i++) {
		struct core_node *n = &core->nodes[i];

		/* UP and silent, or never back since a restart with jobs */
		if ((n->state == NODE_UP ||
		     (n->state == NODE_UNKNOWN && n->cores_used)) &&
		    now - n->last_seen > core->node_timeout)
			core_node_down(core, now, n->name, "not responding");
	}
	fence_tick(core, now);
	depend_tick(core, now);
	core_job_reap_deps(core, now);
	resv_update(core, now);
	/* rating the jobs updates the fairshare tree first */
	if (now - core->last_calc >= core->calc_period)
		core_prio_update(core, now);
	sched_tick(core, now);
	/* a change not yet journaled is kept until the host has taken it */
	while ((job = core->done.head) && !job->dirty &&
	       now - job->end_time >= core->min_job_age) {
		job_list_remove(&core->done, job);
		jobtab_remove(core, job->id);
		core_job_free(job);
	}
}
