// SPDX-License-Identifier: MIT
/*
 * The JOB_LIST reply: every job the controller knows, or one.  Encoded by
 * hand into one buffer, since it is the body that grows with the queue
 * (50,000 pending jobs list in tens of milliseconds); decoded with jansson
 * and strict formats like every other body.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/msg_internal.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

static void add_str(struct rota_strbuf *b, const char *key, const char *v)
{
	if (!v)
		return;
	rota_strbuf_add(b, ",\"", 2);
	rota_strbuf_adds(b, key);
	rota_strbuf_add(b, "\":", 2);
	rota_strbuf_add_json(b, v);
}

static void add_int(struct rota_strbuf *b, const char *key, int64_t v)
{
	rota_strbuf_add(b, ",\"", 2);
	rota_strbuf_adds(b, key);
	rota_strbuf_add(b, "\":", 2);
	rota_strbuf_add_i64(b, v);
}

static void encode_job(struct rota_strbuf *b, const struct rota_job_info *j)
{
	rota_strbuf_add(b, "{\"id\":", 6);
	rota_strbuf_add_i64(b, j->id);
	add_str(b, "state", rota_job_state_name(j->state));
	add_int(b, "uid", j->uid);
	add_int(b, "gid", j->gid);
	add_str(b, "name", j->name);
	add_str(b, "user", j->user);
	add_str(b, "account", j->account);
	add_str(b, "queue", j->queue);
	add_str(b, "nodelist", j->nodelist);
	add_str(b, "reason", j->reason);
	add_str(b, "workdir", j->workdir);
	add_str(b, "output", j->output);
	add_str(b, "error", j->error);
	add_str(b, "constraint", j->constraint);
	add_int(b, "ntasks", j->ntasks);
	if (j->ntasks_max)
		add_int(b, "ntasks_max", j->ntasks_max);
	add_int(b, "cpus_per_task", j->cpus_per_task);
	add_int(b, "nodes", j->nodes);
	add_int(b, "mem_mb", (int64_t)j->mem_mb);
	add_int(b, "time_limit", j->time_limit);
	add_int(b, "submit", j->submit_time);
	add_int(b, "start", j->start_time);
	add_int(b, "end", j->end_time);
	add_int(b, "exit_code", j->exit_code);
	add_int(b, "signal", j->term_signal);
	add_int(b, "runs", j->runs);
	if (j->est_start)
		add_int(b, "est_start", j->est_start);
	if (j->mem_per_cpu_mb)
		add_int(b, "mem_per_cpu_mb", (int64_t)j->mem_per_cpu_mb);
	add_str(b, "reservation", j->reservation);
	add_str(b, "est_nodes", j->est_nodes);
	if (j->cpu_usec)
		add_int(b, "cpu_usec", (int64_t)j->cpu_usec);
	if (j->mem_peak)
		add_int(b, "mem_peak", (int64_t)j->mem_peak);
	if (j->array_job_id) {
		add_int(b, "array_job_id", j->array_job_id);
		add_int(b, "array_task_id", j->array_task_id);
		add_str(b, "array_tasks", j->array_tasks);
		if (j->array_throttle)
			add_int(b, "array_throttle", j->array_throttle);
	}
	if (j->dependency && j->dependency[0])
		add_str(b, "dependency", j->dependency);
	add_str(b, "tres_per_node", j->tres_per_node);
	add_str(b, "tres_per_task", j->tres_per_task);
	add_str(b, "gpu_idx", j->gpu_idx);
	rota_strbuf_add(b, "}", 1);
}

char *rota_msg_job_list_encode(const struct rota_job_info *jobs, size_t n,
			       int64_t now, size_t *len)
{
	struct rota_strbuf b = { 0 };

	rota_strbuf_add(&b, "{\"now\":", 7);
	rota_strbuf_add_i64(&b, now);
	rota_strbuf_add(&b, ",\"jobs\":[", 9);
	for (size_t i = 0; i < n; i++) {
		if (i)
			rota_strbuf_add(&b, ",", 1);
		encode_job(&b, &jobs[i]);
	}
	rota_strbuf_add(&b, "]}", 2);
	return rota_strbuf_take(&b, len);
}

static void job_info_clear(struct rota_job_info *j)
{
	free(j->name);
	free(j->user);
	free(j->account);
	free(j->queue);
	free(j->nodelist);
	free(j->reason);
	free(j->workdir);
	free(j->output);
	free(j->error);
	free(j->constraint);
	free(j->reservation);
	free(j->est_nodes);
	free(j->array_tasks);
	free(j->dependency);
	free(j->tres_per_node);
	free(j->tres_per_task);
	free(j->gpu_idx);
	*j = (struct rota_job_info){ 0 };
}

struct job_raw {
	json_int_t id, uid, gid, ntasks, cpt, nodes, mem, limit, submit,
		start, end, exit_code, sig, runs, est, mem_per_cpu, cpu, peak,
		array_job, array_task, array_throttle, ntasks_max;
	const char *state, *name, *user, *account, *queue, *nodelist, *reason,
		*workdir, *output, *error, *constraint, *reservation,
		*est_nodes, *array_tasks, *dependency, *tres_per_node,
		*tres_per_task, *gpu_idx;
};

static int job_strings(const struct job_raw *r, struct rota_job_info *j,
		       struct rota_error *err)
{
	const struct msg_str_field s[] = {
		{ "name", r->name, &j->name, ROTA_MSG_NAME_MAX },
		{ "user", r->user, &j->user, ROTA_MSG_NAME_MAX },
		{ "account", r->account, &j->account, ROTA_MSG_NAME_MAX },
		{ "queue", r->queue, &j->queue, ROTA_MSG_NAME_MAX },
		{ "nodelist", r->nodelist, &j->nodelist, ROTA_MSG_PATH_MAX },
		{ "reason", r->reason, &j->reason, 1024 },
		{ "workdir", r->workdir, &j->workdir, ROTA_MSG_PATH_MAX },
		{ "output", r->output, &j->output, ROTA_MSG_PATH_MAX },
		{ "error", r->error, &j->error, ROTA_MSG_PATH_MAX },
		{ "constraint", r->constraint, &j->constraint,
		  ROTA_MSG_NAME_MAX },
		{ "reservation", r->reservation, &j->reservation,
		  ROTA_MSG_NAME_MAX },
		{ "est_nodes", r->est_nodes, &j->est_nodes,
		  ROTA_MSG_PATH_MAX },
		{ "array_tasks", r->array_tasks, &j->array_tasks,
		  ROTA_MSG_PATH_MAX },
		{ "dependency", r->dependency, &j->dependency,
		  ROTA_MSG_DEPEND_MAX },
		{ "tres_per_node", r->tres_per_node, &j->tres_per_node,
		  ROTA_MSG_NAME_MAX },
		{ "tres_per_task", r->tres_per_task, &j->tres_per_task,
		  ROTA_MSG_NAME_MAX },
		{ "gpu_idx", r->gpu_idx, &j->gpu_idx, ROTA_MSG_PATH_MAX },
	};

	return msg_strs(s, sizeof(s) / sizeof(*s), err);
}

static int job_numbers(const struct job_raw *r, struct rota_error *err)
{
	const struct msg_range_field n[] = {
		{ "uid", r->uid, 0, UINT32_MAX },
		{ "gid", r->gid, 0, UINT32_MAX },
		{ "ntasks", r->ntasks, 1, 1 << 20 },
		{ "cpus_per_task", r->cpt, 1, 1 << 16 },
		{ "nodes", r->nodes, 0, UINT32_MAX },
		{ "mem_mb", r->mem, 0, (json_int_t)1 << 40 },
		{ "time_limit", r->limit, 0, (json_int_t)1 << 40 },
		{ "submit", r->submit, 0, INT64_MAX },
		{ "start", r->start, 0, INT64_MAX },
		{ "end", r->end, 0, INT64_MAX },
		{ "runs", r->runs, 0, UINT32_MAX },
		{ "est_start", r->est, 0, INT64_MAX },
		{ "mem_per_cpu_mb", r->mem_per_cpu, 0, (json_int_t)1 << 30 },
		{ "cpu_usec", r->cpu, 0, INT64_MAX },
		{ "mem_peak", r->peak, 0, INT64_MAX },
		{ "array_job_id", r->array_job, 0, UINT32_MAX },
		{ "array_task_id", r->array_task, 0, UINT32_MAX },
		{ "array_throttle", r->array_throttle, 0, UINT32_MAX },
		{ "ntasks_max", r->ntasks_max, 0, 1 << 20 },
	};

	return msg_ranges(n, sizeof(n) / sizeof(*n), err);
}

static int job_decode(json_t *o, struct rota_job_info *j,
		      struct rota_error *err)
{
	struct job_raw r = { 0 };
	enum rota_job_state st = ROTA_JOB_NONE;
	int rc;

	rc = msg_unpack(o, err,
			"{s:I, s:s, s:I, s:I, s?s, s?s, s?s, s?s, s?s, s?s, "
			"s?s, s?s, s?s, s?s, s:I, s:I, s:I, s:I, s:I, s:I, "
			"s:I, s:I, s:I, s:I, s?I, s?I, s?I, s?s, s?s, s?I, "
			"s?I, s?I, s?I, s?s, s?I, s?s, s?I, s?s, s?s, s?s !}",
			"id", &r.id, "state", &r.state, "uid", &r.uid, "gid",
			&r.gid, "name", &r.name, "user", &r.user, "account",
			&r.account, "queue", &r.queue, "nodelist", &r.nodelist,
			"reason", &r.reason, "workdir", &r.workdir, "output",
			&r.output, "error", &r.error, "constraint",
			&r.constraint, "ntasks", &r.ntasks, "cpus_per_task",
			&r.cpt, "nodes", &r.nodes, "mem_mb", &r.mem,
			"time_limit", &r.limit, "submit", &r.submit, "start",
			&r.start, "end", &r.end, "exit_code", &r.exit_code,
			"signal", &r.sig, "runs", &r.runs, "est_start", &r.est,
			"mem_per_cpu_mb", &r.mem_per_cpu, "reservation",
			&r.reservation, "est_nodes", &r.est_nodes, "cpu_usec",
			&r.cpu, "mem_peak", &r.peak, "array_job_id",
			&r.array_job, "array_task_id", &r.array_task,
			"array_tasks", &r.array_tasks, "array_throttle",
			&r.array_throttle, "dependency", &r.dependency,
			"ntasks_max", &r.ntasks_max, "tres_per_node",
			&r.tres_per_node, "tres_per_task", &r.tres_per_task,
			"gpu_idx", &r.gpu_idx);
	if (rc == 0 && rota_job_state_parse(r.state, &st) < 0)
		rc = rota_errorf(err, -EPROTO, "state: '%s' unknown", r.state);
	if (rc == 0)
		rc = msg_range(r.id, 1, UINT32_MAX, "id", err);
	if (rc == 0)
		rc = msg_range(r.exit_code, -1, 255, "exit_code", err);
	if (rc == 0)
		rc = msg_range(r.sig, 0, 128, "signal", err);
	if (rc == 0)
		rc = job_numbers(&r, err);
	if (rc == 0)
		rc = job_strings(&r, j, err);
	if (rc < 0) {
		job_info_clear(j);
		return rc;
	}
	j->id = (uint32_t)r.id;
	j->state = st;
	j->uid = (uint32_t)r.uid;
	j->gid = (uint32_t)r.gid;
	j->ntasks = (uint32_t)r.ntasks;
	j->ntasks_max = (uint32_t)r.ntasks_max;
	j->cpus_per_task = (uint32_t)r.cpt;
	j->nodes = (uint32_t)r.nodes;
	j->mem_mb = (uint64_t)r.mem;
	j->time_limit = r.limit;
	j->submit_time = r.submit;
	j->start_time = r.start;
	j->end_time = r.end;
	j->exit_code = (int)r.exit_code;
	j->term_signal = (int)r.sig;
	j->runs = (uint32_t)r.runs;
	j->est_start = r.est;
	j->mem_per_cpu_mb = (uint64_t)r.mem_per_cpu;
	j->cpu_usec = (uint64_t)r.cpu;
	j->mem_peak = (uint64_t)r.peak;
	j->array_job_id = (uint32_t)r.array_job;
	j->array_task_id = (uint32_t)r.array_task;
	j->array_throttle = (uint32_t)r.array_throttle;
	return 0;
}

int rota_msg_job_list_decode(const char *buf, size_t len,
			     struct rota_msg_job_list *m,
			     struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	json_t *arr = NULL;
	json_int_t now = 0;
	size_t n;
	int rc;

	*m = (struct rota_msg_job_list){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_now_list(root, "jobs", ROTA_MSG_LIST_MAX, &now, &arr, &n,
			  err);
	if (rc == 0) {
		m->jobs = rota_xcalloc(n ? n : 1, sizeof(*m->jobs));
		m->now = now;
	}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		rc = job_decode(json_array_get(arr, i), &m->jobs[i], err);
		if (rc == 0)
			m->njobs++;
	}
	json_decref(root);
	if (rc < 0)
		rota_msg_job_list_clear(m);
	return rc;
}

void rota_msg_job_list_clear(struct rota_msg_job_list *m)
{
	for (size_t i = 0; i < m->njobs; i++)
		job_info_clear(&m->jobs[i]);
	free(m->jobs);
	*m = (struct rota_msg_job_list){ 0 };
}
