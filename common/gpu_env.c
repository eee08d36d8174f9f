// SPDX-License-Identifier: MIT
/* The variables naming a job's GPUs (gpu_env.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/gpu_env.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

/* CUDA_DEVICE_ORDER last: its value is not the list */
static const char *const vars[ROTA_GPU_ENV_MAX] = {
	"ROTA_JOB_GPUS",    "CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
	"ZE_AFFINITY_MASK", "GPU_DEVICE_ORDINAL",   "CUDA_DEVICE_ORDER",
};

bool rota_gpu_env_var(const char *kv)
{
	for (size_t k = 0; k < ROTA_GPU_ENV_MAX; k++) {
		size_t len = strlen(vars[k]);

		if (!strncmp(kv, vars[k], len) && kv[len] == '=')
			return true;
	}
	return false;
}

size_t rota_gpu_env(const uint32_t *gpus, size_t n, char **env)
{
	struct rota_strbuf b = { 0 };
	size_t k = 0;
	char *list;

	if (!n)
		return 0;
	for (size_t g = 0; g < n; g++)
		rota_strbuf_addf(&b, "%s%u", g ? "," : "", gpus[g]);
	list = rota_strbuf_take(&b, NULL);
	for (; k + 1 < ROTA_GPU_ENV_MAX; k++)
		env[k] = rota_xasprintf("%s=%s", vars[k], list);
	env[k] = rota_xasprintf("%s=PCI_BUS_ID", vars[k]);
	free(list);
	return k + 1;
}
