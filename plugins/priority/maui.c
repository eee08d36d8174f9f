// SPDX-License-Identifier: MIT
/*
 * priority/maui: Maui's job start priority (Maui Admin Guide 5.1.2, and
 * MJobGetStartPriority() in Maui's MPriority.c): components, each a
 * weighted sum of subcomponents, weighted again and added up.
 *
 *   Service  QueueTime   eligible queue time, minutes
 *            XFactor     (queued + wallclock limit) / wallclock limit
 *            Bypass      times a backfilled job passed this one
 *   Target   QueueTime   (target - queued)^-2, seconds, the difference
 *                        floored at 0.0001: Maui's "exponential" growth
 *                        as a job nears its QOS's target wait
 *   Resource Node, Proc, Mem (MB), WallTime (the limit, seconds)
 *   Cred     User (the association's Priority=), QOS, Class (the
 *            queue's Priority=)
 *   FS       User: target% - usage%, the association's share of the
 *            machine less its share of the usage, in percent
 *
 *   priority = sum over components of Weight x sum of SubWeight x value,
 *              then bounded to [1, 1e9] as Maui does by default (below 1
 *              unless ENABLENEGJOBPRIORITY; MAX_PRIO_VAL above)
 *
 * Choices where Maui is silent or does not fit Rota:
 * - queue time counts eligible time only (Maui's effective queue
 *   duration with holds excluded), for XFactor too;
 * - a job without a time limit has XFactor 1 (the limit as the wallclock
 *   limit grows); XFMinWCLimit floors the divisor as in Maui;
 * - Maui's code subtracts a timestamp from the target (a bug that pins
 *   the factor at 1e8); the documented intent, time until the target, is
 *   what is computed; no target (0) gives 0;
 * - a job whose association has no share gets FS 0, as Maui gives a
 *   credential without an FS target.
 * Maui's per-factor caps are not offered.
 *
 * Settings: Maui's parameter names in CamelCase, all from 0 to 1e9:
 * ServiceWeight, TargetWeight, ResWeight, CredWeight, FSWeight (1 each,
 * Maui's defaults); QueueTimeWeight 1; XFactorWeight, BypassWeight,
 * TargetQueueTimeWeight, NodeWeight, ProcWeight, MemWeight,
 * WallTimeWeight, UserWeight, QOSWeight, ClassWeight, FSUserWeight 0;
 * XFMinWCLimit, a duration, 0 by default.  With the defaults the
 * priority is the minutes queued: FIFO, as in Maui.
 *
 * rota prio lists every subcomponent whose weight is not 0, named
 * "<component>.<subcomponent>" like Maui's diagnose -p columns: raw in
 * its own unit, norm the value weighed, weight the component's times
 * the subcomponent's, value their product.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "plugins/rota_plugin.h"

#define MAUI_WEIGHT_MAX 1e9
#define MAUI_PRIO_MIN 1.0
#define MAUI_PRIO_MAX 1e9	/* Maui's MAX_PRIO_VAL */
#define MAUI_TARGET_FLOOR 0.0001

enum maui_comp {
	MC_SERV,
	MC_TARG,
	MC_RES,
	MC_CRED,
	MC_FS,
	MC_COUNT
};

enum maui_sub {
	MS_QUEUETIME,
	MS_XFACTOR,
	MS_BYPASS,
	MS_TARGET_QUEUETIME,
	MS_NODE,
	MS_PROC,
	MS_MEM,
	MS_WALLTIME,
	MS_USER,
	MS_QOS,
	MS_CLASS,
	MS_FSUSER,
	MS_COUNT
};

static const struct {
	const char *key;
	double def;
} maui_comps[MC_COUNT] = {
	[MC_SERV] = { "ServiceWeight", 1 },
	[MC_TARG] = { "TargetWeight", 1 },
	[MC_RES] = { "ResWeight", 1 },
	[MC_CRED] = { "CredWeight", 1 },
	[MC_FS] = { "FSWeight", 1 },
};

