// SPDX-License-Identifier: MIT
/* Codecs between the controller and node daemons: LAUNCH, SIGNAL_JOB, JOB_END. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/msg_internal.h"
#include "common/xalloc.h"

char *rota_msg_launch_encode(const struct rota_msg_launch *m, size_t *len)
{
	json_t *o = json_pack(
		"{s:I, s:I, s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o, "
		"s:I, s:I}",
		"job_id", (json_int_t)m->job_id, "run", (json_int_t)m->run,
		"uid", (json_int_t)m->uid,
		"gid", (json_int_t)m->gid, "name", m->name, "script",
		m->script, "workdir", m->workdir, "output", m->output, "queue",
		m->queue, "nodelist", m->nodelist, "env",
		msg_strv_pack(m->env), "cores",
		msg_u32v_pack(m->cores, m->ncores), "ntasks",
		(json_int_t)m->ntasks, "time_limit",
		(json_int_t)m->time_limit);

	if (m->error)
		json_object_set_new(o, "error", json_string(m->error));
	if (m->mem_mb)
		json_object_set_new(o, "mem_mb",
				    json_integer((json_int_t)m->mem_mb));
	if (m->ngpus)
		json_object_set_new(o, "gpus", msg_u32v_pack(m->gpus, m->ngpus));
	return msg_dump(o, len);
}

struct launch_raw {
	json_int_t id, run, uid, gid, ntasks, limit, mem;
	const char *name, *script, *workdir, *output, *error, *queue,
		*nodelist;
	json_t *env, *cores, *gpus;
};

static int launch_fill(const struct launch_raw *r, struct rota_msg_launch *m,
		       struct rota_error *err)
{
	int rc = msg_range(r->id, 1, UINT32_MAX, "job_id", err);

	if (rc == 0)
		rc = msg_range(r->run, 1, UINT32_MAX, "run", err);
	if (rc == 0)
		rc = msg_range(r->uid, 0, UINT32_MAX - 1, "uid", err);
	if (rc == 0)
		rc = msg_range(r->gid, 0, UINT32_MAX - 1, "gid", err);
	if (rc == 0)
		rc = msg_range(r->ntasks, 1, 1 << 20, "ntasks", err);
	if (rc == 0)
		rc = msg_range(r->limit, 0, (json_int_t)1 << 40, "time_limit",
			       err);
	if (rc == 0)
		rc = msg_range(r->mem, 0, (json_int_t)1 << 40, "mem_mb", err);
	if (rc == 0 && (r->workdir[0] != '/' || r->output[0] != '/' ||
			(r->error && r->error[0] != '/')))
		rc = rota_errorf(err, -EPROTO, "paths must be absolute");
	if (rc == 0)
		rc = msg_str(r->name, ROTA_MSG_NAME_MAX, "name", &m->name, err);
	if (rc == 0)
		rc = msg_str(r->script, (size_t)1 << 26, "script", &m->script,
			     err);
	if (rc == 0)
		rc = msg_str(r->workdir, ROTA_MSG_PATH_MAX, "workdir",
			     &m->workdir, err);
	if (rc == 0)
		rc = msg_str(r->output, ROTA_MSG_PATH_MAX, "output", &m->output,
			     err);
	if (rc == 0)
		rc = msg_str(r->error, ROTA_MSG_PATH_MAX, "error", &m->error,
			     err);
	if (rc == 0)
		rc = msg_str(r->queue, ROTA_MSG_NAME_MAX, "queue", &m->queue,
			     err);
	if (rc == 0)
		rc = msg_str(r->nodelist, ROTA_MSG_PATH_MAX, "nodelist",
			     &m->nodelist, err);
	if (rc == 0)
		rc = msg_strv(r->env, ROTA_MSG_ENV_MAX + 32,
			      ROTA_MSG_PATH_MAX * 8, "env", &m->env, err);
	if (rc == 0)
		rc = msg_u32v(r->cores, 1 << 20, "cores", &m->cores,
			      &m->ncores, err);
	if (rc == 0 && m->ncores == 0)
		rc = rota_errorf(err, -EPROTO, "cores: empty");
	if (rc == 0 && r->gpus)
		rc = msg_gpus(r->gpus, &m->gpus, &m->ngpus, err);
	return rc;
}

int rota_msg_launch_decode(const char *buf, size_t len,
			   struct rota_msg_launch *m, struct rota_error *err)
{
	struct launch_raw r = { 0 };
	json_t *root = msg_parse(buf, len, err);
	int rc;

	*m = (struct rota_msg_launch){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err,
			"{s:I, s:I, s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:s, "
			"s:o, s:o, s:I, s:I, s?s, s?I, s?o !}",
			"job_id", &r.id, "run", &r.run, "uid", &r.uid,
			"gid", &r.gid, "name",
			&r.name, "script", &r.script, "workdir", &r.workdir,
			"output", &r.output, "queue", &r.queue, "nodelist",
			&r.nodelist, "env", &r.env, "cores", &r.cores,
			"ntasks", &r.ntasks, "time_limit", &r.limit, "error",
			&r.error, "mem_mb", &r.mem, "gpus", &r.gpus);
	if (rc == 0)
		rc = launch_fill(&r, m, err);
	json_decref(root);
	if (rc < 0) {
		rota_msg_launch_clear(m);
		return rc;
	}
	m->job_id = (uint32_t)r.id;
	m->run = (uint32_t)r.run;
	m->uid = (uint32_t)r.uid;
	m->gid = (uint32_t)r.gid;
	m->ntasks = (uint32_t)r.ntasks;
	m->time_limit = r.limit;
	m->mem_mb = (uint64_t)r.mem;
	return 0;
}

void rota_msg_launch_clear(struct rota_msg_launch *m)
{
	free(m->name);
	free(m->script);
	free(m->workdir);
	free(m->output);
	free(m->error);
	free(m->queue);
	free(m->nodelist);
	msg_strv_free(m->env);
	free(m->cores);
	free(m->gpus);
	*m = (struct rota_msg_launch){ 0 };
}

char *rota_msg_job_signal_encode(const struct rota_msg_job_signal *m,
				 size_t *len)
{
	return msg_dump(json_pack("{s:I, s:I, s:i, s:b}", "job_id",
				  (json_int_t)m->job_id, "run",
				  (json_int_t)m->run, "signal", m->signo,
				  "cancel", m->cancel),
			len);
}

int rota_msg_job_signal_decode(const char *buf, size_t len,
			       struct rota_msg_job_signal *m,
			       struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	json_int_t id = 0, run = 0, signo = 0;
	int cancel = 0;
	int rc;

	*m = (struct rota_msg_job_signal){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:I, s:I, s:I, s:b !}", "job_id", &id,
			"run", &run, "signal", &signo, "cancel", &cancel);
	if (rc == 0)
		rc = msg_range(id, 1, UINT32_MAX, "job_id", err);
	if (rc == 0)
		rc = msg_range(run, 1, UINT32_MAX, "run", err);
	if (rc == 0)
		rc = msg_range(signo, 1, SIGRTMAX, "signal", err);
	json_decref(root);
	if (rc < 0)
		return rc;
	m->job_id = (uint32_t)id;
	m->run = (uint32_t)run;
	m->signo = (int)signo;
	m->cancel = cancel;
	return 0;
}

char *rota_msg_job_end_encode(const struct rota_msg_job_end *m, size_t *len)
{
	json_t *o = json_pack("{s:I, s:I, s:s, s:i, s:i, s:I, s:I}", "job_id",
			      (json_int_t)m->job_id, "run", (json_int_t)m->run,
			      "state",
			      rota_job_state_name(m->state), "exit_code",
			      m->exit_code, "signal", m->term_signal, "start",
			      (json_int_t)m->start_time, "end",
			      (json_int_t)m->end_time);

	if (m->text)
		json_object_set_new(o, "text", json_string(m->text));
	/* optional: a node without cgroups knows neither */
	if (m->cpu_usec)
		json_object_set_new(o, "cpu_usec",
				    json_integer((json_int_t)m->cpu_usec));
	if (m->mem_peak)
		json_object_set_new(o, "mem_peak",
				    json_integer((json_int_t)m->mem_peak));
	return msg_dump(o, len);
}

