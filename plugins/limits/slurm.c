// SPDX-License-Identifier: MIT
/*
 * limits/slurm: Slurm's association and QOS limits, the built-in default.
 * A job has holders: its user's association, its account and every parent
 * up to the root, and its QOS.  A limit applies at every holder that sets
 * it, so the tightest one wins.
 *
 *   at submit   MaxWall, MaxTRES=cpu=,mem=,node=,gres/gpu= (per job),
 *               MaxSubmitJobs (the holder's pending and running jobs
 *               already at it), a running limit the job passes by itself
 *   pending     MaxJobs (the holder's running jobs at it), GrpTRESRunMins
 *               =cpu= (cores x minutes left of the holder's running jobs
 *               plus this job's cores x its limit, above it), GrpTRES=
 *               and a QOS's MaxTRESPerUser=, MaxTRESPerAccount= (cores,
 *               memory, nodes and GPUs its running jobs hold, or one
 *               user's or account's in it, plus this job's, above it)
 *   at start    the same again, counting the jobs this pass started
 *
 * Reasons, and the Slurm reason each stands for:
 *   MaxJobsPerUser (4 of 4)        AssocMaxJobsLimit
 *   MaxJobsPerAccount (10 of 10)   AssocMaxJobsLimit (an account's)
 *   MaxJobsPerQOS (20 of 20)       QOSGrpJobsLimit (all jobs of the QOS)
 *   GrpTRESRunMins cpu (123456 > 100000) for account 'physics'
 *                                  AssocGrpCPURunMinutesLimit,
 *                                  QOSGrpCPURunMinutesLimit
 *   QOSMaxGRESPerUser (6 + 4 > 8), AssocGrpCpuLimit (...), ...: Slurm's
 *   own words for GrpTRES and MaxTRESPer* (slurm_run_reason), held +
 *   asked > limit, and a sentence for rota why in the view's 'detail'.
 * Slurm's single word names the kind of limit but not the numbers; the
 * issue asks for the numbers, so the reason carries the key's name.
 *
 * Choices where Slurm does not fit Rota:
 * - a job without a time limit (0) is UNLIMITED: the host has already put
 *   the queue's default in, so 0 really means no end.  Any MaxWall refuses
 *   it, and a GrpTRESRunMins blocks it (its run-minutes have no bound);
 * - a running job without a time limit adds no run-minutes: its end is
 *   unknown, and it can only have started before the limit was set;
 * - MaxTRES=node= is checked only when the job asks for nodes (0: as many
 *   as the tasks need, known only once it is placed);
 * - run-minutes are counted in core-seconds and shown in minutes rounded
 *   up, so a shown figure is never below the limit it exceeds.
 * Settings: none.
 *
 * Cost (issue 23): MaxSubmitJobs reads the holders' counts the host keeps
 * (admit_counted), GrpTRES and MaxTRESPer* what the host keeps of the
 * running jobs of each holder (running_use, ABI 1.15: a QOS's per user
 * and per account too, which no walk of the jobs here could count
 * without a tally per user), and a pending job's verdict depends on the
 * job and the running jobs alone, so running_changed() tells the host
 * when verdicts may have moved: a holder with MaxJobs reaching or leaving
 * it (or its count moving while at it, since the reason shows it), the
 * run-minutes of a holder with GrpTRESRunMins changing (they shrink as
 * time passes: such a holder's jobs are judged again each pass while it
 * runs jobs), what the running jobs of a holder with GrpTRES hold
 * changing, or the running jobs of a QOS with MaxTRESPer* changing.
 *
 * Past 800 lines, one file still: the running limits (GrpTRES,
 * MaxTRESPer*) walk the same holders, name them the same way and answer
 * through the same classify() and start(); apart, they would need all of
 * that in a header shared by the two halves of one plugin.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/rota_plugin.h"

#define SLURM_CHAIN_MAX 30	/* account levels looked at */
#define SLURM_HOLDERS_MAX (SLURM_CHAIN_MAX + 2)

