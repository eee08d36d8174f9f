// SPDX-License-Identifier: MIT
/*
 * Codecs of job steps: STEP_CREATE and its reply, the step credential,
 * STEP_LAUNCH, STEP_COMPLETE, the small step frames and STEP_IO's raw body.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/msg_internal.h"
#include "common/xalloc.h"

#define CRED_MAX 4096	/* a munge credential's text, generously */

char *rota_msg_step_create_encode(const struct rota_msg_step_create *m,
				  size_t *len)
{
	json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:b}", "job_id",
			      (json_int_t)m->job_id, "ntasks",
			      (json_int_t)m->ntasks, "nnodes",
			      (json_int_t)m->nnodes, "cpus_per_task",
			      (json_int_t)m->cpus_per_task, "ntasks_per_node",
			      (json_int_t)m->ntasks_per_node, "overlap",
			      m->overlap);

	if (m->nodelist)
		json_object_set_new(o, "nodelist", json_string(m->nodelist));
	if (m->name)
		json_object_set_new(o, "name", json_string(m->name));
	return msg_dump(o, len);
}

int rota_msg_step_create_decode(const char *buf, size_t len,
				struct rota_msg_step_create *m,
				struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	json_int_t id = 0, nt = 0, nn = 0, cpt = 0, tpn = 0;
	const char *nodelist = NULL, *name = NULL;
	int overlap = 0, rc;

	*m = (struct rota_msg_step_create){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:I, s:I, s:I, s:I, s:I, s:b, s?s, s?s !}",
			"job_id", &id, "ntasks", &nt, "nnodes", &nn,
			"cpus_per_task", &cpt, "ntasks_per_node", &tpn,
			"overlap", &overlap, "nodelist", &nodelist, "name",
			&name);
	if (rc == 0)
		rc = msg_range(id, 1, UINT32_MAX, "job_id", err);
	if (rc == 0)
		rc = msg_range(nt, 0, ROTA_STEP_TASKS_MAX, "ntasks", err);
	if (rc == 0)
		rc = msg_range(nn, 0, ROTA_STEP_TASKS_MAX, "nnodes", err);
	if (rc == 0)
		rc = msg_range(cpt, 0, 1 << 16, "cpus_per_task", err);
	if (rc == 0)
		rc = msg_range(tpn, 0, 1 << 16, "ntasks_per_node", err);
	if (rc == 0)
		rc = msg_str(nodelist, ROTA_MSG_PATH_MAX, "nodelist",
			     &m->nodelist, err);
	if (rc == 0)
		rc = msg_str(name, ROTA_MSG_NAME_MAX, "name", &m->name, err);
	json_decref(root);
	if (rc < 0) {
		rota_msg_step_create_clear(m);
		return rc;
	}
	m->job_id = (uint32_t)id;
	m->ntasks = (uint32_t)nt;
	m->nnodes = (uint32_t)nn;
	m->cpus_per_task = (uint32_t)cpt;
	m->ntasks_per_node = (uint32_t)tpn;
	m->overlap = overlap;
	return 0;
}

void rota_msg_step_create_clear(struct rota_msg_step_create *m)
{
	free(m->nodelist);
	free(m->name);
	*m = (struct rota_msg_step_create){ 0 };
}

char *rota_msg_step_reply_encode(const struct rota_msg_step_create_reply *m,
				 size_t *len)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < m->nnodes; i++) {
		const struct rota_step_node *n = &m->nodes[i];

		json_array_append_new(
			arr, json_pack("{s:s, s:s, s:I, s:I, s:I, s:s}", "name",
				       n->name, "addr", n->addr, "port",
				       (json_int_t)n->port, "uid",
				       (json_int_t)n->uid, "ntasks",
				       (json_int_t)n->ntasks, "cred",
				       n->cred));
	}
	json_t *o = json_pack("{s:I, s:I, s:I, s:o}", "job_id",
			      (json_int_t)m->job_id, "step_id",
			      (json_int_t)m->step_id, "ntasks",
			      (json_int_t)m->ntasks, "nodes", arr);

	if (m->run)
		json_object_set_new(o, "run", json_integer(m->run));
	return msg_dump(o, len);
}

