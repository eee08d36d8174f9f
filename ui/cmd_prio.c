// SPDX-License-Identifier: MIT
/*
 * rota prio: why a job waits behind others, in numbers (Slurm's sprio -l).
 * One line per pending job, highest first, each term of its priority
 * named; -l adds every term's raw input, normalized value and weight.
 */
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
	"usage: rota prio [-l] [--noheader] [--json] [JOB...]\n"
	"\n"
	"Show the priority of pending jobs (all of them, or the JOBs named)\n"
	"and every term it is made of, as the priority plugin computes them\n"
	"now.  Jobs are listed in the order the scheduler takes them: queue\n"
	"priority tier first, then priority, then submit time, then job id.\n"
	"The first line names the priority plugin and its weights or\n"
	"formula.\n"
	"\n"
	"Columns: JOBID USER ACCOUNT QUEUE QOS PRIORITY, then each term as\n"
	"name=value (its share of the priority).  With -l, one line per\n"
	"term below its job: the raw input (seconds, cores, a factor...),\n"
	"the normalized value the formula uses, the weight, and the value.\n"
	"\n"
	"Options:\n"
	"  -l, --long       every term's raw, normalized, weight and value\n"
	"  -H, --noheader   no title and column lines\n"
	"      --json       the controller's reply, one JSON object\n";

struct prio_opts {
	bool longer;
	bool header;
	bool json;
};

static int parse(int argc, char **argv, struct prio_opts *o, int *first)
{
	static const struct option longopts[] = {
		{ "long", no_argument, NULL, 'l' },
		{ "noheader", no_argument, NULL, 'H' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	*o = (struct prio_opts){ .header = true };
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+lHh", longopts, NULL)) != -1) {
		switch (c) {
		case 'l': o->longer = true; break;
		case 'H': o->header = false; break;
		case 'J': o->json = true; break;
		case 'h': return 1;
		default:
			cmd_error("prio", "unknown option '%s'",
				  argv[optind - 1]);
			return -1;
		}
	}
	*first = optind;
	return 0;
}

static void print_row(const struct rota_prio_row *r, bool longer)
{
	char id[24];

	snprintf(id, sizeof(id), "%u", r->id);
	printf("%-8s %-10s %-12s %-10s %-10s %14.4f", r->array ? r->array : id,
	       r->user, r->account, r->queue, r->qos, r->priority);
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

/* The request body: {"job_ids":[...]} from the JOB operands. */
static int request(int argc, char **argv, int first, char **body,
		   size_t *len)
{
	struct rota_msg_job_ids ids = { 0 };

	ids.job_ids = rota_xcalloc((size_t)(argc - first) + 1,
				   sizeof(uint32_t));
	for (int i = first; i < argc; i++) {
		if (cmd_parse_job_id("prio", argv[i], &ids.job_ids[ids.n++]) <
		    0) {
			free(ids.job_ids);
			return -1;
		}
	}
	*body = rota_msg_job_ids_encode(&ids, len);
	free(ids.job_ids);
	return 0;
}

static int prio_run(int argc, char **argv)
{
	struct rota_msg_prio m;
	struct rota_reply reply;
	struct prio_opts o;
	struct rota_error err;
	int first = 0;
	size_t len;
	char *body;
	int rc = parse(argc, argv, &o, &first);

	if (rc)
		return rc > 0 ? cmd_print_help(&cmd_prio) : 2;
	if (request(argc, argv, first, &body, &len) < 0)
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
	if (o.header) {
		printf("Priority %s: %s\n", m.plugin, m.describe);
		printf("%-8s %-10s %-12s %-10s %-10s %14s %s\n", "JOBID",
		       "USER", "ACCOUNT", "QUEUE", "QOS", "PRIORITY",
		       o.longer ? "" : "TERMS");
	}
	for (size_t i = 0; i < m.n; i++)
		print_row(&m.rows[i], o.longer);
	rota_msg_prio_clear(&m);
	return 0;
}

const struct cmd cmd_prio = {
	.name = "prio",
	.summary = "pending jobs' priorities and why",
	.help = help,
	.run = prio_run,
};
