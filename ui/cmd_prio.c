// SPDX-License-Identifier: MIT
/*
 * rota prio: why a job waits behind others, in numbers (Slurm's sprio -l).
 * One line per pending job, highest first, each term of its priority
 * named; -l adds every term's raw input, normalized value and weight.
 * When the priority plugin rates all (sge), running and held jobs are
 * listed too, with a STATE column, and --urg, --pri and --ext show the
 * columns of Grid Engine's qstat -urg, -pri and -ext, worked out from
 * the terms the plugin explains.
 */
#include "config.h"

#include <getopt.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/msg.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota prio [-l | --urg | --pri | --ext] [--noheader] [--json]\n"
	"                 [-j JOB[,JOB...]] [-u USER] [JOB...]\n"
	"\n"
	"Show the priority of pending jobs (all of them, the JOBs named, or\n"
	"a user's) and every term it is made of, as of their last rating:\n"
	"what the scheduler uses.  Jobs are rated every PriorityCalcPeriod,\n"
	"when submitted or changed (hold, release, nice, update) and, for\n"
	"Grid Engine's plugin, before every pass (and before rota prio if\n"
	"one was rated alone since); the second line says\n"
	"when the last rating of all was.  Jobs are listed in the order the\n"
	"scheduler takes them: queue priority tier first, then priority,\n"
	"then submit time, then job id.  The first line names the priority\n"
	"plugin and its weights or formula.\n"
	"\n"
	"Columns: JOBID USER ACCOUNT QUEUE QOS PRIORITY, then each term as\n"
	"name=value (its share of the priority).  With -l, one line per\n"
	"term below its job: the raw input (seconds, cores, a factor...),\n"
	"the normalized value the formula uses, the weight, and the value.\n"
	"\n"
	"Grid Engine (priority plugin sge) rates every job, as qstat shows:\n"
	"running jobs come first, and a STATE column follows PRIORITY with\n"
	"qstat's words: r running, qw pending, hqw held.  A held job is\n"
	"rated 0 and has no terms: its figures are shown as -.  Other\n"
	"plugins list pending jobs only, held ones among them, as sprio.\n"
	"\n"
	"Grid Engine's views (sge only), columns as qstat names them:\n"
	"  --urg  (qstat -urg) PRIOR NURG URG RRCONTR WTCONTR DLCONTR:\n"
	"         urgency = rrcontr (slots x SlotUrgency + the queue's\n"
	"         urgency) + wtcontr (waiting seconds x WeightWaitingTime)\n"
	"         + dlcontr (deadline; 0: Rota jobs have none yet)\n"
	"  --pri  (qstat -pri) PRIOR NURG NPPRIOR NTCKTS PPRI: prior =\n"
	"         WeightUrgency x nurg + WeightTicket x ntckts +\n"
	"         WeightPriority x npprior; ppri is the POSIX priority\n"
	"         (-nice)\n"
	"  --ext  (qstat -ext) PRIOR NTCKTS TCKTS OTCKT FTCKT STCKT:\n"
	"         tckts = otckt (override) + ftckt (functional) + stckt\n"
	"         (share tree), truncated as qstat shows them; ntckts is\n"
	"         tckts / the most of any job\n"
	"each followed by USER STATE QUEUE SLOTS; --ext by USER PROJECT\n"
	"DEPARTMENT STATE QUEUE SLOTS, as qstat -ext: the job's account (a\n"
	"Grid Engine project) and its user's department\n"
	"(DepartmentName=, else defaultdepartment).\n"
	"\n"
	"Options:\n"
	"  -j, --jobs=LIST  these jobs only (comma-separated ids, as sprio)\n"
	"  -u, --user=USER  this user's jobs only ('me' for yours)\n"
	"  -l, --long       every term's raw, normalized, weight and value\n"
	"      --urg, --pri, --ext  Grid Engine's views (see above)\n"
	"  -H, --noheader   no title and column lines\n"
	"      --json       the controller's reply, one JSON object: rows\n"
	"                   carry \"state\" (pending, held or running)\n";

enum prio_view {
	VIEW_TERMS = 1, /* the default: name=value per term */
	VIEW_LONG,	/* -l */
	VIEW_URG,	/* Grid Engine's qstat -urg */
	VIEW_PRI,	/* qstat -pri */
	VIEW_EXT,	/* qstat -ext */
};

