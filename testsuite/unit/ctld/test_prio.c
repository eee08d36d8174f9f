// SPDX-License-Identifier: MIT
/*
 * Priorities through core.h on the virtual clock: the scheduling order
 * (tier, priority, submit time, id), age that counts only eligible time
 * and stops at MaxAge (GWDG's 5 days) and stands still while a job is
 * held, Flux's user factor that users can only lower, nice, holds and
 * who may release them, and the periodic re-rating.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/msg.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "plugins/rota_plugin.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define DAY 86400
#define T0 ((int64_t)1700000000)
#define ANA 1001
#define OPERATOR 0

static const char base_conf[] =
	"NodeName=n1 CPUs=8 RealMemory=16G\n"
	"QueueName=low Default=yes PriorityTier=1\n"
	"QueueName=high PriorityTier=10\n"
	"PriorityCalcPeriod=5m\n";

static struct core *core;
static struct rota_conf *conf;

static const char *builddir(void)
{
	const char *b = getenv("top_builddir");

	return b && *b ? b : ROTA_TOP_BUILDDIR;
}

/* A core from base_conf plus a policy; no node registers: jobs wait. */
static void start(const char *policy)
{
	char *text = rota_xasprintf("%sPluginDir=%s/_plugins\n%s", base_conf,
				    builddir(), policy);
	struct rota_error err = { "" };
	int rc = rota_conf_load_buffer("test.conf", text, strlen(text), &conf,
				       &err);

	free(text);
	ck_assert_msg(rc == 0, "config: %s", err.text);
	rc = core_create(conf, &core, &err);
	ck_assert_msg(rc == 0, "core: %s", err.text);
}

static void teardown(void)
{
	core_destroy(core);
	rota_conf_destroy(conf);
	core = NULL;
	conf = NULL;
}

struct sub {
	const char *queue;
	uid_t uid;
	int32_t nice;
	uint32_t urgency;
};

static int submit_rc(int64_t now, const struct sub *s, uint32_t *id,
		     struct rota_error *err)
{
	struct rota_job_desc d = {
		.name = rota_xstrdup("job"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		.queue = s->queue ? rota_xstrdup(s->queue) : NULL,
		.ntasks = 1,
		.cpus_per_task = 1,
		.nice = s->nice,
		.urgency = s->urgency,
	};
	struct core_submit req = {
		.desc = &d,
		.uid = s->uid,
		.gid = s->uid,
		.user = s->uid == OPERATOR ? "root" : "ana",
		.operator = s->uid == OPERATOR,
	};
	int rc = core_submit(core, now, &req, id, err);

