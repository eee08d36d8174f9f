// SPDX-License-Identifier: MIT
/*
 * rota showq: the queue in Maui's form (showq, Maui Admin Guide,
 * Commands): ACTIVE JOBS, IDLE JOBS and BLOCKED JOBS, each with its count,
 * then the processors and nodes in use and the totals.  Sorting the jobs
 * into the three sections is the one decision this file makes: the
 * controller's pending reason says whether a job is eligible.
 */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/msg.h"
#include "common/proto.h"
#include "common/strbuf.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota showq [-u USER] [--json]\n"
	"\n"
	"Show the queue as Maui's showq does, in three sections:\n"
	"\n"
	"ACTIVE JOBS   running: JOBNAME (the job id), USERNAME, STATE, PROC\n"
	"              (tasks x cpus per task), REMAINING (of its time\n"
	"              limit) and STARTTIME, the soonest to end first.\n"
	"IDLE JOBS     pending and eligible: their reason is Priority,\n"
	"              Resources, Reservation, MaxPS soft (98696 > 72000: it\n"
	"              may start when nothing else is eligible) or none.\n"
	"              WCLIMIT is the time limit, QUEUETIME the submit time;\n"
	"              oldest first ('rota prio' shows the order they will\n"
	"              run in).\n"
	"BLOCKED JOBS  pending and not eligible: held (UserHold for\n"
	"              JobHeldUser, SystemHold for JobHeldAdmin) or Blocked,\n"
	"              by a limit (MaxIdlePerUser (8 of 8), MaxPS hard\n"
	"              (1106700 > 1080000), ...) or waiting on a Dependency;\n"
	"              with the reason.  Any reason not named under IDLE JOBS\n"
	"              blocks.\n"
	"\n"
	"Each section ends with its count.  The summary counts processors in\n"
	"use and nodes with a job on them, of the nodes that are UP, for the\n"
	"whole machine even with -u; times are D:HH:MM:SS.\n"
	"\n"
	"  -u, --user=USER  only this user's jobs ('me' for yours)\n"
	"      --json       one JSON object: active, idle and blocked arrays\n"
	"                   (times in seconds and Unix seconds) and summary\n"
	"  -h, --help       this text\n";

enum showq_section {
	SQ_NONE,
	SQ_ACTIVE,
	SQ_IDLE,
	SQ_BLOCKED,
};

struct showq_opts {
	const char *user;
	bool json;
};

/* The whole machine, for the summary. */
struct showq_sum {
	size_t n[SQ_BLOCKED + 1];
	uint64_t procs_used;
	uint64_t procs_total;
	size_t nodes_active;
	size_t nodes_total;
};

/*
 * The reasons of a pending job that can start: anything else blocks.  A
 * job over MaxPS soft is idle, as in seed 003's showq: the limit is
 * weighed as it would start, and it may start once nothing else is
 * eligible.
 */
static bool is_eligible_reason(const char *reason)
{
	static const char *const idle[] = {
		"", "None", "Priority", "Resources", "Reservation", NULL,
	};

	for (size_t i = 0; idle[i]; i++)
		if (strcmp(reason, idle[i]) == 0)
			return true;
	return strncmp(reason, "MaxPS soft ", 11) == 0;
}

static const char *reason_of(const struct rota_job_info *j)
{
	return j->reason ? j->reason : "";
}

static enum showq_section section_of(const struct rota_job_info *j)
{
	if (j->state == ROTA_JOB_RUNNING)
		return SQ_ACTIVE;
	if (j->state != ROTA_JOB_PENDING)
		return SQ_NONE;
	return is_eligible_reason(reason_of(j)) ? SQ_IDLE : SQ_BLOCKED;
}

/* Maui's STATE column. */
static const char *state_name(const struct rota_job_info *j,
			      enum showq_section s)
{
	if (s == SQ_ACTIVE)
		return "Running";
	if (s == SQ_IDLE)
		return "Idle";
	if (strcmp(reason_of(j), "JobHeldUser") == 0)
		return "UserHold";
	if (strcmp(reason_of(j), "JobHeldAdmin") == 0)
		return "SystemHold";
	return "Blocked";
}

