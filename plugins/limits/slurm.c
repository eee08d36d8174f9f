// SPDX-License-Identifier: MIT
/*
 * limits/slurm: Slurm's association and QOS limits, the built-in default.
 * A job has holders: its user's association, its account and every parent
 * up to the root, and its QOS.  A limit applies at every holder that sets
 * it, so the tightest one wins.
 *
 *   at submit   MaxWall, MaxTRES=cpu=,mem=,node= (per job), MaxSubmitJobs
 *               (the holder's pending and running jobs already at it)
 *   pending     MaxJobs (the holder's running jobs at it), GrpTRESRunMins
 *               =cpu= (cores x minutes left of the holder's running jobs
 *               plus this job's cores x its limit, above it)
 *   at start    the same two again, counting the jobs this pass started
 *
 * Reasons, and the Slurm reason each stands for:
 *   MaxJobsPerUser (4 of 4)        AssocMaxJobsLimit
 *   MaxJobsPerAccount (10 of 10)   AssocMaxJobsLimit (an account's)
 *   MaxJobsPerQOS (20 of 20)       QOSGrpJobsLimit (all jobs of the QOS)
 *   GrpTRESRunMins cpu (123456 > 100000) for account 'physics'
 *                                  AssocGrpCPURunMinutesLimit,
 *                                  QOSGrpCPURunMinutesLimit
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
 * (admit_counted), and a pending job's verdict depends on the job and the
 * running jobs alone, so running_changed() tells the host when verdicts
 * may have moved: a holder with MaxJobs reaching or leaving it (or its
 * count moving while at it, since the reason shows it), or the run-minutes
 * of a holder with GrpTRESRunMins changing (they shrink as time passes:
 * such a holder's jobs are judged again each pass while it runs jobs).
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
};

/* What a holder's running jobs use; the pointer names the holder. */
struct slurm_tally {
	const struct rota_limit_set *set;
	int64_t jobs;
	int64_t cpu_secs;	/* cores x seconds left */
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

	if (job->user_limits)
		h[n++] = (struct slurm_holder){ SK_USER, job->user_limits, 0 };
	for (unsigned d = 0; job->account_limits && d < SLURM_CHAIN_MAX &&
			     job->account_limits[d]; d++)
		h[n++] = (struct slurm_holder){ SK_ACCOUNT,
						job->account_limits[d], d };
	if (job->qos_limits)
		h[n++] = (struct slurm_holder){ SK_QOS, job->qos_limits, 0 };
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
		rc = slurm_max_counted(job, h, nh, n, err, errlen);
	return rc;
}

/* ---- pending and at start ------------------------------------------------ */

static bool slurm_counts(const struct rota_limit_set *l)
{
	return l->max_jobs >= 0 || l->cpu_run_mins >= 0;
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

static int slurm_check(const struct slurm_state *st,
		       const struct rota_limit_job *job, char *reason,
		       size_t len)
{
	struct slurm_holder h[SLURM_HOLDERS_MAX];
	size_t nh = slurm_holders(job, h);

	for (size_t i = 0; i < nh; i++)
		if (slurm_check_one(st, job, &h[i], reason, len))
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

		if (j->running || j->held || j->blocked)
			continue;
		if (slurm_check(st, j, j->reason, sizeof(j->reason)))
			j->blocked = true;
	}
	return 0;
}

/* Could a holder's pending jobs be judged otherwise, 'a' then 'b'? */
static bool slurm_moved(const struct rota_limit_set *l,
			const struct slurm_tally *a,
			const struct slurm_tally *b)
{
	int64_t ja = a ? a->jobs : 0, jb = b ? b->jobs : 0;

	/* at the limit the reason shows the count: "(5 of 4)" */
	if (l->max_jobs >= 0 && ja != jb &&
	    (ja >= l->max_jobs || jb >= l->max_jobs))
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

	(void)now;
	(void)others_idle;
	if (slurm_check(st, job, reason, len))
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
