// SPDX-License-Identifier: MIT
/*
 * rota submit: send a batch script.  Options come from "#ROTA" lines at the
 * top of the script (up to its first command, as sbatch reads "#SBATCH"),
 * then from the command line, which wins.  Like PBS, the job starts with a
 * clean environment: PATH and LANG from here, the user's identity from the
 * node, ROTA_* variables, and what --export names.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/depend.h"
#include "common/jobrec.h"
#include "common/msg.h"
#include "common/proto.h"
#include "common/taskset.h"
#include "common/units.h"
#include "common/xalloc.h"
#include "ui/cmd.h"
#include "ui/submit_gpus.h"

extern char **environ;

#define SCRIPT_MAX (4u << 20)

static const char help[] =
	"usage: rota submit [OPTIONS] [SCRIPT]\n"
	"\n"
	"Queue a batch script (read from standard input without SCRIPT) and\n"
	"print its job id.  Options may also be given in the script, on\n"
	"lines '#ROTA --option=value' before its first command; the command\n"
	"line wins over the script.\n"
	"\n"
	"  -n, --ntasks=N            tasks (default 1)\n"
	"  -n, --ntasks=MIN-MAX      a range, as Grid Engine's qsub -pe mpi\n"
	"                            2-6 (Slurm has it for --nodes): it\n"
	"                            starts with the most tasks in the\n"
	"                            range that fit then (ROTA_NTASKS says\n"
	"                            how many), and waits for at least MIN\n"
	"  -c, --cpus-per-task=N     cores per task (default 1)\n"
	"  -N, --nodes=N             exactly N nodes (default: as needed)\n"
	"      --ntasks-per-node=N   N tasks on each node (the node count\n"
	"                            follows, unless --nodes gives it)\n"
	"      --exclusive           whole nodes, shared with no other job\n"
	"                            (all their cores are charged)\n"
	"      --mem=SIZE            memory per node: 512M, 4G (bare: MB);\n"
	"                            a hard limit (ConstrainRAMSpace): past\n"
	"                            it, a job ends OUT_OF_MEMORY\n"
	"      --mem-per-cpu=SIZE    memory per allocated core instead:\n"
	"                            a node holds SIZE x the job's cores\n"
	"                            there (not with --mem)\n"
	"  -L, --licenses=LIST       cluster-wide licenses: matlab:1,ansys:2\n"
	"                            (NAME[:N], as 'rota show licenses' names\n"
	"                            them); it waits (reason Licenses) until\n"
	"                            they are free\n"
	"      --gpus=[TYPE:]N       N GPUs for the job (of TYPE, as 'rota\n"
	"                            nodes' names them: v100): over --nodes\n"
	"                            evenly, else one each of N tasks, else\n"
	"                            all on one node\n"
	"      --gpus-per-node=[TYPE:]N  N GPUs on each of its nodes\n"
	"      --gres=gpu[:TYPE][:N] the same, Slurm's older spelling\n"
	"      --gres=NAME[:N],...   per node, generic resources named in\n"
	"                            GresTypes (nvme:1; with gpu:2 too)\n"
	"      --gpus-per-task=[TYPE:]N  N GPUs for each task\n"
	"      --cpus-per-gpu=N      N cores for each GPU (not with -c)\n"
	"      --mem-per-gpu=SIZE    memory for each GPU (not with --mem or\n"
	"                            --mem-per-cpu).  The job sees its GPUs\n"
	"                            only: CUDA_VISIBLE_DEVICES, ROTA_JOB_GPUS\n"
	"                            (docs/gpus.md)\n"
	"  -t, --time=TIME           time limit: MM, MM:SS, HH:MM:SS,\n"
	"                            D-HH[:MM[:SS]], or 90s, 15m, 2h, 1d\n"
	"  -q, -p, --queue=NAME      queue (default: the default queue)\n"
	"  -A, --account=NAME        account to charge\n"
	"  -J, --job-name=NAME       name (default: the script's file name)\n"
	"  -o, --output=PATH         stdout (default rota-%j.out, for a task\n"
	"                            of an array rota-%A_%a.out); %j job id,\n"
	"                            %A array job id, %a array task id,\n"
	"                            %u user, %x job name, %N node, %% a '%'\n"
	"  -e, --error=PATH          stderr (default: with stdout)\n"
	"  -C, --constraint=EXPR     node features: ib, ib&largemem, a|b\n"
	"      --reservation=NAME    run inside this advance reservation\n"
	"                            only (see 'rota help resv'); it waits\n"
	"                            for it to start (reason Reservation)\n"
	"  -D, --chdir=DIR           working directory (default: here)\n"
	"      --export=VARS         also pass these variables (VAR[,VAR..]),\n"
	"                            ALL for the whole environment, NONE\n"
	"      --wrap=COMMAND        run COMMAND under /bin/sh, no script\n"
	"      --no-requeue          if its node fails: end as NODE_FAIL\n"
	"                            (default: wait in the queue again)\n"
	"      --qos=NAME            quality of service (default normal)\n"
	"      --nice=N              lower the priority by N (0 to 10000;\n"
	"                            operators may give a negative N)\n"
	"      --urgency=N           Flux's urgency, 1 to 16 (16 is the\n"
	"                            default; operators up to 31)\n"
	"      --dl=TIME             Grid Engine's initiation deadline (qsub\n"
	"                            -dl): under Priority=sge its urgency\n"
	"                            grows as TIME nears; TIME as 2026-12-01\n"
	"                            T13:30, now+2h or @UNIXSECONDS; only\n"
	"                            DeadlineUsers and operators may\n"
	"                            set one\n"
	"      --jobshare=N          its functional shares, Grid Engine's\n"
	"                            -js (0 to 1000000000; see rota help\n"
	"                            update for its override tickets)\n"
	"  -H, --hold                submit it held: it waits (reason\n"
	"                            JobHeldUser) until 'rota release'\n"
	"  -a, --array=IDS[%N]       a job array: one job per task id, as\n"
	"                            0-999, 1,3,5-9 or 0-1000:10 (ids below\n"
	"                            MaxArraySize); %N runs at most N at\n"
	"                            once.  One job id for all of it; its\n"
	"                            tasks are ID_TASK (12_7), and each sees\n"
	"                            ROTA_ARRAY_JOB_ID, ROTA_ARRAY_TASK_ID,\n"
	"                            ROTA_ARRAY_TASK_COUNT, _MIN, _MAX and\n"
	"                            _STEP.  rota cancel, hold, release,\n"
	"                            nice and update take 12 (all of it),\n"
	"                            12_7 or 12_[1-5]\n"
	"  -d, --dependency=LIST     wait for other jobs (reason Dependency):\n"
	"                            after:ID[+MIN] (ID started, MIN minutes\n"
	"                            ago), afterany:ID (ended), afterok:ID\n"
	"                            (completed, exit code 0), afternotok:ID\n"
	"                            (ended otherwise), aftercorr:ID (task i\n"
	"                            of an array after task i of ID),\n"
	"                            singleton (no other job of this name and\n"
	"                            user runs); TYPE:ID:ID..., parts joined\n"
	"                            by ',' (all) or '?' (any one)\n"
	"      --kill-on-invalid-dep=yes|no\n"
	"                            yes: cancel it if its dependency can\n"
	"                            never be satisfied; no (the default): it\n"
	"                            waits, reason DependencyNeverSatisfied\n"

	"  -h, --help                this text\n"
	"\n"
	"Exit status: 0 queued, 1 refused by the controller, 2 bad usage.\n"
	"While the controller restarts, rota submit waits and tries again\n"
	"for ClientRetry (60s, $ROTA_CLIENT_RETRY); a retry never queues the\n"
	"job twice, and the job id printed is the one queued.\n";

enum {
	OPT_MEM = 256,
	OPT_EXPORT,
	OPT_WRAP,
	OPT_NO_REQUEUE,
	OPT_QOS,
	OPT_NICE,
	OPT_URGENCY,
	OPT_PER_NODE,
	OPT_EXCLUSIVE,
	OPT_MEM_PER_CPU,
	OPT_RESERVATION,
	OPT_KILL_INVALID,
	OPT_DEADLINE,
	OPT_JOBSHARE,
	OPT_GPUS,
	OPT_GPUS_PER_NODE,
	OPT_GPUS_PER_TASK,
	OPT_CPUS_PER_GPU,
	OPT_MEM_PER_GPU,
	OPT_GRES,
};

static const struct option longopts[] = {
	{ "ntasks", required_argument, NULL, 'n' },
	{ "cpus-per-task", required_argument, NULL, 'c' },
	{ "nodes", required_argument, NULL, 'N' },
	{ "mem", required_argument, NULL, OPT_MEM },
	{ "time", required_argument, NULL, 't' },
	{ "queue", required_argument, NULL, 'q' },
	{ "partition", required_argument, NULL, 'p' },
	{ "account", required_argument, NULL, 'A' },
	{ "job-name", required_argument, NULL, 'J' },
	{ "output", required_argument, NULL, 'o' },
	{ "error", required_argument, NULL, 'e' },
	{ "constraint", required_argument, NULL, 'C' },
	{ "chdir", required_argument, NULL, 'D' },
	{ "export", required_argument, NULL, OPT_EXPORT },
	{ "wrap", required_argument, NULL, OPT_WRAP },
	{ "no-requeue", no_argument, NULL, OPT_NO_REQUEUE },
	{ "qos", required_argument, NULL, OPT_QOS },
	{ "nice", required_argument, NULL, OPT_NICE },
	{ "urgency", required_argument, NULL, OPT_URGENCY },
	{ "dl", required_argument, NULL, OPT_DEADLINE },
	{ "jobshare", required_argument, NULL, OPT_JOBSHARE },
	{ "ntasks-per-node", required_argument, NULL, OPT_PER_NODE },
	{ "gpus", required_argument, NULL, OPT_GPUS },
	{ "gpus-per-node", required_argument, NULL, OPT_GPUS_PER_NODE },
	{ "gpus-per-task", required_argument, NULL, OPT_GPUS_PER_TASK },
	{ "cpus-per-gpu", required_argument, NULL, OPT_CPUS_PER_GPU },
	{ "mem-per-gpu", required_argument, NULL, OPT_MEM_PER_GPU },
	{ "gres", required_argument, NULL, OPT_GRES },
	{ "licenses", required_argument, NULL, 'L' },
	{ "exclusive", no_argument, NULL, OPT_EXCLUSIVE },
	{ "mem-per-cpu", required_argument, NULL, OPT_MEM_PER_CPU },
	{ "reservation", required_argument, NULL, OPT_RESERVATION },
	{ "hold", no_argument, NULL, 'H' },
	{ "array", required_argument, NULL, 'a' },
	{ "dependency", required_argument, NULL, 'd' },
	{ "kill-on-invalid-dep", required_argument, NULL, OPT_KILL_INVALID },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

struct submit_opts {
	struct rota_job_desc d;
	struct gpu_opts gpus;
	char *chdir;
	char *export;
	char *wrap;
	bool help;
	const char *where;	/* the options being read: "option", ... */
	const char *mem_where;	/* where --mem or --mem-per-cpu was given */
};

