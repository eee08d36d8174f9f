// SPDX-License-Identifier: MIT
/*
 * The core's tables and its events: submit, cancel, job end, the passing of
 * time.  See core.h for the contract (pure library, injected time).
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/units.h"
#include "common/xalloc.h"
#include "ctld/core/constraint.h"
#include "ctld/core/core_internal.h"
#include "ctld/core/plugin_host.h"
#include "ctld/core/profile.h"
#include "ctld/core/resv.h"
#include "ctld/core/share.h"

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

void core_running_add(struct core *core, struct core_job *job)
{
	job_list_append(&core->running, job);
	profile_base_add(core, job);
	usage_run_add(core, job);
	share_count_job(core->share, job->assoc, true, 1);
}

void core_running_remove(struct core *core, struct core_job *job)
{
	usage_run_remove(core, job);
	profile_base_remove(core, job);
	job_list_remove(&core->running, job);
	share_count_job(core->share, job->assoc, true, -1);
}

void core_pending_add(struct core *core, struct core_job *job)
{
	job_list_append(&core->pending, job);
	core->queue_pending[job->queue]++;
	share_count_job(core->share, job->assoc, false, 1);
}

void core_pending_remove(struct core *core, struct core_job *job)
{
	job_list_remove(&core->pending, job);
	core->queue_pending[job->queue]--;
	share_count_job(core->share, job->assoc, false, -1);
}

static void init_nodes(struct core *core, const struct rota_conf *conf)
{
	core->nnodes = conf->nnodes;
	core->nodes = rota_xcalloc(conf->nnodes ? conf->nnodes : 1,
				   sizeof(*core->nodes));
	for (size_t i = 0; i < conf->nnodes; i++) {
		const struct rota_conf_node *c = &conf->nodes[i];
		struct core_node *n = &core->nodes[i];
		size_t nf = 0;

		n->name = rota_xstrdup(c->name);
		n->addr = rota_xstrdup(c->addr ? c->addr : c->name);
		while (c->features[nf])
			nf++;
		n->features = rota_xcalloc(nf + 1, sizeof(char *));
		for (size_t f = 0; f < nf; f++)
			n->features[f] = rota_xstrdup(c->features[f]);
		n->cfg_cores = c->cpus;
		n->cfg_memory_mb = c->memory_mb;
		n->cores = c->cpus;
		n->memory_mb = c->memory_mb;
		if (n->cores)
			n->core_busy = rota_xcalloc(n->cores, 1);
		snprintf(n->reason, sizeof(n->reason), "not registered");
	}
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

/*
 * ReservedCores: on every node a test queue shares with an ordinary
 * queue, the test queue keeps that many cores (Grid Engine's Maxwell
 * keeps cores free for quick test jobs).  A node only test queues use
 * keeps nothing: all its cores are theirs anyway.
 */
static void reserve_test_cores(struct core *core)
{
	bool *shared = rota_xcalloc(core->nnodes + 1, sizeof(bool));

	for (size_t q = 0; q < core->nqueues; q++) {
		if (core->queues[q].reserved_cores)
			continue;
		for (size_t k = 0; k < core->queues[q].nnodes; k++)
			shared[core->queues[q].nodes[k]] = true;
	}
	for (size_t q = 0; q < core->nqueues; q++) {
		const struct core_queue *tq = &core->queues[q];

		for (size_t k = 0; k < tq->nnodes && tq->reserved_cores; k++) {
			struct core_node *n = &core->nodes[tq->nodes[k]];

			if (shared[tq->nodes[k]] &&
			    tq->reserved_cores > n->test_reserved)
				n->test_reserved = tq->reserved_cores;
		}
	}
	free(shared);
}

