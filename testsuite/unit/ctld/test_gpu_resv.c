// SPDX-License-Identifier: MIT
/*
 * GPUs and licenses in advance reservations and backfill (issue 24): a
 * reservation holds its GPUs (whole nodes all of theirs, GpuCount= so
 * many) against ordinary jobs now and over the span they would run, and
 * gives them to its own jobs; backfill's profile counts the GPUs and the
 * licenses a reserved job is kept, so that a job that would still hold
 * them at its start waits and one that gives them back in time starts;
 * the main pass lets no job take a license an earlier one waits for.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/msg.h"
#include "ctld/core/core.h"
#include "plugins/rota_plugin.h"

#define T0 ((int64_t)1700000000)
#define HOUR 3600

/*
 * g1, g2: 16 cores, 8 GPUs each (NUMA 0 and 1), g1 2 nvme too.  Queue
 * 'one' is g1 alone; 'cpu' is c1, 8 cores and no GPU.
 */
static const char conf_text[] =
	"GresTypes=nvme\n"
	"NodeName=g1 CPUs=16 RealMemory=64G Gres=nvme:2\n"
	"NodeName=g2 CPUs=16 RealMemory=64G\n"
	"NodeName=c1 CPUs=8 RealMemory=16G\n"
	"QueueName=batch Nodes=g1,g2 Default=yes MaxTime=1-00:00:00\n"
	"QueueName=one Nodes=g1\n"
	"QueueName=cpu Nodes=c1\n"
	"Licenses=matlab:2\n"
	"AccountName=physics Shares=1\n"
	"UserName=ana Account=physics Default=yes\n"
	"UserName=bob Account=physics\n";

static struct core *core;
static struct rota_gpu_info gpus8[8];

static void start(const char *sched)
{
	struct rota_conf *conf = NULL;
	struct rota_error err = { { 0 } };
	char *text = NULL;

	ck_assert(asprintf(&text, "%s%s\n", conf_text, sched) > 0);
	ck_assert_msg(rota_conf_load_buffer("t.conf", text, strlen(text),
					    &conf, &err) == 0,
		      "%s", err.text);
	free(text);
	ck_assert_msg(core_create(conf, &core, &err) == 0, "%s", err.text);
	rota_conf_destroy(conf);
	for (int i = 0; i < 8; i++) {
		static char bus[8][16];

		snprintf(bus[i], sizeof(bus[i]), "0000:%02x:00.0", 0x10 + i);
		gpus8[i] = (struct rota_gpu_info){
			.type = "v100", .model = "Tesla V100", .busid = bus[i],
			.cores = i < 4 ? "0-7" : "8-15", .numa = i < 4 ? 0 : 1,
		};
	}
	for (int n = 0; n < 3; n++) {
		struct rota_node_info info = {
			.name = (char *[]){ "g1", "g2", "c1" }[n],
			.features = (char *[]){ NULL },
			.state = "UP",
			.reason = "",
			.sockets = n < 2 ? 2 : 1,
			.cores = n < 2 ? 16 : 8,
			.pus = n < 2 ? 16 : 8,
			.memory_mb = (n < 2 ? 64 : 16) * 1024,
			.gpus = n < 2 ? gpus8 : NULL,
			.ngpus = n < 2 ? 8 : 0,
		};

		ck_assert_msg(core_node_register(core, T0, &info, &err) == 0,
			      "%s", err.text);
	}
}

static void setup_builtin(void)
{
	start("");
}

static void setup_backfill(void)
{
	start("Sched=backfill Resolution=1s");
}

static void teardown(void)
{
	core_destroy(core);
}

static void drop_actions(void)
{
	struct core_action *a;

	core_take_actions(core, &a);
	free(a);
}

static void passes(int64_t now)
{
	struct rota_sched_stats st;

	core_schedule(core, now);
	ck_assert_int_eq(core_backfill(core, now, &st), 0);
	drop_actions();
}

