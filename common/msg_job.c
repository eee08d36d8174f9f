// SPDX-License-Identifier: MIT
/*
 * Codecs of the job messages: ERROR, SUBMIT, JOB_LIST, CANCEL and the text
 * list reply.  The job list is encoded by hand (it is the one large body).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/gres.h"
#include "common/msg.h"
#include "common/msg_internal.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

static const char *const state_names[ROTA_JOB_STATE_COUNT] = {
	[ROTA_JOB_NONE] = "NONE",	    [ROTA_JOB_PENDING] = "PENDING",
	[ROTA_JOB_RUNNING] = "RUNNING",	    [ROTA_JOB_COMPLETED] = "COMPLETED",
	[ROTA_JOB_FAILED] = "FAILED",	    [ROTA_JOB_CANCELLED] = "CANCELLED",
	[ROTA_JOB_TIMEOUT] = "TIMEOUT",	    [ROTA_JOB_NODE_FAIL] = "NODE_FAIL",
	[ROTA_JOB_OUT_OF_MEMORY] = "OUT_OF_MEMORY",
};

static const char *const state_short[ROTA_JOB_STATE_COUNT] = {
	[ROTA_JOB_NONE] = "?",	    [ROTA_JOB_PENDING] = "PD",
	[ROTA_JOB_RUNNING] = "R",   [ROTA_JOB_COMPLETED] = "CD",
	[ROTA_JOB_FAILED] = "F",    [ROTA_JOB_CANCELLED] = "CA",
	[ROTA_JOB_TIMEOUT] = "TO",  [ROTA_JOB_NODE_FAIL] = "NF",
	[ROTA_JOB_OUT_OF_MEMORY] = "OM", /* two columns, as the others */
};

const char *rota_job_state_name(enum rota_job_state s)
{
	return s < ROTA_JOB_STATE_COUNT ? state_names[s] : "NONE";
}

const char *rota_job_state_short(enum rota_job_state s)
{
	return s < ROTA_JOB_STATE_COUNT ? state_short[s] : "?";
}

int rota_job_state_parse(const char *text, enum rota_job_state *out)
{
	for (int i = 1; i < ROTA_JOB_STATE_COUNT; i++) {
		if (strcasecmp(text, state_names[i]) == 0 ||
		    strcasecmp(text, state_short[i]) == 0) {
			*out = (enum rota_job_state)i;
			return 0;
		}
	}
	return -EINVAL;
}

bool rota_job_state_is_final(enum rota_job_state s)
{
	return s >= ROTA_JOB_COMPLETED && s < ROTA_JOB_STATE_COUNT;
}

/* ---- ERROR ---- */

char *rota_msg_error_encode(int code, const char *text, size_t *len)
{
	return msg_dump(json_pack("{s:i, s:s}", "code", code, "text", text),
			len);
}

int rota_msg_error_decode(const char *buf, size_t len, struct rota_msg_error *m,
			  struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	const char *text = NULL;
	json_int_t code = 0;
	int rc;

	*m = (struct rota_msg_error){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:I, s:s !}", "code", &code, "text",
			&text);
	if (rc == 0)
		rc = msg_range(code, -4095, -1, "code", err);
	if (rc == 0)
		rc = msg_str(text, 1024, "text", &m->text, err);
	if (rc == 0)
		m->code = (int)code;
	json_decref(root);
	return rc;
}

void rota_msg_error_clear(struct rota_msg_error *m)
{
	free(m->text);
	*m = (struct rota_msg_error){ 0 };
}

/* ---- SUBMIT ---- */

/* A GPU type as gres.h spells one: what rota submit could have sent. */
static int msg_gres_type(const char *in, char **out, struct rota_error *err)
{
	struct rota_gres *g = NULL;
	size_t n = 0;
	char *spec;
	int rc;

	if (!in)
		return 0;
	spec = rota_xasprintf("gpu:%s:1", in);
	rc = rota_gres_parse(spec, &g, &n, err);
	if (rc == 0 && (n != 1 || strcmp(g->type, in) != 0))
		rc = -EINVAL; /* upper case, or not one type */
	free(spec);
	free(g);
	if (rc < 0)
		return rota_errorf(err, -EPROTO, "gpu_type: not a GPU type");
	*out = rota_xstrdup(in);
	return 0;
}