enum slurm_kind {
	SK_USER = 1,
	SK_ACCOUNT,
	SK_QOS,
};

/* One holder of a job's limits: the set and what it is. */
struct slurm_holder {
	enum slurm_kind kind;
	const struct rota_limit_set *set;
	unsigned depth;		/* accounts: 0 the job's, 1 its parent... */
	unsigned use;		/* its entry of the job's running_use (a
				   QOS's user and account shares follow) */
};

/* The resources a running limit counts, in rota_limit_tres's order. */
enum slurm_res { SR_CPU, SR_MEM, SR_NODE, SR_GPU, SR_COUNT };

/*
 * What a holder's running jobs use; the pointer names the holder.  What
 * they hold (GrpTRES, MaxTRESPer*) comes from the host with each pending
 * job (running_use); it is counted here only to tell when the verdicts
 * of a holder's pending jobs may move (running_changed).
 */
struct slurm_tally {
	const struct rota_limit_set *set;
	int64_t jobs;
	int64_t cpu_secs;	/* cores x seconds left */
	int64_t res[SR_COUNT];	/* cores, MB, nodes, GPUs held */
	uint64_t mix;		/* its running jobs' hashed ids summed: it
				   moves when they do (MaxTRESPer*) */
};

struct slurm_state {
	struct slurm_tally *t;
	size_t n;
	size_t cap;
	struct slurm_tally *last; /* the tallies running_changed() saw */
	size_t nlast;
	size_t last_cap;
	bool seen;		/* running_changed() was called before */
};

/* The job's holders, user first, QOS last; returns how many. */
static size_t slurm_holders(const struct rota_limit_job *job,
			    struct slurm_holder *h)
{
	size_t n = 0;
	unsigned d = 0, depth = 0;

	while (job->account_limits && job->account_limits[depth])
		depth++;
	if (job->user_limits)
		h[n++] = (struct slurm_holder){ SK_USER, job->user_limits, 0,
						0 };
	for (; d < depth && d < SLURM_CHAIN_MAX; d++)
		h[n++] = (struct slurm_holder){ SK_ACCOUNT,
						job->account_limits[d], d,
						1 + d };
	if (job->qos_limits)
		h[n++] = (struct slurm_holder){ SK_QOS, job->qos_limits, 0,
						1 + depth };
	return n;
}

/* Does 'job' count against holder 'h'? */
static bool slurm_is_held_by(const struct rota_limit_job *job,
			     const struct slurm_holder *h)
{
	if (h->kind == SK_USER)
		return job->user_limits == h->set;
	if (h->kind == SK_QOS)
		return job->qos_limits == h->set;
	for (unsigned d = 0; job->account_limits && d < SLURM_CHAIN_MAX &&
			     job->account_limits[d]; d++)
		if (job->account_limits[d] == h->set)
			return true;
	return false;
}

/*
 * "user 'ana'", "account 'physics'", "QOS 'long'".  The view names only
 * the job's own account, so a parent is named through it.
 */
static void slurm_name(const struct rota_limit_job *job,
		       const struct slurm_holder *h, char *buf, size_t len)
{
	if (h->kind == SK_USER)
		snprintf(buf, len, "user '%s'", job->user);
	else if (h->kind == SK_QOS)
		snprintf(buf, len, "QOS '%s'", job->qos);
	else if (h->depth == 0)
		snprintf(buf, len, "account '%s'", job->account);
	else if (h->depth == 1)
		snprintf(buf, len, "the parent account of '%s'", job->account);
	else
		snprintf(buf, len, "the account %u levels above '%s'",
			 h->depth, job->account);
}

/* Slurm's time format: "5-00:00:00", or "12:00:00" under a day. */
static void slurm_time(int64_t s, char *buf, size_t len)
{
	if (s >= 86400)
		snprintf(buf, len, "%" PRId64 "-%02d:%02d:%02d", s / 86400,
			 (int)(s % 86400 / 3600), (int)(s % 3600 / 60),
			 (int)(s % 60));
	else
		snprintf(buf, len, "%02d:%02d:%02d", (int)(s / 3600),
			 (int)(s % 3600 / 60), (int)(s % 60));
}

