// SPDX-License-Identifier: MIT
/*
 * GPUs in the core (issue 24): registration as rota.conf allows, placement
 * that never gives one GPU twice, GPUs near the job's cores, what a
 * request no node could hold is told, the TRES texts of rota show job.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/msg.h"
#include "ctld/core/core.h"
#include "ctld/core/shapes.h"

/*
 * g1: 16 cores, 8 GPUs, 0-3 near cores 0-7 (NUMA 0), 4-7 near 8-15
 * (NUMA 1): a two-socket GPU node.  g2 declares 4 GPUs and finds 8.
 */
static const char conf_text[] =
	"NodeName=g1 CPUs=16 RealMemory=64G\n"
	"NodeName=g2 CPUs=16 RealMemory=64G Gres=gpu:4\n"
	"QueueName=batch Nodes=ALL Default=yes MaxTime=1-00:00:00\n"
	"QueueName=one Nodes=g1\n";

static struct core *core;

static struct rota_gpu_info gpus8[8];

static void setup(void)
{
	struct rota_conf *conf = NULL;
	struct rota_error err = { { 0 } };

	ck_assert_msg(rota_conf_load_buffer("t.conf", conf_text,
					    strlen(conf_text), &conf,
					    &err) == 0,
		      "%s", err.text);
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
}

static void teardown(void)
{
	core_destroy(core);
}

static int reg(const char *name, struct rota_error *err)
{
	struct rota_node_info info = {
		.name = (char *)name,
		.features = (char *[]){ NULL },
		.sockets = 2,
		.cores = 16,
		.pus = 16,
		.memory_mb = 64 * 1024,
		.gpus = gpus8,
		.ngpus = 8,
	};

	return core_node_register(core, 100, &info, err);
}

static uint32_t node_idx(const char *name)
{
	uint32_t i;

	ck_assert(core_node_find(core, name, &i));
	return i;
}

struct ask {
	const char *queue;
	uint32_t ntasks, cpt, gpn, gpt;
	const char *type;
	uint64_t mem_mb;
};

static int submit(const struct ask *a, uint32_t *id, struct rota_error *err)
{
	struct rota_job_desc d = {
		.name = strdup("j"),
		.script = strdup("#!/bin/sh\n"),
		.workdir = strdup("/tmp"),
		.queue = a->queue ? strdup(a->queue) : NULL,
		.ntasks = a->ntasks ? a->ntasks : 1,
		.cpus_per_task = a->cpt ? a->cpt : 1,
		.time_limit = 3600,
		.gpus_per_node = a->gpn,
		.gpus_per_task = a->gpt,
		.mem_mb = a->mem_mb,
		.gpu_type = a->type ? strdup(a->type) : NULL,
	};
	struct core_submit s = { .desc = &d, .uid = 1000, .gid = 1000,
				 .user = "ana" };
	int rc = core_submit(core, 100, &s, id, err);

	rota_job_desc_clear(&d);
	return rc;
}

static const struct core_job *run(const struct ask *a)
{
	struct rota_error err = { { 0 } };
	uint32_t id;
	const struct core_job *j;

	ck_assert_msg(submit(a, &id, &err) == 0, "%s", err.text);
	core_schedule(core, 101);
	j = core_job_find(core, id);
	ck_assert_int_eq(j->state, ROTA_JOB_RUNNING);
	return j;
}

/* The job's node reports it over at 'now'. */
static void end_at(const struct core_job *j, int64_t now)
{
	struct rota_error err = { { 0 } };

	ck_assert_msg(core_job_end(core, now,
				   core_node_get(core, j->alloc[0].node)->name,
				   &(struct rota_msg_job_end){ .job_id = j->id,
							       .run = j->run },
				   &err) == 0,
		      "%s", err.text);
}

static void up_both(void)
{
	struct rota_error err = { { 0 } };

	ck_assert_msg(reg("g1", &err) == 0, "%s", err.text);
	ck_assert_msg(reg("g2", &err) == 0, "%s", err.text);
}