struct ask {
	const char *queue;
	const char *resv;
	const char *user;
	const char *lics;
	const char *gres;
	uint32_t ntasks, gpn;
	int64_t limit;
};

static int try_submit(const struct ask *a, uint32_t *id,
		      struct rota_error *err)
{
	struct rota_job_desc d = {
		.name = strdup("j"),
		.script = strdup("#!/bin/sh\n"),
		.workdir = strdup("/tmp"),
		.queue = a->queue ? strdup(a->queue) : NULL,
		.reservation = a->resv ? strdup(a->resv) : NULL,
		.licenses = a->lics ? strdup(a->lics) : NULL,
		.gres = a->gres ? strdup(a->gres) : NULL,
		.ntasks = a->ntasks ? a->ntasks : 1,
		.cpus_per_task = 1,
		.time_limit = a->limit ? a->limit : HOUR,
		.gpus_per_node = a->gpn,
	};
	struct core_submit s = { .desc = &d, .uid = 1000, .gid = 1000,
				 .user = a->user ? a->user : "ana" };
	int rc = core_submit(core, T0, &s, id, err);

	rota_job_desc_clear(&d);
	return rc;
}

static uint32_t submit(const struct ask *a)
{
	struct rota_error err = { { 0 } };
	uint32_t id = 0;

	ck_assert_msg(try_submit(a, &id, &err) == 0, "%s", err.text);
	return id;
}

static enum rota_job_state state(uint32_t id)
{
	return core_job_find(core, id)->state;
}

static char *const ana_only[] = { "ana", NULL };

static int resv(const char *name, const char *nodes, uint32_t cores,
		uint32_t gpus, int64_t start, struct rota_error *err)
{
	struct core_resv_req req = {
		.name = name,
		.start = start,
		.end = start + 4 * HOUR,
		.nodes = nodes,
		.core_count = cores,
		.gpu_count = gpus,
		.users = ana_only,
	};

	return core_resv_create(core, T0, &req, NULL, err);
}

/* GpuCount=8 with 2 cores on g1: its other cores run jobs, not GPU jobs. */
START_TEST(test_holds_gpus)
{
	struct rota_error err = { { 0 } };
	const struct core_resv *r;
	uint32_t plain, gpu, mine;

	ck_assert_msg(resv("gpus", "g1", 2, 8, T0, &err) == 0, "%s",
		      err.text);
	r = core_resv_find(core, "gpus");
	ck_assert_uint_eq(r->nparts, 1);
	ck_assert_uint_eq(core_resv_part_cores(core, r, 0), 2);
	ck_assert_uint_eq(core_resv_part_gpus(core, r, 0), 8);
	plain = submit(&(struct ask){ .queue = "one", .ntasks = 4 });
	gpu = submit(&(struct ask){ .queue = "one", .gpn = 1, .user = "bob" });
	passes(T0 + 1);
	ck_assert_int_eq(state(plain), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(gpu), ROTA_JOB_PENDING);
	/* its own job gets them all */
	mine = submit(&(struct ask){ .queue = "one", .resv = "gpus",
				     .ntasks = 2, .gpn = 8 });
	passes(T0 + 2);
	ck_assert_int_eq(state(mine), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(gpu), ROTA_JOB_PENDING);
	ck_assert_uint_eq(core_job_find(core, mine)->alloc[0].ngpus, 8);
}
END_TEST

/* Whole nodes hold their GPUs; its jobs get them. */
START_TEST(test_whole_node)
{
	struct rota_error err = { { 0 } };
	const struct core_resv *r;
	uint32_t other, mine;

	ck_assert_msg(resv("w", "g1", 0, 0, T0, &err) == 0, "%s", err.text);
	r = core_resv_find(core, "w");
	ck_assert_uint_eq(core_resv_part_gpus(core, r, 0), 8);
	other = submit(&(struct ask){ .queue = "one", .gpn = 1,
				      .user = "bob" });
	mine = submit(&(struct ask){ .queue = "one", .resv = "w", .gpn = 4 });
	passes(T0 + 1);
	ck_assert_int_eq(state(other), ROTA_JOB_PENDING);
	ck_assert_int_eq(state(mine), ROTA_JOB_RUNNING);
	/* more than the reservation holds: refused at submit */
	ck_assert_int_eq(try_submit(&(struct ask){ .queue = "one", .resv = "w",
						   .gpn = 8, .ntasks = 17 },
				    &(uint32_t){ 0 }, &err),
			 -EINVAL);
}
END_TEST

