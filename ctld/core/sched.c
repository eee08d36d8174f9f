// SPDX-License-Identifier: MIT
/*
 * The main scheduling pass.  Jobs are taken in order (the pending list is
 * kept in scheduling order: tier, priority, submit time, id; see
 * priority.c); in each queue the pass stops at the first job that does not
 * fit, so a wide job at the head of a queue is never starved by narrow ones
 * behind it (strict order, like Slurm's sched/builtin).  Like Slurm's main
 * loop it looks at most SchedulerDepth jobs and stops after
 * SchedulerMaxTime of work (on the host's work clock: the simulator has
 * none, so its passes never depend on the machine's speed), and at most
 * SchedulerQueueDepth jobs of any one queue (partition_job_depth): a
 * queue whose share is spent stops there, its jobs wait with reason
 * Priority and the pass does not count as settled.  Backfill, run
 * every so often by the sched plugin, starts what this pass left (see
 * backfill.c).  Placement is place.c's.  Jobs of an advance reservation
 * come first and wait without stopping their queue: they compete only for
 * their reservation's cores (resv.c).  With SchedulerHoldNodes, a job
 * that does not fit also keeps its queue's nodes from every later job,
 * as Slurm's main loop does, so a lower job of an overlapping queue does
 * not take what the blocked one waits for.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "ctld/core/core_internal.h"
#include "ctld/core/resv.h"

bool sched_eligible(const struct core *core, const struct core_job *job)
{
	return !job->hold && !job->dep_wait && !job->limited &&
	       !job->fence_node && !array_throttled(core, job) &&
	       !array_spent(job) &&
	       !(job->desc.reservation && resv_job_reason(core, job));
}

bool sched_may_start(struct core *core, int64_t now, struct core_job *job,
		     bool others_idle, const struct place_ctx *c,
		     struct placement *p)
{
	uint32_t min = job->desc.ntasks;
	uint32_t placed = 0;

	if (!job->desc.ntasks_max || !core->limits_set)
		return limits_may_start(core, now, job, others_idle);
	for (uint32_t i = 0; i < p->n; i++)
		placed += p->tasks[i];
	/* the limits read the job's tasks: for this question, as placed */
	job->desc.ntasks = placed;
	if (limits_may_start(core, now, job, others_idle)) {
		job->desc.ntasks = min;
		return true;
	}
	job->desc.ntasks = min;
	return placed > min && place_tasks(c, job, min, p) &&
	       limits_may_start(core, now, job, others_idle);
}

/* Eligible jobs are all in the walk list: the others are not walked. */
static size_t eligible_count(const struct core *core)
{
	size_t n = 0;

	for (const struct core_job *j = core->walk.head; j; j = j->wnext)
		n += sched_eligible(core, j);
	return n;
}

void sched_start(struct core *core, struct core_job *job, int64_t now,
		 const struct placement *p)
{
	struct core_job *rest = job;
	uint64_t *near = NULL;
	uint32_t gpus;

	job = array_next_task(core, job);
	/* its next task is another: an aftercorr looks again */
	if (rest != job && rest->deps)
		depend_again(core, rest, now);
	job->alloc = rota_xcalloc(p->n, sizeof(*job->alloc));
	job->nalloc = p->n;
	if (job->desc.ntasks_max) /* a range: the tasks granted, from now */
		job->desc.ntasks = 0;
	for (uint32_t i = 0; i < p->n; i++) {
		struct core_alloc *a = &job->alloc[i];

		if (job->desc.ntasks_max)
			job->desc.ntasks += p->tasks[i];

		a->node = p->node[i];
		a->ncores = place_alloc_cores(core, job, a->node, p->tasks[i]);
		a->cores = rota_xcalloc(a->ncores, sizeof(uint32_t));
		/* GPUs first, then the cores nearest them */
		gpus = job_node_gpus(job, p->tasks[i]);
		if (gpus)
			node_alloc_gpus(&core->nodes[a->node], job, a, gpus,
					a->ncores, &near);
		node_alloc_cores(&core->nodes[a->node], a,
				 core_job_node_mem(job, a->ncores), near);
		free(near);
		near = NULL;
	}
	core_job_take(core, job);
	core_pending_remove(core, job);
	core_job_set_eligible(job, false, now);
	job->start_time = now;
	job->charged_until = now;
	job->meter = (struct core_meter){ 0 }; /* a new run, a new cgroup */
	core_running_add(core, job);
	job->state = ROTA_JOB_RUNNING;
	job->run++;
	job->reason = NULL;
	est_clear(job);
	core_mark_dirty(core, job);
	depend_job_started(core, job, now);
	/* the batch script runs on the first node, as in Slurm */
	core_push_action(core, &(struct core_action){
				       .type = CORE_ACTION_LAUNCH,
				       .job_id = job->id,
				       .run = job->run,
				       .alloc_index = 0,
				       .node = job->alloc[0].node,
			       });
}

