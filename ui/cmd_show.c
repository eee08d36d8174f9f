// SPDX-License-Identifier: MIT
/* rota show job N | node NAME: every field, one Key=Value per line. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/msg.h"
#include "common/proto.h"
#include "common/taskset.h"
#include "common/units.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota show [--json] job JOB\n"
	"       rota show [--json] node NAME\n"
	"       rota show [--json] licenses\n"
	"\n"
	"Show everything the controller knows of one job or node, one\n"
	"Key=Value per line.  Times are local; 'none' when not yet.  An\n"
	"ended job's CPUTime (seconds) and MemPeak are what its cgroup\n"
	"counted; 'unknown' from a node without cgroups.  A job's steps\n"
	"(rota run) follow it, one Step= line each, while the controller\n"
	"remembers them (not across its restarts).  'licenses': the\n"
	"cluster's licenses (rota.conf's Licenses=), taken and free.\n"
	"\n"
	"  --json   the same as one JSON object, as 'rota queue --json' and\n"
	"           'rota nodes --json' give it, with one element (docs/json.md)\n";

static bool json;

/* What its cgroup counted: "unknown" from a node without cgroups. */
static void print_usage(const struct rota_job_info *j)
{
	char peak[32];

	if (j->cpu_usec)
		printf("CPUTime=%llu.%03llu\n",
		       (unsigned long long)(j->cpu_usec / 1000000),
		       (unsigned long long)(j->cpu_usec / 1000 % 1000));
	else
		printf("CPUTime=unknown\n");
	if (j->mem_peak >= 1 << 20)
		rota_size_format_mb(j->mem_peak >> 20, peak, sizeof(peak));
	else if (j->mem_peak)
		snprintf(peak, sizeof(peak), "%lluK",
			 (unsigned long long)(j->mem_peak + 1023) >> 10);
	else
		snprintf(peak, sizeof(peak), "unknown");
	printf("MemPeak=%s\n", peak);
}

static void print_time(const char *key, int64_t t)
{
	char buf[32] = "none";
	struct tm tm;
	time_t tt = (time_t)t;

	if (t && localtime_r(&tt, &tm))
		strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	printf("%s=%s\n", key, buf);
}

static const char *or_none(const char *s)
{
	return s && *s ? s : "none";
}

/* A pending job's priority and its terms, as rota prio -l gives them. */
static void print_priority(uint32_t id)
{
	struct rota_msg_job_ids ids = { .job_ids = &id, .n = 1 };
	struct rota_msg_prio m;
	struct rota_reply reply;
	struct rota_error err;
	size_t len;
	char *body = rota_msg_job_ids_encode(&ids, &len);
	int rc = cmd_call("show", ROTA_MSG_PRIO, body, len, &reply);

	free(body);
	if (rc < 0)
		return;
	rc = rota_msg_prio_decode(reply.body, reply.len, &m, &err);
	rota_reply_clear(&reply);
	if (rc < 0 || m.n != 1) {
		if (rc == 0)
			rota_msg_prio_clear(&m);
		return;
	}
	printf("QOS=%s\nPriority=%.4f (%s)\n", m.rows[0].qos,
	       m.rows[0].priority, m.plugin);
	for (size_t i = 0; i < m.rows[0].nfactors; i++) {
		const struct rota_msg_prio_factor *f = &m.rows[0].factors[i];

		printf("  %s: raw=%.6g norm=%.6g weight=%.6g value=%.6g\n",
		       f->name, f->raw, f->norm, f->weight, f->value);
	}
	rota_msg_prio_clear(&m);
}