static int step_node_unpack(json_t *o, struct rota_step_node *n,
			    struct rota_error *err)
{
	const char *name, *addr, *cred;
	json_int_t port, uid, nt;
	int rc = msg_unpack(o, err, "{s:s, s:s, s:I, s:I, s:I, s:s !}", "name",
			    &name, "addr", &addr, "port", &port, "uid", &uid,
			    "ntasks", &nt, "cred", &cred);

	if (rc == 0)
		rc = msg_range(port, 1, 65535, "port", err);
	if (rc == 0)
		rc = msg_range(uid, 0, UINT32_MAX - 1, "uid", err);
	if (rc == 0)
		rc = msg_range(nt, 1, ROTA_STEP_TASKS_MAX, "ntasks", err);
	if (rc == 0)
		rc = msg_str(name, ROTA_MSG_NAME_MAX, "name", &n->name, err);
	if (rc == 0)
		rc = msg_str(addr, 64, "addr", &n->addr, err);
	if (rc == 0)
		rc = msg_str(cred, CRED_MAX, "cred", &n->cred, err);
	if (rc == 0) {
		n->port = (uint32_t)port;
		n->uid = (uint32_t)uid;
		n->ntasks = (uint32_t)nt;
	}
	return rc;
}

int rota_msg_step_reply_decode(const char *buf, size_t len,
			       struct rota_msg_step_create_reply *m,
			       struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err), *arr = NULL;
	json_int_t id = 0, step = 0, nt = 0, run = 0;
	uint64_t sum = 0;
	int rc;

	*m = (struct rota_msg_step_create_reply){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:I, s:I, s:I, s:o, s?I !}", "job_id",
			&id, "step_id", &step, "ntasks", &nt, "nodes", &arr,
			"run", &run);
	if (rc == 0)
		rc = msg_range(run, 0, UINT32_MAX, "run", err);
	if (rc == 0)
		rc = msg_range(id, 1, UINT32_MAX, "job_id", err);
	if (rc == 0)
		rc = msg_range(step, 0, UINT32_MAX, "step_id", err);
	if (rc == 0)
		rc = msg_range(nt, 1, ROTA_STEP_TASKS_MAX, "ntasks", err);
	if (rc == 0 && (!json_is_array(arr) || json_array_size(arr) == 0 ||
			json_array_size(arr) > 65536))
		rc = rota_errorf(err, -EPROTO, "nodes: not a list of 1 to "
					       "65536 nodes");
	if (rc == 0) {
		m->nodes = rota_xcalloc(json_array_size(arr),
					sizeof(*m->nodes));
		for (size_t i = 0; rc == 0 && i < json_array_size(arr); i++) {
			rc = step_node_unpack(json_array_get(arr, i),
					      &m->nodes[i], err);
			m->nnodes = i + 1;
			sum += m->nodes[i].ntasks;
		}
	}
	/* ranks are counted off the nodes': the total must be theirs */
	if (rc == 0 && sum != (uint64_t)nt)
		rc = rota_errorf(err, -EPROTO, "ntasks: %lld, not the nodes' "
					       "%llu",
				 (long long)nt, (unsigned long long)sum);
	json_decref(root);
	if (rc < 0) {
		rota_msg_step_reply_clear(m);
		return rc;
	}
	m->job_id = (uint32_t)id;
	m->step_id = (uint32_t)step;
	m->run = (uint32_t)run;
	m->ntasks = (uint32_t)nt;
	return 0;
}

