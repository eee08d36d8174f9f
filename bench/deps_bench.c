// SPDX-License-Identifier: MIT
/*
 * bench/deps_bench: a chain of LINKS jobs in the scheduling core, no
 * daemons, each but the first submitted --dependency=afterok on the one
 * before: then, link after link, a main pass starts the one job free to
 * run and its node reports it completed, which releases the next.  The
 * end is where the dependency work is (depend.c: the ended job's
 * dependents, looked up in a table), so its time per link must stay flat
 * as the chain grows; the pass is timed apart.  Prints one line:
 *   links N submit US/job end US/link pass US/link
 *   deps_bench LINKS
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

static const char conf_text[] =
	"NodeTimeout=1d\n"
	"MinJobAge=1d\n"
	"NodeName=n1 CPUs=8 RealMemory=16G\n"
	"QueueName=batch Nodes=ALL Default=yes MaxTime=1-00:00:00 "
	"DefaultTime=1:00:00\n";

static double seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void die(const char *what, const struct rota_error *err)
{
	fprintf(stderr, "deps_bench: %s: %s\n", what, err->text);
	exit(1);
}

static struct core *make_core(void)
{
	struct rota_conf *conf = NULL;
	struct rota_error err = { "" };
	struct core *core = NULL;
	struct rota_node_info info = {
		.name = "n1", .state = "UP", .reason = "", .sockets = 1,
		.cores = 8, .pus = 8, .memory_mb = 16 * 1024,
	};

	if (rota_conf_load_buffer("bench.conf", conf_text, strlen(conf_text),
				  &conf, &err) < 0 ||
	    core_create(conf, &core, &err) < 0)
		die("core", &err);
	rota_conf_destroy(conf);
	if (core_node_register(core, 0, &info, &err) < 0)
		die("node", &err);
	return core;
}

static uint32_t submit(struct core *core, uint32_t after)
{
	struct rota_job_desc d = {
		.name = rota_xstrdup("link"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		.ntasks = 1,
		.cpus_per_task = 1,
		.dependency = after ? rota_xasprintf("afterok:%u", after) : NULL,
	};
	struct core_submit req = { .desc = &d, .uid = 1000, .gid = 1000,
				   .user = "bench" };
	struct rota_error err = { "" };
	uint32_t id = 0;

	if (core_submit(core, 1, &req, &id, &err) < 0)
		die("submit", &err);
	rota_job_desc_clear(&d);
	return id;
}

int main(int argc, char **argv)
{
	long links = argc > 1 ? atol(argv[1]) : 1000;
	struct core *core = make_core();
	uint32_t *ids = rota_xcalloc((size_t)links + 1, sizeof(*ids));
	double t0, t_submit, t_end = 0, t_pass = 0;

	if (links < 1) {
		fprintf(stderr, "usage: deps_bench LINKS\n");
		return 2;
	}
	t0 = seconds();
	for (long i = 0; i < links; i++)
		ids[i] = submit(core, i ? ids[i - 1] : 0);
	t_submit = seconds() - t0;
	for (long i = 0; i < links; i++) {
		struct rota_error err = { "" };
		struct rota_msg_job_end end = {
			.job_id = ids[i], .run = 1,
			.state = ROTA_JOB_COMPLETED, .exit_code = 0,
		};
		int64_t now = 10 + 2 * i;
		double t1 = seconds(), t2;

		if (core_schedule(core, now) != 1) {
			fprintf(stderr, "deps_bench: link %ld did not start\n",
				i);
			return 1;
		}
		t2 = seconds();
		if (core_job_end(core, now + 1, "n1", &end, &err) < 0)
			die("end", &err);
		t_end += seconds() - t2;
		t_pass += t2 - t1;
	}
	printf("links %ld submit %.2f us/job end %.2f us/link "
	       "pass %.2f us/link\n",
	       links, 1e6 * t_submit / (double)links,
	       1e6 * t_end / (double)links, 1e6 * t_pass / (double)links);
	core_destroy(core);
	free(ids);
	return 0;
}
