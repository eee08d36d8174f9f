// SPDX-License-Identifier: MIT
/*
 * Job arrays in the core (ctld/core/array.c): one record while pending,
 * tasks split off lowest first as a pass starts them, the last task is
 * the record itself, the throttle, tasks named alone, refusals.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/msg.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "testsuite/unit/ctld/fixture.h"

#define ANA 1001

static const char conf_text[] =
	"MaxArraySize=100001\n"
	"NodeName=n[1-2] CPUs=4 RealMemory=4G\n"
	"QueueName=batch Nodes=ALL Default=yes\n";

static struct core *core;
static struct rota_conf *conf;

static void setup(void)
{
	fixture_start(conf_text, 1000, &core, &conf);
}

static void teardown(void)
{
	fixture_stop(&core, &conf);
}

static int submit_dep_rc(const char *array, const char *dep, uint32_t *id,
			 struct rota_error *err)
{
	struct rota_job_desc d = {
		.dependency = dep ? rota_xstrdup(dep) : NULL,
		.name = rota_xstrdup("sweep"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		.array = array ? rota_xstrdup(array) : NULL,
		.ntasks = 1,
		.cpus_per_task = 1,
		.time_limit = 600,
	};
	struct core_submit req = { .desc = &d, .uid = ANA, .gid = ANA,
				   .user = "ana" };
	int rc = core_submit(core, 1000, &req, id, err);

	rota_job_desc_clear(&d);
	return rc;
}

static int submit_rc(const char *array, uint32_t *id, struct rota_error *err)
{
	return submit_dep_rc(array, NULL, id, err);
}

static uint32_t submit_dep(const char *array, const char *dep)
{
	struct rota_error err = { "" };
	uint32_t id = 0;

	ck_assert_msg(submit_dep_rc(array, dep, &id, &err) == 0,
		      "submit: %s", err.text);
	return id;
}

static uint32_t submit(const char *array)
{
	return submit_dep(array, NULL);
}

static const struct core_job *job(uint32_t id)
{
	const struct core_job *j = core_job_find(core, id);

	ck_assert_msg(j, "no job %u", id);
	return j;
}

/* Running job 'id' ended at 'now' with 'exit_code'. */
static void end(int64_t now, uint32_t id, int exit_code)
{
	const struct core_job *j = job(id);
	struct rota_msg_job_end e = {
		.job_id = id,
		.run = j->run,
		.state = exit_code ? ROTA_JOB_FAILED : ROTA_JOB_COMPLETED,
		.exit_code = exit_code,
	};
	struct rota_error err = { "" };
	const char *node = core_node_get(core, j->alloc[0].node)->name;

	ck_assert_int_eq(core_job_end(core, now, node, &e, &err), 0);
}

/* How the rest or task is named ("12_[3-9]", "12_7"); NULL-safe. */
static void check_name(uint32_t id, const char *want)
{
	char *name = core_job_array_name(job(id));

	ck_assert_str_eq(name, want);
	free(name);
}

START_TEST(split_as_they_start)
{
	uint32_t a = submit("1-10");

	check_name(a, "1_[1-10]");
	ck_assert_uint_eq(core_pending_count(core), 1);
	/* 8 cores: 8 tasks split off and start in one pass */
	ck_assert_uint_eq(core_schedule(core, 1001), 8);
	check_name(a, "1_[9-10]");
	ck_assert_uint_eq(core_pending_count(core), 1);
	for (uint32_t id = 2; id <= 9; id++) {
		ck_assert_uint_eq(job(id)->array_id, a);
		ck_assert_uint_eq(job(id)->array_task, id - 1);
		ck_assert_int_eq(job(id)->state, ROTA_JOB_RUNNING);
		ck_assert_uint_eq(job(id)->shape.count, 10);
	}
	fixture_end_job(core, 1002, 2);
	fixture_end_job(core, 1002, 3);
	fixture_drop_actions(core);
	ck_assert_uint_eq(core_schedule(core, 1003), 2);
	/* task 9 split off; task 10, the last, is the record itself */
	check_name(10, "1_9");
	check_name(a, "1_10");
	ck_assert_int_eq(job(a)->state, ROTA_JOB_RUNNING);
	ck_assert_ptr_null(job(a)->array);
	ck_assert_uint_eq(core_pending_count(core), 0);
}
END_TEST

START_TEST(throttle)
{
	uint32_t a = submit("0-99%3");

	ck_assert_uint_eq(core_schedule(core, 1001), 3);
	ck_assert_str_eq(core_job_reason(core, job(a)), "JobArrayTaskLimit");
	ck_assert_uint_eq(job(a)->array->running, 3);
	fixture_drop_actions(core);
	fixture_end_job(core, 1002, a + 1);
	ck_assert_uint_eq(job(a)->array->running, 2);
	ck_assert_uint_eq(core_schedule(core, 1003), 1);
	check_name(a, "1_[4-99%3]");
}
END_TEST