/*
 * A reservation from T0 + 2h holding g1's 8 GPUs: a GPU job of 3 hours
 * would still hold one then, and waits; one of an hour runs.  In the
 * main pass and in backfill's profile alike.
 */
START_TEST(test_future_gpus)
{
	struct rota_error err = { { 0 } };
	uint32_t longer, shorter;

	ck_assert_msg(resv("later", "g1", 2, 8, T0 + 2 * HOUR, &err) == 0,
		      "%s", err.text);
	shorter = submit(&(struct ask){ .queue = "one", .gpn = 1,
					.limit = HOUR });
	longer = submit(&(struct ask){ .queue = "one", .gpn = 1,
				       .limit = 3 * HOUR });
	passes(T0 + 1);
	ck_assert_int_eq(state(longer), ROTA_JOB_PENDING);
	ck_assert_int_eq(state(shorter), ROTA_JOB_RUNNING);
}
END_TEST

START_TEST(test_refused)
{
	struct rota_error err = { { 0 } };

	ck_assert_int_eq(resv("x", "g1", 0, 2, T0, &err), -EINVAL);
	ck_assert_str_eq(err.text,
			 "GpuCount=2: give CoreCount=N too, the cores its "
			 "jobs run on (Nodes= alone holds the nodes' GPUs)");
	ck_assert_int_eq(resv("a", NULL, 4, 12, T0, &err), 0);
	/* 8 GPUs and 3 cores on g1, 4 and the last core on g2 */
	ck_assert_uint_eq(core_resv_part_cores(core, core_resv_find(core, "a"),
					       0),
			  3);
	ck_assert_uint_eq(core_resv_part_gpus(core, core_resv_find(core, "a"),
					      1),
			  4);
	/* 4 GPUs are left, on g2: 6 are refused, 4 taken there */
	ck_assert_int_eq(resv("b", NULL, 2, 6, T0, &err), -EBUSY);
	ck_assert_str_eq(err.text,
			 "GpuCount=6: only 4 GPUs of the nodes, with cores "
			 "beside them, are free of other reservations and of "
			 "running jobs over that time");
	ck_assert_int_eq(resv("c", NULL, 2, 4, T0, &err), 0);
	ck_assert_uint_eq(core_resv_part_gpus(core, core_resv_find(core, "c"),
					      0),
			  4);
	ck_assert_str_eq(core_node_get(core, core_resv_find(core, "c")
						     ->parts[0].node)
				 ->name,
			 "g2");
}
END_TEST

/* A journaled reservation comes back with its GPUs. */
START_TEST(test_restore)
{
	struct rota_error err = { { 0 } };
	const char *nodes[] = { "g2" };
	uint32_t cores[] = { 3 }, gpus[] = { 5 };
	struct core_resv_state st = {
		.id = 7, .name = "back", .start = T0, .end = T0 + HOUR,
		.core_count = 3, .gpu_count = 5, .users = ana_only,
		.nodes = nodes, .cores = cores, .gpus = gpus, .nparts = 1,
	};
	const struct core_resv *r;

	ck_assert_msg(core_resv_restore(core, &st, &err) == 0, "%s",
		      err.text);
	r = core_resv_find(core, "back");
	ck_assert_uint_eq(r->gpu_count, 5);
	ck_assert_uint_eq(core_resv_part_gpus(core, r, 0), 5);
	st.gpus = NULL; /* an older record */
	st.name = "old";
	ck_assert_msg(core_resv_restore(core, &st, &err) == 0, "%s",
		      err.text);
	ck_assert_uint_eq(core_resv_part_gpus(core, core_resv_find(core, "old"),
					      0),
			  0);
}
END_TEST

