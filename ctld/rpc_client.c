// SPDX-License-Identifier: MIT
/*
 * Handlers of the users' requests: submit, list, cancel, nodes, ping.  Who
 * asks is the munge-authenticated uid in the peer, never a body field.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "ctld/ctld.h"
#include "ctld/idem.h"
#include "ctld/journal.h"
#include "ctld/users.h"

static void reply_decode_error(struct peer *p, const struct rota_frame *f,
			       const struct rota_error *err)
{
	rota_warn("%s: malformed %s: %s", "client",
		  rota_msg_type_name(f->type), err->text);
	peer_send_error(p, -EPROTO, err->text);
}

/*
 * Slurm's TresPerNode: its GPUs a node, if so asked, and its other
 * generic resources ("gres/gpu:v100:2,gres/nvme:1"); NULL: none.  The
 * caller frees it.
 */
static char *tres_per_node(const struct core *core, const struct core_job *job)
{
	char *gpu = job->desc.gpus_per_node ? core_job_tres(job) : NULL;
	char *other = job->ngres ? core_job_gres_text(core, job, "gres/")
				 : NULL;
	char *both;

	if (!gpu || !other)
		return gpu ? gpu : other;
	both = rota_xasprintf("%s,%s", gpu, other);
	free(gpu);
	free(other);
	return both;
}

/*
 * State-changing requests go through idem_begin(): a retry of one already
 * answered gets that answer, and a new one's answer is journaled with its
 * change (idem_answer before state_commit).
 */
static void submit(struct peer *p, struct idem_req *ir)
{
	const struct rota_frame *f = &ir->f;
	struct ctld *ctld = p->ctld;
	struct rota_job_desc desc;
	struct core_submit req = {
		.desc = &desc,
		.uid = p->uid,
		.gid = p->gid,
		.user = user_cache_name(ctld->users, p->uid),
		.operator = ctld_is_operator(ctld, p->uid),
	};
	struct rota_error err;
	uint32_t id;
	size_t len;
	char *body;
	bool held;

	if (rota_msg_submit_decode(f->body, f->body_len, &desc, &err) < 0) {
		reply_decode_error(p, f, &err);
		return;
	}
	held = desc.hold; /* core_submit takes desc over */
	if (core_submit(ctld->core, ctld_now(ctld), &req, &id, &err) < 0) {
		rota_job_desc_clear(&desc);
		peer_send_error(p, -EINVAL, err.text);
		return;
	}
	rota_debug("job %u: submitted by uid %u", id, (unsigned)p->uid);
	/*
	 * A held job starts nothing and, kept out of the walk list, changes
	 * nothing a pass does now: the next request's pass, or the periodic
	 * one, sees what else it changed (issue 23: one pass per held
	 * submit was the cost of a submit at 100,000 queued).
	 */
	if (!held)
		ctld_schedule_now(ctld);
	body = rota_msg_submit_reply_encode(id, &len);
	idem_answer(ir, ROTA_MSG_SUBMIT_REPLY, body, len);
	if (state_commit(ctld) < 0) {
		idem_forget(ir);
		free(body);
		peer_send_error(p, -EIO, "the controller cannot write its "
					 "journal: job not accepted");
		return;
	}
	peer_send(p, ROTA_MSG_SUBMIT_REPLY, body, len);
	free(body);
	ctld_run_actions(ctld);
}

void rpc_submit(struct peer *p, const struct rota_frame *f)
{
	struct idem_req ir;

	if (idem_begin(p, f, &ir))
		return;
	submit(p, &ir);
	idem_end(&ir);
}

struct list_ctx {
	struct ctld *ctld;
	struct rota_job_info *jobs;
	char **nodelists; /* to free after encoding */
	size_t n;
};

