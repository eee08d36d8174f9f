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
 *
 * With limits, a request must still cost the same however long the queue
 * (issue 23).  A submit reads each holder's count of queued jobs, kept by
 * limit_tally.c, from a plugin with admit_counted(); only an older one
 * gets every queued job's view.  Before a pass, when every plugin judges
 * a pending job by that job and the running jobs alone (running_changed:
 * `slurm`), the running jobs are shown to them first, and they name the
 * holders whose jobs they may judge otherwise; only those holders' jobs
 * (limit_tally.c lists them) and the jobs changed since the last pass are
 * judged, and held jobs never are.  Maui's MaxIdle depends on the order
 * of all idle jobs: with `maui` loaded every pass judges every job.
 *
 * What the running jobs of a job's holders hold (GrpTRES, MaxTRESPerUser,
 * MaxTRESPerAccount) is read from limit_tally.c's tallies into each
 * pending view (running_use), as of the moment it is judged: in a pass,
 * the jobs it started already count.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/core/core_internal.h"
#include "ctld/core/plugin_host.h"
#include "ctld/core/share.h"

static bool any_tres(const struct rota_conf_tres *t)
{
	return t->cpu >= 0 || t->mem >= 0 || t->node >= 0 || t->gpu >= 0;
}

static bool any_limit(const struct rota_conf_limits *l)
{
	if (any_tres(&l->grp) || any_tres(&l->per_user) ||
	    any_tres(&l->per_account))
		return true;
	return l->max_jobs >= 0 || l->max_submit >= 0 || l->max_wall >= 0 ||
	       l->max_cpus >= 0 || l->max_mem >= 0 || l->max_nodes >= 0 ||
	       l->max_gpus >= 0 ||
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
	limit_tally_fini(core);
}

/* The ops table, of any ABI 1 minor: newer ops are checked before use. */
static const struct rota_limits_ops *ops(const struct core *core, size_t i)
{
	return plugin_ops(core->limits[i],
			  offsetof(struct rota_limits_ops, classify) +
				  sizeof(void *));
}

static bool has_admit_counted(const struct rota_limits_ops *o)
{
	return PLUGIN_OPS_HAS(o, admit_counted) && o->admit_counted;
}

static bool has_running_changed(const struct rota_limits_ops *o)
{
	return PLUGIN_OPS_HAS(o, running_changed) && o->running_changed;
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
		.gpus = job_gpus_total(job),
	};
	if (v->running && job->nalloc) /* what it holds: GrpTRES=node= */
		v->nodes = job->nalloc;
	if (v->running && job->time_limit) {
		int64_t left = job->start_time + job->time_limit - now;

		v->remaining = left > 0 ? left : 0;
	}
}

/* The entries of a pending job's running_use (struct rota_limit_job). */
static size_t held_count(struct core *core, const struct core_job *job)
{
	const struct rota_limit_set *const *acct =
		share_account_limits(core->share, job->assoc);
	size_t n = 4; /* user, QOS, the QOS's user and account shares */

	while (acct && acct[n - 4])
		n++;
	return n;
}

static void held_one(const struct core *core, const struct rota_limit_set *set,
		     uintptr_t sub, struct rota_limit_tres *out)
{
	int64_t h[TALLY_RES];

	limit_tally_held(core, set, sub, h);
	*out = (struct rota_limit_tres){
		.cpu = h[TALLY_CPU], .mem = h[TALLY_MEM],
		.node = h[TALLY_NODE], .gpu = h[TALLY_GPU],
	};
}

/* Fill 'out' (held_count entries) for pending 'job'; 'v' points to it. */
static void held_fill(struct core *core, const struct core_job *job,
		      struct rota_limit_tres *out, struct rota_limit_job *v)
{
	const struct rota_limit_set *const *acct =
		share_account_limits(core->share, job->assoc);
	const struct rota_limit_set *q = &core->qos_limits[job->qos];
	size_t k = 0;

	held_one(core, share_assoc_limits(core->share, job->assoc), 0,
		 &out[k++]);
	for (size_t d = 0; acct && acct[d]; d++)
		held_one(core, acct[d], 0, &out[k++]);
	held_one(core, q, 0, &out[k++]);
	held_one(core, q, limit_tally_user_key(job->uid), &out[k++]);
	if (acct && acct[0])
		held_one(core, q, (uintptr_t)acct[0], &out[k]);
	else /* no account: no share of one */
		out[k] = (struct rota_limit_tres){ 0 };
	v->running_use = out;
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

/*
 * What a submit's judges read: the holders' counts, and for a plugin
 * without admit_counted() every queued job's view, made at its first use.
 */
struct admission {
	struct rota_limit_counts counts;
	int64_t *account;	/* counts.account's */
	struct rota_limit_job *queued;
	size_t nqueued;
};

/* The counts of the holders in 'one' (the job is not counted yet). */
static void admission_init(struct core *core, const struct rota_limit_job *one,
			   struct admission *a)
{
	size_t n = 0;

