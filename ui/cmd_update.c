// SPDX-License-Identifier: MIT
/*
 * rota update job: change a job's time limit, queue, name, urgency or
 * dependency.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota update job JOB KEY=VALUE...\n"
	"\n"
	"Change a job, as scontrol update does.  Keys (any case):\n"
	"\n"
	"  TimeLimit=T   its time limit (--time's forms: MM, HH:MM:SS,\n"
	"                D-HH:MM, 90m, 2h, UNLIMITED); users may only lower\n"
	"                it, operators set anything up to the queue's MaxTime\n"
	"  Queue=Q       move it to queue Q, whose MaxTime its time limit must\n"
	"                respect and whose nodes must be able to hold it\n"
	"  Name=N        its name (also while it runs)\n"
	"  Urgency=U     Flux's urgency, 1..31 (16 by default); users may only\n"
	"                lower it, operators set anything\n"
	"  Dependency=D  what it waits for, replacing what it waited for\n"
	"                (--dependency's forms, see 'rota help submit');\n"
	"                Dependency= (empty) drops it.  Refused if a job id\n"
	"                is unknown or the job would wait for itself\n"
	"  JobShare=N    its functional shares, Grid Engine's qalter -js\n"
	"                (0 to 1000000000; Fairshare=sharetree with\n"
	"                WeightTicketsFunctional, see docs/priority.md)\n"
	"  OTickets=N    its override tickets, Grid Engine's qalter -ot;\n"
	"                operators only\n"
	"\n"
	"All but Name, JobShare and OTickets need a pending job.  The change is all or nothing and\n"
	"the job is re-rated at once.  Users change their own jobs; operators\n"
	"any.\n"
	"\n"
	"  -h, --help   this text\n"
	"\n"
	"Exit status: 0 changed, 1 refused (said on stderr), 2 bad usage.\n";

static int parse_pairs(int argc, char **argv, struct rota_msg_control *m)
{
	m->set = rota_xcalloc((size_t)argc + 1, sizeof(*m->set));
	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq || eq == argv[i]) {
			cmd_error("update", "'%s': expected KEY=VALUE",
				  argv[i]);
			return -1;
		}
		m->set[m->nset].key = rota_xstrndup(argv[i],
						    (size_t)(eq - argv[i]));
		m->set[m->nset++].value = rota_xstrdup(eq + 1);
	}
	return 0;
}

static int update_run(int argc, char **argv)
{
	struct rota_msg_control m = { 0 };
	int rc = 2;

	if (cmd_wants_help(argc, argv))
		return cmd_print_help(&cmd_update);
	if (argc < 4 || strcmp(argv[1], "job") != 0) {
		fputs(help, stderr);
		return 2;
	}
	if (argc - 3 > ROTA_MSG_CONTROL_SET_MAX) {
		cmd_error("update", "at most %d changes at once",
			  ROTA_MSG_CONTROL_SET_MAX);
		return 2;
	}
	if (cmd_parse_job_ids("update", 1, argv + 2, &m) == 0 &&
	    parse_pairs(argc - 3, argv + 3, &m) == 0)
		rc = cmd_control("update", ROTA_MSG_UPDATE, &m);
	rota_msg_control_clear(&m);
	return rc;
}

const struct cmd cmd_update = {
	.name = "update",
	.summary = "change a job's time limit, queue, name, urgency or "
		   "dependency",
	.help = help,
	.run = update_run,
};
