// SPDX-License-Identifier: MIT
/*
 * PRIO: pending jobs' priorities and every term of them, for rota prio
 * and rota show job (like Slurm's sprio -l), as of their last rating
 * (every PriorityCalcPeriod, at submit and at every change of the job,
 * before every pass for Grid Engine's): what the scheduler uses.  Not
 * rated afresh: a query costs what it lists, not the whole queue.
 * Anyone may ask about any pending job, as with sprio: a user asking
 * why a job waits needs to see the jobs ahead of it.
 *
 * When the priority plugin rates all (Grid Engine's sge), running jobs
 * are listed too, first, as qstat -urg/-pri/-ext lists them: Grid Engine
 * normalizes over them and shows their figures.  A held job is listed
 * as every pending one is, rated 0 and without terms.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/msg.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "ctld/ctld.h"
#include "ctld/stream.h"
#include "plugins/rota_plugin.h"

struct prio_ctx {
	struct ctld *ctld;
	struct rota_msg_prio_writer *w;
	size_t n;		/* rows written */
	struct prio_entry *v;	/* -u: the user's jobs, to order */
	size_t nv;
};

/* qsort has no context argument: the core rides along in each entry. */
struct prio_entry {
	const struct core *core;
	const struct core_job *job;
};

static enum rota_prio_row_state row_state(const struct core_job *job)
{
	if (job->state == ROTA_JOB_RUNNING)
		return ROTA_PRIO_ROW_RUNNING;
	return job->hold ? ROTA_PRIO_ROW_HELD : ROTA_PRIO_ROW_PENDING;
}

/* Whether rota prio shows this job: pending, or running when rated. */
static bool is_rated(const struct core *core, const struct core_job *job)
{
	return job->state == ROTA_JOB_PENDING ||
	       (job->state == ROTA_JOB_RUNNING && core_prio_rates_all(core));
}

/* One row, explained and written at once: nothing kept per row. */
static void add_row(const struct core_job *job, void *arg)
{
	struct prio_ctx *pc = arg;
	struct core *core = pc->ctld->core;
	struct rota_prio_factor f[ROTA_PRIO_FACTORS_MAX];
	struct rota_msg_prio_factor mf[ROTA_PRIO_FACTORS_MAX];
	size_t nf = core_prio_explain(core, job, f, ROTA_PRIO_FACTORS_MAX);
	struct rota_prio_row r = {
		.id = job->id,
		.state = row_state(job),
		.user = job->user,
		.account = job->desc.account,
		.queue = core_queue_get(core, job->queue)->name,
		.qos = core_qos_get(core, job->qos)->name,
		.priority = job->priority,
		.factors = mf,
		.nfactors = nf,
		.array = core_job_array_name(job),
		.tasks = job->array ? job->array->tasks.count : 1,
		/* Grid Engine's views show it (qstat -ext) */
		.department = core_prio_rates_all(core)
				      ? (char *)core_job_department(core, job)
				      : NULL,
	};

	for (size_t i = 0; i < nf; i++)
		mf[i] = (struct rota_msg_prio_factor){
			.name = (char *)f[i].name,
			.raw = f[i].raw,
			.norm = f[i].norm,
			.weight = f[i].weight,
			.value = f[i].value,
		};
	rota_msg_prio_add(pc->w, &r);
	free(r.array);
	pc->n++;
}

static const char *not_rated(bool rates_all, size_t n)
{
	if (rates_all)
		return n == 1 ? "the job is neither pending nor running"
			      : "none of these jobs is pending or running";
	return n == 1 ? "the job is not pending"
		      : "none of these jobs is pending";
}

/* -u: the user's rated jobs from the core's index, to be ordered. */
static void collect(const struct core_job *job, void *arg)
{
	struct prio_ctx *pc = arg;

	if (is_rated(pc->ctld->core, job))
		pc->v[pc->nv++] = (struct prio_entry){ pc->ctld->core, job };
}

/* Running jobs first, as qstat lists them; then the pending order. */
static int by_order(const void *x, const void *y)
{
	const struct prio_entry *ex = x;
	const struct core_job *a = ex->job;
	const struct core_job *b = ((const struct prio_entry *)y)->job;

	if ((a->state == ROTA_JOB_RUNNING) != (b->state == ROTA_JOB_RUNNING))
		return a->state == ROTA_JOB_RUNNING ? -1 : 1;
	if (a->state == ROTA_JOB_RUNNING)
		return a->id < b->id ? -1 : a->id > b->id;
	return core_prio_order(ex->core, a, b);
}

