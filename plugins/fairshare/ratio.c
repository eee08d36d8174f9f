// SPDX-License-Identifier: MIT
/*
 * fairshare/ratio: IT4I's fairshare (PBS Pro at IT4I), per project.
 *
 *   value = MaxFairshare * (1 - usage_account / usage_total)
 *
 * All members of a project share one value: an account's comes from its
 * own usage, whatever its depth, and a user takes the value of the
 * account it hangs under.  A user directly under the root has no
 * project, so it counts as its own.  usage_total is the root's usage;
 * when it is 0 nobody has used anything and every account gets
 * MaxFairshare (IT4I does not say; this is the limit as usage -> 0 for
 * equal usages).  The root itself gets MaxFairshare.
 *
 * IT4I sorts jobs on 1000 * queue priority + value / 1000 + eligible
 * time / 864000; Rota's priority plugins weigh factor = value /
 * MaxFairshare instead, so MaxFairshare only scales what `rota share`
 * shows.  Setting: MaxFairshare, default 1e6 (IT4I's), from 1 to 1e12.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "plugins/rota_plugin.h"

struct ratio_state {
	double max_fairshare;
};

static int ratio_init(const struct rota_host *host,
		      const struct rota_plugin_conf *conf, void **state,
		      char *err, size_t errlen)
{
	struct ratio_state *st;
	double max = 1e6;
	int rc;

	*state = NULL;
	rc = host->conf_double(conf, "MaxFairshare", 1, 1e12, &max, err,
			       errlen);
	if (rc < 0)
		return rc;
	st = malloc(sizeof(*st));
	if (!st) {
		snprintf(err, errlen, "fairshare/ratio: out of memory");
		return -ENOMEM;
	}
	st->max_fairshare = max;
	*state = st;
	return 0;
}

static void ratio_fini(void *state)
{
	free(state);
}

/* The project formula for one account (or root-level user). */
static double ratio_value(double max, double usage, double total)
{
	double v;

	if (!(total > 0))
		return max;
	v = max * (1 - usage / total);
	/* inconsistent input (usage above the total) must not go below 0 */
	return v > 0 ? v : 0;
}

static int ratio_compute(void *state, struct rota_share_tree *tree)
{
	const struct ratio_state *st = state;
	double max = st->max_fairshare;
	double total;

	if (tree->n == 0)
		return 0;
	total = tree->nodes[0].usage;
	/* preorder: an account's value is set before its users read it */
	for (size_t i = 0; i < tree->n; i++) {
		struct rota_share_node *node = &tree->nodes[i];

		if (i == 0)
			node->value = max;
		else if (!node->is_user || node->parent == 0)
			node->value = ratio_value(max, node->usage, total);
		else
			node->value = tree->nodes[node->parent].value;
		node->factor = node->value / max;
		node->usage_eff = node->usage_norm;
		node->level_fs = NAN;
		node->tickets = 0;
	}
	return 0;
}

static const struct rota_fairshare_ops ratio_ops = {
	.size = sizeof(ratio_ops),
	.compute = ratio_compute,
};

extern const struct rota_plugin ROTA_PLUGIN_EXPORT(fairshare, ratio);
const struct rota_plugin ROTA_PLUGIN_EXPORT(fairshare, ratio) = {
	.abi = ROTA_PLUGIN_ABI,
	.kind = ROTA_PLUGIN_FAIRSHARE,
	.name = "ratio",
	.init = ratio_init,
	.fini = ratio_fini,
	.ops = &ratio_ops,
};
