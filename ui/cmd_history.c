// SPDX-License-Identifier: MIT
/*
 * rota history: finished jobs, from the records jobcomp/file wrote (sacct
 * over Slurm's job completion log).  It reads the file itself, not the
 * controller: the records outlive MinJobAge and a controller that is
 * down.  A job recorded twice (jobcomp hands records over at least once)
 * is shown once, its last record.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/conf.h"
#include "common/jobrec.h"
#include "common/taskset.h"
#include "common/units.h"
#include "common/xalloc.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota history [OPTIONS]\n"
	"\n"
	"List finished jobs, oldest end first, from the job completion file\n"
	"that the JobComp=file line of rota.conf writes (Path=, by default\n"
	"StateDir/jobcomp.json).  Only jobs that ended while that line was\n"
	"there are in it.  Columns: JOBID NAME USER ACCOUNT QUEUE STATE\n"
	"EXIT (code:signal) START END ELAPSED CORES NODES CPUTIME (seconds)\n"
	"MEMPEAK (\"-\": not known, a node without cgroups), and when a job\n"
	"shown held GPUs, GPUS (how many) GPUIDX (which, by node:\n"
	"n01:0,1;n02:3).\n"
	"\n"
	"  -j, --job ID           only this job, or all tasks of array ID;\n"
	"                         a task is named ID_TASK (12_7)\n"
	"  -u, --user LIST        only these users' jobs (comma-separated)\n"
	"  -A, --account LIST     only jobs charged to these accounts\n"
	"  -s, --state LIST       only jobs that ended so: COMPLETED, FAILED,\n"
	"                         CANCELLED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY\n"
	"  -S, --starttime TIME   only jobs still running or waiting at TIME\n"
	"                         or later (they ended at or after it)\n"
	"  -E, --endtime TIME     only jobs that had started (or were\n"
	"                         submitted) by TIME\n"
	"                         TIME: YYYY-MM-DD[THH:MM[:SS]] (local),\n"
	"                         now, now-DURATION (now-2h, now-7d) or\n"
	"                         @UNIXSECONDS\n"
	"  -f, --file FILE        read FILE instead of rota.conf's\n"
	"  -H, --noheader         no column line\n"
	"      --json             the records themselves, a JSON array\n"
	"\n"
	"Lines that are not records (a line torn by a crash) are skipped,\n"
	"with one warning on stderr giving how many.  Exit 0, or 1 when the\n"
	"file cannot be read, 2 for a usage error.\n";

struct history_opts {
	struct rota_jobrec_filter f;
	const char *file;
	bool header;
	bool json;
};

struct row {
	struct rota_jobrec r;
	char *line;
	size_t seq;		/* file order */
	bool hidden;		/* an earlier record of a job seen again */
};

static int parse_time(const char *opt, const char *text, int64_t *out)
{
	struct rota_error err;

	if (rota_jobrec_time_parse(text, (int64_t)time(NULL), out, &err) < 0) {
		cmd_error("history", "%s: %s", opt, err.text);
		return -1;
	}
	return 0;
}