static uint64_t procs(const struct rota_job_info *j)
{
	return (uint64_t)j->ntasks * (j->cpus_per_task ? j->cpus_per_task : 1);
}

static int64_t remaining(const struct rota_job_info *j, int64_t now)
{
	int64_t left = j->start_time + j->time_limit - now;

	return left > 0 ? left : 0;
}

/* Maui's durations: "1:09:31", "2:00:00:00"; 0 as a limit: none. */
static void maui_time(int64_t s, bool is_limit, char *buf, size_t len)
{
	if (is_limit && s <= 0)
		snprintf(buf, len, "UNLIMITED");
	else if (s >= 86400)
		snprintf(buf, len, "%" PRId64 ":%02d:%02d:%02d", s / 86400,
			 (int)(s % 86400 / 3600), (int)(s % 3600 / 60),
			 (int)(s % 60));
	else
		snprintf(buf, len, "%d:%02d:%02d", (int)(s / 3600),
			 (int)(s % 3600 / 60), (int)(s % 60));
}

/* "Thu Mar 21 09:40:23", local time, as Maui prints it. */
static void maui_date(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t <= 0 || !localtime_r(&tt, &tm) ||
	    !strftime(buf, len, "%a %b %e %H:%M:%S", &tm))
		snprintf(buf, len, "-");
}

/* ---- sorting ------------------------------------------------------------- */

struct showq_row {
	const struct rota_job_info *job;
	enum showq_section section;
	int64_t key;		/* active: remaining; else submit time */
};

static int row_cmp(const void *a, const void *b)
{
	const struct showq_row *x = a, *y = b;

	if (x->section != y->section)
		return x->section < y->section ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->job->id < y->job->id ? -1 : x->job->id > y->job->id;
}

/* The jobs shown, by section then order (caller frees). */
static struct showq_row *rows_make(const struct rota_msg_job_list *list,
				   const struct showq_opts *o, size_t *n,
				   struct showq_sum *sum)
{
	struct showq_row *rows = calloc(list->njobs + 1, sizeof(*rows));

	*n = 0;
	if (!rows)
		return NULL;
	for (size_t i = 0; i < list->njobs; i++) {
		const struct rota_job_info *j = &list->jobs[i];
		enum showq_section s = section_of(j);

		if (s == SQ_NONE || (o->user && strcmp(o->user, j->user)))
			continue;
		rows[*n] = (struct showq_row){
			.job = j,
			.section = s,
			.key = s == SQ_ACTIVE ? remaining(j, list->now)
					      : j->submit_time,
		};
		(*n)++;
		sum->n[s]++;
	}
	qsort(rows, *n, sizeof(*rows), row_cmp);
	return rows;
}

static void nodes_sum(const struct rota_msg_node_list *nodes,
		      struct showq_sum *sum)
{
	for (size_t i = 0; i < nodes->n; i++) {
		const struct rota_node_info *n = &nodes->nodes[i];

		if (strcmp(n->state, "UP") != 0)
			continue;
		sum->nodes_total++;
		sum->procs_total += n->cores;
		sum->procs_used += n->cores_used;
		sum->nodes_active += n->cores_used > 0;
	}
}

static double percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* ---- text ---------------------------------------------------------------- */

static const char *const titles[] = {
	[SQ_ACTIVE] = "ACTIVE JOBS",
	[SQ_IDLE] = "IDLE JOBS",
	[SQ_BLOCKED] = "BLOCKED JOBS",
};

static void put_header(struct rota_strbuf *b, enum showq_section s)
{
	rota_strbuf_addf(b, "%s%.*s\n", titles[s], s == SQ_BLOCKED ? 16 : 20,
			 "--------------------");
	rota_strbuf_addf(b, "%-18s %8s %10s %5s %11s %20s%s\n\n", "JOBNAME",
			 "USERNAME", "STATE", "PROC",
			 s == SQ_ACTIVE ? "REMAINING" : "WCLIMIT",
			 s == SQ_ACTIVE ? "STARTTIME" : "QUEUETIME",
			 s == SQ_BLOCKED ? "  REASON" : "");
}