	while (one->account_limits && one->account_limits[n])
		n++;
	*a = (struct admission){ 0 };
	a->account = rota_xcalloc(n + 1, sizeof(*a->account));
	for (size_t d = 0; d < n; d++)
		a->account[d] = limit_tally_queued(core, one->account_limits[d]);
	a->counts.user = limit_tally_queued(core, one->user_limits);
	a->counts.account = a->account;
	a->counts.qos = limit_tally_queued(core, one->qos_limits);
}

static void admission_fini(struct admission *a)
{
	free(a->account);
	free(a->queued);
}

/* Plugin 'i''s word on 'one': 0, or -EINVAL with its line in 'text'. */
static int admit_one(struct core *core, size_t i, int64_t now,
		     const struct rota_limit_job *one, struct admission *a,
		     char *text, size_t len)
{
	const struct rota_limits_ops *o = ops(core, i);
	void *st = plugin_state(core->limits[i]);

	if (has_admit_counted(o))
		return o->admit_counted(st, now, one, &a->counts, text, len);
	if (!o->admit)
		return 0;
	if (!a->queued) /* an older plugin: it counts for itself */
		a->queued = views(core, now, &a->nqueued);
	return o->admit(st, now, one, a->queued, a->nqueued, text, len);
}

/* Would every plugin admit 'job' with 'tasks' tasks? */
static bool admits_tasks(struct core *core, int64_t now, struct core_job *job,
			 const char *user, uint32_t tasks, struct admission *a)
{
	struct rota_limit_job one;
	uint32_t asked = job->desc.ntasks;
	char text[CORE_LIMIT_REASON_MAX];

	job->desc.ntasks = tasks; /* its cores and memory, for the view */
	view(core, job, now, user, &one);
	job->desc.ntasks = asked;
	for (size_t i = 0; i < core->nlimits; i++)
		if (admit_one(core, i, now, &one, a, text, sizeof(text)) < 0)
			return false;
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
			const char *user, struct admission *a)
{
	uint32_t lo = job->desc.ntasks, hi = job->desc.ntasks_max;

	if (admits_tasks(core, now, job, user, hi, a))
		return;
	while (hi - lo > 1) { /* lo is admitted, hi is not */
		uint32_t mid = lo + (hi - lo) / 2;

		if (admits_tasks(core, now, job, user, mid, a))
			lo = mid;
		else
			hi = mid;
	}
	job->desc.ntasks_max = lo > job->desc.ntasks ? lo : 0;
}

int limits_admit(struct core *core, int64_t now, struct core_job *job,
		 const char *user, struct rota_error *err)
{
	struct rota_limit_job one;
	struct admission a;
	int rc = 0;

	if (!core->limits_set)
		return 0;
	view(core, job, now, user, &one);
	admission_init(core, &one, &a);
	for (size_t i = 0; i < core->nlimits && rc == 0; i++) {
		char text[sizeof(err->text)] = "";

		rc = admit_one(core, i, now, &one, &a, text, sizeof(text));
		if (rc < 0)
			rota_errorf(err, -EINVAL, "%s",
				    text[0] ? text : "refused by a limit");
	}
	if (rc == 0 && job->desc.ntasks_max > job->desc.ntasks)
		admit_range(core, now, job, user, &a);
	admission_fini(&a);
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
		limit_tally_index(core, job);
		core_mark_changed(core);
	}
	if (job->limited)
		snprintf(reason_buf(job), CORE_LIMIT_REASON_MAX, "%s",
			 v->reason[0] ? v->reason : "limit");
	if (job->limited && v->detail[0]) {
		if (!job->limit_detail)
			job->limit_detail =
				rota_xcalloc(1, CORE_LIMIT_DETAIL_MAX);
		snprintf(job->limit_detail, CORE_LIMIT_DETAIL_MAX, "%s",
			 v->detail);
	} else if (job->limit_detail) {
		job->limit_detail[0] = '\0';
	}
	if (job->limited != was && !job->hold && !job->dep_wait)
		core_job_set_eligible(job, !job->limited, now);
}

/* Does every plugin judge a pending job by it and the running jobs alone? */
static bool judged_alone(const struct core *core)
{
	for (size_t i = 0; i < core->nlimits; i++)
		if (!has_running_changed(ops(core, i)))
			return false;
	return true;
}

/* Holders whose jobs a pass judges again, at most; more: all jobs. */
#define MOVED_MAX 64

/*
 * Shown the running jobs, which holders' pending jobs may the plugins
 * judge otherwise now?  Their sets into 'moved' (MOVED_MAX); returns how
 * many, or SIZE_MAX for any job.
 */
static size_t running_moved(struct core *core, int64_t now,
			    const struct rota_limit_job *running, size_t n,
			    const struct rota_limit_set **moved)
{
	size_t nmoved = 0;

	/* every plugin sees them: each keeps what it saw for the next time */
	for (size_t i = 0; i < core->nlimits; i++) {
		size_t room = nmoved == SIZE_MAX ? 0 : MOVED_MAX - nmoved;
		int rc = ops(core, i)->running_changed(
			plugin_state(core->limits[i]), now, running, n,
			moved + MOVED_MAX - room, room);

		if (nmoved == SIZE_MAX)
			continue;
		nmoved = rc < 0 || (size_t)rc > room ? SIZE_MAX : nmoved + rc;
	}
	return nmoved;
}

