// SPDX-License-Identifier: MIT
/*
 * The WHY_REPLY codec (see msg.h): the facts rota why turns into its
 * paragraph, as data, so that --json gives scripts the same facts and
 * the wording stays with the client.  Every key is always present.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/msg_internal.h"
#include "common/xalloc.h"

#define WHY_LIMIT_MAX ((json_int_t)1 << 40)

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

static json_t *job_pack(const struct rota_why_job *j)
{
	return json_pack("{s:I, s:s, s:I, s:s}", "id", (json_int_t)j->id,
			 "queue", or_empty(j->queue), "est_start",
			 (json_int_t)j->est_start, "est_nodes",
			 or_empty(j->est_nodes));
}

char *rota_msg_why_encode(const struct rota_msg_why *m, size_t *len)
{
	json_t *resv = json_array();
	json_t *o;

	for (size_t i = 0; i < m->nresv; i++)
		json_array_append_new(resv, job_pack(&m->resv[i]));
	o = json_pack("{s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, "
		      "s:I, s:I, s:I, s:s}",
		      "now", (json_int_t)m->now, "id", (json_int_t)m->id,
		      "state", rota_job_state_name(m->state), "user",
		      or_empty(m->user), "queue", or_empty(m->queue), "reason",
		      or_empty(m->reason), "sched", or_empty(m->sched),
		      "reservation", or_empty(m->reservation), "hold",
		      (json_int_t)m->hold, "ntasks", (json_int_t)m->ntasks,
		      "cpus_per_task", (json_int_t)m->cpus_per_task,
		      "time_limit", (json_int_t)m->time_limit, "est_start",
		      (json_int_t)m->est_start, "est_nodes",
		      or_empty(m->est_nodes));
	json_object_set_new(o, "limited", json_boolean(m->limited));
	json_object_set_new(o, "ahead", json_integer(m->nahead));
	json_object_set_new(o, "first", job_pack(&m->first));
	json_object_set_new(o, "resv", resv);
	json_object_set_new(o, "resv_total", json_integer(m->resv_total));
	json_object_set_new(o, "fits_now", json_boolean(m->fits_now));
	json_object_set_new(o, "fit_limit", json_integer(m->fit_limit));
	json_object_set_new(o, "fit_tasks", json_integer(m->fit_tasks));
	json_object_set_new(o, "dependency",
			    json_string(or_empty(m->dependency)));
	json_object_set_new(o, "dep_type", json_string(or_empty(m->dep_type)));
	json_object_set_new(o, "dep_job", json_integer(m->dep_job));
	json_object_set_new(o, "dep_state",
			    json_string(m->dep_state
						? rota_job_state_name(m->dep_state)
						: ""));
	if (m->array)
		json_object_set_new(o, "array", json_string(m->array));
	if (m->tasks > 1)
		json_object_set_new(o, "tasks", json_integer(m->tasks));
	if (m->tres) {
		json_object_set_new(o, "tres", json_string(m->tres));
		json_object_set_new(o, "tres_per_task",
				    json_boolean(m->tres_per_task));
		json_object_set_new(o, "gpus_free", json_integer(m->gpus_free));
		json_object_set_new(o, "gpus_total",
				    json_integer(m->gpus_total));
	}
	if (m->gres) {
		json_object_set_new(o, "gres", json_string(m->gres));
		json_object_set_new(o, "gres_free", json_integer(m->gres_free));
		json_object_set_new(o, "gres_total",
				    json_integer(m->gres_total));
	}
	if (m->kept) {
		json_object_set_new(o, "kept", json_integer(m->kept));
		json_object_set_new(o, "kept_node",
				    json_string(or_empty(m->kept_node)));
		json_object_set_new(o, "kept_queues",
				    json_string(or_empty(m->kept_queues)));
	}
	return msg_dump(o, len);
}

static int job_unpack(json_t *o, struct rota_why_job *j,
		      struct rota_error *err)
{
	const char *queue = NULL, *nodes = NULL;
	json_int_t id = 0, est = 0;
	int rc = msg_unpack(o, err, "{s:I, s:s, s:I, s:s !}", "id", &id,
			    "queue", &queue, "est_start", &est, "est_nodes",
			    &nodes);

	if (rc == 0)
		rc = msg_range(id, 0, UINT32_MAX, "id", err);
	if (rc == 0)
		rc = msg_range(est, 0, INT64_MAX, "est_start", err);
	if (rc == 0)
		rc = msg_str(queue, ROTA_MSG_NAME_MAX, "queue", &j->queue, err);
	if (rc == 0)
		rc = msg_str(nodes, ROTA_MSG_PATH_MAX, "est_nodes",
			     &j->est_nodes, err);
	j->id = (uint32_t)id;
	j->est_start = est;
	return rc;
}

struct why_raw {
	json_int_t now, id, hold, ntasks, cpt, limit, est, ahead, total,
		fit_limit, fit_tasks;
	const char *state, *user, *queue, *reason, *sched, *resv, *nodes;
	const char *dep, *dep_type, *dep_state, *array;
	json_int_t dep_job, tasks, kept;
	const char *kept_node, *kept_queues, *tres, *gres;
	json_int_t gpus_free, gpus_total, gres_free, gres_total;
	json_t *first, *list;
	int fits, limited, per_task;
};

static int why_numbers(const struct why_raw *r, struct rota_error *err)
{
	const struct msg_range_field n[] = {
		{ "now", r->now, 0, INT64_MAX },
		{ "id", r->id, 1, UINT32_MAX },
		{ "hold", r->hold, 0, 2 },
		{ "ntasks", r->ntasks, 1, 1 << 20 },
		{ "cpus_per_task", r->cpt, 1, 1 << 16 },
		{ "time_limit", r->limit, 0, WHY_LIMIT_MAX },
		{ "est_start", r->est, 0, INT64_MAX },
		{ "ahead", r->ahead, 0, UINT32_MAX },
		{ "resv_total", r->total, 0, UINT32_MAX },
		{ "fit_limit", r->fit_limit, 0, WHY_LIMIT_MAX },
		{ "fit_tasks", r->fit_tasks, 0, 1 << 20 },
		{ "gpus_free", r->gpus_free, 0, r->gpus_total },
		{ "gpus_total", r->gpus_total, 0, UINT32_MAX },
		{ "gres_free", r->gres_free, 0, r->gres_total },
		{ "gres_total", r->gres_total, 0, UINT32_MAX },
	};

	int rc = msg_ranges(n, sizeof(n) / sizeof(*n), err);

	if (rc < 0)
		return rc;
	if (!json_is_array(r->list) ||
	    json_array_size(r->list) > ROTA_MSG_WHY_AHEAD_MAX ||
	    json_array_size(r->list) > (size_t)r->total)
		return rota_errorf(err, -EPROTO, "resv: not a short list");
	return 0;
}

static int why_strings(const struct why_raw *r, struct rota_msg_why *m,
		       struct rota_error *err)
{
	const struct msg_str_field s[] = {
		{ "user", r->user, &m->user, ROTA_MSG_NAME_MAX },
		{ "queue", r->queue, &m->queue, ROTA_MSG_NAME_MAX },
		{ "reason", r->reason, &m->reason, 1024 },
		{ "sched", r->sched, &m->sched, ROTA_MSG_NAME_MAX },
		{ "reservation", r->resv, &m->reservation, ROTA_MSG_NAME_MAX },
		{ "est_nodes", r->nodes, &m->est_nodes, ROTA_MSG_PATH_MAX },
		{ "dependency", r->dep, &m->dependency, ROTA_MSG_DEPEND_MAX },
		{ "dep_type", r->dep_type, &m->dep_type, ROTA_MSG_NAME_MAX },
		{ "array", r->array, &m->array, ROTA_MSG_PATH_MAX },
		{ "kept_node", r->kept_node, &m->kept_node, ROTA_MSG_NAME_MAX },
		{ "kept_queues", r->kept_queues, &m->kept_queues,
		  ROTA_MSG_PATH_MAX },
		{ "tres", r->tres, &m->tres, ROTA_MSG_NAME_MAX },
		{ "gres", r->gres, &m->gres, ROTA_MSG_NAME_MAX },
	};

	return msg_strs(s, sizeof(s) / sizeof(*s), err);
}

static int why_fill(const struct why_raw *r, struct rota_msg_why *m,
		    struct rota_error *err)
{
	int rc = why_numbers(r, err);

	if (rc == 0 && rota_job_state_parse(r->state, &m->state) < 0)
		rc = rota_errorf(err, -EPROTO, "state: '%s' unknown",
				 r->state);
	if (rc == 0 && r->dep_state && r->dep_state[0] &&
	    rota_job_state_parse(r->dep_state, &m->dep_state) < 0)
		rc = rota_errorf(err, -EPROTO, "dep_state: '%s' unknown",
				 r->dep_state);
	if (rc == 0)
		rc = msg_range(r->dep_job, 0, UINT32_MAX, "dep_job", err);
	if (rc == 0)
		rc = msg_range(r->tasks, 0, UINT32_MAX, "tasks", err);
	if (rc == 0)
		rc = msg_range(r->kept, 0, UINT32_MAX, "kept", err);
	if (rc == 0)
		rc = why_strings(r, m, err);
	if (rc == 0)
		rc = job_unpack(r->first, &m->first, err);
	if (rc == 0)
		m->resv = rota_xcalloc(json_array_size(r->list) + 1,
				       sizeof(*m->resv));
	for (size_t i = 0; rc == 0 && i < json_array_size(r->list); i++) {
		rc = job_unpack(json_array_get(r->list, i), &m->resv[i], err);
		m->nresv++;
	}
	return rc;
}

int rota_msg_why_decode(const char *buf, size_t len, struct rota_msg_why *m,
			struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	struct why_raw r = { 0 };
	int rc;

	*m = (struct rota_msg_why){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err,
			"{s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, "
			"s:I, s:I, s:I, s:s, s:b, s:I, s:o, s:o, s:I, s:b, "
			"s:I, s:I, s?s, s?s, s?I, s?s, s?s, s?I, s?I, s?s, "
			"s?s, s?s, s?b, s?I, s?I, s?s, s?I, s?I !}",
			"now", &r.now, "id", &r.id, "state", &r.state, "user",
			&r.user, "queue", &r.queue, "reason", &r.reason,
			"sched", &r.sched, "reservation", &r.resv, "hold",
			&r.hold, "ntasks", &r.ntasks, "cpus_per_task", &r.cpt,
			"time_limit", &r.limit, "est_start", &r.est,
			"est_nodes", &r.nodes, "limited", &r.limited, "ahead",
			&r.ahead, "first",
			&r.first, "resv", &r.list, "resv_total", &r.total,
			"fits_now", &r.fits, "fit_limit", &r.fit_limit,
			"fit_tasks", &r.fit_tasks, "dependency", &r.dep,
			"dep_type", &r.dep_type, "dep_job", &r.dep_job,
			"dep_state", &r.dep_state, "array", &r.array, "tasks",
			&r.tasks, "kept", &r.kept, "kept_node", &r.kept_node,
			"kept_queues", &r.kept_queues, "tres", &r.tres,
			"tres_per_task", &r.per_task, "gpus_free",
			&r.gpus_free, "gpus_total", &r.gpus_total, "gres",
			&r.gres, "gres_free", &r.gres_free, "gres_total",
			&r.gres_total);
	if (rc == 0)
		rc = why_fill(&r, m, err);
	if (rc == 0) {
		m->now = r.now;
		m->id = (uint32_t)r.id;
		m->hold = (uint32_t)r.hold;
		/* the GPU figures mean something only beside "tres" */
		m->tres_per_task = r.per_task && m->tres;
		m->gpus_free = m->tres ? (uint32_t)r.gpus_free : 0;
		m->gpus_total = m->tres ? (uint32_t)r.gpus_total : 0;
		m->gres_free = m->gres ? (uint32_t)r.gres_free : 0;
		m->gres_total = m->gres ? (uint32_t)r.gres_total : 0;
		m->ntasks = (uint32_t)r.ntasks;
		m->cpus_per_task = (uint32_t)r.cpt;
		m->time_limit = r.limit;
		m->est_start = r.est;
		m->nahead = (uint32_t)r.ahead;
		m->resv_total = (uint32_t)r.total;
		m->fits_now = r.fits;
		m->limited = r.limited;
		m->fit_limit = r.fit_limit;
		m->fit_tasks = (uint32_t)r.fit_tasks;
		m->dep_job = (uint32_t)r.dep_job;
		m->tasks = (uint32_t)r.tasks;
		m->kept = (uint32_t)r.kept;
	}
	json_decref(root);
	if (rc < 0)
		rota_msg_why_clear(m);
	return rc;
}

static void why_job_clear(struct rota_why_job *j)
{
	free(j->queue);
	free(j->est_nodes);
	*j = (struct rota_why_job){ 0 };
}

void rota_msg_why_clear(struct rota_msg_why *m)
{
	for (size_t i = 0; i < m->nresv; i++)
		why_job_clear(&m->resv[i]);
	free(m->resv);
	why_job_clear(&m->first);
	free(m->user);
	free(m->queue);
	free(m->reason);
	free(m->sched);
	free(m->reservation);
	free(m->est_nodes);
	free(m->dependency);
	free(m->dep_type);
	free(m->array);
	free(m->kept_node);
	free(m->kept_queues);
	free(m->tres);
	free(m->gres);
	*m = (struct rota_msg_why){ 0 };
}
