// SPDX-License-Identifier: MIT
/*
 * rota share: the fairshare tree, as Slurm's sshare -l shows it: shares,
 * usage and the factor the fairshare plugin computes, per account and per
 * user, indented by depth.  --json prints the controller's reply as is.
 *
 * The columns named as sshare's mean what sshare's mean (Slurm 22.05,
 * sshare/process.c and the multifactor plugin): under Fair-Tree and every
 * plugin that is not Slurm's classic, NORMSHARES is the share among
 * siblings, EFFUSAGE the usage over the parent's, and an account has no
 * FAIRSHARE; under classic (PriorityFlags=NO_FAIR_TREE) they are classic's
 * figures of the whole machine.  MACHSHARES and NORMUSAGE are always of
 * the whole machine.
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
	"usage: rota share [-l | -T] [-u USER] [-A ACCOUNT] [--noheader] [--json]\n"
	"\n"
	"Show the fairshare tree: every account and every user's place in\n"
	"an account, with its shares, its usage and its fairshare factor,\n"
	"as the controller computes them at this moment (usage charged and\n"
	"decayed up to now).  The first line names the fairshare plugin,\n"
	"how usage decays and its half-life.  Unlike sshare, the whole tree\n"
	"is shown by default.\n"
	"\n"
	"Columns (those named as sshare's mean what sshare's mean):\n"
	"  ACCOUNT     indented one space per level below root\n"
	"  USER        empty on an account's own line\n"
	"  RAWSHARES   Shares= from rota.conf\n"
	"  NORMSHARES  the share among siblings: shares / the siblings'\n"
	"              shares, its own included (sshare's NormShares under\n"
	"              Fair-Tree); classic: of the whole machine, multiplied\n"
	"              down from the root (as sshare under NO_FAIR_TREE)\n"
	"  RAWUSAGE    decayed usage, in core-seconds (cores x seconds, plus\n"
	"              UsageMemWeight per GB of memory); with\n"
	"              UsageCharge=measured, the CPU seconds, memory integral\n"
	"              and io the jobs' cgroups measured, as UsageWeights\n"
	"              combines them\n"
	"  EFFUSAGE    usage / the parent's usage (sshare's EffectvUsage\n"
	"              under Fair-Tree; 1 for root); classic: Slurm's\n"
	"              effective usage, the one classic weighs\n"
	"  FAIRSHARE   the factor in [0, 1] the priority plugins use; blank\n"
	"              on accounts under fairtree, as in sshare (the factor\n"
	"              is a user's rank)\n"
	"With -l, also:\n"
	"  NORMUSAGE   usage / the root's usage (of the whole machine)\n"
	"  LEVELFS     Fair-Tree's shares / usage among siblings (inf: no\n"
	"              usage)\n"
	"  VALUE       the plugin's own figure (ratio: IT4I's 0..1000000)\n"
	"  TICKETS     share-tree tickets (sharetree only)\n"
	"  PEND RUN    pending (not held) and running jobs below\n"
	"  MACHSHARES  the share of the whole machine: shares / siblings'\n"
	"              shares, multiplied down from the root\n"
	"--json rows carry them all: shares_level (NORMSHARES), usage_level\n"
	"(EFFUSAGE), shares_norm (MACHSHARES), usage_norm (NORMUSAGE),\n"
	"usage_eff (the usage the plugin weighs), factor (for accounts too).\n"
	"\n"
	"With -T (--targets; Fairshare=sharetree), Grid Engine's sge_share_mon\n"
	"view of the share tree instead, with the targets the scheduler uses:\n"
	"  LEVEL%      shares / siblings' shares\n"
	"  TOTAL%      the share of the whole machine\n"
	"  LTARGET     long-term target: shares among the nodes with jobs\n"
	"  STARGET     short-term target: corrected by usage (pending jobs'\n"
	"              tickets come from it)\n"
	"  RTARGET     short-term target among the nodes with running jobs\n"
	"              (running jobs' tickets come from it)\n"
	"  ACTUAL      usage / the whole machine's (actual_share)\n"
	"  USAGE, TICKETS, PEND, RUN as above\n"
	"(sge_share_mon itself shows targets of 0: it computes them without\n"
	"the jobs; these are the scheduler's.)\n"
	"\n"
	"Options:\n"
	"  -l, --long          all columns\n"
	"  -T, --targets       the share-tree targets (sharetree only)\n"
	"  -u, --user USER     only USER's lines and the accounts above them\n"
	"  -A, --account NAME  only that account, its subtree and its parents\n"
	"  -H, --noheader      no title and column lines\n"
	"      --json          the controller's reply, one JSON object\n";

struct share_opts {
	bool longer;
	bool targets;
	bool header;
	bool json;
	const char *user;
	const char *account;
};

static int parse(int argc, char **argv, struct share_opts *o)
{
	static const struct option longopts[] = {
		{ "long", no_argument, NULL, 'l' },
		{ "targets", no_argument, NULL, 'T' },
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
	while ((c = getopt_long(argc, argv, "+lTu:A:Hh", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'l': o->longer = true; break;
		case 'T': o->targets = true; break;
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
	if (o->longer && o->targets) {
		cmd_error("share", "-l and -T are two views: choose one");
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

/* What sshare shows under the plugin in use (see the top of the file). */
struct share_meaning {
	bool classic;	    /* Slurm's NO_FAIR_TREE figures */
	bool no_account_fs; /* Fair-Tree: an account's factor is blank */
};

