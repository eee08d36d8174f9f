// SPDX-License-Identifier: MIT
/*
 * limits/maui: Maui's throttling policies (Maui Admin Guide 6.2, "Usage
 * Limits/Throttling Policies": MAXIJOB, MAXJOB, MAXPS and its hard limit,
 * and the class's maximum wallclock).
 *
 *   idle jobs   walking the pending jobs in scheduling order, a user's
 *               first MaxIdlePerUser jobs, and an account's first
 *               MaxIdlePerAccount, that are neither held nor blocked are
 *               idle; later ones are blocked.  When an idle job starts, the
 *               next pass promotes the first blocked job in scheduling
 *               order, as Maui does (it rebuilds its idle list each
 *               iteration from the priority-sorted queue).
 *   jobs        a user's running and idle jobs together stop at
 *               MaxJobsPerUser: later pending ones are blocked.
 *   MaxPS       a job starts only if its user's running jobs' processors x
 *               remaining wallclock, plus its own processors x wallclock
 *               limit, stay within the soft limit; up to the hard limit
 *               only when no other job is eligible (idle and not started);
 *               never above it.  The same per account.  A job whose own
 *               processor-seconds pass the soft limit (the page's "resource
 *               requests between SOFT and HARD") yields only to jobs that
 *               fit the soft limit on their own: two such jobs alone must
 *               not wait for each other for ever.
 *   MaxWall     longer requests are refused at submit.
 *
 * Reasons: "MaxIdlePerUser (8 of 8)", "MaxIdlePerAccount (30 of 30)",
 * "MaxJobsPerUser (72 of 72)", "MaxPS soft (98696 > 72000)", "MaxPS hard
 * (1200000 > 1080000)" (the account's add "for account 'physics'").
 *
 * Settings (defaults are Maui's examples in the issue): MaxIdlePerUser 8,
 * MaxIdlePerAccount 30, MaxJobsPerUser 72, MaxPS 72000, MaxPSHard
 * 1080000 (whole numbers from 0), MaxWall 5d (a duration; 0 turns it
 * off).  A user's association line overrides MaxIdlePerUser, MaxPS and
 * MaxPSHard with MaxIdle=, MaxPS=, MaxPSHard=; the account's line sets
 * MaxIdlePerAccount with MaxIdle= and its processor-second limits with
 * MaxPS=, MaxPSHard= or Allocation=A (core-hours a month: soft A x 3600 /
 * 5, hard 3 x soft).
 *
 * Choices where Maui or the issue is silent:
 * - an account is held to processor-seconds only when its line sets one
 *   of those keys: the defaults are per user (Maui's USERCFG[DEFAULT]),
 *   and 72000 shared by a whole account would starve it;
 * - an account's soft limit without a hard one makes the hard limit the
 *   soft one (no band), and a hard one alone is the soft one too; a
 *   holder's soft limit above the default hard one raises the hard one
 *   to it (its own value beats the default), its hard one below the
 *   default soft one lowers the soft one;
 * - a job without a time limit is UNLIMITED: MaxWall refuses it; with
 *   MaxWall off its processor-seconds have no bound, so MaxPS keeps it
 *   waiting ("MaxPS soft (UNLIMITED > 72000)"); a running one counts 0;
 * - a job whose own processor-seconds exceed a hard limit could never
 *   start, so it is refused at submit instead;
 * - a job held or blocked by another plugin counts neither as idle nor
 *   against MaxJobsPerUser; a held one is never marked.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/rota_plugin.h"

#define MAUI_COUNT_MAX 1e15	/* jobs and processor-seconds */
#define MAUI_WALL_MAX (INT64_C(3660) * 86400)
#define MAUI_PS_NONE (-1)

/* One credential (a user or an account) in this pass. */
struct maui_cred {
	char *name;
	int64_t running;
	int64_t idle;
	int64_t ps;		/* processors x seconds left, running jobs */
};

/* Credentials by name: open addressing over 'slot', indexes into 'c'. */
struct maui_table {
	struct maui_cred *c;
	size_t n;
	size_t cap;		/* of 'c'; 'slot' has 2 x cap (a power of 2) */
	uint32_t *slot;		/* index + 1; 0 is empty */
};

