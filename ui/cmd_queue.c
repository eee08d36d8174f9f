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
#include "common/taskset.h"
#include "common/units.h"
#include "common/xalloc.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota queue [-a] [-u USER] [-q QUEUE] [-t STATE] [-j JOB] "
	"[--noheader] [--json]\n"
	"\n"
	"List jobs, one per line: JOBID QUEUE NAME USER ST TIME NODES\n"
	"NODELIST(REASON).  TIME is the time a running job has used.  ST is\n"
	"PD pending, R running, CD completed, F failed, CA cancelled,\n"
	"TO timeout, NF node failure.  When a job listed asks for GPUs, a\n"
	"GRES column before NODELIST says what it asked: gpu:v100:2 on\n"
	"each node, gpu:1/task for each task, - none.\n"
	"\n"
	"  -a, --all          also jobs that ended recently (MinJobAge)\n"
	"  -u, --user=USER    only this user's jobs ('me' for yours)\n"
	"  -q, -p, --queue=QUEUE[,QUEUE...]  only the jobs of these queues\n"
	"  -t, --state=STATE  only jobs in this state (PENDING, PD, R, ...)\n"
	"  -j, --job=JOB      only this job (an array's id: all of it)\n"
	"  -r, --array        an array's pending tasks one per line\n"
	"                     (12_3, 12_4...) instead of one line for\n"
	"                     them all (12_[3-999%16]: ids not started,\n"
	"                     the throttle); running and ended tasks are\n"
	"                     always one per line\n"
	"  -R, --reservation=NAME  only the jobs of this advance reservation\n"
	"                     (rota help resv)\n"
	"  -s, --steps        job steps (rota run) instead of jobs: STEPID\n"
	"                     NAME USER ST TIME TASKS NODELIST; the running\n"
	"                     ones, with -a those ended in jobs still listed\n"
	"      --start        pending jobs with their expected start time\n"
	"                     and nodes (backfill's reservation; N/A and -\n"
	"                     without one), as squeue --start: JOBID QUEUE\n"
	"                     NAME USER ST START_TIME NODES SCHEDNODES\n"
	"                     NODELIST(REASON); 'rota why JOB' says more\n"
	"  -H, --noheader     no header line\n"
	"      --json         the same jobs in full, one JSON object (every\n"
	"                     field of 'rota show job'; docs/json.md)\n"
	"  -h, --help         this text\n";

struct filter {
	bool all;
	bool start;
	const char *user;
	const char *queues;	/* -q: names, comma-separated */
	enum rota_job_state state;
	uint32_t job;
	const char *resv;	/* -R: only its jobs (from the full records) */
	bool noheader;
	bool json;
	bool steps;
	bool expand;		/* -r: an array's pending tasks one by one */
};

/* -q: is 'queue' one of the list's names? */
static bool in_queues(const char *list, const char *queue)
{
	size_t n = strlen(queue);

	for (const char *p = list; *p; p += strcspn(p, ",")) {
		p += *p == ',';
		if (strncmp(p, queue, n) == 0 && (p[n] == ',' || !p[n]))
			return true;
	}
	return false;
}

static bool keep(const struct filter *f, const struct rota_job_row *r)
{
	/* an array's id: all of it */
	if (f->job && r->id != f->job && r->array_job_id != f->job)
		return false;
	if (f->state ? r->state != f->state
		     : !f->all && !f->job && rota_job_state_is_final(r->state))
		return false;
	if (f->queues && !in_queues(f->queues, r->queue))
		return false;
	return !f->user || strcmp(f->user, r->user) == 0;
}

/* The listing, written through 'p'; each line's worst case reserved first. */
struct out {
	char *data;
	char *p;
	char *end;
};

static void out_reserve(struct out *o, size_t need)
{
	size_t used = (size_t)(o->p - o->data);
	size_t cap = (size_t)(o->end - o->data);

	if ((size_t)(o->end - o->p) >= need)
		return;
	while (cap - used < need)
		cap = cap ? 2 * cap : 1u << 16;
	o->data = rota_xrealloc(o->data, cap);
	o->p = o->data + used;
	o->end = o->data + cap;
}

/* 's' right-aligned in 'width' columns, cut to fit (printf's %W.Ws). */
static char *put_right(char *p, const char *s, size_t width)
{
	size_t n = strnlen(s, width);

	memset(p, ' ', width - n);
	memcpy(p + width - n, s, n);
	p[width] = ' ';
	return p + width + 1;
}

/* 's' left-aligned in 'width' columns, whole if wider. */
static char *put_left(char *p, const char *s, int width)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	if (n < (size_t)width)
		memset(p + n, ' ', (size_t)width - n);
	p += n < (size_t)width ? (size_t)width : n;
	*p++ = ' ';
	return p;
}

