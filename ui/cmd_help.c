// SPDX-License-Identifier: MIT
/* rota help [CMD]: the list of commands, or one command's manual. */
#include "config.h"

#include <stdio.h>

#include "ui/cmd.h"

static const char help[] =
	"usage: rota help [COMMAND]\n"
	"\n"
	"Without COMMAND, list the commands; with it, show its manual (the\n"
	"same as 'rota COMMAND --help').\n";

static int help_run(int argc, char **argv)
{
	const struct cmd *c;

	if (argc > 2) {
		cmd_error("help", "one command at a time");
		return 2;
	}
	if (argc == 2) {
		c = cmd_find(argv[1]);
		if (!c) {
			cmd_error("help", "'%s' is not a rota command",
				  argv[1]);
			return 2;
		}
		return cmd_print_help(c);
	}
	printf("usage: rota COMMAND [ARGS]\n\n"
	       "Rota, a batch system for HPC clusters.  Commands:\n\n");
	for (size_t i = 0; rota_cmds[i]; i++)
		printf("  %-8s %s\n", rota_cmds[i]->name,
		       rota_cmds[i]->summary);
	printf("\n'rota help COMMAND' shows a command's manual.  The "
	       "controller is\nfound through $ROTA_CTLD (ADDR:PORT) or "
	       "rota.conf ($ROTA_CONF).\n");
	printf("\nWhile the controller does not answer (it restarts) or is "
	       "busy, a command\ntries again for ClientRetry (rota.conf, 60s; "
	       "$ROTA_CLIENT_RETRY=SECONDS\nshortens it, 0 disables), saying "
	       "so once on stderr.  A request that\nchanges state carries a "
	       "request id, the same on every try, and the\ncontroller "
	       "answers a repeat with its first answer: a retried submit\n"
	       "never makes a second job.  On giving up, the command says "
	       "whether the\nrequest may have been applied.\n");
	return 0;
}

const struct cmd cmd_help = {
	.name = "help",
	.summary = "list commands, or show one command's manual",
	.help = help,
	.run = help_run,
};