void rota_msg_step_reply_clear(struct rota_msg_step_create_reply *m)
{
	for (size_t i = 0; i < m->nnodes; i++) {
		free(m->nodes[i].name);
		free(m->nodes[i].addr);
		free(m->nodes[i].cred);
	}
	free(m->nodes);
	*m = (struct rota_msg_step_create_reply){ 0 };
}

char *rota_step_cred_encode(const struct rota_step_cred *c, size_t *len)
{
	json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:s, s:I, s:o, s:o, s:o, "
			  "s:I, s:b, s:I, s:I, s:I}",
			  "job_id", (json_int_t)c->job_id, "run",
			  (json_int_t)c->run, "step_id", (json_int_t)c->step_id,
			  "uid", (json_int_t)c->uid, "gid", (json_int_t)c->gid,
			  "node", c->node, "node_id", (json_int_t)c->node_id,
			  "nodes", msg_strv_pack(c->nodes), "counts",
			  msg_u32v_pack(c->counts, c->nnodes), "cores",
			  msg_u32v_pack(c->cores, c->ncores), "cpus_per_task",
			  (json_int_t)c->cpus_per_task, "overlap", c->overlap,
			  "mem_mb", (json_int_t)c->mem_mb, "end_time",
			  (json_int_t)c->end_time, "expires",
			  (json_int_t)c->expires);

	/* only when there are: a node daemon before them refuses the key */
	if (o && c->ngpus)
		json_object_set_new(o, "gpus", msg_u32v_pack(c->gpus, c->ngpus));
	return msg_dump(o, len);
}

static int cred_layout(struct rota_step_cred *c, struct rota_error *err)
{
	size_t n = 0;
	uint64_t total = 0;

	while (c->nodes[n])
		n++;
	if (n == 0 || n != c->nnodes)
		return rota_errorf(err, -EPROTO,
				   "counts: %zu for %zu nodes", c->nnodes, n);
	if (c->node_id >= n || strcmp(c->nodes[c->node_id], c->node) != 0)
		return rota_errorf(err, -EPROTO,
				   "node_id: not the node '%s'", c->node);
	for (size_t i = 0; i < n; i++) {
		if (c->counts[i] == 0)
			return rota_errorf(err, -EPROTO, "counts: a node with "
							 "no task");
		total += c->counts[i];
	}
	if (total > ROTA_STEP_TASKS_MAX)
		return rota_errorf(err, -EPROTO, "counts: too many tasks");
	if (c->cpus_per_task == 0 ||
	    (!c->overlap && (uint64_t)c->counts[c->node_id] *
					    c->cpus_per_task > c->ncores) ||
	    c->ncores == 0)
		return rota_errorf(err, -EPROTO,
				   "cores: %zu for %u tasks of %u cpus",
				   c->ncores, c->counts[c->node_id],
				   c->cpus_per_task);
	return 0;
}