static void init_queues(struct core *core, const struct rota_conf *conf)
{
	const struct rota_conf_queue *def = rota_conf_default_queue(conf);

	core->nqueues = conf->nqueues;
	core->queues = rota_xcalloc(conf->nqueues ? conf->nqueues : 1,
				    sizeof(*core->queues));
	core->queue_blocked = rota_xcalloc(conf->nqueues ? conf->nqueues : 1,
					   sizeof(bool));
	core->queue_pending = rota_xcalloc(conf->nqueues ? conf->nqueues : 1,
					   sizeof(uint32_t));
	for (size_t i = 0; i < conf->nqueues; i++) {
		const struct rota_conf_queue *c = &conf->queues[i];
		struct core_queue *q = &core->queues[i];

		q->name = rota_xstrdup(c->name);
		q->default_time = c->default_time;
		q->max_time = c->max_time;
		q->priority_tier = c->priority_tier;
		q->charge = c->charge;
		q->priority = c->priority;
		q->reserved_cores = c->reserved_cores;
		q->allow_users = core_names_copy(c->allow_users);
		q->allow_accounts = core_names_copy(c->allow_accounts);
		q->is_default = c == def;
		if (q->is_default)
			core->default_queue = (uint32_t)i;
		q->nodes = rota_xcalloc(c->nnodes ? c->nnodes : 1,
					sizeof(uint32_t));
		for (size_t k = 0; k < c->nnodes; k++) {
			uint32_t idx = 0;

			/* conf.c has checked every queue node is declared */
			core_node_find(core, c->nodes[k], &idx);
			q->nodes[q->nnodes++] = idx;
		}
	}
	reserve_test_cores(core);
}

/* Settings of the Fairshare line that the core reads, not the plugin. */
static const char *const fairshare_host_keys[] = { "Convention", NULL };

static int init_plugins(struct core *core, const struct rota_conf *conf,
			struct rota_error *err)
{
	static const char *const conventions[] = { "native", "flux", NULL };
	unsigned convention = 0;
	int rc = plugin_load(conf, ROTA_PLUGIN_FAIRSHARE, "fairtree",
			     fairshare_host_keys, &core->fairshare, err);

	if (rc == 0)
		rc = plugin_host(core->fairshare)
			     ->conf_choice(plugin_conf(core->fairshare),
					   "Convention", conventions,
					   &convention, err->text,
					   sizeof(err->text));
	if (rc < 0)
		return rc;
	core->share = share_create(conf, core->fairshare, convention == 1);
	return 0;
}

int core_create(const struct rota_conf *conf, struct core **out,
		struct rota_error *err)
{
	struct core *core = rota_xcalloc(1, sizeof(*core));
	int rc;

	*out = NULL;
	init_nodes(core, conf);
	init_queues(core, conf);
	core->next_id = 1;
	core->node_timeout = conf->node_timeout;
	core->node_lease = conf->node_lease;
	core->min_job_age = conf->min_job_age;
	core->mem_weight = conf->usage_mem_weight;
	core->calc_period = conf->priority_calc_period;
	core->sched_depth = conf->sched_depth;
	core->sched_max_us = conf->sched_max_time * 1000000;
	rc = init_plugins(core, conf, err);
	if (rc == 0)
		rc = prio_init(core, conf, err);
	if (rc == 0)
		rc = limits_init(core, conf, err);
	if (rc == 0)
		rc = sched_init(core, conf, err);
	if (rc < 0) {
		core_destroy(core);
		return rc;
	}
	*out = core;
	return 0;
}

void core_set_work_clock(struct core *core, int64_t (*fn)(void))
{
	core->work_clock = fn;
}

void core_set_every_pass(struct core *core, bool every)
{
	core->every_pass = every;
}

void core_job_free(struct core_job *job)
{
	rota_job_desc_clear(&job->desc);
	constraint_destroy(job->constraint);
	for (uint32_t i = 0; i < job->nalloc; i++)
		free(job->alloc[i].cores);
	free(job->alloc);
	est_clear(job);
	free(job->limit_reason);
	free(job->end_text);
	free(job->user);
	free(job);
}

static void free_list(struct job_list *l)
{
	struct core_job *job, *next;

	for (job = l->head; job; job = next) {
		next = job->next;
		core_job_free(job);
	}
}

