// SPDX-License-Identifier: MIT
/*
 * Job dependencies through core.h (ctld/core/depend.c): each type with
 * its target completing, failing, cancelled, timed out; '?'; after+MIN
 * with the clock moved; singleton; a dependency never satisfied, and
 * --kill-on-invalid-dep; refusals (unknown id, bad text, a cycle); an
 * update; a journal's restore.  Time moves by passing a larger 'now'.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/msg.h"
#include "ctld/core/core.h"

static const char conf_text[] =
	"NodeTimeout=1d\n"
	"HeartbeatInterval=10s\n"
	"MinJobAge=100s\n"
	"NodeName=n1 CPUs=8 RealMemory=16G\n"
	"QueueName=batch Nodes=ALL Default=yes MaxTime=1-00:00:00 "
	"DefaultTime=1:00:00\n"
	"QueueName=high Nodes=ALL PriorityTier=10\n";

static struct core *core;

static struct core *new_core(void)
{
	struct rota_conf *conf = NULL;
	struct rota_error err = { "" };
	struct core *c = NULL;
	int rc = rota_conf_load_buffer("test.conf", conf_text,
				       strlen(conf_text), &conf, &err);

	ck_assert_msg(rc == 0, "config: %s", err.text);
	rc = core_create(conf, &c, &err);
	ck_assert_msg(rc == 0, "core: %s", err.text);
	rota_conf_destroy(conf);
	return c;
}

static void node_up(int64_t now)
{
	struct rota_error err = { "" };
	struct rota_node_info info = {
		.name = "n1", .state = "UP", .reason = "", .sockets = 1,
		.cores = 8, .pus = 8, .memory_mb = 16 * 1024,
	};

	ck_assert_int_eq(core_node_register(core, now, &info, &err), 0);
}

static void setup(void)
{
	core = new_core();
	node_up(0);
}

static void teardown(void)
{
	core_destroy(core);
	core = NULL;
}

static void desc_fill(struct rota_job_desc *d, const char *name,
		      const char *dep, bool kill)
{
	*d = (struct rota_job_desc){
		.name = strdup(name),
		.script = strdup("#!/bin/sh\ntrue\n"),
		.workdir = strdup("/tmp"),
		.ntasks = 1,
		.cpus_per_task = 1,
		.dependency = dep ? strdup(dep) : NULL,
		.kill_on_invalid_dep = kill,
	};
}

static int submit_rc(int64_t now, const char *name, const char *dep,
		     bool kill, uint32_t *id, struct rota_error *err)
{
	struct rota_job_desc d;
	struct core_submit s = { .desc = &d, .uid = 1000, .gid = 1000,
				 .user = "ana" };
	int rc;

	desc_fill(&d, name, dep, kill);
	rc = core_submit(core, now, &s, id, err);
	rota_job_desc_clear(&d);
	return rc;
}

static uint32_t submit_k(int64_t now, const char *dep, bool kill)
{
	struct rota_error err = { "" };
	uint32_t id = 0;
	int rc = submit_rc(now, "job", dep, kill, &id, &err);

	ck_assert_msg(rc == 0, "submit '%s': %s", dep ? dep : "", err.text);
	return id;
}

static uint32_t submit(int64_t now, const char *dep)
{
	return submit_k(now, dep, false);
}

static const struct core_job *job(uint32_t id)
{
	const struct core_job *j = core_job_find(core, id);

	ck_assert_msg(j, "job %u: not found", id);
	return j;
}

static const char *reason(uint32_t id)
{
	const char *r = core_job_reason(core, job(id));

	return r ? r : "";
}

static enum rota_job_state state(uint32_t id)
{
	return job(id)->state;
}

/* The dependency as rota show job gives it. */
static void check_dep(uint32_t id, const char *want)
{
	char *got = core_job_dependency(job(id));

	ck_assert_str_eq(got, want);
	free(got);
}

