// SPDX-License-Identifier: MIT
/*
 * Deliberately broken fairshare plugins, one per way a .so can be wrong;
 * the build makes one of each with a -DBROKEN_* flag, and
 * test_plugin_host proves the loader refuses every one with its reason.
 * BROKEN_OLD_LIMITS is a limits plugin of an ABI whose arrays the host
 * no longer reads right.  BROKEN_NONE is a good plugin with one setting, Factor=, for the tests
 * of settings.  Its ops table is laid out as a plugin built for ABI 1.3
 * lays it out, without factors(): the host must not read past it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "plugins/rota_plugin.h"

struct state {
	double factor;
};

static __attribute__((unused)) int broken_compute(void *state, struct rota_share_tree *tree)
{
	const struct state *st = state;

	for (size_t i = 0; i < tree->n; i++)
		tree->nodes[i].factor = st->factor;
	return 0;
}

static int broken_init(const struct rota_host *host,
		       const struct rota_plugin_conf *conf, void **state,
		       char *err, size_t errlen)
{
	struct state *st = calloc(1, sizeof(*st));

	if (!st)
		return -ENOMEM;
	st->factor = 0.5;
	if (host->conf_double(conf, "Factor", 0, 1, &st->factor, err,
			      errlen) < 0) {
		free(st);
		return -EINVAL;
	}
	*state = st;
	return 0;
}

static void broken_fini(void *state)
{
	free(state);
}

static const struct rota_fairshare_ops broken_ops = {
	.size = offsetof(struct rota_fairshare_ops, factors),
#ifndef BROKEN_NO_OP
	.compute = broken_compute,
#endif
};

#ifdef BROKEN_NO_SYMBOL
/* a .so with a descriptor under another name: not a Rota plugin */
extern const struct rota_plugin some_other_symbol;
const struct rota_plugin some_other_symbol = {
#else
extern const struct rota_plugin rota_plugin;
const struct rota_plugin rota_plugin = {
#endif
#ifdef BROKEN_ABI
	.abi = ((ROTA_PLUGIN_ABI_MAJOR + 1) << 16),
#elif defined(BROKEN_OLD_LIMITS)
	/* before rota_limit_job grew: the host would misread its arrays */
	.abi = (ROTA_PLUGIN_ABI_MAJOR << 16) | 14,
#else
	.abi = ROTA_PLUGIN_ABI,
#endif
#ifdef BROKEN_KIND
	.kind = ROTA_PLUGIN_PRIORITY,
#elif defined(BROKEN_OLD_LIMITS)
	.kind = ROTA_PLUGIN_LIMITS,
#else
	.kind = ROTA_PLUGIN_FAIRSHARE,
#endif
#ifdef BROKEN_NAME
	.name = "someone-else",
#elif defined(BROKEN_ABI)
	.name = "badabi",
#elif defined(BROKEN_KIND)
	.name = "badkind",
#elif defined(BROKEN_NO_OP)
	.name = "noop",
#elif defined(BROKEN_NO_SYMBOL)
	.name = "nosym",
#elif defined(BROKEN_OLD_LIMITS)
	.name = "oldlimits",
#else
	.name = "strict",
#endif
	.init = broken_init,
	.fini = broken_fini,
	.ops = &broken_ops,
};
