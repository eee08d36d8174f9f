// SPDX-License-Identifier: MIT
/*
 * The limits plugins maui and slurm on seed 003's examples and on each
 * Slurm-style limit, called through their descriptors as the host calls
 * them (classify once per pass, then start() before each idle job), with
 * a small fake host whose getters read a table of settings.  Numbers are
 * worked out by hand in the comments next to them.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "plugins/rota_plugin.h"
#include "testsuite/unit/plugins/fake_host.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define NOW INT64_C(1700000000)
#define HOUR INT64_C(3600)
#define DAY (24 * HOUR)

extern const struct rota_plugin rota_plugin_limits_slurm;
extern const struct rota_plugin rota_plugin_limits_maui;

/* ---- a fake host --------------------------------------------------------- */

static struct rota_host host;

/* init through the descriptor; the state, or NULL with 'err' filled. */
static void *plugin_init(const struct rota_plugin *p, const struct setting *s,
			 int n, int want_rc, char *err, size_t errlen)
{
	struct rota_plugin_conf conf = { s, n };
	void *state = (void *)&conf;
	int rc;

	ck_assert_uint_eq(p->abi, ROTA_PLUGIN_ABI);
	ck_assert_int_eq(p->kind, ROTA_PLUGIN_LIMITS);
	ck_assert_uint_eq(((const struct rota_limits_ops *)p->ops)->size,
			  sizeof(struct rota_limits_ops));
	ck_assert_ptr_nonnull(((const struct rota_limits_ops *)p->ops)
				      ->classify);
	err[0] = '\0';
	rc = p->init(&host, &conf, &state, err, errlen);
	ck_assert_msg(rc == want_rc, "%s: init %d, want %d: %s", p->name, rc,
		      want_rc, err);
	if (rc)
		ck_assert_ptr_null(state);
	return state;
}

static void *maui_init(const struct setting *s, int n)
{
	char err[256];

	return plugin_init(&rota_plugin_limits_maui, s, n, 0, err,
			   sizeof(err));
}

static void *slurm_init(void)
{
	char err[256];

	return plugin_init(&rota_plugin_limits_slurm, NULL, 0, 0, err,
			   sizeof(err));
}

static const struct rota_limits_ops *ops(const struct rota_plugin *p)
{
	return p->ops;
}

/* What the host's limit_tally.c keeps: one running job's part in it. */
static void use_add(struct rota_limit_tres *u, const struct rota_limit_job *r)
{
	u->cpu += r->cores;
	u->mem += (int64_t)r->mem_mb;
	u->node += r->nodes;
	u->gpu += r->gpus;
}

/* Is 'set' among the accounts of 'r'? */
static bool holds(const struct rota_limit_job *r,
		  const struct rota_limit_set *set)
{
	for (size_t e = 0; r->account_limits && r->account_limits[e]; e++)
		if (r->account_limits[e] == set)
			return true;
	return false;
}

/* A pending job's running_use, by id (ids stay below 16 here). */
static struct rota_limit_tres use_store[16][8];

/* As the host does: what the running jobs of 'all' hold, for pending 'j'. */
static void host_use(const struct rota_limit_job *all, size_t n,
		     struct rota_limit_job *j)
{
	struct rota_limit_tres *u = use_store[j->id % 16];
	size_t depth = 0;

	while (j->account_limits && j->account_limits[depth])
		depth++;
	memset(u, 0, sizeof(use_store[0]));
	for (size_t i = 0; i < n; i++) {
		const struct rota_limit_job *r = &all[i];

		if (!r->running)
			continue;
		if (r->user_limits == j->user_limits)
			use_add(&u[0], r);
		for (size_t d = 0; d < depth; d++)
			if (holds(r, j->account_limits[d]))
				use_add(&u[1 + d], r);
		if (r->qos_limits != j->qos_limits)
			continue;
		use_add(&u[1 + depth], r);
		if (!strcmp(r->user, j->user))
			use_add(&u[2 + depth], r);
		if (depth && r->account_limits &&
		    r->account_limits[0] == j->account_limits[0])
			use_add(&u[3 + depth], r);
	}
	j->running_use = u;
}

/* classify 'jobs' afresh: outputs cleared first, as the host does */
static void classify(const struct rota_plugin *p, void *state,
		     struct rota_limit_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		jobs[i].blocked = false;
		jobs[i].reason[0] = '\0';
		jobs[i].detail[0] = '\0';
		if (!jobs[i].running)
			host_use(jobs, n, &jobs[i]);
	}
	ck_assert_int_eq(ops(p)->classify(state, NOW, jobs, n), 0);
}

static int start(const struct rota_plugin *p, void *state,
		 const struct rota_limit_job *job, bool others_idle,
		 char *reason)
{
	reason[0] = '\0';
	return ops(p)->start(state, NOW, job, others_idle, reason, 96);
}

static int admit(const struct rota_plugin *p, void *state,
		 const struct rota_limit_job *job,
		 const struct rota_limit_job *queued, size_t nqueued,
		 char *err)
{
	err[0] = '\0';
	return ops(p)->admit(state, NOW, job, queued, nqueued, err, 256);
}

/* ---- holders and jobs ---------------------------------------------------- */

static struct rota_limit_set unset(void)
{
	return (struct rota_limit_set){
		.max_jobs = -1, .max_submit = -1, .max_wall = -1,
		.max_cpus = -1, .max_mem = -1, .max_nodes = -1,
		.cpu_run_mins = -1, .max_idle = -1, .max_ps = -1,
		.max_ps_hard = -1, .allocation = -1, .max_gpus = -1,
		.grp_tres = { -1, -1, -1, -1 },
		.user_tres = { -1, -1, -1, -1 },
		.account_tres = { -1, -1, -1, -1 },
	};
}

/* The holders of the tests: two users in physics (under root), a QOS. */
static struct rota_limit_set ana_set, bob_set, physics_set, root_set,
	normal_set;
static const struct rota_limit_set *physics_chain[3];

static void holders_reset(void)
{
	ana_set = unset();
	bob_set = unset();
	physics_set = unset();
	root_set = unset();
	normal_set = unset();
	physics_chain[0] = &physics_set;
	physics_chain[1] = &root_set;
	physics_chain[2] = NULL;
}

