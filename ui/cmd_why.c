// SPDX-License-Identifier: MIT
/*
 * rota why JOB: one paragraph on why a job waits and what would start it
 * sooner (Maui's checkjob and Slurm's squeue --start, told in words).
 * The controller sends the facts (WHY_REPLY); the wording is here, so
 * that --json gives scripts the facts and the text can change freely.
 * The paragraph is one line: terminals wrap it, and grep finds a phrase.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/proto.h"
#include "common/units.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota why [--json] JOB\n"
	"\n"
	"Say in one paragraph why a job waits and what would let it start\n"
	"sooner.  For a pending job: its reason (held, and who may release\n"
	"it; blocked by a limit, and which; waiting for its advance\n"
	"reservation; Priority: the jobs of its queue that come first;\n"
	"Resources: the jobs ahead of it that hold backfill reservations,\n"
	"with their expected starts and nodes, and the cores kept for test\n"
	"queues (ReservedCores) when it would fit with them), when and where\n"
	"it is expected to start, and, when backfill could start it now with a\n"
	"shorter time limit or fewer tasks, the longest limit and the most\n"
	"tasks that would: 'With --time=1:10:00 or less it would backfill\n"
	"now.'  Such a job delays none of the reservations of the jobs ahead\n"
	"of it.  The answer comes from the last backfill pass: it is as\n"
	"fresh as that pass.  Sched=builtin makes no estimates.\n"
	"\n"
	"Users may ask about their own jobs, operators about any.\n"
	"\n"
	"Options:\n"
	"      --json       the facts behind the paragraph, one JSON object\n"
	"                   (docs/json.md)\n";

/* "at 2026-11-21T14:05:00 (in 1:10:00)", or "now" when it has come. */
static void when(int64_t t, int64_t now, char *buf, size_t len)
{
	char at[32], in[32];

	if (t <= now) {
		snprintf(buf, len, "now");
		return;
	}
	cmd_format_time(t, at, sizeof(at));
	rota_duration_format(t - now, in, sizeof(in));
	snprintf(buf, len, "at %s (in %s)", at, in);
}

static void head(const struct rota_msg_why *m)
{
	char limit[32];
	uint32_t cores = m->ntasks * m->cpus_per_task;

	rota_duration_format(m->time_limit ? m->time_limit : INT64_MAX, limit,
			     sizeof(limit));
	if (m->tasks > 1) /* an array's pending rest: one line for all */
		printf("Job %s (%u tasks; %s, queue %s, %u core%s each for "
		       "%s)", m->array, m->tasks, m->user, m->queue, cores,
		       cores == 1 ? "" : "s", limit);
	else if (m->array)
		printf("Job %s (%s, queue %s, %u core%s for %s)", m->array,
		       m->user, m->queue, cores, cores == 1 ? "" : "s", limit);
	else
		printf("Job %u (%s, queue %s, %u core%s for %s)", m->id,
		       m->user, m->queue, cores, cores == 1 ? "" : "s", limit);
}

/* Its GPUs, and those of its type the queue has free: what it waits for. */
static void gpus(const struct rota_msg_why *m)
{
	/* "gres/gpu:v100:2" or "gres/gpu:2" */
	const char *count = m->tres ? strrchr(m->tres, ':') : NULL;
	const char *type = m->tres ? strchr(m->tres, ':') : NULL;
	int tlen = type && count > type ? (int)(count - type - 1) : 0;

	if (!count)
		return;
	printf(" It asks for %s GPU%s%s%.*s%s per %s; its queue's nodes have "
	       "%u such GPU%s free of %u.",
	       count + 1, strcmp(count + 1, "1") ? "s" : "",
	       tlen ? " (" : "", tlen, tlen ? type + 1 : "", tlen ? ")" : "",
	       m->tres_per_task ? "task" : "node", m->gpus_free,
	       m->gpus_free == 1 ? "" : "s", m->gpus_total);
}

