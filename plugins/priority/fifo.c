// SPDX-License-Identifier: MIT
/*
 * priority/fifo: first come, first served (the default).  Every job gets
 * priority 0, so the order the host keeps for equal priorities decides:
 * queue tier, then submit time, then job id.
 */
#include "config.h"

#include <stdio.h>

#include "plugins/rota_plugin.h"

static int fifo_compute(void *state, const struct rota_prio_context *ctx,
			struct rota_prio_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		jobs[i].priority = 0;
	return 0;
}

static void fifo_describe(void *state, char *buf, size_t len)
{
	snprintf(buf, len, "submit order (all priorities 0)");
}

static const struct rota_priority_ops fifo_ops = {
	.size = sizeof(fifo_ops),
	.compute = fifo_compute,
	.describe = fifo_describe,
	.fs_factor_only = true,
	.time_invariant = true,
};

extern const struct rota_plugin ROTA_PLUGIN_EXPORT(priority, fifo);
const struct rota_plugin ROTA_PLUGIN_EXPORT(priority, fifo) = {
	.abi = ROTA_PLUGIN_ABI,
	.kind = ROTA_PLUGIN_PRIORITY,
	.name = "fifo",
	.ops = &fifo_ops,
};
