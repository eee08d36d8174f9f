// SPDX-License-Identifier: MIT
/* Codecs of the node messages: NODE_REGISTER, NODE_LIST, HEARTBEAT. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/msg_internal.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

static json_t *gpus_pack(const struct rota_gpu_info *g, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++) {
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:I}", "type",
				      g[i].type, "model", g[i].model, "busid",
				      g[i].busid, "cores", g[i].cores, "numa",
				      (json_int_t)g[i].numa);

		if (g[i].job)
			json_object_set_new(o, "job", json_integer(g[i].job));
		json_array_append_new(a, o);
	}
	return a;
}

static int gpu_unpack(json_t *o, struct rota_gpu_info *g,
		      struct rota_error *err)
{
	const char *type, *model, *busid, *cores;
	json_int_t numa, job = 0;
	int rc = msg_unpack(o, err, "{s:s, s:s, s:s, s:s, s:I, s?I !}",
			    "type", &type, "model", &model, "busid", &busid,
			    "cores", &cores, "numa", &numa, "job", &job);

	if (rc == 0)
		rc = msg_range(numa, 0, 1 << 16, "gpus: numa", err);
	if (rc == 0)
		rc = msg_range(job, 0, UINT32_MAX, "gpus: job", err);
	if (rc == 0)
		rc = msg_str(type, 31, "gpus: type", &g->type, err);
	if (rc == 0)
		rc = msg_str(model, 95, "gpus: model", &g->model, err);
	if (rc == 0)
		rc = msg_str(busid, 15, "gpus: busid", &g->busid, err);
	if (rc == 0)
		rc = msg_str(cores, 4096, "gpus: cores", &g->cores, err);
	g->numa = (uint32_t)numa;
	g->job = (uint32_t)job;
	return rc;
}

static void gpus_free(struct rota_gpu_info *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(g[i].type);
		free(g[i].model);
		free(g[i].busid);
		free(g[i].cores);
	}
	free(g);
}

static int gpus_unpack(json_t *a, struct rota_node_info *n,
		       struct rota_error *err)
{
	size_t k = json_array_size(a);

	if (!json_is_array(a) || k > ROTA_MSG_GPUS_MAX)
		return rota_errorf(err, -EPROTO,
				   "gpus: not a list of at most %d",
				   ROTA_MSG_GPUS_MAX);
	n->gpus = rota_xcalloc(k + 1, sizeof(*n->gpus));
	n->ngpus = k;
	for (size_t i = 0; i < k; i++)
		if (gpu_unpack(json_array_get(a, i), &n->gpus[i], err) < 0)
			return -EPROTO;
	return 0;
}

static json_t *node_pack(const struct rota_node_info *n)
{
	json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o}",
			      "name", n->name, "sockets",
			      (json_int_t)n->sockets, "cores",
			      (json_int_t)n->cores, "pus", (json_int_t)n->pus,
			      "cores_used", (json_int_t)n->cores_used,
			      "memory_mb", (json_int_t)n->memory_mb,
			      "memory_used_mb", (json_int_t)n->memory_used_mb,
			      "features", msg_strv_pack(n->features), "jobs",
			      msg_u32v_pack(n->jobs, n->njobs));

	if (n->state)
		json_object_set_new(o, "state", json_string(n->state));
	if (n->reason)
		json_object_set_new(o, "reason", json_string(n->reason));
	if (n->addr)
		json_object_set_new(o, "addr", json_string(n->addr));
	if (n->runs)
		json_object_set_new(o, "runs", msg_u32v_pack(n->runs, n->njobs));
	if (n->step_port) {
		json_object_set_new(o, "step_port", json_integer(n->step_port));
		json_object_set_new(o, "step_uid", json_integer(n->step_uid));
	}
	if (n->ngpus)
		json_object_set_new(o, "gpus", gpus_pack(n->gpus, n->ngpus));
	if (n->gres && n->gres[0])
		json_object_set_new(o, "gres", json_string(n->gres));
	if (n->gres_used && n->gres_used[0])
		json_object_set_new(o, "gres_used", json_string(n->gres_used));
	if (n->cores_kept) {
		json_object_set_new(o, "cores_kept",
				    json_integer(n->cores_kept));
		json_object_set_new(o, "cores_kept_used",
				    json_integer(n->cores_kept_used));
	}
	return o;
}

static int node_unpack(json_t *o, struct rota_node_info *n,
		       struct rota_error *err)
{
	const char *name = NULL, *state = NULL, *reason = NULL, *addr = NULL;
	const char *gres = NULL, *gres_used = NULL;
	json_int_t sockets, cores, pus, used, mem, mem_used, kept = 0;
	json_int_t kept_used = 0, step_port = 0, step_uid = 0;
	json_t *features = NULL, *jobs = NULL, *runs = NULL, *gpus = NULL;
	size_t nruns = 0;
	int rc;

	*n = (struct rota_node_info){ 0 };
	rc = msg_unpack(o, err,
			"{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s?s, "
			"s?s, s?s, s?o, s?I, s?I, s?I, s?I, s?o, s?s, s?s !}",
			"name", &name, "sockets", &sockets, "cores", &cores,
			"pus", &pus, "cores_used", &used, "memory_mb", &mem,
			"memory_used_mb", &mem_used, "features", &features,
			"jobs", &jobs, "state", &state, "reason", &reason,
			"addr", &addr, "runs", &runs, "cores_kept", &kept,
			"cores_kept_used", &kept_used, "step_port", &step_port,
			"step_uid", &step_uid, "gpus", &gpus, "gres", &gres,
			"gres_used", &gres_used);
	if (rc == 0)
		rc = msg_range(cores, 1, 1 << 20, "cores", err);
	if (rc == 0)
		rc = msg_range(sockets, 1, 1 << 20, "sockets", err);
	if (rc == 0)
		rc = msg_range(pus, 1, 1 << 22, "pus", err);
	if (rc == 0)
		rc = msg_range(used, 0, cores, "cores_used", err);
	if (rc == 0)
		rc = msg_range(kept, 0, cores, "cores_kept", err);
	if (rc == 0)
		rc = msg_range(kept_used, 0, kept, "cores_kept_used", err);
	if (rc == 0)
		rc = msg_range(step_port, 0, 65535, "step_port", err);
	if (rc == 0)
		rc = msg_range(step_uid, 0, UINT32_MAX - 1, "step_uid", err);
	if (rc == 0)
		rc = msg_range(mem, 0, (json_int_t)1 << 40, "memory_mb", err);
	if (rc == 0)
		rc = msg_range(mem_used, 0, (json_int_t)1 << 40,
			       "memory_used_mb", err);
	if (rc == 0)
		rc = msg_str(name, ROTA_MSG_NAME_MAX, "name", &n->name, err);
	if (rc == 0)
		rc = msg_str(state, 32, "state", &n->state, err);
	if (rc == 0)
		rc = msg_str(reason, 1024, "reason", &n->reason, err);
	if (rc == 0)
		rc = msg_str(addr, 64, "addr", &n->addr, err);
	if (rc == 0)
		rc = msg_strv(features, 256, 64, "features", &n->features, err);
	if (rc == 0)
		rc = msg_u32v(jobs, 1 << 20, "jobs", &n->jobs, &n->njobs, err);
	if (rc == 0 && runs)
		rc = msg_u32v(runs, 1 << 20, "runs", &n->runs, &nruns, err);
	if (rc == 0 && runs && nruns != n->njobs)
		rc = rota_errorf(err, -EPROTO, "runs: %zu for %zu jobs", nruns,
				 n->njobs);
	if (rc == 0 && gpus)
		rc = gpus_unpack(gpus, n, err);
	if (rc == 0 && gres && gres[0])
		rc = msg_str(gres, 1024, "gres", &n->gres, err);
	if (rc == 0)
		rc = msg_str(gres_used, 1024, "gres_used", &n->gres_used, err);
	if (rc < 0) {
		rota_node_info_clear(n);
		return rc;
	}
	n->sockets = (uint32_t)sockets;
	n->cores = (uint32_t)cores;
	n->pus = (uint32_t)pus;
	n->cores_used = (uint32_t)used;
	n->cores_kept = (uint32_t)kept;
	n->cores_kept_used = (uint32_t)kept_used;
	n->step_port = (uint32_t)step_port;
	n->step_uid = (uint32_t)step_uid;
	n->memory_mb = (uint64_t)mem;
	n->memory_used_mb = (uint64_t)mem_used;
	return 0;
}

char *rota_msg_node_encode(const struct rota_node_info *n, size_t *len)
{
	return msg_dump(node_pack(n), len);
}

int rota_msg_node_decode(const char *buf, size_t len, struct rota_node_info *n,
			 struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	int rc;

	*n = (struct rota_node_info){ 0 };
	if (!root)
		return -EPROTO;
	rc = node_unpack(root, n, err);
	json_decref(root);
	return rc;
}

void rota_node_info_clear(struct rota_node_info *n)
{
	free(n->name);
	free(n->state);
	free(n->reason);
	free(n->addr);
	msg_strv_free(n->features);
	free(n->jobs);
	free(n->runs);
	gpus_free(n->gpus, n->ngpus);
	free(n->gres);
	free(n->gres_used);
	*n = (struct rota_node_info){ 0 };
}

char *rota_msg_node_list_encode(const struct rota_node_info *nodes, size_t n,
				size_t *len)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, node_pack(&nodes[i]));
	return msg_dump(json_pack("{s:o}", "nodes", arr), len);
}

int rota_msg_node_list_decode(const char *buf, size_t len,
			      struct rota_msg_node_list *m,
			      struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	json_t *arr = NULL;
	size_t n = 0;
	int rc;

	*m = (struct rota_msg_node_list){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:o !}", "nodes", &arr);
	if (rc == 0 && !json_is_array(arr))
		rc = rota_errorf(err, -EPROTO, "nodes: not an array");
	if (rc == 0)
		n = json_array_size(arr);
	if (rc == 0 && n > 65536)
		rc = rota_errorf(err, -EPROTO, "nodes: too many");
	if (rc == 0)
		m->nodes = rota_xcalloc(n ? n : 1, sizeof(*m->nodes));
	for (size_t i = 0; rc == 0 && i < n; i++) {
		rc = node_unpack(json_array_get(arr, i), &m->nodes[i], err);
		if (rc == 0)
			m->n++;
	}
	json_decref(root);
	if (rc < 0)
		rota_msg_node_list_clear(m);
	return rc;
}

void rota_msg_node_list_clear(struct rota_msg_node_list *m)
{
	for (size_t i = 0; i < m->n; i++)
		rota_node_info_clear(&m->nodes[i]);
	free(m->nodes);
	*m = (struct rota_msg_node_list){ 0 };
}

char *rota_msg_lease_encode(int64_t lease, size_t *len)
{
	return msg_dump(json_pack("{s:I}", "lease", (json_int_t)lease), len);
}

int rota_msg_lease_decode(const char *buf, size_t len, int64_t *lease,
			  struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	json_int_t v = 0;
	int rc;

	*lease = 0;
	if (!root)
		return -EPROTO;
	/*
	 * Not strict, unlike every other decoder: a key a newer controller
	 * adds here must not stop the renewals, and with them every job.
	 */
	rc = msg_unpack(root, err, "{s?I}", "lease", &v);
	json_decref(root);
	if (rc == 0 && (v < 0 || v > 7 * 86400))
		rc = rota_errorf(err, -EPROTO, "lease: %lld is out of range",
				 (long long)v);
	if (rc == 0)
		*lease = (int64_t)v;
	return rc;
}