static char *put_uint(char *p, uint64_t v, size_t width)
{
	char tmp[24];
	char *t = tmp + sizeof(tmp) - 1;

	*t = '\0';
	do {
		*--t = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return put_right(p, t, width);
}

/*
 * A queue column: whole if wider, as squeue's %P cut would turn
 * "medium40:test" into another queue's name.
 */
static char *put_queue(char *p, const char *queue, size_t width)
{
	size_t n = strlen(queue);

	if (n <= width)
		return put_right(p, queue, width);
	memcpy(p, queue, n);
	p[n] = ' ';
	return p + n + 1;
}

/* A job id column: "12", "12_7", "12_[3-999%16]", whole if wider. */
static char *put_id(char *p, const struct rota_job_row *r, size_t width)
{
	size_t n;

	if (!r->array || !*r->array)
		return put_uint(p, r->id, width);
	n = strlen(r->array);
	if (n <= width)
		return put_right(p, r->array, width);
	memcpy(p, r->array, n);
	p[n] = ' ';
	return p + n + 1;
}

/*
 * One line per job, formatted by hand into one buffer: printf per field
 * would cost more than everything else in a 50,000-job listing.
 */
static void put_row(struct out *o, const struct rota_job_row *r, int64_t now,
		    int gres)
{
	char t[32] = "00:00:00";
	int64_t used = 0;
	size_t where = strlen(r->where);
	size_t id = r->array ? strlen(r->array) : 0;
	char *p;

	if (r->state == ROTA_JOB_RUNNING)
		used = now - r->start_time;
	else if (r->start_time && r->end_time)
		used = r->end_time - r->start_time;
	if (used > 0)
		rota_duration_format(used, t, sizeof(t));
	/* the columns and their spaces, then "(where)\n" */
	out_reserve(o, 8 + id + 9 + strlen(r->queue) + 8 + 8 + 2 + 10 + 5 + 7 +
			       where + 4 + (size_t)gres +
			       (r->gres ? strlen(r->gres) : 0) + 2);
	p = put_id(o->p, r, 8);
	p = put_queue(p, r->queue, 9);
	p = put_right(p, r->name, 8);
	p = put_right(p, r->user, 8);
	p = put_right(p, rota_job_state_short(r->state), 2);
	p = put_right(p, t, 10);
	p = put_uint(p, r->nodes, 5);
	if (gres) /* the GPUs column, when any job asks for some */
		p = put_left(p, r->gres && r->gres[0] ? r->gres : "-", gres);
	if (r->state == ROTA_JOB_PENDING)
		*p++ = '(';
	memcpy(p, r->where, where);
	p += where;
	if (r->state == ROTA_JOB_PENDING)
		*p++ = ')';
	*p++ = '\n';
	o->p = p;
}

/*
 * -r: an array's pending rest ("12_[3-999%16]") one line per task, as
 * squeue -r; any other row as it is.
 */
static void put_rows(struct out *o, const struct rota_job_row *r,
		     int64_t now, bool expand, int gres)
{
	const char *open = r->array ? strchr(r->array, '[') : NULL;
	struct rota_job_row task = *r;
	struct rota_taskset ts;
	struct rota_error err;
	char *ids, name[32];

	if (!expand || !open) {
		put_row(o, r, now, gres);
		return;
	}
	ids = rota_xstrdup(open + 1);
	ids[strcspn(ids, "%]")] = '\0';
	if (rota_taskset_parse(ids, UINT32_MAX, &ts, NULL, &err) < 0) {
		free(ids);
		put_row(o, r, now, gres);
		return;
	}
	task.array = name;
	for (uint32_t t = rota_taskset_first(&ts); t != UINT32_MAX;
	     t = rota_taskset_next(&ts, t)) {
		snprintf(name, sizeof(name), "%u_%u", r->array_job_id, t);
		put_row(o, &task, now, gres);
	}
	rota_taskset_fini(&ts);
	free(ids);
}

/*
 * The rows the filters may keep: the controller picks one job's or one
 * user's from its indexes (a user this host cannot name: all rows, the
 * filter below decides); the filters still apply to what comes back.
 */
static int fetch_rows(const struct filter *f, struct rota_msg_job_rows *m)
{
	struct rota_msg_job_rows_req req = { .job_id = f->job };
	struct passwd *pw = f->user ? getpwnam(f->user) : NULL;
	struct rota_reply reply;
	struct rota_error err;
	size_t len;
	char *body;
	int rc;

	if (pw) {
		req.by_uid = true;
		req.uid = (uint32_t)pw->pw_uid;
	}
	body = rota_msg_job_rows_req_encode(&req, &len);
	rc = cmd_call("queue", ROTA_MSG_JOB_ROWS, body, len, &reply);
	free(body);
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
		{ "queue", required_argument, NULL, 'q' },
		{ "state", required_argument, NULL, 't' },
		{ "job", required_argument, NULL, 'j' },
		{ "reservation", required_argument, NULL, 'R' },
		{ "noheader", no_argument, NULL, 'H' },
		{ "start", no_argument, NULL, 'S' },
		{ "steps", no_argument, NULL, 's' },
		{ "array", no_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "au:q:p:t:j:R:Hsrh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'a': f->all = true; break;
		case 'u': f->user = optarg; break;
		case 'q': case 'p': f->queues = optarg; break;
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
		case 'R': f->resv = optarg; break;
		case 'H': f->noheader = true; break;
		case 'S': f->start = true; break;
		case 's': f->steps = true; break;
		case 'r': f->expand = true; break;
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

/* -R: is the job one of the reservation's? */
static bool in_resv(const struct filter *f, const struct rota_job_info *j)
{
	return !f->resv || (j->reservation && strcmp(j->reservation,
						     f->resv) == 0);
}

/* -R: the rows of the reservation's jobs, from their full records. */
static int fetch_resv_rows(const struct filter *f,
			   struct rota_msg_job_list *list,
			   struct rota_msg_job_rows *m)
{
	if (cmd_fetch_jobs("queue", 0, list) < 0)
		return -1;
	*m = (struct rota_msg_job_rows){ .now = list->now };
	m->rows = rota_xcalloc(list->njobs + 1, sizeof(*m->rows));
	for (size_t i = 0; i < list->njobs; i++) {
		const struct rota_job_info *j = &list->jobs[i];

		if (!in_resv(f, j))
			continue;
		m->rows[m->n++] = (struct rota_job_row){
			.id = j->id,
			.array_job_id = j->array_job_id,
			.state = j->state,
			.nodes = j->nodes,
			.start_time = j->start_time,
			.end_time = j->end_time,
			.queue = j->queue ? j->queue : "",
			.name = j->name ? j->name : "",
			.user = j->user ? j->user : "",
			.where = j->state == ROTA_JOB_PENDING && j->reason
					 ? j->reason
					 : j->nodelist ? j->nodelist : "",
		};
	}
	return 0;
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
					  .user = j->user ? j->user : "",
					  .queue = j->queue ? j->queue : "",
					  .array_job_id = j->array_job_id };

		if (keep(f, &r) && in_resv(f, j))
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
	static const char header[] = "   JOBID     QUEUE     NAME     USER ST "
				     "      TIME NODES NODELIST(REASON)\n";
	struct filter f = { 0 };
	struct rota_msg_job_list list = { 0 };
	struct rota_msg_job_rows m;
	struct out out = { 0 };
	size_t len;
	int gres = 0;
	int rc = parse(argc, argv, &f);

	if (rc >= 0)
		return rc;
	if (f.start)
		return queue_start(f.user, f.job, f.noheader);
	if (f.steps) {
		struct rota_msg_step_list s;

		if (cmd_fetch_steps("queue", f.job, &s) < 0)
			return 1;
		rc = cmd_print_steps(&s, f.all, f.user, f.noheader);
		rota_msg_step_list_clear(&s);
		return rc;
	}
	if (f.json)
		return queue_json(&f);
	if (f.resv ? fetch_resv_rows(&f, &list, &m) < 0
		   : fetch_rows(&f, &m) < 0)
		return 1;
	/* a GRES column when any job listed asks for GPUs */
	for (size_t i = 0; i < m.n; i++) {
		size_t g = m.rows[i].gres ? strlen(m.rows[i].gres) : 0;

		if (g && keep(&f, &m.rows[i]) && (int)g > gres)
			gres = g < 4 ? 4 : (int)g;
	}
	out_reserve(&out, sizeof(header) + (size_t)gres + 8 + m.n * 64);
	if (!f.noheader && gres) {
		out.p = put_left(stpcpy(out.p, "   JOBID     QUEUE     NAME     "
					       "USER ST       TIME NODES "),
				 "GRES", gres);
		out.p = stpcpy(out.p, "NODELIST(REASON)\n");
	} else if (!f.noheader) {
		out.p = stpcpy(out.p, header);
	}
	for (size_t i = 0; i < m.n; i++) {
		if (keep(&f, &m.rows[i]))
			put_rows(&out, &m.rows[i], m.now, f.expand, gres);
	}
	len = (size_t)(out.p - out.data);
	rc = len && fwrite(out.data, 1, len, stdout) != len;
	free(out.data);
	if (f.resv) /* its rows borrow the list's strings */
		free(m.rows);
	else
		rota_msg_job_rows_clear(&m);
	rota_msg_job_list_clear(&list);
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