static void print_row(const struct rota_share_row *r, bool longer,
		      const struct share_meaning *sm)
{
	char account[64];
	char lfs[24] = "";
	char fs[24] = "";

	snprintf(account, sizeof(account), "%*s%s", (int)r->depth, "",
		 r->account);
	if (r->user || !sm->no_account_fs)
		snprintf(fs, sizeof(fs), "%.6f", r->factor);
	printf("%-16s %-10s %9g %10.6f %12.0f %12.6f %9s", account,
	       r->user ? r->user : "", r->shares,
	       sm->classic ? r->shares_norm : r->shares_level, r->usage,
	       sm->classic ? r->usage_eff : r->usage_level, fs);
	if (longer) {
		if (isinf(r->level_fs))
			snprintf(lfs, sizeof(lfs), "inf");
		else if (!isnan(r->level_fs))
			snprintf(lfs, sizeof(lfs), "%.6f", r->level_fs);
		printf(" %9.6f %10s %10.0f %9.1f %5u %5u %10.6f", r->usage_norm,
		       lfs, r->value, r->tickets, r->pending, r->running,
		       r->shares_norm);
	}
	printf("\n");
}

/* Grid Engine's sge_share_mon view (-T): a node's targets and usage. */
static void print_targets(const struct rota_share_row *r, bool header)
{
	char account[64];

	if (header) {
		printf("%-16s %-10s %9s %7s %7s %8s %8s %8s %8s %12s %9s %5s "
		       "%5s\n", "ACCOUNT", "USER", "RAWSHARES", "LEVEL%",
		       "TOTAL%", "LTARGET", "STARGET", "RTARGET", "ACTUAL",
		       "USAGE", "TICKETS", "PEND", "RUN");
		return;
	}
	snprintf(account, sizeof(account), "%*s%s", (int)r->depth, "",
		 r->account);
	printf("%-16s %-10s %9g %7.4f %7.4f %8.6f %8.6f %8.6f %8.6f %12.3f "
	       "%9.1f %5u %5u\n", account, r->user ? r->user : "", r->shares,
	       r->shares_level, r->shares_norm, r->ltarget, r->starget,
	       r->rtarget, r->usage_norm, r->usage, r->tickets, r->pending,
	       r->running);
}

static int share_run(int argc, char **argv)
{
	struct rota_msg_share m;
	struct rota_reply reply;
	struct share_opts o;
	struct rota_error err;
	struct share_meaning sm;
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
	if (o.targets && (m.n == 0 || isnan(m.rows[0].ltarget))) {
		cmd_error("share", "-T: fairshare plugin '%s' computes no "
			  "targets (Fairshare=sharetree does)", m.plugin);
		rota_msg_share_clear(&m);
		return 1;
	}
	if (o.header && o.targets) {
		printf("Fairshare %s (%s), usage decay %s, half-life %s\n",
		       m.plugin, m.convention, m.decay, hl);
		print_targets(NULL, true);
	} else if (o.header) {
		printf("Fairshare %s (%s), usage decay %s, half-life %s\n",
		       m.plugin, m.convention, m.decay, hl);
		printf("%-16s %-10s %9s %10s %12s %12s %9s", "ACCOUNT", "USER",
		       "RAWSHARES", "NORMSHARES", "RAWUSAGE", "EFFUSAGE",
		       "FAIRSHARE");
		if (o.longer)
			printf(" %9s %10s %10s %9s %5s %5s %10s", "NORMUSAGE",
			       "LEVELFS", "VALUE", "TICKETS", "PEND", "RUN",
			       "MACHSHARES");
		printf("\n");
	}
	show = calloc(m.n + 1, sizeof(bool));
	if (!show) {
		rota_msg_share_clear(&m);
		return 1;
	}
	select_rows(&m, &o, show);
	sm.classic = strcmp(m.plugin, "classic") == 0;
	sm.no_account_fs = strcmp(m.plugin, "fairtree") == 0;
	for (size_t i = 0; i < m.n; i++) {
		if (show[i] && o.targets)
			print_targets(&m.rows[i], false);
		else if (show[i])
			print_row(&m.rows[i], o.longer, &sm);
	}
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
