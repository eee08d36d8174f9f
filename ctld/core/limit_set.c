// SPDX-License-Identifier: MIT
/*
 * rota.conf's limit settings in the limits plugins' form (core.h,
 * "Layers": tables), for the accounts' and users' lines (share.c) and the
 * QOS lines (limits.c).
 */
#include "config.h"

#include "common/conf.h"
#include "ctld/core/core_internal.h"

static struct rota_limit_tres tres(const struct rota_conf_tres *c)
{
	return (struct rota_limit_tres){
		.cpu = c->cpu, .mem = c->mem, .node = c->node, .gpu = c->gpu,
	};
}

void limits_from_conf(const struct rota_conf_limits *c,
		      struct rota_limit_set *out)
{
	if (!c) {
		*out = (struct rota_limit_set){
			.max_jobs = -1, .max_submit = -1, .max_wall = -1,
			.max_cpus = -1, .max_mem = -1, .max_nodes = -1,
			.cpu_run_mins = -1, .max_idle = -1, .max_ps = -1,
			.max_ps_hard = -1, .allocation = -1, .max_gpus = -1,
			.grp_tres = { -1, -1, -1, -1 },
			.user_tres = { -1, -1, -1, -1 },
			.account_tres = { -1, -1, -1, -1 },
		};
		return;
	}
	*out = (struct rota_limit_set){
		.max_jobs = c->max_jobs,
		.max_submit = c->max_submit,
		.max_wall = c->max_wall,
		.max_cpus = c->max_cpus,
		.max_mem = c->max_mem,
		.max_nodes = c->max_nodes,
		.cpu_run_mins = c->cpu_run_mins,
		.max_idle = c->max_idle,
		.max_ps = c->max_ps,
		.max_ps_hard = c->max_ps_hard,
		.allocation = c->allocation,
		.max_gpus = c->max_gpus,
		.grp_tres = tres(&c->grp),
		.user_tres = tres(&c->per_user),
		.account_tres = tres(&c->per_account),
	};
}