int rota_step_cred_decode(const char *buf, size_t len,
			  struct rota_step_cred *c, struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err), *nodes, *counts, *cores;
	json_t *gpus = NULL;
	json_int_t id, run, step, uid, gid, nid, cpt, mem, end, expires = 0;
	const char *node;
	int overlap, rc;
	size_t ncounts = 0;

	*c = (struct rota_step_cred){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err,
			"{s:I, s:I, s:I, s:I, s:I, s:s, s:I, s:o, s:o, s:o, "
			"s:I, s:b, s:I, s:I, s?I, s?o !}",
			"job_id", &id, "run", &run, "step_id", &step, "uid",
			&uid, "gid", &gid, "node", &node, "node_id", &nid,
			"nodes", &nodes, "counts", &counts, "cores", &cores,
			"cpus_per_task", &cpt, "overlap", &overlap, "mem_mb",
			&mem, "end_time", &end, "expires", &expires, "gpus",
			&gpus);
	if (rc == 0) {
		const struct msg_range_field r[] = {
			{ "job_id", id, 1, UINT32_MAX },
			{ "run", run, 1, UINT32_MAX },
			{ "step_id", step, 0, UINT32_MAX },
			{ "uid", uid, 0, UINT32_MAX - 1 },
			{ "gid", gid, 0, UINT32_MAX - 1 },
			{ "node_id", nid, 0, 65535 },
			{ "cpus_per_task", cpt, 1, 1 << 16 },
			{ "mem_mb", mem, 0, (json_int_t)1 << 40 },
			{ "end_time", end, 0, (json_int_t)1 << 40 },
			{ "expires", expires, 0, (json_int_t)1 << 40 },
		};

		rc = msg_ranges(r, sizeof(r) / sizeof(r[0]), err);
	}
	if (rc == 0)
		rc = msg_str(node, ROTA_MSG_NAME_MAX, "node", &c->node, err);
	if (rc == 0)
		rc = msg_strv(nodes, 65536, ROTA_MSG_NAME_MAX, "nodes",
			      &c->nodes, err);
	if (rc == 0)
		rc = msg_u32v(counts, 65536, "counts", &c->counts, &ncounts,
			      err);
	if (rc == 0)
		rc = msg_u32v(cores, 1 << 20, "cores", &c->cores, &c->ncores,
			      err);
	if (rc == 0 && gpus)
		rc = msg_gpus(gpus, &c->gpus, &c->ngpus, err);
	json_decref(root);
	if (rc == 0) {
		c->job_id = (uint32_t)id;
		c->run = (uint32_t)run;
		c->step_id = (uint32_t)step;
		c->uid = (uint32_t)uid;
		c->gid = (uint32_t)gid;
		c->node_id = (uint32_t)nid;
		c->nnodes = ncounts;
		c->cpus_per_task = (uint32_t)cpt;
		c->overlap = overlap;
		c->mem_mb = (uint64_t)mem;
		c->end_time = end;
		c->expires = expires;
		rc = cred_layout(c, err);
	}
	if (rc < 0)
		rota_step_cred_clear(c);
	return rc;
}

void rota_step_cred_clear(struct rota_step_cred *c)
{
	free(c->node);
	msg_strv_free(c->nodes);
	free(c->counts);
	free(c->cores);
	free(c->gpus);
	*c = (struct rota_step_cred){ 0 };
}

char *rota_msg_step_launch_encode(const struct rota_msg_step_launch *m,
				  size_t *len)
{
	return msg_dump(json_pack("{s:s, s:o, s:o, s:s, s:s, s:b, s:I, s:I}",
				  "cred", m->cred, "argv",
				  msg_strv_pack(m->argv), "env",
				  msg_strv_pack(m->env), "cwd", m->cwd, "mpi",
				  m->mpi, "pty", m->pty, "rows",
				  (json_int_t)m->rows, "cols",
				  (json_int_t)m->cols),
			len);
}

int rota_msg_step_launch_decode(const char *buf, size_t len,
				struct rota_msg_step_launch *m,
				struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err), *argv, *env;
	const char *cred, *cwd, *mpi;
	json_int_t rows, cols;
	int pty, rc;

	*m = (struct rota_msg_step_launch){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:s, s:o, s:o, s:s, s:s, s:b, s:I, s:I !}",
			"cred", &cred, "argv", &argv, "env", &env, "cwd", &cwd,
			"mpi", &mpi, "pty", &pty, "rows", &rows, "cols", &cols);
	if (rc == 0)
		rc = msg_range(rows, 0, 65535, "rows", err);
	if (rc == 0)
		rc = msg_range(cols, 0, 65535, "cols", err);
	if (rc == 0 && cwd[0] != '/')
		rc = rota_errorf(err, -EPROTO, "cwd: not absolute");
	if (rc == 0 && strcmp(mpi, "none") != 0 && strcmp(mpi, "pmi2") != 0 &&
	    strcmp(mpi, "pmix") != 0)
		rc = rota_errorf(err, -EPROTO, "mpi: '%.32s' is none of none, "
					       "pmi2, pmix", mpi);
	if (rc == 0)
		rc = msg_str(cred, CRED_MAX, "cred", &m->cred, err);
	if (rc == 0)
		rc = msg_str(cwd, ROTA_MSG_PATH_MAX, "cwd", &m->cwd, err);
	if (rc == 0)
		rc = msg_str(mpi, 8, "mpi", &m->mpi, err);
	if (rc == 0)
		rc = msg_strv(argv, 4096, 1 << 17, "argv", &m->argv, err);
	if (rc == 0 && !m->argv[0])
		rc = rota_errorf(err, -EPROTO, "argv: empty");
	if (rc == 0)
		rc = msg_strv(env, ROTA_MSG_ENV_MAX + 64, 1 << 17, "env",
			      &m->env, err);
	json_decref(root);
	if (rc < 0) {
		rota_msg_step_launch_clear(m);
		return rc;
	}
	m->pty = pty;
	m->rows = (uint32_t)rows;
	m->cols = (uint32_t)cols;
	return 0;
}