char *rota_msg_heartbeat_encode(const char *name, uint64_t steps_refused,
				size_t *len)
{
	json_t *o = json_pack("{s:s}", "name", name);

	if (steps_refused)
		json_object_set_new(o, "steps_refused",
				    json_integer((json_int_t)steps_refused));
	return msg_dump(o, len);
}

int rota_msg_heartbeat_decode(const char *buf, size_t len, char **name,
			      uint64_t *steps_refused, struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	const char *s = NULL;
	json_int_t refused = 0;
	int rc;

	*name = NULL;
	*steps_refused = 0;
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:s, s?I !}", "name", &s,
			"steps_refused", &refused);
	if (rc == 0)
		rc = msg_range(refused, 0, INT64_MAX, "steps_refused", err);
	if (rc == 0)
		rc = msg_str(s, ROTA_MSG_NAME_MAX, "name", name, err);
	json_decref(root);
	if (rc == 0)
		*steps_refused = (uint64_t)refused;
	return rc;
}

char *rota_msg_job_usage_encode(const struct rota_msg_job_usage *m,
				size_t *len)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < m->njobs; i++) {
		const struct rota_job_sample *j = &m->jobs[i];

		json_array_append_new(arr,
				      json_pack("[I, I, I, I, I]",
						(json_int_t)j->job_id,
						(json_int_t)j->run,
						(json_int_t)j->cpu_usec,
						(json_int_t)j->mem_bytes,
						(json_int_t)j->io_bytes));
	}
	return msg_dump(json_pack("{s:o}", "jobs", arr), len);
}