static struct rota_limit_job job(uint32_t id, const char *user,
				 uint32_t cores, int64_t time_limit)
{
	return (struct rota_limit_job){
		.id = id, .user = user, .account = "physics", .qos = "normal",
		.cores = cores, .time_limit = time_limit,
		.user_limits = strcmp(user, "ana") ? &bob_set : &ana_set,
		.account_limits = physics_chain, .qos_limits = &normal_set,
	};
}

static struct rota_limit_job running(uint32_t id, const char *user,
				     uint32_t cores, int64_t remaining)
{
	struct rota_limit_job j = job(id, user, cores, remaining);

	j.running = true;
	j.remaining = remaining;
	return j;
}

static void assert_idle(const struct rota_limit_job *j)
{
	ck_assert_msg(!j->blocked, "job %u blocked: %s", j->id, j->reason);
}

static void assert_blocked(const struct rota_limit_job *j, const char *why)
{
	ck_assert_msg(j->blocked, "job %u not blocked (want %s)", j->id, why);
	ck_assert_str_eq(j->reason, why);
}

/* ---- maui: idle jobs ----------------------------------------------------- */

/* Seed 003: 10 jobs, 8 idle, 2 blocked; one starts, the 9th is promoted. */
START_TEST(test_maui_idle_per_user)
{
	void *st;
	struct rota_limit_job jobs[10];
	char why[96];

	holders_reset();
	st = maui_init(NULL, 0);
	for (int i = 0; i < 10; i++)
		jobs[i] = job((uint32_t)i + 1, "ana", 1, HOUR);
	classify(&rota_plugin_limits_maui, st, jobs, 10);
	for (int i = 0; i < 8; i++)
		assert_idle(&jobs[i]);
	assert_blocked(&jobs[8], "MaxIdlePerUser (8 of 8)");
	assert_blocked(&jobs[9], "MaxIdlePerUser (8 of 8)");

	/* job 1 (1 x 3600 = 3600 processor-seconds) may start... */
	ck_assert_int_eq(start(&rota_plugin_limits_maui, st, &jobs[0], true,
			       why), 0);
	/* ...and the next pass sees it running: job 9 is idle, 10 not */
	jobs[0] = running(1, "ana", 1, HOUR);
	classify(&rota_plugin_limits_maui, st, jobs, 10);
	for (int i = 1; i < 9; i++)
		assert_idle(&jobs[i]);
	assert_blocked(&jobs[9], "MaxIdlePerUser (8 of 8)");
	rota_plugin_limits_maui.fini(st);
}
END_TEST

/* Held jobs and jobs another plugin blocked are not idle: not counted. */
START_TEST(test_maui_idle_skips_held)
{
	void *st;
	struct rota_limit_job jobs[10];

	holders_reset();
	st = maui_init(NULL, 0);
	for (int i = 0; i < 10; i++)
		jobs[i] = job((uint32_t)i + 1, "ana", 1, HOUR);
	for (int i = 0; i < 10; i++) {
		jobs[i].blocked = false;
		jobs[i].reason[0] = '\0';
	}
	jobs[0].held = true;
	jobs[1].blocked = true;	/* as slurm would have */
	snprintf(jobs[1].reason, sizeof(jobs[1].reason), "MaxJobsPerUser "
		 "(4 of 4)");
	ck_assert_int_eq(ops(&rota_plugin_limits_maui)->classify(st, NOW,
								 jobs, 10),
			 0);
	ck_assert(!jobs[0].blocked);
	assert_blocked(&jobs[1], "MaxJobsPerUser (4 of 4)");
	for (int i = 2; i < 10; i++)
		assert_idle(&jobs[i]);
	rota_plugin_limits_maui.fini(st);
}
END_TEST

/* 30 idle per account across users; the account's MaxIdle= overrides. */
START_TEST(test_maui_idle_per_account)
{
	static const char *const users[] = { "u0", "u1", "u2", "u3", "u4",
					     "u5", "u6", "u7" };
	void *st;
	struct rota_limit_job jobs[32];

	holders_reset();
	st = maui_init(NULL, 0);
	for (int i = 0; i < 32; i++)
		jobs[i] = job((uint32_t)i + 1, users[i % 8], 1, HOUR);
	classify(&rota_plugin_limits_maui, st, jobs, 32);
	for (int i = 0; i < 30; i++)
		assert_idle(&jobs[i]);
	assert_blocked(&jobs[30], "MaxIdlePerAccount (30 of 30)");
	assert_blocked(&jobs[31], "MaxIdlePerAccount (30 of 30)");

	physics_set.max_idle = 5;
	ana_set.max_idle = 20;	/* the user's own: still the account's 5 */
	classify(&rota_plugin_limits_maui, st, jobs, 32);
	for (int i = 0; i < 5; i++)
		assert_idle(&jobs[i]);
	assert_blocked(&jobs[5], "MaxIdlePerAccount (5 of 5)");
	rota_plugin_limits_maui.fini(st);
}
END_TEST

/* A user's MaxIdle= overrides MaxIdlePerUser; bob keeps the default. */
START_TEST(test_maui_idle_user_override)
{
	void *st;
	struct rota_limit_job jobs[6];

	holders_reset();
	ana_set.max_idle = 2;
	st = maui_init((const struct setting[]){ { "MaxIdlePerUser", "3" } },
		       1);
	for (int i = 0; i < 3; i++) {
		jobs[i] = job((uint32_t)i + 1, "ana", 1, HOUR);
		jobs[i + 3] = job((uint32_t)i + 4, "bob", 1, HOUR);
	}
	classify(&rota_plugin_limits_maui, st, jobs, 6);
	assert_idle(&jobs[0]);
	assert_idle(&jobs[1]);
	assert_blocked(&jobs[2], "MaxIdlePerUser (2 of 2)");
	for (int i = 3; i < 6; i++)
		assert_idle(&jobs[i]);
	rota_plugin_limits_maui.fini(st);
}
END_TEST