START_TEST(test_register)
{
	up_both();
	ck_assert_uint_eq(core_node_get(core, node_idx("g1"))->ngpus, 8);
	/* Gres=gpu:4 restricts it to its first 4 */
	ck_assert_uint_eq(core_node_get(core, node_idx("g2"))->ngpus, 4);
	ck_assert_str_eq(core_node_get(core, node_idx("g2"))->gpus[3].busid,
			 "0000:13:00.0");
}
END_TEST

/* 2 GPUs and 8 cores: one socket's of each; the next job the other's. */
START_TEST(test_locality)
{
	const struct core_job *a, *b;
	char *text;

	up_both();
	a = run(&(struct ask){ .queue = "one", .cpt = 8, .gpn = 2 });
	ck_assert_uint_eq(a->alloc[0].ngpus, 2);
	ck_assert_uint_eq(a->alloc[0].gpus[0], 0);
	ck_assert_uint_eq(a->alloc[0].gpus[1], 1);
	ck_assert_uint_eq(a->alloc[0].cores[0], 0);
	ck_assert_uint_eq(a->alloc[0].cores[7], 7);
	/* socket 0 has 2 GPUs left but no core: socket 1 */
	b = run(&(struct ask){ .queue = "one", .cpt = 8, .gpn = 2 });
	ck_assert_uint_eq(b->alloc[0].gpus[0], 4);
	ck_assert_uint_eq(b->alloc[0].gpus[1], 5);
	ck_assert_uint_eq(b->alloc[0].cores[0], 8);
	ck_assert_uint_eq(b->alloc[0].cores[7], 15);
	text = core_job_gpu_idx(core, b);
	ck_assert_str_eq(text, "g1:4,5");
	free(text);
}
END_TEST

/*
 * 12 cores and 2 GPUs after a job holding cores 0-3: the GPUs of socket
 * 1, its 8 cores and 4 of socket 0's, in order all the same.
 */
START_TEST(test_locality_spill)
{
	const struct core_job *b;

	up_both();
	run(&(struct ask){ .queue = "one", .cpt = 4 });
	b = run(&(struct ask){ .queue = "one", .cpt = 12, .gpn = 2 });
	ck_assert_uint_eq(b->alloc[0].gpus[0], 4);
	ck_assert_uint_eq(b->alloc[0].ncores, 12);
	for (uint32_t i = 0; i < 12; i++)
		ck_assert_uint_eq(b->alloc[0].cores[i], 4 + i);
}
END_TEST

/* However jobs come and go, no GPU is given twice. */
START_TEST(test_never_shared)
{
	const struct core_job *j[4];
	uint32_t seen[8] = { 0 };
	struct rota_error err = { { 0 } };
	uint32_t id;

	up_both();
	for (int i = 0; i < 4; i++)
		j[i] = run(&(struct ask){ .queue = "one", .gpn = 2 });
	for (int i = 0; i < 4; i++)
		for (uint32_t g = 0; g < j[i]->alloc[0].ngpus; g++)
			seen[j[i]->alloc[0].gpus[g]]++;
	for (int g = 0; g < 8; g++)
		ck_assert_uint_eq(seen[g], 1);
	/* a fifth waits: no GPU is free, cores are */
	ck_assert_int_eq(submit(&(struct ask){ .queue = "one", .gpn = 1 },
				&id, &err),
			 0);
	core_schedule(core, 102);
	ck_assert_int_eq(core_job_find(core, id)->state, ROTA_JOB_PENDING);
	ck_assert_uint_eq(core_node_get(core, node_idx("g1"))->gpus_used, 8);
}
END_TEST

/* --gpus-per-task: a node's GPUs bound its tasks. */
START_TEST(test_per_task)
{
	const struct core_job *a;
	char *text;

	up_both();
	/* 6 tasks x 2 GPUs: 4 on g1 (8 GPUs), 2 on g2 (4) */
	a = run(&(struct ask){ .ntasks = 6, .gpt = 2 });
	ck_assert_uint_eq(a->nalloc, 2);
	ck_assert_uint_eq(a->alloc[0].ngpus + a->alloc[1].ngpus, 12);
	text = core_job_tres(a);
	ck_assert_str_eq(text, "gres/gpu:2");
	free(text);
}
END_TEST