static void end(int64_t now, uint32_t id, enum rota_job_state st, int code)
{
	struct rota_error err = { "" };
	const struct core_job *j = job(id);
	struct rota_msg_job_end e = {
		.job_id = id, .run = j->run, .state = st, .exit_code = code,
	};

	ck_assert_int_eq(state(id), ROTA_JOB_RUNNING);
	ck_assert_msg(core_job_end(core, now, "n1", &e, &err) == 0, "%s",
		      err.text);
}

static void cancel(int64_t now, uint32_t id)
{
	struct rota_error err = { "" };

	ck_assert_int_eq(core_cancel(core, now, id, 0, true, &err), 0);
}

static void hold(int64_t now, uint32_t id)
{
	struct rota_error err = { "" };

	ck_assert_int_eq(core_hold(core, now, id, 0, true, false, &err), 0);
}

/* ---- each type, each way its target ends ---------------------------------- */

static const struct {
	const char *type;
	enum rota_job_state st;	/* how the target ends; PENDING: cancelled
				   before it started */
	int code;
	bool met;		/* else DependencyNeverSatisfied */
} ends[] = {
	{ "afterok", ROTA_JOB_COMPLETED, 0, true },
	{ "afterok", ROTA_JOB_FAILED, 1, false },
	{ "afterok", ROTA_JOB_TIMEOUT, -1, false },
	{ "afterok", ROTA_JOB_CANCELLED, -1, false },
	{ "afterok", ROTA_JOB_PENDING, -1, false },
	{ "afterok", ROTA_JOB_OUT_OF_MEMORY, -1, false },
	{ "aftercorr", ROTA_JOB_COMPLETED, 0, true },
	{ "aftercorr", ROTA_JOB_FAILED, 3, false },
	{ "afterany", ROTA_JOB_COMPLETED, 0, true },
	{ "afterany", ROTA_JOB_FAILED, 1, true },
	{ "afterany", ROTA_JOB_TIMEOUT, -1, true },
	{ "afterany", ROTA_JOB_PENDING, -1, true },
	{ "afternotok", ROTA_JOB_COMPLETED, 0, false },
	{ "afternotok", ROTA_JOB_FAILED, 1, true },
	{ "afternotok", ROTA_JOB_TIMEOUT, -1, true },
	{ "afternotok", ROTA_JOB_CANCELLED, -1, true },
	{ "afternotok", ROTA_JOB_PENDING, -1, true },
	{ "afternotok", ROTA_JOB_OUT_OF_MEMORY, -1, true },
	{ "after", ROTA_JOB_PENDING, -1, true },
};

START_TEST(test_ends)
{
	char text[64];
	uint32_t a, b;

	a = submit(10, NULL);
	hold(10, a); /* so that it starts only when the test says */
	snprintf(text, sizeof(text), "%s:%u", ends[_i].type, a);
	b = submit(20, text);
	ck_assert(job(b)->dep_wait);
	ck_assert_str_eq(reason(b), "Dependency");
	{
		char want[80];

		snprintf(want, sizeof(want), "%s(unfulfilled)", text);
		check_dep(b, want);
	}
	core_schedule(core, 30);
	ck_assert_int_eq(state(b), ROTA_JOB_PENDING);
	if (ends[_i].st == ROTA_JOB_PENDING) {
		cancel(40, a);
	} else {
		struct rota_error err = { "" };

		ck_assert_int_eq(core_release(core, 30, a, 0, true, &err), 0);
		ck_assert_uint_eq(core_schedule(core, 30), 1);
		ck_assert_int_eq(state(a), ROTA_JOB_RUNNING);
		ck_assert_int_eq(state(b), ROTA_JOB_PENDING);
		end(40, a, ends[_i].st, ends[_i].code);
	}
	if (ends[_i].met) {
		ck_assert(!job(b)->dep_wait);
		check_dep(b, "");
		ck_assert_ptr_null(job(b)->desc.dependency);
		ck_assert_uint_eq(core_schedule(core, 50), 1);
		ck_assert_int_eq(state(b), ROTA_JOB_RUNNING);
	} else {
		char want[80];

		ck_assert_str_eq(reason(b), "DependencyNeverSatisfied");
		snprintf(want, sizeof(want), "%s(failed)", text);
		check_dep(b, want);
		ck_assert_uint_eq(core_schedule(core, 50), 0);
		ck_assert_int_eq(state(b), ROTA_JOB_PENDING);
	}
}
END_TEST