/*
 * Backfill with GPUs: g1 runs a job of 6 GPUs for an hour; the head job
 * wants all 8 (reserved at T0 + 1h).  A job of 2 GPUs for 2 hours would
 * delay it and waits; one of 2 GPUs for 30 minutes starts.
 */
START_TEST(test_backfill_gpus)
{
	uint32_t big, head, slow, quick;

	big = submit(&(struct ask){ .queue = "one", .gpn = 6 });
	passes(T0 + 1);
	ck_assert_int_eq(state(big), ROTA_JOB_RUNNING);
	head = submit(&(struct ask){ .queue = "one", .gpn = 8 });
	slow = submit(&(struct ask){ .queue = "one", .gpn = 2,
				     .limit = 2 * HOUR });
	quick = submit(&(struct ask){ .queue = "one", .gpn = 2,
				      .limit = HOUR / 2 });
	passes(T0 + 2);
	ck_assert_int_eq(state(head), ROTA_JOB_PENDING);
	ck_assert_int_eq(core_job_find(core, head)->est_start, T0 + 1 + HOUR);
	ck_assert_int_eq(state(slow), ROTA_JOB_PENDING);
	ck_assert_int_eq(state(quick), ROTA_JOB_RUNNING);
}
END_TEST

/*
 * Licenses in backfill: a job holds matlab:1 for an hour on c1; the head
 * job (all of g1, matlab:2) waits for both; a job of matlab:1 on g2 that
 * would hold it past the head's start waits, one that ends before runs.
 */
START_TEST(test_backfill_licenses)
{
	uint32_t holder, head, slow, quick;

	holder = submit(&(struct ask){ .queue = "cpu", .lics = "matlab:1" });
	passes(T0 + 1);
	ck_assert_int_eq(state(holder), ROTA_JOB_RUNNING);
	head = submit(&(struct ask){ .lics = "matlab:2", .ntasks = 16 });
	slow = submit(&(struct ask){ .lics = "matlab:1", .limit = 2 * HOUR });
	quick = submit(&(struct ask){ .lics = "matlab:1",
				      .limit = HOUR / 2 });
	passes(T0 + 2);
	ck_assert_int_eq(state(head), ROTA_JOB_PENDING);
	ck_assert_int_eq(core_job_find(core, head)->est_start, T0 + 1 + HOUR);
	ck_assert_int_eq(state(slow), ROTA_JOB_PENDING);
	ck_assert_int_eq(state(quick), ROTA_JOB_RUNNING);
}
END_TEST

/*
 * The estimate waits for the licenses: the head job fits on the nodes now
 * but its matlab:2 is free only when both holders reach their limits.
 */
START_TEST(test_estimate_licenses)
{
	uint32_t a, b, head;

	a = submit(&(struct ask){ .queue = "cpu", .lics = "matlab:1",
				  .limit = HOUR });
	b = submit(&(struct ask){ .queue = "cpu", .lics = "matlab:1",
				  .limit = 2 * HOUR });
	passes(T0 + 1);
	ck_assert_int_eq(state(a), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(b), ROTA_JOB_RUNNING);
	head = submit(&(struct ask){ .lics = "matlab:2", .gpn = 1 });
	passes(T0 + 2);
	ck_assert_int_eq(state(head), ROTA_JOB_PENDING);
	ck_assert_int_eq(core_job_find(core, head)->est_start,
			 T0 + 1 + 2 * HOUR);
}
END_TEST