/*
 * --mem and --mem-per-cpu exclude each other (as in Slurm): both from
 * the same place is an error; the command line's replaces the script's.
 */
static int set_mem(struct submit_opts *o, const char *opt, const char *v,
		   uint64_t *slot, uint64_t *other)
{
	struct rota_error err;

	if (*other && o->mem_where && strcmp(o->mem_where, o->where) == 0) {
		cmd_error("submit", "--mem and --mem-per-cpu: give one of "
			  "them");
		return -EINVAL;
	}
	if (rota_size_parse_mb(v, slot, &err) < 0) {
		cmd_error("submit", "--%s '%s': %s", opt, v, err.text);
		return -EINVAL;
	}
	*other = 0;
	o->mem_where = o->where;
	return 0;
}

static void set_str(char **slot, const char *v)
{
	free(*slot);
	*slot = rota_xstrdup(v);
}

static int parse_count(const char *opt, const char *v, uint32_t min,
		       uint32_t *out)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || end == v || v[0] == '-' || n < min ||
	    n > 1u << 20) {
		cmd_error("submit", "--%s '%s': expected a whole number "
			  "from %u", opt, v, min);
		return -EINVAL;
	}
	*out = (uint32_t)n;
	return 0;
}

/*
 * -n N or -n MIN-MAX (Grid Engine's slot range; Slurm spells ranges so
 * for --nodes): MIN from 1, MAX above it.  A plain N clears a range an
 * earlier place (the script's #ROTA lines) gave.
 */
