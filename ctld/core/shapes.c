// SPDX-License-Identifier: MIT
/*
 * The failed shapes of a backfill pass (shapes.h).  Most tries in a full
 * machine are jobs much like one that just failed; a short scan of the
 * ring answers them without a walk over every node's profile.
 */
#include "config.h"

#include <string.h>

#include "ctld/core/core_internal.h"
#include "ctld/core/shapes.h"

static int64_t span(int64_t limit)
{
	return limit ? limit : NEVER;
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

bool shapes_cover(const struct shapes *m, const struct core_job *job)
{
	const struct rota_job_desc *d = &job->desc;

	for (size_t i = 0; i < m->n; i++) {
		const struct shape *f = &m->s[i];

		/*
		 * The size first: it tells most shapes apart (a queue's jobs
		 * mostly share the rest).  An exclusive job that failed says
		 * nothing of a shared one.
		 */
		if (f->ntasks <= d->ntasks &&
		    span(f->limit) <= span(job->time_limit) &&
		    f->queue == job->queue && f->cpt == d->cpus_per_task &&
		    f->nodes == d->nodes && f->per_node == d->ntasks_per_node &&
		    f->exclusive <= d->exclusive &&
		    f->mem <= d->mem_mb && f->mem_per_cpu <= d->mem_per_cpu_mb &&
		    same_text(f->constraint, d->constraint) &&
		    /* as many GPUs or more, of its type or of any */
		    f->gpn <= d->gpus_per_node && f->gpt <= d->gpus_per_task &&
		    (!f->gpu_type || same_text(f->gpu_type, d->gpu_type)) &&
		    (!f->gres || same_text(f->gres, d->gres)) &&
		    (!f->licenses || same_text(f->licenses, d->licenses)))
			return true;
	}
	return false;
}

void shapes_add(struct shapes *m, const struct core_job *job)
{
	const struct rota_job_desc *d = &job->desc;

	m->s[m->next++ % SHAPES_MAX] = (struct shape){
		.queue = job->queue,
		.constraint = d->constraint,
		.ntasks = d->ntasks,
		.cpt = d->cpus_per_task,
		.nodes = d->nodes,
		.per_node = d->ntasks_per_node,
		.exclusive = d->exclusive,
		.mem = d->mem_mb,
		.mem_per_cpu = d->mem_per_cpu_mb,
		.limit = job->time_limit,
		.gpn = d->gpus_per_node,
		.gpt = d->gpus_per_task,
		.gpu_type = d->gpu_type,
		.gres = d->gres,
		.licenses = d->licenses,
	};
	if (m->n < SHAPES_MAX)
		m->n++;
}