/* Waiting on a dependency, like a hold, stops the eligible time. */
START_TEST(test_eligible_time)
{
	uint32_t a = submit(0, NULL), b;

	ck_assert_uint_eq(core_schedule(core, 0), 1);
	b = submit(100, "afterany:1");
	ck_assert_int_eq(core_job_eligible_time(job(b), 500), 0);
	end(500, a, ROTA_JOB_COMPLETED, 0);
	ck_assert_int_eq(core_job_eligible_time(job(b), 800), 300);
}
END_TEST

/* after: the start; after+MIN: MIN minutes past it, by the clock. */
START_TEST(test_after_minutes)
{
	uint32_t a = submit(0, NULL), b, c;

	hold(0, a);
	b = submit(0, "after:1");
	c = submit(0, "after:1+10");
	{
		struct rota_error err = { "" };

		ck_assert_int_eq(core_release(core, 100, a, 0, true, &err), 0);
	}
	core_schedule(core, 100);
	ck_assert_int_eq(state(a), ROTA_JOB_RUNNING);
	ck_assert(!job(b)->dep_wait);
	ck_assert(job(c)->dep_wait);
	core_tick(core, 699);
	ck_assert(job(c)->dep_wait);
	check_dep(c, "after:1+10(unfulfilled)");
	core_tick(core, 700);
	ck_assert(!job(c)->dep_wait);
	ck_assert_ptr_null(job(c)->desc.dependency);
}
END_TEST

/* after+MIN on a job cancelled before it started: MIN after the cancel. */
START_TEST(test_after_cancelled)
{
	uint32_t a = submit(0, NULL), b;

	hold(0, a);
	b = submit(0, "after:1+5");
	cancel(40, a);
	ck_assert(job(b)->dep_wait);
	core_tick(core, 339);
	ck_assert(job(b)->dep_wait);
	core_tick(core, 340);
	ck_assert(!job(b)->dep_wait);
}
END_TEST

/* '?': one met part suffices; all failed: never. */
START_TEST(test_any)
{
	uint32_t a = submit(0, NULL), b = submit(0, NULL), c;
	char text[64];

	ck_assert_uint_eq(core_schedule(core, 0), 2);
	snprintf(text, sizeof(text), "afterok:%u?afterok:%u", a, b);
	c = submit(1, text);
	end(10, a, ROTA_JOB_FAILED, 1);
	ck_assert_str_eq(reason(c), "Dependency");
	check_dep(c, "afterok:1(failed)?afterok:2(unfulfilled)");
	end(20, b, ROTA_JOB_COMPLETED, 0);
	ck_assert(!job(c)->dep_wait);
	check_dep(c, "");
}
END_TEST

START_TEST(test_any_never)
{
	uint32_t a = submit(0, NULL), b = submit(0, NULL), c;

	ck_assert_uint_eq(core_schedule(core, 0), 2);
	c = submit(1, "afterok:1?afterok:2");
	end(10, a, ROTA_JOB_FAILED, 1);
	end(20, b, ROTA_JOB_FAILED, 1);
	ck_assert_str_eq(reason(c), "DependencyNeverSatisfied");
}
END_TEST

/* ',': met parts are dropped (and from the text the journal keeps). */
START_TEST(test_all_partial)
{
	uint32_t a = submit(0, NULL), b = submit(0, NULL), c;

	ck_assert_uint_eq(core_schedule(core, 0), 2);
	c = submit(1, "afterok:1:2");
	end(10, a, ROTA_JOB_COMPLETED, 0);
	ck_assert(job(c)->dep_wait);
	check_dep(c, "afterok:2(unfulfilled)");
	ck_assert_str_eq(job(c)->desc.dependency, "afterok:2");
	end(20, b, ROTA_JOB_COMPLETED, 0);
	ck_assert(!job(c)->dep_wait);
}
END_TEST