/* Its first other generic resource, as gpus() says its GPUs. */
static void gres(const struct rota_msg_why *m)
{
	const char *count = m->gres ? strrchr(m->gres, ':') : NULL;

	if (!count)
		return;
	printf(" It asks for %s per node; its queue's nodes have %u such "
	       "free of %u.",
	       m->gres, m->gres_free, m->gres_total);
}

/* What the part of its dependency it waits for asks of its job. */
static const char *dep_asks(const char *type)
{
	if (!strcmp(type, "after"))
		return "to start";
	if (!strcmp(type, "afterany"))
		return "to end";
	if (!strcmp(type, "afternotok"))
		return "to end other than completed with exit code 0";
	return "to complete with exit code 0";
}

/* Waits for another job: which, in what state, and what it needs. */
static void dep_said(const struct rota_msg_why *m)
{
	char state[32];

	snprintf(state, sizeof(state), "%s",
		 m->dep_state ? rota_job_state_name(m->dep_state)
			      : "no longer known");
	if (!strcmp(m->dep_type, "singleton"))
		printf(" waits (%s, singleton): another job of this name and "
		       "user runs, or an older one waits; it starts once none "
		       "does.", m->reason);
	else if (!strcmp(m->reason, "DependencyNeverSatisfied"))
		printf(" can never start (%s): its dependency %s needs job %u "
		       "%s, and that job is %s.  'rota update job %u "
		       "Dependency=...' or 'rota cancel %u'.",
		       m->reason, m->dependency, m->dep_job,
		       dep_asks(m->dep_type), state, m->id, m->id);
	else
		printf(" waits for job %u (%s) %s: its dependency is %s.",
		       m->dep_job, state, dep_asks(m->dep_type),
		       m->dependency);
}

/* Held, limited or waiting for its reservation; false if none of these. */
static bool blocked(const struct rota_msg_why *m)
{
	if (m->hold == 1)
		printf(" is held by its owner (%s): 'rota release %u' lets it "
		       "be scheduled again.",
		       m->reason, m->id);
	else if (m->hold == 2)
		printf(" is held by an operator (%s): only an operator can "
		       "release it ('rota release %u').",
		       m->reason, m->id);
	else if (m->dep_type && m->dep_type[0])
		dep_said(m);
	else if (m->limited)
		printf(" is blocked by a limit: %s.  It becomes eligible once "
		       "the limit allows it (fewer of your jobs pending or "
		       "running, or usage decayed); 'rota show job %u' shows "
		       "it too.",
		       m->reason, m->id);
	else if (m->reservation[0])
		printf(" waits for its advance reservation %s (%s): it runs "
		       "only on that reservation's cores, once the "
		       "reservation is active and they are free; 'rota resv "
		       "list' shows when.",
		       m->reservation, m->reason);
	else
		return false;
	return true;
}

/* "17 and 23", "17, 23 and 2 more" */
static void ids(const struct rota_msg_why *m)
{
	bool more = m->resv_total > m->nresv;

	for (size_t i = 0; i < m->nresv; i++)
		printf("%s%u",
		       !i ? "" : (i + 1 == m->nresv && !more ? " and " : ", "),
		       m->resv[i].id);
	if (more)
		printf(" and %u more", m->resv_total - (uint32_t)m->nresv);
}

/* The jobs ahead of it: its queue's first, those with reservations. */
static void ahead(const struct rota_msg_why *m)
{
	char at[80];
	bool one = m->resv_total == 1;

	if (!strcmp(m->reason, "Priority") && m->first.id)
		printf(" Job %u of queue %s comes first and waits for "
		       "resources; %u job%s of the queue %s ahead of it.",
		       m->first.id, m->queue, m->nahead,
		       m->nahead == 1 ? "" : "s",
		       m->nahead == 1 ? "is" : "are");
	if (!m->nresv)
		return;
	printf(" Ahead of it, job%s ", one ? "" : "s");
	ids(m);
	printf(" hold%s backfill reservation%s (", one ? "s a" : "",
	       one ? "" : "s");
	for (size_t i = 0; i < m->nresv; i++) {
		when(m->resv[i].est_start, m->now, at, sizeof(at));
		printf("%s%u expected to start %s%s%s", i ? "; " : "",
		       m->resv[i].id, at, m->resv[i].est_nodes[0] ? " on " : "",
		       m->resv[i].est_nodes);
	}
	printf(").");
}

