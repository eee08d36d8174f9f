// SPDX-License-Identifier: MIT
/*
 * SchedulerHoldNodes: in the main pass, a job that does not fit keeps its
 * queue's nodes from every later job, whatever its queue, as Slurm's main
 * loop takes a blocked job's partition nodes out of the available ones
 * (bench/oracle/FINDINGS-slurm.md: the state Rota and a real Slurm 22.05
 * disagreed on).  Off, only the blocked job's own queue stops.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>

#include "common/conf.h"
#include "common/msg.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "testsuite/unit/ctld/fixture.h"

#define T0 ((int64_t)1700000000)

/* One 8-core node in two queues; the main pass alone. */
#define CONF(hold)                                                             \
	"NodeName=n1 CPUs=8 RealMemory=16G\n"                                 \
	"QueueName=express PriorityTier=2\n"                                  \
	"QueueName=batch Default=yes\n"                                       \
	"SchedulerHoldNodes=" hold "\n"

static struct core *core;
static struct rota_conf *conf;

static void teardown(void)
{
	fixture_stop(&core, &conf);
}

static uint32_t submit(const char *queue, uint32_t cores)
{
	struct rota_job_desc d = {
		.name = rota_xstrdup("job"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		.queue = rota_xstrdup(queue),
		.ntasks = cores,
		.cpus_per_task = 1,
		.time_limit = 600,
	};
	struct core_submit req = { .desc = &d, .uid = 1000, .gid = 1000,
				   .user = "ana" };
	struct rota_error err = { "" };
	uint32_t id = 0;

	ck_assert_msg(core_submit(core, T0, &req, &id, &err) == 0,
		      "submit: %s", err.text);
	rota_job_desc_clear(&d);
	return id;
}

static enum rota_job_state state(uint32_t id)
{
	return core_job_find(core, id)->state;
}

/*
 * A batch job takes 6 of n1's 8 cores; an express job of 4 (the higher
 * tier, first in order) cannot start; a later 2-core batch job would fit
 * in the 2 left.  Returns that job's state after a pass: held, it waits,
 * n1 kept for the express job, as Slurm keeps it; not held, it starts
 * there, in the express job's way.
 */
static uint32_t blocked_then_small(const char *text)
{
	uint32_t x, small;

	fixture_start(text, T0, &core, &conf);
	submit("batch", 6);
	fixture_pass(core, T0);
	x = submit("express", 4);
	small = submit("batch", 2);
	fixture_pass(core, T0 + 1);
	ck_assert_int_eq(state(x), ROTA_JOB_PENDING);
	return small;
}

START_TEST(test_hold_nodes)
{
	uint32_t small = blocked_then_small(CONF("yes"));

	ck_assert_int_eq(state(small), ROTA_JOB_PENDING);
	ck_assert_str_eq(core_job_reason(core, core_job_find(core, small)),
			 "Resources");
}
END_TEST

START_TEST(test_no_hold_by_default)
{
	ck_assert_int_eq(state(blocked_then_small(CONF("no"))),
			 ROTA_JOB_RUNNING);
}
END_TEST

static Suite *hold_suite(void)
{
	Suite *s = suite_create("holdnodes");
	TCase *tc = tcase_create("main pass");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_hold_nodes);
	tcase_add_test(tc, test_no_hold_by_default);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(hold_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
