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
#include "plugins/rota_plugin.h"

struct prio_ctx {
	struct ctld *ctld;
	int64_t now;
	struct rota_msg_prio m;
	struct rota_prio_factor *f; /* ROTA_PRIO_FACTORS_MAX per row */
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

static void add_row(const struct core_job *job, void *arg)
{
	struct prio_ctx *pc = arg;
	struct core *core = pc->ctld->core;
	struct rota_prio_row *r = &pc->m.rows[pc->m.n];
	struct rota_prio_factor *f = &pc->f[pc->m.n * ROTA_PRIO_FACTORS_MAX];
	size_t nf = core_prio_explain(core, job, f, ROTA_PRIO_FACTORS_MAX);

	*r = (struct rota_prio_row){
		.id = job->id,
		.state = row_state(job),
		.user = job->user,
		.account = job->desc.account,
		.queue = core_queue_get(core, job->queue)->name,
		.qos = core_qos_get(core, job->qos)->name,
		.priority = job->priority,
		.factors = rota_xcalloc(nf + 1, sizeof(*r->factors)),
		.nfactors = nf,
		.array = core_job_array_name(job),
		.tasks = job->array ? job->array->tasks.count : 1,
		/* Grid Engine's views show it (qstat -ext) */
		.department = core_prio_rates_all(core)
				      ? (char *)core_job_department(core, job)
				      : NULL,
	};
	for (size_t i = 0; i < nf; i++)
		r->factors[i] = (struct rota_msg_prio_factor){
			.name = (char *)f[i].name,
			.raw = f[i].raw,
			.norm = f[i].norm,
			.weight = f[i].weight,
			.value = f[i].value,
		};
	pc->m.n++;
}

static const char *not_rated(bool rates_all, size_t n)
{
	if (rates_all)
		return n == 1 ? "the job is neither pending nor running"
			      : "none of these jobs is pending or running";
	return n == 1 ? "the job is not pending"
		      : "none of these jobs is pending";
}

void rpc_prio(struct peer *p, const struct rota_frame *f)
{
	struct ctld *ctld = p->ctld;
	struct prio_ctx pc = { .ctld = ctld, .now = ctld_now(ctld) };
	struct rota_msg_job_ids ids;
	struct rota_error err;
	char describe[512];
	size_t n, len;
	char *body;

	if (rota_msg_job_ids_decode(f->body, f->body_len, &ids, &err) < 0) {
		peer_send_error(p, -EPROTO, err.text);
		return;
	}
	pc.m.rates_all = core_prio_rates_all(ctld->core);
	n = ids.n ? ids.n : core_pending_count(ctld->core);
	if (!ids.n && pc.m.rates_all)
		n += core_running_count(ctld->core);
	pc.m.rows = rota_xcalloc(n + 1, sizeof(*pc.m.rows));
	pc.f = rota_xcalloc((n + 1) * ROTA_PRIO_FACTORS_MAX, sizeof(*pc.f));
	for (size_t i = 0; i < ids.n; i++) {
		const struct core_job *job = core_job_find(ctld->core,
							   ids.job_ids[i]);

		if (job && is_rated(ctld->core, job))
			add_row(job, &pc);
	}
	if (!ids.n && pc.m.rates_all) /* first, as qstat lists them */
		core_running_foreach(ctld->core, add_row, &pc);
	if (!ids.n)
		core_pending_foreach(ctld->core, add_row, &pc);
	if (ids.n && !pc.m.n) {
		peer_send_error(p, -ENOENT, not_rated(pc.m.rates_all, ids.n));
	} else {
		core_prio_describe(ctld->core, describe, sizeof(describe));
		pc.m.plugin = (char *)core_prio_plugin(ctld->core);
		pc.m.describe = describe;
		body = rota_msg_prio_encode(&pc.m, &len);
		peer_send(p, ROTA_MSG_PRIO_REPLY, body, len);
		free(body);
	}
	for (size_t i = 0; i < pc.m.n; i++) {
		free(pc.m.rows[i].factors);
		free(pc.m.rows[i].array);
	}
	free(pc.m.rows);
	free(pc.f);
	rota_msg_job_ids_clear(&ids);
}
