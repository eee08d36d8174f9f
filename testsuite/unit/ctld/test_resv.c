// SPDX-License-Identifier: MIT
/*
 * Advance reservations and --mem-per-cpu through core.h on the virtual
 * clock: a reservation keeps ordinary jobs off its cores, its jobs wait
 * for its start and then run inside it, ahead of every other job; neither
 * the main pass nor backfill starts a job that would still run when a
 * reservation begins, while one that ends before does start; overlapping
 * and malformed creates are refused with their lines; and memory per cpu
 * is charged per core held on each node.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/msg.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "plugins/rota_plugin.h"
#include "testsuite/unit/ctld/fixture.h"

#define T0 ((int64_t)1700000000)
#define GB 1024

static struct core *core;
static struct rota_conf *conf;

#define TWO_NODES(sched)                                                       \
	"NodeName=n1 CPUs=8 RealMemory=16G\n"                                  \
	"NodeName=n2 CPUs=8 RealMemory=16G\n"                                  \
	"QueueName=batch Default=yes\n"                                        \
	"AccountName=physics Shares=1\n"                                       \
	"AccountName=chem Shares=1\n"                                          \
	"UserName=ana Account=physics Default=yes\n"                          \
	"UserName=bob Account=chem Default=yes\n" sched "\n"

static void start(const char *text)
{
	fixture_start(text, T0, &core, &conf);
}

static void teardown(void)
{
	fixture_stop(&core, &conf);
}

static void drop_actions(void)
{
	struct core_action *a;

	core_take_actions(core, &a);
	free(a);
}

struct job {
	const char *user;
	const char *resv;
	uint32_t ntasks;
	int64_t limit;
	uint64_t mem_per_cpu;
};

static int try_submit(int64_t now, const struct job *j, uint32_t *id,
		      struct rota_error *err)
{
	struct rota_job_desc d = {
		.name = rota_xstrdup("job"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		.reservation = j->resv ? rota_xstrdup(j->resv) : NULL,
		.ntasks = j->ntasks,
		.cpus_per_task = 1,
		.time_limit = j->limit,
		.mem_per_cpu_mb = j->mem_per_cpu,
	};
	struct core_submit req = { .desc = &d, .uid = 1000, .gid = 1000,
				   .user = j->user ? j->user : "ana" };
	int rc = core_submit(core, now, &req, id, err);

	rota_job_desc_clear(&d);
	return rc;
}

static uint32_t submit(int64_t now, const struct job *j)
{
	struct rota_error err = { "" };
	uint32_t id = 0;
	int rc = try_submit(now, j, &id, &err);

	ck_assert_msg(rc == 0, "submit: %s", err.text);
	return id;
}

static const struct core_job *job(uint32_t id)
{
	return core_job_find(core, id);
}

static const char *node_of(uint32_t id)
{
	return core_node_get(core, job(id)->alloc[0].node)->name;
}

static void schedule(int64_t now)
{
	core_schedule(core, now);
	drop_actions();
}

static struct rota_sched_stats backfill(int64_t now)
{
	struct rota_sched_stats st;

	ck_assert_int_eq(core_backfill(core, now, &st), 0);
	drop_actions();
	return st;
}

static char *const ana_only[] = { "ana", NULL };

/* A reservation of 'nodes' or 'cores' over [start, start + d) for ana. */
static int resv(const char *nodes, uint32_t cores, int64_t start, int64_t d,
		struct rota_error *err)
{
	struct core_resv_req req = {
		.start = start,
		.end = start + d,
		.nodes = nodes,
		.core_count = cores,
		.users = ana_only,
	};

	return core_resv_create(core, T0, &req, NULL, err);
}

static void must_resv(const char *nodes, uint32_t cores, int64_t start,
		      int64_t d)
{
	struct rota_error err = { "" };

	ck_assert_msg(resv(nodes, cores, start, d, &err) == 0, "resv: %s",
		      err.text);
}

/* ---- reservations ------------------------------------------------------ */