static void fill_info(const struct core_job *job, void *arg)
{
	struct list_ctx *lc = arg;
	const struct core *core = lc->ctld->core;
	struct rota_job_info *j = &lc->jobs[lc->n];
	/* a job has nodes or expected nodes: one string to free */
	char *nodes = job->nalloc ? core_job_nodelist(core, job)
				  : core_job_est_nodelist(core, job);

	*j = (struct rota_job_info){
		.id = job->id,
		.state = job->state,
		.uid = (uint32_t)job->uid,
		.gid = (uint32_t)job->gid,
		.name = job->desc.name,
		.user = (char *)user_cache_name(lc->ctld->users, job->uid),
		.account = job->desc.account,
		.queue = core_queue_get(core, job->queue)->name,
		.nodelist = job->nalloc ? nodes : NULL,
		.reason = (char *)core_job_reason(core, job),
		.workdir = job->desc.workdir,
		.output = job->desc.output,
		.error = job->desc.error,
		.constraint = job->desc.constraint,
		.ntasks = job->desc.ntasks,
		.ntasks_max = job->state == ROTA_JOB_PENDING
				      ? job->desc.ntasks_max
				      : 0,
		.cpus_per_task = job->desc.cpus_per_task,
		.nodes = job->nalloc ? job->nalloc : job->desc.nodes,
		.mem_mb = job->desc.mem_mb,
		.time_limit = job->time_limit,
		.submit_time = job->submit_time,
		.start_time = job->start_time,
		.end_time = job->end_time,
		.exit_code = job->exit_code,
		.term_signal = job->term_signal,
		.runs = job->run,
		.est_start = job->state == ROTA_JOB_PENDING ? job->est_start
							    : 0,
		.mem_per_cpu_mb = job->desc.mem_per_cpu_mb,
		.reservation = job->desc.reservation,
		.est_nodes = job->nalloc ? NULL : nodes,
		.cpu_usec = job->cpu_usec,
		.mem_peak = job->mem_peak,
		.array_job_id = job->array_id,
		.array_task_id = job->array_task,
		.array_tasks = job->array ? rota_taskset_text(&job->array->tasks)
					  : NULL,
		.array_throttle = job->array ? job->array->throttle : 0,
		/* freed with j->dependency after encoding; NULL: none */
		.dependency = job->deps ? core_job_dependency(job) : NULL,
		/* these three are freed after encoding too */
		.tres_per_node = tres_per_node(core, job),
		.tres_per_task = job->desc.gpus_per_task ? core_job_tres(job)
							 : NULL,
		.gpu_idx = core_job_gpu_idx(core, job),
	};
	lc->nodelists[lc->n++] = nodes;
}

void rpc_job_list(struct peer *p, const struct rota_frame *f)
{
	struct ctld *ctld = p->ctld;
	struct rota_msg_job_list_req req;
	struct list_ctx lc = { .ctld = ctld };
	struct rota_error err;
	size_t total = core_job_count(ctld->core);
	size_t len;
	char *body;

	if (rota_msg_job_list_req_decode(f->body, f->body_len, &req, &err) <
	    0) {
		reply_decode_error(p, f, &err);
		return;
	}
	if (req.job_id) /* one job: not a table the size of the queue */
		total = 1;
	lc.jobs = rota_xcalloc(total + 1, sizeof(*lc.jobs));
	lc.nodelists = rota_xcalloc(total + 1, sizeof(char *));
	if (req.job_id) {
		const struct core_job *job = core_job_find(ctld->core,
							   req.job_id);
		if (!job) {
			peer_send_error(p, -ENOENT, "job not found");
			goto out;
		}
		fill_info(job, &lc);
	} else {
		core_job_foreach(ctld->core, fill_info, &lc);
	}
	body = rota_msg_job_list_encode(lc.jobs, lc.n, ctld_now(ctld), &len);
	peer_send(p, ROTA_MSG_JOB_LIST_REPLY, body, len);
	free(body);
out:
	for (size_t i = 0; i < lc.n; i++) {
		free(lc.nodelists[i]);
		free(lc.jobs[i].array_tasks);
		free(lc.jobs[i].dependency);
		free(lc.jobs[i].tres_per_node);
		free(lc.jobs[i].tres_per_task);
		free(lc.jobs[i].gpu_idx);
	}
	free(lc.nodelists);
	free(lc.jobs);
}