static int parse_ntasks(struct rota_job_desc *d, const char *v)
{
	unsigned long lo, hi = 0;
	char *end;

	d->ntasks_max = 0;
	if (!strchr(v + 1, '-'))
		return parse_count("ntasks", v, 1, &d->ntasks);
	errno = 0;
	lo = strtoul(v, &end, 10);
	if (!errno && end != v && v[0] != '-' && *end == '-' && end[1] &&
	    end[1] != '-')
		hi = strtoul(end + 1, &end, 10);
	if (errno || *end || end == v || v[0] == '-') {
		cmd_error("submit", "--ntasks '%s': expected N or MIN-MAX", v);
		return -EINVAL;
	}
	if (lo < 1 || hi > 1u << 20 || lo > hi) {
		cmd_error("submit", "--ntasks '%s': expected MIN-MAX with "
			  "1 <= MIN <= MAX <= %u", v, 1u << 20);
		return -EINVAL;
	}
	d->ntasks = (uint32_t)lo;
	d->ntasks_max = hi > lo ? (uint32_t)hi : 0; /* 4-4 is 4 */
	return 0;
}

/* A whole number in [min, max], possibly negative. */
static int parse_int(const char *opt, const char *v, long min, long max,
		     long *out)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || end == v || n < min || n > max) {
		cmd_error("submit", "--%s '%s': expected a whole number from "
			  "%ld to %ld", opt, v, min, max);
		return -EINVAL;
	}
	*out = n;
	return 0;
}