static void account_main(struct core *core, unsigned started, size_t depth,
			 int64_t us)
{
	struct core_sched_stats *s = &core->sched_stats;

	s->main_passes++;
	s->main_started += started;
	s->main_depth = depth;
	s->main_last_us = (uint64_t)us;
	s->main_max_us = s->main_last_us > s->main_max_us ? s->main_last_us
							  : s->main_max_us;
}

/*
 * SchedulerHoldNodes: a job that does not fit keeps every node of its
 * queue from the jobs after it in this pass, whatever their queue, as
 * Slurm's main loop takes a blocked job's partition nodes out of the
 * available ones ("nor on nodes in this partition").
 */
static void hold_queue_nodes(struct core *core, uint32_t queue)
{
	const struct core_queue *q = &core->queues[queue];

	for (size_t k = 0; k < q->nnodes; k++)
		core->node_held[q->nodes[k]] = true;
}

/*
 * The next walked job at or after 'job' in the pending list, looking at
 * most 'reach' jobs on; NULL if none there.
 */
static struct core_job *walk_from(struct core_job *job, unsigned reach)
{
	for (; job && reach; job = job->in_pending ? job->next : NULL, reach--)
		if (job->in_walk)
			return job;
	return NULL;
}

/*
 * Where the walk goes on after 'job': its successor in the walk list.  A
 * job that left it meanwhile (started, or parked by a dependency of the
 * one started) goes on from its old place in the pending list ('pnext'),
 * so that a job made walkable right behind it by that start is seen in
 * this pass, as the pending list's walk saw it; failing that, from the
 * successor it had ('next').
 */
static struct core_job *walk_next(struct core_job *job, struct core_job *pnext,
				  struct core_job *next)
{
	struct core_job *j;

	if (job->in_walk)
		return job->wnext;
	j = walk_from(pnext, WALK_REACH);
	return j ? j : walk_from(next, WALK_REACH);
}

/* A pass's verdict on a job, marked for rota top when it differs. */
static void set_reason(struct core *core, struct core_job *job, const char *why)
{
	if (job->reason != why)
		changes_mark(core, job);
	job->reason = why;
}

/*
 * A queue that stopped in this pass and not the last (or the reverse)
 * turns the reason of its jobs no pass reached ("None", "Priority":
 * core_job_reason): rota top shows them.  Rare, so a walk of all.
 */
static void blocked_flips(struct core *core)
{
	bool any = false;

	for (size_t q = 0; q < core->nqueues; q++)
		any |= core->queue_blocked[q] != core->blocked_before[q];
	if (!any)
		return;
	for (struct core_job *j = core->pending.head; j; j = j->next) {
		if (!j->reason && core->queue_blocked[j->queue] !=
					  core->blocked_before[j->queue])
			changes_mark(core, j);
	}
}