void core_destroy(struct core *core)
{
	if (!core)
		return;
	free_list(&core->pending);
	free_list(&core->running);
	free_list(&core->done);
	profile_base_destroy(core);
	jobtab_fini(core);
	free(core->run);
	free(core->run_ids);
	free(core->pl_node);
	free(core->pl_tasks);
	for (size_t i = 0; i < core->nnodes; i++) {
		struct core_node *n = &core->nodes[i];

		free(n->name);
		free(n->addr);
		for (char **f = n->features; *f; f++)
			free(*f);
		free(n->features);
		free(n->core_busy);
	}
	for (size_t i = 0; i < core->nqueues; i++) {
		free(core->queues[i].name);
		free(core->queues[i].nodes);
		core_names_free(core->queues[i].allow_users);
		core_names_free(core->queues[i].allow_accounts);
	}
	free(core->nodes);
	free(core->queues);
	free(core->queue_blocked);
	free(core->queue_pending);
	free(core->actions);
	free(core->dirty);
	sched_fini(core);
	limits_fini(core);
	prio_fini(core);
	free(core->ended);
	resv_fini(core);
	share_destroy(core->share);
	plugin_unload(core->fairshare);
	free(core);
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

void core_mark_dirty(struct core *core, struct core_job *job)
{
	/* whatever changed a job may change what a pass does */
	sched_changed(core);
	if (job->dirty)
		return;
	job->dirty = true;
	if (core->ndirty == core->dirty_cap) {
		core->dirty_cap = core->dirty_cap ? 2 * core->dirty_cap : 64;
		core->dirty = rota_xreallocarray(core->dirty, core->dirty_cap,
						 sizeof(*core->dirty));
	}
	core->dirty[core->ndirty++] = job->id;
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
	if (core->nended == core->ended_cap) {
		core->ended_cap = core->ended_cap ? 2 * core->ended_cap : 64;
		core->ended = rota_xreallocarray(core->ended, core->ended_cap,
						 sizeof(*core->ended));
	}
	core->ended[core->nended++] = job->id;
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

size_t core_take_actions(struct core *core, struct core_action **out)
{
	size_t n = core->nactions;

	*out = core->actions;
	core->actions = NULL;
	core->nactions = core->actions_cap = 0;
	return n;
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
	if (rc == 0)
		rc = resv_submit_check(core, job, err);
	if (rc == 0)
		rc = sched_check_feasible(core, job, err);
	if (rc == 0)
		rc = prio_submit_check(core, job, req->operator, err);
	if (rc == 0)
		rc = usage_submit_assoc(core, job, req->user, err);
	if (rc == 0)
		rc = queue_allows(core, job, req->user, err);
	if (rc == 0)
		rc = resv_submit_allows(core, job, req->user, err);
	if (rc == 0)
		rc = limits_admit(core, now, job, req->user, err);
	if (rc < 0) {
		job->desc = (struct rota_job_desc){ 0 };
		core_job_free(job);
		return rc;
	}
	*req->desc = (struct rota_job_desc){ 0 };
	usage_submit_account(core, job);
	job->user = rota_xstrdup(req->user);
	job->id = core->next_id++;
	job->uid = req->uid;
	job->gid = req->gid;
	job->state = ROTA_JOB_PENDING;
	job->submit_time = now;
	job->exit_code = -1;
	jobtab_insert(core, job);
	/* --hold: as if its owner held it at once (never eligible yet) */
	if (job->desc.hold)
		job->hold = CORE_HOLD_USER;
	prio_set_eligible(job, !job->desc.hold, now);
	prio_enqueue(core, job, now);
	core_mark_dirty(core, job);
	*job_id = job->id;
	return 0;
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

void core_job_take(struct core *core, struct core_job *job)
{
	test_cores(core, job, true);
	resv_job_take(core, job);
}

void core_job_release(struct core *core, struct core_job *job)
{
	resv_job_release(core, job);
	for (uint32_t i = 0; i < job->nalloc; i++)
		node_free_cores(&core->nodes[job->alloc[i].node],
				&job->alloc[i],
				core_job_node_mem(job, job->alloc[i].ncores));
	test_cores(core, job, false);
}

void core_job_finish(struct core *core, struct core_job *job, int64_t now,
		     enum rota_job_state state)
{
	if (job->state == ROTA_JOB_PENDING) {
		prio_set_eligible(job, false, now);
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
	for (uint32_t i = 0; i < job->nalloc; i++)
		free(job->alloc[i].cores);
	free(job->alloc);
	job->alloc = NULL;
	job->nalloc = 0;
	job->state = ROTA_JOB_PENDING;
	job->start_time = 0;
	job->reason = reason;
	prio_set_eligible(job, true, now);
	prio_enqueue(core, job, now);
	core_mark_dirty(core, job);
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
	resv_update(core, now);
	usage_tick(core, now);
	sched_tick(core, now);
	/* a change not yet journaled is kept until the host has taken it */
	while ((job = core->done.head) && !job->dirty &&
	       now - job->end_time >= core->min_job_age) {
		job_list_remove(&core->done, job);
		jobtab_remove(core, job->id);
		core_job_free(job);
	}
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