/* Running and idle together stop at MaxJobsPerUser. */
START_TEST(test_maui_jobs_per_user)
{
	static const struct setting s[] = { { "MaxJobsPerUser", "3" } };
	void *st;
	struct rota_limit_job jobs[5];

	holders_reset();
	st = maui_init(s, N(s));
	jobs[0] = running(1, "ana", 1, HOUR);
	jobs[1] = running(2, "ana", 1, HOUR);
	for (int i = 2; i < 5; i++)
		jobs[i] = job((uint32_t)i + 1, "ana", 1, HOUR);
	classify(&rota_plugin_limits_maui, st, jobs, 5);
	assert_idle(&jobs[2]);
	assert_blocked(&jobs[3], "MaxJobsPerUser (3 of 3)");
	assert_blocked(&jobs[4], "MaxJobsPerUser (3 of 3)");

	/* job 1 ends: job 4 may be idle too */
	classify(&rota_plugin_limits_maui, st, &jobs[1], 4);
	assert_idle(&jobs[2]);
	assert_idle(&jobs[3]);
	assert_blocked(&jobs[4], "MaxJobsPerUser (3 of 3)");
	rota_plugin_limits_maui.fini(st);
}
END_TEST

/* ---- maui: processor-seconds --------------------------------------------- */

/*
 * Seed 003: a 2-processor job with 9:42:28 left, 2 x 34948 = 69896, and an
 * idle 8-processor 1-hour job, 8 x 3600 = 28800: 98696 > 72000.
 */
START_TEST(test_maui_ps_seed)
{
	const int64_t left = 9 * HOUR + 42 * 60 + 28;
	void *st;
	struct rota_limit_job jobs[2];
	char why[96];

	ck_assert_int_eq(left, 34948);
	holders_reset();
	st = maui_init(NULL, 0);
	jobs[0] = running(1, "ana", 2, left);
	jobs[1] = job(2, "ana", 8, HOUR);
	classify(&rota_plugin_limits_maui, st, jobs, 2);
	assert_idle(&jobs[1]);
	ck_assert_int_eq(start(&rota_plugin_limits_maui, st, &jobs[1], true,
			       why), 1);
	ck_assert_str_eq(why, "MaxPS soft (98696 > 72000)");

	/* the running job ends: the next pass starts it */
	classify(&rota_plugin_limits_maui, st, &jobs[1], 1);
	ck_assert_int_eq(start(&rota_plugin_limits_maui, st, &jobs[1], true,
			       why), 0);
	rota_plugin_limits_maui.fini(st);
}
END_TEST

/* Between soft and hard only when nothing else is eligible; never above. */
START_TEST(test_maui_ps_band)
{
	static const struct setting s[] = { { "MaxPSHard", "90000" } };
	void *st;
	struct rota_limit_job jobs[2];
	char why[96];

	holders_reset();
	st = maui_init(NULL, 0);
	jobs[0] = running(1, "ana", 2, 34948);
	jobs[1] = job(2, "ana", 8, HOUR);
	classify(&rota_plugin_limits_maui, st, jobs, 2);
	ck_assert_int_eq(start(&rota_plugin_limits_maui, st, &jobs[1], true,
			       why), 1);
	ck_assert_str_eq(why, "MaxPS soft (98696 > 72000)");
	ck_assert_int_eq(start(&rota_plugin_limits_maui, st, &jobs[1], false,
			       why), 0);
	ck_assert_str_eq(why, "");
	rota_plugin_limits_maui.fini(st);

	/* a hard limit of 90000: 98696 never starts */
	st = maui_init(s, N(s));
	classify(&rota_plugin_limits_maui, st, jobs, 2);
	ck_assert_int_eq(start(&rota_plugin_limits_maui, st, &jobs[1], false,
			       why), 1);
	ck_assert_str_eq(why, "MaxPS hard (98696 > 90000)");
	ck_assert_int_eq(start(&rota_plugin_limits_maui, st, &jobs[1], true,
			       why), 1);
	ck_assert_str_eq(why, "MaxPS hard (98696 > 90000)");
	rota_plugin_limits_maui.fini(st);
}
END_TEST

/* start() counts what it lets run: two jobs cannot both squeeze under. */
START_TEST(test_maui_ps_counts_started)
{
	void *st;
	struct rota_limit_job jobs[3];
	char why[96];

	holders_reset();
	st = maui_init(NULL, 0);
	for (int i = 0; i < 3; i++)
		jobs[i] = job((uint32_t)i + 1, "ana", 8, HOUR);
	classify(&rota_plugin_limits_maui, st, jobs, 3);
	/* 28800, then 57600: within 72000 */
	ck_assert_int_eq(start(&rota_plugin_limits_maui, st, &jobs[0], true,
			       why), 0);
	ck_assert_int_eq(start(&rota_plugin_limits_maui, st, &jobs[1], true,
			       why), 0);
	/* 86400 > 72000 */
	ck_assert_int_eq(start(&rota_plugin_limits_maui, st, &jobs[2], true,
			       why), 1);
	ck_assert_str_eq(why, "MaxPS soft (86400 > 72000)");
	rota_plugin_limits_maui.fini(st);
}
END_TEST

/*
 * An account with Allocation=100 core-hours a month: soft 100 x 3600 / 5
 * = 72000, hard 216000; bob's running job counts against ana's.
 */
START_TEST(test_maui_ps_account)
{
	void *st;
	struct rota_limit_job jobs[2];
	char why[96];

	holders_reset();
	physics_set.allocation = 100;
	ana_set.max_ps = 1000000;
	ana_set.max_ps_hard = 2000000;
	st = maui_init(NULL, 0);
	jobs[0] = running(1, "bob", 2, 34948);
	jobs[1] = job(2, "ana", 8, HOUR);
	classify(&rota_plugin_limits_maui, st, jobs, 2);
	ck_assert_int_eq(start(&rota_plugin_limits_maui, st, &jobs[1], true,
			       why), 1);
	ck_assert_str_eq(why, "MaxPS soft (98696 > 72000) for account "
			      "'physics'");
	ck_assert_int_eq(start(&rota_plugin_limits_maui, st, &jobs[1], false,
			       why), 0);

	/* a job above the account's hard limit on its own: refused */
	jobs[1] = job(3, "ana", 64, 4 * HOUR);	/* 921600 > 216000 */
	ck_assert_int_eq(admit(&rota_plugin_limits_maui, st, &jobs[1], NULL, 0,
			       why), -EINVAL);
	ck_assert_str_eq(why, "921600 processor-seconds exceed MaxPSHard "
			      "216000 of account 'physics'");
	rota_plugin_limits_maui.fini(st);
}
END_TEST

