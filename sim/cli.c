// SPDX-License-Identifier: MIT
/*
 * rota sim: replay a workload trace through the scheduling core on a
 * virtual clock.  This file is the program rota-sim, which rota execs
 * with the subcommand's arguments (ui/cmd_helper.c says why): it reads
 * the options, prints the help, shows progress on a terminal and writes
 * the outputs; engine.c does the replay.  It uses nothing of ui/ (the
 * arrows of DESIGN.md), so its errors are printed here, in rota's
 * "rota sim: " form, and rota's `rota help sim` runs it for its help.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "sim/sim.h"

/* rota help sim and rota sim --help both print it (ui/cmd_sim.c) */
static const char help[] =
	"usage: rota sim --trace FILE [--config FILE] [OPTIONS]\n"
	"       rota sim --trace FILE --compare A.conf B.conf ...\n"
	"\n"
	"Replay a workload trace in the Standard Workload Format (.swf, or\n"
	".swf.gz) through the scheduling core and policy plugins of\n"
	"rota-ctld on a virtual clock, and print what the queue would have\n"
	"looked like: utilization, mean, median and 95th percentile wait,\n"
	"mean bounded slowdown (10 s threshold), makespan, jobs started by\n"
	"backfill, and how evenly users were slowed (Jain's index of their\n"
	"mean bounded slowdowns, and the worst user's).\n"
	"\n"
	"Each job is submitted at its submit time asking its requested\n"
	"processors (its allocated ones where the request is -1), one core\n"
	"each, with its requested time as the limit, and runs for its\n"
	"recorded run time, cut at the limit (TIMEOUT).  Trace user N and\n"
	"group G become user uN in account gG: an AccountName line per group\n"
	"and a UserName line per user and group are added to the config\n"
	"unless it declares them.  Jobs wider than the machine, of run time\n"
	"0, cancelled before they started (status 5, run time 0 or -1), of\n"
	"unknown size or run time, or refused by the core are skipped and\n"
	"counted.  See docs/sim.md for what is modelled and what is not.\n"
	"\n"
	"  -t, --trace FILE         the trace (required)\n"
	"  -c, --config FILE        rota.conf: its NodeName, QueueName,\n"
	"                           accounts and Priority=, Fairshare=,\n"
	"                           Limits=, Sched= lines and PluginDir\n"
	"                           (default: none, the default policy)\n"
	"      --flat               the machine from the trace header: one\n"
	"                           node of MaxProcs cores\n"
	"      --nodes              MaxNodes nodes of MaxProcs/MaxNodes cores\n"
	"                           (with --flat or --nodes the config must\n"
	"                           not declare nodes)\n"
	"      --estimates WHICH    the limit: 'requested' time (default) or\n"
	"                           the 'actual' run time (perfect estimates)\n"	"      --policy NAME        the literature's algorithm, in place of\n"
	"                           the config's Priority= and Sched= lines:\n"
	"                           fcfs, easy, easy-sjbf (shortest job\n"
	"                           backfilled first) or conservative; first\n"
	"                           come first served, no caps, no window,\n"
	"                           1 s resolution; implies --semantics=pyss\n"
	"                           unless it is given\n"
	"      --semantics WHICH    when passes run: 'rota' (default: as\n"
	"                           rota-ctld, a second's ends, then its\n"
	"                           submits, then one pass; backfill every\n"
	"                           Interval) or 'pyss' (a second's submits,\n"
	"                           then its ends, a main and a backfill pass\n"
	"                           after each, the cores of jobs reaching\n"
	"                           their limit free from the second's\n"
	"                           start, as the pyss simulator of many\n"
	"                           published studies)\n"
	"      --filter WHICH       'default': skip (and count) the jobs that\n"
	"                           cannot be replayed (below); 'strict': the\n"
	"                           literature's usual filter too (predictsim's,\n"
	"                           Gaussier et al. 2015): no requested time,\n"
	"                           a negative submit time, or requested or\n"
	"                           allocated processors beyond the machine\n"
	"      --size WHICH         a job's cores: 'requested' processors\n"
	"                           (default; allocated where -1),\n"
	"                           'allocated' (requested where -1) or 'max'\n"
	"                           of the two\n"
	"      --dependencies       SWF fields 17 and 18: a job naming an\n"
	"                           earlier job of the trace as its\n"
	"                           preceding job is submitted when that job\n"
	"                           ends plus its think time (-1: the gap the\n"
	"                           log recorded, else 0), instead of at its\n"
	"                           recorded time; if that job is not\n"
	"                           replayed, at its recorded time.  Naming\n"
	"                           itself, a later job or no job of the\n"
	"                           trace is ignored and counted\n"
	"      --queues             SWF field 15: queue number N is the\n"
	"                           config's N-th QueueName line (-1 or 0:\n"
	"                           the default queue; no such queue: the\n"
	"                           job is refused); without it every job\n"
	"                           goes to the default queue\n"
	"      --lenient            skip and count malformed trace lines\n"
	"                           (default: the first is an error)\n"
	"      --csv FILE           one line per job: id, submit, start, end,\n"
	"                           nodes, cores, wait, priority at start,\n"
	"                           backfilled, timeout (times in trace\n"
	"                           seconds; submit as replayed; start -1:\n"
	"                           never started)\n"
	"      --per-user           each account's and user's share of the\n"
	"                           trace's core-seconds against its\n"
	"                           normalized share (a table per config)\n"
	"      --svg FILE           utilization and queue length over time,\n"
	"                           the waits' distribution and bounded\n"
	"                           slowdown by job size, with --compare\n"
	"                           every config overlaid\n"
	"      --compare            run every config named after the options\n"
	"                           on the same trace; one table side by side\n"
	"      --every-pass         visit every periodic tick, also while the\n"
	"                           machine is idle, and run every pass, also\n"
	"                           when nothing changed (slower; the same\n"
	"                           results)\n"
	"  -q, --quiet              no progress bar (shown only when stderr\n"
	"                           is a terminal)\n"
	"\n"
	"The same trace and config always print the same bytes.  Exit 0, 1\n"
	"when the trace or a config cannot be read or is refused, 2 for a\n"
	"usage error.\n";