static void put_row(struct rota_strbuf *b, const struct showq_row *r,
		    int64_t now)
{
	const struct rota_job_info *j = r->job;
	char t[32], d[40], id[ROTA_JOB_NAME_LEN];

	cmd_job_name(j, id, sizeof(id));
	if (r->section == SQ_ACTIVE) {
		maui_time(remaining(j, now), false, t, sizeof(t));
		maui_date(j->start_time, d, sizeof(d));
	} else {
		maui_time(j->time_limit, true, t, sizeof(t));
		maui_date(j->submit_time, d, sizeof(d));
	}
	rota_strbuf_addf(b, "%-18s %8s %10s %5" PRIu64 " %11s %20s",
			 id, j->user, state_name(j, r->section), procs(j),
			 t, d);
	if (r->section == SQ_BLOCKED)
		rota_strbuf_addf(b, "  %s", reason_of(j));
	rota_strbuf_add(b, "\n", 1);
}

static void put_count(struct rota_strbuf *b, enum showq_section s,
		      const struct showq_sum *sum)
{
	size_t n = sum->n[s];

	if (s == SQ_ACTIVE) {
		rota_strbuf_addf(b, "%6zu active job%s %8" PRIu64 " of %5"
				 PRIu64 " processors in use by local jobs "
				 "(%.2f%%)\n", n, n == 1 ? " " : "s",
				 sum->procs_used, sum->procs_total,
				 percent(sum->procs_used, sum->procs_total));
		rota_strbuf_addf(b, "%21s %5zu of %5zu nodes active      "
				 "(%.2f%%)\n\n", "", sum->nodes_active,
				 sum->nodes_total,
				 percent(sum->nodes_active, sum->nodes_total));
		return;
	}
	rota_strbuf_addf(b, "%zu %s job%s\n\n", n,
			 s == SQ_IDLE ? "idle" : "blocked", n == 1 ? "" : "s");
}

static void put_text(struct rota_strbuf *b, const struct showq_row *rows,
		     size_t n, int64_t now, const struct showq_sum *sum)
{
	size_t i = 0;

	for (int s = SQ_ACTIVE; s <= SQ_BLOCKED; s++) {
		put_header(b, (enum showq_section)s);
		for (; i < n && rows[i].section == (enum showq_section)s; i++)
			put_row(b, &rows[i], now);
		rota_strbuf_add(b, "\n", 1);
		put_count(b, (enum showq_section)s, sum);
	}
	rota_strbuf_addf(b, "Total jobs: %zu   Active Jobs: %zu   Idle Jobs: "
			 "%zu   Blocked Jobs: %zu\n",
			 sum->n[SQ_ACTIVE] + sum->n[SQ_IDLE] +
				 sum->n[SQ_BLOCKED],
			 sum->n[SQ_ACTIVE], sum->n[SQ_IDLE],
			 sum->n[SQ_BLOCKED]);
}

/* ---- JSON ---------------------------------------------------------------- */

static void put_json_row(struct rota_strbuf *b, const struct showq_row *r,
			 int64_t now)
{
	const struct rota_job_info *j = r->job;

	rota_strbuf_addf(b, "{\"id\":%" PRIu32 ",\"name\":", j->id);
	rota_strbuf_add_json(b, j->name ? j->name : "");
	rota_strbuf_adds(b, ",\"user\":");
	rota_strbuf_add_json(b, j->user);
	rota_strbuf_adds(b, ",\"state\":");
	rota_strbuf_add_json(b, state_name(j, r->section));
	rota_strbuf_addf(b, ",\"procs\":%" PRIu64, procs(j));
	if (r->section == SQ_ACTIVE)
		rota_strbuf_addf(b, ",\"remaining\":%" PRId64
				 ",\"start_time\":%" PRId64, remaining(j, now),
				 j->start_time);
	else
		rota_strbuf_addf(b, ",\"wclimit\":%" PRId64 ",\"queue_time\":%"
				 PRId64, j->time_limit, j->submit_time);
	if (r->section != SQ_ACTIVE) {
		rota_strbuf_adds(b, ",\"reason\":");
		rota_strbuf_add_json(b, reason_of(j));
	}
	rota_strbuf_add(b, "}", 1);
}