/* ---- maui: MaxWall and settings ------------------------------------------ */

START_TEST(test_maui_max_wall)
{
	static const struct setting off[] = { { "MaxWall", "0s" },
					      { "MaxPSHard", "1e12" },
					      { "MaxPS", "1e12" } };
	void *st;
	struct rota_limit_job j;
	char err[256];

	holders_reset();
	st = maui_init(NULL, 0);
	j = job(1, "ana", 1, 6 * DAY);
	ck_assert_int_eq(admit(&rota_plugin_limits_maui, st, &j, NULL, 0,
			       err), -EINVAL);
	ck_assert_str_eq(err, "--time=6-00:00:00 exceeds MaxWall 5-00:00:00");
	j.time_limit = 5 * DAY;
	ck_assert_int_eq(admit(&rota_plugin_limits_maui, st, &j, NULL, 0,
			       err), 0);
	j.time_limit = 0;
	ck_assert_int_eq(admit(&rota_plugin_limits_maui, st, &j, NULL, 0,
			       err), -EINVAL);
	ck_assert_str_eq(err, "--time=UNLIMITED exceeds MaxWall 5-00:00:00");
	/* 1 x 5 days = 432000 is within hard; 3 x 5 days is not */
	j = job(2, "ana", 3, 5 * DAY);
	ck_assert_int_eq(admit(&rota_plugin_limits_maui, st, &j, NULL, 0,
			       err), -EINVAL);
	ck_assert_str_eq(err, "1296000 processor-seconds exceed MaxPSHard "
			      "1080000 of user 'ana'");
	rota_plugin_limits_maui.fini(st);

	st = maui_init(off, N(off));
	j = job(3, "ana", 1, 0);
	ck_assert_int_eq(admit(&rota_plugin_limits_maui, st, &j, NULL, 0,
			       err), 0);
	rota_plugin_limits_maui.fini(st);
}
END_TEST

static const struct {
	struct setting s[2];
	int n;
	const char *err;
} maui_errors[] = {
	{ { { "MaxIdlePerUser", "-1" } }, 1,
	  "test.conf:1: MaxIdlePerUser: '-1' is not within [0, 1e+15]" },
	{ { { "MaxIdlePerAccount", "8.5" } }, 1,
	  "test.conf:1: MaxIdlePerAccount: 8.5 is not a whole number" },
	{ { { "MaxJobsPerUser", "many" } }, 1,
	  "test.conf:1: MaxJobsPerUser: 'many' is not within [0, 1e+15]" },
	{ { { "MaxWall", "-1d" } }, 1, "test.conf:1: MaxWall: bad duration" },
	{ { { "MaxPS", "2000000" } }, 1,
	  "test.conf:1: MaxPS: 2000000 is above MaxPSHard 1080000" },
	{ { { "MaxPSHard", "1000" }, { "MaxPS", "2000" } }, 2,
	  "test.conf:2: MaxPS: 2000 is above MaxPSHard 1000" },
	{ { { "MaxPSHard", "1000" } }, 1,
	  "test.conf:1: MaxPSHard: 1000 is below MaxPS 72000 (MaxPS above "
	  "MaxPSHard)" },
};

START_TEST(test_maui_errors)
{
	char err[256];

	plugin_init(&rota_plugin_limits_maui, maui_errors[_i].s,
		    maui_errors[_i].n, -EINVAL, err, sizeof(err));
	ck_assert_str_eq(err, maui_errors[_i].err);
}
END_TEST

/* ---- slurm --------------------------------------------------------------- */

/* No limit anywhere: nothing refused, nothing blocked. */
START_TEST(test_slurm_none)
{
	void *st;
	struct rota_limit_job jobs[3];
	char why[256];

	holders_reset();
	st = slurm_init();
	jobs[0] = running(1, "ana", 64, DAY);
	jobs[1] = job(2, "ana", 1024, 0);
	jobs[2] = job(3, "bob", 1, 10 * DAY);
	ck_assert_int_eq(admit(&rota_plugin_limits_slurm, st, &jobs[1], jobs,
			       3, why), 0);
	classify(&rota_plugin_limits_slurm, st, jobs, 3);
	assert_idle(&jobs[1]);
	assert_idle(&jobs[2]);
	ck_assert_int_eq(start(&rota_plugin_limits_slurm, st, &jobs[1], true,
			       why), 0);
	rota_plugin_limits_slurm.fini(st);
}
END_TEST

/* MaxJobs on the user's association: blocks, releases, and start counts. */
START_TEST(test_slurm_max_jobs_user)
{
	void *st;
	struct rota_limit_job jobs[5];
	char why[96];

	holders_reset();
	ana_set.max_jobs = 2;
	st = slurm_init();
	jobs[0] = running(1, "ana", 1, HOUR);
	jobs[1] = running(2, "ana", 1, HOUR);
	jobs[2] = job(3, "ana", 1, HOUR);
	jobs[3] = job(4, "ana", 1, HOUR);
	jobs[4] = job(5, "bob", 1, HOUR);
	classify(&rota_plugin_limits_slurm, st, jobs, 5);
	assert_blocked(&jobs[2], "MaxJobsPerUser (2 of 2)");
	assert_blocked(&jobs[3], "MaxJobsPerUser (2 of 2)");
	assert_idle(&jobs[4]);

	/* job 1 ends: both idle, but only one may start in the pass */
	classify(&rota_plugin_limits_slurm, st, &jobs[1], 4);
	assert_idle(&jobs[2]);
	assert_idle(&jobs[3]);
	ck_assert_int_eq(start(&rota_plugin_limits_slurm, st, &jobs[2], true,
			       why), 0);
	ck_assert_int_eq(start(&rota_plugin_limits_slurm, st, &jobs[3], true,
			       why), 1);
	ck_assert_str_eq(why, "MaxJobsPerUser (2 of 2)");
	ck_assert_int_eq(start(&rota_plugin_limits_slurm, st, &jobs[4], true,
			       why), 0);
	rota_plugin_limits_slurm.fini(st);
}
END_TEST

