// SPDX-License-Identifier: MIT
/*
 * rota queue: one line per job, squeue's columns, stable for scripts.
 * Pending and running jobs by default; --all adds those that ended in the
 * last MinJobAge.
 */
#include "config.h"

#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/msg.h"
#include "common/units.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota queue [-a] [-u USER] [-t STATE] [-j JOB] [--noheader]\n"
	"\n"
	"List jobs, one per line: JOBID QUEUE NAME USER ST TIME NODES\n"
	"NODELIST(REASON).  TIME is the time a running job has used.  ST is\n"
	"PD pending, R running, CD completed, F failed, CA cancelled,\n"
	"TO timeout, NF node failure.\n"
	"\n"
	"  -a, --all          also jobs that ended recently (MinJobAge)\n"
	"  -u, --user=USER    only this user's jobs ('me' for yours)\n"
	"  -t, --state=STATE  only jobs in this state (PENDING, PD, R, ...)\n"
	"  -j, --job=JOB      only this job\n"
	"  -H, --noheader     no header line\n"
	"  -h, --help         this text\n";

struct filter {
	bool all;
	const char *user;
	enum rota_job_state state;
	uint32_t job;
	bool noheader;
};

static bool keep(const struct filter *f, const struct rota_job_info *j)
{
	if (f->job && j->id != f->job)
		return false;
	if (f->state ? j->state != f->state
		     : !f->all && !f->job && rota_job_state_is_final(j->state))
		return false;
	return !f->user || strcmp(f->user, j->user ? j->user : "") == 0;
}

static void print_job(const struct rota_job_info *j, int64_t now)
{
	char t[32];
	int64_t used = 0;

	if (j->state == ROTA_JOB_RUNNING)
		used = now - j->start_time;
	else if (rota_job_state_is_final(j->state) && j->start_time)
		used = j->end_time - j->start_time;
	rota_duration_format(used < 0 ? 0 : used, t, sizeof(t));
	printf("%8u %9.9s %8.8s %8.8s %2s %10s %5u ", j->id,
	       j->queue ? j->queue : "", j->name ? j->name : "",
	       j->user ? j->user : "", rota_job_state_short(j->state), t,
	       j->nodes ? j->nodes : 1);
	if (j->state == ROTA_JOB_PENDING)
		printf("(%s)\n", j->reason ? j->reason : "None");
	else
		printf("%s\n", j->nodelist ? j->nodelist : "");
}

static int parse(int argc, char **argv, struct filter *f)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "user", required_argument, NULL, 'u' },
		{ "state", required_argument, NULL, 't' },
		{ "job", required_argument, NULL, 'j' },
		{ "noheader", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "au:t:j:Hh", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'a': f->all = true; break;
		case 'u': f->user = optarg; break;
		case 't':
			if (rota_job_state_parse(optarg, &f->state) < 0) {
				cmd_error("queue", "--state '%s': unknown",
					  optarg);
				return 2;
			}
			break;
		case 'j':
			if (cmd_parse_job_id("queue", optarg, &f->job) < 0)
				return 2;
			break;
		case 'H': f->noheader = true; break;
		case 'h': cmd_print_help(&cmd_queue); return 0;
		default: fputs(help, stderr); return 2;
		}
	}
	if (optind < argc) {
		cmd_error("queue", "unexpected argument '%s'", argv[optind]);
		return 2;
	}
	if (f->user && strcmp(f->user, "me") == 0) {
		struct passwd *pw = getpwuid(getuid());

		f->user = pw ? pw->pw_name : "?";
	}
	return -1;
}

static int queue_run(int argc, char **argv)
{
	struct filter f = { 0 };
	struct rota_msg_job_list list;
	int rc = parse(argc, argv, &f);

	if (rc >= 0)
		return rc;
	if (cmd_fetch_jobs("queue", 0, &list) < 0)
		return 1;
	if (!f.noheader)
		printf("%8s %9s %8s %8s %2s %10s %5s %s\n", "JOBID", "QUEUE",
		       "NAME", "USER", "ST", "TIME", "NODES",
		       "NODELIST(REASON)");
	for (size_t i = 0; i < list.njobs; i++) {
		if (keep(&f, &list.jobs[i]))
			print_job(&list.jobs[i], list.now);
	}
	rota_msg_job_list_clear(&list);
	return 0;
}

const struct cmd cmd_queue = {
	.name = "queue",
	.summary = "list jobs",
	.help = help,
	.run = queue_run,
};
