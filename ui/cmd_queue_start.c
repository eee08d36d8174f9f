// SPDX-License-Identifier: MIT
/*
 * rota queue --start: pending jobs in scheduling order with the start
 * the backfill plugin expects for them and the nodes it expects them on
 * (squeue --start's SCHEDNODES).  A job gets a time once a backfill pass
 * has reserved for it; others show N/A and -.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/msg.h"
#include "ui/cmd.h"

int queue_start(const char *user, uint32_t job, bool noheader)
{
	struct rota_msg_job_list list;
	char start[32];

	if (cmd_fetch_jobs("queue", job, &list) < 0)
		return 1;
	if (!noheader)
		printf("%8s %9s %8s %8s %2s %19s %5s %-12s %s\n", "JOBID",
		       "QUEUE", "NAME", "USER", "ST", "START_TIME", "NODES",
		       "SCHEDNODES", "NODELIST(REASON)");
	for (size_t i = 0; i < list.njobs; i++) {
		const struct rota_job_info *j = &list.jobs[i];

		if (j->state != ROTA_JOB_PENDING ||
		    (user && (!j->user || strcmp(j->user, user))))
			continue;
		cmd_format_time(j->est_start, start, sizeof(start));
		printf("%8u %9s %8.8s %8.8s %2s %19s %5u %-12s (%s)\n",
		       j->id, j->queue ? j->queue : "",
		       j->name ? j->name : "", j->user ? j->user : "", "PD",
		       start, j->nodes,
		       j->est_nodes && j->est_nodes[0] ? j->est_nodes : "-",
		       j->reason && j->reason[0] ? j->reason : "None");
	}
	rota_msg_job_list_clear(&list);
	return 0;
}