	rota_job_desc_clear(&d);
	return rc;
}

static uint32_t submit(int64_t now, const struct sub *s)
{
	struct rota_error err = { "" };
	uint32_t id = 0;

	ck_assert_msg(submit_rc(now, s, &id, &err) == 0, "submit: %s",
		      err.text);
	return id;
}

#define SUB(...) (&(struct sub){ .uid = ANA, __VA_ARGS__ })

static double prio(uint32_t id)
{
	return core_job_find(core, id)->priority;
}

/* The pending jobs' ids in scheduling order, as "1 2 3". */
static void order_cb(const struct core_job *job, void *arg)
{
	char *s = arg;

	snprintf(s + strlen(s), 64, "%s%u", s[0] ? " " : "", job->id);
}

static const char *order(void)
{
	static char buf[256];

	buf[0] = '\0';
	core_pending_foreach(core, order_cb, buf);
	return buf;
}

/* ---- order ------------------------------------------------------------- */

/* Tier before priority, priority before submit time, then the id. */
START_TEST(test_order)
{
	uint32_t a, b, c, d;

	start("Priority=multifactor WeightAge=1000 MaxAge=1d\n");
	a = submit(T0, SUB(.queue = "low"));
	b = submit(T0 + DAY / 2, SUB(.queue = "high"));
	c = submit(T0 + DAY / 2, SUB(.queue = "high"));
	d = submit(T0 + DAY / 2, SUB(.queue = "low", .nice = 100));
	core_prio_update(core, T0 + DAY);
	/* a: age 1 day = 1000; b, c: 500; d: 500 - 100 */
	ck_assert_double_eq_tol(prio(a), 1000, 1e-9);
	ck_assert_double_eq_tol(prio(b), 500, 1e-9);
	ck_assert_double_eq_tol(prio(d), 400, 1e-9);
	ck_assert_str_eq(order(), "2 3 1 4");
	(void)c;
}
END_TEST

/* A new job is rated at submit and goes where its rating puts it. */
START_TEST(test_insert_at_submit)
{
	start("Priority=multifactor WeightAge=1000 MaxAge=1d\n");
	submit(T0, SUB(.nice = 50));
	submit(T0, SUB(.nice = 10));
	submit(T0, SUB());
	submit(T0, SUB(.nice = 10));
	ck_assert_str_eq(order(), "3 2 4 1");
}
END_TEST

/* ---- age -------------------------------------------------------------- */

/* GWDG: WeightAge 10000, MaxAge 5 days: age stops growing at 5 days. */
START_TEST(test_age_stops_at_max)
{
	uint32_t a;

	start("Priority=multifactor WeightAge=10000 MaxAge=5d\n");
	a = submit(T0, SUB());
	core_prio_update(core, T0 + DAY);
	ck_assert_double_eq_tol(prio(a), 2000, 1e-9);
	core_prio_update(core, T0 + 5 * DAY);
	ck_assert_double_eq_tol(prio(a), 10000, 1e-9);
	core_prio_update(core, T0 + 9 * DAY);
	ck_assert_double_eq_tol(prio(a), 10000, 1e-9);
}
END_TEST

/*
 * Held for two days after a day of waiting: as Slurm 22.05 does (it
 * clears a held job's accrue time; bench/oracle/FINDINGS-slurm.md), the
 * age is 0 while held and counts again from the release, the day before
 * the hold lost.  PBS's eligible_time (the formula plugin) resumes:
 * the day before the hold counts on (test_eligible_resumes_after_hold).
 */
START_TEST(test_age_restarts_after_hold)
{
	struct rota_error err = { "" };
	uint32_t a;

	start("Priority=multifactor WeightAge=10000 MaxAge=5d\n");
	a = submit(T0, SUB());
	ck_assert_int_eq(core_hold(core, T0 + DAY, a, ANA, false, false, &err),
			 0);
	core_prio_update(core, T0 + 3 * DAY);
	ck_assert_double_eq_tol(prio(a), 0, 1e-9);
	ck_assert_str_eq(core_job_reason(core, core_job_find(core, a)),
			 "JobHeldUser");
	ck_assert_int_eq(core_release(core, T0 + 3 * DAY, a, ANA, false, &err),
			 0);
	core_prio_update(core, T0 + 4 * DAY);
	ck_assert_double_eq_tol(prio(a), 2000, 1e-9);
	ck_assert_int_eq(core_job_eligible_time(core_job_find(core, a),
						T0 + 4 * DAY),
			 DAY);
}
END_TEST

/* PBS: eligible_time stops while held and resumes at the release. */
START_TEST(test_eligible_resumes_after_hold)
{
	struct rota_error err = { "" };
	uint32_t a;

	start("Priority=formula Formula=\"eligible_time\"\n");
	a = submit(T0, SUB());
	ck_assert_int_eq(core_hold(core, T0 + DAY, a, ANA, false, false, &err),
			 0);
	ck_assert_int_eq(core_release(core, T0 + 3 * DAY, a, ANA, false, &err),
			 0);
	core_prio_update(core, T0 + 4 * DAY);
	ck_assert_double_eq_tol(prio(a), 2 * DAY, 1e-9);
}
END_TEST

/* A held job is skipped: the one behind it may start. */
START_TEST(test_held_not_started)
{
	struct rota_error err = { "" };
	struct rota_node_info info = {
		.name = "n1", .state = "UP", .reason = "",
		.sockets = 1, .cores = 8, .pus = 8, .memory_mb = 16 * 1024,
	};
	uint32_t a, b;

	start("");
	ck_assert_int_eq(core_node_register(core, T0, &info, &err), 0);
	a = submit(T0, SUB());
	b = submit(T0, SUB());
	ck_assert_int_eq(core_hold(core, T0, a, OPERATOR, true, true, &err),
			 0);
	ck_assert_uint_eq(core_schedule(core, T0), 1);
	ck_assert_int_eq(core_job_find(core, a)->state, ROTA_JOB_PENDING);
	ck_assert_int_eq(core_job_find(core, b)->state, ROTA_JOB_RUNNING);
	ck_assert_str_eq(core_job_reason(core, core_job_find(core, a)),
			 "JobHeldAdmin");
}
END_TEST

static const struct {
	bool operator_hold;	/* who held it */
	uid_t releaser;
	int rc;
	const char *error;
} releases[] = {
	{ false, ANA, 0, "" },
	{ false, OPERATOR, 0, "" },
	{ false, 2002, -EPERM,
	  "job 1: permission denied: it belongs to ana" },
	{ true, ANA, -EPERM,
	  "job 1: held by an operator: only an operator may release it" },
	{ true, OPERATOR, 0, "" },
};

START_TEST(test_release_rights)
{
	struct rota_error err = { "" };
	uint32_t a;

	start("");
	a = submit(T0, SUB());
	ck_assert_int_eq(core_hold(core, T0, a, OPERATOR, true,
				   releases[_i].operator_hold, &err), 0);
	ck_assert_int_eq(core_release(core, T0, a, releases[_i].releaser,
				      releases[_i].releaser == OPERATOR, &err),
			 releases[_i].rc);
	ck_assert_str_eq(err.text, releases[_i].error);
}
END_TEST

START_TEST(test_hold_errors)
{
	struct rota_error err = { "" };
	uint32_t a;

	start("");
	a = submit(T0, SUB());
	ck_assert_int_eq(core_hold(core, T0, a, ANA, false, true, &err),
			 -EPERM);
	ck_assert_str_eq(err.text,
			 "job 1: only operators place an operator hold");
	ck_assert_int_eq(core_release(core, T0, a, ANA, false, &err), -EINVAL);
	ck_assert_str_eq(err.text, "job 1: not held");
	ck_assert_int_eq(core_hold(core, T0, 99, ANA, false, false, &err),
			 -ENOENT);
	ck_assert_str_eq(err.text, "job 99: not found");
}
END_TEST

/* ---- Flux's user factor and nice -------------------------------------- */

/* (urgency - 16) / 16 x WeightUser: 16 adds nothing, lower takes away. */
START_TEST(test_user_factor_lowers_only)
{
	struct rota_error err = { "" };
	uint32_t a, b, c, id;

	start("Priority=multifactor WeightUser=1600\n");
	a = submit(T0, SUB());
	b = submit(T0, SUB(.urgency = 8));
	ck_assert_double_eq_tol(prio(a), 0, 1e-9);
	ck_assert_double_eq_tol(prio(b), -800, 1e-9);
	ck_assert_int_eq(submit_rc(T0, SUB(.urgency = 17), &id, &err),
			 -EPERM);
	ck_assert_str_eq(err.text,
			 "--urgency=17: users may only lower it (at most 16)");
	c = submit(T0, &(struct sub){ .uid = OPERATOR, .urgency = 31 });
	ck_assert_double_eq_tol(prio(c), 1500, 1e-9);
}
END_TEST

/*
 * WeightTRES: the job's cores over its queue's (Slurm's partition's),
 * whether rated at submit or in a full rating.
 */
START_TEST(test_tres_weight)
{
	uint32_t a, b;

	start("Priority=multifactor WeightTRES=CPU=1000\n");
	a = submit(T0, SUB());
	ck_assert_double_eq_tol(prio(a), 125, 1e-9); /* 1 of n1's 8 */
	ck_assert_int_eq(core_prio_update(core, T0 + 1), 0);
	ck_assert_double_eq_tol(prio(a), 125, 1e-9);
	b = submit(T0, SUB(.queue = "high"));
	ck_assert_double_eq_tol(prio(b), 125, 1e-9);
}
END_TEST

START_TEST(test_nice)
{
	struct rota_error err = { "" };
	uint32_t a, id;

	start("Priority=multifactor WeightAge=1000\n");
	ck_assert_int_eq(submit_rc(T0, SUB(.nice = -5), &id, &err), -EPERM);
	ck_assert_str_eq(err.text, "--nice=-5: only operators may raise a "
				   "job's priority");
	a = submit(T0, &(struct sub){ .uid = OPERATOR, .nice = -5 });
	ck_assert_double_eq_tol(prio(a), 5, 1e-9);
}
END_TEST

/* ---- when ratings change ---------------------------------------------- */

/* core_tick re-rates every PriorityCalcPeriod, not before. */
START_TEST(test_calc_period)
{
	uint32_t a;

	start("Priority=multifactor WeightAge=86400 MaxAge=1d\n");
	a = submit(T0, SUB());
	core_tick(core, T0 + 1);	/* the first tick rates at once */
	core_tick(core, T0 + 100);
	ck_assert_double_eq_tol(prio(a), 1, 1e-9);
	core_tick(core, T0 + 301);
	ck_assert_double_eq_tol(prio(a), 301, 1e-9);
}
END_TEST

/* A plugin's NaN never reaches the order: the formula's division by 0. */
START_TEST(test_nan_is_zero)
{
	uint32_t a;

	start("Priority=formula Formula=\"1/nice\"\n");
	a = submit(T0, SUB());
	core_prio_update(core, T0 + 10);
	ck_assert(prio(a) == 0);
}
END_TEST

static Suite *prio_suite(void)
{
	Suite *s = suite_create("prio");
	TCase *tc = tcase_create("prio");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_order);
	tcase_add_test(tc, test_insert_at_submit);
	tcase_add_test(tc, test_age_stops_at_max);
	tcase_add_test(tc, test_age_restarts_after_hold);
	tcase_add_test(tc, test_eligible_resumes_after_hold);
	tcase_add_test(tc, test_held_not_started);
	tcase_add_loop_test(tc, test_release_rights, 0, N(releases));
	tcase_add_test(tc, test_hold_errors);
	tcase_add_test(tc, test_user_factor_lowers_only);
	tcase_add_test(tc, test_tres_weight);
	tcase_add_test(tc, test_nice);
	tcase_add_test(tc, test_calc_period);
	tcase_add_test(tc, test_nan_is_zero);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(prio_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
