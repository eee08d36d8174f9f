// SPDX-License-Identifier: MIT
/*
 * Job steps in the listings: rota queue --steps (squeue --steps' columns)
 * and the Step= lines of rota show job.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/proto.h"
#include "common/units.h"
#include "ui/cmd.h"

int cmd_fetch_steps(const char *name, uint32_t job_id,
		    struct rota_msg_step_list *m)
{
	static const char *const keys[] = { "job_id" };
	int64_t v = job_id;
	struct rota_reply reply;
	struct rota_error err;
	size_t len;
	char *body = rota_msg_ints_encode(keys, &v, 1, &len);
	int rc = cmd_call(name, ROTA_MSG_STEP_LIST, body, len, &reply);

	free(body);
	if (rc < 0)
		return rc;
	rc = rota_msg_step_list_decode(reply.body, reply.len, m, &err);
	rota_reply_clear(&reply);
	if (rc < 0)
		cmd_error(name, "bad reply: %s", err.text);
	return rc;
}

static int64_t elapsed(const struct rota_step_info *s, int64_t now)
{
	int64_t end = s->end ? s->end : now;

	return end > s->start ? end - s->start : 0;
}

int cmd_print_steps(const struct rota_msg_step_list *m, bool all,
		    const char *user, bool noheader)
{
	if (!noheader)
		printf("%-12s %-10s %-8s %2s %10s %6s %s\n", "STEPID", "NAME",
		       "USER", "ST", "TIME", "TASKS", "NODELIST");
	for (size_t i = 0; i < m->n; i++) {
		const struct rota_step_info *s = &m->steps[i];
		char id[32], t[32];

		if (!all && s->state != ROTA_JOB_RUNNING)
			continue;
		if (user && strcmp(user, s->user) != 0)
			continue;
		snprintf(id, sizeof(id), "%u.%u", s->job_id, s->step_id);
		rota_duration_format(elapsed(s, m->now), t, sizeof(t));
		printf("%-12s %-10.10s %-8.8s %2s %10s %6u %s\n", id, s->name,
		       s->user, rota_job_state_short(s->state), t, s->ntasks,
		       s->nodelist);
	}
	return 0;
}

void cmd_show_steps(const char *name, uint32_t job_id)
{
	struct rota_msg_step_list m;

	if (cmd_fetch_steps(name, job_id, &m) < 0)
		return;
	for (size_t i = 0; i < m.n; i++) {
		const struct rota_step_info *s = &m.steps[i];
		char t[32];

		rota_duration_format(elapsed(s, m.now), t, sizeof(t));
		printf("Step=%u.%u Name=%s Tasks=%u NodeList=%s State=%s "
		       "ExitCode=%d",
		       s->job_id, s->step_id, s->name, s->ntasks, s->nodelist,
		       rota_job_state_name(s->state), s->exit_code);
		if (s->failed_rank >= 0)
			printf(" FailedTask=%d", (int)s->failed_rank);
		printf(" Elapsed=%s CPUTime=%llu.%03llu\n", t,
		       (unsigned long long)(s->cpu_usec / 1000000),
		       (unsigned long long)(s->cpu_usec % 1000000 / 1000));
	}
	rota_msg_step_list_clear(&m);
}
