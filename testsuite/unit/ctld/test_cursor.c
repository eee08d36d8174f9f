// SPDX-License-Identifier: MIT
/*
 * Cursors (core.h, core_cursor_create): a long listing walks the core's
 * lists a slice at a time while jobs come and go (issue 23).  The core
 * keeps a cursor valid when the job it points at leaves, when its
 * neighbours leave, when a rating reorders the pending list under it
 * (it finishes in the old order), when the id index is compacted, when
 * the core is replaced, and at the end of the list.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/msg.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "testsuite/unit/ctld/fixture.h"

#define T0 ((int64_t)1700000000)
#define DAY 86400
#define ANA 1000

static struct core *core;
static struct rota_conf *conf;

static void teardown(void)
{
	fixture_stop(&core, &conf);
}

static const char *builddir(void)
{
	const char *b = getenv("top_builddir");

	return b && *b ? b : ROTA_TOP_BUILDDIR;
}

/* No pass runs here: every job stays pending. */
static void start(void)
{
	char *text = rota_xasprintf("PluginDir=%s/_plugins\n"
				    "NodeName=n1 CPUs=4 RealMemory=16G\n"
				    "QueueName=batch Default=yes\n"
				    "Priority=multifactor WeightAge=1000 "
				    "MaxAge=7d\n"
				    "MinJobAge=1s\n",
				    builddir());

	fixture_start(text, T0, &core, &conf);
	free(text);
}