/* The main pass: a later job does not take the license an earlier waits for. */
START_TEST(test_main_keeps_licenses)
{
	uint32_t holder, head, later, other;

	holder = submit(&(struct ask){ .queue = "cpu", .lics = "matlab:1" });
	core_schedule(core, T0 + 1);
	drop_actions();
	ck_assert_int_eq(state(holder), ROTA_JOB_RUNNING);
	head = submit(&(struct ask){ .lics = "matlab:2" });
	later = submit(&(struct ask){ .lics = "matlab:1", .limit = 2 * HOUR });
	other = submit(&(struct ask){ .gpn = 1 });
	core_schedule(core, T0 + 2);
	drop_actions();
	ck_assert_int_eq(state(head), ROTA_JOB_PENDING);
	ck_assert_str_eq(core_job_find(core, head)->reason, "Licenses");
	ck_assert_int_eq(state(later), ROTA_JOB_PENDING);
	ck_assert_str_eq(core_job_find(core, later)->reason, "Licenses");
	ck_assert_int_eq(state(other), ROTA_JOB_RUNNING);
}
END_TEST

/* A reservation's licenses: its jobs get them, no other job does. */
START_TEST(test_resv_licenses)
{
	struct rota_error err = { { 0 } };
	struct core_resv_req req = {
		.name = "lic", .start = T0, .end = T0 + 4 * HOUR,
		.core_count = 1, .licenses = "matlab:2", .users = ana_only,
	};
	uint32_t other, mine;
	char *text;

	ck_assert_msg(core_resv_create(core, T0, &req, NULL, &err) == 0, "%s",
		      err.text);
	text = core_resv_licenses_text(core, core_resv_find(core, "lic"));
	ck_assert_str_eq(text, "matlab:2");
	free(text);
	req.name = "more";
	req.licenses = "matlab:1";
	ck_assert_int_eq(core_resv_create(core, T0, &req, NULL, &err), -EBUSY);
	ck_assert_str_eq(err.text, "Licenses=matlab:1: reservations over that "
				   "time hold 2 of the cluster's 2 matlab");
	req.licenses = "fluent:1";
	ck_assert_int_eq(core_resv_create(core, T0, &req, NULL, &err),
			 -EINVAL);
	other = submit(&(struct ask){ .queue = "cpu", .lics = "matlab:1",
				      .user = "bob" });
	passes(T0 + 1);
	ck_assert_int_eq(state(other), ROTA_JOB_PENDING);
	ck_assert_str_eq(core_job_find(core, other)->reason, "Licenses");
	mine = submit(&(struct ask){ .resv = "lic", .lics = "matlab:2" });
	passes(T0 + 2);
	ck_assert_int_eq(state(mine), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(other), ROTA_JOB_PENDING);
}
END_TEST

/*
 * A reservation from T0 + 1h holding both matlab: a job of matlab:1 for
 * 2 hours waits, one of 30 minutes runs.
 */
START_TEST(test_resv_licenses_later)
{
	struct rota_error err = { { 0 } };
	struct core_resv_req req = {
		.name = "lic", .start = T0 + HOUR, .end = T0 + 4 * HOUR,
		.core_count = 1, .licenses = "matlab:2", .users = ana_only,
	};
	uint32_t slow, quick;

	ck_assert_msg(core_resv_create(core, T0, &req, NULL, &err) == 0, "%s",
		      err.text);
	quick = submit(&(struct ask){ .queue = "cpu", .lics = "matlab:1",
				      .limit = HOUR / 2 });
	slow = submit(&(struct ask){ .queue = "one", .lics = "matlab:1",
				     .limit = 2 * HOUR });
	passes(T0 + 1);
	ck_assert_int_eq(state(quick), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(slow), ROTA_JOB_PENDING);
}
END_TEST

/* nvme: counted per node, given back at the end, shown by name. */
START_TEST(test_nvme_counts)
{
	uint32_t a, b, c;
	char *text;

	a = submit(&(struct ask){ .queue = "one", .gres = "nvme:1" });
	b = submit(&(struct ask){ .queue = "one", .gres = "nvme" });
	c = submit(&(struct ask){ .queue = "one", .gres = "nvme:1" });
	core_schedule(core, T0 + 1);
	drop_actions();
	ck_assert_int_eq(state(a), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(b), ROTA_JOB_RUNNING);
	ck_assert_int_eq(state(c), ROTA_JOB_PENDING);
	text = core_job_gres_text(core, core_job_find(core, c), "gres/");
	ck_assert_str_eq(text, "gres/nvme:1");
	free(text);
	{
		struct rota_msg_job_end e = {
			.job_id = a, .run = core_job_find(core, a)->run,
			.state = ROTA_JOB_COMPLETED };
		struct rota_error err = { { 0 } };

		ck_assert_msg(core_job_end(core, T0 + 2, "g1", &e, &err) == 0,
			      "%s", err.text);
	}
	core_schedule(core, T0 + 3);
	drop_actions();
	ck_assert_int_eq(state(c), ROTA_JOB_RUNNING);
}
END_TEST