/* MaxJobs on the account counts every user; on a parent too. */
START_TEST(test_slurm_max_jobs_account)
{
	void *st;
	struct rota_limit_job jobs[4];

	holders_reset();
	physics_set.max_jobs = 2;
	st = slurm_init();
	jobs[0] = running(1, "ana", 1, HOUR);
	jobs[1] = running(2, "bob", 1, HOUR);
	jobs[2] = job(3, "ana", 1, HOUR);
	jobs[3] = job(4, "bob", 1, HOUR);
	classify(&rota_plugin_limits_slurm, st, jobs, 4);
	assert_blocked(&jobs[2], "MaxJobsPerAccount (2 of 2)");
	assert_blocked(&jobs[3], "MaxJobsPerAccount (2 of 2)");

	/* the tighter limit is the root's */
	root_set.max_jobs = 1;
	physics_set.max_jobs = 10;
	classify(&rota_plugin_limits_slurm, st, &jobs[1], 3);
	assert_blocked(&jobs[2], "MaxJobsPerAccount (1 of 1)");
	classify(&rota_plugin_limits_slurm, st, &jobs[2], 2);
	assert_idle(&jobs[2]);
	assert_idle(&jobs[3]);
	rota_plugin_limits_slurm.fini(st);
}
END_TEST

START_TEST(test_slurm_max_jobs_qos)
{
	void *st;
	struct rota_limit_job jobs[3];
	struct rota_limit_set other = unset();

	holders_reset();
	normal_set.max_jobs = 1;
	st = slurm_init();
	jobs[0] = running(1, "ana", 1, HOUR);
	jobs[1] = job(2, "bob", 1, HOUR);
	jobs[2] = job(3, "bob", 1, HOUR);
	jobs[2].qos = "long";
	jobs[2].qos_limits = &other;
	classify(&rota_plugin_limits_slurm, st, jobs, 3);
	assert_blocked(&jobs[1], "MaxJobsPerQOS (1 of 1)");
	assert_idle(&jobs[2]);
	classify(&rota_plugin_limits_slurm, st, &jobs[1], 2);
	assert_idle(&jobs[1]);
	rota_plugin_limits_slurm.fini(st);
}
END_TEST

/*
 * GrpTRESRunMins=cpu=100000 on physics: 64 cores x 1500 minutes left =
 * 96000; a 32-core 4-hour job adds 7680: 103680 > 100000.  With 1400
 * minutes left: 89600 + 7680 = 97280, within.
 */
START_TEST(test_slurm_run_mins)
{
	void *st;
	struct rota_limit_job jobs[3];
	char why[96];

	holders_reset();
	physics_set.cpu_run_mins = 100000;
	st = slurm_init();
	jobs[0] = running(1, "bob", 64, 1500 * 60);
	jobs[1] = job(2, "ana", 32, 4 * HOUR);
	jobs[2] = job(3, "ana", 16, 2 * HOUR);	/* +1920: 97920 */
	classify(&rota_plugin_limits_slurm, st, jobs, 3);
	assert_blocked(&jobs[1], "GrpTRESRunMins cpu (103680 > 100000) for "
				 "account 'physics'");
	assert_idle(&jobs[2]);
	/* started: 97920; another 16 x 2 h would make 99840, a third
	   101760 */
	ck_assert_int_eq(start(&rota_plugin_limits_slurm, st, &jobs[2], true,
			       why), 0);
	ck_assert_int_eq(start(&rota_plugin_limits_slurm, st, &jobs[2], true,
			       why), 0);
	ck_assert_int_eq(start(&rota_plugin_limits_slurm, st, &jobs[2], true,
			       why), 1);
	ck_assert_str_eq(why, "GrpTRESRunMins cpu (101760 > 100000) for "
			      "account 'physics'");

	jobs[0].remaining = 1400 * 60;
	classify(&rota_plugin_limits_slurm, st, jobs, 2);
	assert_idle(&jobs[1]);

	/* no time limit: no bound on its run-minutes */
	jobs[1].time_limit = 0;
	classify(&rota_plugin_limits_slurm, st, jobs, 2);
	assert_blocked(&jobs[1], "GrpTRESRunMins cpu (UNLIMITED > 100000) "
				 "for account 'physics'");
	rota_plugin_limits_slurm.fini(st);
}
END_TEST

/* A held job is left alone; a reason another plugin set is kept. */
START_TEST(test_slurm_held)
{
	void *st;
	struct rota_limit_job jobs[3];

	holders_reset();
	ana_set.max_jobs = 0;
	st = slurm_init();
	jobs[0] = job(1, "ana", 1, HOUR);
	jobs[1] = job(2, "ana", 1, HOUR);
	jobs[2] = job(3, "ana", 1, HOUR);
	classify(&rota_plugin_limits_slurm, st, jobs, 3);
	assert_blocked(&jobs[0], "MaxJobsPerUser (0 of 0)");
	jobs[0].blocked = false;
	jobs[0].reason[0] = '\0';
	jobs[0].held = true;
	jobs[1].blocked = true;
	snprintf(jobs[1].reason, sizeof(jobs[1].reason), "other");
	ck_assert_int_eq(ops(&rota_plugin_limits_slurm)->classify(st, NOW,
								  jobs, 3),
			 0);
	ck_assert(!jobs[0].blocked);
	assert_blocked(&jobs[1], "other");
	assert_blocked(&jobs[2], "MaxJobsPerUser (0 of 0)");
	rota_plugin_limits_slurm.fini(st);
}
END_TEST