/* A target already over at submit: decided at once. */
START_TEST(test_target_done)
{
	uint32_t a = submit(0, NULL), b, c;

	ck_assert_uint_eq(core_schedule(core, 0), 1);
	end(10, a, ROTA_JOB_COMPLETED, 0);
	b = submit(20, "afterok:1");
	ck_assert(!job(b)->dep_wait);
	ck_assert_ptr_null(job(b)->desc.dependency);
	c = submit(20, "afternotok:1");
	ck_assert_str_eq(reason(c), "DependencyNeverSatisfied");
}
END_TEST

/* One running job of a name and user at a time, oldest first. */
START_TEST(test_singleton)
{
	struct rota_error err = { "" };
	uint32_t x, y, z, other;

	ck_assert_int_eq(submit_rc(0, "s", NULL, false, &x, &err), 0);
	ck_assert_uint_eq(core_schedule(core, 0), 1);
	ck_assert_int_eq(submit_rc(1, "s", "singleton", false, &y, &err), 0);
	ck_assert_int_eq(submit_rc(2, "s", "singleton", false, &z, &err), 0);
	ck_assert_int_eq(submit_rc(3, "t", "singleton", false, &other, &err),
			 0);
	ck_assert_str_eq(reason(y), "Dependency");
	ck_assert_str_eq(reason(z), "Dependency");
	check_dep(y, "singleton(unfulfilled)");
	ck_assert(!job(other)->dep_wait); /* another name */
	ck_assert_uint_eq(core_schedule(core, 5), 1);
	ck_assert_int_eq(state(other), ROTA_JOB_RUNNING);
	end(10, x, ROTA_JOB_COMPLETED, 0);
	ck_assert(!job(y)->dep_wait);
	check_dep(y, "");
	ck_assert(job(z)->dep_wait); /* y, older, waits still */
	/* one of the name, not singleton, ahead of y: it starts, y waits */
	{
		uint32_t w;
		struct core_update u = { .queue = "high" };

		ck_assert_int_eq(submit_rc(10, "s", NULL, false, &w, &err), 0);
		ck_assert_int_eq(core_update(core, 10, w, 1000, false, &u,
					     &err), 0);
		ck_assert_uint_eq(core_schedule(core, 10), 1);
		ck_assert_int_eq(state(w), ROTA_JOB_RUNNING);
		ck_assert_int_eq(state(y), ROTA_JOB_PENDING);
		ck_assert_str_eq(reason(y), "Dependency");
		end(11, w, ROTA_JOB_COMPLETED, 0);
	}
	ck_assert_uint_eq(core_schedule(core, 11), 1);
	ck_assert_int_eq(state(y), ROTA_JOB_RUNNING);
	ck_assert(job(z)->dep_wait);
	end(20, y, ROTA_JOB_FAILED, 1);
	ck_assert(!job(z)->dep_wait);
	ck_assert_uint_eq(core_schedule(core, 21), 1);
	ck_assert_int_eq(state(z), ROTA_JOB_RUNNING);
}
END_TEST

/* --kill-on-invalid-dep=yes: cancelled, and so are those after it. */
START_TEST(test_kill_on_invalid)
{
	uint32_t a = submit(0, NULL), b, c, d;

	ck_assert_uint_eq(core_schedule(core, 0), 1);
	b = submit_k(1, "afterok:1", true);
	c = submit_k(1, "afterok:2", true);
	d = submit(1, "afterok:3"); /* not killed: waits, never satisfied */
	end(10, a, ROTA_JOB_FAILED, 1);
	ck_assert_int_eq(state(b), ROTA_JOB_CANCELLED);
	ck_assert_str_eq(reason(b), "DependencyNeverSatisfied");
	ck_assert_int_eq(state(c), ROTA_JOB_CANCELLED);
	ck_assert_int_eq(state(d), ROTA_JOB_PENDING);
	ck_assert_str_eq(reason(d), "DependencyNeverSatisfied");
	/* and at submit, a target already failed */
	ck_assert_int_eq(state(submit_k(20, "afterok:1", true)),
			 ROTA_JOB_CANCELLED);
}
END_TEST