static const struct {
	const char *key;
	const char *name;	/* for rota prio */
	enum maui_comp comp;
	double def;
} maui_subs[MS_COUNT] = {
	[MS_QUEUETIME] = { "QueueTimeWeight", "serv.queuetime", MC_SERV, 1 },
	[MS_XFACTOR] = { "XFactorWeight", "serv.xfactor", MC_SERV, 0 },
	[MS_BYPASS] = { "BypassWeight", "serv.bypass", MC_SERV, 0 },
	[MS_TARGET_QUEUETIME] = { "TargetQueueTimeWeight", "targ.queuetime",
				  MC_TARG, 0 },
	[MS_NODE] = { "NodeWeight", "res.node", MC_RES, 0 },
	[MS_PROC] = { "ProcWeight", "res.proc", MC_RES, 0 },
	[MS_MEM] = { "MemWeight", "res.mem", MC_RES, 0 },
	[MS_WALLTIME] = { "WallTimeWeight", "res.walltime", MC_RES, 0 },
	[MS_USER] = { "UserWeight", "cred.user", MC_CRED, 0 },
	[MS_QOS] = { "QOSWeight", "cred.qos", MC_CRED, 0 },
	[MS_CLASS] = { "ClassWeight", "cred.class", MC_CRED, 0 },
	[MS_FSUSER] = { "FSUserWeight", "fs.user", MC_FS, 0 },
};

struct maui_state {
	double comp[MC_COUNT];
	double sub[MS_COUNT];
	int64_t xf_min_wclimit;	/* seconds */
};

static int maui_init(const struct rota_host *host,
		     const struct rota_plugin_conf *conf, void **state,
		     char *err, size_t errlen)
{
	struct maui_state *st;
	int rc = 0;

	*state = NULL;
	st = calloc(1, sizeof(*st));
	if (!st) {
		snprintf(err, errlen, "priority/maui: out of memory");
		return -ENOMEM;
	}
	for (int i = 0; rc == 0 && i < MC_COUNT; i++) {
		st->comp[i] = maui_comps[i].def;
		rc = host->conf_double(conf, maui_comps[i].key, 0,
				       MAUI_WEIGHT_MAX, &st->comp[i], err,
				       errlen);
	}
	for (int i = 0; rc == 0 && i < MS_COUNT; i++) {
		st->sub[i] = maui_subs[i].def;
		rc = host->conf_double(conf, maui_subs[i].key, 0,
				       MAUI_WEIGHT_MAX, &st->sub[i], err,
				       errlen);
	}
	if (rc == 0)
		rc = host->conf_duration(conf, "XFMinWCLimit", 0,
					 INT64_C(366) * 86400,
					 &st->xf_min_wclimit, err, errlen);
	if (rc) {
		free(st);
		return rc;
	}
	*state = st;
	return 0;
}

static void maui_fini(void *state)
{
	free(state);
}

static double maui_xfactor(const struct maui_state *st,
			   const struct rota_prio_job *job)
{
	double limit = (double)job->time_limit;

	if (job->time_limit <= 0)
		return 1;
	return ((double)job->eligible_time + limit) /
	       fmax((double)st->xf_min_wclimit, limit);
}

/* Seconds left to the QOS's target wait (raw) and Maui's factor. */
static double maui_target(const struct rota_prio_job *job, double *left)
{
	*left = (double)(job->qos_target_wait - job->eligible_time);
	if (job->qos_target_wait <= 0)
		return 0;
	return pow(fmax(MAUI_TARGET_FLOOR, *left), -2.0);
}