START_TEST(test_infeasible)
{
	struct rota_error err = { { 0 } };
	uint32_t id;

	up_both();
	ck_assert_int_lt(submit(&(struct ask){ .gpn = 9 }, &id, &err), 0);
	ck_assert_str_eq(err.text,
			 "--gpus-per-node=9: more GPUs than any node of queue "
			 "'batch' has (most: 8)");
	ck_assert_int_lt(submit(&(struct ask){ .gpn = 1, .type = "a100" },
				&id, &err),
			 0);
	ck_assert_str_eq(err.text,
			 "--gpus: no node of queue 'batch' has GPUs of type "
			 "'a100' (it has: v100)");
	ck_assert_int_eq(submit(&(struct ask){ .gpn = 8, .type = "v100" },
				&id, &err),
			 0);
}
END_TEST

/* The job's end gives its GPUs back, to the next job. */
START_TEST(test_end_frees)
{
	up_both();
	end_at(run(&(struct ask){ .queue = "one", .gpn = 8 }), 110);
	ck_assert_uint_eq(core_node_get(core, node_idx("g1"))->gpus_used, 0);
	run(&(struct ask){ .queue = "one", .gpn = 8 });
}
END_TEST

/*
 * TRESBillingWeights="CPU=1.0,Mem=0.25G,GRES/gpu=4.0,GRES/gpu:a100=6":
 * 2 cores, 4 GB and 2 V100 for 100 s cost 2 + 1 + 8 = 11 a second,
 * 1100 in all; the same on A100s 2 + 1 + 12 = 15 a second.
 */
START_TEST(test_billing)
{
	static const char text[] =
		"TRESBillingWeights=CPU=1.0,Mem=0.25G,GRES/gpu=4.0,"
		"GRES/gpu:a100=6\n"
		"NodeName=g1 CPUs=16 RealMemory=64G\n"
		"QueueName=batch Nodes=ALL Default=yes\n";
	struct rota_conf *conf = NULL;
	struct rota_error err = { { 0 } };
	const struct core_job *j;

	core_destroy(core);
	ck_assert_msg(rota_conf_load_buffer("t.conf", text, strlen(text),
					    &conf, &err) == 0,
		      "%s", err.text);
	ck_assert_msg(core_create(conf, &core, &err) == 0, "%s", err.text);
	rota_conf_destroy(conf);
	ck_assert_msg(reg("g1", &err) == 0, "%s", err.text);
	j = run(&(struct ask){ .cpt = 2, .gpn = 2, .mem_mb = 4096 });
	end_at(j, 201);
	ck_assert_double_eq_tol(core_job_usage(core, j), 1100.0, 1e-6);
	for (int i = 0; i < 8; i++)
		gpus8[i].type = "a100";
	ck_assert_msg(reg("g1", &err) == 0, "%s", err.text);
	j = run(&(struct ask){ .cpt = 2, .gpn = 2, .mem_mb = 4096 });
	end_at(j, 201);
	ck_assert_double_eq_tol(core_job_usage(core, j), 1500.0, 1e-6);
}
END_TEST

/* Slurm's spellings, and what is refused with one line. */
START_TEST(test_billing_conf)
{
	static const char *const bad[][2] = {
		{ "TRESBillingWeights=CPU=x", "t.conf:1: TRESBillingWeights: CPU: 'x' is not a weight" },
		{ "TRESBillingWeights=Mem=1Q", "t.conf:1: TRESBillingWeights: Mem: '1Q' is not a weight" },
		{ "TRESBillingWeights=Node=1", "t.conf:1: TRESBillingWeights: 'Node': not CPU, Mem, GRES/gpu or GRES/gpu:TYPE" },
		{ "TRESBillingWeights=CPU", "t.conf:1: TRESBillingWeights: 'CPU': expected TRES=WEIGHT" },
		{ "TRESBillingWeights=Mem=1G\nUsageMemWeight=1", "UsageMemWeight and TRESBillingWeights: give one of them (TRESBillingWeights' Mem=)" },
	};
	struct rota_conf *conf = NULL;
	struct rota_error err = { { 0 } };
	const char *good = "TRESBillingWeights=cpu=2,mem=2,gres/gpu:V100=3\n";

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		ck_assert_int_lt(rota_conf_load_buffer("t.conf", bad[i][0],
						       strlen(bad[i][0]), &conf,
						       &err),
				 0);
		ck_assert_str_eq(err.text, bad[i][1]);
	}
	ck_assert_int_eq(rota_conf_load_buffer("t.conf", good, strlen(good),
					       &conf, &err),
			 0);
	ck_assert(conf->billing.set);
	ck_assert_double_eq(conf->billing.cpu, 2);
	ck_assert_double_eq(conf->billing.mem_gb, 2048); /* 2 per MB */
	ck_assert_double_eq(conf->billing.gpu, 0);
	ck_assert_str_eq(conf->billing.typed[0].type, "v100");
	ck_assert_double_eq(conf->billing.typed[0].weight, 3);
	rota_conf_destroy(conf);
}
END_TEST

