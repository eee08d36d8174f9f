// SPDX-License-Identifier: MIT
/*
 * priority/multifactor: Slurm's multifactor priority, with Flux's user
 * factor.  Each factor is normalized to [0, 1] and weighted:
 *
 *   priority = WeightAge x age + WeightFairshare x fairshare
 *            + WeightJobSize x jobsize + WeightQueue x queue
 *            + WeightQOS x qos + WeightAssoc x assoc
 *            + WeightUser x (urgency - 16) / 16  - nice
 *
 * age = min(eligible time, MaxAge) / MaxAge: only time the job could have
 * run counts (not held, not blocked by a limit, not waiting on a
 * dependency), and it stops growing at MaxAge (Slurm's PriorityMaxAge,
 * 7 days).  fairshare is the fairshare plugin's factor.  jobsize, as
 * Slurm computes it without SMALL_RELATIVE_TO_TIME: the mean of the
 * node part (nodes / cluster nodes) and the core part (cores / cluster
 * cores), or, with FavorSmall=yes, of their complements ((total -
 * asked) / total); SizeBy=nodes or cores keeps one part.  queue, qos and
 * assoc are the job's Priority= over the largest of its kind.
 *
 * WeightTRES="CPU=1000,Mem=2000,Node=0,GRES/gpu=3000" is Slurm's
 * PriorityWeightTRES: each resource the job asks adds its weight x the
 * job's amount over its queue's total (Slurm divides by the partition's,
 * not the cluster's: bench/oracle/slurm's 22.05 shows cpu=125 for 4 of a
 * partition's 32 CPUs under CPU=1000), one term per resource ("tres/cpu",
 * as sprio's TRES column "cpu=125,mem=125").  A job's memory is the
 * whole job's, its nodes those it asks (one at least), its GPUs all of
 * them.  Slurm truncates the summed priority to a whole number; Rota
 * keeps the fraction, so that order among near jobs is kept.
 *
 * Flux's six factors are the same less the association one: wait time
 * (age), fair-share, QOS, queue, job size, and the user's urgency (0 to
 * 31, 16 by default), which users may only lower: (urgency - 16) / 16 is
 * at most 0 for them, so WeightUser can take from a job, never add.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "plugins/rota_plugin.h"

enum mf_factor {
	MF_AGE,
	MF_FAIRSHARE,
	MF_JOBSIZE,
	MF_QUEUE,
	MF_QOS,
	MF_ASSOC,
	MF_USER,
	MF_COUNT,
};

static const char *const mf_names[MF_COUNT] = {
	"age", "fairshare", "jobsize", "queue", "qos", "assoc", "user",
};

/* Setting names, in the order of enum mf_factor. */
static const char *const mf_keys[MF_COUNT] = {
	"WeightAge",   "WeightFairshare", "WeightJobSize", "WeightQueue",
	"WeightQOS",   "WeightAssoc",	  "WeightUser",
};

enum mf_size_by { SIZE_BOTH, SIZE_NODES, SIZE_CORES };

/* The resources WeightTRES weighs, as Slurm names them. */
enum mf_tres { MT_CPU, MT_MEM, MT_NODE, MT_GPU, MT_COUNT };

static const char *const mt_keys[MT_COUNT] = {
	"CPU", "Mem", "Node", "GRES/gpu",
};

static const char *const mt_names[MT_COUNT] = {
	"tres/cpu", "tres/mem", "tres/node", "tres/gres/gpu",
};

struct mf_state {
	double weight[MF_COUNT];
	enum mf_factor active[MF_COUNT]; /* those of weight != 0, in order */
	unsigned nactive;
	int64_t max_age;
	bool favor_small;
	unsigned size_by;
	double tres_weight[MT_COUNT]; /* WeightTRES, 0 each by default */
	bool any_tres;
};

static double ratio(double part, double whole)
{
	return whole > 0 ? part / whole : 0;
}

static double job_size(const struct mf_state *st,
		       const struct rota_prio_context *ctx,
		       const struct rota_prio_job *job)
{
	double nodes = job->nodes ? job->nodes : 1;
	double n = ratio(nodes, ctx->total_nodes);
	double c = ratio(job->cores, ctx->total_cores);

	if (st->favor_small) {
		n = ctx->total_nodes ? 1 - n : 0;
		c = ctx->total_cores ? 1 - c : 0;
	}
	n = fmin(fmax(n, 0), 1);
	c = fmin(fmax(c, 0), 1);
	return st->size_by == SIZE_NODES   ? n
	       : st->size_by == SIZE_CORES ? c
					   : (n + c) / 2;
}

/*
 * A factor's value in [0, 1] (user: [-1, 15/16]) before its weight;
 * inline, as a rating calls it for every pending job and factor.
 */
static inline double factor_norm(const struct mf_state *st,
				 const struct rota_prio_context *ctx,
				 const struct rota_prio_job *job,
				 enum mf_factor f)
{
	int64_t age;