char *rota_msg_submit_encode(const struct rota_job_desc *d, size_t *len)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I}",
			      "name", d->name, "script", d->script, "workdir",
			      d->workdir, "ntasks", (json_int_t)d->ntasks,
			      "cpus_per_task", (json_int_t)d->cpus_per_task,
			      "nodes", (json_int_t)d->nodes, "mem_mb",
			      (json_int_t)d->mem_mb, "time_limit",
			      (json_int_t)d->time_limit);

	if (d->output)
		json_object_set_new(o, "output", json_string(d->output));
	if (d->error)
		json_object_set_new(o, "error", json_string(d->error));
	if (d->queue)
		json_object_set_new(o, "queue", json_string(d->queue));
	if (d->account)
		json_object_set_new(o, "account", json_string(d->account));
	if (d->constraint)
		json_object_set_new(o, "constraint", json_string(d->constraint));
	if (d->no_requeue)
		json_object_set_new(o, "no_requeue", json_true());
	if (d->qos)
		json_object_set_new(o, "qos", json_string(d->qos));
	if (d->nice)
		json_object_set_new(o, "nice", json_integer(d->nice));
	if (d->urgency)
		json_object_set_new(o, "urgency", json_integer(d->urgency));
	if (d->jobshare)
		json_object_set_new(o, "jobshare", json_integer(d->jobshare));
	if (d->oticket)
		json_object_set_new(o, "oticket", json_integer(d->oticket));
	if (d->ntasks_max) /* only a range: old readers see no new key */
		json_object_set_new(o, "ntasks_max",
				    json_integer(d->ntasks_max));
	if (d->ntasks_per_node)
		json_object_set_new(o, "ntasks_per_node",
				    json_integer(d->ntasks_per_node));
	if (d->exclusive)
		json_object_set_new(o, "exclusive", json_true());
	if (d->hold)
		json_object_set_new(o, "hold", json_true());
	if (d->mem_per_cpu_mb)
		json_object_set_new(o, "mem_per_cpu_mb",
				    json_integer((json_int_t)d->mem_per_cpu_mb));
	if (d->reservation)
		json_object_set_new(o, "reservation",
				    json_string(d->reservation));
	if (d->array)
		json_object_set_new(o, "array", json_string(d->array));
	if (d->dependency)
		json_object_set_new(o, "dependency",
				    json_string(d->dependency));
	if (d->kill_on_invalid_dep)
		json_object_set_new(o, "kill_on_invalid_dep", json_true());
	if (d->deadline)
		json_object_set_new(o, "deadline",
				    json_integer((json_int_t)d->deadline));
	if (d->gpu_type)
		json_object_set_new(o, "gpu_type", json_string(d->gpu_type));
	if (d->licenses)
		json_object_set_new(o, "licenses", json_string(d->licenses));
	if (d->gres)
		json_object_set_new(o, "gres", json_string(d->gres));
	if (d->gpus_per_node)
		json_object_set_new(o, "gpus_per_node",
				    json_integer(d->gpus_per_node));
	if (d->gpus_per_task)
		json_object_set_new(o, "gpus_per_task",
				    json_integer(d->gpus_per_task));
	json_object_set_new(o, "env", msg_strv_pack(d->env));
	return msg_dump(o, len);
}

struct submit_raw {
	const char *name, *script, *workdir, *output, *error, *queue,
		*account, *constraint, *qos, *reservation, *array,
		*dependency, *gpu_type, *licenses, *gres;
	json_int_t gpn, gpt;
	json_int_t ntasks, cpt, nodes, mem, limit, nice, urgency, per_node;
	json_int_t mem_per_cpu, jobshare, oticket;
	json_int_t deadline, ntasks_max;
	json_t *env;
	int no_requeue;
	int exclusive;
	int hold;
	int kill_on_invalid_dep;
};