START_TEST(test_nvme_refused)
{
	struct rota_error err = { { 0 } };
	uint32_t id;

	ck_assert_int_eq(try_submit(&(struct ask){ .gres = "nvme:3" }, &id,
				    &err),
			 -EINVAL);
	ck_assert_str_eq(err.text, "--gres=nvme:3: more than any node of "
				   "queue 'batch' has (most: 2)");
	ck_assert_int_eq(try_submit(&(struct ask){ .queue = "cpu",
						   .gres = "nvme:1" },
				    &id, &err),
			 -EINVAL);
	ck_assert_str_eq(err.text, "--gres=nvme:1: more than any node of "
				   "queue 'cpu' has (most: 0)");
	ck_assert_int_eq(try_submit(&(struct ask){ .gres = "ssd:1" }, &id,
				    &err),
			 -EINVAL);
	ck_assert_str_eq(err.text, "--gres=ssd:1: 'ssd' is not a generic "
				   "resource of this cluster (GresTypes=)");
}
END_TEST

/*
 * Backfill counts nvme: one holds 1 of g1's 2 for an hour; the head
 * job wants both (reserved at T0 + 1h); a job of 1 for 2 hours waits,
 * one of 30 minutes runs.
 */
START_TEST(test_nvme_backfill)
{
	uint32_t holder, head, slow, quick;

	holder = submit(&(struct ask){ .queue = "one", .gres = "nvme:1" });
	passes(T0 + 1);
	ck_assert_int_eq(state(holder), ROTA_JOB_RUNNING);
	head = submit(&(struct ask){ .queue = "one", .gres = "nvme:2" });
	slow = submit(&(struct ask){ .queue = "one", .gres = "nvme:1",
				     .limit = 2 * HOUR });
	quick = submit(&(struct ask){ .queue = "one", .gres = "nvme:1",
				      .limit = HOUR / 2 });
	passes(T0 + 2);
	ck_assert_int_eq(state(head), ROTA_JOB_PENDING);
	ck_assert_int_eq(core_job_find(core, head)->est_start, T0 + 1 + HOUR);
	ck_assert_int_eq(state(slow), ROTA_JOB_PENDING);
	ck_assert_int_eq(state(quick), ROTA_JOB_RUNNING);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("gpu_resv");
	TCase *tc = tcase_create("resv");
	TCase *bf = tcase_create("backfill");

	tcase_add_checked_fixture(tc, setup_builtin, teardown);
	tcase_add_test(tc, test_holds_gpus);
	tcase_add_test(tc, test_whole_node);
	tcase_add_test(tc, test_future_gpus);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_restore);
	tcase_add_test(tc, test_main_keeps_licenses);
	tcase_add_test(tc, test_nvme_counts);
	tcase_add_test(tc, test_resv_licenses);
	tcase_add_test(tc, test_resv_licenses_later);
	tcase_add_test(tc, test_nvme_refused);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(bf, setup_backfill, teardown);
	tcase_add_test(bf, test_future_gpus);
	tcase_add_test(bf, test_backfill_gpus);
	tcase_add_test(bf, test_backfill_licenses);
	tcase_add_test(bf, test_estimate_licenses);
	tcase_add_test(bf, test_nvme_backfill);
	tcase_add_test(bf, test_resv_licenses);
	tcase_add_test(bf, test_resv_licenses_later);
	suite_add_tcase(s, bf);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