static int parse(int argc, char **argv, struct history_opts *o)
{
	static const struct option longopts[] = {
		{ "job", required_argument, NULL, 'j' },
		{ "user", required_argument, NULL, 'u' },
		{ "account", required_argument, NULL, 'A' },
		{ "state", required_argument, NULL, 's' },
		{ "starttime", required_argument, NULL, 'S' },
		{ "endtime", required_argument, NULL, 'E' },
		{ "file", required_argument, NULL, 'f' },
		{ "noheader", no_argument, NULL, 'H' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	*o = (struct history_opts){ .header = true,
				    .f = { .since = INT64_MIN,
					   .until = INT64_MAX } };
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+j:u:A:s:S:E:f:Hh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'j':
			if (cmd_parse_job_id("history", optarg, &o->f.job) < 0)
				return -1;
			break;
		case 'u': o->f.users = optarg; break;
		case 'A': o->f.accounts = optarg; break;
		case 's': o->f.states = optarg; break;
		case 'S':
			if (parse_time("--starttime", optarg, &o->f.since))
				return -1;
			break;
		case 'E':
			if (parse_time("--endtime", optarg, &o->f.until))
				return -1;
			break;
		case 'f': o->file = optarg; break;
		case 'H': o->header = false; break;
		case 'J': o->json = true; break;
		case 'h': return 1;
		default:
			cmd_error("history", "unknown option '%s'",
				  argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		cmd_error("history", "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return 0;
}

/* The file rota.conf's JobComp=file line writes; caller frees. */
static char *conf_file(void)
{
	const char *path = rota_conf_default_path();
	struct rota_conf *conf;
	struct rota_error err;
	char *file = NULL;

	if (rota_conf_load(path, &conf, &err) < 0) {
		cmd_error("history", "%s", err.text);
		return NULL;
	}
	for (size_t i = 0; i < conf->nsections && !file; i++) {
		const struct rota_conf_section *s = &conf->sections[i];

		if (strcasecmp(s->kind, "JobComp") || strcmp(s->name, "file"))
			continue;
		for (size_t k = 0; k < s->nsettings && !file; k++)
			if (strcasecmp(s->settings[k].key, "Path") == 0)
				file = rota_xstrdup(s->settings[k].value);
		if (!file)
			file = rota_xasprintf("%s/jobcomp.json",
					      conf->state_dir);
	}
	if (!file)
		cmd_error("history", "%s has no JobComp=file line (use --file)",
			  conf->path);
	rota_conf_destroy(conf);
	return file;
}

static int by_id_then_seq(const void *a, const void *b)
{
	const struct row *x = *(struct row *const *)a;
	const struct row *y = *(struct row *const *)b;

	if (x->r.id != y->r.id)
		return x->r.id < y->r.id ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Hide all but the last record of each job. */
static void dedupe(struct row *rows, size_t n)
{
	struct row **idx = rota_xcalloc(n + 1, sizeof(*idx));

	for (size_t i = 0; i < n; i++)
		idx[i] = &rows[i];
	qsort(idx, n, sizeof(*idx), by_id_then_seq);
	for (size_t i = 0; i + 1 < n; i++)
		if (idx[i]->r.id == idx[i + 1]->r.id)
			idx[i]->hidden = true;
	free(idx);
}

/* Read and select; returns the rows (caller frees) or NULL on error. */
static struct row *load(const char *file, const struct history_opts *o,
			size_t *n)
{
	FILE *f = fopen(file, "r");
	struct row *rows = NULL;
	size_t cap = 0, bad = 0, seq = 0, lcap = 0;
	struct rota_error err;
	char *line = NULL;
	ssize_t len;

	*n = 0;
	if (!f) {
		cmd_error("history", "%s: %s", file, strerror(errno));
		return NULL;
	}
	while ((len = getline(&line, &lcap, f)) >= 0) {
		struct rota_jobrec r;

		seq++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len == 0)
			continue;
		if (rota_jobrec_decode(line, (size_t)len, &r, &err) < 0) {
			bad++;
			continue;
		}
		if (!rota_jobrec_match(&r, &o->f)) {
			rota_jobrec_clear(&r);
			continue;
		}
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			rows = rota_xreallocarray(rows, cap, sizeof(*rows));
		}
		rows[(*n)++] = (struct row){ .r = r, .seq = seq,
					     .line = rota_xstrdup(line) };
	}
	free(line);
	fclose(f);
	if (bad)
		fprintf(stderr, "rota history: %s: %zu malformed line%s "
				"skipped\n", file, bad, bad == 1 ? "" : "s");
	dedupe(rows, *n);
	return rows ? rows : rota_xcalloc(1, sizeof(*rows));
}

static void format_time(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!t || !localtime_r(&tt, &tm))
		snprintf(buf, len, "-");
	else
		strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
}

/* CPU seconds ("12.345") and peak ("83M", "640K"); "-" when not known. */
static void format_usage(const struct rota_jobrec *r, char *cpu, size_t clen,
			 char *peak, size_t plen)
{
	snprintf(cpu, clen, "-");
	snprintf(peak, plen, "-");
	if (r->cpu_usec)
		snprintf(cpu, clen, "%llu.%03llu",
			 (unsigned long long)(r->cpu_usec / 1000000),
			 (unsigned long long)(r->cpu_usec / 1000 % 1000));
	if (r->mem_peak >= 1 << 20)
		rota_size_format_mb(r->mem_peak >> 20, peak, plen);
	else if (r->mem_peak)
		snprintf(peak, plen, "%lluK",
			 (unsigned long long)(r->mem_peak + 1023) >> 10);
}

/*
 * The GPU columns: how many and which, the nodes apart by ';' (one
 * word: "n01:0,1;n02:3"); "-" for a job without.
 */
static void print_gpus(const struct rota_jobrec *r)
{
	if (!r->gpus || !r->gpu_idx) {
		printf(" %4u %s\n", r->gpus, "-");
		return;
	}
	printf(" %4u ", r->gpus);
	for (const char *p = r->gpu_idx; *p; p++)
		putchar(*p == ' ' ? ';' : *p);
	putchar('\n');
}

static void print_row(const struct rota_jobrec *r, bool gpus)
{
	char start[32], end[32], elapsed[32], exit[24], cpu[32], peak[32];
	/* a task of an array "12_7", a rest that never started "12_[3-9]" */
	char *id = r->array_job_id ? rota_array_job_name(r->array_job_id,
							 r->array_task_id,
							 r->array_tasks, 0)
				   : rota_xasprintf("%u", r->id);

	format_time(r->start, start, sizeof(start));
	format_time(r->end, end, sizeof(end));
	rota_duration_format(r->start ? r->end - r->start : 0, elapsed,
			     sizeof(elapsed));
	snprintf(exit, sizeof(exit), "%d:%d", r->exit_code, r->signal);
	format_usage(r, cpu, sizeof(cpu), peak, sizeof(peak));
	printf("%-8s %-12.12s %-10.10s %-10.10s %-8s %-10s %-6s %-19s "
	       "%-19s %-11s %5u %-8s %9s %-*s",
	       id, r->name, r->user, r->account, r->queue, r->state, exit,
	       start, end, elapsed, r->cores, r->nodes[0] ? r->nodes : "-",
	       cpu, gpus ? 7 : 0, peak);
	if (gpus)
		print_gpus(r);
	else
		putchar('\n');
	free(id);
}

static void print(const struct row *rows, size_t n,
		  const struct history_opts *o)
{
	bool first = true, gpus = false;

	if (o->json) {
		printf("[");
		for (size_t i = 0; i < n; i++) {
			if (rows[i].hidden)
				continue;
			printf("%s\n%s", first ? "" : ",", rows[i].line);
			first = false;
		}
		printf("%s]\n", first ? "" : "\n");
		return;
	}
	/* GPUS and GPUIDX last, when a job shown held GPUs */
	for (size_t i = 0; i < n; i++)
		gpus |= !rows[i].hidden && rows[i].r.gpus;
	if (o->header)
		printf("%-8s %-12s %-10s %-10s %-8s %-10s %-6s %-19s %-19s "
		       "%-11s %5s %-8s %9s %-*s%s\n",
		       "JOBID", "NAME", "USER", "ACCOUNT", "QUEUE", "STATE",
		       "EXIT", "START", "END", "ELAPSED", "CORES", "NODES",
		       "CPUTIME", gpus ? 7 : 0, "MEMPEAK",
		       gpus ? " GPUS GPUIDX" : "");
	for (size_t i = 0; i < n; i++)
		if (!rows[i].hidden)
			print_row(&rows[i].r, gpus);
}

static int history_run(int argc, char **argv)
{
	struct history_opts o;
	struct row *rows;
	char *file;
	size_t n;
	int rc = parse(argc, argv, &o);

	if (rc > 0)
		return cmd_print_help(&cmd_history);
	if (rc < 0)
		return 2;
	file = o.file ? rota_xstrdup(o.file) : conf_file();
	if (!file)
		return 1;
	rows = load(file, &o, &n);
	free(file);
	if (!rows)
		return 1;
	print(rows, n, &o);
	for (size_t i = 0; i < n; i++) {
		rota_jobrec_clear(&rows[i].r);
		free(rows[i].line);
	}
	free(rows);
	return 0;
}

const struct cmd cmd_history = {
	.name = "history",
	.summary = "finished jobs, from the job completion records",
	.help = help,
	.run = history_run,
};