/* ---- refusals: nothing queued, one line -------------------------------- */

static const struct {
	const char *dep;
	int rc;
	const char *text;
} refused[] = {
	{ "afterok:99", -ENOENT, "dependency: job 99 not found" },
	{ "afterok:1:99", -ENOENT, "dependency: job 99 not found" },
	{ "afterfoo:1", -EINVAL,
	  "dependency: unknown type 'afterfoo' (after, afterany, afterok, "
	  "afternotok, aftercorr, singleton)" },
	{ "afterok:1,afterany:1?after:1",
	  -EINVAL, "dependency 'afterok:1,afterany:1?after:1': ',' (all) "
		   "and '?' (any) cannot be mixed" },
};

START_TEST(test_refused)
{
	struct rota_error err = { "" };
	uint32_t id = 7;

	submit(0, NULL);
	ck_assert_int_eq(submit_rc(1, "job", refused[_i].dep, false, &id,
				   &err),
			 refused[_i].rc);
	ck_assert_str_eq(err.text, refused[_i].text);
	ck_assert_uint_eq(id, 0);
	ck_assert_uint_eq(core_job_count(core), 1);
}
END_TEST

static int update_dep(int64_t now, uint32_t id, const char *dep,
		      struct rota_error *err)
{
	struct core_update u = { .dependency = dep };

	return core_update(core, now, id, 1000, false, &u, err);
}

/* An update sets, replaces or clears it; a cycle is refused. */
START_TEST(test_update)
{
	struct rota_error err = { "" };
	uint32_t a = submit(0, NULL), b, c;

	hold(0, a);
	b = submit(0, "afterok:1");
	c = submit(0, "afterany:2");
	ck_assert_int_eq(update_dep(1, a, "afterok:3", &err), -EINVAL);
	ck_assert_str_eq(err.text, "job 1: dependency: job 1 would wait for "
				   "itself (a cycle)");
	ck_assert_int_eq(update_dep(1, a, "after:1", &err), -EINVAL);
	ck_assert_str_eq(err.text, "job 1: dependency: job 1 would wait for "
				   "itself (a cycle)");
	ck_assert_int_eq(update_dep(1, b, "afterok:42", &err), -ENOENT);
	ck_assert_str_eq(err.text, "job 2: dependency: job 42 not found");
	ck_assert_ptr_null(job(a)->deps);
	check_dep(b, "afterok:1(unfulfilled)");
	/* cleared: b may run */
	ck_assert_int_eq(update_dep(2, b, "", &err), 0);
	ck_assert(!job(b)->dep_wait);
	ck_assert_ptr_null(job(b)->desc.dependency);
	/* set on a free job: c now waits on a too */
	ck_assert_int_eq(update_dep(3, c, "afterok:1", &err), 0);
	ck_assert_str_eq(reason(c), "Dependency");
	ck_assert_str_eq(job(c)->desc.dependency, "afterok:1");
	ck_assert_uint_eq(core_schedule(core, 4), 1);
	ck_assert_int_eq(state(b), ROTA_JOB_RUNNING);
	/* not while running */
	ck_assert_int_eq(update_dep(5, b, "afterok:1", &err), -EINVAL);
}
END_TEST

/* ---- a journal's restore -------------------------------------------------- */

/* A record as the journal keeps one; 'dep' in its desc. */
static void restore(struct core *c, uint32_t id, enum rota_job_state st,
		    int code, const char *dep)
{
	struct rota_error err = { "" };
	struct core_job_state s = {
		.id = id, .state = st, .uid = 1000, .gid = 1000,
		.user = "ana", .queue = "batch", .time_limit = 3600,
		.submit_time = 1, .exit_code = code,
		.start_time = st == ROTA_JOB_PENDING ? 0 : 2,
		.end_time = st == ROTA_JOB_PENDING ? 0 : 3,
		.run = st == ROTA_JOB_PENDING ? 0 : 1,
		.eligible_since = 1,
	};

	desc_fill(&s.desc, "job", dep, false);
	ck_assert_msg(core_restore_job(c, 5, &s, &err) == 0, "%s", err.text);
	rota_job_desc_clear(&s.desc);
}