/* Each subcomponent's input in its own unit and the value weighed. */
static void maui_terms(const struct maui_state *st,
		       const struct rota_prio_job *job, double *raw,
		       double *norm)
{
	double share = job->fs_shares_norm * 100;
	double used = job->fs_usage_norm * 100;

	raw[MS_QUEUETIME] = (double)job->eligible_time;
	norm[MS_QUEUETIME] = fmax(0, raw[MS_QUEUETIME] / 60);
	raw[MS_XFACTOR] = norm[MS_XFACTOR] = maui_xfactor(st, job);
	raw[MS_BYPASS] = norm[MS_BYPASS] = job->bypass;
	norm[MS_TARGET_QUEUETIME] = maui_target(job, &raw[MS_TARGET_QUEUETIME]);
	raw[MS_NODE] = norm[MS_NODE] = job->nodes;
	raw[MS_PROC] = norm[MS_PROC] = job->cores;
	raw[MS_MEM] = norm[MS_MEM] = (double)job->mem_mb;
	raw[MS_WALLTIME] = norm[MS_WALLTIME] = (double)job->time_limit;
	raw[MS_USER] = norm[MS_USER] = job->assoc_priority;
	raw[MS_QOS] = norm[MS_QOS] = job->qos_priority;
	raw[MS_CLASS] = norm[MS_CLASS] = job->queue_priority;
	raw[MS_FSUSER] = used;
	norm[MS_FSUSER] = share > 0 ? share - used : 0;
}

static double maui_weight(const struct maui_state *st, int sub)
{
	return st->comp[maui_subs[sub].comp] * st->sub[sub];
}

static double maui_priority(const struct maui_state *st,
			    const struct rota_prio_job *job)
{
	double raw[MS_COUNT];
	double norm[MS_COUNT];
	double prio = 0;

	maui_terms(st, job, raw, norm);
	for (int i = 0; i < MS_COUNT; i++)
		if (st->sub[i] != 0)
			prio += maui_weight(st, i) * norm[i];
	/* NaN (from inconsistent input) lands on the floor, not the sort */
	if (!(prio >= MAUI_PRIO_MIN))
		return MAUI_PRIO_MIN;
	return fmin(prio, MAUI_PRIO_MAX);
}

static int maui_compute(void *state, const struct rota_prio_context *ctx,
			struct rota_prio_job *jobs, size_t n)
{
	const struct maui_state *st = state;

	(void)ctx;
	for (size_t i = 0; i < n; i++)
		jobs[i].priority = maui_priority(st, &jobs[i]);
	return 0;
}

static size_t maui_explain(void *state, const struct rota_prio_context *ctx,
			   const struct rota_prio_job *job,
			   struct rota_prio_factor *factors, size_t max)
{
	const struct maui_state *st = state;
	double raw[MS_COUNT];
	double norm[MS_COUNT];
	size_t k = 0;

	(void)ctx;
	maui_terms(st, job, raw, norm);
	for (int i = 0; i < MS_COUNT && k < max; i++) {
		double w = maui_weight(st, i);

		if (w == 0)
			continue;
		factors[k++] = (struct rota_prio_factor){
			.name = maui_subs[i].name,
			.raw = raw[i],
			.norm = norm[i],
			.weight = w,
			.value = w * norm[i],
		};
	}
	return k;
}

static void maui_describe(void *state, char *buf, size_t len)
{
	const struct maui_state *st = state;
	size_t used = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (int i = 0; i < MS_COUNT && used < len; i++) {
		if (maui_weight(st, i) == 0)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s=%g(%g)",
					 used ? " " : "", maui_subs[i].name,
					 st->comp[maui_subs[i].comp],
					 st->sub[i]);
	}
	if (used == 0)
		snprintf(buf, len, "all weights 0: every job at priority 1");
}

static const struct rota_priority_ops maui_ops = {
	.size = sizeof(maui_ops),
	.compute = maui_compute,
	.explain = maui_explain,
	.describe = maui_describe,
};

extern const struct rota_plugin ROTA_PLUGIN_EXPORT(priority, maui);
const struct rota_plugin ROTA_PLUGIN_EXPORT(priority, maui) = {
	.abi = ROTA_PLUGIN_ABI,
	.kind = ROTA_PLUGIN_PRIORITY,
	.name = "maui",
	.init = maui_init,
	.fini = maui_fini,
	.ops = &maui_ops,
};