/* Its own estimate, then what would start it sooner. */
static void outlook(const struct rota_msg_why *m)
{
	char at[80], limit[32];

	if (!strcmp(m->sched, "builtin")) {
		printf(" Sched=builtin makes no start estimates: it starts in "
		       "strict order, once the jobs ahead of it have started "
		       "and its cores are free.");
		return;
	}
	if (m->est_start) {
		when(m->est_start, m->now, at, sizeof(at));
		printf(" It is expected to start %s%s%s.", at,
		       m->est_nodes[0] ? " on " : "", m->est_nodes);
	} else {
		printf(" It has no start estimate: backfill reserves for the "
		       "first jobs only (ReservationDepth), or its start lies "
		       "beyond the backfill window.");
	}
	if (m->fits_now) {
		printf(" It fits now and should start at the next pass.");
		return;
	}
	if (m->fit_limit) {
		rota_duration_format(m->fit_limit, limit, sizeof(limit));
		printf(" With --time=%s or less it would backfill now.",
		       limit);
	}
	if (m->fit_tasks)
		printf(" With %u tasks (%u cores) or fewer it would backfill "
		       "now.",
		       m->fit_tasks, m->fit_tasks * m->cpus_per_task);
}

static void paragraph(const struct rota_msg_why *m)
{
	head(m);
	if (m->state == ROTA_JOB_RUNNING) {
		printf(" is not waiting: it is running.\n");
		return;
	}
	if (m->state != ROTA_JOB_PENDING) {
		printf(" is not waiting: it has ended (%s%s%s).\n",
		       rota_job_state_name(m->state), m->reason[0] ? ": " : "",
		       m->reason);
		return;
	}
	if (blocked(m)) {
		printf("\n");
		return;
	}
	printf(" waits for %s.", m->reason[0] ? m->reason : "None");
	if (m->kept)
		printf(" %u core%s of node %s %s free but kept for queues %s "
		       "(ReservedCores): it would fit with them.",
		       m->kept, m->kept == 1 ? "" : "s", m->kept_node,
		       m->kept == 1 ? "is" : "are", m->kept_queues);
	gpus(m);
	gres(m);
	ahead(m);
	outlook(m);
	printf("\n");
}

static int parse(int argc, char **argv, bool *json, uint32_t *id)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case 'J': *json = true; break;
		case 'h': return 1;
		default:
			cmd_error("why", "unknown option '%s'",
				  argv[optind - 1]);
			return -1;
		}
	}
	if (optind + 1 != argc) {
		cmd_error("why", "one JOB expected (rota why --help)");
		return -1;
	}
	return cmd_parse_job_id("why", argv[optind], id) < 0 ? -1 : 0;
}

static int why_run(int argc, char **argv)
{
	struct rota_msg_job_list_req req = { 0 };
	struct rota_reply reply;
	struct rota_msg_why m;
	struct rota_error err;
	bool json = false;
	size_t len;
	char *body;
	int rc = parse(argc, argv, &json, &req.job_id);

	if (rc)
		return rc > 0 ? cmd_print_help(&cmd_why) : 2;
	body = rota_msg_job_list_req_encode(&req, &len);
	rc = cmd_call("why", ROTA_MSG_WHY, body, len, &reply);
	free(body);
	if (rc < 0)
		return 1;
	if (json) {
		cmd_print_reply(&reply);
		return 0;
	}
	rc = rota_msg_why_decode(reply.body, reply.len, &m, &err);
	rota_reply_clear(&reply);
	if (rc < 0) {
		cmd_error("why", "bad reply: %s", err.text);
		return 1;
	}
	paragraph(&m);
	rota_msg_why_clear(&m);
	return 0;
}

const struct cmd cmd_why = {
	.name = "why",
	.summary = "why a job waits, and what would start it sooner",
	.help = help,
	.run = why_run,
};