static int job_sample_decode(json_t *v, struct rota_job_sample *j,
			     struct rota_error *err)
{
	json_int_t f[5] = { 0 };
	static const char *const names[] = { "job id", "run", "cpu_usec",
					     "mem_bytes", "io_bytes" };
	static const json_int_t max[] = { UINT32_MAX, UINT32_MAX, INT64_MAX,
					  INT64_MAX, INT64_MAX };
	int rc = msg_unpack(v, err, "[I, I, I, I, I !]", &f[0], &f[1], &f[2],
			    &f[3], &f[4]);

	for (int i = 0; i < 5 && rc == 0; i++)
		rc = msg_range(f[i], i == 0 ? 1 : 0, max[i], names[i], err);
	if (rc == 0)
		*j = (struct rota_job_sample){
			.job_id = (uint32_t)f[0],
			.run = (uint32_t)f[1],
			.cpu_usec = (uint64_t)f[2],
			.mem_bytes = (uint64_t)f[3],
			.io_bytes = (uint64_t)f[4],
		};
	return rc;
}

int rota_msg_job_usage_decode(const char *buf, size_t len,
			      struct rota_msg_job_usage *m,
			      struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	json_t *arr = NULL;
	size_t n;
	int rc;

	*m = (struct rota_msg_job_usage){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:o !}", "jobs", &arr);
	if (rc == 0 && !json_is_array(arr))
		rc = rota_errorf(err, -EPROTO, "jobs: not an array");
	n = rc == 0 ? json_array_size(arr) : 0;
	if (rc == 0 && n > ROTA_MSG_JOB_USAGE_MAX)
		rc = rota_errorf(err, -EPROTO, "jobs: %zu, more than %d", n,
				 ROTA_MSG_JOB_USAGE_MAX);
	if (rc == 0 && n)
		m->jobs = rota_xcalloc(n, sizeof(*m->jobs));
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = job_sample_decode(json_array_get(arr, i), &m->jobs[i],
				       err);
	json_decref(root);
	if (rc < 0)
		rota_msg_job_usage_clear(m);
	else
		m->njobs = n;
	return rc;
}

