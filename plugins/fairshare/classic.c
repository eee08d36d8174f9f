// SPDX-License-Identifier: MIT
/*
 * fairshare/classic: Slurm's classic fairshare (PriorityFlags=NO_FAIR_TREE).
 *
 * The factor is F = 2^(-(UE / S) / d): S the node's share of the machine
 * (shares_norm, from the host), UE its effective usage, d the dampening.
 * F is 0.5 for a node using exactly its share, 1 for one that used
 * nothing, and falls towards 0 the more a node exceeds its share.
 *
 * Effective usage blends a node's own normalized usage UN with its
 * parent's, weighted by the node's part of its siblings' shares:
 *   UE = UN + (UE_parent - UN) * shares / siblings' shares
 * so that a user in a busy account pays part of the account's debt.
 * Children of the root use UN as is (their parent's UE, the root's, is 1
 * by definition and would tell nothing); when no sibling has shares
 * Slurm takes the parent's UE, and so do we.
 *
 * Setting: DampeningFactor (Slurm's FairShareDampeningFactor), default 1,
 * from 1 to 10000 like Slurm's.  Larger values flatten the curve so that
 * heavy over-users still differ (a ratio of 5 from one of 10).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "plugins/rota_plugin.h"

struct classic_state {
	double dampening;
};

static int classic_init(const struct rota_host *host,
			const struct rota_plugin_conf *conf, void **state,
			char *err, size_t errlen)
{
	struct classic_state *st;
	double dampening = 1;
	int rc;

	*state = NULL;
	rc = host->conf_double(conf, "DampeningFactor", 1, 10000, &dampening,
			       err, errlen);
	if (rc < 0)
		return rc;
	st = malloc(sizeof(*st));
	if (!st) {
		snprintf(err, errlen, "fairshare/classic: out of memory");
		return -ENOMEM;
	}
	st->dampening = dampening;
	*state = st;
	return 0;
}

static void classic_fini(void *state)
{
	free(state);
}

/* UE of p's children, p's own being set (preorder guarantees it). */
static void classic_children_usage(struct rota_share_tree *tree, size_t p)
{
	struct rota_share_node *nodes = tree->nodes;
	double level_shares = 0;
	uint32_t c;

	for (c = nodes[p].first_child; c != ROTA_SHARE_NONE;
	     c = nodes[c].next_sibling)
		level_shares += nodes[c].shares;
	for (c = nodes[p].first_child; c != ROTA_SHARE_NONE;
	     c = nodes[c].next_sibling) {
		double un = nodes[c].usage_norm;
		double part;

		if (p == 0) {
			nodes[c].usage_eff = un;
			continue;
		}
		if (!(level_shares > 0)) {
			nodes[c].usage_eff = nodes[p].usage_eff;
			continue;
		}
		part = nodes[c].shares / level_shares;
		nodes[c].usage_eff = un + (nodes[p].usage_eff - un) * part;
	}
}

static int classic_compute(void *state, struct rota_share_tree *tree)
{
	const struct classic_state *st = state;

	if (tree->n == 0)
		return 0;
	tree->nodes[0].usage_eff = 1.0;
	for (size_t i = 0; i < tree->n; i++)
		classic_children_usage(tree, i);
	for (size_t i = 0; i < tree->n; i++) {
		struct rota_share_node *node = &tree->nodes[i];
		double s = node->shares_norm;

		/* no shares, no claim: Slurm's priority_p_calc_fs_factor */
		if (s > 0)
			node->factor =
				exp2(-(node->usage_eff / s) / st->dampening);
		else
			node->factor = 0;
		node->value = node->factor;
		node->level_fs = NAN;
		node->tickets = 0;
	}
	return 0;
}

static const struct rota_fairshare_ops classic_ops = {
	.size = sizeof(classic_ops),
	.compute = classic_compute,
};

extern const struct rota_plugin ROTA_PLUGIN_EXPORT(fairshare, classic);
const struct rota_plugin ROTA_PLUGIN_EXPORT(fairshare, classic) = {
	.abi = ROTA_PLUGIN_ABI,
	.kind = ROTA_PLUGIN_FAIRSHARE,
	.name = "classic",
	.init = classic_init,
	.fini = classic_fini,
	.ops = &classic_ops,
};