/*
 * An active reservation of n1: ordinary jobs get n2 only, then wait, in
 * the main pass (_i 0) and in backfill (_i 1).
 */
START_TEST(test_blocks_ordinary)
{
	uint32_t a, b;

	start(TWO_NODES("Sched=backfill Resolution=1s"));
	must_resv("n1", 0, T0, 1000);
	a = submit(T0, &(struct job){ .ntasks = 8, .limit = 100 });
	b = submit(T0, &(struct job){ .ntasks = 1, .limit = 100 });
	if (_i == 0)
		schedule(T0);
	else
		backfill(T0);
	ck_assert_int_eq(job(a)->state, ROTA_JOB_RUNNING);
	ck_assert_str_eq(node_of(a), "n2");
	ck_assert_int_eq(job(b)->state, ROTA_JOB_PENDING);
	if (_i == 0)
		ck_assert_str_eq(core_job_reason(core, job(b)), "Resources");
}
END_TEST

/* Its job waits (Reservation) for the start, then runs on its node. */
START_TEST(test_job_starts_at_start)
{
	uint32_t a, r;
	uint64_t stamp;

	start(TWO_NODES(""));
	must_resv("n1", 0, T0 + 100, 1000);
	ck_assert_int_eq(core_resv_next_boundary(core, T0), T0 + 100);
	ck_assert_int_eq(core_resv_next_boundary(core, T0 + 100), T0 + 1100);
	ck_assert_int_eq(core_resv_next_boundary(core, T0 + 1100), INT64_MAX);
	/* it would still run at T0 + 100: not on n1 */
	a = submit(T0, &(struct job){ .ntasks = 4, .limit = 101 });
	r = submit(T0, &(struct job){ .resv = "resv1", .ntasks = 4,
				      .limit = 2000 });
	schedule(T0);
	ck_assert_int_eq(job(r)->state, ROTA_JOB_PENDING);
	ck_assert_str_eq(core_job_reason(core, job(r)), "Reservation");
	/* the ordinary job did not wait behind it, nor land on n1 */
	ck_assert_int_eq(job(a)->state, ROTA_JOB_RUNNING);
	ck_assert_str_eq(node_of(a), "n2");
	stamp = core_resv_stamp(core);
	schedule(T0 + 100);
	ck_assert_uint_gt(core_resv_stamp(core), stamp);
	ck_assert_int_eq(job(r)->state, ROTA_JOB_RUNNING);
	ck_assert_str_eq(node_of(r), "n1");
	/* it ends; its job runs on to its own limit */
	core_node_seen(core, T0 + 1100, "n1");
	core_node_seen(core, T0 + 1100, "n2");
	core_tick(core, T0 + 1100);
	ck_assert_uint_eq(core_resv_count(core), 0);
	ck_assert_int_eq(job(r)->state, ROTA_JOB_RUNNING);
}
END_TEST

/* Pending jobs of a reservation come before older ordinary ones. */
static uint32_t first_pending;

static void note_first(const struct core_job *j, void *arg)
{
	(void)arg;
	if (!first_pending)
		first_pending = j->id;
}

START_TEST(test_order_first)
{
	uint32_t r;

	start(TWO_NODES(""));
	must_resv("n1", 0, T0 + 100, 1000);
	submit(T0, &(struct job){ .ntasks = 16, .limit = 100 });
	r = submit(T0 + 1, &(struct job){ .resv = "resv1", .ntasks = 1,
					  .limit = 100 });
	first_pending = 0;
	core_pending_foreach(core, note_first, NULL);
	ck_assert_uint_eq(first_pending, r);
}
END_TEST

/*
 * A reservation of n1 from T0 + 100: a job of 4 cores for 200 s would
 * still run then and waits, in the main pass and in backfill; one for
 * 100 s ends as it begins and starts at once, in either (_i: 0 the main
 * pass, the short job first, since it keeps strict order; 1 backfill,
 * the long job first).
 */