START_TEST(test_slurm_max_wall)
{
	void *st;
	struct rota_limit_job j;
	char err[256];

	holders_reset();
	physics_set.max_wall = 5 * DAY;
	st = slurm_init();
	j = job(1, "ana", 1, 6 * DAY);
	ck_assert_int_eq(admit(&rota_plugin_limits_slurm, st, &j, NULL, 0,
			       err), -EINVAL);
	ck_assert_str_eq(err, "--time=6-00:00:00 exceeds MaxWall 5-00:00:00 "
			      "of account 'physics'");
	j.time_limit = 5 * DAY;
	ck_assert_int_eq(admit(&rota_plugin_limits_slurm, st, &j, NULL, 0,
			       err), 0);
	j.time_limit = 0;
	ck_assert_int_eq(admit(&rota_plugin_limits_slurm, st, &j, NULL, 0,
			       err), -EINVAL);
	ck_assert_str_eq(err, "--time=UNLIMITED exceeds MaxWall 5-00:00:00 "
			      "of account 'physics'");
	/* the tightest holder is named */
	ana_set.max_wall = 12 * HOUR;
	normal_set.max_wall = DAY;
	j.time_limit = 13 * HOUR;
	ck_assert_int_eq(admit(&rota_plugin_limits_slurm, st, &j, NULL, 0,
			       err), -EINVAL);
	ck_assert_str_eq(err, "--time=13:00:00 exceeds MaxWall 12:00:00 of "
			      "user 'ana'");
	ana_set.max_wall = -1;
	root_set.max_wall = 2 * HOUR;
	ck_assert_int_eq(admit(&rota_plugin_limits_slurm, st, &j, NULL, 0,
			       err), -EINVAL);
	ck_assert_str_eq(err, "--time=13:00:00 exceeds MaxWall 02:00:00 of "
			      "the parent account of 'physics'");
	rota_plugin_limits_slurm.fini(st);
}
END_TEST

START_TEST(test_slurm_max_tres)
{
	void *st;
	struct rota_limit_job j;
	char err[256];

	holders_reset();
	normal_set.max_cpus = 64;
	physics_set.max_mem = 256000;
	ana_set.max_nodes = 4;
	st = slurm_init();
	j = job(1, "ana", 64, HOUR);
	j.mem_mb = 256000;
	j.nodes = 4;
	ck_assert_int_eq(admit(&rota_plugin_limits_slurm, st, &j, NULL, 0,
			       err), 0);
	j.cores = 65;
	ck_assert_int_eq(admit(&rota_plugin_limits_slurm, st, &j, NULL, 0,
			       err), -EINVAL);
	ck_assert_str_eq(err, "65 cores exceed MaxTRES cpu=64 of QOS "
			      "'normal'");
	j.cores = 64;
	j.mem_mb = 256001;
	ck_assert_int_eq(admit(&rota_plugin_limits_slurm, st, &j, NULL, 0,
			       err), -EINVAL);
	ck_assert_str_eq(err, "256001M of memory exceeds MaxTRES mem=256000M "
			      "of account 'physics'");
	j.mem_mb = 1;
	j.nodes = 5;
	ck_assert_int_eq(admit(&rota_plugin_limits_slurm, st, &j, NULL, 0,
			       err), -EINVAL);
	ck_assert_str_eq(err, "5 nodes exceed MaxTRES node=4 of user 'ana'");
	rota_plugin_limits_slurm.fini(st);
}
END_TEST

/* MaxSubmitJobs: the holder's pending and running jobs already at it. */
START_TEST(test_slurm_max_submit)
{
	void *st;
	struct rota_limit_job q[4], j;
	char err[256];

	holders_reset();
	ana_set.max_submit = 3;
	st = slurm_init();
	q[0] = running(1, "ana", 1, HOUR);
	q[1] = job(2, "ana", 1, HOUR);
	q[2] = job(3, "bob", 1, HOUR);
	q[3] = job(4, "ana", 1, HOUR);
	j = job(5, "ana", 1, HOUR);
	ck_assert_int_eq(admit(&rota_plugin_limits_slurm, st, &j, q, 4, err),
			 -EINVAL);
	ck_assert_str_eq(err, "MaxSubmitJobs (3 of 3) for user 'ana'");
	/* one leaves the queue: room again */
	ck_assert_int_eq(admit(&rota_plugin_limits_slurm, st, &j, q, 3, err),
			 0);
	/* bob is not limited; physics at 4 of 4 is */
	physics_set.max_submit = 4;
	j = job(6, "bob", 1, HOUR);
	ck_assert_int_eq(admit(&rota_plugin_limits_slurm, st, &j, q, 4, err),
			 -EINVAL);
	ck_assert_str_eq(err, "MaxSubmitJobs (4 of 4) for account 'physics'");
	rota_plugin_limits_slurm.fini(st);
}
END_TEST

/* The same with the host's counts (ABI 1.12), accounts by depth. */
START_TEST(test_slurm_max_submit_counted)
{
	void *st;
	struct rota_limit_job j;
	int64_t acct[2] = { 4, 9 };
	struct rota_limit_counts c = { .user = 3, .account = acct, .qos = 7 };
	char err[256];

	holders_reset();
	ana_set.max_submit = 3;
	root_set.max_submit = 10;
	st = slurm_init();
	j = job(5, "ana", 1, HOUR);
	ck_assert_int_eq(ops(&rota_plugin_limits_slurm)
				 ->admit_counted(st, NOW, &j, &c, err, 256),
			 -EINVAL);
	ck_assert_str_eq(err, "MaxSubmitJobs (3 of 3) for user 'ana'");
	c.user = 2;
	ck_assert_int_eq(ops(&rota_plugin_limits_slurm)
				 ->admit_counted(st, NOW, &j, &c, err, 256),
			 0);
	/* an array of 2 passes root's 10 with 9 queued */
	j.count = 2;
	c.user = 0;
	ck_assert_int_eq(ops(&rota_plugin_limits_slurm)
				 ->admit_counted(st, NOW, &j, &c, err, 256),
			 -EINVAL);
	ck_assert_str_eq(err, "MaxSubmitJobs (9 of 10) for the parent "
			      "account of 'physics'");
	rota_plugin_limits_slurm.fini(st);
}
END_TEST