struct prio_opts {
	enum prio_view view;
	bool header;
	bool json;
	const char *jobs;	/* -j LIST */
	const char *user;	/* -u USER */
};

static int set_view(struct prio_opts *o, enum prio_view v)
{
	if (o->view != VIEW_TERMS && o->view != v) {
		cmd_error("prio", "-l, --urg, --pri and --ext: one at most");
		return -1;
	}
	o->view = v;
	return 0;
}

static int parse(int argc, char **argv, struct prio_opts *o, int *first)
{
	static const struct option longopts[] = {
		{ "long", no_argument, NULL, 'l' },
		{ "urg", no_argument, NULL, 'U' },
		{ "pri", no_argument, NULL, 'P' },
		{ "ext", no_argument, NULL, 'E' },
		{ "noheader", no_argument, NULL, 'H' },
		{ "json", no_argument, NULL, 'J' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "user", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int rc = 0;
	int c;

	*o = (struct prio_opts){ .view = VIEW_TERMS, .header = true };
	opterr = 0;
	while (rc == 0 &&
	       (c = getopt_long(argc, argv, "+lHhj:u:", longopts, NULL)) != -1) {
		switch (c) {
		case 'l': rc = set_view(o, VIEW_LONG); break;
		case 'U': rc = set_view(o, VIEW_URG); break;
		case 'P': rc = set_view(o, VIEW_PRI); break;
		case 'E': rc = set_view(o, VIEW_EXT); break;
		case 'H': o->header = false; break;
		case 'J': o->json = true; break;
		case 'j': o->jobs = optarg; break;
		case 'u': o->user = optarg; break;
		case 'h': return 1;
		default:
			cmd_error("prio", "unknown option '%s'",
				  argv[optind - 1]);
			return -1;
		}
	}
	*first = optind;
	return rc;
}

/* qstat's state words */
static const char *state_word(enum rota_prio_row_state s)
{
	switch (s) {
	case ROTA_PRIO_ROW_RUNNING: return "r";
	case ROTA_PRIO_ROW_HELD: return "hqw";
	default: return "qw";
	}
}

static const char *row_id(const struct rota_prio_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%u", r->id);
	return r->array ? r->array : buf;
}

static void print_row(const struct rota_prio_row *r, bool longer, bool state)
{
	bool held = state && r->state == ROTA_PRIO_ROW_HELD;
	char id[24];

	printf("%-8s %-10s %-12s %-10s %-10s", row_id(r, id, sizeof(id)),
	       r->user, r->account, r->queue, r->qos);
	if (held) /* Grid Engine rates it 0: no figure to explain */
		printf(" %14s", "-");
	else
		printf(" %14.4f", r->priority);
	if (state)
		printf(" %-5s", state_word(r->state));
	if (r->tasks > 1) /* an array's pending rest: one line for all */
		printf(" tasks=%u", r->tasks);
	if (!longer) {
		for (size_t i = 0; i < r->nfactors; i++)
			printf(" %s=%.4g", r->factors[i].name,
			       r->factors[i].value);
		printf("\n");
		return;
	}
	printf("\n");
	for (size_t i = 0; i < r->nfactors; i++) {
		const struct rota_msg_prio_factor *f = &r->factors[i];

		printf("    %-12s raw=%-14.6g norm=%-12.6g weight=%-12.6g "
		       "value=%.6g\n",
		       f->name, f->raw, f->norm, f->weight, f->value);
	}
}

/* A term of the row by name; NULL when the plugin gives none. */
static const struct rota_msg_prio_factor *term(const struct rota_prio_row *r,
					       const char *name)
{
	for (size_t i = 0; i < r->nfactors; i++)
		if (strcmp(r->factors[i].name, name) == 0)
			return &r->factors[i];
	return NULL;
}

/* A term's value, or its raw input or normalized value; 0 when absent. */
static double value_of(const struct rota_prio_row *r, const char *name)
{
	const struct rota_msg_prio_factor *f = term(r, name);

	return f ? f->value : 0;
}

static double raw_of(const struct rota_prio_row *r, const char *name)
{
	const struct rota_msg_prio_factor *f = term(r, name);

	return f ? f->raw : 0;
}

static double norm_of(const struct rota_prio_row *r, const char *name)
{
	const struct rota_msg_prio_factor *f = term(r, name);

	return f ? f->norm : 0;
}

/* A ticket count as qstat shows it: truncated. */
static double shown(double tickets)
{
	return tickets > 0 && tickets < 1e18 ? (double)(int64_t)tickets : 0;
}

static const char *const view_titles[] = {
	[VIEW_URG] = "   PRIOR    NURG      URG  RRCONTR  WTCONTR  DLCONTR",
	[VIEW_PRI] = "   PRIOR    NURG NPPRIOR  NTCKTS   PPRI",
	[VIEW_EXT] = "   PRIOR  NTCKTS   TCKTS   OTCKT   FTCKT   STCKT",
};

/* The figures of one of Grid Engine's views; a held job's are blank. */
static void print_figures(const struct rota_prio_row *r, enum prio_view v)
{
	double tickets = raw_of(r, "tickets");

	switch (v) {
	case VIEW_URG:
		printf("%8.5f %7.5f %8.0f %8.0f %8.0f %8.0f", r->priority,
		       norm_of(r, "urgency"), raw_of(r, "urgency"),
		       value_of(r, "urgency.slots") +
			       value_of(r, "urgency.queue"),
		       value_of(r, "urgency.waiting"),
		       value_of(r, "urgency.deadline"));
		break;
	case VIEW_PRI:
		printf("%8.5f %7.5f %7.5f %7.5f %6.0f", r->priority,
		       norm_of(r, "urgency"), norm_of(r, "priority"),
		       norm_of(r, "tickets"), raw_of(r, "priority"));
		break;
	default:
		/* Grid Engine truncates the counts it shows */
		printf("%8.5f %7.5f %7.0f %7.0f %7.0f %7.0f", r->priority,
		       norm_of(r, "tickets"), shown(tickets),
		       shown(raw_of(r, "tickets.override")),
		       shown(raw_of(r, "tickets.functional")),
		       shown(raw_of(r, "tickets.share")));
		break;
	}
}

/*
 * One line of --urg, --pri or --ext: JOBID, the figures, USER STATE
 * QUEUE SLOTS.  Rota's urgency parts as Grid Engine splits them:
 * rrcontr = urgency.slots + urgency.queue, wtcontr = urgency.waiting,
 * dlcontr = urgency.deadline (0 while the plugin gives none).
 */
static void print_view_row(const struct rota_prio_row *r, enum prio_view v)
{
	const char *title = view_titles[v];
	char id[24];
	char slots[16] = "-";

	printf("%-8s ", row_id(r, id, sizeof(id)));
	if (r->state == ROTA_PRIO_ROW_HELD) /* no terms: no figures */
		printf("%*s", (int)strlen(title), "-");
	else
		print_figures(r, v);
	if (term(r, "urgency.slots"))
		snprintf(slots, sizeof(slots), "%.0f",
			 raw_of(r, "urgency.slots"));
	printf(" %-10s", r->user);
	if (v == VIEW_EXT) /* qstat -ext: project and department */
		printf(" %-10s %-17s", r->account ? r->account : "-",
		       r->department ? r->department : "-");
	printf(" %-5s %-10s %5s\n", state_word(r->state), r->queue, slots);
}

/* Grid Engine's views need the sge plugin's terms on every rated row. */
static bool has_sge_terms(const struct rota_msg_prio *m)
{
	if (!m->rates_all)
		return false;
	for (size_t i = 0; i < m->n; i++)
		if (m->rows[i].state != ROTA_PRIO_ROW_HELD &&
		    !term(&m->rows[i], "urgency"))
			return false;
	return true;
}

/* When the figures are from, as the controller's clock says. */
static void print_rated(const struct rota_msg_prio *m)
{
	time_t t = (time_t)m->rated_at;
	struct tm tm;
	char when[32];

	if (!m->rated_at || !localtime_r(&t, &tm)) {
		printf("Rated at submit or change only (no rating of all yet)\n");
		return;
	}
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	printf("Rated %s (%lld s ago); a job submitted or changed since: "
	       "then\n", when,
	       (long long)(m->now > m->rated_at ? m->now - m->rated_at : 0));
}

static int print_view(const struct rota_msg_prio *m, const struct prio_opts *o)
{
	bool longer = o->view == VIEW_LONG;

	if (o->view >= VIEW_URG && !has_sge_terms(m)) {
		cmd_error("prio", "--urg, --pri and --ext are Grid Engine's views: the priority plugin '%s' has no urgency (they need priority/sge)",
			  m->plugin);
		return 1;
	}
	if (o->header)
		printf("Priority %s: %s\n", m->plugin, m->describe);
	if (o->header)
		print_rated(m);
	if (o->header && o->view >= VIEW_URG)
		printf("%-8s %s %-10s%s %-5s %-10s %5s\n", "JOBID",
		       view_titles[o->view], "USER",
		       o->view == VIEW_EXT ? " PROJECT    DEPARTMENT       "
					   : "",
		       "STATE", "QUEUE", "SLOTS");
	else if (o->header)
		printf("%-8s %-10s %-12s %-10s %-10s %14s%s %s\n", "JOBID",
		       "USER", "ACCOUNT", "QUEUE", "QOS", "PRIORITY",
		       m->rates_all ? " STATE" : "", longer ? "" : "TERMS");
	for (size_t i = 0; i < m->n; i++) {
		if (o->view >= VIEW_URG)
			print_view_row(&m->rows[i], o->view);
		else
			print_row(&m->rows[i], longer, m->rates_all);
	}
	return 0;
}

/* The ids of -j's comma-separated LIST, appended to 'ids'. */
static int add_list(struct rota_msg_job_ids *ids, const char *list)
{
	char *copy = rota_xstrdup(list), *save = NULL;
	int rc = 0;

	for (char *t = strtok_r(copy, ",", &save); t && rc == 0;
	     t = strtok_r(NULL, ",", &save)) {
		ids->job_ids = rota_xreallocarray(ids->job_ids, ids->n + 1,
						  sizeof(*ids->job_ids));
		rc = cmd_parse_job_id("prio", t, &ids->job_ids[ids->n++]);
	}
	if (rc == 0 && ids->n == 0) {
		cmd_error("prio", "-j '%s': no job id", list);
		rc = -1;
	}
	free(copy);
	return rc;
}

/* The request body: {"job_ids":[...]} from -j and the JOB operands. */
static int request(int argc, char **argv, int first,
		   const struct prio_opts *o, char **body, size_t *len)
{
	struct rota_msg_job_ids ids = { 0 };
	int rc = o->jobs ? add_list(&ids, o->jobs) : 0;

	for (int i = first; rc == 0 && i < argc; i++) {
		ids.job_ids = rota_xreallocarray(ids.job_ids, ids.n + 1,
						 sizeof(*ids.job_ids));
		rc = cmd_parse_job_id("prio", argv[i], &ids.job_ids[ids.n++]);
	}
	if (rc == 0 && o->user) {
		struct passwd *pw = strcmp(o->user, "me") == 0
					    ? getpwuid(getuid())
					    : getpwnam(o->user);

		if (!pw) {
			cmd_error("prio", "-u '%s': no such user", o->user);
			rc = -1;
		}
		ids.by_uid = pw != NULL;
		ids.uid = pw ? (uint32_t)pw->pw_uid : 0;
	}
	if (rc == 0)
		*body = rota_msg_job_ids_encode(&ids, len);
	free(ids.job_ids);
	return rc < 0 ? -1 : 0;
}

static int prio_run(int argc, char **argv)
{
	struct rota_msg_prio m;
	struct rota_reply reply;
	struct prio_opts o;
	struct rota_error err;
	int first = 0;
	size_t len;
	char *body = NULL;
	int rc = parse(argc, argv, &o, &first);

	if (rc)
		return rc > 0 ? cmd_print_help(&cmd_prio) : 2;
	if (request(argc, argv, first, &o, &body, &len) < 0)
		return 2;
	rc = cmd_call("prio", ROTA_MSG_PRIO, body, len, &reply);
	free(body);
	if (rc < 0)
		return 1;
	if (o.json) {
		cmd_print_reply(&reply);
		return 0;
	}
	rc = rota_msg_prio_decode(reply.body, reply.len, &m, &err);
	rota_reply_clear(&reply);
	if (rc < 0) {
		cmd_error("prio", "bad reply: %s", err.text);
		return 1;
	}
	rc = print_view(&m, &o);
	rota_msg_prio_clear(&m);
	return rc;
}

const struct cmd cmd_prio = {
	.name = "prio",
	.summary = "jobs' priorities and why (sprio, qstat -urg/-pri/-ext)",
	.help = help,
	.run = prio_run,
};