void rota_msg_job_usage_clear(struct rota_msg_job_usage *m)
{
	free(m->jobs);
	*m = (struct rota_msg_job_usage){ 0 };
}

char *rota_msg_name_encode(const char *name, size_t *len)
{
	return msg_dump(json_pack("{s:s}", "name", name), len);
}

int rota_msg_name_decode(const char *buf, size_t len, char **name,
			 struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	const char *s = NULL;
	int rc;

	*name = NULL;
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:s !}", "name", &s);
	if (rc == 0)
		rc = msg_str(s, ROTA_MSG_NAME_MAX, "name", name, err);
	json_decref(root);
	return rc;
}

char *rota_msg_node_admin_encode(const struct rota_msg_node_admin *m,
				 size_t *len)
{
	json_t *o = json_pack("{s:s, s:s}", "name", m->name, "action",
			      m->action);

	if (m->reason)
		json_object_set_new(o, "reason", json_string(m->reason));
	return msg_dump(o, len);
}

int rota_msg_node_admin_decode(const char *buf, size_t len,
			       struct rota_msg_node_admin *m,
			       struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	const char *name = NULL, *action = NULL, *reason = NULL;
	int rc;

	*m = (struct rota_msg_node_admin){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:s, s:s, s?s !}", "name", &name,
			"action", &action, "reason", &reason);
	if (rc == 0 && strcmp(action, "drain") != 0 &&
	    strcmp(action, "resume") != 0 && strcmp(action, "down") != 0)
		rc = rota_errorf(err, -EPROTO, "action: '%s' unknown", action);
	if (rc == 0)
		rc = msg_str(name, ROTA_MSG_NAME_MAX, "name", &m->name, err);
	if (rc == 0)
		rc = msg_str(action, 16, "action", &m->action, err);
	if (rc == 0)
		rc = msg_str(reason, 128, "reason", &m->reason, err);
	json_decref(root);
	if (rc < 0)
		rota_msg_node_admin_clear(m);
	return rc;
}

void rota_msg_node_admin_clear(struct rota_msg_node_admin *m)
{
	free(m->name);
	free(m->action);
	free(m->reason);
	*m = (struct rota_msg_node_admin){ 0 };
}

char *rota_node_gres_text(const struct rota_node_info *n, bool used)
{
	struct rota_strbuf b = { 0 };
	size_t len;
	char *t;

	for (size_t i = 0; i < n->ngpus; i++) {
		const char *type = n->gpus[i].type;
		uint32_t count = 0;
		bool seen = false;

		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(n->gpus[k].type, type);
		if (seen)
			continue; /* counted with the first of its type */
		for (size_t k = i; k < n->ngpus; k++)
			count += !strcmp(n->gpus[k].type, type) &&
				 (!used || n->gpus[k].job);
		if (count)
			rota_strbuf_addf(&b, "%sgpu%s%s:%u", b.len ? "," : "",
					 type[0] ? ":" : "", type, count);
	}
	if (!used && n->gres && n->gres[0])
		rota_strbuf_addf(&b, "%s%s", b.len ? "," : "", n->gres);
	if (used && n->gres_used && n->gres_used[0])
		rota_strbuf_addf(&b, "%s%s", b.len ? "," : "", n->gres_used);
	t = rota_strbuf_take(&b, &len);
	return t ? t : rota_xstrdup("");
}