/* Checked here for a quick answer; the controller checks MaxArraySize. */
static int set_array(struct submit_opts *o, const char *v)
{
	struct rota_taskset ts;
	struct rota_error err;
	uint32_t throttle;

	if (rota_taskset_parse(v, UINT32_MAX, &ts, &throttle, &err) < 0) {
		cmd_error("submit", "--array=%s: %s", v, err.text);
		return -EINVAL;
	}
	rota_taskset_fini(&ts);
	set_str(&o->d.array, v);
	return 0;
}

/* NAME[:N],...: checked here, written back as matlab:1,ansys:2 */
static int set_licenses(struct submit_opts *o, const char *v)
{
	struct rota_gres *l;
	struct rota_error err = { "" };
	size_t n;
	int rc = rota_gres_parse(v, &l, &n, &err);

	for (size_t i = 0; rc == 0 && i < n; i++)
		if (l[i].type[0])
			rc = rota_errorf(&err, -EINVAL,
					 "'%s:%s': expected NAME[:N]",
					 l[i].name, l[i].type);
	if (rc == 0 && !n)
		rc = rota_errorf(&err, -EINVAL, "none given");
	if (rc < 0) {
		cmd_error("submit", "--licenses %s", err.text);
		free(l);
		return -EINVAL;
	}
	free(o->d.licenses);
	o->d.licenses = rota_gres_text(l, n);
	free(l);
	return 0;
}

/* Refused here already if malformed; the controller checks the ids. */
static int set_dependency(struct submit_opts *o, const char *v)
{
	struct rota_depend d;
	struct rota_error err = { "" };

	if (rota_depend_parse(v, &d, &err) < 0) {
		cmd_error("submit", "--%s", err.text);
		return -EINVAL;
	}
	rota_depend_clear(&d);
	set_str(&o->d.dependency, v);
	return 0;
}