	switch (f) {
	case MF_AGE:
		age = job->eligible_time < st->max_age ? job->eligible_time
						       : st->max_age;
		return ratio((double)(age > 0 ? age : 0), st->max_age);
	case MF_FAIRSHARE:
		return job->fs_factor;
	case MF_JOBSIZE:
		return job_size(st, ctx, job);
	case MF_QUEUE:
		return ratio(job->queue_priority, ctx->max_queue_priority);
	case MF_QOS:
		return ratio(job->qos_priority, ctx->max_qos_priority);
	case MF_ASSOC:
		return ratio(job->assoc_priority, ctx->max_assoc_priority);
	case MF_USER:
		return ((double)job->urgency - 16) / 16;
	default:
		return 0;
	}
}

/* The input a factor is made from, for `rota prio`. */
static double factor_raw(const struct rota_prio_job *job, enum mf_factor f)
{
	switch (f) {
	case MF_AGE:
		return (double)job->eligible_time;
	case MF_FAIRSHARE:
		return job->fs_factor;
	case MF_JOBSIZE:
		return job->cores;
	case MF_QUEUE:
		return job->queue_priority;
	case MF_QOS:
		return job->qos_priority;
	case MF_ASSOC:
		return job->assoc_priority;
	case MF_USER:
		return job->urgency;
	default:
		return 0;
	}
}

/* Job i's amount of resource 'r', over its queue's total ('*whole'). */
static double tres_amount(const struct rota_prio_context *ctx,
			  const struct rota_prio_job *job, size_t i,
			  enum mf_tres r, double *whole)
{
	*whole = 0;
	switch (r) {
	case MT_CPU:
		if (ctx->job_queue_cores)
			*whole = ctx->job_queue_cores[i];
		return job->cores;
	case MT_MEM:
		if (ctx->job_queue_mem_mb)
			*whole = (double)ctx->job_queue_mem_mb[i];
		return (double)job->mem_mb;
	case MT_NODE:
		if (ctx->job_queue_nodes)
			*whole = ctx->job_queue_nodes[i];
		return job->nodes ? job->nodes : 1;
	default:
		if (ctx->job_queue_gpus)
			*whole = ctx->job_queue_gpus[i];
		return ctx->job_gpus ? ctx->job_gpus[i] : 0;
	}
}

/* The TRES terms of job i (the i-th of the context's arrays). */
static double tres_sum(const struct mf_state *st,
		       const struct rota_prio_context *ctx,
		       const struct rota_prio_job *job, size_t i)
{
	double p = 0, whole;

	for (int r = 0; r < MT_COUNT; r++) {
		double amount;

		if (st->tres_weight[r] == 0)
			continue;
		amount = tres_amount(ctx, job, i, r, &whole);
		p += st->tres_weight[r] * ratio(amount, whole);
	}
	return p;
}

/*
 * Factors of weight 0 are not worked out: all are finite, so they would
 * add nothing.  Integer negation keeps nice 0 from starting at -0.
 */
static int mf_compute(void *state, const struct rota_prio_context *ctx,
		      struct rota_prio_job *jobs, size_t n)
{
	const struct mf_state *st = state;

	for (size_t i = 0; i < n; i++) {
		double p = (double)-jobs[i].nice;

		for (unsigned k = 0; k < st->nactive; k++)
			p += st->weight[st->active[k]] *
			     factor_norm(st, ctx, &jobs[i], st->active[k]);
		if (st->any_tres)
			p += tres_sum(st, ctx, &jobs[i], i);
		jobs[i].priority = p;
	}
	return 0;
}

static size_t mf_explain(void *state, const struct rota_prio_context *ctx,
			 const struct rota_prio_job *job,
			 struct rota_prio_factor *out, size_t max)
{
	const struct mf_state *st = state;
	size_t k = 0;

	for (unsigned i = 0; i < st->nactive && k < max; i++) {
		enum mf_factor f = st->active[i];
		double norm;

		/* never taken; without it GCC 12 (no LTO) sees mf_names[7] */
		if (f >= MF_COUNT)
			break;
		norm = factor_norm(st, ctx, job, f);

		out[k++] = (struct rota_prio_factor){
			.name = mf_names[f],
			.raw = factor_raw(job, f),
			.norm = norm,
			.weight = st->weight[f],
			.value = st->weight[f] * norm,
		};
	}
	for (int r = 0; r < MT_COUNT && k < max; r++) {
		double whole, amount;

		if (st->tres_weight[r] == 0)
			continue;
		amount = tres_amount(ctx, job, 0, r, &whole);
		if (amount == 0) /* as sprio: none for what it asks none of */
			continue;
		out[k++] = (struct rota_prio_factor){
			.name = mt_names[r],
			.raw = amount,
			.norm = ratio(amount, whole),
			.weight = st->tres_weight[r],
			.value = st->tres_weight[r] * ratio(amount, whole),
		};
	}
	if (job->nice && k < max)
		out[k++] = (struct rota_prio_factor){
			.name = "nice",
			.raw = job->nice,
			.norm = job->nice,
			.weight = -1,
			.value = -(double)job->nice,
		};
	return k;
}