/*
 * The pending jobs to judge, in order: every one, or with 'alone' those
 * not held (a held one keeps no verdict: its hold cleared 'limited') and
 * not waiting on a dependency, unless still marked limited.
 */
static size_t pick_pending(struct core *core, bool alone,
			   struct core_job ***out)
{
	struct core_job **v = rota_xcalloc(core->pending.n + 1, sizeof(*v));
	size_t n = 0;

	for (struct core_job *j = core->pending.head; j; j = j->next)
		if (!alone || j->limited || !(j->hold || j->dep_wait))
			v[n++] = j;
	*out = v;
	return n;
}

/*
 * Of the jobs changed since the last pass, the pending ones (in place),
 * then the jobs of the holders that moved.
 */
static size_t pick_changed(struct core *core, struct core_job ***look,
			   size_t nlook, const struct rota_limit_set **moved,
			   size_t nmoved)
{
	size_t n = 0, all;

	for (size_t i = 0; i < nlook; i++) {
		struct core_job *j = (*look)[i];

		if (j->in_pending)
			(*look)[n++] = j;
		else
			j->limits_look = false;
	}
	/* those listed already are left out: their limits_look is set */
	all = nmoved ? limit_tally_holders_jobs(core, moved, nmoved, look, n)
		     : n;
	for (size_t i = 0; i < n; i++)
		(*look)[i]->limits_look = false;
	return all;
}

/* The views of the running jobs (caller frees). */
static struct rota_limit_job *running_views(struct core *core, int64_t now,
					    size_t *n)
{
	struct rota_limit_job *v =
		rota_xcalloc(core->running.n + 1, sizeof(*v));

	*n = 0;
	for (struct core_job *j = core->running.head; j; j = j->next)
		view(core, j, now, j->user, &v[(*n)++]);
	return v;
}

/* Every plugin's classify() of 'n' views, each blocking for the next. */
static void classify(struct core *core, int64_t now,
		     struct rota_limit_job *v, size_t n)
{
	for (size_t i = 0; i < core->nlimits; i++)
		if (ops(core, i)->classify(plugin_state(core->limits[i]), now,
					   v, n) < 0)
			rota_err("limits/%s: classify failed: jobs left as "
				 "they were", plugin_name(core->limits[i]));
}

void limits_classify(struct core *core, int64_t now)
{
	const struct rota_limit_set *moved[MOVED_MAX];
	struct core_job **look, **jobs;
	struct rota_limit_job *v;
	struct rota_limit_tres *held;
	size_t nlook, nrun, n, nmoved = SIZE_MAX, nheld = 0;
	bool alone;

	if (!core->limits_set)
		return;
	nlook = limit_tally_take(core, &look);
	alone = judged_alone(core);
	v = running_views(core, now, &nrun);
	if (alone)
		nmoved = running_moved(core, now, v, nrun, moved);
	if (nmoved == SIZE_MAX) {
		for (size_t k = 0; k < nlook; k++)
			look[k]->limits_look = false;
		free(look);
		n = pick_pending(core, alone, &jobs);
	} else {
		n = pick_changed(core, &look, nlook, moved, nmoved);
		jobs = look;
	}
	v = rota_xreallocarray(v, nrun + n + 1, sizeof(*v));
	for (size_t k = 0; k < n; k++) {
		view(core, jobs[k], now, jobs[k]->user, &v[nrun + k]);
		nheld += held_count(core, jobs[k]);
	}
	held = rota_xcalloc(nheld + 1, sizeof(*held));
	for (size_t k = 0, at = 0; k < n; k++) {
		held_fill(core, jobs[k], held + at, &v[nrun + k]);
		at += held_count(core, jobs[k]);
	}
	classify(core, now, v, nrun + n);
	for (size_t k = 0; k < n; k++)
		apply(core, jobs[k], &v[nrun + k], now);
	core->sched_stats.limits_judged = n;
	free(held);
	free(jobs);
	free(v);
}

bool limits_may_start(struct core *core, int64_t now, struct core_job *job,
		      bool others_idle)
{
	struct rota_limit_job one;
	struct rota_limit_tres near[16], *held = near;
	bool ok = true;

	if (!core->limits_set)
		return true;
	view(core, job, now, job->user, &one);
	one.count = 1; /* an array's rest starts one task */
	/* what runs now: the jobs this pass started counted already */
	if (held_count(core, job) > sizeof(near) / sizeof(*near))
		held = rota_xcalloc(held_count(core, job), sizeof(*held));
	held_fill(core, job, held, &one);
	for (size_t i = 0; i < core->nlimits && ok; i++) {
		if (!PLUGIN_OPS_HAS(ops(core, i), start) || !ops(core, i)->start)
			continue;
		if (ops(core, i)->start(plugin_state(core->limits[i]), now,
					&one, others_idle, reason_buf(job),
					CORE_LIMIT_REASON_MAX) > 0) {
			job->reason = job->limit_reason;
			ok = false;
		}
	}
	if (held != near)
		free(held);
	return ok;
}