void rota_msg_step_launch_clear(struct rota_msg_step_launch *m)
{
	free(m->cred);
	msg_strv_free(m->argv);
	msg_strv_free(m->env);
	free(m->cwd);
	free(m->mpi);
	*m = (struct rota_msg_step_launch){ 0 };
}

char *rota_msg_step_complete_encode(const struct rota_msg_step_complete *m,
				    size_t *len)
{
	json_t *o = json_pack("{s:I, s:I, s:i, s:i, s:I}", "job_id",
			      (json_int_t)m->job_id, "step_id",
			      (json_int_t)m->step_id, "exit_code",
			      m->exit_code, "failed_rank", m->failed_rank,
			      "cpu_usec", (json_int_t)m->cpu_usec);

	if (m->text)
		json_object_set_new(o, "text", json_string(m->text));
	if (m->end_job)
		json_object_set_new(o, "end_job", json_true());
	if (m->run)
		json_object_set_new(o, "run", json_integer(m->run));
	return msg_dump(o, len);
}

int rota_msg_step_complete_decode(const char *buf, size_t len,
				  struct rota_msg_step_complete *m,
				  struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	json_int_t id, step, code, rank, cpu, run = 0;
	const char *text = NULL;
	int end_job = 0, rc;

	*m = (struct rota_msg_step_complete){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err,
			"{s:I, s:I, s:I, s:I, s:I, s?s, s?b, s?I !}", "job_id",
			&id, "step_id", &step, "exit_code", &code,
			"failed_rank", &rank, "cpu_usec", &cpu, "text", &text,
			"end_job", &end_job, "run", &run);
	if (rc == 0) {
		const struct msg_range_field r[] = {
			{ "run", run, 0, UINT32_MAX },
			{ "job_id", id, 1, UINT32_MAX },
			{ "step_id", step, 0, UINT32_MAX },
			{ "exit_code", code, 0, 255 },
			{ "failed_rank", rank, -1, ROTA_STEP_TASKS_MAX },
			{ "cpu_usec", cpu, 0, INT64_MAX },
		};

		rc = msg_ranges(r, sizeof(r) / sizeof(r[0]), err);
	}
	if (rc == 0)
		rc = msg_str(text, 1024, "text", &m->text, err);
	json_decref(root);
	if (rc < 0) {
		rota_msg_step_complete_clear(m);
		return rc;
	}
	m->job_id = (uint32_t)id;
	m->step_id = (uint32_t)step;
	m->exit_code = (int)code;
	m->failed_rank = (int32_t)rank;
	m->cpu_usec = (uint64_t)cpu;
	m->end_job = end_job;
	m->run = (uint32_t)run;
	return 0;
}

void rota_msg_step_complete_clear(struct rota_msg_step_complete *m)
{
	free(m->text);
	*m = (struct rota_msg_step_complete){ 0 };
}