int rota_msg_job_end_decode(const char *buf, size_t len,
			    struct rota_msg_job_end *m, struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	const char *state = NULL, *text = NULL;
	json_int_t id = 0, run = 0, start = 0, end = 0, code = 0, sig = 0;
	json_int_t cpu = 0, peak = 0;
	enum rota_job_state st = ROTA_JOB_NONE;
	int rc;

	*m = (struct rota_msg_job_end){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err,
			"{s:I, s:I, s:s, s:I, s:I, s:I, s:I, s?s, s?I, s?I !}",
			"job_id", &id, "run", &run, "state", &state,
			"exit_code", &code, "signal", &sig, "start", &start,
			"end", &end, "text", &text, "cpu_usec", &cpu,
			"mem_peak", &peak);
	if (rc == 0)
		rc = msg_range(id, 1, UINT32_MAX, "job_id", err);
	if (rc == 0)
		rc = msg_range(run, 1, UINT32_MAX, "run", err);
	if (rc == 0 && (rota_job_state_parse(state, &st) < 0 ||
			!rota_job_state_is_final(st)))
		rc = rota_errorf(err, -EPROTO, "state: '%s' is not an end",
				 state);
	if (rc == 0)
		rc = msg_range(code, -1, 255, "exit_code", err);
	if (rc == 0)
		rc = msg_range(sig, 0, 128, "signal", err);
	if (rc == 0)
		rc = msg_range(cpu, 0, INT64_MAX, "cpu_usec", err);
	if (rc == 0)
		rc = msg_range(peak, 0, INT64_MAX, "mem_peak", err);
	if (rc == 0)
		rc = msg_str(text, 1024, "text", &m->text, err);
	json_decref(root);
	if (rc < 0) {
		rota_msg_job_end_clear(m);
		return rc;
	}
	m->job_id = (uint32_t)id;
	m->run = (uint32_t)run;
	m->state = st;
	m->exit_code = (int)code;
	m->term_signal = (int)sig;
	m->start_time = start;
	m->end_time = end;
	m->cpu_usec = (uint64_t)cpu;
	m->mem_peak = (uint64_t)peak;
	return 0;
}

void rota_msg_job_end_clear(struct rota_msg_job_end *m)
{
	free(m->text);
	*m = (struct rota_msg_job_end){ 0 };
}

char *rota_msg_job_run_encode(uint32_t job_id, uint32_t run, size_t *len)
{
	return msg_dump(json_pack("{s:I, s:I}", "job_id", (json_int_t)job_id,
				  "run", (json_int_t)run),
			len);
}

int rota_msg_job_run_decode(const char *buf, size_t len, uint32_t *job_id,
			    uint32_t *run, struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	json_int_t id = 0, r = 0;
	int rc;

	*job_id = 0;
	*run = 0;
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:I, s:I !}", "job_id", &id, "run", &r);
	if (rc == 0)
		rc = msg_range(id, 1, UINT32_MAX, "job_id", err);
	if (rc == 0)
		rc = msg_range(r, 1, UINT32_MAX, "run", err);
	json_decref(root);
	if (rc < 0)
		return rc;
	*job_id = (uint32_t)id;
	*run = (uint32_t)r;
	return 0;
}