/* ---- what running limits count ------------------------------------------ */

/* A limit's amount of resource 'r' (-1: unset). */
static int64_t slurm_tres(const struct rota_limit_tres *t, enum slurm_res r)
{
	const int64_t v[SR_COUNT] = { t->cpu, t->mem, t->node, t->gpu };

	return v[r];
}

static bool slurm_tres_set(const struct rota_limit_tres *t)
{
	return t->cpu >= 0 || t->mem >= 0 || t->node >= 0 || t->gpu >= 0;
}

/* What 'job' holds (or would) of resource 'r'. */
static int64_t slurm_job_res(const struct rota_limit_job *job,
			     enum slurm_res r)
{
	switch (r) {
	case SR_CPU:
		return job->cores;
	case SR_MEM:
		return (int64_t)job->mem_mb;
	case SR_NODE:
		/* a pending job's unplaced tasks take one node at least */
		return job->nodes ? job->nodes : 1;
	default:
		return job->gpus;
	}
}

/* The running limits, by kind (a holder's, one user's or account's). */
enum slurm_run { RUN_GRP, RUN_USER, RUN_ACCOUNT, RUN_COUNT };

static const struct rota_limit_tres *slurm_run_tres(
	const struct rota_limit_set *l, enum slurm_run k)
{
	return k == RUN_GRP ? &l->grp_tres
	       : k == RUN_USER ? &l->user_tres : &l->account_tres;
}

static const char *const slurm_run_key[RUN_COUNT] = {
	"GrpTRES", "MaxTRESPerUser", "MaxTRESPerAccount",
};

static const char *const slurm_res_name[SR_COUNT] = {
	"cpu", "mem", "node", "gres/gpu",
};

static const char *const slurm_res_unit[SR_COUNT] = {
	"cores", "of memory", "nodes", "GPUs",
};

/*
 * Slurm's reasons, by limit (an association's GrpTRES, a QOS's
 * MaxTRESPerUser, its MaxTRESPerAccount, its GrpTRES) and resource.
 */
static const char *const slurm_run_reason[RUN_COUNT + 1][SR_COUNT] = {
	{ "AssocGrpCpuLimit", "AssocGrpMemLimit", "AssocGrpNodeLimit",
	  "AssocGrpGRES" },
	{ "QOSMaxCpuPerUserLimit", "QOSMaxMemoryPerUser",
	  "QOSMaxNodePerUserLimit", "QOSMaxGRESPerUser" },
	{ "MaxCpuPerAccount", "MaxMemoryPerAccount", "MaxNodePerAccount",
	  "MaxGRESPerAccount" },
	{ "QOSGrpCpuLimit", "QOSGrpMemLimit", "QOSGrpNodeLimit",
	  "QOSGrpGRES" },
};

/* "6", or "6144M" for memory. */
static void slurm_amount(enum slurm_res r, int64_t v, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRId64 "%s", v, r == SR_MEM ? "M" : "");
}

/* ---- at submit ----------------------------------------------------------- */

static int slurm_max_wall(const struct rota_limit_job *job,
			  const struct slurm_holder *h, size_t nh, char *err,
			  size_t errlen)
{
	const struct slurm_holder *tight = NULL;
	char want[32], max[32], who[96];

	for (size_t i = 0; i < nh; i++)
		if (h[i].set->max_wall >= 0 &&
		    (!tight || h[i].set->max_wall < tight->set->max_wall))
			tight = &h[i];
	if (!tight || (job->time_limit > 0 &&
		       job->time_limit <= tight->set->max_wall))
		return 0;
	if (job->time_limit > 0)
		slurm_time(job->time_limit, want, sizeof(want));
	else
		snprintf(want, sizeof(want), "UNLIMITED");
	slurm_time(tight->set->max_wall, max, sizeof(max));
	slurm_name(job, tight, who, sizeof(who));
	snprintf(err, errlen, "--time=%s exceeds MaxWall %s of %s", want, max,
		 who);
	return -EINVAL;
}

