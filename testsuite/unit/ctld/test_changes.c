// SPDX-License-Identifier: MIT
/*
 * rota top's change index (ctld/core/changes.c, shown.c), through
 * core.h: a submit, a hold and a cancel number exactly their jobs; a
 * purge lists the job as gone; a rating, a pass or a sweep that shows
 * nothing new numbers nothing; a delta from before the start, from the future,
 * or from before a forgotten gone job cannot be told (-ESTALE).
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/msg.h"
#include "ctld/core/core.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define T0   1700000000
#define BASE 5000

static const char conf_text[] = "MinJobAge=100s\n"
				"NodeName=n[1-2] CPUs=8 RealMemory=16G\n"
				"QueueName=batch Nodes=ALL Default=yes\n";

static struct core *core;

static void setup(void)
{
	struct rota_conf *conf = NULL;
	struct rota_error err = { { 0 } };
	int rc = rota_conf_load_buffer("test.conf", conf_text,
				       strlen(conf_text), &conf, &err);

	ck_assert_msg(rc == 0, "config: %s", err.text);
	rc = core_create(conf, &core, &err);
	ck_assert_msg(rc == 0, "core: %s", err.text);
	rota_conf_destroy(conf);
	core_changes_start(core, BASE);
}

static void teardown(void)
{
	core_destroy(core);
	core = NULL;
}

static uint32_t submit(int64_t now)
{
	struct rota_job_desc d = {
		.name = strdup("job"),
		.script = strdup("#!/bin/sh\ntrue\n"),
		.workdir = strdup("/tmp"),
		.ntasks = 1,
		.cpus_per_task = 1,
	};
	struct core_submit s = {
		.desc = &d, .uid = 1000, .gid = 1000, .user = "ana"
	};
	struct rota_error err;
	uint32_t id = 0;
	int rc = core_submit(core, now, &s, &id, &err);

	ck_assert_msg(rc == 0, "submit: %s", err.text);
	return id;
}

/* The delta since 'since', settled first, must be 'ids' and 'gone'. */
static void expect(int64_t since, const uint32_t *ids, size_t n,
		   const uint32_t *gone, size_t ngone)
{
	struct core_delta d;

	core_changes_settle(core);
	ck_assert_int_eq(core_changes_since(core, since, &d), 0);
	ck_assert_uint_eq(d.n, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(d.ids[i], ids[i]);
	ck_assert_uint_eq(d.ngone, ngone);
	for (size_t i = 0; i < ngone; i++)
		ck_assert_uint_eq(d.gone[i], gone[i]);
	core_delta_clear(&d);
}

/* The host journals what changed; only then may an ended job go. */
static void purge(int64_t now)
{
	uint32_t *ids;

	core_take_dirty(core, &ids);
	free(ids);
	core_tick(core, now);
}

static int64_t settled(void)
{
	core_changes_settle(core);
	return core_change_number(core);
}

START_TEST(test_submit_hold)
{
	struct rota_error err;
	uint32_t a = submit(T0), b = submit(T0), c = submit(T0);
	int64_t c0;

	ck_assert_int_eq(settled(), BASE + 3);
	expect(BASE, (uint32_t[]){ a, b, c }, 3, NULL, 0);
	expect(BASE + 1, (uint32_t[]){ b, c }, 2, NULL, 0);
	expect(BASE + 3, NULL, 0, NULL, 0);
	c0 = settled();
	ck_assert_int_eq(core_hold(core, T0 + 1, b, 0, true, false, &err), 0);
	expect(c0, (uint32_t[]){ b }, 1, NULL, 0);
	/* the same hold again: taken, and nothing top shows is new */
	c0 = settled();
	ck_assert_int_eq(core_hold(core, T0 + 2, b, 0, true, false, &err), 0);
	expect(c0, NULL, 0, NULL, 0);
	ck_assert_int_eq(core_release(core, T0 + 3, b, 0, true, &err), 0);
	expect(c0, (uint32_t[]){ b }, 1, NULL, 0);
}
END_TEST

START_TEST(test_stale)
{
	struct core_delta d = { .n = 7 };

	submit(T0);
	core_changes_settle(core);
	ck_assert_int_eq(core_changes_since(core, 0, &d), -ESTALE);
	ck_assert_ptr_null(d.ids);
	ck_assert_uint_eq(d.n, 0);
	/* a number from a previous run: below this one's start */
	ck_assert_int_eq(core_changes_since(core, BASE - 1, &d), -ESTALE);
	ck_assert_int_eq(core_changes_since(core, BASE + 2, &d), -ESTALE);
	ck_assert_int_eq(core_changes_since(core, BASE + 1, &d), 0);
	core_delta_clear(&d);
}
END_TEST

/* A rating and a pass that leave every row as it was number nothing. */
START_TEST(test_same_rows)
{
	struct rota_error err;
	uint32_t a = submit(T0), b = submit(T0);
	int64_t c0;

	core_set_every_pass(core, true);
	core_schedule(core, T0 + 1);
	core_prio_update(core, T0 + 1);
	c0 = settled();
	core_prio_update(core, T0 + 30);
	core_schedule(core, T0 + 30);
	core_schedule(core, T0 + 31);
	/* every row looked at again: the same rows */
	core_changes_sweep(core, 10);
	expect(c0, NULL, 0, NULL, 0);
	ck_assert_int_eq(core_nice(core, T0 + 32, b, 0, true, 5, false, &err),
			 0);
	expect(c0, (uint32_t[]){ b }, 1, NULL, 0);
	(void)a;
}
END_TEST

/* A cancel numbers the job; its purge lists it as gone, not changed. */
START_TEST(test_cancel_purge)
{
	struct rota_error err;
	uint32_t a = submit(T0), b = submit(T0);
	int64_t c0 = settled(), c1;

	ck_assert_int_eq(core_cancel(core, T0 + 1, a, 0, true, &err), 0);
	expect(c0, (uint32_t[]){ a }, 1, NULL, 0);
	c1 = settled();
	purge(T0 + 200);
	expect(c1, NULL, 0, (uint32_t[]){ a }, 1);
	expect(c0, NULL, 0, (uint32_t[]){ a }, 1);
	ck_assert_ptr_null(core_job_find(core, a));
	ck_assert_ptr_nonnull(core_job_find(core, b));
}
END_TEST

/* More gone jobs than the log holds: a delta from before is refused. */
START_TEST(test_log_overflow)
{
	struct rota_error err;
	struct core_delta d;
	uint32_t id[4];
	int64_t c0, c1;

	core_changes_set_log(core, 2);
	for (size_t i = 0; i < N(id); i++)
		id[i] = submit(T0);
	c0 = settled();
	for (size_t i = 0; i < N(id); i++)
		ck_assert_int_eq(
			core_cancel(core, T0 + 1, id[i], 0, true, &err), 0);
	c1 = settled();
	purge(T0 + 200);
	core_changes_settle(core);
	ck_assert_int_eq(core_changes_since(core, c0, &d), -ESTALE);
	ck_assert_int_eq(core_changes_since(core, c1, &d), -ESTALE);
	/* the last two are remembered: from the second gone on, told */
	expect(c1 + 2, NULL, 0, (uint32_t[]){ id[2], id[3] }, 2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("changes");
	TCase *tc = tcase_create("index");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_submit_hold);
	tcase_add_test(tc, test_stale);
	tcase_add_test(tc, test_same_rows);
	tcase_add_test(tc, test_cancel_purge);
	tcase_add_test(tc, test_log_overflow);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
