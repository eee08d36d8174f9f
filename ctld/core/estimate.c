// SPDX-License-Identifier: MIT
/*
 * A pending job's expected start and nodes: what the last backfill pass
 * reserved for it (backfill.c, host_reserve).  The nodes are kept as the
 * placement was found, node indexes and tasks on each, so that rota why
 * (why.c) can put the reservation back into a profile exactly as the
 * pass took it.  Only jobs with a reservation hold memory for it; each
 * pass forgets the last one's before it reserves again, and a job that
 * starts or ends forgets its own.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/xalloc.h"
#include "ctld/core/core_internal.h"

void est_set(struct core_job *job, int64_t t, const struct placement *p)
{
	est_clear(job);
	job->est_start = t;
	if (!p->n)
		return;
	job->est_node = rota_xcalloc(p->n, sizeof(*job->est_node));
	job->est_tasks = rota_xcalloc(p->n, sizeof(*job->est_tasks));
	memcpy(job->est_node, p->node, p->n * sizeof(*job->est_node));
	memcpy(job->est_tasks, p->tasks, p->n * sizeof(*job->est_tasks));
	job->nest = p->n;
}

void est_clear(struct core_job *job)
{
	job->est_start = 0;
	if (!job->est_node)
		return;
	free(job->est_node);
	free(job->est_tasks);
	job->est_node = NULL;
	job->est_tasks = NULL;
	job->nest = 0;
}

char *core_job_est_nodelist(const struct core *core,
			    const struct core_job *job)
{
	const char **names;
	char *text;

	if (job->state != ROTA_JOB_PENDING || !job->est_start || !job->nest)
		return NULL;
	names = rota_xcalloc(job->nest + 1, sizeof(char *));
	for (uint32_t i = 0; i < job->nest; i++)
		names[i] = core->nodes[job->est_node[i]].name;
	text = rota_hostlist_format(names, job->nest);
	free(names);
	return text;
}