enum maui_setting {
	MAUI_IDLE_USER,
	MAUI_IDLE_ACCOUNT,
	MAUI_JOBS_USER,
	MAUI_PS,
	MAUI_PS_HARD,
	MAUI_NSETTINGS
};

static const struct {
	const char *key;
	int64_t def;
} maui_settings[MAUI_NSETTINGS] = {
	[MAUI_IDLE_USER] = { "MaxIdlePerUser", 8 },
	[MAUI_IDLE_ACCOUNT] = { "MaxIdlePerAccount", 30 },
	[MAUI_JOBS_USER] = { "MaxJobsPerUser", 72 },
	[MAUI_PS] = { "MaxPS", 72000 },
	[MAUI_PS_HARD] = { "MaxPSHard", 1080000 },
};

struct maui_state {
	int64_t set[MAUI_NSETTINGS];
	int64_t max_wall;	/* seconds; 0: off */
	struct maui_table users;
	struct maui_table accounts;
	int64_t small_idle;	/* idle jobs of the pass whose own
				   processor-seconds fit their soft limits */
};

/* ---- credentials --------------------------------------------------------- */

static uint32_t maui_hash(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void maui_table_clear(struct maui_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->c[i].name);
	t->n = 0;
	if (t->slot)
		memset(t->slot, 0, 2 * t->cap * sizeof(*t->slot));
}

static void maui_table_fini(struct maui_table *t)
{
	maui_table_clear(t);
	free(t->c);
	free(t->slot);
}

static uint32_t *maui_slot(const struct maui_table *t, const char *name)
{
	size_t mask = 2 * t->cap - 1, i = maui_hash(name) & mask;

	while (t->slot[i] && strcmp(t->c[t->slot[i] - 1].name, name))
		i = (i + 1) & mask;
	return &t->slot[i];
}

