// SPDX-License-Identifier: MIT
/* A job step task's environment (see step.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/gpu_env.h"
#include "common/hostlist.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "noded/step.h"

static size_t count(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/* Is "NAME=..." 's' set by one of env[0..n)? */
static bool taken(char *const *env, size_t n, const char *s)
{
	const char *eq = strchr(s, '=');
	size_t len = eq ? (size_t)(eq - s) : strlen(s);

	for (size_t i = 0; i < n; i++)
		if (strncmp(env[i], s, len) == 0 && env[i][len] == '=')
			return true;
	return false;
}

char **step_task_env(const struct rota_step_cred *c, uint32_t rank,
		     uint32_t local, const uint32_t *cores, uint32_t ncores,
		     const char *tmpdir, char *const *client_env,
		     char *const *extra)
{
	struct rota_strbuf b = { 0 };
	size_t n = count(client_env) + count(extra) + 20 + ROTA_GPU_ENV_MAX;
	size_t i = 0, own;
	char **env = rota_xcalloc(n + 1, sizeof(char *));
	uint32_t ntasks = 0;
	char *nodelist;

	for (size_t k = 0; k < c->nnodes; k++)
		ntasks += c->counts[k];
	nodelist = rota_hostlist_format((const char *const *)c->nodes,
					c->nnodes);
	env[i++] = rota_xasprintf("ROTA_STEP_ID=%u", c->step_id);
	env[i++] = rota_xasprintf("ROTA_PROCID=%u", rank);
	env[i++] = rota_xasprintf("ROTA_LOCALID=%u", local);
	env[i++] = rota_xasprintf("ROTA_NODEID=%u", c->node_id);
	env[i++] = rota_xasprintf("ROTA_NTASKS=%u", ntasks);
	env[i++] = rota_xasprintf("ROTA_STEP_NUM_TASKS=%u", ntasks);
	env[i++] = rota_xasprintf("ROTA_STEP_NUM_NODES=%zu", c->nnodes);
	env[i++] = rota_xasprintf("ROTA_STEP_NODELIST=%s", nodelist);
	env[i++] = rota_xasprintf("ROTA_STEP_TASKS_ON_NODE=%u",
				  c->counts[c->node_id]);
	env[i++] = rota_xasprintf("ROTA_NODENAME=%s", c->node);
	env[i++] = rota_xasprintf("ROTA_JOB_ID=%u", c->job_id);
	env[i++] = rota_xasprintf("ROTA_CPUS_PER_TASK=%u", c->cpus_per_task);
	rota_strbuf_adds(&b, "ROTA_TASK_CORES=");
	for (uint32_t k = 0; k < ncores; k++)
		rota_strbuf_addf(&b, "%s%u", k ? "," : "", cores[k]);
	env[i++] = rota_strbuf_take(&b, NULL);
	if (tmpdir)
		env[i++] = rota_xasprintf("TMPDIR=%s", tmpdir);
	/* this node's GPUs, whatever the client's (the first node's) say */
	i += rota_gpu_env(c->gpus, c->ngpus, env + i);
	free(nodelist);
	for (size_t k = 0; extra && extra[k]; k++)
		if (!taken(env, i, extra[k]))
			env[i++] = rota_xstrdup(extra[k]);
	own = i;
	for (size_t k = 0; client_env && client_env[k]; k++)
		if (!taken(env, own, client_env[k]))
			env[i++] = rota_xstrdup(client_env[k]);
	env[i] = NULL;
	return env;
}
