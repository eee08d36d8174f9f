// SPDX-License-Identifier: MIT
/*
 * priority/formula: PBS's job_sort_formula, a site's own expression over
 * named job values, parsed once at load (expr.h) and evaluated per job.
 * IT4I's is written verbatim:
 *
 *   Priority=formula Formula="1000*queue_priority +
 *       fairshare_priority/1000 + eligible_time/864000"   (one line)
 *
 * Setting: Formula (required), at most 4096 characters.  A syntax error
 * or an unknown name refuses the config in one line naming file, line
 * and column: "rota.conf:7: Formula: unknown name 'x' at column 7".
 *
 * A job for which the formula divides by zero, overflows or reads a value
 * that is not finite gets priority 0: a defined place (behind every job
 * rated positive) rather than a NaN that would scramble the sort.  Each
 * such job is logged once when it starts failing, not every pass.
 *
 * rota prio lists each name the formula uses with raw = norm = value =
 * the job's value and weight 1: a formula has no additive terms, so the
 * honest breakdown is its inputs, next to the formula in the header.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/priority/expr.h"
#include "plugins/rota_plugin.h"

/* new failing jobs logged one by one per pass; the rest are counted */
#define FORMULA_LOG_MAX 5

enum formula_value {
	FV_QUEUE_PRIORITY,
	FV_QOS_PRIORITY,
	FV_ASSOC_PRIORITY,
	FV_FAIRSHARE_PRIORITY,
	FV_FAIRSHARE_FACTOR,
	FV_FAIRSHARE_PERC,
	FV_TICKETS,
	FV_ELIGIBLE_TIME,
	FV_WAIT_TIME,
	FV_NCPUS,
	FV_NODES,
	FV_WALLTIME,
	FV_MEM,
	FV_NICE,
	FV_URGENCY,
	FV_BYPASS,
	FV_COUNT
};

/* The names a formula may use; PBS's where PBS has one. */
static const struct rota_expr_name formula_names[FV_COUNT] = {
	/* the queue's Priority= */
	{ "queue_priority", FV_QUEUE_PRIORITY },
	/* the QOS's Priority= */
	{ "qos_priority", FV_QOS_PRIORITY },
	/* the user's association's Priority= */
	{ "assoc_priority", FV_ASSOC_PRIORITY },
	/* the fairshare plugin's own figure (ratio: IT4I's 0..1e6) */
	{ "fairshare_priority", FV_FAIRSHARE_PRIORITY },
	/* the fairshare factor, 0..1 */
	{ "fairshare_factor", FV_FAIRSHARE_FACTOR },
	/* PBS's: the association's percentage of the share tree, 0..100 */
	{ "fairshare_perc", FV_FAIRSHARE_PERC },
	/* share-tree tickets of the job (fairshare/sharetree), else 0 */
	{ "tickets", FV_TICKETS },
	/* seconds the job could have run: not held, blocked or waiting */
	{ "eligible_time", FV_ELIGIBLE_TIME },
	/* seconds since submission */
	{ "wait_time", FV_WAIT_TIME },
	/* cores asked: tasks x cores per task */
	{ "ncpus", FV_NCPUS },
	/* nodes asked, 0 when left to the task count */
	{ "nodes", FV_NODES },
	/* the time limit in seconds, 0 when none */
	{ "walltime", FV_WALLTIME },
	/* memory of the whole job, MB */
	{ "mem", FV_MEM },
	/* the job's nice, -10000..10000 */
	{ "nice", FV_NICE },
	/* Flux's urgency, 0..31 (16 by default) */
	{ "urgency", FV_URGENCY },
	/* times a backfilled job passed this one */
	{ "bypass", FV_BYPASS },
};

struct formula_state {
	const struct rota_host *host;	/* for the log, valid until fini */
	char *text;
	struct rota_expr *expr;
	/* ids that failed last pass, sorted: log only the new ones */
	uint32_t *failed;
	size_t nfailed;
	uint32_t *now_failed;		/* this pass's, swapped in after */
	int *now_why;			/* rota_expr_eval()'s error, by job */
	size_t cap;
};

static void formula_values(const struct rota_prio_job *job, double *v)
{
	v[FV_QUEUE_PRIORITY] = job->queue_priority;
	v[FV_QOS_PRIORITY] = job->qos_priority;
	v[FV_ASSOC_PRIORITY] = job->assoc_priority;
	v[FV_FAIRSHARE_PRIORITY] = job->fs_value;
	v[FV_FAIRSHARE_FACTOR] = job->fs_factor;
	v[FV_FAIRSHARE_PERC] = job->fs_shares_norm * 100;
	v[FV_TICKETS] = job->tickets;
	v[FV_ELIGIBLE_TIME] = (double)job->eligible_time;
	v[FV_WAIT_TIME] = (double)job->wait_time;
	v[FV_NCPUS] = job->cores;
	v[FV_NODES] = job->nodes;
	v[FV_WALLTIME] = (double)job->time_limit;
	v[FV_MEM] = (double)job->mem_mb;
	v[FV_NICE] = job->nice;
	v[FV_URGENCY] = job->urgency;
	v[FV_BYPASS] = job->bypass;
}

static void formula_fini(void *state)
{
	struct formula_state *st = state;

	if (!st)
		return;
	rota_expr_destroy(st->expr);
	free(st->text);
	free(st->failed);
	free(st->now_failed);
	free(st->now_why);
	free(st);
}