static int maui_table_grow(struct maui_table *t)
{
	size_t cap = t->cap ? 2 * t->cap : 64;
	struct maui_cred *c = realloc(t->c, cap * sizeof(*c));
	uint32_t *slot;

	if (!c)
		return -ENOMEM;
	t->c = c;
	slot = calloc(2 * cap, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
	for (size_t i = 0; i < t->n; i++)
		*maui_slot(t, t->c[i].name) = (uint32_t)(i + 1);
	return 0;
}

/* The credential 'name', made if need be (NULL: no memory). */
static struct maui_cred *maui_cred(struct maui_table *t, const char *name)
{
	uint32_t *s;

	if (!name)
		name = "";
	if (t->cap && (s = maui_slot(t, name)) && *s)
		return &t->c[*s - 1];
	if (t->n == t->cap && maui_table_grow(t) < 0)
		return NULL;
	s = maui_slot(t, name);
	t->c[t->n] = (struct maui_cred){ .name = strdup(name) };
	if (!t->c[t->n].name)
		return NULL;
	*s = (uint32_t)++t->n;
	return &t->c[t->n - 1];
}

/* ---- limits of one job --------------------------------------------------- */

static const struct rota_limit_set *maui_account_set(
	const struct rota_limit_job *job)
{
	return job->account_limits ? job->account_limits[0] : NULL;
}

/* A holder's soft and hard processor-seconds (MAUI_PS_NONE: none). */
static void maui_ps_limits(const struct rota_limit_set *l, int64_t def_soft,
			   int64_t def_hard, int64_t *soft, int64_t *hard)
{
	*soft = def_soft;
	*hard = def_hard;
	if (l && l->allocation >= 0) {
		*soft = l->allocation * 3600 / 5;
		*hard = 3 * *soft;
	}
	if (l && l->max_ps >= 0) {
		*soft = l->max_ps;
		if (l->allocation < 0 && *hard < 0)
			*hard = *soft;
	}
	if (l && l->max_ps_hard >= 0)
		*hard = l->max_ps_hard;
	if (*soft < 0)
		*soft = *hard;
	if (*hard < 0)
		*hard = *soft;
	/* soft above hard: the holder's own value beats the default */
	if (*soft > *hard && l && l->max_ps_hard >= 0)
		*soft = *hard;
	else if (*soft > *hard)
		*hard = *soft;
}

static void maui_user_ps(const struct maui_state *st,
			 const struct rota_limit_job *job, int64_t *soft,
			 int64_t *hard)
{
	maui_ps_limits(job->user_limits, st->set[MAUI_PS],
		       st->set[MAUI_PS_HARD], soft, hard);
}

static void maui_account_ps(const struct rota_limit_job *job, int64_t *soft,
			    int64_t *hard)
{
	maui_ps_limits(maui_account_set(job), MAUI_PS_NONE, MAUI_PS_NONE,
		       soft, hard);
}

/* A job's own processor-seconds; -1 when it has no time limit. */
static int64_t maui_job_ps(const struct rota_limit_job *job)
{
	return job->time_limit > 0 ? (int64_t)job->cores * job->time_limit
				   : -1;
}

/* Whether the job's own processor-seconds fit its soft limits. */
static bool maui_job_small(const struct maui_state *st,
			   const struct rota_limit_job *job)
{
	int64_t ps = maui_job_ps(job), soft, hard;

	if (ps < 0)
		return false;
	maui_user_ps(st, job, &soft, &hard);
	if (soft >= 0 && ps > soft)
		return false;
	maui_account_ps(job, &soft, &hard);
	return soft < 0 || ps <= soft;
}

/* ---- at submit ----------------------------------------------------------- */

static void maui_time(int64_t s, char *buf, size_t len)
{
	if (s >= 86400)
		snprintf(buf, len, "%" PRId64 "-%02d:%02d:%02d", s / 86400,
			 (int)(s % 86400 / 3600), (int)(s % 3600 / 60),
			 (int)(s % 60));
	else
		snprintf(buf, len, "%02d:%02d:%02d", (int)(s / 3600),
			 (int)(s % 3600 / 60), (int)(s % 60));
}

static int maui_admit(void *state, int64_t now,
		      const struct rota_limit_job *job,
		      const struct rota_limit_job *queued, size_t nqueued,
		      char *err, size_t errlen)
{
	struct maui_state *st = state;
	int64_t ps = maui_job_ps(job), soft, hard;
	char want[32], max[32];

	(void)now;
	(void)queued;
	(void)nqueued;
	if (st->max_wall > 0 &&
	    (job->time_limit <= 0 || job->time_limit > st->max_wall)) {
		if (job->time_limit > 0)
			maui_time(job->time_limit, want, sizeof(want));
		else
			snprintf(want, sizeof(want), "UNLIMITED");
		maui_time(st->max_wall, max, sizeof(max));
		snprintf(err, errlen, "--time=%s exceeds MaxWall %s", want,
			 max);
		return -EINVAL;
	}
	maui_user_ps(st, job, &soft, &hard);
	if (ps >= 0 && hard >= 0 && ps > hard) {
		snprintf(err, errlen, "%" PRId64 " processor-seconds exceed "
			 "MaxPSHard %" PRId64 " of user '%s'", ps, hard,
			 job->user);
		return -EINVAL;
	}
	maui_account_ps(job, &soft, &hard);
	if (ps >= 0 && hard >= 0 && ps > hard) {
		snprintf(err, errlen, "%" PRId64 " processor-seconds exceed "
			 "MaxPSHard %" PRId64 " of account '%s'", ps, hard,
			 job->account);
		return -EINVAL;
	}
	return 0;
}

/* The same: Maui's limits at submit count no queued jobs (ABI 1.12). */
static int maui_admit_counted(void *state, int64_t now,
			      const struct rota_limit_job *job,
			      const struct rota_limit_counts *queued,
			      char *err, size_t errlen)
{
	(void)queued;
	return maui_admit(state, now, job, NULL, 0, err, errlen);
}

/* ---- pending ------------------------------------------------------------- */

static int64_t maui_pick(int64_t own, int64_t def)
{
	return own >= 0 ? own : def;
}

/*
 * Room for 'want' more under 'max' when 'used' are counted, at most
 * 'want'; '*reason' names the limit when it leaves less than 'want'.
 */
static int64_t maui_room(int64_t used, int64_t max, int64_t want,
			 const char *name, struct rota_limit_job *j)
{
	int64_t room = max - used;

	if (room >= want)
		return want;
	snprintf(j->reason, sizeof(j->reason), "%s (%" PRId64 " of %" PRId64
		 ")", name, used, max);
	return room > 0 ? room : 0;
}

/*
 * Block or count one idle candidate; -ENOMEM if a credential failed.  An
 * array's pending rest counts as its tasks: as many as the limits leave
 * room for are idle (j->eligible), the others blocked.
 */
static int maui_classify_one(struct maui_state *st,
			     struct rota_limit_job *j)
{
	struct maui_cred *u = maui_cred(&st->users, j->user);
	struct maui_cred *a = maui_cred(&st->accounts, j->account);
	const struct rota_limit_set *al = maui_account_set(j);
	int64_t want = j->count > 1 ? j->count : 1;
	int64_t take;

	if (!u || !a)
		return -ENOMEM;
	take = maui_room(u->running + u->idle, st->set[MAUI_JOBS_USER], want,
			 "MaxJobsPerUser", j);
	if (take)
		take = maui_room(u->idle,
				 maui_pick(j->user_limits
						   ? j->user_limits->max_idle
						   : -1,
					   st->set[MAUI_IDLE_USER]),
				 take, "MaxIdlePerUser", j);
	if (take)
		take = maui_room(a->idle,
				 maui_pick(al ? al->max_idle : -1,
					   st->set[MAUI_IDLE_ACCOUNT]),
				 take, "MaxIdlePerAccount", j);
	if (!take) {
		j->blocked = true;
		return 0;
	}
	if (take < want)
		j->eligible = (uint32_t)take;
	u->idle += take;
	a->idle += take;
	if (maui_job_small(st, j))
		st->small_idle += take;
	return 0;
}

static int maui_classify(void *state, int64_t now,
			 struct rota_limit_job *jobs, size_t n)
{
	struct maui_state *st = state;
	size_t i;

	(void)now;
	maui_table_clear(&st->users);
	maui_table_clear(&st->accounts);
	st->small_idle = 0;
	for (i = 0; i < n && jobs[i].running; i++) {
		struct maui_cred *u = maui_cred(&st->users, jobs[i].user);
		struct maui_cred *a = maui_cred(&st->accounts, jobs[i].account);
		int64_t ps = (int64_t)jobs[i].cores * jobs[i].remaining;

		if (!u || !a)
			return -ENOMEM;
		u->running++;
		u->ps += ps;
		a->running++;
		a->ps += ps;
	}
	for (; i < n; i++) {
		if (jobs[i].running || jobs[i].held || jobs[i].blocked)
			continue;
		if (maui_classify_one(st, &jobs[i]) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* ---- at start ------------------------------------------------------------ */

/*
 * 1 with the reason if 'used' plus the job's 'ps' passes the limits; 'of'
 * names the holder in the reason ("" for the user: the form).
 */
static int maui_ps_check(const struct maui_state *st, int64_t used,
			 int64_t ps, int64_t soft, int64_t hard,
			 bool others_idle, const char *of, char *reason,
			 size_t len)
{
	int64_t need = used + ps;

	if (soft < 0)
		return 0;
	if (ps < 0) {
		snprintf(reason, len, "MaxPS soft (UNLIMITED > %" PRId64 ")%s",
			 soft, of);
		return 1;
	}
	if (need > hard) {
		snprintf(reason, len, "MaxPS hard (%" PRId64 " > %" PRId64
			 ")%s", need, hard, of);
		return 1;
	}
	/* too big on its own: only jobs that fit on their own come first */
	if (ps > soft)
		others_idle = st->small_idle > 0;
	if (need > soft && others_idle) {
		snprintf(reason, len, "MaxPS soft (%" PRId64 " > %" PRId64
			 ")%s", need, soft, of);
		return 1;
	}
	return 0;
}

static int maui_start(void *state, int64_t now,
		      const struct rota_limit_job *job, bool others_idle,
		      char *reason, size_t len)
{
	struct maui_state *st = state;
	struct maui_cred *u = maui_cred(&st->users, job->user);
	struct maui_cred *a = maui_cred(&st->accounts, job->account);
	int64_t ps = maui_job_ps(job), soft, hard;
	char of[96];

	(void)now;
	if (!u || !a) {
		snprintf(reason, len, "limits: out of memory");
		return 1;
	}
	maui_user_ps(st, job, &soft, &hard);
	if (maui_ps_check(st, u->ps, ps, soft, hard, others_idle, "", reason,
			  len))
		return 1;
	maui_account_ps(job, &soft, &hard);
	snprintf(of, sizeof(of), " for account '%s'", job->account);
	if (maui_ps_check(st, a->ps, ps, soft, hard, others_idle, of,
			  reason, len))
		return 1;
	/* it runs from now on: a second job this pass sees its share */
	if (st->small_idle > 0 && maui_job_small(st, job))
		st->small_idle--;
	u->running++;
	a->running++;
	u->ps += ps > 0 ? ps : 0;
	a->ps += ps > 0 ? ps : 0;
	return 0;
}

/* ---- settings ------------------------------------------------------------ */

static int maui_count(const struct rota_host *host,
		      const struct rota_plugin_conf *conf, const char *key,
		      int64_t *out, char *err, size_t errlen)
{
	double v = (double)*out;
	char where[128];
	int rc = host->conf_double(conf, key, 0, MAUI_COUNT_MAX, &v, err,
				   errlen);

	if (rc)
		return rc;
	if (v != (double)(int64_t)v) {
		if (host->conf_where(conf, key, where, sizeof(where)) < 0)
			snprintf(where, sizeof(where), "%s", key);
		snprintf(err, errlen, "%s: %g is not a whole number", where,
			 v);
		return -EINVAL;
	}
	*out = (int64_t)v;
	return 0;
}

/* MaxPS above MaxPSHard: named where it is written (either key). */
static int maui_check_ps(const struct rota_host *host,
			 const struct rota_plugin_conf *conf,
			 const struct maui_state *st, char *err,
			 size_t errlen)
{
	char where[128];

	if (st->set[MAUI_PS] <= st->set[MAUI_PS_HARD])
		return 0;
	if (host->conf_where(conf, "MaxPS", where, sizeof(where)) == 0) {
		snprintf(err, errlen, "%s: %" PRId64 " is above MaxPSHard %"
			 PRId64, where, st->set[MAUI_PS],
			 st->set[MAUI_PS_HARD]);
		return -EINVAL;
	}
	if (host->conf_where(conf, "MaxPSHard", where, sizeof(where)) < 0)
		snprintf(where, sizeof(where), "MaxPSHard");
	snprintf(err, errlen, "%s: %" PRId64 " is below MaxPS %" PRId64
		 " (MaxPS above MaxPSHard)", where, st->set[MAUI_PS_HARD],
		 st->set[MAUI_PS]);
	return -EINVAL;
}

static int maui_init(const struct rota_host *host,
		     const struct rota_plugin_conf *conf, void **state,
		     char *err, size_t errlen)
{
	struct maui_state *st;
	int rc = 0;

	*state = NULL;
	st = calloc(1, sizeof(*st));
	if (!st) {
		snprintf(err, errlen, "limits/maui: out of memory");
		return -ENOMEM;
	}
	for (int i = 0; rc == 0 && i < MAUI_NSETTINGS; i++) {
		st->set[i] = maui_settings[i].def;
		rc = maui_count(host, conf, maui_settings[i].key, &st->set[i],
				err, errlen);
	}
	st->max_wall = 5 * 86400;
	if (rc == 0)
		rc = host->conf_duration(conf, "MaxWall", 0, MAUI_WALL_MAX,
					 &st->max_wall, err, errlen);
	if (rc == 0)
		rc = maui_check_ps(host, conf, st, err, errlen);
	if (rc) {
		free(st);
		return rc;
	}
	*state = st;
	return 0;
}

static void maui_fini(void *state)
{
	struct maui_state *st = state;

	if (!st)
		return;
	maui_table_fini(&st->users);
	maui_table_fini(&st->accounts);
	free(st);
}

static const struct rota_limits_ops maui_ops = {
	.size = sizeof(maui_ops),
	.admit = maui_admit,
	.classify = maui_classify,
	.start = maui_start,
	.admit_counted = maui_admit_counted,
};

extern const struct rota_plugin ROTA_PLUGIN_EXPORT(limits, maui);
const struct rota_plugin ROTA_PLUGIN_EXPORT(limits, maui) = {
	.abi = ROTA_PLUGIN_ABI,
	.kind = ROTA_PLUGIN_LIMITS,
	.name = "maui",
	.init = maui_init,
	.fini = maui_fini,
	.ops = &maui_ops,
};
