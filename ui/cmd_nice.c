// SPDX-License-Identifier: MIT
/* rota nice: change a pending job's nice value. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/msg.h"
#include "common/proto.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota nice JOB... [+|-]N\n"
	"\n"
	"Change the nice value of pending jobs, as --nice at submit: a\n"
	"positive nice lowers a job's priority, a negative one raises it.\n"
	"N sets it; +N adds N to it and -N takes N from it.  The result is\n"
	"within -10000..10000, and below 0 for operators only.  The job is\n"
	"re-rated at once: on Priority=multifactor its priority moves by\n"
	"exactly the change ('rota prio -l JOB' shows the nice term).\n"
	"\n"
	"  -h, --help   this text\n"
	"\n"
	"Exit status: 0 all changed, 1 some could not be (each said on\n"
	"stderr), 2 bad usage.\n";

static int parse_nice(const char *text, struct rota_msg_control *m)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || *end || end == text || v < -ROTA_MSG_NICE_LIMIT ||
	    v > ROTA_MSG_NICE_LIMIT) {
		cmd_error("nice", "'%s' is not a nice value ([+|-]N)", text);
		return -EINVAL;
	}
	m->has_nice = true;
	m->nice = (int32_t)v;
	m->relative = text[0] == '+' || text[0] == '-';
	return 0;
}

static int nice_run(int argc, char **argv)
{
	struct rota_msg_control m = { 0 };
	int rc;

	if (cmd_wants_help(argc, argv))
		return cmd_print_help(&cmd_nice);
	if (argc < 3) {
		fputs(help, stderr);
		return 2;
	}
	if (parse_nice(argv[argc - 1], &m) < 0 ||
	    cmd_parse_job_ids("nice", argc - 2, argv + 1, &m) < 0)
		return 2;
	rc = cmd_control("nice", ROTA_MSG_NICE, &m);
	rota_msg_control_clear(&m);
	return rc;
}

const struct cmd cmd_nice = {
	.name = "nice",
	.summary = "change pending jobs' nice values",
	.help = help,
	.run = nice_run,
};