char *rota_msg_ints_encode(const char *const *keys, const int64_t *v,
			   size_t n, size_t *len)
{
	json_t *o = json_object();

	for (size_t i = 0; i < n; i++)
		json_object_set_new(o, keys[i], json_integer(v[i]));
	return msg_dump(o, len);
}

int rota_msg_ints_decode(const char *buf, size_t len,
			 const char *const *keys, const int64_t *max,
			 int64_t *v, size_t n, struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		v[i] = 0; /* on every path, as rota_step_io_decode's */
	if (!root)
		return -EPROTO;
	if (json_object_size(root) != n)
		rc = rota_errorf(err, -EPROTO, "%zu keys, not %zu",
				 json_object_size(root), n);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		json_t *x = json_object_get(root, keys[i]);

		if (!json_is_integer(x))
			rc = rota_errorf(err, -EPROTO, "%s: not an integer",
					 keys[i]);
		else
			rc = msg_range(json_integer_value(x), 0, max[i],
				       keys[i], err);
		if (rc == 0)
			v[i] = json_integer_value(x);
	}
	json_decref(root);
	return rc;
}

char *rota_step_io_encode(uint32_t rank, unsigned fd, const void *data,
			  size_t n, size_t *len)
{
	char head[32];
	int h = snprintf(head, sizeof(head), "%" PRIu32 " %u\n", rank, fd);
	char *buf = rota_xmalloc((size_t)h + n + 1);

	memcpy(buf, head, (size_t)h);
	if (n)
		memcpy(buf + h, data, n);
	buf[(size_t)h + n] = '\0';
	*len = (size_t)h + n;
	return buf;
}

int rota_step_io_decode(const char *buf, size_t len, uint32_t *rank,
			unsigned *fd, const char **data, size_t *n,
			struct rota_error *err)
{
	/* an empty frame may come with no buffer at all */
	const char *nl = len ? memchr(buf, '\n', len < 24 ? len : 24) : NULL;
	unsigned long r = 0, f = 0;
	const char *p = buf;
	bool digits = false;

	/* set on every path: callers read none of them after a failure, but
	   the compiler cannot tell */
	*rank = 0;
	*fd = 0;
	*data = NULL;
	*n = 0;
	if (!nl)
		return rota_errorf(err, -EPROTO, "STEP_IO: no header line");
	/* capped as they are read: twenty digits must not wrap to a rank */
	for (; p < nl && *p >= '0' && *p <= '9'; p++, digits = true)
		if (r <= ROTA_STEP_TASKS_MAX)
			r = r * 10 + (unsigned long)(*p - '0');
	if (!digits || p == nl || *p != ' ' || r > ROTA_STEP_TASKS_MAX)
		return rota_errorf(err, -EPROTO, "STEP_IO: bad rank");
	digits = false;
	for (p++; p < nl && *p >= '0' && *p <= '9'; p++, digits = true)
		if (f <= 2)
			f = f * 10 + (unsigned long)(*p - '0');
	if (!digits || p != nl || f > 2)
		return rota_errorf(err, -EPROTO, "STEP_IO: bad stream");
	*rank = (uint32_t)r;
	*fd = (unsigned)f;
	*data = nl + 1;
	*n = len - (size_t)(nl + 1 - buf);
	return 0;
}

char *rota_msg_step_list_encode(const struct rota_step_info *s, size_t n,
				int64_t now, size_t *len)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(
			arr,
			json_pack("{s:I, s:I, s:s, s:s, s:I, s:s, s:s, s:i, "
				  "s:i, s:I, s:I, s:I}",
				  "job_id", (json_int_t)s[i].job_id, "step_id",
				  (json_int_t)s[i].step_id, "name", s[i].name,
				  "user", s[i].user, "ntasks",
				  (json_int_t)s[i].ntasks, "nodelist",
				  s[i].nodelist, "state",
				  rota_job_state_name(s[i].state), "exit_code",
				  s[i].exit_code, "failed_rank",
				  (int)s[i].failed_rank, "cpu_usec",
				  (json_int_t)s[i].cpu_usec, "start",
				  (json_int_t)s[i].start, "end",
				  (json_int_t)s[i].end));
	return msg_dump(json_pack("{s:I, s:o}", "now", (json_int_t)now,
				  "steps", arr),
			len);
}