static int apply_value(struct submit_opts *o, int c, const char *v)
{
	long n = 0;
	int rc;

	struct rota_error err;

	switch (c) {
	case 'n': return parse_ntasks(&o->d, v);
	case 'c': return parse_count("cpus-per-task", v, 1,
				     &o->d.cpus_per_task);
	case 'N': return parse_count("nodes", v, 1, &o->d.nodes);
	case OPT_MEM:
		return set_mem(o, "mem", v, &o->d.mem_mb, &o->d.mem_per_cpu_mb);
	case OPT_MEM_PER_CPU:
		return set_mem(o, "mem-per-cpu", v, &o->d.mem_per_cpu_mb,
			       &o->d.mem_mb);
	case OPT_RESERVATION: set_str(&o->d.reservation, v); return 0;
	case 't':
		if (rota_duration_parse(v, ROTA_DURATION_BARE_MINUTES,
					&o->d.time_limit, &err) < 0 ||
		    o->d.time_limit <= 0) {
			cmd_error("submit", "--time '%s': %s", v,
				  o->d.time_limit <= 0 && !err.text[0]
					  ? "must be positive"
					  : err.text);
			return -EINVAL;
		}
		return 0;
	case 'q': case 'p': set_str(&o->d.queue, v); return 0;
	case 'A': set_str(&o->d.account, v); return 0;
	case 'J': set_str(&o->d.name, v); return 0;
	case 'o': set_str(&o->d.output, v); return 0;
	case 'e': set_str(&o->d.error, v); return 0;
	case 'C': set_str(&o->d.constraint, v); return 0;
	case 'D': set_str(&o->chdir, v); return 0;
	case OPT_EXPORT: set_str(&o->export, v); return 0;
	case OPT_WRAP: set_str(&o->wrap, v); return 0;
	case OPT_NO_REQUEUE: o->d.no_requeue = true; return 0;
	case OPT_QOS: set_str(&o->d.qos, v); return 0;
	case OPT_NICE:
		rc = parse_int("nice", v, -10000, 10000, &n);
		o->d.nice = (int32_t)n;
		return rc;
	case OPT_URGENCY:
		rc = parse_int("urgency", v, 1, 31, &n);
		o->d.urgency = (uint32_t)n;
		return rc;
	case OPT_DEADLINE:
		if (rota_jobrec_time_parse(v, (int64_t)time(NULL),
					   &o->d.deadline, &err) < 0 ||
		    o->d.deadline <= 0) {
			cmd_error("submit", "--dl: %s",
				  err.text[0] ? err.text
					      : "must be after 1970");
			return -EINVAL;
		}
		return 0;
	case OPT_JOBSHARE:
		rc = parse_int("jobshare", v, 0, 1000000000, &n);
		o->d.jobshare = (uint32_t)n;
		return rc;
	case OPT_PER_NODE:
		return parse_count("ntasks-per-node", v, 1,
				   &o->d.ntasks_per_node);
	case OPT_EXCLUSIVE: o->d.exclusive = true; return 0;
	case OPT_GPUS: return gpus_opt(&o->gpus, GPU_OPT_GPUS, v);
	case OPT_GPUS_PER_NODE: return gpus_opt(&o->gpus, GPU_OPT_PER_NODE, v);
	case OPT_GPUS_PER_TASK: return gpus_opt(&o->gpus, GPU_OPT_PER_TASK, v);
	case OPT_CPUS_PER_GPU: return gpus_opt(&o->gpus, GPU_OPT_CPUS, v);
	case OPT_MEM_PER_GPU: return gpus_opt(&o->gpus, GPU_OPT_MEM, v);
	case OPT_GRES: return gpus_opt(&o->gpus, GPU_OPT_GRES, v);
	case 'L': return set_licenses(o, v);
	case 'H': o->d.hold = true; return 0;
	case 'a': return set_array(o, v);
	case 'd': return set_dependency(o, v);
	case OPT_KILL_INVALID:
		if (rota_bool_parse(v, &o->d.kill_on_invalid_dep) < 0) {
			cmd_error("submit", "--kill-on-invalid-dep '%s': "
				  "expected yes or no", v);
			return -EINVAL;
		}
		return 0;
	case 'h': o->help = true; return 0;
	default: return -EINVAL;
	}
}