START_TEST(test_restore)
{
	core_destroy(core);
	core = new_core();
	/* dependents first: the journal's order is not the ids' */
	restore(core, 3, ROTA_JOB_PENDING, -1, "afterok:1");
	restore(core, 4, ROTA_JOB_PENDING, -1, "afterany:2,afterok:9");
	restore(core, 5, ROTA_JOB_PENDING, -1, "afterok:2");
	restore(core, 1, ROTA_JOB_PENDING, -1, NULL);
	restore(core, 2, ROTA_JOB_COMPLETED, 0, NULL);
	core_restore_finish(core);
	ck_assert_str_eq(reason(3), "Dependency");
	core_tick(core, 10);
	node_up(10);
	ck_assert_str_eq(reason(3), "Dependency");
	/* job 9 is gone: not met before, never now */
	ck_assert_str_eq(reason(4), "DependencyNeverSatisfied");
	check_dep(4, "afterok:9(failed)");
	ck_assert(!job(5)->dep_wait);
	ck_assert_uint_eq(core_schedule(core, 11), 2);
	ck_assert_int_eq(state(1), ROTA_JOB_RUNNING);
	end(20, 1, ROTA_JOB_COMPLETED, 0);
	ck_assert(!job(3)->dep_wait);
	ck_assert_int_eq(core_schedule(core, 21), 1);
	ck_assert_int_eq(state(3), ROTA_JOB_RUNNING);
}
END_TEST

/* rota why's facts: the part waited for, its job and that job's state. */
START_TEST(test_why)
{
	struct rota_error err = { "" };
	struct core_why w;
	uint32_t a = submit(0, NULL), b, c;

	ck_assert_uint_eq(core_schedule(core, 0), 1);
	b = submit(1, "afterok:1");
	ck_assert_int_eq(core_why(core, 2, b, 0, true, &w, &err), 0);
	ck_assert_int_eq(w.dep.type, ROTA_DEPEND_AFTEROK);
	ck_assert_uint_eq(w.dep.job_id, a);
	ck_assert_ptr_eq(w.dep.target, job(a));
	ck_assert_int_eq(w.dep.target->state, ROTA_JOB_RUNNING);
	c = submit(1, "singleton");
	ck_assert_int_eq(core_why(core, 2, c, 0, true, &w, &err), 0);
	/* a and b, of the same name and user, run and wait before it */
	ck_assert_int_eq(w.dep.type, ROTA_DEPEND_SINGLETON);
	ck_assert_uint_eq(w.dep.job_id, 0);
	ck_assert_ptr_null(w.dep.target);
	ck_assert_int_eq(core_why(core, 2, a, 0, true, &w, &err), 0);
	ck_assert_int_eq(w.dep.type, ROTA_DEPEND_NONE);
}
END_TEST

static Suite *depend_suite(void)
{
	Suite *s = suite_create("depend");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_ends, 0, sizeof(ends) / sizeof(*ends));
	tcase_add_test(tc, test_eligible_time);
	tcase_add_test(tc, test_after_minutes);
	tcase_add_test(tc, test_after_cancelled);
	tcase_add_test(tc, test_any);
	tcase_add_test(tc, test_any_never);
	tcase_add_test(tc, test_all_partial);
	tcase_add_test(tc, test_target_done);
	tcase_add_test(tc, test_singleton);
	tcase_add_test(tc, test_kill_on_invalid);
	tcase_add_loop_test(tc, test_refused, 0,
			    sizeof(refused) / sizeof(*refused));
	tcase_add_test(tc, test_update);
	tcase_add_test(tc, test_restore);
	tcase_add_test(tc, test_why);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(depend_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}
