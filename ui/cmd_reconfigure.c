// SPDX-License-Identifier: MIT
/* rota reconfigure: the controller and every node daemon re-read rota.conf. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/proto.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota reconfigure\n"
	"\n"
	"Operators only.  The controller reads rota.conf again, checks it\n"
	"entirely (every key, node, queue, account and plugin) and builds a\n"
	"new scheduling core from it; it moves every job and all usage over\n"
	"and only then swaps, so no job is lost or restarted.  If anything in\n"
	"the new file is wrong, the controller keeps running on the old one\n"
	"and this command prints the one line saying why (exit 1).  Then each\n"
	"node daemon reads the file again (HeartbeatInterval, KillWait,\n"
	"LargeMemory, features) and registers anew.  The same as 'kill -HUP'\n"
	"on rota-ctld, which logs the reason instead.\n"
	"\n"
	"Some keys need a restart and are kept until then, with a warning in\n"
	"the log: CtldAddr, CtldPort, CtldUser, StateDir, LogFile.\n";

static int reconfigure_run(int argc, char **argv)
{
	struct rota_reply reply;

	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 ||
			  strcmp(argv[1], "--help") == 0))
		return cmd_print_help(&cmd_reconfigure);
	if (argc > 1) {
		cmd_error("reconfigure", "unexpected argument '%s'", argv[1]);
		return 2;
	}
	if (cmd_call("reconfigure", ROTA_MSG_RECONFIGURE, "{}", 2, &reply) < 0)
		return 1;
	rota_reply_clear(&reply);
	return 0;
}

const struct cmd cmd_reconfigure = {
	.name = "reconfigure",
	.summary = "re-read rota.conf everywhere (operators)",
	.help = help,
	.run = reconfigure_run,
};
