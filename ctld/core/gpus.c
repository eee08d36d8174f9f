// SPDX-License-Identifier: MIT
/*
 * A node's GPUs and other generic resources (core_internal.h, "gpus.c"):
 * what its daemon found, as its rota.conf line declares or restricts it.
 *
 *   no Gres=gpu on the line    the GPUs the node found, all of them
 *   Gres=gpu[:TYPE]:N          N GPUs (of TYPE) are expected: fewer found
 *                              and the node goes down with the numbers as
 *                              its reason, as with too few cores; more
 *                              found, and the first N (bus order) are
 *                              used, said in one line; GPUs of another
 *                              type are left out, said in one line
 *
 * Other generic resources (Gres=nvme:2, named in GresTypes) are counted
 * as rota.conf says: no daemon reports them.  Slurm does the same with a
 * gres.conf-less node: its GRES are the configured counts.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/core/core_internal.h"

void node_gres_init(struct core_node *n, const struct rota_conf_node *c)
{
	for (size_t i = 0; i < c->ngres; i++) {
		const struct rota_gres *g = &c->gres[i];

		if (strcmp(g->name, "gpu") != 0) {
			n->gres = rota_xreallocarray(n->gres, n->ngres + 1,
						     sizeof(*n->gres));
			n->gres[n->ngres++] = *g;
			continue;
		}
		/* gpu:a100:4,gpu:v100:4 on one line: their sum, any type */
		snprintf(n->cfg_gpu_type, sizeof(n->cfg_gpu_type), "%s",
			 n->cfg_gpus ? "" : g->type);
		n->cfg_gpus += g->count;
	}
}

static void gpus_clear(struct core_node *n)
{
	for (uint32_t i = 0; i < n->ngpus; i++) {
		free(n->gpus[i].type);
		free(n->gpus[i].model);
		free(n->gpus[i].busid);
		free(n->gpus[i].cores);
	}
	free(n->gpus);
	n->gpus = NULL;
	n->ngpus = 0;
}

void node_gres_fini(struct core_node *n)
{
	gpus_clear(n);
	free(n->gres);
}

static bool wanted(const struct core_node *n, const struct rota_gpu_info *g)
{
	return !n->cfg_gpu_type[0] || strcmp(n->cfg_gpu_type, g->type) == 0;
}

/* "gpu:v100" or "gpu" for the messages */
static void gpu_name(const char *type, char *buf, size_t len)
{
	snprintf(buf, len, "gpu%s%s", type[0] ? ":" : "", type);
}

int node_gpus_register(struct core_node *n, const struct rota_node_info *info,
		       struct rota_error *err)
{
	uint32_t found = 0, take;
	char what[48];

	for (size_t i = 0; i < info->ngpus; i++)
		found += wanted(n, &info->gpus[i]);
	gpu_name(n->cfg_gpu_type, what, sizeof(what));
	if (n->cfg_gpus && found < n->cfg_gpus)
		return rota_errorf(err, -EINVAL,
				   "node '%s' has %u %s, rota.conf says %u",
				   n->name, found, what, n->cfg_gpus);
	take = n->cfg_gpus ? n->cfg_gpus : found;
	if (found > take)
		rota_warn("node '%s' has %u %s, rota.conf declares %u: the "
			  "first %u used",
			  n->name, found, what, take, take);
	if (found < info->ngpus)
		rota_warn("node '%s' has %zu GPUs of other types than "
			  "rota.conf's %s: left out",
			  n->name, info->ngpus - found, what);
	/* a re-registration with GPUs in use keeps who uses which */
	if (n->gpus_used && n->ngpus == take)
		return 0;
	gpus_clear(n);
	n->gpus = rota_xcalloc(take + 1, sizeof(*n->gpus));
	for (size_t i = 0; i < info->ngpus && n->ngpus < take; i++) {
		const struct rota_gpu_info *g = &info->gpus[i];

		if (!wanted(n, g))
			continue;
		n->gpus[n->ngpus++] = (struct core_gpu){
			.type = rota_xstrdup(g->type),
			.model = rota_xstrdup(g->model),
			.busid = rota_xstrdup(g->busid),
			.cores = rota_xstrdup(g->cores),
			.numa = g->numa,
		};
	}
	return 0;
}
