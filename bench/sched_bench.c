// SPDX-License-Identifier: MIT
/*
 * bench/sched_bench: one backfill pass in the scheduling core, no
 * daemons.  A cluster of NODES nodes x 128 cores (every 10th with 1 TB
 * and largemem, every 4th with ib), RUNNING jobs started by the main pass
 * and PENDING jobs of mixed sizes, queues and time limits waiting behind
 * them; then one EASY or conservative pass with no caps, or with Slurm's
 * default ones (CAPS "caps": MaxJobTest 500 and the rest).  Prints the
 * pass's time and the resident memory the pending jobs added, per job.
 *   sched_bench MODE NODES RUNNING PENDING [CAPS]
 *   (MODE: easy | conservative; CAPS: nocaps (default) | caps)
 * With ROTA_BENCH_GPUS=1 every node has 8 GPUs (4 near each socket),
 * a third of the pending jobs ask 1 to 8 of them a node and a third of
 * the running ones hold 1 (issue 24): the same jobs as without GPUs, the
 * same ones running, so that the two passes compare like with like.
 * ROTA_BENCH_GPUS=wide: the running ones ask 1 to 8 as well, and fewer
 * of them fit (a different machine to start from: more starts);
 * wide-cpu: that machine, the pending jobs asking no GPU (its like).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/conf.h"
#include "common/msg.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "plugins/rota_plugin.h"

static double seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, rss = 0;

	if (f && fscanf(f, "%ld %ld", &pages, &rss) != 2)
		rss = 0;
	if (f)
		fclose(f);
	return rss * 4;
}

static bool with_gpus;
static bool gpus_wide; /* running jobs ask 1 to 8 too: fewer of them run */
static bool pending_cpu; /* wide-cpu: as wide, but no pending job asks */

/* 8 GPUs, 4 near each socket's 64 cores */
static struct rota_gpu_info bench_gpus[8];

static void gpus_init(void)
{
	static char bus[8][16];

	for (int i = 0; i < 8; i++) {
		snprintf(bus[i], sizeof(bus[i]), "0000:%02x:00.0", 0x10 + i);
		bench_gpus[i] = (struct rota_gpu_info){
			.type = "a100", .model = "A100", .busid = bus[i],
			.cores = i < 4 ? "0-63" : "64-127", .numa = i >= 4,
		};
	}
}

/* Running jobs are narrower (the 50,000 must fit); pending ones mixed. */
static void submit(struct core *core, unsigned *seed, int64_t now,
		   const char *queue, bool narrow)
{
	static const uint32_t sizes[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256 };
	struct rota_job_desc d = {
		.name = rota_xstrdup("bench"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		.queue = rota_xstrdup(queue),
		.ntasks = sizes[rand_r(seed) % (narrow ? 7 : 9)],
		.cpus_per_task = 1,
		.time_limit = 60 * (1 + rand_r(seed) % 2880),
		.mem_mb = (uint64_t)(rand_r(seed) % 4) * 4096,
	};
	char user[16];
	struct core_submit req = { .desc = &d, .uid = 1000, .gid = 1000,
				   .user = user };
	struct rota_error err;
	uint32_t id, gpus;

	snprintf(user, sizeof(user), "u%u", rand_r(seed) % 200);
	if (rand_r(seed) % 20 == 0)
		d.constraint = rota_xstrdup("ib");
	/*
	 * Drawn either way: the same jobs with GPUs as without.  A running
	 * job holds 1 at most (unless gpus_wide): a node's 8 are then enough
	 * for the jobs it holds, and the same ones run as without GPUs.
	 */
	gpus = rand_r(seed) % 3 == 0 ? 1 + (uint32_t)(rand_r(seed) % 8) : 0;
	if (with_gpus && (narrow || !pending_cpu))
		d.gpus_per_node = narrow && gpus && !gpus_wide ? 1 : gpus;
	if (core_submit(core, now, &req, &id, &err) < 0) {
		fprintf(stderr, "submit: %s\n", err.text);
		exit(1);
	}
	rota_job_desc_clear(&d);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "easy";
	long nodes = argc > 2 ? atol(argv[2]) : 10000;
	long running = argc > 3 ? atol(argv[3]) : 50000;
	long pending = argc > 4 ? atol(argv[4]) : 100000;
	bool caps = argc > 5 && strcmp(argv[5], "caps") == 0;
	const char *dir = getenv("ROTA_PLUGIN_DIR");
	const char *g = getenv("ROTA_BENCH_GPUS");
	char *text = rota_xasprintf(
		"NodeName=n[00001-%05ld] CPUs=128 RealMemory=256G\n"
		"QueueName=batch Nodes=ALL Default=yes\n"
		"QueueName=long Nodes=ALL\n"
		"QueueName=short Nodes=n[00001-%05ld] MaxTime=2-00:00:00\n"
		"Sched=backfill Mode=%s NoCaps=%s\n"
		"SchedulerDepth=100000000 SchedulerMaxTime=0s\n"
		"PluginDir=%s\n",
		nodes, nodes / 2 ? nodes / 2 : 1, mode, caps ? "no" : "yes",
		dir ? dir : "/tmp");
	static const char *const queues[] = { "batch", "long", "short" };
	struct rota_conf *conf;
	struct rota_error err;
	struct rota_sched_stats st;
	struct core *core;
	unsigned seed = 42;
	int64_t now = 1700000000;
	long before;
	double t0, t1;

	with_gpus = g && strcmp(g, "0") != 0;
	pending_cpu = g && strcmp(g, "wide-cpu") == 0;
	gpus_wide = g && (strcmp(g, "wide") == 0 || pending_cpu);
	gpus_init();
	if (rota_conf_load_buffer("bench.conf", text, strlen(text), &conf,
				  &err) < 0 ||
	    core_create(conf, &core, &err) < 0) {
		fprintf(stderr, "%s\n", err.text);
		return 1;
	}
	for (long i = 0; i < nodes; i++) {
		char name[32];
		char *ib[] = { "ib", NULL };
		struct rota_node_info info = {
			.name = name, .state = "UP", .reason = "",
			.features = i % 4 == 0 ? ib : NULL,
			.sockets = 2, .cores = 128, .pus = 128,
			.memory_mb = i % 10 == 0 ? 1024 * 1024 : 256 * 1024,
			.gpus = with_gpus ? bench_gpus : NULL,
			.ngpus = with_gpus ? 8 : 0,
		};

		snprintf(name, sizeof(name), "n%05ld", i + 1);
		if (core_node_register(core, now, &info, &err) < 0) {
			fprintf(stderr, "%s\n", err.text);
			return 1;
		}
	}
	for (long i = 0; i < running; i++)
		submit(core, &seed, now - 600, queues[i % 3], true);
	core_schedule(core, now - 600);
	before = rss_kb();
	for (long i = 0; i < pending; i++)
		submit(core, &seed, now, queues[i % 3], false);
	core_prio_update(core, now);
	t0 = seconds();
	core_backfill(core, now, &st);
	t1 = seconds();
	printf("%s%s%s pass: %.3f s  nodes %ld  running %zu  pending %ld  "
	       "tested %u  started %u  reserved %u  %.0f B/pending job\n",
	       mode, caps ? "-capped" : "", with_gpus ? "-gpus" : "",
	       t1 - t0, nodes,
	       core_job_count(core) - core_pending_count(core), pending, st.tested, st.started, st.reserved,
	       pending ? (double)(rss_kb() - before) * 1024 / (double)pending
		       : 0.0);
	core_destroy(core);
	rota_conf_destroy(conf);
	free(text);
	return 0;
}