static void put_json(struct rota_strbuf *b, const struct showq_row *rows,
		     size_t n, int64_t now, const struct showq_sum *sum)
{
	static const char *const keys[] = {
		[SQ_ACTIVE] = "active", [SQ_IDLE] = "idle",
		[SQ_BLOCKED] = "blocked",
	};
	size_t i = 0;

	rota_strbuf_addf(b, "{\"now\":%" PRId64, now);
	for (int s = SQ_ACTIVE; s <= SQ_BLOCKED; s++) {
		bool first = true;

		rota_strbuf_addf(b, ",\"%s\":[", keys[s]);
		for (; i < n && rows[i].section == (enum showq_section)s; i++) {
			if (!first)
				rota_strbuf_add(b, ",", 1);
			put_json_row(b, &rows[i], now);
			first = false;
		}
		rota_strbuf_add(b, "]", 1);
	}
	rota_strbuf_addf(b, ",\"summary\":{\"total_jobs\":%zu,\"active_jobs\":"
			 "%zu,\"idle_jobs\":%zu,\"blocked_jobs\":%zu,"
			 "\"procs_used\":%" PRIu64 ",\"procs_total\":%" PRIu64
			 ",\"nodes_active\":%zu,\"nodes_total\":%zu}}\n",
			 sum->n[SQ_ACTIVE] + sum->n[SQ_IDLE] +
				 sum->n[SQ_BLOCKED],
			 sum->n[SQ_ACTIVE], sum->n[SQ_IDLE],
			 sum->n[SQ_BLOCKED], sum->procs_used,
			 sum->procs_total, sum->nodes_active,
			 sum->nodes_total);
}

/* ---- the command --------------------------------------------------------- */

static int parse(int argc, char **argv, struct showq_opts *o)
{
	static const struct option longopts[] = {
		{ "user", required_argument, NULL, 'u' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "u:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'u': o->user = optarg; break;
		case 'J': o->json = true; break;
		case 'h': cmd_print_help(&cmd_showq); return 0;
		default: fputs(help, stderr); return 2;
		}
	}
	if (optind < argc) {
		cmd_error("showq", "unexpected argument '%s'", argv[optind]);
		return 2;
	}
	if (o->user && strcmp(o->user, "me") == 0) {
		struct passwd *pw = getpwuid(getuid());

		o->user = pw ? pw->pw_name : "?";
	}
	return -1;
}

static int print(const struct rota_msg_job_list *jobs,
		 const struct rota_msg_node_list *nodes,
		 const struct showq_opts *o)
{
	struct showq_sum sum = { 0 };
	struct rota_strbuf out = { 0 };
	struct showq_row *rows;
	size_t n;
	int rc;

	rows = rows_make(jobs, o, &n, &sum);
	if (!rows) {
		cmd_error("showq", "out of memory");
		return 1;
	}
	nodes_sum(nodes, &sum);
	if (o->json)
		put_json(&out, rows, n, jobs->now, &sum);
	else
		put_text(&out, rows, n, jobs->now, &sum);
	rc = fwrite(out.data, 1, out.len, stdout) != out.len;
	rota_strbuf_fini(&out);
	free(rows);
	if (rc || fflush(stdout) != 0) {
		cmd_error("showq", "writing the listing failed");
		return 1;
	}
	return 0;
}

static int showq_run(int argc, char **argv)
{
	struct showq_opts o = { 0 };
	struct rota_msg_job_list jobs;
	struct rota_msg_node_list nodes;
	int rc = parse(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (cmd_fetch_jobs("showq", 0, &jobs) < 0)
		return 1;
	if (cmd_fetch_nodes("showq", &nodes) < 0) {
		rota_msg_job_list_clear(&jobs);
		return 1;
	}
	rc = print(&jobs, &nodes, &o);
	rota_msg_node_list_clear(&nodes);
	rota_msg_job_list_clear(&jobs);
	return rc;
}

const struct cmd cmd_showq = {
	.name = "showq",
	.summary = "the queue in Maui's form: active, idle, blocked",
	.help = help,
	.run = showq_run,
};