static uint32_t submit(struct core *c, int64_t now)
{
	struct rota_job_desc d = {
		.name = rota_xstrdup("job"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		.ntasks = 1,
		.cpus_per_task = 1,
		.time_limit = 100,
	};
	struct core_submit req = { .desc = &d, .uid = ANA, .gid = ANA,
				   .user = "ana" };
	struct rota_error err = { "" };
	uint32_t id = 0;
	int rc = core_submit(c, now, &req, &id, &err);

	ck_assert_msg(rc == 0, "submit: %s", err.text);
	rota_job_desc_clear(&d);
	return id;
}

/* Jobs 1..n, a second apart: the oldest first in the pending order. */
static void submit_n(uint32_t n)
{
	for (uint32_t i = 1; i <= n; i++)
		ck_assert_uint_eq(submit(core, T0 + i), i);
}

static void cancel(uint32_t id)
{
	struct rota_error err = { "" };

	ck_assert_msg(core_cancel(core, T0 + DAY, id, ANA, false, &err) == 0,
		      "cancel %u: %s", id, err.text);
}

static void hold(uint32_t id)
{
	struct rota_error err = { "" };

	ck_assert_msg(core_hold(core, T0 + DAY, id, ANA, false, false, &err) ==
			      0,
		      "hold %u: %s", id, err.text);
}

/* The host took the changed jobs (journaled): the ended may be purged. */
static uint32_t *ids_taken(void)
{
	uint32_t *ids = NULL;

	core_take_dirty(core, &ids);
	return ids;
}

static uint32_t next(struct core_cursor *c)
{
	const struct core_job *job = core_cursor_next(core, c);

	return job ? job->id : 0;
}

/* The ids the cursor has left, into 'v' (up to 'max'): their count. */
static size_t rest(struct core_cursor *c, uint32_t *v, size_t max)
{
	size_t n = 0;
	uint32_t id;

	while ((id = next(c)) != 0) {
		ck_assert_uint_lt(n, max);
		v[n++] = id;
	}
	return n;
}

static void pending_order(uint32_t *v, size_t n)
{
	struct core_cursor *c = core_cursor_create(core, CORE_CURSOR_PENDING);

	ck_assert_uint_eq(rest(c, v, n), n);
	core_cursor_destroy(c);
}

START_TEST(test_plain_walk)
{
	struct core_cursor *c;

	start();
	submit_n(5);
	c = core_cursor_create(core, CORE_CURSOR_PENDING);
	for (uint32_t i = 1; i <= 5; i++)
		ck_assert_uint_eq(next(c), i);
	ck_assert_uint_eq(next(c), 0);
	ck_assert_uint_eq(next(c), 0); /* and ever after */
	core_cursor_destroy(c);
}
END_TEST

/* The job it points at leaves: it moves on to the next one. */
START_TEST(test_job_at_leaves)
{
	struct core_cursor *c;

	start();
	submit_n(5);
	c = core_cursor_create(core, CORE_CURSOR_PENDING);
	ck_assert_uint_eq(next(c), 1);
	ck_assert_uint_eq(next(c), 2);
	cancel(3); /* the next one */
	ck_assert_uint_eq(next(c), 4);
	cancel(5);
	cancel(4); /* already returned: nothing changes */
	ck_assert_uint_eq(next(c), 0);
	core_cursor_destroy(c);
}
END_TEST

/* Its neighbours leave, on both sides, and the first job: no effect. */
START_TEST(test_neighbours_leave)
{
	struct core_cursor *c;

	start();
	submit_n(6);
	c = core_cursor_create(core, CORE_CURSOR_PENDING);
	ck_assert_uint_eq(next(c), 1);
	ck_assert_uint_eq(next(c), 2);
	cancel(2); /* just returned, before the cursor */
	cancel(4); /* after the one it points at */
	cancel(1); /* the list's head */
	ck_assert_uint_eq(next(c), 3);
	cancel(6); /* the tail */
	ck_assert_uint_eq(next(c), 5);
	ck_assert_uint_eq(next(c), 0);
	core_cursor_destroy(c);
}
END_TEST

/* At the end of the list, and the last job leaving under it. */
START_TEST(test_end_of_list)
{
	struct core_cursor *c, *d;

	start();
	submit_n(3);
	c = core_cursor_create(core, CORE_CURSOR_PENDING);
	ck_assert_uint_eq(next(c), 1);
	ck_assert_uint_eq(next(c), 2);
	cancel(3); /* the last one, which it points at */
	ck_assert_uint_eq(next(c), 0);
	submit(core, T0 + 10); /* after the end: a new job may be missed */
	ck_assert_uint_eq(next(c), 0);
	/* of an empty list, and one made at its end and destroyed early */
	core_cursor_destroy(c);
	cancel(1);
	cancel(2);
	cancel(4);
	c = core_cursor_create(core, CORE_CURSOR_PENDING);
	d = core_cursor_create(core, CORE_CURSOR_RUNNING);
	ck_assert_uint_eq(next(c), 0);
	ck_assert_uint_eq(next(d), 0);
	core_cursor_destroy(d);
	core_cursor_destroy(c);
	core_cursor_destroy(NULL);
}
END_TEST

/*
 * A rating reorders the list under the cursor (held jobs are rated 0 and
 * go to the end): the cursor finishes in the order it began in, each job
 * once, and skips those that leave meanwhile.  Two cursors, one of them
 * at the end already.  'n' large enough takes the other way of sorting
 * (prio_sort's qsort of the whole list) than a few moves.
 */
static void resort(uint32_t n)
{
	uint32_t *got = rota_xcalloc(n, sizeof(*got));
	uint32_t *now = rota_xcalloc(n, sizeof(*now));
	struct core_cursor *c, *done;
	size_t k;

	start();
	submit_n(n);
	core_prio_update(core, T0 + DAY);
	pending_order(now, n);
	for (uint32_t i = 0; i < n; i++)
		ck_assert_uint_eq(now[i], i + 1);
	c = core_cursor_create(core, CORE_CURSOR_PENDING);
	done = core_cursor_create(core, CORE_CURSOR_PENDING);
	ck_assert_uint_eq(rest(done, got, n), n);
	for (uint32_t i = 1; i <= 3; i++)
		ck_assert_uint_eq(next(c), i);
	/* behind the cursor and ahead of it; most of the list if 'n' big */
	hold(2);
	for (uint32_t i = 5; i <= (n > 20 ? n - 5 : 6); i++)
		hold(i);
	core_prio_update(core, T0 + 2 * DAY);
	pending_order(now, n);
	ck_assert_msg(now[0] == 1 && now[1] == 3 && now[2] == 4 &&
			      now[3] == (n > 20 ? n - 4 : 7),
		      "the rating reordered the list: %u %u %u %u", now[0],
		      now[1], now[2], now[3]);
	cancel(n); /* ahead of the cursor, in either order */
	k = rest(c, got, n);
	ck_assert_uint_eq(k, n - 4); /* 4 to n - 1, in the old order */
	for (uint32_t i = 0; i < k; i++)
		ck_assert_uint_eq(got[i], i + 4);
	ck_assert_uint_eq(next(done), 0);
	core_cursor_destroy(c);
	core_cursor_destroy(done);
	free(got);
	free(now);
}

START_TEST(test_resort_few_moves)
{
	resort(12);
}
END_TEST

START_TEST(test_resort_whole_list)
{
	resort(400);
}
END_TEST

/*
 * By id: resumes after the last id returned, also once the index was
 * compacted (half of it purged), and stops at the last id there was
 * when it was made.
 */
START_TEST(test_by_id)
{
	struct core_cursor *c;
	uint32_t id;

	start();
	submit_n(2100);
	c = core_cursor_create(core, CORE_CURSOR_BY_ID);
	for (uint32_t i = 1; i <= 100; i++)
		ck_assert_uint_eq(next(c), i);
	for (uint32_t i = 50; i <= 1350; i++)
		cancel(i);
	free(ids_taken());
	core_tick(core, T0 + 2 * DAY); /* MinJobAge: purged, compacted */
	ck_assert_ptr_null(core_job_find(core, 101));
	ck_assert_uint_eq(core_job_count(core), 2100 - 1301);
	submit(core, T0 + 2 * DAY); /* after the cursor was made */
	for (id = 1351; id <= 2100; id++)
		ck_assert_uint_eq(next(c), id);
	ck_assert_uint_eq(next(c), 0);
	core_cursor_destroy(c);
}
END_TEST

/*
 * A reconfiguration replaces the core: cursors made in the old one go on
 * in the new one, by id, where they were.
 */
START_TEST(test_core_replaced)
{
	struct core_cursor *c, *b;
	struct core *old;
	struct rota_conf *old_conf;

	start();
	submit_n(6);
	c = core_cursor_create(core, CORE_CURSOR_PENDING);
	b = core_cursor_create(core, CORE_CURSOR_BY_ID);
	ck_assert_uint_eq(next(c), 1);
	ck_assert_uint_eq(next(b), 1);
	ck_assert_uint_eq(next(b), 2);
	old = core;
	old_conf = conf;
	core = NULL;
	conf = NULL;
	start();
	submit_n(6); /* the same ids, as a reconfiguration moves them */
	fixture_stop(&old, &old_conf);
	cancel(4); /* out of the pending list, still a known job */
	ck_assert_uint_eq(next(c), 2);
	ck_assert_uint_eq(next(c), 3);
	ck_assert_uint_eq(next(c), 5);
	ck_assert_uint_eq(next(b), 3);
	ck_assert_uint_eq(next(b), 4);
	cancel(5);
	free(ids_taken());
	core_tick(core, T0 + 2 * DAY); /* 4 and 5 purged */
	ck_assert_uint_eq(next(b), 6);
	ck_assert_uint_eq(next(c), 6);
	ck_assert_uint_eq(next(c), 0);
	ck_assert_uint_eq(next(b), 0);
	core_cursor_destroy(c);
	core_cursor_destroy(b);
}
END_TEST

static Suite *cursor_suite(void)
{
	Suite *s = suite_create("cursor");
	TCase *tc = tcase_create("cursor");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_plain_walk);
	tcase_add_test(tc, test_job_at_leaves);
	tcase_add_test(tc, test_neighbours_leave);
	tcase_add_test(tc, test_end_of_list);
	tcase_add_test(tc, test_resort_few_moves);
	tcase_add_test(tc, test_resort_whole_list);
	tcase_add_test(tc, test_by_id);
	tcase_add_test(tc, test_core_replaced);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cursor_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