static int submit_check(const struct submit_raw *r, struct rota_error *err)
{
	int rc = msg_range(r->ntasks, 1, 1 << 20, "ntasks", err);

	/*
	 * a range's maximum, or none (0); not below ntasks, which is the
	 * tasks granted once the job started (the journal's copy)
	 */
	if (rc == 0 && r->ntasks_max)
		rc = msg_range(r->ntasks_max, r->ntasks, 1 << 20,
			       "ntasks_max", err);
	if (rc == 0)
		rc = msg_range(r->cpt, 1, 1 << 16, "cpus_per_task", err);
	if (rc == 0)
		rc = msg_range(r->nodes, 0, 1 << 16, "nodes", err);
	if (rc == 0)
		rc = msg_range(r->mem, 0, (json_int_t)1 << 40, "mem_mb", err);
	if (rc == 0)
		rc = msg_range(r->mem_per_cpu, 0, (json_int_t)1 << 30,
			       "mem_per_cpu_mb", err);
	if (rc == 0 && r->mem && r->mem_per_cpu)
		rc = rota_errorf(err, -EPROTO,
				 "mem_mb and mem_per_cpu_mb: only one of them");
	if (rc == 0)
		rc = msg_range(r->limit, 0, (json_int_t)1 << 40, "time_limit",
			       err);
	if (rc == 0)
		rc = msg_range(r->nice, -10000, 10000, "nice", err);
	if (rc == 0)
		rc = msg_range(r->urgency, 0, 31, "urgency", err);
	if (rc == 0)
		rc = msg_range(r->per_node, 0, 1 << 20, "ntasks_per_node", err);
	if (rc == 0)
		rc = msg_range(r->deadline, 0, (json_int_t)1 << 40, "deadline",
			       err);
	if (rc == 0)
		rc = msg_range(r->jobshare, 0, 1000000000, "jobshare", err);
	if (rc == 0)
		rc = msg_range(r->oticket, 0, 1000000000, "oticket", err);
	if (rc == 0)
		rc = msg_range(r->gpn, 0, ROTA_GRES_COUNT_MAX, "gpus_per_node",
			       err);
	if (rc == 0)
		rc = msg_range(r->gpt, 0, ROTA_GRES_COUNT_MAX, "gpus_per_task",
			       err);
	if (rc == 0 && r->gpn && r->gpt)
		rc = rota_errorf(err, -EPROTO,
				 "gpus_per_node and gpus_per_task: only one "
				 "of them");
	if (rc == 0 && r->gpu_type && !r->gpn && !r->gpt)
		rc = rota_errorf(err, -EPROTO, "gpu_type: no GPUs asked for");
	if (rc == 0 && r->workdir[0] != '/')
		rc = rota_errorf(err, -EPROTO, "workdir: not absolute");
	return rc;
}

int rota_msg_submit_decode(const char *buf, size_t len, struct rota_job_desc *d,
			   struct rota_error *err)
{
	struct submit_raw r = { 0 };
	json_t *root = msg_parse(buf, len, err);
	int rc;