/* MaxTRES per job: the first holder whose cpu, mem or node it passes. */
static int slurm_max_tres(const struct rota_limit_job *job,
			  const struct slurm_holder *h, size_t nh, char *err,
			  size_t errlen)
{
	char who[96];

	for (size_t i = 0; i < nh; i++) {
		const struct rota_limit_set *l = h[i].set;

		slurm_name(job, &h[i], who, sizeof(who));
		if (l->max_cpus >= 0 && job->cores > l->max_cpus) {
			snprintf(err, errlen, "%" PRIu32 " cores exceed "
				 "MaxTRES cpu=%" PRId64 " of %s", job->cores,
				 l->max_cpus, who);
			return -EINVAL;
		}
		if (l->max_mem >= 0 && job->mem_mb > (uint64_t)l->max_mem) {
			snprintf(err, errlen, "%" PRIu64 "M of memory exceeds "
				 "MaxTRES mem=%" PRId64 "M of %s", job->mem_mb,
				 l->max_mem, who);
			return -EINVAL;
		}
		if (l->max_nodes >= 0 && job->nodes > l->max_nodes) {
			snprintf(err, errlen, "%" PRIu32 " nodes exceed "
				 "MaxTRES node=%" PRId64 " of %s", job->nodes,
				 l->max_nodes, who);
			return -EINVAL;
		}
		if (l->max_gpus >= 0 && job->gpus > l->max_gpus) {
			snprintf(err, errlen, "%" PRIu32 " GPUs exceed "
				 "MaxTRES gres/gpu=%" PRId64 " of %s",
				 job->gpus, l->max_gpus, who);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * A running limit the job passes by itself could never let it start:
 * "10 GPUs exceed GrpTRES gres/gpu=8 of account 'physics'".
 */
static int slurm_run_alone(const struct rota_limit_job *job,
			   const struct slurm_holder *h, size_t nh, char *err,
			   size_t errlen)
{
	char who[96], want[32], max[32];

	for (size_t i = 0; i < nh; i++) {
		for (int k = 0; k < RUN_COUNT; k++) {
			const struct rota_limit_tres *t =
				slurm_run_tres(h[i].set, k);

			for (int r = 0; r < SR_COUNT; r++) {
				int64_t lim = slurm_tres(t, r);

				if (lim < 0 || slurm_job_res(job, r) <= lim)
					continue;
				slurm_name(job, &h[i], who, sizeof(who));
				slurm_amount(r, slurm_job_res(job, r), want,
					     sizeof(want));
				slurm_amount(r, lim, max, sizeof(max));
				snprintf(err, errlen, "%s %s exceed%s %s "
					 "%s=%s of %s", want,
					 slurm_res_unit[r],
					 r == SR_MEM ? "s" : "",
					 slurm_run_key[k], slurm_res_name[r],
					 max, who);
				return -EINVAL;
			}
		}
	}
	return 0;
}

static int slurm_max_submit(const struct rota_limit_job *job,
			    const struct slurm_holder *h, size_t nh,
			    const struct rota_limit_job *queued,
			    size_t nqueued, char *err, size_t errlen)
{
	char who[96];

	for (size_t i = 0; i < nh; i++) {
		int64_t max = h[i].set->max_submit, n = 0;

		if (max < 0)
			continue;
		for (size_t q = 0; q < nqueued; q++)
			if (queued[q].id != job->id &&
			    slurm_is_held_by(&queued[q], &h[i]))
				n += queued[q].count ? queued[q].count : 1;
		if (n + (job->count ? job->count : 1) <= max)
			continue;
		slurm_name(job, &h[i], who, sizeof(who));
		snprintf(err, errlen, "MaxSubmitJobs (%" PRId64 " of %" PRId64
			 ") for %s", n, max, who);
		return -EINVAL;
	}
	return 0;
}

/* MaxSubmitJobs against the host's counts: 'n[i]' jobs of holder 'h[i]'. */
static int slurm_max_counted(const struct rota_limit_job *job,
			     const struct slurm_holder *h, size_t nh,
			     const int64_t *n, char *err, size_t errlen)
{
	char who[96];

	for (size_t i = 0; i < nh; i++) {
		int64_t max = h[i].set->max_submit;

		if (max < 0 || n[i] + (job->count ? job->count : 1) <= max)
			continue;
		slurm_name(job, &h[i], who, sizeof(who));
		snprintf(err, errlen, "MaxSubmitJobs (%" PRId64 " of %" PRId64
			 ") for %s", n[i], max, who);
		return -EINVAL;
	}
	return 0;
}

static int slurm_admit(void *state, int64_t now,
		       const struct rota_limit_job *job,
		       const struct rota_limit_job *queued, size_t nqueued,
		       char *err, size_t errlen)
{
	struct slurm_holder h[SLURM_HOLDERS_MAX];
	size_t nh = slurm_holders(job, h);
	int rc;

	(void)state;
	(void)now;
	rc = slurm_max_wall(job, h, nh, err, errlen);
	if (rc == 0)
		rc = slurm_max_tres(job, h, nh, err, errlen);
	if (rc == 0)
		rc = slurm_run_alone(job, h, nh, err, errlen);
	if (rc == 0)
		rc = slurm_max_submit(job, h, nh, queued, nqueued, err,
				      errlen);
	return rc;
}

static int slurm_admit_counted(void *state, int64_t now,
			       const struct rota_limit_job *job,
			       const struct rota_limit_counts *queued,
			       char *err, size_t errlen)
{
	struct slurm_holder h[SLURM_HOLDERS_MAX];
	int64_t n[SLURM_HOLDERS_MAX];
	size_t nh = slurm_holders(job, h);
	int rc;

	(void)state;
	(void)now;
	/* the holders in slurm_holders()'s order: user, accounts, QOS */
	for (size_t i = 0; i < nh; i++)
		n[i] = h[i].kind == SK_USER  ? queued->user
		       : h[i].kind == SK_QOS ? queued->qos
					     : queued->account[h[i].depth];
	rc = slurm_max_wall(job, h, nh, err, errlen);
	if (rc == 0)
		rc = slurm_max_tres(job, h, nh, err, errlen);
	if (rc == 0)
		rc = slurm_run_alone(job, h, nh, err, errlen);
	if (rc == 0)
		rc = slurm_max_counted(job, h, nh, n, err, errlen);
	return rc;
}

/* ---- pending and at start ------------------------------------------------ */

static bool slurm_counts(const struct rota_limit_set *l)
{
	return l->max_jobs >= 0 || l->cpu_run_mins >= 0 ||
	       slurm_tres_set(&l->grp_tres) || slurm_tres_set(&l->user_tres) ||
	       slurm_tres_set(&l->account_tres);
}

/* The tally of holder 'set'; NULL when it has none yet. */
static struct slurm_tally *slurm_find(const struct slurm_state *st,
				      const struct rota_limit_set *set)
{
	for (size_t i = 0; i < st->n; i++)
		if (st->t[i].set == set)
			return &st->t[i];
	return NULL;
}

/* The tally of holder 'set', made if need be (NULL: no memory). */
static struct slurm_tally *slurm_tally(struct slurm_state *st,
				       const struct rota_limit_set *set)
{
	struct slurm_tally *t = slurm_find(st, set);

	if (t)
		return t;
	if (st->n == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 16;

		t = realloc(st->t, cap * sizeof(*t));
		if (!t)
			return NULL;
		st->t = t;
		st->cap = cap;
	}
	st->t[st->n] = (struct slurm_tally){ .set = set };
	return &st->t[st->n++];
}

/* Count a running (or starting) job's use of its holders' limits. */
static int slurm_add(struct slurm_state *st, const struct rota_limit_job *job,
		     int64_t left)
{
	struct slurm_holder h[SLURM_HOLDERS_MAX];
	size_t nh = slurm_holders(job, h);

	for (size_t i = 0; i < nh; i++) {
		struct slurm_tally *t;

		if (!slurm_counts(h[i].set))
			continue;
		t = slurm_tally(st, h[i].set);
		if (!t)
			return -ENOMEM;
		t->jobs++;
		t->cpu_secs += (int64_t)job->cores * left;
		for (int r = 0; r < SR_COUNT; r++)
			t->res[r] += slurm_job_res(job, r);
		/* Fibonacci hashing: ids far apart in the sum's bits */
		t->mix += (uint64_t)job->id * 0x9e3779b97f4a7c15ull;
	}
	return 0;
}

static const char *const slurm_max_jobs_name[] = {
	[SK_USER] = "MaxJobsPerUser",
	[SK_ACCOUNT] = "MaxJobsPerAccount",
	[SK_QOS] = "MaxJobsPerQOS",
};

/* One holder's MaxJobs and GrpTRESRunMins: 1 with the reason if past. */
static int slurm_check_one(const struct slurm_state *st,
			   const struct rota_limit_job *job,
			   const struct slurm_holder *h, char *reason,
			   size_t len)
{
	const struct rota_limit_set *l = h->set;
	const struct slurm_tally *t = slurm_find(st, l);
	int64_t jobs = t ? t->jobs : 0, secs = t ? t->cpu_secs : 0;
	char who[96];

	if (l->max_jobs >= 0 && jobs >= l->max_jobs) {
		snprintf(reason, len, "%s (%" PRId64 " of %" PRId64 ")",
			 slurm_max_jobs_name[h->kind], jobs, l->max_jobs);
		return 1;
	}
	if (l->cpu_run_mins < 0)
		return 0;
	slurm_name(job, h, who, sizeof(who));
	if (job->time_limit <= 0) {
		snprintf(reason, len, "GrpTRESRunMins cpu (UNLIMITED > %" PRId64
			 ") for %s", l->cpu_run_mins, who);
		return 1;
	}
	secs += (int64_t)job->cores * job->time_limit;
	if (secs <= l->cpu_run_mins * 60)
		return 0;
	snprintf(reason, len, "GrpTRESRunMins cpu (%" PRId64 " > %" PRId64
		 ") for %s", (secs + 59) / 60, l->cpu_run_mins, who);
	return 1;
}

/* Where a running limit's blocked job says so. */
struct slurm_said {
	char *reason;
	size_t len;
	char *detail;		/* NULL: only the reason */
	size_t dlen;
};

/* Say that limit 'k' of 'h' on resource 'r' holds 'job' back. */
static void slurm_run_say(const struct rota_limit_job *job,
			  const struct slurm_holder *h, enum slurm_run k,
			  enum slurm_res r, int64_t used,
			  const struct slurm_said *out)
{
	int64_t lim = slurm_tres(slurm_run_tres(h->set, k), r);
	bool qos_grp = k == RUN_GRP && h->kind == SK_QOS;
	char u[32], w[32], l[32], who[96], qos[96];

	slurm_amount(r, used, u, sizeof(u));
	slurm_amount(r, slurm_job_res(job, r), w, sizeof(w));
	slurm_amount(r, lim, l, sizeof(l));
	snprintf(out->reason, out->len, "%s (%s + %s > %s)",
		 slurm_run_reason[qos_grp ? RUN_COUNT : k][r], u, w, l);
	if (!out->detail)
		return;
	if (k == RUN_GRP) {
		slurm_name(job, h, who, sizeof(who));
		snprintf(out->detail, out->dlen, "%s holds %s of the %s %s its "
			 "GrpTRES=%s=%s allows; the job asks %s", who, u, l,
			 slurm_res_unit[r], slurm_res_name[r], l, w);
		return;
	}
	snprintf(who, sizeof(who), "%s '%s'", k == RUN_USER ? "user"
			: "account", k == RUN_USER ? job->user : job->account);
	slurm_name(job, h, qos, sizeof(qos));
	snprintf(out->detail, out->dlen, "%s holds %s of the %s %s %s=%s=%s "
		 "of %s allows; the job asks %s", who, u, l, slurm_res_unit[r],
		 slurm_run_key[k], slurm_res_name[r], l, qos, w);
}

/*
 * What limit 'k' of holder 'h' counts as held now: the host's figures
 * the job carries (a QOS's user and account shares follow its own);
 * NULL: nothing held.
 */
static const struct rota_limit_tres *slurm_run_use(
	const struct rota_limit_job *job, const struct slurm_holder *h,
	enum slurm_run k)
{
	if (!job->running_use)
		return NULL;
	return &job->running_use[h->use + (unsigned)k];
}

/* One holder's GrpTRES and its QOS's MaxTRESPer*: 1 and why if past. */
static int slurm_run_check(const struct rota_limit_job *job,
			   const struct slurm_holder *h,
			   const struct slurm_said *out)
{
	for (int k = 0; k < RUN_COUNT; k++) {
		const struct rota_limit_tres *t = slurm_run_tres(h->set, k);
		const struct rota_limit_tres *use;

		if (!slurm_tres_set(t) || (k != RUN_GRP && h->kind != SK_QOS))
			continue;
		use = slurm_run_use(job, h, k);
		for (int r = 0; r < SR_COUNT; r++) {
			int64_t lim = slurm_tres(t, r);
			int64_t used = use ? slurm_tres(use, r) : 0;

			if (lim < 0 || used + slurm_job_res(job, r) <= lim)
				continue;
			slurm_run_say(job, h, k, r, used, out);
			return 1;
		}
	}
	return 0;
}

static int slurm_check(const struct slurm_state *st,
		       const struct rota_limit_job *job,
		       const struct slurm_said *out)
{
	struct slurm_holder h[SLURM_HOLDERS_MAX];
	size_t nh = slurm_holders(job, h);

	for (size_t i = 0; i < nh; i++)
		if (slurm_check_one(st, job, &h[i], out->reason, out->len) ||
		    slurm_run_check(job, &h[i], out))
			return 1;
	return 0;
}

static int slurm_classify(void *state, int64_t now,
			  struct rota_limit_job *jobs, size_t n)
{
	struct slurm_state *st = state;

	(void)now;
	st->n = 0;
	for (size_t i = 0; i < n && jobs[i].running; i++)
		if (slurm_add(st, &jobs[i], jobs[i].remaining) < 0)
			return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct rota_limit_job *j = &jobs[i];
		struct slurm_said out = {
			.reason = j->reason, .len = sizeof(j->reason),
			.detail = j->detail, .dlen = sizeof(j->detail),
		};

		if (j->running || j->held || j->blocked)
			continue;
		if (slurm_check(st, j, &out))
			j->blocked = true;
	}
	return 0;
}

/* Could a holder's pending jobs be judged otherwise, 'a' then 'b'? */
static bool slurm_moved(const struct rota_limit_set *l,
			const struct slurm_tally *a,
			const struct slurm_tally *b)
{
	static const int64_t zero[SR_COUNT];
	int64_t ja = a ? a->jobs : 0, jb = b ? b->jobs : 0;

	/* at the limit the reason shows the count: "(5 of 4)" */
	if (l->max_jobs >= 0 && ja != jb &&
	    (ja >= l->max_jobs || jb >= l->max_jobs))
		return true;
	/* what its jobs hold, or (per user or account) which jobs they are */
	if (slurm_tres_set(&l->grp_tres) &&
	    memcmp(a ? a->res : zero, b ? b->res : zero, sizeof(zero)))
		return true;
	if ((slurm_tres_set(&l->user_tres) ||
	     slurm_tres_set(&l->account_tres)) &&
	    (a ? a->mix : 0) != (b ? b->mix : 0))
		return true;
	return l->cpu_run_mins >= 0 &&
	       (a ? a->cpu_secs : 0) != (b ? b->cpu_secs : 0);
}

/* Keep the tallies just made as the last ones seen (false: no memory). */
static bool slurm_keep(struct slurm_state *st)
{
	if (st->n > st->last_cap) {
		struct slurm_tally *t = realloc(st->last, st->n * sizeof(*t));

		if (!t)
			return false;
		st->last = t;
		st->last_cap = st->n;
	}
	if (st->n)
		memcpy(st->last, st->t, st->n * sizeof(*st->t));
	st->nlast = st->n;
	return true;
}

/* Note holder 'set' as moved in 'moved' ('*n' so far, room for 'cap'). */
static void slurm_note(const struct rota_limit_set *set,
		       const struct rota_limit_set **moved, size_t cap,
		       size_t *n)
{
	if (*n < cap)
		moved[*n] = set;
	(*n)++;
}

static int slurm_running_changed(void *state, int64_t now,
				 const struct rota_limit_job *running,
				 size_t n, const struct rota_limit_set **moved,
				 size_t cap)
{
	struct slurm_state *st = state;
	struct slurm_state last = { .t = st->last, .n = st->nlast };
	bool ok = true;
	size_t nmoved = 0;

	(void)now;
	st->n = 0;
	for (size_t i = 0; i < n && ok; i++)
		ok = slurm_add(st, &running[i], running[i].remaining) == 0;
	for (size_t i = 0; i < st->n; i++)
		if (slurm_moved(st->t[i].set, slurm_find(&last, st->t[i].set),
				&st->t[i]))
			slurm_note(st->t[i].set, moved, cap, &nmoved);
	for (size_t i = 0; i < last.n; i++)
		if (!slurm_find(st, last.t[i].set) &&
		    slurm_moved(last.t[i].set, &last.t[i], NULL))
			slurm_note(last.t[i].set, moved, cap, &nmoved);
	/* nothing to compare with, or too many to name: any job */
	if (!st->seen || !ok || nmoved > cap || nmoved > INT_MAX)
		nmoved = SIZE_MAX;
	/* not counted or not kept: the next call says all again */
	st->seen = ok && slurm_keep(st);
	return nmoved == SIZE_MAX ? -1 : (int)nmoved;
}

static int slurm_start(void *state, int64_t now,
		       const struct rota_limit_job *job, bool others_idle,
		       char *reason, size_t len)
{
	struct slurm_state *st = state;
	struct slurm_said out = { .reason = reason, .len = len };

	(void)now;
	(void)others_idle;
	if (slurm_check(st, job, &out))
		return 1;
	/* a job we cannot count would pass the limits unseen: hold it */
	if (slurm_add(st, job, job->time_limit) < 0) {
		snprintf(reason, len, "limits: out of memory");
		return 1;
	}
	return 0;
}

static int slurm_init(const struct rota_host *host,
		      const struct rota_plugin_conf *conf, void **state,
		      char *err, size_t errlen)
{
	struct slurm_state *st = calloc(1, sizeof(*st));

	(void)host;
	(void)conf;
	if (!st) {
		snprintf(err, errlen, "limits/slurm: out of memory");
		return -ENOMEM;
	}
	*state = st;
	return 0;
}

static void slurm_fini(void *state)
{
	struct slurm_state *st = state;

	if (st) {
		free(st->t);
		free(st->last);
	}
	free(st);
}

static const struct rota_limits_ops slurm_ops = {
	.size = sizeof(slurm_ops),
	.admit = slurm_admit,
	.classify = slurm_classify,
	.start = slurm_start,
	.admit_counted = slurm_admit_counted,
	.running_changed = slurm_running_changed,
};

extern const struct rota_plugin ROTA_PLUGIN_EXPORT(limits, slurm);
const struct rota_plugin ROTA_PLUGIN_EXPORT(limits, slurm) = {
	.abi = ROTA_PLUGIN_ABI,
	.kind = ROTA_PLUGIN_LIMITS,
	.name = "slurm",
	.init = slurm_init,
	.fini = slurm_fini,
	.ops = &slurm_ops,
};
