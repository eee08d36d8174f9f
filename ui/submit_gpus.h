/* SPDX-License-Identifier: MIT */
#ifndef ROTA_UI_SUBMIT_GPUS_H
#define ROTA_UI_SUBMIT_GPUS_H

#include <stdint.h>

#include "common/gres.h"
#include "common/msg.h"

/*
 * rota submit's GPU options, Slurm's spellings, as given; gpus_apply()
 * turns them into what the controller schedules: a GPU type, and GPUs
 * per node or per task (docs/gpus.md says how each option maps).
 */
enum gpu_opt {
	GPU_OPT_GPUS,		/* --gpus=[TYPE:]N: the job's */
	GPU_OPT_PER_NODE,	/* --gpus-per-node=[TYPE:]N */
	GPU_OPT_PER_TASK,	/* --gpus-per-task=[TYPE:]N */
	GPU_OPT_CPUS,		/* --cpus-per-gpu=N */
	GPU_OPT_MEM,		/* --mem-per-gpu=SIZE */
	GPU_OPT_GRES,		/* --gres=gpu[:TYPE][:N] */
};

struct gpu_opts {
	enum gpu_opt how;	/* GPUS, PER_NODE or PER_TASK: the last given */
	uint32_t count;		/* 0: no GPUs asked */
	char type[ROTA_GRES_NAME_MAX + 1];
	uint32_t cpus_per_gpu;
	uint64_t mem_per_gpu_mb;
	char *other;		/* --gres's other entries ("nvme:1"), owned;
				   gpus_apply copies it into the desc */
};

/* One option's value; -EINVAL with the one line printed. */
int gpus_opt(struct gpu_opts *g, enum gpu_opt opt, const char *value);

/*
 * Into 'd', whose tasks, nodes, cores and memory are final: gpu_type,
 * gpus_per_node or gpus_per_task, and what --cpus-per-gpu and
 * --mem-per-gpu make of its cores and memory.  'cpt_given': -c was.
 * -EINVAL with the one line printed.
 */
int gpus_apply(const struct gpu_opts *g, struct rota_job_desc *d,
	       bool cpt_given);

#endif