START_TEST(test_no_overlap_future)
{
	uint32_t long_job, short_job;

	start("NodeName=n1 CPUs=8 RealMemory=16G\n"
	      "QueueName=batch Default=yes\n"
	      "Sched=backfill Resolution=1s\n");
	must_resv("n1", 0, T0 + 100, 500);
	if (_i == 0)
		short_job = submit(T0, &(struct job){ .ntasks = 4,
						      .limit = 100 });
	long_job = submit(T0, &(struct job){ .ntasks = 4, .limit = 200 });
	if (_i == 0) {
		schedule(T0);
	} else {
		short_job = submit(T0, &(struct job){ .ntasks = 4,
						      .limit = 100 });
		backfill(T0);
	}
	ck_assert_int_eq(job(long_job)->state, ROTA_JOB_PENDING);
	ck_assert_int_eq(job(short_job)->state, ROTA_JOB_RUNNING);
}
END_TEST

/* A CoreCount reservation leaves the rest of the node to others. */
START_TEST(test_core_count)
{
	uint32_t a, b;

	start("NodeName=n1 CPUs=8 RealMemory=16G\n"
	      "QueueName=batch Default=yes\n");
	must_resv(NULL, 6, T0, 1000);
	a = submit(T0, &(struct job){ .ntasks = 2, .limit = 100 });
	b = submit(T0, &(struct job){ .ntasks = 1, .limit = 100 });
	schedule(T0);
	ck_assert_int_eq(job(a)->state, ROTA_JOB_RUNNING);
	ck_assert_int_eq(job(b)->state, ROTA_JOB_PENDING);
	/* its own jobs get its 6 cores and no more */
	a = submit(T0, &(struct job){ .resv = "resv1", .ntasks = 6,
				      .limit = 100 });
	b = submit(T0, &(struct job){ .resv = "resv1", .ntasks = 1,
				      .limit = 100 });
	schedule(T0);
	ck_assert_int_eq(job(a)->state, ROTA_JOB_RUNNING);
	ck_assert_int_eq(job(b)->state, ROTA_JOB_PENDING);
}
END_TEST

/*
 * Jobs waiting for a reservation that has not started use none of
 * backfill's budget (MaxJobTest 3 here): the 1-core job behind them
 * still backfills.
 */
START_TEST(test_waiting_use_no_budget)
{
	uint32_t c;

	start(TWO_NODES("Sched=backfill Resolution=1s MaxJobTest=3"));
	must_resv("n1", 0, T0 + 100000, 1000);
	submit(T0, &(struct job){ .ntasks = 8, .limit = 1000 });
	schedule(T0);
	submit(T0, &(struct job){ .ntasks = 16, .limit = 100 });
	c = submit(T0, &(struct job){ .ntasks = 1, .limit = 100 });
	for (int i = 0; i < 3; i++)
		submit(T0, &(struct job){ .resv = "resv1", .ntasks = 1,
					  .limit = 100 });
	schedule(T0);
	backfill(T0 + 1);
	ck_assert_int_eq(job(c)->state, ROTA_JOB_RUNNING);
}
END_TEST

/*
 * A job of an open reservation runs on the cores the backfill profile
 * holds for the reservation: they are not taken twice, and an ordinary
 * job fits beside it in the same pass.
 */
START_TEST(test_backfill_counts_once)
{
	uint32_t r, o;

	start("NodeName=n1 CPUs=8 RealMemory=16G\n"
	      "QueueName=batch Default=yes\n"
	      "Sched=backfill Resolution=1s\n");
	must_resv(NULL, 4, T0, 1000);
	r = submit(T0, &(struct job){ .resv = "resv1", .ntasks = 2,
				      .limit = 100 });
	o = submit(T0, &(struct job){ .ntasks = 4, .limit = 100 });
	backfill(T0);
	ck_assert_int_eq(job(r)->state, ROTA_JOB_RUNNING);
	ck_assert_int_eq(job(o)->state, ROTA_JOB_RUNNING);
}
END_TEST

