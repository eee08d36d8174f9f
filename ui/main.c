// SPDX-License-Identifier: MIT
/* rota: one command, many subcommands; this file only dispatches. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "ui/cmd.h"

const struct cmd *const rota_cmds[] = {
	&cmd_submit, &cmd_queue, &cmd_cancel, &cmd_nodes,
	&cmd_show,   &cmd_node,	 &cmd_diag,  &cmd_share, &cmd_prio,
	&cmd_showq, &cmd_history, &cmd_reconfigure,
	&cmd_hold, &cmd_release, &cmd_nice, &cmd_update, &cmd_requeue,
	&cmd_top, &cmd_sim, &cmd_resv, &cmd_why, &cmd_run, &cmd_alloc,
	&cmd_help, NULL,
};

const struct cmd *cmd_find(const char *name)
{
	for (size_t i = 0; rota_cmds[i]; i++) {
		if (strcmp(rota_cmds[i]->name, name) == 0)
			return rota_cmds[i];
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2) {
		cmd_help.run(1, (char *[]){ "help", NULL });
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return cmd_help.run(1, (char *[]){ "help", NULL });
	if (strcmp(argv[1], "--version") == 0) {
		printf("rota %s\n", PACKAGE_VERSION);
		return 0;
	}
	c = cmd_find(argv[1]);
	if (!c) {
		fprintf(stderr,
			"rota: '%s' is not a rota command (see 'rota help')\n",
			argv[1]);
		return 2;
	}
	return c->run(argc - 1, argv + 1);
}
