// SPDX-License-Identifier: MIT
/* rota hold: keep pending jobs from starting. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/proto.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota hold [--operator] JOB...\n"
	"\n"
	"Hold pending jobs: a held job is not started, and the time it waits\n"
	"held does not count towards its age.  'rota release' lets it run.\n"
	"'rota submit --hold' queues a job held from the start.\n"
	"\n"
	"Users hold their own jobs; operators any.  A user's hold can be\n"
	"released by the job's owner; an operator hold (--operator, for\n"
	"operators only) by an operator only.  'rota queue' shows a held job\n"
	"as JobHeldUser or JobHeldAdmin.\n"
	"\n"
	"      --operator   an operator hold\n"
	"  -h, --help       this text\n"
	"\n"
	"Exit status: 0 all held, 1 some could not be (each said on stderr:\n"
	"'rota hold: job 42: permission denied: it belongs to alice'),\n"
	"2 bad usage.\n";

static int hold_run(int argc, char **argv)
{
	struct rota_msg_control m = { 0 };
	int first = 1;
	int rc;

	if (cmd_wants_help(argc, argv))
		return cmd_print_help(&cmd_hold);
	if (argc > 1 && strcmp(argv[1], "--operator") == 0) {
		m.operator_hold = true;
		first = 2;
	}
	if (argc <= first) {
		fputs(help, stderr);
		return 2;
	}
	if (cmd_parse_job_ids("hold", argc - first, argv + first, &m) < 0)
		return 2;
	rc = cmd_control("hold", ROTA_MSG_HOLD, &m);
	rota_msg_control_clear(&m);
	return rc;
}

const struct cmd cmd_hold = {
	.name = "hold",
	.summary = "hold pending jobs",
	.help = help,
	.run = hold_run,
};