unsigned core_schedule(struct core *core, int64_t now)
{
	bool *blocked = core->queue_blocked;
	struct placement p;
	size_t nblocked = 0, active = 0, depth = 0;
	size_t visited = 0;	/* walked jobs, an array's rest once */
	size_t idle = SIZE_MAX;	/* eligible jobs not yet started: counted
				   when a limit first asks */
	unsigned started = 0;
	bool timed = false;	/* the outcome may change with time alone */
	bool cut = false;	/* a queue's depth was spent: try again */
	int64_t start_us;
	struct place_ctx now_ctx = { .core = core, .mode = PLACE_NOW,
				     .t = now };
	struct core_job *job, *next, *pnext, *last = NULL;

	resv_update(core, now);
	if (core->prio_stale)
		core_prio_update(core, now);
	limits_classify(core, now);
	core_walk_refresh(core);
	if (core->main_settled && !core->every_pass) {
		core->sched_stats.main_skipped++;
		return 0;
	}
	/* the pass ends once every queue with pending jobs has stopped */
	for (size_t q = 0; q < core->nqueues; q++)
		active += core->queue_pending[q] > 0;
	memcpy(core->blocked_before, blocked, core->nqueues * sizeof(bool));
	memset(blocked, 0, core->nqueues * sizeof(bool));
	memset(core->queue_tried, 0, core->nqueues * sizeof(uint32_t));
	licenses_pass_begin(core);
	if (core->hold_nodes) {
		memset(core->node_held, 0, core->nnodes * sizeof(bool));
		now_ctx.held = core->node_held;
	}
	placement_init(core, &p);
	start_us = core->work_clock ? core->work_clock() : 0;
	/*
	 * Only the walk list: held, dependency-waiting, limit-blocked and
	 * fenced jobs are not in it (tables.c), so that a pass costs what
	 * could start, not what waits (issue 23: 100,000 held jobs).
	 */
	for (job = core->walk.head; job && nblocked < active;
	     job = next == job ? job : walk_next(job, pnext, next)) {
		next = job->wnext;
		pnext = job->next;
		/* an array's rest is tried again: counted once */
		visited += job != last;
		last = job;
		if (job->hold || job->dep_wait || job->limited ||
		    job->fence_node)
			continue; /* not eligible (not walked: tables.c) */
		if (array_throttled(core, job)) {
			set_reason(core, job, "JobArrayTaskLimit");
			continue;
		}
		if (array_spent(job)) {
			/* the rest's limit */
			set_reason(core, job, job->limit_reason);
			continue;
		}
		if (job->desc.reservation && resv_job_reason(core, job)) {
			set_reason(core, job, resv_job_reason(core, job));
			continue; /* its reservation is not open: nor this */
		}
		if (blocked[job->queue]) {
			set_reason(core, job, "Priority");
			continue;
		}
		/* this job waits, and those after it for its licenses */
		if (!licenses_may_take(core, job, now)) {
			set_reason(core, job, "Licenses");
			continue;
		}
		if (core->queue_depth &&
		    core->queue_tried[job->queue] == core->queue_depth) {
			set_reason(core, job, "Priority");
			blocked[job->queue] = true; /* the queue stops here */
			nblocked++;
			cut = true;
			continue;
		}
		/* depth counts the jobs tried, as Slurm's main loop does */
		if (depth++ == core->sched_depth)
			break; /* the rest waits for the next pass */
		core->queue_tried[job->queue]++;
		if (core->work_clock && core->sched_max_us &&
		    core->work_clock() - start_us > core->sched_max_us) {
			timed = true; /* a quicker pass would have gone on */
			break;
		}
		if (place_job(&now_ctx, job, &p)) {
			/*
			 * A limit that depends on what runs may still say no;
			 * started jobs have left the list already.
			 */
			if (core->limits_set && idle == SIZE_MAX)
				idle = eligible_count(core);
			/* one it refuses stays idle: the others wait for it */
			if (!sched_may_start(core, now, job, idle > 1,
					     &now_ctx, &p)) {
				timed = true; /* its limit may ease with time */
				changes_mark(core, job); /* its reason */
				continue;
			}
			sched_start(core, job, now, &p);
			started++;
			if (idle != SIZE_MAX)
				idle--;
			if (job->state == ROTA_JOB_PENDING)
				next = job; /* an array's rest: its next task */
			continue;
		}
		set_reason(core, job, "Resources");
		if (job->desc.reservation)
			continue; /* it waits for its reservation's cores */
		blocked[job->queue] = true;
		nblocked++;
		if (core->hold_nodes) /* Slurm: nor on its partition's nodes */
			hold_queue_nodes(core, job->queue);
	}
	placement_fini(core, &p);
	blocked_flips(core);
	/*
	 * Nothing started and nothing here depends on the time: the same
	 * jobs against the same free cores give the same answer until
	 * something changes (starts above have cleared it already).
	 */
	core->main_settled = !started && !timed && !cut;
	core->sched_stats.main_visited = visited;
	account_main(core, started, depth,
		     core->work_clock ? core->work_clock() - start_us : 0);
	return started;
}

const char *core_job_reason(const struct core *core,
			    const struct core_job *job)
{
	if (job->state != ROTA_JOB_PENDING)
		return job->end_text;
	if (job->hold)
		return job->hold == CORE_HOLD_USER ? "JobHeldUser"
						   : "JobHeldAdmin";
	if (job->dep_wait)
		return depend_never(job) ? "DependencyNeverSatisfied"
					 : "Dependency";
	if (job->fence_node)
		return "PreviousRunNotEnded";
	if (array_throttled(core, job))
		return "JobArrayTaskLimit";
	if (array_spent(job))
		return job->limit_reason;
	if (job->limited)
		return job->limit_reason;
	if (resv_job_reason(core, job))
		return resv_job_reason(core, job);
	if (job->reason)
		return job->reason;
	/* not reached by the last pass: its queue stopped ahead of it */
	return core->queue_blocked[job->queue] ? "Priority" : "None";
}
