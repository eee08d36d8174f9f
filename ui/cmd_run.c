// SPDX-License-Identifier: MIT
/*
 * rota run: tasks of a job step across the job's nodes (srun's part), in
 * a job (ROTA_JOB_ID set) or, outside one, in an interactive job made for
 * it and ended with it.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "ui/cmd.h"
#include "ui/run.h"
#include "ui/run_alloc.h"

static const char help[] =
	"usage: rota run [OPTIONS] COMMAND [ARGS...]\n"
	"\n"
	"Start COMMAND as the tasks of a job step across the nodes of a job\n"
	"and wait for them, as Slurm's srun does.  Inside a job (ROTA_JOB_ID\n"
	"set: a batch script, or the shell of rota alloc) the step uses that\n"
	"job's allocation: by default one task per core of the job, spread\n"
	"evenly over its nodes, each task bound to its own cores.  Two steps\n"
	"side by side share the allocation; one that does not fit beside the\n"
	"others waits (or fails at once with --immediate).  Outside a job it\n"
	"first queues a job of the size asked for, waits until it starts\n"
	"(saying why it waits after a few seconds), runs the step in it and\n"
	"ends the job with the step: COMPLETED, or FAILED if a task failed.\n"
	"\n"
	"Every task runs as you, in a cgroup of the step's own on its node\n"
	"(named for the job, holding the job's memory there), with the\n"
	"job's environment and yours plus ROTA_STEP_ID, ROTA_PROCID (its\n"
	"rank), ROTA_LOCALID, ROTA_NODEID, ROTA_NTASKS, ROTA_STEP_NODELIST,\n"
	"ROTA_STEP_NUM_NODES, ROTA_STEP_TASKS_ON_NODE, and TMPDIR: a\n"
	"directory of the step's own on the node, removed with it.  The tasks'\n"
	"stdout and stderr come back here as they are written; stdin goes\n"
	"to task 0.  Ctrl-C sends SIGINT to every task; a second Ctrl-C\n"
	"within a second kills the step.  The exit status is the largest of\n"
	"the tasks' (128+N for a task killed by signal N), and the first\n"
	"task that failed is named on stderr.  If a node is lost mid-step,\n"
	"the step fails naming it and its other tasks are killed.  Cancel,\n"
	"time limit and the end of the job end every step on every node.\n"
	"\n"
	"MPI programs wire up through the node daemons: PMI-1/PMI-2 by\n"
	"default (MPICH), --mpi=pmix for Open MPI (docs/mpi.md).\n"
	"\n"
	"Options:\n"
	"  -n, --ntasks N          tasks (default: one per core of the nodes)\n"
	"  -N, --nodes N           nodes of the job to use (default: all, or\n"
	"                          fewer when there are fewer tasks)\n"
	"  -c, --cpus-per-task N   cores per task (default 1)\n"
	"      --ntasks-per-node K K tasks on each node\n"
	"  -w, --nodelist LIST     only these of the job's nodes (n[1-2])\n"
	"  -l, --label             prefix each line with its task's rank:\n"
	"                          '3: text'\n"
	"      --mpi TYPE          pmi2 (default; PMI-1 too), pmix, or none\n"
	"  -I, --immediate         fail at once if the step cannot start now\n"
	"      --pty               task 0 on a pseudo-terminal (an interactive\n"
	"                          shell: rota run --pty bash)\n"
	"      --overlap           one task per node on all the job's cores\n"
	"                          there, beside other steps (rota-rsh's)\n"
	"  -Q, --quiet             no 'waiting' lines\n"
	"\n"
	"Outside a job, for the job it queues (as rota submit):\n"
	"  -t, --time LIMIT  -p, --queue NAME  -A, --account NAME\n"
	"  -C, --constraint EXPR  --mem SIZE  -J, --job-name NAME  --exclusive\n"
	"\n"
	"Examples:\n"
	"  rota run -n 16 ./hello          16 ranks of an MPI program\n"
	"  rota run -N 2 --ntasks-per-node=1 hostname\n"
	"  rota run -n 8 -t 10 --label ./sweep   (outside a job)\n"
	"  rota run --pty bash              a shell on the first node\n";

static const struct option longopts[] = {
	ALLOC_LONGOPTS
	{ "nodelist", required_argument, NULL, 'w' },
	{ "label", no_argument, NULL, 'l' },
	{ "mpi", required_argument, NULL, OPT_MPI },
	{ "immediate", no_argument, NULL, 'I' },
	{ "pty", no_argument, NULL, OPT_PTY },
	{ "overlap", no_argument, NULL, OPT_OVERLAP },
	{ "quiet", no_argument, NULL, 'Q' },
	{ 0 },
};

static int count(const char *name, const char *opt, const char *v,
		 uint32_t *out)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || end == v || *end || n < 1 || n > (1u << 20) ||
	    *v == '-') {
		cmd_error(name, "--%s '%s': not a count from 1", opt, v);
		return -EINVAL;
	}
	*out = (uint32_t)n;
	return 0;
}

int alloc_option(const char *name, int c, const char *v, struct alloc_req *a,
		 struct run_opts *o)
{
	struct rota_error err;
	uint32_t *slot;

	switch (c) {
	case 'n':
		slot = o ? &o->ntasks : &a->ntasks;
		if (count(name, "ntasks", v, slot) < 0)
			return -EINVAL;
		a->ntasks = *slot;
		return 0;
	case 'N':
		slot = o ? &o->nnodes : &a->nodes;
		if (count(name, "nodes", v, slot) < 0)
			return -EINVAL;
		a->nodes = *slot;
		return 0;
	case 'c':
		slot = o ? &o->cpus_per_task : &a->cpus_per_task;
		if (count(name, "cpus-per-task", v, slot) < 0)
			return -EINVAL;
		a->cpus_per_task = *slot;
		return 0;
	case OPT_PER_NODE:
		slot = o ? &o->ntasks_per_node : &a->ntasks_per_node;
		if (count(name, "ntasks-per-node", v, slot) < 0)
			return -EINVAL;
		a->ntasks_per_node = *slot;
		return 0;
	case 't':
		if (rota_duration_parse(v, ROTA_DURATION_BARE_MINUTES,
					&a->time_limit, &err) < 0 ||
		    a->time_limit <= 0) {
			cmd_error(name, "--time '%s': %s", v,
				  err.text[0] ? err.text : "must be positive");
			return -EINVAL;
		}
		return 0;
	case OPT_MEM: {
		uint64_t mb = 0;

		if (rota_size_parse_mb(v, &mb, &err) < 0) {
			cmd_error(name, "--mem '%s': %s", v, err.text);
			return -EINVAL;
		}
		a->mem_mb = mb;
		return 0;
	}
	case 'p': a->queue = v; return 0;
	case 'A': a->account = v; return 0;
	case 'C': a->constraint = v; return 0;
	case 'J': a->name = v; return 0;
	case OPT_EXCLUSIVE: a->exclusive = true; return 0;
	case 'v': a->verbose = true; return 0;
	default: return 1;
	}
}

static int run_option(struct run_opts *o, struct alloc_req *a, int c,
		      const char *v)
{
	int rc = alloc_option("run", c, v, a, o);

	if (rc <= 0)
		return rc;
	switch (c) {
	case 'w': o->nodelist = v; return 0;
	case 'l': o->label = true; return 0;
	case OPT_MPI:
		if (strcmp(v, "none") && strcmp(v, "pmi2") &&
		    strcmp(v, "pmix") && strcmp(v, "pmi")) {
			cmd_error("run", "--mpi '%s': none, pmi2 or pmix", v);
			return -EINVAL;
		}
		o->mpi = strcmp(v, "pmi") == 0 ? "pmi2" : v;
		return 0;
	case 'I': o->immediate = true; return 0;
	case OPT_PTY: o->pty = true; return 0;
	case OPT_OVERLAP: o->overlap = true; return 0;
	case 'Q': o->quiet = true; return 0;
	default:
		return -EINVAL;
	}
}

static int run_run(int argc, char **argv)
{
	struct run_opts o = { 0 };
	struct alloc_req a = { 0 };
	const char *env_job = getenv("ROTA_JOB_ID");
	const char *env_mpi = getenv("ROTA_MPI_TYPE");
	uint32_t job_id = 0;
	int c, status;

	o.mpi = "pmi2";
	if (env_mpi && *env_mpi && run_option(&o, &a, OPT_MPI, env_mpi) < 0)
		return 2;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+n:N:c:w:lIQt:p:A:C:J:vh",
				longopts, NULL)) != -1) {
		if (c == 'h')
			return cmd_print_help(&cmd_run);
		if (c == '?' || c == ':') {
			cmd_error("run", "unknown option or missing value: "
					 "'%s'",
				  argv[optind - 1]);
			return 2;
		}
		if (run_option(&o, &a, c, optarg) < 0)
			return 2;
	}
	if (optind >= argc) {
		cmd_error("run", "no command to run (rota help run)");
		return 2;
	}
	o.argv = argv + optind;
	if (env_job && *env_job) {
		if (cmd_parse_job_id("run", env_job, &job_id) < 0)
			return 2;
		return run_step(&o, job_id, false);
	}
	if (!a.name) {
		const char *slash = strrchr(o.argv[0], '/');

		a.name = slash ? slash + 1 : o.argv[0];
	}
	if (alloc_start("run", &a, &job_id) < 0)
		return 1;
	status = run_step(&o, job_id, true);
	return status;
}

const struct cmd cmd_run = {
	.name = "run",
	.summary = "run tasks of a job step across the job's nodes (srun)",
	.help = help,
	.run = run_run,
};