static int formula_init(const struct rota_host *host,
			const struct rota_plugin_conf *conf, void **state,
			char *err, size_t errlen)
{
	struct formula_state *st;
	const char *text = NULL;
	char where[128] = "";
	char why[160];
	int rc;

	*state = NULL;
	if (host->size < offsetof(struct rota_host, conf_string) +
				 sizeof(host->conf_string) ||
	    !host->conf_string) {
		snprintf(err, errlen, "priority/formula: the controller "
			 "cannot pass it a Formula (plugin host too old)");
		return -EINVAL;
	}
	host->conf_string(conf, "Formula", &text, where, sizeof(where));
	if (!text) {
		snprintf(err, errlen, "priority/formula: Formula is required, "
			 "e.g. Formula=\"1000*queue_priority + "
			 "fairshare_priority/1000\"");
		return -EINVAL;
	}
	st = calloc(1, sizeof(*st));
	if (!st || !(st->text = strdup(text))) {
		free(st);
		snprintf(err, errlen, "priority/formula: out of memory");
		return -ENOMEM;
	}
	st->host = host;
	rc = rota_expr_parse(text, formula_names, FV_COUNT, FV_COUNT,
			     &st->expr, why, sizeof(why));
	if (rc < 0) {
		snprintf(err, errlen, "%s: Formula: %s", where, why);
		formula_fini(st);
		return rc;
	}
	*state = st;
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a;
	uint32_t y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Room for n jobs in the lists; false when memory is short. */
static bool formula_reserve(struct formula_state *st, size_t n)
{
	uint32_t *a;
	uint32_t *b;
	int *c;

	if (n <= st->cap)
		return true;
	a = realloc(st->failed, n * sizeof(*a));
	if (a)
		st->failed = a;
	b = realloc(st->now_failed, n * sizeof(*b));
	if (b)
		st->now_failed = b;
	c = realloc(st->now_why, n * sizeof(*c));
	if (c)
		st->now_why = c;
	if (!a || !b || !c)
		return false;
	st->cap = n;
	return true;
}

static void formula_log(const struct formula_state *st, uint32_t id, int rc)
{
	st->host->log(st->host, ROTA_PLUGIN_LOG_WARN,
		      "job %u: formula %s, priority 0", id,
		      rc == -EDOM ? "divides by zero" : "is not finite");
}

/*
 * Log the 'k' jobs failing now (st->now_failed) that did not fail last
 * pass, then keep this pass's list, sorted, for the next.
 */
static void formula_report(struct formula_state *st, size_t k)
{
	size_t more = 0;
	size_t logged = 0;
	uint32_t *t;

	for (size_t i = 0; i < k; i++) {
		if (st->nfailed && bsearch(&st->now_failed[i], st->failed,
					   st->nfailed, sizeof(uint32_t),
					   cmp_id))
			continue;
		if (logged++ < FORMULA_LOG_MAX)
			formula_log(st, st->now_failed[i], st->now_why[i]);
		else
			more++;
	}
	if (more)
		st->host->log(st->host, ROTA_PLUGIN_LOG_WARN,
			      "%zu more jobs: formula cannot rate them, "
			      "priority 0", more);
	if (k) /* qsort's array may not be NULL, even empty */
		qsort(st->now_failed, k, sizeof(uint32_t), cmp_id);
	t = st->failed;
	st->failed = st->now_failed;
	st->now_failed = t;
	st->nfailed = k;
}

/*
 * Without memory for the lists every failing job is logged each pass:
 * noisy, but never silent.
 */
static int formula_compute(void *state, const struct rota_prio_context *ctx,
			   struct rota_prio_job *jobs, size_t n)
{
	struct formula_state *st = state;
	bool tracked = formula_reserve(st, n);
	double v[FV_COUNT];
	size_t k = 0;
	int rc;

	(void)ctx;
	for (size_t i = 0; i < n; i++) {
		formula_values(&jobs[i], v);
		rc = rota_expr_eval(st->expr, v, &jobs[i].priority);
		if (!rc)
			continue;
		jobs[i].priority = 0;
		if (!tracked) {
			formula_log(st, jobs[i].id, rc);
			continue;
		}
		st->now_failed[k] = jobs[i].id;
		st->now_why[k++] = rc;
	}
	if (tracked)
		formula_report(st, k);
	return 0;
}

static size_t formula_explain(void *state, const struct rota_prio_context *ctx,
			      const struct rota_prio_job *job,
			      struct rota_prio_factor *factors, size_t max)
{
	const struct formula_state *st = state;
	double v[FV_COUNT];
	size_t k = 0;

	(void)ctx;
	formula_values(job, v);
	for (unsigned i = 0; i < FV_COUNT && k < max; i++) {
		if (!rota_expr_uses(st->expr, i))
			continue;
		factors[k++] = (struct rota_prio_factor){
			.name = formula_names[i].name,
			.raw = v[i],
			.norm = v[i],
			.weight = 1,
			.value = v[i],
		};
	}
	return k;
}

static void formula_describe(void *state, char *buf, size_t len)
{
	const struct formula_state *st = state;

	snprintf(buf, len, "%s", st->text);
}

static const struct rota_priority_ops formula_ops = {
	.size = sizeof(formula_ops),
	.compute = formula_compute,
	.explain = formula_explain,
	.describe = formula_describe,
};

extern const struct rota_plugin ROTA_PLUGIN_EXPORT(priority, formula);
const struct rota_plugin ROTA_PLUGIN_EXPORT(priority, formula) = {
	.abi = ROTA_PLUGIN_ABI,
	.kind = ROTA_PLUGIN_PRIORITY,
	.name = "formula",
	.init = formula_init,
	.fini = formula_fini,
	.ops = &formula_ops,
};