/* Bad creates: each refused with its own line, nothing created. */
static const struct {
	const char *nodes;
	uint32_t cores;
	int64_t start;
	int64_t d;
	int code;
	const char *text;
} bad_creates[] = {
	{ "n1", 0, T0 + 50, 100, -EBUSY,
	  "Nodes=n1: node 'n1' is in reservation 'resv1' over that time" },
	{ NULL, 10, T0 + 50, 100, -EBUSY,
	  "CoreCount=10: only 8 cores of the nodes are free of other "
	  "reservations and of running jobs over that time" },
	{ "n9", 0, T0, 100, -ENOENT, "Nodes=n9: unknown node 'n9'" },
	{ "n[", 0, T0, 100, -EINVAL, NULL },
	{ "n2", 0, T0, 0, -EINVAL, "EndTime: not after StartTime" },
	{ "n2", 0, T0 - 10, 100, -EINVAL, "StartTime: in the past" },
	{ NULL, 0, T0, 100, -EINVAL,
	  "give Nodes=HOSTLIST or CoreCount=N: what to reserve" },
};

START_TEST(test_bad_create)
{
	struct rota_error err = { "" };

	start(TWO_NODES(""));
	must_resv("n1", 0, T0, 100);
	ck_assert_int_eq(resv(bad_creates[_i].nodes, bad_creates[_i].cores,
			      bad_creates[_i].start, bad_creates[_i].d, &err),
			 bad_creates[_i].code);
	if (bad_creates[_i].text)
		ck_assert_str_eq(err.text, bad_creates[_i].text);
	ck_assert_uint_eq(core_resv_count(core), 1);
	/* the same node right after the first one ends is fine */
	must_resv("n1", 0, T0 + 100, 100);
	ck_assert_str_eq(core_resv_get(core, 1)->name, "resv2");
}
END_TEST

START_TEST(test_bad_create_who)
{
	struct rota_error err = { "" };
	char *const nobody[] = { "nowhere", NULL };
	struct core_resv_req req = {
		.name = "maint",
		.start = T0,
		.end = T0 + 10,
		.nodes = "n1",
	};

	start(TWO_NODES(""));
	ck_assert_int_eq(core_resv_create(core, T0, &req, NULL, &err),
			 -EINVAL);
	ck_assert_str_eq(err.text, "give Users= or Accounts=: who may use it");
	req.accounts = nobody;
	ck_assert_int_eq(core_resv_create(core, T0, &req, NULL, &err),
			 -ENOENT);
	ck_assert_str_eq(err.text, "Accounts=nowhere: unknown account");
	req.accounts = NULL;
	req.users = ana_only;
	req.name = "bad name";
	ck_assert_int_eq(core_resv_create(core, T0, &req, NULL, &err),
			 -EINVAL);
	req.name = "maint";
	ck_assert_int_eq(core_resv_create(core, T0, &req, NULL, &err), 0);
	req.nodes = "n2";
	ck_assert_int_eq(core_resv_create(core, T0, &req, NULL, &err),
			 -EEXIST);
	ck_assert_str_eq(err.text, "reservation 'maint' already exists");
	ck_assert_int_eq(core_resv_delete(core, T0, "maint", &err), 0);
	ck_assert_int_eq(core_resv_delete(core, T0, "maint", &err), -ENOENT);
	ck_assert_str_eq(err.text, "reservation 'maint': not found");
}
END_TEST

/* Not over running jobs that would still run then (Slurm's "busy"). */
START_TEST(test_busy_nodes)
{
	struct rota_error err = { "" };
	uint32_t a;

	start(TWO_NODES(""));
	a = submit(T0, &(struct job){ .ntasks = 6, .limit = 100 });
	schedule(T0);
	ck_assert_str_eq(node_of(a), "n1");
	ck_assert_int_eq(resv("n1", 0, T0 + 99, 100, &err), -EBUSY);
	ck_assert_str_eq(err.text, "Nodes=n1: node 'n1' runs jobs that will "
				   "still run at StartTime");
	/* its 2 free cores and all of n2's */
	ck_assert_int_eq(resv(NULL, 11, T0, 100, &err), -EBUSY);
	must_resv(NULL, 10, T0, 100);
	ck_assert_uint_eq(core_resv_get(core, 0)->parts[0].cores, 2);
	/* from its end on, n1 is free */
	must_resv("n1", 0, T0 + 100, 100);
}
END_TEST

