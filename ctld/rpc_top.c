// SPDX-License-Identifier: MIT
/*
 * TOP_ROWS: every job in one wide row, what rota top shows (id, user,
 * account, queue, state, priority, cores, times, hold, reason).  Like
 * JOB_ROWS it is written straight to text, so that a refresh of 100,000
 * jobs costs the controller milliseconds.  Anyone may ask, as for the
 * queue listing.
 *
 * The running job steps ride in the same reply, after the rows, rather
 * than in a STEP_LIST the monitor would send beside it: one request per
 * refresh, not two (each a munge decode here), a snapshot whose steps
 * and jobs agree, and only the running steps, walked from the step table
 * (steps_foreach_running), never looked up job by job.  So a refresh
 * costs the jobs' rows plus the few steps, and nothing at all when no
 * step runs (the key is left out).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "common/msg.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "ctld/ctld.h"
#include "ctld/step.h"
#include "ctld/users.h"

struct top_ctx {
	struct ctld *ctld;
	struct rota_top_row *rows;
	char **nodelists; /* to free after encoding */
	size_t n;
	size_t nlists;
	struct rota_top_step *steps;
	size_t nsteps;
	size_t steps_cap;
};

static int64_t milli(double v)
{
	if (!isfinite(v))
		return 0;
	if (v > 9e15)
		return (int64_t)9e18;
	if (v < -9e15)
		return (int64_t)-9e18;
	return llround(v * 1000);
}

static void fill_row(const struct core_job *job, void *arg)
{
	struct top_ctx *tc = arg;
	const struct core *core = tc->ctld->core;
	struct rota_top_row *r = &tc->rows[tc->n++];

	*r = (struct rota_top_row){
		.id = job->id,
		.state = job->state,
		.cores = job->desc.ntasks * job->desc.cpus_per_task,
		.nodes = job->nalloc ? job->nalloc : job->desc.nodes,
		.submit_time = job->submit_time,
		.start_time = job->start_time,
		.end_time = job->end_time,
		.priority_milli = milli(job->priority),
		.nice = job->desc.nice,
		.urgency = job->desc.urgency,
		.hold = (uint32_t)job->hold,
		.est_start = job->state == ROTA_JOB_PENDING ? job->est_start
							    : 0,
		.queue = core_queue_get(core, job->queue)->name,
		.user = user_cache_name(tc->ctld->users, job->uid),
		.account = job->desc.account,
		.name = job->desc.name,
	};
	r->where = rpc_job_where(core, job, tc->nodelists, &tc->nlists);
	if (job->array_id)
		r->array = tc->nodelists[tc->nlists++] =
			core_job_array_name(job);
}

static void add_step(const struct ctld_step *s, void *arg)
{
	struct top_ctx *tc = arg;

	if (tc->nsteps == tc->steps_cap) {
		tc->steps_cap = tc->steps_cap ? 2 * tc->steps_cap : 16;
		tc->steps = rota_xreallocarray(tc->steps, tc->steps_cap,
					       sizeof(*tc->steps));
	}
	tc->steps[tc->nsteps++] = (struct rota_top_step){
		.job_id = s->job_id,
		.step_id = s->id,
		.ntasks = s->ntasks,
		.nnodes = s->nnodes,
		.start = s->start,
		.name = s->name,
		.nodes = s->nodelist,
	};
}

void rpc_top_rows(struct peer *p, const struct rota_frame *f)
{
	struct ctld *ctld = p->ctld;
	size_t total = core_job_count(ctld->core);
	struct top_ctx tc = {
		.ctld = ctld,
		.rows = rota_xcalloc(total + 1, sizeof(struct rota_top_row)),
		/* a nodelist and an array name each at most */
		.nodelists = rota_xcalloc(2 * total + 1, sizeof(char *)),
	};
	struct rota_msg_top_rows m;
	size_t len;
	char *body;

	core_job_foreach(ctld->core, fill_row, &tc);
	steps_foreach_running(ctld, add_step, &tc);
	m = (struct rota_msg_top_rows){
		.rows = tc.rows,
		.n = tc.n,
		.now = ctld_now(ctld),
		.steps = tc.steps,
		.nsteps = tc.nsteps,
	};
	body = rota_msg_top_rows_encode(&m, &len);
	peer_send(p, ROTA_MSG_TOP_ROWS_REPLY, body, len);
	free(body);
	for (size_t i = 0; i < tc.nlists; i++)
		free(tc.nodelists[i]);
	free(tc.nodelists);
	free(tc.rows);
	free(tc.steps);
}
