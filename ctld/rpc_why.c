// SPDX-License-Identifier: MIT
/*
 * WHY: the facts behind rota why JOB (core_why), for the job's owner or
 * an operator: unlike rota prio, the answer names where the job is
 * expected to run and what would start it, which is its owner's
 * business.  Nothing changes: the what-if works on a copy of the
 * last pass's plan.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "ctld/ctld.h"

/* A job ahead, its strings borrowed but for est_nodes (caller frees). */
static struct rota_why_job ahead_job(const struct core *core,
				     const struct core_job *job)
{
	if (!job)
		return (struct rota_why_job){ 0 };
	return (struct rota_why_job){
		.id = job->id,
		.queue = core_queue_get(core, job->queue)->name,
		.est_start = job->est_start,
		.est_nodes = core_job_est_nodelist(core, job),
	};
}

static void fill(const struct core *core, const struct core_why *w,
		 struct rota_msg_why *m)
{
	const struct core_job *job = w->job;

	*m = (struct rota_msg_why){
		.id = job->id,
		.state = job->state,
		.user = job->user,
		.queue = core_queue_get(core, job->queue)->name,
		.reason = (char *)w->reason,
		.sched = (char *)w->sched,
		.reservation = job->desc.reservation,
		.hold = (uint32_t)job->hold,
		.limited = job->limited,
		.ntasks = job->desc.ntasks,
		.cpus_per_task = job->desc.cpus_per_task,
		.time_limit = job->time_limit,
		.est_start = job->state == ROTA_JOB_PENDING ? job->est_start
							    : 0,
		.est_nodes = core_job_est_nodelist(core, job),
		.nahead = (uint32_t)w->nahead,
		.first = ahead_job(core, w->first),
		.resv = rota_xcalloc(w->nresv + 1, sizeof(*m->resv)),
		.resv_total = (uint32_t)w->nresv,
		.fits_now = w->fits_now,
		.fit_limit = w->fit_limit,
		.fit_tasks = w->fit_tasks,
		.dependency = job->deps ? core_job_dependency(job) : NULL,
		.dep_type = w->dep.type ? (char *)rota_depend_type_name(
						  w->dep.type)
					: NULL,
		.dep_job = w->dep.job_id,
		.dep_state = w->dep.target ? w->dep.target->state
					   : ROTA_JOB_NONE,
		.array = core_job_array_name(job),
		.tasks = job->array ? job->array->tasks.count : 1,
		.kept = w->kept,
		.kept_node = (char *)w->kept_node,
		.kept_queues = (char *)w->kept_queues,
		.tres = core_job_tres(job),
		.tres_per_task = job->desc.gpus_per_task > 0,
	};
	if (m->tres)
		core_queue_gpus(core, job, &m->gpus_free, &m->gpus_total);
	if (job->ngres) {
		char *all = core_job_gres_text(core, job, "");

		/* the first: "nvme:1" of "nvme:1,fpga:2" */
		all[strcspn(all, ",")] = '\0';
		m->gres = all;
		core_queue_gres(core, job, 0, &m->gres_free, &m->gres_total);
	}
	for (size_t i = 0; i < w->nresv && i < CORE_WHY_AHEAD_MAX; i++)
		m->resv[m->nresv++] = ahead_job(core, w->resv[i]);
}

void rpc_why(struct peer *p, const struct rota_frame *f)
{
	struct ctld *ctld = p->ctld;
	struct rota_msg_job_list_req req;
	struct rota_msg_why m;
	struct core_why w;
	struct rota_error err;
	size_t len;
	char *body;
	int rc;

	if (rota_msg_job_list_req_decode(f->body, f->body_len, &req, &err) <
	    0) {
		peer_send_error(p, -EPROTO, err.text);
		return;
	}
	rc = core_why(ctld->core, ctld_now(ctld), req.job_id, p->uid,
		      ctld_is_operator(ctld, p->uid), &w, &err);
	if (rc < 0) {
		peer_send_error(p, rc, err.text);
		return;
	}
	fill(ctld->core, &w, &m);
	m.now = ctld_now(ctld);
	body = rota_msg_why_encode(&m, &len);
	peer_send(p, ROTA_MSG_WHY_REPLY, body, len);
	free(body);
	for (size_t i = 0; i < m.nresv; i++)
		free(m.resv[i].est_nodes);
	free(m.resv);
	free(m.first.est_nodes);
	free(m.est_nodes);
	free(m.tres);
	free(m.gres);
	free(m.dependency);
	free(m.array);
}