/* Submit: an unknown reservation, a user or account it does not allow. */
START_TEST(test_submit_refused)
{
	struct rota_error err = { "" };
	char *const chem[] = { "chem", NULL };
	struct core_resv_req req = {
		.name = "chemonly",
		.start = T0,
		.end = T0 + 100,
		.nodes = "n2",
		.accounts = chem,
	};
	uint32_t id;

	start(TWO_NODES(""));
	must_resv("n1", 0, T0, 100);
	ck_assert_int_eq(try_submit(T0, &(struct job){ .resv = "nope",
						      .ntasks = 1 },
				    &id, &err),
			 -ENOENT);
	ck_assert_str_eq(err.text, "--reservation=nope: no such reservation");
	ck_assert_int_eq(try_submit(T0, &(struct job){ .user = "bob",
						      .resv = "resv1",
						      .ntasks = 1 },
				    &id, &err),
			 -EPERM);
	ck_assert_str_eq(err.text,
			 "--reservation=resv1: not open to user 'bob'");
	ck_assert_int_eq(core_resv_create(core, T0, &req, NULL, &err), 0);
	ck_assert_int_eq(try_submit(T0, &(struct job){ .resv = "chemonly",
						      .ntasks = 1 },
				    &id, &err),
			 -EPERM);
	ck_assert_str_eq(err.text, "--reservation=chemonly: not open to "
				   "account 'physics'");
	ck_assert_int_eq(try_submit(T0, &(struct job){ .resv = "resv1",
						      .ntasks = 9 },
				    &id, &err),
			 -EINVAL);
	submit(T0, &(struct job){ .user = "bob", .resv = "chemonly",
				  .ntasks = 8 });
	ck_assert_uint_eq(core_job_count(core), 1);
}
END_TEST

/* A deleted reservation's pending job says so; its running one runs on. */
START_TEST(test_deleted)
{
	struct rota_error err = { "" };
	uint32_t a, b;

	start(TWO_NODES(""));
	must_resv("n1", 0, T0, 1000);
	a = submit(T0, &(struct job){ .resv = "resv1", .ntasks = 8 });
	b = submit(T0, &(struct job){ .resv = "resv1", .ntasks = 8 });
	schedule(T0);
	ck_assert_int_eq(job(a)->state, ROTA_JOB_RUNNING);
	ck_assert_str_eq(core_job_reason(core, job(b)), "Resources");
	ck_assert_int_eq(core_resv_delete(core, T0 + 1, "resv1", &err), 0);
	schedule(T0 + 1);
	ck_assert_int_eq(job(a)->state, ROTA_JOB_RUNNING);
	ck_assert_int_eq(job(b)->state, ROTA_JOB_PENDING);
	ck_assert_str_eq(core_job_reason(core, job(b)), "ReservationDeleted");
}
END_TEST

/* A journaled reservation comes back as it was, by node name. */
START_TEST(test_restore)
{
	struct rota_error err = { "" };
	const char *nodes[] = { "n2", "n1" };
	const uint32_t cores[] = { 0, 3 };
	struct core_resv_state st = {
		.id = 7,
		.name = "back",
		.start = T0,
		.end = T0 + 100,
		.core_count = 0,
		.users = ana_only,
		.nodes = nodes,
		.cores = cores,
		.nparts = 2,
	};
	const struct core_resv *r;

	start(TWO_NODES(""));
	ck_assert_int_eq(core_resv_restore(core, &st, &err), 0);
	r = core_resv_find(core, "back");
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(core_resv_part_cores(core, r, 0), 8);
	ck_assert_uint_eq(core_resv_part_cores(core, r, 1), 3);
	/* new ones get later ids, never its own */
	must_resv(NULL, 2, T0, 10);
	ck_assert_str_eq(core_resv_get(core, 1)->name, "resv8");
	nodes[0] = "n7";
	st.name = "gone";
	ck_assert_int_eq(core_resv_restore(core, &st, &err), -ENOENT);
}
END_TEST