	*d = (struct rota_job_desc){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err,
			"{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s?s, s?s, "
			"s?s, s?s, s?s, s?o, s?b, s?s, s?I, s?I, s?I, s?b, "
			"s?I, s?s, s?b, s?s, s?s, s?b, s?I, s?I, s?I, s?I, "
			"s?s, s?I, s?I, s?s, s?s !}",
			"name", &r.name, "script", &r.script, "workdir",
			&r.workdir, "ntasks", &r.ntasks, "cpus_per_task",
			&r.cpt, "nodes", &r.nodes, "mem_mb", &r.mem,
			"time_limit", &r.limit, "output", &r.output, "error",
			&r.error, "queue", &r.queue, "account", &r.account,
			"constraint", &r.constraint, "env", &r.env, "no_requeue",
			&r.no_requeue, "qos", &r.qos, "nice", &r.nice,
			"urgency", &r.urgency, "ntasks_per_node", &r.per_node,
			"exclusive", &r.exclusive, "mem_per_cpu_mb",
			&r.mem_per_cpu, "reservation", &r.reservation, "hold",
			&r.hold, "array", &r.array, "dependency", &r.dependency,
			"kill_on_invalid_dep", &r.kill_on_invalid_dep,
			"deadline", &r.deadline, "jobshare", &r.jobshare, "oticket",
			&r.oticket, "ntasks_max", &r.ntasks_max, "gpu_type",
			&r.gpu_type, "gpus_per_node", &r.gpn, "gpus_per_task",
			&r.gpt, "licenses", &r.licenses, "gres", &r.gres);
	if (rc == 0)
		rc = submit_check(&r, err);
	if (rc == 0)
		rc = msg_str(r.name, ROTA_MSG_NAME_MAX, "name", &d->name, err);
	if (rc == 0)
		rc = msg_str(r.script, (size_t)1 << 26, "script", &d->script,
			     err);
	if (rc == 0)
		rc = msg_str(r.workdir, ROTA_MSG_PATH_MAX, "workdir",
			     &d->workdir, err);
	if (rc == 0)
		rc = msg_str(r.output, ROTA_MSG_PATH_MAX, "output", &d->output,
			     err);
	if (rc == 0)
		rc = msg_str(r.error, ROTA_MSG_PATH_MAX, "error", &d->error,
			     err);
	if (rc == 0)
		rc = msg_str(r.queue, ROTA_MSG_NAME_MAX, "queue", &d->queue,
			     err);
	if (rc == 0)
		rc = msg_str(r.account, ROTA_MSG_NAME_MAX, "account",
			     &d->account, err);
	if (rc == 0)
		rc = msg_str(r.constraint, ROTA_MSG_NAME_MAX, "constraint",
			     &d->constraint, err);
	if (rc == 0)
		rc = msg_str(r.qos, ROTA_MSG_NAME_MAX, "qos", &d->qos, err);
	if (rc == 0)
		rc = msg_str(r.reservation, ROTA_MSG_NAME_MAX, "reservation",
			     &d->reservation, err);
	if (rc == 0)
		rc = msg_str(r.array, ROTA_MSG_NAME_MAX, "array", &d->array,
			     err);
	if (rc == 0)
		rc = msg_str(r.dependency, ROTA_MSG_DEPEND_MAX, "dependency",
			     &d->dependency, err);
	if (rc == 0)
		rc = msg_gres_type(r.gpu_type, &d->gpu_type, err);
	if (rc == 0)
		rc = msg_str(r.licenses, ROTA_MSG_NAME_MAX, "licenses",
			     &d->licenses, err);
	if (rc == 0)
		rc = msg_str(r.gres, ROTA_MSG_NAME_MAX, "gres", &d->gres, err);
	if (rc == 0)
		rc = msg_strv(r.env, ROTA_MSG_ENV_MAX, ROTA_MSG_PATH_MAX * 8,
			      "env", &d->env, err);
	json_decref(root);
	if (rc < 0) {
		rota_job_desc_clear(d);
		return rc;
	}
	d->ntasks = (uint32_t)r.ntasks;
	d->ntasks_max = (uint32_t)r.ntasks_max;
	d->cpus_per_task = (uint32_t)r.cpt;
	d->nodes = (uint32_t)r.nodes;
	d->mem_mb = (uint64_t)r.mem;
	d->mem_per_cpu_mb = (uint64_t)r.mem_per_cpu;
	d->time_limit = r.limit;
	d->no_requeue = r.no_requeue;
	d->nice = (int32_t)r.nice;
	d->urgency = (uint32_t)r.urgency;
	d->jobshare = (uint32_t)r.jobshare;
	d->oticket = (uint32_t)r.oticket;
	d->ntasks_per_node = (uint32_t)r.per_node;
	d->exclusive = r.exclusive;
	d->hold = r.hold;
	d->kill_on_invalid_dep = r.kill_on_invalid_dep;
	d->deadline = r.deadline;
	d->gpus_per_node = (uint32_t)r.gpn;
	d->gpus_per_task = (uint32_t)r.gpt;
	return 0;
}

void rota_job_desc_clear(struct rota_job_desc *d)
{
	free(d->name);
	free(d->script);
	free(d->workdir);
	free(d->output);
	free(d->error);
	free(d->queue);
	free(d->account);
	free(d->constraint);
	free(d->qos);
	free(d->reservation);
	free(d->array);
	free(d->dependency);
	free(d->gpu_type);
	free(d->licenses);
	free(d->gres);
	msg_strv_free(d->env);
	*d = (struct rota_job_desc){ 0 };
}

/* ---- one-number bodies ---- */

static char *id_encode(const char *key, uint32_t id, size_t *len)
{
	return msg_dump(json_pack("{s:I}", key, (json_int_t)id), len);
}

static int id_decode(const char *buf, size_t len, const char *key,
		     uint32_t *id, struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	json_int_t v = 0;
	int rc;

	*id = 0;
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:I !}", key, &v);
	if (rc == 0)
		rc = msg_range(v, 0, UINT32_MAX, key, err);
	if (rc == 0)
		*id = (uint32_t)v;
	json_decref(root);
	return rc;
}

char *rota_msg_submit_reply_encode(uint32_t job_id, size_t *len)
{
	return id_encode("job_id", job_id, len);
}

int rota_msg_submit_reply_decode(const char *buf, size_t len, uint32_t *job_id,
				 struct rota_error *err)
{
	return id_decode(buf, len, "job_id", job_id, err);
}

char *rota_msg_job_id_encode(uint32_t job_id, size_t *len)
{
	return id_encode("job_id", job_id, len);
}

int rota_msg_job_id_decode(const char *buf, size_t len, uint32_t *job_id,
			   struct rota_error *err)
{
	return id_decode(buf, len, "job_id", job_id, err);
}

