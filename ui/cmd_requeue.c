// SPDX-License-Identifier: MIT
/* rota requeue: send running jobs back to the queue. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/msg.h"
#include "common/proto.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota requeue JOB...\n"
	"\n"
	"Send running jobs back to the queue.  Each run is ended as a cancel\n"
	"ends it (SIGTERM to its process group, SIGKILL after KillWait), its\n"
	"cores are freed, and the job waits again for its next run with its\n"
	"age kept ('rota show job' counts its runs).  A pending job, or one\n"
	"submitted --no-requeue, cannot be requeued.  Users requeue their own\n"
	"jobs; operators any.\n"
	"\n"
	"  -h, --help   this text\n"
	"\n"
	"Exit status: 0 all requeued, 1 some could not be (each said on\n"
	"stderr), 2 bad usage.\n";

static int requeue_run(int argc, char **argv)
{
	struct rota_msg_control m = { 0 };
	int rc;

	if (cmd_wants_help(argc, argv))
		return cmd_print_help(&cmd_requeue);
	if (argc < 2) {
		fputs(help, stderr);
		return 2;
	}
	if (cmd_parse_job_ids("requeue", argc - 1, argv + 1, &m) < 0)
		return 2;
	rc = cmd_control("requeue", ROTA_MSG_REQUEUE, &m);
	rota_msg_control_clear(&m);
	return rc;
}

const struct cmd cmd_requeue = {
	.name = "requeue",
	.summary = "send running jobs back to the queue",
	.help = help,
	.run = requeue_run,
};
