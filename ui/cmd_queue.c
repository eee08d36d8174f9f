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
#include "common/proto.h"
#include "common/strbuf.h"
#include "common/units.h"
#include "common/xalloc.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota queue [-a] [-u USER] [-t STATE] [-j JOB] [--noheader] "
	"[--json]\n"
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
	"      --start        pending jobs with their expected start time\n"
	"                     (backfill's reservation; N/A without one), as\n"
	"                     squeue --start: JOBID QUEUE NAME USER ST\n"
	"                     START_TIME NODES NODELIST(REASON)\n"
	"  -H, --noheader     no header line\n"
	"      --json         the same jobs in full, one JSON object (every\n"
	"                     field of 'rota show job'; docs/json.md)\n"
	"  -h, --help         this text\n";

struct filter {
	bool all;
	bool start;
	const char *user;
	enum rota_job_state state;
	uint32_t job;
	bool noheader;
	bool json;
};

static bool keep(const struct filter *f, const struct rota_job_row *r)
{
	if (f->job && r->id != f->job)
		return false;
	if (f->state ? r->state != f->state
		     : !f->all && !f->job && rota_job_state_is_final(r->state))
		return false;
	return !f->user || strcmp(f->user, r->user) == 0;
}

/* 's' right-aligned in 'width' columns, cut to fit (printf's %W.Ws). */
static void put_right(struct rota_strbuf *b, const char *s, size_t width)
{
	static const char spaces[] = "                                ";
	size_t n = strnlen(s, width);

	rota_strbuf_add(b, spaces, width - n);
	rota_strbuf_add(b, s, n);
	rota_strbuf_add(b, " ", 1);
}

static void put_uint(struct rota_strbuf *b, uint64_t v, size_t width)
{
	char tmp[24];
	char *p = tmp + sizeof(tmp) - 1;

	*p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put_right(b, p, width);
}

/*
 * One line per job, formatted by hand into one buffer: printf per field
 * would cost more than everything else in a 50,000-job listing.
 */
static void put_row(struct rota_strbuf *b, const struct rota_job_row *r,
		    int64_t now)
{
	char t[32] = "00:00:00";
	int64_t used = 0;

	if (r->state == ROTA_JOB_RUNNING)
		used = now - r->start_time;
	else if (r->start_time && r->end_time)
		used = r->end_time - r->start_time;
	if (used > 0)
		rota_duration_format(used, t, sizeof(t));
	put_uint(b, r->id, 8);
	put_right(b, r->queue, 9);
	put_right(b, r->name, 8);
	put_right(b, r->user, 8);
	put_right(b, rota_job_state_short(r->state), 2);
	put_right(b, t, 10);
	put_uint(b, r->nodes, 5);
	if (r->state == ROTA_JOB_PENDING) {
		rota_strbuf_add(b, "(", 1);
		rota_strbuf_adds(b, r->where);
		rota_strbuf_add(b, ")\n", 2);
	} else {
		rota_strbuf_adds(b, r->where);
		rota_strbuf_add(b, "\n", 1);
	}
}

static int fetch_rows(struct rota_msg_job_rows *m)
{
	struct rota_reply reply;
	struct rota_error err;
	int rc = cmd_call("queue", ROTA_MSG_JOB_ROWS, "{}", 2, &reply);

	if (rc < 0)
		return rc;
	rc = rota_msg_job_rows_decode(reply.body, reply.len, m, &err);
	rota_reply_clear(&reply);
	if (rc < 0)
		cmd_error("queue", "bad reply: %s", err.text);
	return rc;
}

static int parse(int argc, char **argv, struct filter *f)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "user", required_argument, NULL, 'u' },
		{ "state", required_argument, NULL, 't' },
		{ "job", required_argument, NULL, 'j' },
		{ "noheader", no_argument, NULL, 'H' },
		{ "start", no_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'J' },
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
		case 'S': f->start = true; break;
		case 'J': f->json = true; break;
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

/* --json: the full records of the jobs the filters keep (docs/json.md). */
static int queue_json(const struct filter *f)
{
	struct rota_msg_job_list list;
	struct rota_job_info *keep_jobs;
	size_t n = 0, len;
	char *text;

	if (cmd_fetch_jobs("queue", 0, &list) < 0)
		return 1;
	keep_jobs = rota_xcalloc(list.njobs + 1, sizeof(*keep_jobs));
	for (size_t i = 0; i < list.njobs; i++) {
		const struct rota_job_info *j = &list.jobs[i];
		struct rota_job_row r = { .id = j->id, .state = j->state,
					  .user = j->user ? j->user : "" };

		if (keep(f, &r))
			keep_jobs[n++] = *j;
	}
	text = rota_msg_job_list_encode(keep_jobs, n, list.now, &len);
	printf("%s\n", text);
	free(text);
	free(keep_jobs);
	rota_msg_job_list_clear(&list);
	return fflush(stdout) == 0 ? 0 : 1;
}

static int queue_run(int argc, char **argv)
{
	struct filter f = { 0 };
	struct rota_msg_job_rows m;
	struct rota_strbuf out = { 0 };
	int rc = parse(argc, argv, &f);

	if (rc >= 0)
		return rc;
	if (f.start)
		return queue_start(f.user, f.job, f.noheader);
	if (f.json)
		return queue_json(&f);
	if (fetch_rows(&m) < 0)
		return 1;
	if (!f.noheader)
		rota_strbuf_addf(&out, "%8s %9s %8s %8s %2s %10s %5s %s\n",
				 "JOBID", "QUEUE", "NAME", "USER", "ST", "TIME",
				 "NODES", "NODELIST(REASON)");
	for (size_t i = 0; i < m.n; i++) {
		if (keep(&f, &m.rows[i]))
			put_row(&out, &m.rows[i], m.now);
	}
	rc = out.len && fwrite(out.data, 1, out.len, stdout) != out.len;
	rota_strbuf_fini(&out);
	rota_msg_job_rows_clear(&m);
	if (rc || fflush(stdout) != 0) {
		cmd_error("queue", "writing the listing failed");
		return 1;
	}
	return 0;
}

const struct cmd cmd_queue = {
	.name = "queue",
	.summary = "list jobs",
	.help = help,
	.run = queue_run,
};
