// SPDX-License-Identifier: MIT
/*
 * sched/builtin: strict order, no backfill (the default, Slurm's
 * sched/builtin).  The core's main pass does all the scheduling: in each
 * queue it starts jobs in order and stops at the first that does not fit,
 * so nothing ever overtakes the job at the head.  A backfill pass is
 * therefore empty.
 */
#include "config.h"

#include <stdio.h>

#include "plugins/rota_plugin.h"

static int builtin_backfill(void *state, const struct rota_sched_host *h,
			    struct rota_sched_stats *stats)
{
	*stats = (struct rota_sched_stats){ 0 };
	return 0;
}

static void builtin_describe(void *state, char *buf, size_t len)
{
	snprintf(buf, len, "strict order, no backfill");
}

static const struct rota_sched_ops builtin_ops = {
	.size = sizeof(builtin_ops),
	.backfill = builtin_backfill,
	.describe = builtin_describe,
};

extern const struct rota_plugin ROTA_PLUGIN_EXPORT(sched, builtin);
const struct rota_plugin ROTA_PLUGIN_EXPORT(sched, builtin) = {
	.abi = ROTA_PLUGIN_ABI,
	.kind = ROTA_PLUGIN_SCHED,
	.name = "builtin",
	.ops = &builtin_ops,
};