static int show_job(const char *arg)
{
	struct rota_msg_job_list list;
	const struct rota_job_info *j;
	char limit[32], mem[32];
	uint32_t id;

	if (cmd_parse_job_id("show", arg, &id) < 0)
		return 2;
	if (cmd_fetch_jobs("show", id, &list) < 0)
		return 1;
	if (list.njobs != 1) {
		cmd_error("show", "job %u: not found", id);
		rota_msg_job_list_clear(&list);
		return 1;
	}
	j = &list.jobs[0];
	if (json) {
		size_t len;
		char *text = rota_msg_job_list_encode(j, 1, list.now, &len);

		printf("%s\n", text);
		free(text);
		rota_msg_job_list_clear(&list);
		return 0;
	}
	rota_duration_format(j->time_limit ? j->time_limit
					   : INT64_MAX,
			     limit, sizeof(limit));
	rota_size_format_mb(j->mem_per_cpu_mb ? j->mem_per_cpu_mb : j->mem_mb,
			    mem, sizeof(mem));
	printf("JobId=%u\nName=%s\nUser=%s(%u)\nGroup=%u\nAccount=%s\n"
	       "Queue=%s\nState=%s\nReason=%s\n",
	       j->id, or_none(j->name), or_none(j->user), j->uid, j->gid,
	       or_none(j->account), or_none(j->queue),
	       rota_job_state_name(j->state), or_none(j->reason));
	if (j->array_job_id) {
		/* Slurm's ArrayJobId, ArrayTaskId (the ids still pending) */
		printf("ArrayJobId=%u\n", j->array_job_id);
		if (j->array_task_id == ROTA_ARRAY_PENDING_REST)
			printf("ArrayTaskId=%s\n", or_none(j->array_tasks));
		else
			printf("ArrayTaskId=%u\n", j->array_task_id);
		if (j->array_throttle)
			printf("ArrayTaskThrottle=%u\n", j->array_throttle);
	}
	if (j->state == ROTA_JOB_PENDING)
		print_priority(j->id);
	if (rota_job_state_is_final(j->state)) {
		printf("ExitCode=%d\nSignal=%d\n", j->exit_code,
		       j->term_signal);
		print_usage(j);
	}
	printf("Runs=%u\n", j->runs);
	/* a range while it waits, the tasks it got once it runs */
	if (j->ntasks_max)
		printf("NTasks=%u-%u\n", j->ntasks, j->ntasks_max);
	else
		printf("NTasks=%u\n", j->ntasks);
	printf("CpusPerTask=%u\nNodes=%u\nNodeList=%s\n", j->cpus_per_task,
	       j->nodes, or_none(j->nodelist));
	if (j->mem_per_cpu_mb)
		printf("MemPerCPU=%s\n", mem);
	else
		printf("Mem=%s\n", j->mem_mb ? mem : "none");
	/* GPUs as scontrol writes them: asked, then which it has */
	if (j->tres_per_node)
		printf("TresPerNode=%s\n", j->tres_per_node);
	if (j->tres_per_task)
		printf("TresPerTask=%s\n", j->tres_per_task);
	if (j->gpu_idx && j->gpu_idx[0])
		printf("GpuIdx=%s\n", j->gpu_idx);
	printf("TimeLimit=%s\nConstraint=%s\nReservation=%s\n", limit,
	       or_none(j->constraint), or_none(j->reservation));
	/* what it still waits for; met parts are dropped (Slurm's way) */
	printf("Dependency=%s\n", j->dependency && j->dependency[0]
					  ? j->dependency
					  : "(null)");
	print_time("SubmitTime", j->submit_time);
	print_time("StartTime", j->start_time);
	if (j->state == ROTA_JOB_PENDING && j->est_start) {
		print_time("EstStartTime", j->est_start);
		printf("EstNodes=%s\n", or_none(j->est_nodes));
	}
	print_time("EndTime", j->end_time);
	printf("WorkDir=%s\nStdOut=%s\nStdErr=%s\n", or_none(j->workdir),
	       j->output ? j->output
			 : j->array_job_id ? "rota-%A_%a.out" : "rota-%j.out",
	       j->error ? j->error : "(with StdOut)");
	if (j->start_time)
		cmd_show_steps("show", j->id);
	rota_msg_job_list_clear(&list);
	return 0;
}

/* Gres= and GresUsed= as scontrol writes them, then each GPU. */
static void show_gres(const struct rota_node_info *n)
{
	char *all = rota_node_gres_text(n, false);
	char *used = rota_node_gres_text(n, true);

	printf("Gres=%s\nGresUsed=%s\n", or_none(all), or_none(used));
	for (size_t i = 0; i < n->ngpus; i++) {
		const struct rota_gpu_info *g = &n->gpus[i];

		printf("Gpu%zu=%s Model=%s Bus=%s Numa=%u Cores=%s", i,
		       g->type[0] ? g->type : "-", or_none(g->model), g->busid,
		       g->numa, g->cores);
		if (g->job)
			printf(" Job=%u", g->job);
		printf("\n");
	}
	free(all);
	free(used);
}

static int show_node(const char *name)
{
	struct rota_msg_node_list list;
	int rc = 1;

	if (cmd_fetch_nodes("show", &list) < 0)
		return 1;
	for (size_t i = 0; i < list.n; i++) {
		const struct rota_node_info *n = &list.nodes[i];
		char mem[32], used[32];

		if (strcmp(n->name, name) != 0)
			continue;
		rc = 0;
		if (json) {
			cmd_print_nodes_json(n, 1);
			continue;
		}
		rota_size_format_mb(n->memory_mb, mem, sizeof(mem));
		rota_size_format_mb(n->memory_used_mb, used, sizeof(used));
		printf("NodeName=%s\nAddr=%s\nState=%s\nReason=%s\n"
		       "Sockets=%u\nCores=%u\nPUs=%u\nCoresUsed=%u\n"
		       "Memory=%s\nMemoryUsed=%s\nFeatures=",
		       n->name, or_none(n->addr), or_none(n->state),
		       or_none(n->reason), n->sockets, n->cores, n->pus,
		       n->cores_used, mem, used);
		for (char **f = n->features; f && *f; f++)
			printf("%s%s", f == n->features ? "" : ",", *f);
		printf("\n");
		show_gres(n);
		rc = 0;
	}
	if (rc)
		cmd_error("show", "node '%s': not found", name);
	rota_msg_node_list_clear(&list);
	return rc;
}

static int show_run(int argc, char **argv)
{
	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 ||
			  strcmp(argv[1], "--help") == 0))
		return cmd_print_help(&cmd_show);
	if (argc >= 3 && strcmp(argv[1], "--json") == 0) {
		json = true;
		argc--;
		argv++;
	}
	if (argc == 2 && strcmp(argv[1], "licenses") == 0)
		return cmd_show_licenses(json);
	if (argc != 3) {
		fputs(help, stderr);
		return 2;
	}
	if (strcmp(argv[1], "job") == 0)
		return show_job(argv[2]);
	if (strcmp(argv[1], "node") == 0)
		return show_node(argv[2]);
	cmd_error("show", "'%s': expected 'job' or 'node'", argv[1]);
	return 2;
}

const struct cmd cmd_show = {
	.name = "show",
	.summary = "show one job or node in full",
	.help = help,
	.run = show_run,
};