struct cancel_ctx {
	struct ctld *ctld;
	uid_t uid;
	bool op;
};

static int cancel_job(void *arg, uint32_t id, struct rota_error *err)
{
	struct cancel_ctx *c = arg;
	int rc = core_cancel(c->ctld->core, ctld_now(c->ctld), id, c->uid,
			     c->op, err);

	if (rc == 0)
		rota_info("job %u: cancel requested by uid %u", id,
			  (unsigned)c->uid);
	return rc;
}

static void cancel(struct peer *p, struct idem_req *ir)
{
	const struct rota_frame *f = &ir->f;
	struct ctld *ctld = p->ctld;
	struct cancel_ctx c = {
		.ctld = ctld,
		.uid = p->uid,
		.op = ctld_is_operator(ctld, p->uid),
	};
	struct rota_msg_job_ids m;
	struct rota_error err;
	struct rpc_lines lines = { 0 };
	size_t len;
	char *body;

	if (rota_msg_job_ids_decode(f->body, f->body_len, &m, &err) < 0) {
		reply_decode_error(p, f, &err);
		return;
	}
	rpc_each_job(ctld, m.job_ids, m.tasks, m.n, true, cancel_job, &c,
		     &lines);
	body = rota_msg_text_list_encode(lines.v, lines.n, &len);
	idem_answer(ir, ROTA_MSG_CANCEL_REPLY, body, len);
	if (state_commit(ctld) < 0) {
		idem_forget(ir);
		free(body);
		rpc_lines_add(&lines, "the controller cannot write its "
				      "journal: cancels may not last");
		body = rota_msg_text_list_encode(lines.v, lines.n, &len);
	}
	peer_send(p, ROTA_MSG_CANCEL_REPLY, body, len);
	free(body);
	rpc_lines_fini(&lines);
	rota_msg_job_ids_clear(&m);
	ctld_run_actions(ctld);
	ctld_kick(ctld);
}

void rpc_cancel(struct peer *p, const struct rota_frame *f)
{
	struct idem_req ir;

	if (idem_begin(p, f, &ir))
		return;
	cancel(p, &ir);
	idem_end(&ir);
}

const char *rpc_job_where(const struct core *core, const struct core_job *job,
			  char **keep, size_t *nkeep)
{
	if (!job->nalloc)
		return core_job_reason(core, job);
	keep[*nkeep] = core_job_nodelist(core, job);
	return keep[(*nkeep)++];
}

struct rows_ctx {
	struct ctld *ctld;
	struct rota_job_row *rows;
	char **nodelists; /* to free after encoding */
	size_t n;
	size_t nlists;
};

static void fill_row(const struct core_job *job, void *arg)
{
	struct rows_ctx *rc = arg;
	const struct core *core = rc->ctld->core;
	struct rota_job_row *r = &rc->rows[rc->n++];

	*r = (struct rota_job_row){
		.id = job->id,
		.state = job->state,
		.nodes = job->nalloc ? job->nalloc
				     : (job->desc.nodes ? job->desc.nodes : 1),
		.start_time = job->start_time,
		.end_time = job->end_time,
		.queue = core_queue_get(core, job->queue)->name,
		.name = job->desc.name,
		.user = user_cache_name(rc->ctld->users, job->uid),
	};
	r->where = rpc_job_where(core, job, rc->nodelists, &rc->nlists);
	if (job->array_id) {
		r->array_job_id = job->array_id;
		r->array = rc->nodelists[rc->nlists++] =
			core_job_array_name(job);
	}
	if (job->desc.gpus_per_node || job->desc.gpus_per_task ||
	    job->ngres) {
		char *tres = core_job_tres(job); /* "gres/gpu:v100:2" */
		char *other = core_job_gres_text(core, job, "");

		r->gres = rc->nodelists[rc->nlists++] = rota_xasprintf(
			"%s%s%s%s", tres ? tres + strlen("gres/") : "",
			job->desc.gpus_per_task ? "/task" : "",
			tres && other ? "," : "", other ? other : "");
		free(tres);
		free(other);
	}
}

