// SPDX-License-Identifier: MIT
/* rota cancel: end jobs, pending or running, by id or by filter. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota cancel [--user USER] [--state STATE] [--name NAME] "
	"[JOB...]\n"
	"\n"
	"Cancel jobs.  A pending job ends at once; a running one gets SIGTERM\n"
	"on its whole process group, then SIGKILL after KillWait, and ends\n"
	"as CANCELLED.  Users cancel their own jobs; operators any.\n"
	"\n"
	"With filters, every unfinished job that matches all of them is\n"
	"cancelled (only those among JOB... when jobs are named too):\n"
	"\n"
	"  -u, --user USER     jobs of USER\n"
	"  -t, --state STATE   jobs in STATE (PENDING or PD, RUNNING or R)\n"
	"  -n, --name NAME     jobs named NAME\n"
	"  -h, --help          this text\n"
	"\n"
	"Exit status: 0 all cancelled, 1 some could not be (each said on\n"
	"stderr) or no job matched the filters, 2 bad usage.\n";

struct filter {
	const char *user;
	const char *name;
	enum rota_job_state state; /* NONE: any */
	bool any;		   /* some filter given */
};

static int parse(int argc, char **argv, struct filter *f, int *first)
{
	static const struct option opts[] = {
		{ "user", required_argument, NULL, 'u' },
		{ "state", required_argument, NULL, 't' },
		{ "name", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+u:t:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'u': f->user = optarg; break;
		case 'n': f->name = optarg; break;
		case 't':
			if (rota_job_state_parse(optarg, &f->state) < 0) {
				cmd_error("cancel", "--state '%s': unknown "
					  "state", optarg);
				return -1;
			}
			break;
		case 'h': return 1;
		default: return -1;
		}
	}
	f->any = f->user || f->name || f->state;
	*first = optind;
	return 0;
}

static bool named(const struct rota_msg_control *ids, uint32_t id)
{
	if (!ids->n)
		return true;
	for (size_t i = 0; i < ids->n; i++) {
		if (ids->job_ids[i] == id)
			return true;
	}
	return false;
}

static bool matches(const struct filter *f, const struct rota_job_row *r)
{
	return !rota_job_state_is_final(r->state) &&
	       (!f->user || strcmp(f->user, r->user) == 0) &&
	       (!f->name || strcmp(f->name, r->name) == 0) &&
	       (!f->state || f->state == r->state);
}

/* Replace the named ids by the unfinished jobs the filters match. */
static int select_jobs(const struct filter *f, struct rota_msg_control *ids)
{
	struct rota_msg_job_rows rows;
	struct rota_reply reply;
	struct rota_error err;
	uint32_t *out;
	size_t n = 0;
	int rc = cmd_call("cancel", ROTA_MSG_JOB_ROWS, "{}", 2, &reply);

	if (rc < 0)
		return rc;
	rc = rota_msg_job_rows_decode(reply.body, reply.len, &rows, &err);
	rota_reply_clear(&reply);
	if (rc < 0) {
		cmd_error("cancel", "bad reply: %s", err.text);
		return rc;
	}
	out = rota_xcalloc(rows.n + 1, sizeof(*out));
	for (size_t i = 0; i < rows.n; i++) {
		if (matches(f, &rows.rows[i]) && named(ids, rows.rows[i].id))
			out[n++] = rows.rows[i].id;
	}
	rota_msg_job_rows_clear(&rows);
	free(ids->job_ids);
	ids->job_ids = out;
	ids->n = n;
	return 0;
}

static int cancel_run(int argc, char **argv)
{
	struct rota_msg_job_ids m;
	struct rota_msg_control ids = { 0 };
	struct filter f = { 0 };
	struct rota_msg_text_list out;
	struct rota_reply reply;
	struct rota_error err;
	size_t len;
	char *body;
	int first;
	int rc = parse(argc, argv, &f, &first);

	if (rc)
		return rc > 0 ? cmd_print_help(&cmd_cancel) : 2;
	if (argc <= first && !f.any) {
		fputs(help, stderr);
		return 2;
	}
	if (cmd_parse_job_ids("cancel", argc - first, argv + first, &ids) < 0)
		return 2;
	if (f.any && ids.tasks) {
		cmd_error("cancel", "array tasks (ID_TASKS) and filters: one "
			  "or the other");
		rota_msg_control_clear(&ids);
		return 2;
	}
	if (f.any && select_jobs(&f, &ids) < 0) {
		rota_msg_control_clear(&ids);
		return 1;
	}
	if (!ids.n) {
		cmd_error("cancel", "no unfinished job matches");
		rota_msg_control_clear(&ids);
		return 1;
	}
	m = (struct rota_msg_job_ids){ .job_ids = ids.job_ids, .n = ids.n,
				       .tasks = ids.tasks };
	body = rota_msg_job_ids_encode(&m, &len);
	rota_msg_control_clear(&ids);
	rc = cmd_call("cancel", ROTA_MSG_CANCEL, body, len, &reply);
	free(body);
	if (rc < 0)
		return 1;
	rc = rota_msg_text_list_decode(reply.body, reply.len, &out, &err);
	rota_reply_clear(&reply);
	if (rc < 0) {
		cmd_error("cancel", "bad reply: %s", err.text);
		return 1;
	}
	for (size_t i = 0; i < out.n; i++)
		cmd_error("cancel", "%s", out.lines[i]);
	rc = out.n ? 1 : 0;
	rota_msg_text_list_clear(&out);
	return rc;
}

const struct cmd cmd_cancel = {
	.name = "cancel",
	.summary = "cancel jobs",
	.help = help,
	.run = cancel_run,
};
