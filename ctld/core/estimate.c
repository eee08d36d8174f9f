// SPDX-License-Identifier: MIT
/*
 * A pending job's expected start and nodes: what the last backfill pass
 * reserved for it (backfill.c, host_reserve).  The nodes are kept as the
 * placement was found, node indexes and tasks on each, so that rota why
 * (why.c) can put the reservation back into a profile exactly as the
 * pass took it.  Only jobs that had a reservation hold memory for it;
 * each pass forgets the last one's before it reserves again (keeping
 * the arrays), and a job that starts or ends frees its own.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/xalloc.h"
#include "ctld/core/core_internal.h"

void est_set(struct core_job *job, int64_t t, const struct placement *p)
{
	job->est_start = t;
	job->nest = p->n;
	if (!p->n)
		return;
	/* a pass reserves again what the last one did: keep the arrays */
	if (p->n > job->est_cap) {
		job->est_node = rota_xreallocarray(job->est_node, p->n,
						   sizeof(*job->est_node));
		job->est_tasks = rota_xreallocarray(job->est_tasks, p->n,
						    sizeof(*job->est_tasks));
		job->est_cap = p->n;
	}
	memcpy(job->est_node, p->node, p->n * sizeof(*job->est_node));
	memcpy(job->est_tasks, p->tasks, p->n * sizeof(*job->est_tasks));
}

void est_forget(struct core_job *job)
{
	job->est_start = 0;
	job->nest = 0;
}

void est_clear(struct core_job *job)
{
	est_forget(job);
	free(job->est_node);
	free(job->est_tasks);
	job->est_node = NULL;
	job->est_tasks = NULL;
	job->est_cap = 0;
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