/* Job 'id' and, when it is an array's record, its tasks as rows. */
struct array_rows {
	struct rows_ctx *rc;
	uint32_t id;
};

static void fill_array_row(const struct core_job *job, void *arg)
{
	struct array_rows *a = arg;

	if (job->id == a->id || job->array_id == a->id)
		fill_row(job, a->rc);
}

/*
 * The rows a request asks for: a job's (with its array's tasks, which
 * are its owner's jobs with the array's id: their walk starts at its
 * record), a user's (from the core's index), or all.
 */
static size_t rows_wanted(const struct core *core,
			  const struct rota_msg_job_rows_req *req,
			  const struct core_job **job)
{
	*job = req->job_id ? core_job_find(core, req->job_id) : NULL;
	if (*job && (*job)->array_id != req->job_id)
		return 1;
	if (*job)
		return core_user_job_count(core, (*job)->uid);
	if (req->by_uid && !req->job_id)
		return core_user_job_count(core, (uid_t)req->uid);
	return core_job_count(core); /* all, or an array whose record left */
}

void rpc_job_rows(struct peer *p, const struct rota_frame *f)
{
	struct ctld *ctld = p->ctld;
	struct rota_msg_job_rows_req req;
	const struct core_job *job;
	struct rota_error err;
	struct rows_ctx rc = { .ctld = ctld };
	struct array_rows ar = { .rc = &rc };
	size_t total, len;
	char *body;

	if (rota_msg_job_rows_req_decode(f->body, f->body_len, &req, &err) <
	    0) {
		reply_decode_error(p, f, &err);
		return;
	}
	total = rows_wanted(ctld->core, &req, &job);
	rc.rows = rota_xcalloc(total + 1, sizeof(struct rota_job_row));
	/* a nodelist, an array name and a GPU text each at most */
	rc.nodelists = rota_xcalloc(3 * total + 1, sizeof(char *));
	ar.id = req.job_id;
	if (job && total == 1)
		fill_row(job, &rc);
	else if (job) /* its tasks came later: their ids are higher */
		for (const struct core_job *j = job; j; j = j->unext)
			fill_array_row(j, &ar);
	else if (req.by_uid && !req.job_id)
		core_user_jobs_foreach(ctld->core, (uid_t)req.uid, fill_row,
				       &rc);
	else if (req.job_id)
		core_job_foreach(ctld->core, fill_array_row, &ar);
	else
		core_job_foreach(ctld->core, fill_row, &rc);
	body = rota_msg_job_rows_encode(rc.rows, rc.n, ctld_now(ctld), &len);
	peer_send(p, ROTA_MSG_JOB_ROWS_REPLY, body, len);
	free(body);
	for (size_t i = 0; i < rc.nlists; i++)
		free(rc.nodelists[i]);
	free(rc.nodelists);
	free(rc.rows);
}

