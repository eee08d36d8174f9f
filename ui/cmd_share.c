// SPDX-License-Identifier: MIT
/*
 * rota share: the fairshare tree, as Slurm's sshare -l shows it: shares,
 * usage and the factor the fairshare plugin computes, per account and per
 * user, indented by depth.  --json prints the controller's reply as is.
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/proto.h"
#include "common/units.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota share [-l] [-u USER] [-A ACCOUNT] [--noheader] [--json]\n"
	"\n"
	"Show the fairshare tree: every account and every user's place in\n"
	"an account, with its shares, its usage and its fairshare factor,\n"
	"as the controller computes them at this moment (usage charged and\n"
	"decayed up to now).  The first line names the fairshare plugin,\n"
	"how usage decays and its half-life.  Unlike sshare, the whole tree\n"
	"is shown by default.\n"
	"\n"
	"Columns:\n"
	"  ACCOUNT     indented one space per level below root\n"
	"  USER        empty on an account's own line\n"
	"  RAWSHARES   Shares= from rota.conf\n"
	"  NORMSHARES  the share of the whole machine: shares / siblings'\n"
	"              shares, multiplied down from the root\n"
	"  RAWUSAGE    decayed usage, in core-seconds (cores x seconds, plus\n"
	"              UsageMemWeight per GB of memory)\n"
	"  EFFUSAGE    the usage the algorithm weighs, of the whole machine's\n"
	"              (classic: Slurm's effective usage)\n"
	"  FAIRSHARE   the factor in [0, 1] the priority plugins use\n"
	"With -l, also:\n"
	"  NORMUSAGE   usage / the root's usage\n"
	"  LEVELFS     Fair-Tree's shares / usage among siblings (inf: no\n"
	"              usage)\n"
	"  VALUE       the plugin's own figure (ratio: IT4I's 0..1000000)\n"
	"  TICKETS     share-tree tickets (sharetree only)\n"
	"  PEND RUN    pending (not held) and running jobs below\n"
	"\n"
	"Options:\n"
	"  -l, --long          all columns\n"
	"  -u, --user USER     only USER's lines and the accounts above them\n"
	"  -A, --account NAME  only that account, its subtree and its parents\n"
	"  -H, --noheader      no title and column lines\n"
	"      --json          the controller's reply, one JSON object\n";

struct share_opts {
	bool longer;
	bool header;
	bool json;
	const char *user;
	const char *account;
};

static int parse(int argc, char **argv, struct share_opts *o)
{
	static const struct option longopts[] = {
		{ "long", no_argument, NULL, 'l' },
		{ "user", required_argument, NULL, 'u' },
		{ "account", required_argument, NULL, 'A' },
		{ "noheader", no_argument, NULL, 'H' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	*o = (struct share_opts){ .header = true };
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+lu:A:Hh", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'l': o->longer = true; break;
		case 'u': o->user = optarg; break;
		case 'A': o->account = optarg; break;
		case 'H': o->header = false; break;
		case 'J': o->json = true; break;
		case 'h': return 1;
		default:
			cmd_error("share", "unknown option '%s'",
				  argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		cmd_error("share", "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return 0;
}

/* Every account above row i (rows are in preorder). */
static void mark_ancestors(const struct rota_msg_share *m, size_t i,
			  bool *show)
{
	uint32_t d = m->rows[i].depth;

	for (size_t k = i; k-- > 0 && d > 0;) {
		if (m->rows[k].depth < d) {
			show[k] = true;
			d = m->rows[k].depth;
		}
	}
}

/*
 * Which rows to show: all, or those -u and -A name (an account with its
 * subtree) and every account above them, so the tree still reads.
 */
static void select_rows(const struct rota_msg_share *m,
			const struct share_opts *o, bool *show)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct rota_share_row *r = &m->rows[i];

		if (!o->user && !o->account) {
			show[i] = true;
			continue;
		}
		if (o->user && r->user && strcmp(r->user, o->user) == 0) {
			show[i] = true;
			mark_ancestors(m, i, show);
		}
		if (o->account && !r->user &&
		    strcmp(r->account, o->account) == 0) {
			for (size_t k = i; k < m->n && (k == i || m->rows[k]
								.depth >
							r->depth);
			     k++)
				show[k] = true;
			mark_ancestors(m, i, show);
		}
	}
}

static void print_row(const struct rota_share_row *r, bool longer)
{
	char account[64];
	char lfs[24] = "";

	snprintf(account, sizeof(account), "%*s%s", (int)r->depth, "",
		 r->account);
	printf("%-16s %-10s %9g %10.6f %12.0f %9.6f %9.6f", account,
	       r->user ? r->user : "", r->shares, r->shares_norm, r->usage,
	       r->usage_eff, r->factor);
	if (longer) {
		if (isinf(r->level_fs))
			snprintf(lfs, sizeof(lfs), "inf");
		else if (!isnan(r->level_fs))
			snprintf(lfs, sizeof(lfs), "%.6f", r->level_fs);
		printf(" %9.6f %10s %10.0f %9.1f %5u %5u", r->usage_norm, lfs,
		       r->value, r->tickets, r->pending, r->running);
	}
	printf("\n");
}

static int share_run(int argc, char **argv)
{
	struct rota_msg_share m;
	struct rota_reply reply;
	struct share_opts o;
	struct rota_error err;
	char hl[32];
	bool *show;
	int rc = parse(argc, argv, &o);

	if (rc)
		return rc > 0 ? cmd_print_help(&cmd_share) : 2;
	if (cmd_call("share", ROTA_MSG_SHARE, "{}", 2, &reply) < 0)
		return 1;
	if (o.json) {
		cmd_print_reply(&reply);
		return 0;
	}
	rc = rota_msg_share_decode(reply.body, reply.len, &m, &err);
	rota_reply_clear(&reply);
	if (rc < 0) {
		cmd_error("share", "bad reply: %s", err.text);
		return 1;
	}
	rota_duration_format(m.half_life, hl, sizeof(hl));
	if (o.header) {
		printf("Fairshare %s (%s), usage decay %s, half-life %s\n",
		       m.plugin, m.convention, m.decay, hl);
		printf("%-16s %-10s %9s %10s %12s %9s %9s", "ACCOUNT", "USER",
		       "RAWSHARES", "NORMSHARES", "RAWUSAGE", "EFFUSAGE",
		       "FAIRSHARE");
		if (o.longer)
			printf(" %9s %10s %10s %9s %5s %5s", "NORMUSAGE",
			       "LEVELFS", "VALUE", "TICKETS", "PEND", "RUN");
		printf("\n");
	}
	show = calloc(m.n + 1, sizeof(bool));
	if (!show) {
		rota_msg_share_clear(&m);
		return 1;
	}
	select_rows(&m, &o, show);
	for (size_t i = 0; i < m.n; i++)
		if (show[i])
			print_row(&m.rows[i], o.longer);
	free(show);
	rota_msg_share_clear(&m);
	return 0;
}

const struct cmd cmd_share = {
	.name = "share",
	.summary = "the fairshare tree: shares, usage, factors",
	.help = help,
	.run = share_run,
};
