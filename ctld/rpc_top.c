// SPDX-License-Identifier: MIT
/*
 * TOP_ROWS: every job in one wide row, what rota top shows (id, user,
 * account, queue, state, priority, cores, times, hold, reason).  Like
 * JOB_ROWS it is written straight to text, so that a refresh of 100,000
 * jobs costs the controller milliseconds; a long queue's rows go in
 * slices (stream.h), so that the refresh never holds up a submit.
 * Anyone may ask, as for the queue listing.
 *
 * The running job steps ride in the same reply, after the rows, rather
 * than in a STEP_LIST the monitor would send beside it: one request per
 * refresh, not two (each a munge decode here), taken with the last
 * slice, and only the running steps, walked from the step table
 * (steps_foreach_running), never looked up job by job.  So a refresh
 * costs the jobs' rows plus the few steps, and nothing at all when no
 * step runs (the key is left out).
 *
 * A rota top that says what it last saw ({"since":N}, msg.h) gets only
 * the rows changed after change N and the ids of the jobs gone since,
 * from the core's change index (core.h: core_changes_since), in
 * O(changes); when the core cannot tell (N from before this controller
 * started, or older than the gone jobs it remembers) every row, marked
 * as a full reply.  Either way the reply carries the change number as
 * of the request: what changes while a long reply is written in slices
 * comes again in the next delta.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "common/msg.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "ctld/ctld.h"
#include "ctld/step.h"
#include "ctld/stream.h"
#include "ctld/users.h"

struct top_ctx {
	struct ctld *ctld;
	struct rota_msg_top_writer *w;
	struct rota_top_step *steps;
	size_t nsteps;
	size_t steps_cap;
	struct core_delta delta; /* its gone ids, written at the finish */
};

/* One job's row, written at once: its strings freed right after. */
static void add_row(const struct core_job *job, void *arg)
{
	struct top_ctx *tc = arg;
	const struct core *core = tc->ctld->core;
	char *keep[2];
	size_t nkeep = 0;
	struct rota_top_row r = {
		.id = job->id,
		.state = job->state,
		.cores = job->desc.ntasks * job->desc.cpus_per_task,
		.nodes = job->nalloc ? job->nalloc : job->desc.nodes,
		.submit_time = job->submit_time,
		.start_time = job->start_time,
		.end_time = job->end_time,
		.priority_milli = core_priority_milli(job->priority),
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

	r.where = rpc_job_where(core, job, keep, &nkeep);
	if (job->array_id)
		r.array = keep[nkeep++] = core_job_array_name(job);
	rota_msg_top_add(tc->w, &r);
	while (nkeep)
		free(keep[--nkeep]);
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

/* The steps running now, after the rows; then the reply goes. */
static void top_finish(struct peer *p, void *ctx)
{
	struct top_ctx *tc = ctx;
	size_t len;
	char *body;

	steps_foreach_running(tc->ctld, add_step, tc);
	body = rota_msg_top_finish(tc->w, tc->steps, tc->nsteps, &len);
	core_delta_clear(&tc->delta);
	free(tc->steps);
	free(tc);
	peer_send(p, ROTA_MSG_TOP_ROWS_REPLY, body, len);
	free(body);
}

static void top_drop(void *ctx)
{
	struct top_ctx *tc = ctx;
	size_t len;

	free(rota_msg_top_finish(tc->w, NULL, 0, &len));
	core_delta_clear(&tc->delta);
	free(tc->steps);
	free(tc);
}

static const struct stream_ops top_stream = {
	.row = add_row,
	.finish = top_finish,
	.drop = top_drop,
};

/*
 * A delta's rows, the changed jobs' in id order: at once when few, else
 * in slices as a full listing (the ids are handed to the stream).
 */
static void top_delta(struct peer *p, struct top_ctx *tc)
{
	struct core_delta *d = &tc->delta;
	const struct core_job *job;

	if (d->n > STREAM_SLICE && tc->ctld->loop) {
		stream_start_ids(p, d->ids, d->n, &top_stream, tc);
		d->ids = NULL;
		d->n = 0;
		return;
	}
	for (size_t i = 0; i < d->n; i++) {
		job = core_job_find(tc->ctld->core, d->ids[i]);
		if (job)
			add_row(job, tc);
	}
	top_finish(p, tc);
}

/*
 * With "since": the change number in the reply, and a delta if the
 * core can tell what changed after it (true, 'tc' now owned by the
 * reply); else the full listing follows, marked full by its lack of a
 * base.
 */
static bool top_since(struct peer *p, struct top_ctx *tc, int64_t since)
{
	struct core *core = tc->ctld->core;
	int64_t change;

	core_changes_settle(core);
	change = core_change_number(core);
	if (core_changes_since(core, since, &tc->delta) < 0) {
		rota_msg_top_delta(tc->w, change, 0, NULL, 0);
		return false;
	}
	rota_msg_top_delta(tc->w, change, since, tc->delta.gone,
			   tc->delta.ngone);
	top_delta(p, tc);
	return true;
}

/*
 * Every job, in id order: written at once when few, else in slices
 * (stream.h), so that a refresh of 100,000 jobs never holds up a submit.
 * Or, when the client says what it saw, what changed since (top_since).
 */
void rpc_top_rows(struct peer *p, const struct rota_frame *f)
{
	struct ctld *ctld = p->ctld;
	size_t total = core_job_count(ctld->core);
	struct rota_msg_top_req req;
	struct rota_error err;
	struct top_ctx *tc;

	if (rota_msg_top_req_decode(f->body, f->body_len, &req, &err) < 0) {
		peer_send_error(p, -EPROTO, err.text);
		return;
	}
	if (stream_busy(p))
		return;
	tc = rota_xcalloc(1, sizeof(*tc));
	tc->ctld = ctld;
	tc->w = rota_msg_top_begin(ctld_now(ctld));
	if (req.has_since && top_since(p, tc, req.since))
		return;
	if (total <= STREAM_SLICE || !ctld->loop) {
		core_job_foreach(ctld->core, add_row, tc);
		top_finish(p, tc);
		return;
	}
	stream_start(p, STREAM_BY_ID, &top_stream, tc);
}