void rpc_node_list(struct peer *p, const struct rota_frame *f)
{
	const struct core *core = p->ctld->core;
	size_t n = core_node_count(core), len;
	struct rota_node_info *nodes = rota_xcalloc(n + 1, sizeof(*nodes));
	char *body;

	for (uint32_t i = 0; i < n; i++) {
		const struct core_node *cn = core_node_get(core, i);

		nodes[i] = (struct rota_node_info){
			.name = cn->name,
			.state = (char *)core_node_state_name(cn),
			.reason = (char *)cn->reason,
			.addr = cn->addr,
			.features = cn->features,
			.sockets = cn->sockets ? cn->sockets : 1,
			.cores = cn->cores ? cn->cores : 1,
			.pus = cn->pus ? cn->pus : 1,
			.cores_used = cn->cores_used,
			.cores_kept = cn->test_reserved,
			.cores_kept_used = cn->test_used < cn->test_reserved
						   ? cn->test_used
						   : cn->test_reserved,
			.memory_mb = cn->memory_mb,
			.memory_used_mb = cn->mem_used_mb,
			.ngpus = cn->ngpus,
			.gpus = rota_xcalloc(cn->ngpus + 1, sizeof(*nodes->gpus)),
			.gres = cn->ngres ? rota_gres_text(cn->gres, cn->ngres)
					  : NULL,
			.gres_used = core_node_gres_used(cn),
		};
		for (uint32_t g = 0; g < cn->ngpus; g++) {
			const struct core_gpu *x = &cn->gpus[g];

			nodes[i].gpus[g] = (struct rota_gpu_info){
				.type = x->type,
				.model = x->model,
				.busid = x->busid,
				.cores = x->cores,
				.numa = x->numa,
				.job = x->job,
			};
		}
	}
	body = rota_msg_node_list_encode(nodes, n, &len);
	peer_send(p, ROTA_MSG_NODE_LIST_REPLY, body, len);
	free(body);
	for (size_t i = 0; i < n; i++) {
		free(nodes[i].gpus);
		free(nodes[i].gres);
		free(nodes[i].gres_used);
	}
	free(nodes);
}

void rpc_licenses(struct peer *p, const struct rota_frame *f)
{
	const struct core *core = p->ctld->core;
	size_t n = core_license_count(core), len;
	char **lines = rota_xcalloc(n + 1, sizeof(char *));
	char *body;

	for (size_t i = 0; i < n; i++) {
		const struct core_license *l = core_license_get(core, i);

		lines[i] = rota_xasprintf("%s %u %u", l->name, l->total,
					  l->used);
	}
	body = rota_msg_text_list_encode(lines, n, &len);
	peer_send(p, ROTA_MSG_LICENSES_REPLY, body, len);
	free(body);
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

void rpc_ping(struct peer *p, const struct rota_frame *f)
{
	peer_send(p, ROTA_MSG_OK, "{}", 2);
}

static void node_admin(struct peer *p, struct idem_req *ir)
{
	const struct rota_frame *f = &ir->f;
	struct ctld *ctld = p->ctld;
	struct rota_msg_node_admin m;
	struct rota_error err;

	if (rota_msg_node_admin_decode(f->body, f->body_len, &m, &err) < 0) {
		reply_decode_error(p, f, &err);
		return;
	}
	if (!ctld_is_operator(ctld, p->uid)) {
		ctld->stats.denied++;
		peer_send_error(p, -EPERM, "only operators may change nodes");
	} else if (core_node_admin(ctld->core, ctld_now(ctld), m.name,
				   m.action, m.reason, &err) < 0) {
		peer_send_error(p, -EINVAL, err.text);
	} else {
		rota_info("node '%s': %s by uid %u%s%s", m.name, m.action,
			  (unsigned)p->uid, m.reason ? ": " : "",
			  m.reason ? m.reason : "");
		idem_answer(ir, ROTA_MSG_OK, "{}", 2);
		if (state_commit(ctld) < 0) {
			idem_forget(ir);
			peer_send_error(p, -EIO, "the controller cannot write "
						 "its journal");
		} else {
			peer_send(p, ROTA_MSG_OK, "{}", 2);
		}
		ctld_kick(ctld);
	}
	rota_msg_node_admin_clear(&m);
}

void rpc_node_admin(struct peer *p, const struct rota_frame *f)
{
	struct idem_req ir;

	if (idem_begin(p, f, &ir))
		return;
	node_admin(p, &ir);
	idem_end(&ir);
}