/*
 * Slurm's MaxTRES=gres/gpu=4 on the QOS: a job of 2 nodes x 3 GPUs (6
 * in all) is refused at submit with one line, one of 4 is taken.
 */
START_TEST(test_gpu_limit)
{
	static const char text[] =
		"NodeName=g1 CPUs=16 RealMemory=64G\n"
		"NodeName=g2 CPUs=16 RealMemory=64G\n"
		"QueueName=batch Nodes=ALL Default=yes\n"
		"QOSName=normal MaxTRES=gres/gpu=4\n";
	struct rota_conf *conf = NULL;
	struct rota_error err = { { 0 } };
	struct rota_job_desc d = {
		.name = strdup("j"), .script = strdup("#!/bin/sh\n"),
		.workdir = strdup("/tmp"), .ntasks = 2, .cpus_per_task = 1,
		.nodes = 2, .gpus_per_node = 3,
	};
	struct core_submit req = { .desc = &d, .uid = 1000, .gid = 1000,
				   .user = "ana" };
	uint32_t id;

	core_destroy(core);
	ck_assert_msg(rota_conf_load_buffer("t.conf", text, strlen(text),
					    &conf, &err) == 0,
		      "%s", err.text);
	ck_assert_msg(core_create(conf, &core, &err) == 0, "%s", err.text);
	rota_conf_destroy(conf);
	up_both();
	ck_assert_int_lt(core_submit(core, 100, &req, &id, &err), 0);
	ck_assert_msg(strstr(err.text, "6 GPUs exceed MaxTRES gres/gpu=4"),
		      "%s", err.text);
	d.gpus_per_node = 2;
	ck_assert_msg(core_submit(core, 100, &req, &id, &err) == 0, "%s",
		      err.text);
	rota_job_desc_clear(&d);
}
END_TEST

/*
 * Backfill's cache of shapes that failed (shapes.c): a job that failed
 * for its GPUs says nothing of one of the same size without them, nor
 * of one of any type after one of a type; one asking more, or of that
 * type after one of any type, fails too.
 */
START_TEST(test_shapes)
{
	struct shapes m;
	struct core_job gpu = { .desc = { .ntasks = 1, .cpus_per_task = 1,
					  .gpus_per_node = 2 } };
	struct core_job cpu = { .desc = { .ntasks = 1, .cpus_per_task = 1 } };
	struct core_job more = gpu, typed = gpu, any = gpu;

	more.desc.gpus_per_node = 4;
	typed.desc.gpu_type = "v100";
	shapes_init(&m);
	shapes_add(&m, &gpu);
	ck_assert(!shapes_cover(&m, &cpu));
	ck_assert(shapes_cover(&m, &more));
	ck_assert(shapes_cover(&m, &typed));
	shapes_init(&m);
	shapes_add(&m, &typed);
	ck_assert(!shapes_cover(&m, &any));
	ck_assert(shapes_cover(&m, &typed));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gpus");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_register);
	tcase_add_test(tc, test_locality);
	tcase_add_test(tc, test_locality_spill);
	tcase_add_test(tc, test_never_shared);
	tcase_add_test(tc, test_per_task);
	tcase_add_test(tc, test_infeasible);
	tcase_add_test(tc, test_end_frees);
	tcase_add_test(tc, test_billing);
	tcase_add_test(tc, test_billing_conf);
	tcase_add_test(tc, test_shapes);
	tcase_add_test(tc, test_gpu_limit);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
