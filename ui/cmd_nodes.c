// SPDX-License-Identifier: MIT
/* rota nodes: one line per node: state, cores, memory, features, GRES. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/units.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota nodes [--noheader] [--json]\n"
	"\n"
	"List nodes: NODE STATE CORES (used/total) MEMORY (used/total)\n"
	"FEATURES, and GRES when any node has GPUs or other generic\n"
	"resources (gpu:v100:16,nvme:2: GPUs counted by type; which are in\n"
	"use and where each sits: 'rota show node').  STATE is UP, DOWN (with\n"
	"the reason in 'rota show node') or UNKNOWN (never registered).\n"
	"\n"
	"  -H, --noheader   no header line\n"
	"      --json       every node in full, one JSON object (docs/json.md)\n";

/* The features, padded to 'width' when a column follows. */
static void print_features(char *const *f, int width)
{
	int n = 0;

	if (!f || !*f)
		n = printf("-");
	for (char *const *p = f; p && *p; p++)
		n += printf("%s%s", p == f ? "" : ",", *p);
	printf("%*s", n < width ? width - n : 0, "");
}

static int nodes_run(int argc, char **argv)
{
	struct rota_msg_node_list list;
	bool header = true;
	bool json = false;
	bool gres = false;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return cmd_print_help(&cmd_nodes);
		if (strcmp(argv[i], "-H") == 0 ||
		    strcmp(argv[i], "--noheader") == 0) {
			header = false;
			continue;
		}
		if (strcmp(argv[i], "--json") == 0) {
			json = true;
			continue;
		}
		cmd_error("nodes", "unexpected argument '%s'", argv[i]);
		return 2;
	}
	if (cmd_fetch_nodes("nodes", &list) < 0)
		return 1;
	if (json) {
		cmd_print_nodes_json(list.nodes, list.n);
		rota_msg_node_list_clear(&list);
		return 0;
	}
	for (size_t i = 0; i < list.n; i++)
		gres |= list.nodes[i].ngpus || list.nodes[i].gres;
	if (header)
		printf("%-12s %-8s %11s %17s %-16s%s\n", "NODE", "STATE",
		       "CORES", "MEMORY", "FEATURES", gres ? " GRES" : "");
	for (size_t i = 0; i < list.n; i++) {
		const struct rota_node_info *n = &list.nodes[i];
		char used[32], total[32], cores[32], mem[64];

		rota_size_format_mb(n->memory_used_mb, used, sizeof(used));
		rota_size_format_mb(n->memory_mb, total, sizeof(total));
		snprintf(cores, sizeof(cores), "%u/%u", n->cores_used,
			 n->cores);
		snprintf(mem, sizeof(mem), "%s/%s", used, total);
		printf("%-12s %-8s %11s %17s ", n->name, n->state, cores, mem);
		print_features(n->features, gres ? 16 : 0);
		if (gres) {
			char *g = rota_node_gres_text(n, false);

			printf(" %s", g[0] ? g : "-");
			free(g);
		}
		printf("\n");
	}
	rota_msg_node_list_clear(&list);
	return 0;
}

const struct cmd cmd_nodes = {
	.name = "nodes",
	.summary = "list nodes",
	.help = help,
	.run = nodes_run,
};