/* ---- --mem-per-cpu ------------------------------------------------------ */

/* 8 tasks x 4G per cpu: 4 fit on a 16G node; 4 + 4 on two, 16G each. */
START_TEST(test_mem_per_cpu)
{
	struct rota_error err = { "" };
	uint32_t a, id;

	start(TWO_NODES(""));
	a = submit(T0, &(struct job){ .ntasks = 8, .limit = 100,
				      .mem_per_cpu = 4 * GB });
	schedule(T0);
	ck_assert_int_eq(job(a)->state, ROTA_JOB_RUNNING);
	ck_assert_uint_eq(job(a)->nalloc, 2);
	ck_assert_uint_eq(job(a)->alloc[0].ncores, 4);
	ck_assert_uint_eq(core_node_get(core, 0)->mem_used_mb, 16 * GB);
	ck_assert_uint_eq(core_node_get(core, 1)->mem_used_mb, 16 * GB);
	/* cores are left, memory is not */
	id = submit(T0, &(struct job){ .ntasks = 1, .limit = 100,
				       .mem_per_cpu = 1 });
	schedule(T0);
	ck_assert_int_eq(job(id)->state, ROTA_JOB_PENDING);
	ck_assert_int_eq(core_cancel(core, T0, a, 0, true, &err), 0);
	ck_assert_int_eq(try_submit(T0, &(struct job){ .ntasks = 1,
						      .mem_per_cpu = 17 * GB },
				    &id, &err),
			 -EINVAL);
	ck_assert_str_eq(err.text,
			 "--mem-per-cpu=17408M: a task's 1 cpus need more "
			 "memory than any node of queue 'batch' has "
			 "(largest: 16G)");
}
END_TEST

/* Ended, the memory goes back: a job of 3 cores x 2G holds 6G. */
START_TEST(test_mem_per_cpu_release)
{
	struct rota_msg_job_end e = { .state = ROTA_JOB_COMPLETED };
	struct rota_error err = { "" };
	uint32_t a;

	start(TWO_NODES(""));
	a = submit(T0, &(struct job){ .ntasks = 3, .limit = 100,
				      .mem_per_cpu = 2 * GB });
	schedule(T0);
	ck_assert_uint_eq(core_node_get(core, job(a)->alloc[0].node)
				  ->mem_used_mb,
			  6 * GB);
	e.job_id = a;
	e.run = job(a)->run;
	ck_assert_int_eq(core_job_end(core, T0 + 5, node_of(a), &e, &err), 0);
	ck_assert_uint_eq(core_node_get(core, 0)->mem_used_mb, 0);
	ck_assert_uint_eq(core_node_get(core, 1)->mem_used_mb, 0);
}
END_TEST

static Suite *resv_suite(void)
{
	Suite *s = suite_create("resv");
	TCase *tc = tcase_create("resv");

	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_loop_test(tc, test_blocks_ordinary, 0, 2);
	tcase_add_test(tc, test_job_starts_at_start);
	tcase_add_test(tc, test_order_first);
	tcase_add_loop_test(tc, test_no_overlap_future, 0, 2);
	tcase_add_test(tc, test_core_count);
	tcase_add_test(tc, test_waiting_use_no_budget);
	tcase_add_test(tc, test_backfill_counts_once);
	tcase_add_loop_test(tc, test_bad_create, 0,
			    sizeof(bad_creates) / sizeof(bad_creates[0]));
	tcase_add_test(tc, test_bad_create_who);
	tcase_add_test(tc, test_busy_nodes);
	tcase_add_test(tc, test_submit_refused);
	tcase_add_test(tc, test_deleted);
	tcase_add_test(tc, test_restore);
	tcase_add_test(tc, test_mem_per_cpu);
	tcase_add_test(tc, test_mem_per_cpu_release);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(resv_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
