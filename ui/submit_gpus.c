// SPDX-License-Identifier: MIT
/*
 * rota submit's GPU options (submit_gpus.h).  The controller schedules
 * GPUs per node or per task; --gpus=N, the job's total, becomes one of
 * them here, as Slurm spreads it: over -N nodes evenly, else over the
 * tasks evenly, else all on one node.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "common/xalloc.h"
#include "ui/cmd.h"
#include "ui/submit_gpus.h"

static const char *const names[] = {
	[GPU_OPT_GPUS] = "gpus",	   [GPU_OPT_PER_NODE] = "gpus-per-node",
	[GPU_OPT_PER_TASK] = "gpus-per-task", [GPU_OPT_CPUS] = "cpus-per-gpu",
	[GPU_OPT_MEM] = "mem-per-gpu",	   [GPU_OPT_GRES] = "gres",
};

/* [TYPE:]N, with gres.h's rules for TYPE and N. */
static int typed_count(struct gpu_opts *g, enum gpu_opt opt, const char *v)
{
	struct rota_gres *one = NULL;
	struct rota_error err = { "" };
	size_t n = 0;
	char *spec = rota_xasprintf("gpu:%s", v);
	int rc = strchr(v, ',') ? -EINVAL
				: rota_gres_parse(spec, &one, &n, &err);

	if (rc == 0 && n == 1 && !strchr(v, ':') && one->count == 1 &&
	    strcmp(v, "1") != 0)
		rc = rota_errorf(&err, -EINVAL, "expected [TYPE:]N");
	if (rc < 0 || n != 1) {
		/* gres.h says 'gpu:0': ..., the user wrote '0' */
		const char *why = strstr(err.text, "': ");

		cmd_error("submit", "--%s '%s': %s", names[opt], v,
			  why ? why + 3
			      : err.text[0] ? err.text : "expected [TYPE:]N");
		free(spec);
		free(one);
		return -EINVAL;
	}
	g->how = opt;
	g->count = one->count;
	snprintf(g->type, sizeof(g->type), "%s", one->type);
	free(spec);
	free(one);
	return 0;
}

/*
 * --gres=gpu[:TYPE][:N],nvme[:N]: GPUs per node, as in Slurm, and other
 * generic resources per node, counts the controller checks against
 * GresTypes (a later --gres replaces an earlier one's).
 */
static int gres(struct gpu_opts *g, const char *v)
{
	struct rota_gres *list = NULL;
	struct rota_error err = { "" };
	size_t n = 0, ngpu = 0, k = 0;

	if (rota_gres_parse(v, &list, &n, &err) < 0) {
		cmd_error("submit", "--gres %s", err.text);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(list[i].name, "gpu") != 0) {
			list[k++] = list[i]; /* the others, in order */
			continue;
		}
		if (ngpu++) {
			cmd_error("submit", "--gres '%s': one gpu entry", v);
			free(list);
			return -EINVAL;
		}
		g->how = GPU_OPT_PER_NODE;
		g->count = list[i].count;
		snprintf(g->type, sizeof(g->type), "%s", list[i].type);
	}
	free(g->other);
	g->other = k ? rota_gres_text(list, k) : NULL;
	free(list);
	return 0;
}

int gpus_opt(struct gpu_opts *g, enum gpu_opt opt, const char *v)
{
	struct rota_error err = { "" };
	char *end;
	unsigned long n;

	switch (opt) {
	case GPU_OPT_GPUS:
	case GPU_OPT_PER_NODE:
	case GPU_OPT_PER_TASK:
		return typed_count(g, opt, v);
	case GPU_OPT_GRES: return gres(g, v);
	case GPU_OPT_CPUS:
		errno = 0;
		n = strtoul(v, &end, 10);
		if (errno || *end || end == v || v[0] == '-' || !n ||
		    n > 1u << 16) {
			cmd_error("submit", "--cpus-per-gpu '%s': expected a "
				  "whole number from 1", v);
			return -EINVAL;
		}
		g->cpus_per_gpu = (uint32_t)n;
		return 0;
	case GPU_OPT_MEM:
		if (rota_size_parse_mb(v, &g->mem_per_gpu_mb, &err) < 0 ||
		    !g->mem_per_gpu_mb) {
			cmd_error("submit", "--mem-per-gpu '%s': %s", v,
				  err.text[0] ? err.text : "must be above 0");
			return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
}

static uint32_t div_up(uint64_t a, uint64_t b)
{
	return (uint32_t)((a + b - 1) / b);
}

int gpus_apply(const struct gpu_opts *g, struct rota_job_desc *d,
	       bool cpt_given)
{
	uint32_t per_node_tasks;

	free(d->gres);
	d->gres = g->other ? rota_xstrdup(g->other) : NULL;
	if (!g->count) {
		if (g->cpus_per_gpu || g->mem_per_gpu_mb) {
			cmd_error("submit", "--%s: no GPUs asked for",
				  g->cpus_per_gpu ? "cpus-per-gpu"
						  : "mem-per-gpu");
			return -EINVAL;
		}
		return 0;
	}
	if (g->cpus_per_gpu && cpt_given) {
		cmd_error("submit", "--cpus-per-gpu and --cpus-per-task: give "
			  "one of them");
		return -EINVAL;
	}
	if (g->mem_per_gpu_mb && (d->mem_mb || d->mem_per_cpu_mb)) {
		cmd_error("submit", "--mem-per-gpu and --mem or --mem-per-cpu: "
			  "give one of them");
		return -EINVAL;
	}
	free(d->gpu_type);
	d->gpu_type = g->type[0] ? rota_xstrdup(g->type) : NULL;
	switch (g->how) {
	case GPU_OPT_PER_TASK: d->gpus_per_task = g->count; break;
	case GPU_OPT_GPUS:
		if (d->nodes && g->count % d->nodes) {
			cmd_error("submit", "--gpus=%u: not a multiple of "
				  "--nodes=%u", g->count, d->nodes);
			return -EINVAL;
		}
		if (d->nodes) {
			d->gpus_per_node = g->count / d->nodes;
		} else if (d->ntasks > 1 && g->count % d->ntasks == 0 &&
			   !d->ntasks_max) {
			d->gpus_per_task = g->count / d->ntasks;
		} else {
			d->gpus_per_node = g->count;
			d->nodes = 1;
		}
		break;
	default: d->gpus_per_node = g->count; break;
	}
	per_node_tasks = d->ntasks_per_node ? d->ntasks_per_node
			 : d->nodes	     ? div_up(d->ntasks, d->nodes)
					     : d->ntasks;
	if (g->cpus_per_gpu)
		d->cpus_per_task =
			d->gpus_per_task
				? g->cpus_per_gpu * d->gpus_per_task
				: div_up((uint64_t)g->cpus_per_gpu *
						 d->gpus_per_node,
					 per_node_tasks);
	if (g->mem_per_gpu_mb && d->gpus_per_task)
		d->mem_per_cpu_mb = div_up(g->mem_per_gpu_mb * d->gpus_per_task,
					   d->cpus_per_task);
	else if (g->mem_per_gpu_mb)
		d->mem_mb = g->mem_per_gpu_mb * d->gpus_per_node;
	return 0;
}