static int step_info_unpack(json_t *o, struct rota_step_info *s,
			    struct rota_error *err)
{
	json_int_t id, step, nt, code, rank, cpu, start, end;
	const char *name, *user, *nodes, *state;
	int rc = msg_unpack(o, err,
			    "{s:I, s:I, s:s, s:s, s:I, s:s, s:s, s:I, s:I, "
			    "s:I, s:I, s:I !}",
			    "job_id", &id, "step_id", &step, "name", &name,
			    "user", &user, "ntasks", &nt, "nodelist", &nodes,
			    "state", &state, "exit_code", &code,
			    "failed_rank", &rank, "cpu_usec", &cpu, "start",
			    &start, "end", &end);

	if (rc == 0) {
		const struct msg_range_field r[] = {
			{ "job_id", id, 1, UINT32_MAX },
			{ "step_id", step, 0, UINT32_MAX },
			{ "ntasks", nt, 0, ROTA_STEP_TASKS_MAX },
			{ "exit_code", code, 0, 255 },
			{ "failed_rank", rank, -1, ROTA_STEP_TASKS_MAX },
			{ "cpu_usec", cpu, 0, INT64_MAX },
			{ "start", start, 0, (json_int_t)1 << 40 },
			{ "end", end, 0, (json_int_t)1 << 40 },
		};

		rc = msg_ranges(r, sizeof(r) / sizeof(r[0]), err);
	}
	if (rc == 0 && rota_job_state_parse(state, &s->state) < 0)
		rc = rota_errorf(err, -EPROTO, "state: '%.32s'", state);
	if (rc == 0)
		rc = msg_str(name, ROTA_MSG_NAME_MAX, "name", &s->name, err);
	if (rc == 0)
		rc = msg_str(user, ROTA_MSG_NAME_MAX, "user", &s->user, err);
	if (rc == 0)
		rc = msg_str(nodes, ROTA_MSG_PATH_MAX, "nodelist",
			     &s->nodelist, err);
	if (rc == 0) {
		s->job_id = (uint32_t)id;
		s->step_id = (uint32_t)step;
		s->ntasks = (uint32_t)nt;
		s->exit_code = (int)code;
		s->failed_rank = (int32_t)rank;
		s->cpu_usec = (uint64_t)cpu;
		s->start = start;
		s->end = end;
	}
	return rc;
}

int rota_msg_step_list_decode(const char *buf, size_t len,
			      struct rota_msg_step_list *m,
			      struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err), *arr = NULL;
	json_int_t now = 0;
	size_t n = 0;
	int rc;

	*m = (struct rota_msg_step_list){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_now_list(root, "steps", 1 << 22, &now, &arr, &n, err);
	if (rc == 0) {
		m->steps = rota_xcalloc(n ? n : 1, sizeof(*m->steps));
		for (size_t i = 0; rc == 0 && i < n; i++) {
			rc = step_info_unpack(json_array_get(arr, i),
					      &m->steps[i], err);
			m->n = i + 1;
		}
	}
	json_decref(root);
	if (rc < 0) {
		rota_msg_step_list_clear(m);
		return rc;
	}
	m->now = now;
	return 0;
}

void rota_msg_step_list_clear(struct rota_msg_step_list *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->steps[i].name);
		free(m->steps[i].user);
		free(m->steps[i].nodelist);
	}
	free(m->steps);
	*m = (struct rota_msg_step_list){ 0 };
}