/* running_changed() names the holders that reached or left MaxJobs. */
START_TEST(test_slurm_running_changed)
{
	const struct rota_limits_ops *o = ops(&rota_plugin_limits_slurm);
	const struct rota_limit_set *moved[4];
	struct rota_limit_job r[3];
	void *st;

	holders_reset();
	ana_set.max_jobs = 2;
	normal_set.max_jobs = 5;
	st = slurm_init();
	r[0] = running(1, "ana", 1, HOUR);
	r[1] = running(2, "bob", 1, HOUR);
	r[2] = running(3, "ana", 1, HOUR);
	/* the first call: nothing to compare with */
	ck_assert_int_lt(o->running_changed(st, NOW, r, 1, moved, 4), 0);
	ck_assert_int_eq(o->running_changed(st, NOW, r, 1, moved, 4), 0);
	/* bob's start moves no limit; ana's second reaches hers */
	ck_assert_int_eq(o->running_changed(st, NOW, r, 2, moved, 4), 0);
	ck_assert_int_eq(o->running_changed(st, NOW, r, 3, moved, 4), 1);
	ck_assert_ptr_eq(moved[0], &ana_set);
	/* no room to name it: any job */
	ck_assert_int_lt(o->running_changed(st, NOW, r, 2, moved, 0), 0);
	/* with MaxJobs=2 on the QOS, bob's end takes it from 2 to 1 */
	normal_set.max_jobs = 2;
	ck_assert_int_eq(o->running_changed(st, NOW, r, 1, moved, 4), 1);
	ck_assert_ptr_eq(moved[0], &normal_set);
	rota_plugin_limits_slurm.fini(st);
}
END_TEST

/* ---- slurm: running limits (GrpTRES, MaxTRESPerUser/Account) ----------- */

static struct rota_limit_job gpu_job(uint32_t id, const char *user,
				     uint32_t gpus, bool is_running)
{
	struct rota_limit_job j = is_running ? running(id, user, 1, HOUR)
					     : job(id, user, 1, HOUR);

	j.gpus = gpus;
	j.nodes = 1;
	return j;
}

static void assert_detail(const struct rota_limit_job *j, const char *want)
{
	ck_assert_str_eq(j->detail, want);
}

/* The example: ana holds 6 GPUs of 8; a job of 4 waits, 2 not. */
START_TEST(test_slurm_gpus_per_user)
{
	void *st;
	struct rota_limit_job jobs[5], one;
	char why[96];

	holders_reset();
	normal_set.user_tres.gpu = 8;
	st = slurm_init();
	jobs[0] = gpu_job(1, "ana", 4, true);
	jobs[1] = gpu_job(2, "ana", 2, true);
	jobs[2] = gpu_job(3, "ana", 4, false);
	jobs[3] = gpu_job(4, "bob", 8, false);
	jobs[4] = gpu_job(5, "ana", 2, false);
	classify(&rota_plugin_limits_slurm, st, jobs, 5);
	assert_blocked(&jobs[2], "QOSMaxGRESPerUser (6 + 4 > 8)");
	assert_detail(&jobs[2], "user 'ana' holds 6 of the 8 GPUs "
				"MaxTRESPerUser=gres/gpu=8 of QOS 'normal' "
				"allows; the job asks 4");
	assert_idle(&jobs[3]); /* bob's own 8 */
	assert_idle(&jobs[4]);
	/* the 2 starts: ana is at 8, and the host counts it at once */
	ck_assert_int_eq(start(&rota_plugin_limits_slurm, st, &jobs[4], true,
			       why), 0);
	jobs[4].running = true;
	one = gpu_job(6, "ana", 1, false);
	host_use(jobs, 5, &one);
	ck_assert_int_eq(start(&rota_plugin_limits_slurm, st, &one, true,
			       why), 1);
	ck_assert_str_eq(why, "QOSMaxGRESPerUser (8 + 1 > 8)");
	jobs[4].running = false;
	/* job 1 ends: the 4 fits again */
	classify(&rota_plugin_limits_slurm, st, &jobs[1], 2);
	assert_idle(&jobs[2]);
	rota_plugin_limits_slurm.fini(st);
}
END_TEST

/* GrpTRES: an account counts its users' jobs; the QOS all of its own. */
START_TEST(test_slurm_grp_tres)
{
	void *st;
	struct rota_limit_job jobs[4];

	holders_reset();
	physics_set.grp_tres.cpu = 10;
	st = slurm_init();
	jobs[0] = running(1, "ana", 4, HOUR);
	jobs[1] = running(2, "bob", 4, HOUR);
	jobs[2] = job(3, "ana", 3, HOUR);
	jobs[3] = job(4, "bob", 2, HOUR);
	classify(&rota_plugin_limits_slurm, st, jobs, 4);
	assert_blocked(&jobs[2], "AssocGrpCpuLimit (8 + 3 > 10)");
	assert_detail(&jobs[2], "account 'physics' holds 8 of the 10 cores "
				"its GrpTRES=cpu=10 allows; the job asks 3");
	assert_idle(&jobs[3]);

	/* the root account's memory, and the QOS's nodes and GPUs */
	holders_reset();
	root_set.grp_tres.mem = 4096;
	jobs[0].mem_mb = 3000;
	jobs[2].cores = 1;
	jobs[2].mem_mb = 2000;
	classify(&rota_plugin_limits_slurm, st, jobs, 4);
	assert_blocked(&jobs[2], "AssocGrpMemLimit (3000M + 2000M > 4096M)");
	assert_detail(&jobs[2], "the parent account of 'physics' holds 3000M "
				"of the 4096M of memory its GrpTRES=mem=4096M "
				"allows; the job asks 2000M");
	holders_reset();
	normal_set.grp_tres.node = 2;
	normal_set.grp_tres.gpu = 3;
	jobs[0].nodes = 1;
	jobs[1].nodes = 1;
	jobs[1].gpus = 2;
	jobs[3].gpus = 1;
	classify(&rota_plugin_limits_slurm, st, jobs, 4);
	assert_blocked(&jobs[2], "QOSGrpNodeLimit (2 + 1 > 2)");
	assert_detail(&jobs[2], "QOS 'normal' holds 2 of the 2 nodes its "
				"GrpTRES=node=2 allows; the job asks 1");
	normal_set.grp_tres.node = -1;
	classify(&rota_plugin_limits_slurm, st, jobs, 4);
	assert_idle(&jobs[2]);
	assert_idle(&jobs[3]); /* 2 + 1 GPUs: at the limit, not past it */
	jobs[3].gpus = 2;
	classify(&rota_plugin_limits_slurm, st, jobs, 4);
	assert_blocked(&jobs[3], "QOSGrpGRES (2 + 2 > 3)");
	rota_plugin_limits_slurm.fini(st);
}
END_TEST