static void user_rows(struct prio_ctx *pc, uid_t uid)
{
	struct core *core = pc->ctld->core;

	pc->v = rota_xcalloc(core_user_job_count(core, uid) + 1,
			     sizeof(*pc->v));
	core_user_jobs_foreach(core, uid, collect, pc);
	qsort(pc->v, pc->nv, sizeof(*pc->v), by_order);
	for (size_t i = 0; i < pc->nv; i++)
		add_row(pc->v[i].job, pc);
	free(pc->v);
}

/* The whole queue, in slices (stream.h): the rows of rated jobs. */
static void stream_row(const struct core_job *job, void *ctx)
{
	struct prio_ctx *pc = ctx;

	if (is_rated(pc->ctld->core, job))
		add_row(job, pc);
}

static const char *stream_written(void *ctx, size_t *len)
{
	struct prio_ctx *pc = ctx;

	return rota_msg_prio_written(pc->w, len);
}

static char *stream_body(void *ctx, size_t *len)
{
	struct prio_ctx *pc = ctx;
	char *body = rota_msg_prio_finish(pc->w, len);

	free(pc);
	return body;
}

static void stream_drop(void *ctx)
{
	struct prio_ctx *pc = ctx;
	size_t len;

	free(rota_msg_prio_finish(pc->w, &len));
	free(pc);
}

static const struct stream_ops prio_stream = {
	.row = stream_row,
	.drop = stream_drop,
	.written = stream_written,
	.body = stream_body,
	.type = ROTA_MSG_PRIO_REPLY,
};

/* Every rated job, running first for Grid Engine's, from the next turn. */
static void stream_all(struct peer *p, const struct prio_ctx *pc,
		       bool rates_all)
{
	struct prio_ctx *copy = rota_xcalloc(1, sizeof(*copy));

	*copy = *pc;
	stream_start(p, rates_all ? STREAM_RUNNING_PENDING : STREAM_PENDING,
		     &prio_stream, copy);
}

void rpc_prio(struct peer *p, const struct rota_frame *f)
{
	struct ctld *ctld = p->ctld;
	struct core *core = ctld->core;
	struct prio_ctx pc = { .ctld = ctld };
	struct rota_msg_prio m = {
		.rates_all = core_prio_rates_all(core),
		.now = ctld_now(ctld),
		.plugin = (char *)core_prio_plugin(core),
	};
	struct rota_msg_job_ids ids;
	struct rota_error err;
	char describe[512];
	size_t len;
	char *body;

	if (rota_msg_job_ids_decode(f->body, f->body_len, &ids, &err) < 0) {
		peer_send_error(p, -EPROTO, err.text);
		return;
	}
	if (stream_busy(p)) {
		rota_msg_job_ids_clear(&ids);
		return;
	}
	/* Grid Engine's figures never from a rating of one job alone */
	core_prio_refresh(core, m.now);
	m.rated_at = core_prio_rated_at(core);
	core_prio_describe(core, describe, sizeof(describe));
	m.describe = describe;
	pc.w = rota_msg_prio_begin(&m);
	if (!ids.n && !ids.by_uid && ctld->loop &&
	    core_pending_count(core) > STREAM_SLICE) {
		stream_all(p, &pc, m.rates_all);
		rota_msg_job_ids_clear(&ids);
		return;
	}
	for (size_t i = 0; i < ids.n; i++) {
		const struct core_job *job = core_job_find(core,
							   ids.job_ids[i]);

		if (job && is_rated(core, job) &&
		    (!ids.by_uid || job->uid == (uid_t)ids.uid))
			add_row(job, &pc);
	}
	if (!ids.n && ids.by_uid)
		user_rows(&pc, (uid_t)ids.uid);
	if (!ids.n && !ids.by_uid && m.rates_all) /* first, as qstat */
		core_running_foreach(core, add_row, &pc);
	if (!ids.n && !ids.by_uid)
		core_pending_foreach(core, add_row, &pc);
	body = rota_msg_prio_finish(pc.w, &len);
	if (ids.n && !pc.n)
		peer_send_error(p, -ENOENT, not_rated(m.rates_all, ids.n));
	else
		peer_send(p, ROTA_MSG_PRIO_REPLY, body, len);
	free(body);
	rota_msg_job_ids_clear(&ids);
}