/* "rota sim: text" on stderr, as every rota command's user errors. */
static void sim_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static void sim_error(const char *fmt, ...)
{
	va_list ap;

	fputs("rota sim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

struct sim_opts {
	struct sim_options o;
	const char *trace;
	const char *csv;
	const char *svg;
	bool lenient;
	bool compare;
	bool quiet;
	char **configs;		/* --compare: the configs */
	int nconfigs;
};

static int parse_estimates(const char *text, enum sim_estimates *out)
{
	if (strcmp(text, "requested") == 0)
		*out = SIM_ESTIMATES_REQUESTED;
	else if (strcmp(text, "actual") == 0)
		*out = SIM_ESTIMATES_ACTUAL;
	else {
		sim_error("--estimates: '%s': use requested or actual",
			  text);
		return -1;
	}
	return 0;
}

/* 'text' among 'names' (NULL-terminated) into *out; else one line. */
static int parse_choice(const char *opt, const char *text,
			const char *const *names, int *out)
{
	for (int i = 0; names[i]; i++) {
		if (names[i][0] && strcmp(text, names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	sim_error("--%s: '%s': use %s", opt, text,
		  strcmp(opt, "policy") == 0
			  ? "fcfs, easy, easy-sjbf or conservative"
		  : strcmp(opt, "semantics") == 0
			  ? "rota or pyss"
		  : strcmp(opt, "filter") == 0
			  ? "default or strict"
			  : "requested, allocated or max");
	return -1;
}

static int check(struct sim_opts *s, int argc, char **argv)
{
	if (!s->trace) {
		sim_error("--trace FILE is required");
		return -1;
	}
	if (s->compare) {
		s->configs = argv + optind;
		s->nconfigs = argc - optind;
		if (s->nconfigs < 1 || s->o.config || s->csv) {
			sim_error("--compare takes the configs as "
					 "arguments, and no --config or --csv");
			return -1;
		}
		return 0;
	}
	if (optind < argc) {
		sim_error("unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return 0;
}

static int parse(int argc, char **argv, struct sim_opts *s)
{
	static const struct option longopts[] = {
		{ "trace", required_argument, NULL, 't' },
		{ "config", required_argument, NULL, 'c' },
		{ "flat", no_argument, NULL, 'F' },
		{ "nodes", no_argument, NULL, 'N' },
		{ "estimates", required_argument, NULL, 'e' },
		{ "lenient", no_argument, NULL, 'l' },
		{ "csv", required_argument, NULL, 'C' },
		{ "svg", required_argument, NULL, 'S' },
		{ "compare", no_argument, NULL, 'm' },
		{ "every-pass", no_argument, NULL, 'E' },
		{ "dependencies", no_argument, NULL, 'D' },
		{ "queues", no_argument, NULL, 'Q' },
		{ "policy", required_argument, NULL, 'P' },
		{ "filter", required_argument, NULL, 'f' },
		{ "per-user", no_argument, NULL, 'U' },
		{ "semantics", required_argument, NULL, 's' },
		{ "size", required_argument, NULL, 'z' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool semantics = false;
	int c, v;

	*s = (struct sim_opts){ 0 };
	opterr = 0;
	/* options may follow --compare's configs: getopt permutes them */
	while ((c = getopt_long(argc, argv, "t:c:qh", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 't': s->trace = optarg; break;
		case 'c': s->o.config = optarg; break;
		case 'F': s->o.cluster = SIM_CLUSTER_FLAT; break;
		case 'N': s->o.cluster = SIM_CLUSTER_NODES; break;
		case 'e':
			if (parse_estimates(optarg, &s->o.estimates) < 0)
				return -1;
			break;
		case 'l': s->lenient = true; break;
		case 'C': s->csv = optarg; break;
		case 'S': s->svg = optarg; s->o.timeline = true; break;
		case 'm': s->compare = true; break;
		case 'E': s->o.every_pass = true; break;
		case 'D': s->o.dependencies = true; break;
		case 'Q': s->o.queues = true; break;
		case 'U': s->o.per_user = true; break;
		case 'f':
			if (parse_choice("filter", optarg, (const char *[]){
				"default", "strict", NULL }, &v) < 0)
				return -1;
			s->o.filter = (enum sim_filter)v;
			break;
		case 'P':
			/* the enum's order: "" is the config's own */
			if (parse_choice("policy", optarg, (const char *[]){
				"", "fcfs", "easy", "easy-sjbf",
				"conservative", NULL }, &v) < 0)
				return -1;
			s->o.policy = (enum sim_policy)v;
			break;
		case 's':
			if (parse_choice("semantics", optarg, (const char *[]){
				"rota", "pyss", NULL }, &v) < 0)
				return -1;
			s->o.semantics = (enum sim_semantics)v;
			semantics = true;
			break;
		case 'z':
			if (parse_choice("size", optarg, (const char *[]){
				"requested", "allocated", "max", NULL },
				&v) < 0)
				return -1;
			s->o.size = (enum sim_size)v;
			break;
		case 'q': s->quiet = true; break;
		case 'h': return 1;
		default:
			sim_error("unknown option '%s'",
				  argv[optind - 1]);
			return -1;
		}
	}
	if (s->o.policy != SIM_POLICY_CONFIG && !semantics)
		s->o.semantics = SIM_SEMANTICS_PYSS;
	return check(s, argc, argv);
}

/* stderr is a terminal: "rota sim: [#####.....]  52%  105000/202871" */
static void progress_cb(void *arg, size_t done, size_t total)
{
	const char *label = arg;
	int width = 30;
	int fill = total ? (int)((double)done / (double)total * width) : width;

	fprintf(stderr, "\rrota sim: %s [%.*s%*s] %3d%% %zu/%zu jobs", label,
		fill, "##############################", width - fill, "",
		total ? (int)(100.0 * (double)done / (double)total) : 100,
		done, total);
	if (done == total)
		fputs("\r\033[K", stderr);
	fflush(stderr);
}

/* sim_report_csv in write_out's form: one run, the first. */
static int csv_out(FILE *f, const struct sim_result *r, size_t n)
{
	(void)n;
	return sim_report_csv(f, r);
}

static int write_out(const char *path, const struct sim_result *r, size_t n,
		     int (*fn)(FILE *, const struct sim_result *, size_t))
{
	FILE *f = fopen(path, "w");
	int rc;

	if (!f) {
		sim_error("%s: %s", path, strerror(errno));
		return -1;
	}
	rc = fn(f, r, n);
	if (fclose(f) != 0 || rc < 0) {
		sim_error("%s: write error", path);
		return -1;
	}
	return 0;
}

static int run_one(struct sim_opts *s, const struct swf_trace *t,
		   const char *config, struct sim_result *r)
{
	struct rota_error err = { "" };
	const char *label = config ? config : "(defaults)";

	s->o.config = config;
	if (!s->quiet && isatty(STDERR_FILENO)) {
		s->o.progress = progress_cb;
		s->o.progress_arg = (void *)label;
	}
	if (sim_run(&s->o, t, r, &err) < 0) {
		sim_error("%s", err.text);
		return -1;
	}
	return 0;
}

static int sim_main(struct sim_opts *s, const struct swf_trace *t)
{
	int n = s->compare ? s->nconfigs : 1;
	struct sim_result *r = rota_xcalloc((size_t)n, sizeof(*r));
	int rc = 0;

	/* every config read and its plugins loaded before the first run */
	for (int i = 0; i < n && rc == 0; i++) {
		struct rota_error err = { "" };

		s->o.config = s->compare ? s->configs[i] : s->o.config;
		rc = sim_check(&s->o, t, &err);
		if (rc < 0)
			sim_error("%s", err.text);
	}
	for (int i = 0; i < n && rc == 0; i++)
		rc = run_one(s, t, s->compare ? s->configs[i] : s->o.config,
			     &r[i]);
	if (rc == 0)
		printf("trace         %s\n", s->trace);
	if (rc == 0 && s->compare)
		sim_report_compare(stdout, r, (size_t)n);
	else if (rc == 0)
		sim_report_print(stdout, &r[0]);
	for (int i = 0; rc == 0 && s->o.per_user && i < n; i++)
		sim_report_shares(stdout, &r[i]);
	if (rc == 0 && s->csv)
		rc = write_out(s->csv, r, 1, csv_out);
	if (rc == 0 && s->svg)
		rc = write_out(s->svg, r, (size_t)n, sim_report_svg);
	for (int i = 0; i < n; i++)
		sim_result_fini(&r[i]);
	free(r);
	return rc < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct sim_opts s;
	struct swf_trace t;
	struct rota_error err = { "" };
	int rc = parse(argc, argv, &s);

	if (rc > 0) {
		fputs(help, stdout);
		return 0;
	}
	if (rc < 0)
		return 2;
	if (swf_read(s.trace, s.lenient, &t, &err) < 0) {
		sim_error("%s", err.text);
		return 1;
	}
	rc = sim_main(&s, &t);
	swf_trace_fini(&t);
	return rc;
}