/* MaxTRESPerAccount and the user's own GrpTRES, each with its reason. */
START_TEST(test_slurm_tres_per_account)
{
	void *st;
	struct rota_limit_job jobs[3];

	holders_reset();
	normal_set.account_tres.cpu = 6;
	st = slurm_init();
	jobs[0] = running(1, "ana", 4, HOUR);
	jobs[1] = job(2, "bob", 4, HOUR);
	jobs[2] = job(3, "bob", 2, HOUR);
	classify(&rota_plugin_limits_slurm, st, jobs, 3);
	assert_blocked(&jobs[1], "MaxCpuPerAccount (4 + 4 > 6)");
	assert_detail(&jobs[1], "account 'physics' holds 4 of the 6 cores "
				"MaxTRESPerAccount=cpu=6 of QOS 'normal' "
				"allows; the job asks 4");
	assert_idle(&jobs[2]);
	normal_set.account_tres.cpu = -1;
	normal_set.user_tres.cpu = 5;
	bob_set.grp_tres.cpu = 3;
	classify(&rota_plugin_limits_slurm, st, jobs, 3);
	assert_blocked(&jobs[1], "AssocGrpCpuLimit (0 + 4 > 3)");
	assert_detail(&jobs[1], "user 'bob' holds 0 of the 3 cores its "
				"GrpTRES=cpu=3 allows; the job asks 4");
	jobs[2].user = "ana";
	jobs[2].user_limits = &ana_set;
	classify(&rota_plugin_limits_slurm, st, jobs, 3);
	assert_blocked(&jobs[2], "QOSMaxCpuPerUserLimit (4 + 2 > 5)");
	rota_plugin_limits_slurm.fini(st);
}
END_TEST

/* A job past a running limit by itself is refused at submit. */
START_TEST(test_slurm_run_alone)
{
	void *st;
	struct rota_limit_job j;
	char err[256];

	holders_reset();
	normal_set.user_tres.gpu = 8;
	physics_set.grp_tres.mem = 1024;
	st = slurm_init();
	j = gpu_job(1, "ana", 8, false);
	j.mem_mb = 1024;
	ck_assert_int_eq(admit(&rota_plugin_limits_slurm, st, &j, NULL, 0,
			       err), 0);
	j.gpus = 9;
	ck_assert_int_eq(admit(&rota_plugin_limits_slurm, st, &j, NULL, 0,
			       err), -EINVAL);
	ck_assert_str_eq(err, "9 GPUs exceed MaxTRESPerUser gres/gpu=8 of "
			      "QOS 'normal'");
	j.gpus = 1;
	j.mem_mb = 1025;
	ck_assert_int_eq(admit(&rota_plugin_limits_slurm, st, &j, NULL, 0,
			       err), -EINVAL);
	ck_assert_str_eq(err, "1025M of memory exceeds GrpTRES mem=1024M of "
			      "account 'physics'");
	rota_plugin_limits_slurm.fini(st);
}
END_TEST

/* A job's start or end moves a GrpTRES holder; MaxTRESPerUser its QOS. */
START_TEST(test_slurm_running_changed_tres)
{
	const struct rota_limits_ops *o = ops(&rota_plugin_limits_slurm);
	const struct rota_limit_set *moved[4];
	struct rota_limit_job r[3];
	void *st;

	holders_reset();
	physics_set.grp_tres.gpu = 8;
	st = slurm_init();
	r[0] = gpu_job(1, "ana", 2, true);
	r[1] = gpu_job(2, "bob", 2, true);
	r[2] = gpu_job(3, "ana", 0, true);
	ck_assert_int_lt(o->running_changed(st, NOW, r, 1, moved, 4), 0);
	ck_assert_int_eq(o->running_changed(st, NOW, r, 1, moved, 4), 0);
	ck_assert_int_eq(o->running_changed(st, NOW, r, 2, moved, 4), 1);
	ck_assert_ptr_eq(moved[0], &physics_set);
	rota_plugin_limits_slurm.fini(st);

	/* per user: one job for another of the same size moves the QOS */
	holders_reset();
	normal_set.user_tres.gpu = 8;
	st = slurm_init();
	ck_assert_int_lt(o->running_changed(st, NOW, r, 1, moved, 4), 0);
	ck_assert_int_eq(o->running_changed(st, NOW, r, 1, moved, 4), 0);
	ck_assert_int_eq(o->running_changed(st, NOW, &r[1], 1, moved, 4), 1);
	ck_assert_ptr_eq(moved[0], &normal_set);
	rota_plugin_limits_slurm.fini(st);
}
END_TEST

static Suite *limits_suite(void)
{
	Suite *s = suite_create("limits");
	TCase *tc = tcase_create("plugins");

	tcase_add_test(tc, test_maui_idle_per_user);
	tcase_add_test(tc, test_maui_idle_skips_held);
	tcase_add_test(tc, test_maui_idle_per_account);
	tcase_add_test(tc, test_maui_idle_user_override);
	tcase_add_test(tc, test_maui_jobs_per_user);
	tcase_add_test(tc, test_maui_ps_seed);
	tcase_add_test(tc, test_maui_ps_band);
	tcase_add_test(tc, test_maui_ps_counts_started);
	tcase_add_test(tc, test_maui_ps_account);
	tcase_add_test(tc, test_maui_max_wall);
	tcase_add_loop_test(tc, test_maui_errors, 0, N(maui_errors));
	tcase_add_test(tc, test_slurm_none);
	tcase_add_test(tc, test_slurm_max_jobs_user);
	tcase_add_test(tc, test_slurm_max_jobs_account);
	tcase_add_test(tc, test_slurm_max_jobs_qos);
	tcase_add_test(tc, test_slurm_run_mins);
	tcase_add_test(tc, test_slurm_held);
	tcase_add_test(tc, test_slurm_max_wall);
	tcase_add_test(tc, test_slurm_max_tres);
	tcase_add_test(tc, test_slurm_max_submit);
	tcase_add_test(tc, test_slurm_max_submit_counted);
	tcase_add_test(tc, test_slurm_running_changed);
	tcase_add_test(tc, test_slurm_gpus_per_user);
	tcase_add_test(tc, test_slurm_grp_tres);
	tcase_add_test(tc, test_slurm_tres_per_account);
	tcase_add_test(tc, test_slurm_run_alone);
	tcase_add_test(tc, test_slurm_running_changed_tres);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	fake_host_init(&host);
	sr = srunner_create(limits_suite());

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}