static void mf_describe(void *state, char *buf, size_t len)
{
	const struct mf_state *st = state;
	size_t used = 0;

	buf[0] = '\0';
	for (int f = 0; f < MF_COUNT && used < len; f++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s=%g",
					 f ? " " : "", mf_keys[f],
					 st->weight[f]);
	if (used < len)
		used += (size_t)snprintf(buf + used, len - used,
					 " MaxAge=%llds%s",
					 (long long)st->max_age,
					 st->favor_small ? " FavorSmall" : "");
	for (int r = 0, n = 0; r < MT_COUNT && used < len; r++)
		if (st->tres_weight[r] != 0)
			used += (size_t)snprintf(
				buf + used, len - used, "%s%s=%g",
				n++ ? "," : " WeightTRES=", mt_keys[r],
				st->tres_weight[r]);
}

/* One "Name=weight" of WeightTRES; -EINVAL with 'err' filled. */
static int tres_item(struct mf_state *st, const char *item, size_t len,
		     const char *where, char *err, size_t errlen)
{
	char text[64], *eq, *end;
	double w;

	if (len >= sizeof(text))
		len = sizeof(text) - 1;
	memcpy(text, item, len);
	text[len] = '\0';
	eq = strchr(text, '=');
	if (!eq) {
		snprintf(err, errlen, "%s: WeightTRES: '%s' is not "
			 "resource=weight", where, text);
		return -EINVAL;
	}
	*eq++ = '\0';
	errno = 0;
	w = strtod(eq, &end);
	if (!*eq || *end || errno || !(w >= 0 && w <= 1e12)) {
		snprintf(err, errlen, "%s: WeightTRES: %s: '%s' is not a "
			 "weight from 0", where, text, eq);
		return -EINVAL;
	}
	for (int r = 0; r < MT_COUNT; r++) {
		if (strcasecmp(text, mt_keys[r]) == 0) {
			st->tres_weight[r] = w;
			st->any_tres |= w != 0;
			return 0;
		}
	}
	snprintf(err, errlen, "%s: WeightTRES: unknown resource '%s' (CPU, "
		 "Mem, Node, GRES/gpu)", where, text);
	return -EINVAL;
}

/* WeightTRES="CPU=1000,Mem=2000,GRES/gpu=3000" (Slurm's spelling). */
static int tres_weights(struct mf_state *st, const struct rota_host *host,
			const struct rota_plugin_conf *conf, char *err,
			size_t errlen)
{
	const char *text = NULL;
	char where[128] = "";

	if (host->size < offsetof(struct rota_host, conf_string) +
				 sizeof(host->conf_string) ||
	    !host->conf_string)
		return 0;
	host->conf_string(conf, "WeightTRES", &text, where, sizeof(where));
	while (text && *text) {
		size_t len = strcspn(text, ",");
		int rc = tres_item(st, text, len, where, err, errlen);

		if (rc)
			return rc;
		text += len + (text[len] == ',');
	}
	return 0;
}

static int mf_init(const struct rota_host *host,
		   const struct rota_plugin_conf *conf, void **state,
		   char *err, size_t errlen)
{
	static const char *const size_by[] = { "both", "nodes", "cores",
					       NULL };
	struct mf_state *st = calloc(1, sizeof(*st));
	int rc = 0;

	*state = NULL;
	if (!st) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	st->max_age = 7 * 86400;
	for (int f = 0; f < MF_COUNT && rc == 0; f++)
		rc = host->conf_double(conf, mf_keys[f], 0, 1e12,
				       &st->weight[f], err, errlen);
	if (rc == 0)
		rc = host->conf_duration(conf, "MaxAge", 1,
					 (int64_t)3650 * 86400, &st->max_age,
					 err, errlen);
	if (rc == 0)
		rc = host->conf_bool(conf, "FavorSmall", &st->favor_small, err,
				     errlen);
	if (rc == 0)
		rc = host->conf_choice(conf, "SizeBy", size_by, &st->size_by,
				       err, errlen);
	if (rc == 0)
		rc = tres_weights(st, host, conf, err, errlen);
	if (rc < 0) {
		free(st);
		return rc;
	}
	for (int f = 0; f < MF_COUNT; f++)
		if (st->weight[f] != 0)
			st->active[st->nactive++] = f;
	*state = st;
	return 0;
}

static void mf_fini(void *state)
{
	free(state);
}

static const struct rota_priority_ops mf_ops = {
	.size = sizeof(mf_ops),
	.compute = mf_compute,
	.explain = mf_explain,
	.describe = mf_describe,
	.fs_factor_only = true,
	/* Slurm clears a held job's accrue time (bench/oracle/slurm) */
	.hold_restarts_age = true,
};

extern const struct rota_plugin ROTA_PLUGIN_EXPORT(priority, multifactor);
const struct rota_plugin ROTA_PLUGIN_EXPORT(priority, multifactor) = {
	.abi = ROTA_PLUGIN_ABI,
	.kind = ROTA_PLUGIN_PRIORITY,
	.name = "multifactor",
	.init = mf_init,
	.fini = mf_fini,
	.ops = &mf_ops,
};