char *rota_msg_job_list_req_encode(const struct rota_msg_job_list_req *r,
				   size_t *len)
{
	return id_encode("job_id", r->job_id, len);
}

int rota_msg_job_list_req_decode(const char *buf, size_t len,
				 struct rota_msg_job_list_req *r,
				 struct rota_error *err)
{
	return id_decode(buf, len, "job_id", &r->job_id, err);
}

/* An optional "uid" (0 is root's: its presence says "by uid"). */
static int uid_unpack(json_t *v, bool *by_uid, uint32_t *uid,
		      struct rota_error *err)
{
	int rc;

	*by_uid = false;
	*uid = 0;
	if (!v)
		return 0;
	if (!json_is_integer(v))
		return rota_errorf(err, -EPROTO, "uid: not a whole number");
	rc = msg_range(json_integer_value(v), 0, UINT32_MAX - 1, "uid", err);
	if (rc == 0) {
		*by_uid = true;
		*uid = (uint32_t)json_integer_value(v);
	}
	return rc;
}

char *rota_msg_job_rows_req_encode(const struct rota_msg_job_rows_req *r,
				   size_t *len)
{
	json_t *o = json_object();

	if (r->job_id)
		json_object_set_new(o, "job_id", json_integer(r->job_id));
	if (r->by_uid)
		json_object_set_new(o, "uid", json_integer(r->uid));
	return msg_dump(o, len);
}

int rota_msg_job_rows_req_decode(const char *buf, size_t len,
				 struct rota_msg_job_rows_req *r,
				 struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	json_t *uid = NULL;
	json_int_t id = 0;
	int rc;

	*r = (struct rota_msg_job_rows_req){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s?I, s?o !}", "job_id", &id, "uid",
			&uid);
	if (rc == 0)
		rc = msg_range(id, 0, UINT32_MAX, "job_id", err);
	if (rc == 0)
		rc = uid_unpack(uid, &r->by_uid, &r->uid, err);
	r->job_id = (uint32_t)id;
	json_decref(root);
	return rc;
}

/* ---- CANCEL and text lists ---- */

char *rota_msg_job_ids_encode(const struct rota_msg_job_ids *m, size_t *len)
{
	json_t *o = json_pack("{s:o}", "job_ids",
			      msg_u32v_pack(m->job_ids, m->n));

	if (m->tasks)
		json_object_set_new(o, "tasks", msg_strv_pack(m->tasks));
	if (m->by_uid)
		json_object_set_new(o, "uid", json_integer(m->uid));
	return msg_dump(o, len);
}

int rota_msg_job_ids_decode(const char *buf, size_t len,
			   struct rota_msg_job_ids *m, struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	json_t *ids = NULL, *tasks = NULL, *uid = NULL;
	int rc;

	*m = (struct rota_msg_job_ids){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:o, s?o, s?o !}", "job_ids", &ids,
			"tasks", &tasks, "uid", &uid);
	if (rc == 0)
		rc = uid_unpack(uid, &m->by_uid, &m->uid, err);
	if (rc == 0)
		rc = msg_u32v(ids, 65536, "job_ids", &m->job_ids, &m->n, err);
	if (rc == 0)
		rc = msg_tasks_unpack(tasks, m->n, &m->tasks, err);
	json_decref(root);
	if (rc < 0)
		rota_msg_job_ids_clear(m);
	return rc;
}

void rota_msg_job_ids_clear(struct rota_msg_job_ids *m)
{
	msg_strv_free(m->tasks);
	free(m->job_ids);
	*m = (struct rota_msg_job_ids){ 0 };
}

char *rota_msg_text_list_encode(char *const *lines, size_t n, size_t *len)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, json_string(lines[i]));
	return msg_dump(json_pack("{s:o}", "lines", arr), len);
}

int rota_msg_text_list_decode(const char *buf, size_t len,
			      struct rota_msg_text_list *m,
			      struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	json_t *arr = NULL;
	int rc;

	*m = (struct rota_msg_text_list){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:o !}", "lines", &arr);
	if (rc == 0)
		rc = msg_strv(arr, 65536, 1024, "lines", &m->lines, err);
	if (rc == 0)
		m->n = json_array_size(arr);
	json_decref(root);
	return rc;
}

void rota_msg_text_list_clear(struct rota_msg_text_list *m)
{
	msg_strv_free(m->lines);
	*m = (struct rota_msg_text_list){ 0 };
}
