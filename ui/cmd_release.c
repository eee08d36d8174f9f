// SPDX-License-Identifier: MIT
/* rota release: let held jobs run again. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/msg.h"
#include "common/proto.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota release JOB...\n"
	"\n"
	"Release held jobs: they wait in the queue again, and their age\n"
	"counts on from where the hold stopped it.  Users release their own\n"
	"jobs' user holds; only operators release an operator hold.\n"
	"\n"
	"  -h, --help   this text\n"
	"\n"
	"Exit status: 0 all released, 1 some could not be (each said on\n"
	"stderr), 2 bad usage.\n";

static int release_run(int argc, char **argv)
{
	struct rota_msg_control m = { 0 };
	int rc;

	if (cmd_wants_help(argc, argv))
		return cmd_print_help(&cmd_release);
	if (argc < 2) {
		fputs(help, stderr);
		return 2;
	}
	if (cmd_parse_job_ids("release", argc - 1, argv + 1, &m) < 0)
		return 2;
	rc = cmd_control("release", ROTA_MSG_RELEASE, &m);
	rota_msg_control_clear(&m);
	return rc;
}

const struct cmd cmd_release = {
	.name = "release",
	.summary = "release held jobs",
	.help = help,
	.run = release_run,
};