/* getopt over argv; returns the index of the first operand or -EINVAL. */
static int parse_args(struct submit_opts *o, int argc, char **argv,
		      const char *where)
{
	int c;

	o->where = where;
	optind = 0; /* glibc: start afresh, for the second argv */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+n:c:N:t:q:p:A:J:o:e:C:D:d:Ha:hL:",
				longopts, NULL)) != -1) {
		if (c == '?' || c == ':') {
			cmd_error("submit", "%s: unknown option or missing "
				  "value: '%s'", where, argv[optind - 1]);
			return -EINVAL;
		}
		if (apply_value(o, c, optarg) < 0)
			return -EINVAL;
	}
	return optind;
}

/* Collect "#ROTA" words from the script's head into an argv. */
static int parse_directives(struct submit_opts *o, const char *script)
{
	char **argv = rota_xcalloc(2, sizeof(char *));
	int argc = 1, rc = 0;
	const char *line = script;

	argv[0] = "rota";
	if (strncmp(line, "#!", 2) == 0)
		line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "";
	while (*line) {
		const char *end = strchrnul(line, '\n');
		const char *p = line;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p < end && *p != '#')
			break; /* the first command ends the directives */
		if (strncmp(p, "#ROTA", 5) == 0 &&
		    (p[5] == ' ' || p[5] == '\t')) {
			char *words = rota_xstrndup(p + 5, (size_t)(end - p - 5));

			for (char *w = strtok(words, " \t"); w;
			     w = strtok(NULL, " \t")) {
				argv = rota_xreallocarray(argv, (size_t)argc + 2,
							  sizeof(char *));
				argv[argc++] = rota_xstrdup(w);
			}
			free(words);
		}
		line = *end ? end + 1 : end;
	}
	argv[argc] = NULL;
	if (argc > 1) {
		rc = parse_args(o, argc, argv, "#ROTA line");
		if (rc >= 0 && rc < argc) {
			cmd_error("submit", "#ROTA line: unexpected '%s'",
				  argv[rc]);
			rc = -EINVAL;
		}
	}
	for (int i = 1; i < argc; i++)
		free(argv[i]);
	free(argv);
	return rc < 0 ? rc : 0;
}