START_TEST(pass_over_a_big_rest)
{
	uint32_t blocker = submit("0"), a;
	struct rota_error err;
	uint32_t *ids;
	size_t n;

	(void)blocker;
	a = submit("1-100000");
	/* every core busy: the rest is tried once and waits, one record */
	ck_assert_uint_eq(core_schedule(core, 1001), 8);
	ck_assert_uint_eq(core_schedule(core, 1002), 0);
	ck_assert_uint_eq(core_pending_count(core), 1);
	ck_assert_uint_eq(job(a)->array->tasks.count, 100000 - 7);
	/* tasks named alone split off the rest */
	n = core_array_select(core, 1002, a, "500-502", false, &ids, &err);
	ck_assert_str_eq(err.text, "");
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(job(ids[0])->array_task, 500);
	ck_assert_int_eq(job(ids[2])->state, ROTA_JOB_PENDING);
	ck_assert(!rota_taskset_has(&job(a)->array->tasks, 501));
	/* split off, each is journaled with the smaller rest */
	{
		uint32_t *dirty;
		size_t nd = core_take_dirty(core, &dirty), seen = 0;

		for (size_t i = 0; i < nd; i++)
			seen += dirty[i] == ids[0] || dirty[i] == ids[1] ||
				dirty[i] == ids[2] || dirty[i] == a;
		ck_assert_uint_eq(seen, 4);
		free(dirty);
	}
	free(ids);
	n = core_array_select(core, 1002, a, "1,100001", false, &ids, &err);
	ck_assert_uint_eq(n, 1); /* task 1 runs */
	ck_assert_str_eq(err.text,
			 "job 2_[100001]: no such task pending or running");
	free(ids);
	n = core_array_select(core, 1002, a, NULL, false, &ids, &err);
	ck_assert_uint_eq(n, 4); /* the rest and the three split off */
	free(ids);
	n = core_array_select(core, 1002, a, NULL, true, &ids, &err);
	ck_assert_uint_eq(n, 4 + 7); /* and its running tasks */
	free(ids);
}
END_TEST

START_TEST(refused)
{
	struct rota_error err = { "" };
	uint32_t id = 0;

	ck_assert_int_eq(submit_rc("0-100001", &id, &err), -EINVAL);
	ck_assert_str_eq(err.text, "--array=0-100001: task id 100001: "
				   "MaxArraySize is 100001 (ids 0 to 100000)");
	ck_assert_uint_eq(id, 0);
	ck_assert_int_eq(submit_rc("1-5%0", &id, &err), -EINVAL);
	ck_assert_uint_eq(core_job_count(core), 0);
}
END_TEST

/* afterok on an array's id: all of its tasks, counted, not walked. */
START_TEST(after_a_whole_array)
{
	uint32_t a = submit("1-3"), ok, notok, any;

	ok = submit_dep(NULL, "afterok:1");
	notok = submit_dep(NULL, "afternotok:1");
	any = submit_dep(NULL, "afterany:1");
	ck_assert_uint_eq(core_schedule(core, 1001), 3);
	ck_assert_str_eq(core_job_reason(core, job(ok)), "Dependency");
	fixture_drop_actions(core);
	end(1002, 5, 0); /* task 1 */
	end(1002, 6, 0); /* task 2 */
	ck_assert_str_eq(core_job_reason(core, job(ok)), "Dependency");
	end(1003, a, 1); /* task 3, the record itself: failed */
	ck_assert_str_eq(core_job_reason(core, job(ok)),
			 "DependencyNeverSatisfied");
	ck_assert(!job(notok)->dep_wait);
	ck_assert(!job(any)->dep_wait);
}
END_TEST

/* aftercorr: task i of b after task i of a, one by one. */
START_TEST(aftercorr)
{
	uint32_t a = submit("1-2"), b = submit_dep("1-2", "aftercorr:1");

	ck_assert_uint_eq(a, 1);
	/* a's two tasks start; b's rest waits for a's task 1 */
	ck_assert_uint_eq(core_schedule(core, 1001), 2);
	ck_assert_str_eq(core_job_reason(core, job(b)), "Dependency");
	fixture_drop_actions(core);
	end(1002, 3, 0); /* a_1 */
	ck_assert(!job(b)->dep_wait);
	/* b_1 starts; b_2 waits for a_2 */
	ck_assert_uint_eq(core_schedule(core, 1003), 1);
	ck_assert_uint_eq(job(4)->array_task, 1);
	ck_assert_str_eq(core_job_reason(core, job(b)), "Dependency");
	end(1004, a, 0); /* a_2 */
	ck_assert_uint_eq(core_schedule(core, 1005), 1);
	ck_assert_int_eq(job(b)->state, ROTA_JOB_RUNNING);
	ck_assert_uint_eq(job(b)->array_task, 2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("array");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, split_as_they_start);
	tcase_add_test(tc, throttle);
	tcase_add_test(tc, pass_over_a_big_rest);
	tcase_add_test(tc, refused);
	tcase_add_test(tc, after_a_whole_array);
	tcase_add_test(tc, aftercorr);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
