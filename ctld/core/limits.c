// SPDX-License-Identifier: MIT
/*
 * Policy limits (core_internal.h, "limits.c").  The built-in `slurm`
 * plugin always runs (it enforces the limit keys of the UserName,
 * AccountName and QOSName lines, and nothing when there are none); each
 * Limits= line adds a plugin (`maui`), or gives `slurm` settings.
 *
 * At submit each plugin may refuse a job.  Before every scheduling pass
 * they classify the pending jobs: a blocked job is not eligible (it is
 * skipped, blocks no one, and its eligible time stands still) and shows
 * the limit and its numbers as its reason.  As the pass is about to start
 * an idle job, each may still hold it back (Maui's processor-second soft
 * limit needs the running set of that very moment).
 *
 * With no limit anywhere and only `slurm` loaded, all of this is skipped:
 * a site without limits pays nothing per pass.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/core/core_internal.h"
#include "ctld/core/plugin_host.h"
#include "ctld/core/share.h"

static bool any_limit(const struct rota_conf_limits *l)
{
	return l->max_jobs >= 0 || l->max_submit >= 0 || l->max_wall >= 0 ||
	       l->max_cpus >= 0 || l->max_mem >= 0 || l->max_nodes >= 0 ||
	       l->cpu_run_mins >= 0 || l->max_idle >= 0 || l->max_ps >= 0 ||
	       l->max_ps_hard >= 0 || l->allocation >= 0;
}

static bool conf_has_limits(const struct rota_conf *conf)
{
	for (size_t i = 0; i < conf->naccounts; i++)
		if (any_limit(&conf->accounts[i].limits))
			return true;
	for (size_t i = 0; i < conf->nusers; i++)
		if (any_limit(&conf->users[i].limits))
			return true;
	for (size_t i = 0; i < conf->nqos; i++)
		if (any_limit(&conf->qos[i].limits))
			return true;
	return false;
}

static void qos_limits(struct core *core, const struct rota_conf *conf)
{
	core->qos_limits = rota_xcalloc(core->nqos + 1,
					sizeof(*core->qos_limits));
	for (size_t i = 0; i < core->nqos; i++) {
		const struct rota_conf_qos *q =
			rota_conf_qos_find(conf, core->qos[i].name);

		limits_from_conf(q ? &q->limits : NULL, &core->qos_limits[i]);
	}
}

static int load(struct core *core, const struct rota_conf *conf,
		const struct rota_conf_section *s, struct rota_error *err)
{
	struct plugin *p;
	int rc = plugin_load_section(conf, s, ROTA_PLUGIN_LIMITS, "slurm",
				     NULL, NULL, &p, err);

	if (rc < 0)
		return rc;
	core->limits = rota_xreallocarray(core->limits, core->nlimits + 1,
					  sizeof(*core->limits));
	core->limits[core->nlimits++] = p;
	return 0;
}

int limits_init(struct core *core, const struct rota_conf *conf,
		struct rota_error *err)
{
	const struct rota_conf_section *own = NULL;
	int rc;

	qos_limits(core, conf);
	for (size_t i = 0; i < conf->nsections; i++) {
		const struct rota_conf_section *s = &conf->sections[i];

		if (!strcasecmp(s->kind, "Limits") && !strcmp(s->name, "slurm"))
			own = s;
	}
	rc = load(core, conf, own, err);
	for (size_t i = 0; i < conf->nsections && rc == 0; i++) {
		const struct rota_conf_section *s = &conf->sections[i];

		if (!strcasecmp(s->kind, "Limits") && s != own)
			rc = load(core, conf, s, err);
	}
	core->limits_set = core->nlimits > 1 || conf_has_limits(conf);
	return rc;
}

void limits_fini(struct core *core)
{
	for (size_t i = 0; i < core->nlimits; i++)
		plugin_unload(core->limits[i]);
	free(core->limits);
	free(core->qos_limits);
}

static const struct rota_limits_ops *ops(const struct core *core, size_t i)
{
	return plugin_ops(core->limits[i], sizeof(struct rota_limits_ops));
}

/* ---- the plugins' view ----------------------------------------------------- */

static void view(struct core *core, const struct core_job *job, int64_t now,
		 const char *user, struct rota_limit_job *v)
{
	*v = (struct rota_limit_job){
		.id = job->id,
		.user = user,
		.account = share_assoc_account(core->share, job->assoc),
		.qos = core->qos[job->qos].name,
		.cores = job->desc.ntasks * job->desc.cpus_per_task,
		.nodes = job->desc.nodes,
		.mem_mb = job_total_mem(job),
		.time_limit = job->time_limit,
		.running = job->state == ROTA_JOB_RUNNING,
		.held = job->hold != CORE_HOLD_NONE || job->dep_wait,
		.user_limits = share_assoc_limits(core->share, job->assoc),
		.account_limits = share_account_limits(core->share, job->assoc),
		.qos_limits = &core->qos_limits[job->qos],
		/* an array's pending rest: its tasks count as jobs */
		.count = job->array ? job->array->tasks.count : 1,
	};
	if (v->running && job->time_limit) {
		int64_t left = job->start_time + job->time_limit - now;

		v->remaining = left > 0 ? left : 0;
	}
}

/* Every running job, then every pending one in order (caller frees). */
static struct rota_limit_job *views(struct core *core, int64_t now,
				    size_t *n)
{
	size_t cap = core->running.n + core->pending.n, i = 0;
	struct rota_limit_job *v = rota_xcalloc(cap + 1, sizeof(*v));

	for (struct core_job *j = core->running.head; j; j = j->next)
		view(core, j, now, j->user, &v[i++]);
	for (struct core_job *j = core->pending.head; j; j = j->next)
		view(core, j, now, j->user, &v[i++]);
	*n = i;
	return v;
}