static char *read_script(const char *path)
{
	FILE *f = path ? fopen(path, "r") : stdin;
	char *buf;
	size_t n;

	if (!f) {
		cmd_error("submit", "script '%s': %s", path, strerror(errno));
		return NULL;
	}
	buf = rota_xmalloc(SCRIPT_MAX + 1);
	n = fread(buf, 1, SCRIPT_MAX + 1, f);
	if (path)
		fclose(f);
	if (n > SCRIPT_MAX) {
		cmd_error("submit", "script '%s': larger than %u bytes",
			  path ? path : "(stdin)", SCRIPT_MAX);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	if (strlen(buf) != n || n == 0) {
		cmd_error("submit", "script '%s': %s", path ? path : "(stdin)",
			  n ? "holds a NUL byte" : "is empty");
		free(buf);
		return NULL;
	}
	return rota_xrealloc(buf, n + 1);
}

static bool wanted(const char *entry, const char *list)
{
	size_t n = strcspn(entry, "=");
	const char *p = list;

	if (strcmp(list, "ALL") == 0)
		return true;
	while (*p) {
		size_t w = strcspn(p, ",");

		if (w == n && strncmp(p, entry, n) == 0)
			return true;
		p += w + (p[w] == ',');
	}
	return false;
}

static char **build_env(const char *export)
{
	size_t n = 0, cap = 8;
	char **env = rota_xcalloc(cap, sizeof(char *));
	bool none = export && strcmp(export, "NONE") == 0;

	for (char **e = environ; *e && n < ROTA_MSG_ENV_MAX; e++) {
		bool base = !none && (strncmp(*e, "PATH=", 5) == 0 ||
				      strncmp(*e, "LANG=", 5) == 0);

		if (!base && !(export && !none && wanted(*e, export)))
			continue;
		if (n + 2 > cap) {
			cap *= 2;
			env = rota_xreallocarray(env, cap, sizeof(char *));
		}
		env[n++] = rota_xstrdup(*e);
	}
	env[n] = NULL;
	return env;
}

static int finish_desc(struct submit_opts *o, const char *path)
{
	char cwd[PATH_MAX];
	const char *base;
	bool cpt_given;

	if (o->chdir && o->chdir[0] == '/') {
		o->d.workdir = rota_xstrdup(o->chdir);
	} else {
		if (!getcwd(cwd, sizeof(cwd))) {
			cmd_error("submit", "current directory: %s",
				  strerror(errno));
			return -EINVAL;
		}
		o->d.workdir = o->chdir ? rota_xasprintf("%s/%s", cwd, o->chdir)
					: rota_xstrdup(cwd);
	}
	if (!o->d.name) {
		base = path ? strrchr(path, '/') : NULL;
		o->d.name = rota_xstrdup(o->wrap ? "wrap"
					 : path	 ? (base ? base + 1 : path)
						 : "stdin");
	}
	/* Slurm's arithmetic: -N 4 --ntasks-per-node=4 is 16 tasks, -N 4 4 */
	if (!o->d.ntasks && o->d.ntasks_per_node)
		o->d.ntasks = o->d.ntasks_per_node *
			      (o->d.nodes ? o->d.nodes : 1);
	if (!o->d.ntasks)
		o->d.ntasks = o->d.nodes ? o->d.nodes : 1;
	cpt_given = o->d.cpus_per_task != 0;
	if (!o->d.cpus_per_task)
		o->d.cpus_per_task = 1;
	if (gpus_apply(&o->gpus, &o->d, cpt_given) < 0)
		return -EINVAL;
	o->d.env = build_env(o->export);
	return 0;
}

static int send_job(struct rota_job_desc *d)
{
	struct rota_reply reply;
	struct rota_error err;
	uint32_t id;
	size_t len;
	char *body = rota_msg_submit_encode(d, &len);
	int rc = cmd_call("submit", ROTA_MSG_SUBMIT, body, len, &reply);

	free(body);
	if (rc < 0)
		return 1;
	rc = rota_msg_submit_reply_decode(reply.body, reply.len, &id, &err);
	rota_reply_clear(&reply);
	if (rc < 0) {
		cmd_error("submit", "bad reply: %s", err.text);
		return 1;
	}
	printf("%u\n", id);
	return 0;
}

static int submit_run(int argc, char **argv)
{
	struct submit_opts o = { 0 };
	const char *path = NULL;
	int first, rc = 2;

	first = parse_args(&o, argc, argv, "option");
	if (first < 0)
		goto out;
	if (o.help) {
		rc = cmd_print_help(&cmd_submit);
		goto out;
	}
	if (first < argc)
		path = argv[first];
	if (first + 1 < argc || (path && o.wrap)) {
		cmd_error("submit", "unexpected argument '%s'",
			  argv[o.wrap ? first : first + 1]);
		goto out;
	}
	o.d.script = o.wrap ? rota_xasprintf("#!/bin/sh\n%s\n", o.wrap)
			    : read_script(path);
	if (!o.d.script)
		goto out;
	/* the script's directives first, then the command line again */
	{
		struct submit_opts s = { .d.script = o.d.script };

		o.d.script = NULL;
		if (parse_directives(&s, s.d.script) < 0 ||
		    parse_args(&s, argc, argv, "option") < 0) {
			rota_job_desc_clear(&s.d);
			free(s.chdir);
			free(s.export);
			free(s.wrap);
			free(s.gpus.other);
			goto out;
		}
		rota_job_desc_clear(&o.d);
		free(o.chdir);
		free(o.export);
		free(o.wrap);
		free(o.gpus.other);
		o = s;
	}
	if (finish_desc(&o, path) < 0)
		goto out;
	rc = send_job(&o.d);
out:
	rota_job_desc_clear(&o.d);
	free(o.chdir);
	free(o.export);
	free(o.wrap);
	free(o.gpus.other);
	return rc;
}

const struct cmd cmd_submit = {
	.name = "submit",
	.summary = "queue a batch script",
	.help = help,
	.run = submit_run,
};
