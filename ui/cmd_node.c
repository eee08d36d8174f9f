// SPDX-License-Identifier: MIT
/* rota node drain|resume|down NAME: operators take nodes in and out. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/proto.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota node drain|resume|down NAME [--reason TEXT]\n"
	"\n"
	"For operators (root, and the users rota.conf names in Operators):\n"
	"  drain   start no new job on the node; running jobs finish\n"
	"          ('rota nodes' says DRAINING, then DRAINED)\n"
	"  down    take the node out as if it had failed: its jobs are\n"
	"          requeued (those submitted --no-requeue end NODE_FAIL)\n"
	"  resume  undo drain and down; the node is UP once its daemon is\n"
	"          heard from\n"
	"  -r, --reason TEXT  why, shown in 'rota show node'\n";

static int node_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "reason", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct rota_msg_node_admin m = { 0 };
	struct rota_reply reply;
	size_t len;
	char *body;
	int c, rc;

	while ((c = getopt_long(argc, argv, "r:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': m.reason = optarg; break;
		case 'h': return cmd_print_help(&cmd_node);
		default: fputs(help, stderr); return 2;
		}
	}
	if (argc - optind != 2) {
		fputs(help, stderr);
		return 2;
	}
	m.action = argv[optind];
	m.name = argv[optind + 1];
	if (strcmp(m.action, "drain") != 0 && strcmp(m.action, "resume") != 0 &&
	    strcmp(m.action, "down") != 0) {
		cmd_error("node", "'%s': expected drain, resume or down",
			  m.action);
		return 2;
	}
	body = rota_msg_node_admin_encode(&m, &len);
	rc = cmd_call("node", ROTA_MSG_NODE_ADMIN, body, len, &reply);
	free(body);
	if (rc < 0)
		return 1;
	rota_reply_clear(&reply);
	return 0;
}

const struct cmd cmd_node = {
	.name = "node",
	.summary = "drain, resume or down a node (operators)",
	.help = help,
	.run = node_run,
};