/* Would every plugin admit 'job' with 'tasks' tasks? */
static bool admits_tasks(struct core *core, int64_t now, struct core_job *job,
			 const char *user, uint32_t tasks,
			 const struct rota_limit_job *queued, size_t n)
{
	struct rota_limit_job one;
	uint32_t asked = job->desc.ntasks;
	char text[CORE_LIMIT_REASON_MAX];

	job->desc.ntasks = tasks; /* its cores and memory, for the view */
	view(core, job, now, user, &one);
	job->desc.ntasks = asked;
	for (size_t i = 0; i < core->nlimits; i++) {
		void *st = plugin_state(core->limits[i]);

		if (ops(core, i)->admit &&
		    ops(core, i)->admit(st, now, &one, queued, n, text,
					sizeof(text)) < 0)
			return false;
	}
	return true;
}

/*
 * A task range admitted at its minimum: its maximum cut to the most
 * the per-job limits admit (MaxTRES=cpu, Maui's MaxPSHard), as Slurm
 * lowers a --nodes=min-max job's maximum to its QOS's limit, so that
 * the tasks it is granted stay within them.  None left above the
 * minimum: no range.
 */
static void admit_range(struct core *core, int64_t now, struct core_job *job,
			const char *user, const struct rota_limit_job *queued,
			size_t n)
{
	uint32_t lo = job->desc.ntasks, hi = job->desc.ntasks_max;

	if (admits_tasks(core, now, job, user, hi, queued, n))
		return;
	while (hi - lo > 1) { /* lo is admitted, hi is not */
		uint32_t mid = lo + (hi - lo) / 2;

		if (admits_tasks(core, now, job, user, mid, queued, n))
			lo = mid;
		else
			hi = mid;
	}
	job->desc.ntasks_max = lo > job->desc.ntasks ? lo : 0;
}

int limits_admit(struct core *core, int64_t now, struct core_job *job,
		 const char *user, struct rota_error *err)
{
	struct rota_limit_job one, *queued;
	size_t n;
	int rc = 0;

	if (!core->limits_set)
		return 0;
	view(core, job, now, user, &one);
	queued = views(core, now, &n);
	for (size_t i = 0; i < core->nlimits && rc == 0; i++) {
		char text[sizeof(err->text)] = "";

		if (!ops(core, i)->admit)
			continue;
		rc = ops(core, i)->admit(plugin_state(core->limits[i]), now,
					 &one, queued, n, text, sizeof(text));
		if (rc < 0)
			rota_errorf(err, -EINVAL, "%s",
				    text[0] ? text : "refused by a limit");
	}
	if (rc == 0 && job->desc.ntasks_max > job->desc.ntasks)
		admit_range(core, now, job, user, queued, n);
	free(queued);
	return rc < 0 ? -EINVAL : 0;
}

/* The job's reason buffer, made the first time a limit holds it. */
static char *reason_buf(struct core_job *job)
{
	if (!job->limit_reason)
		job->limit_reason = rota_xcalloc(1, CORE_LIMIT_REASON_MAX);
	return job->limit_reason;
}

/* What the plugins said of one pending job: block it or free it. */
static void apply(struct core *core, struct core_job *job,
		  const struct rota_limit_job *v, int64_t now)
{
	bool was = job->limited;

	if (job->array) /* how many of its tasks this pass may start */
		job->array->quota = v->blocked	? 0
				    : v->eligible ? v->eligible
						  : UINT32_MAX;
	if (job->array && v->eligible && !v->blocked)
		snprintf(reason_buf(job), CORE_LIMIT_REASON_MAX, "%s",
			 v->reason[0] ? v->reason : "limit");
	job->limited = v->blocked && !job->hold && !job->dep_wait;
	if (job->limited != was) {
		core_walk_update(core, job);
		core_mark_changed(core);
	}
	if (job->limited)
		snprintf(reason_buf(job), CORE_LIMIT_REASON_MAX, "%s",
			 v->reason[0] ? v->reason : "limit");
	if (job->limited != was && !job->hold && !job->dep_wait)
		core_job_set_eligible(job, !job->limited, now);
}

void limits_classify(struct core *core, int64_t now)
{
	struct rota_limit_job *v;
	struct core_job *j;
	size_t n, first;

	if (!core->limits_set)
		return;
	v = views(core, now, &n);
	first = core->running.n;
	for (size_t i = 0; i < core->nlimits; i++) {
		/* a job blocked by one plugin stays blocked for the next */
		if (ops(core, i)->classify(plugin_state(core->limits[i]), now,
					   v, n) < 0)
			rota_err("limits/%s: classify failed: jobs left as "
				 "they were", plugin_name(core->limits[i]));
	}
	for (j = core->pending.head; j; j = j->next, first++)
		apply(core, j, &v[first], now);
	free(v);
}

bool limits_may_start(struct core *core, int64_t now, struct core_job *job,
		      bool others_idle)
{
	struct rota_limit_job one;

	if (!core->limits_set)
		return true;
	view(core, job, now, job->user, &one);
	one.count = 1; /* an array's rest starts one task */
	for (size_t i = 0; i < core->nlimits; i++) {
		if (!ops(core, i)->start)
			continue;
		if (ops(core, i)->start(plugin_state(core->limits[i]), now,
					&one, others_idle, reason_buf(job),
					CORE_LIMIT_REASON_MAX) > 0) {
			job->reason = job->limit_reason;
			return false;
		}
	}
	return true;
}
