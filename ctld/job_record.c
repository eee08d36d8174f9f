// SPDX-License-Identifier: MIT
/*
 * The journal's record codec (see job_record.h).  A job's request is kept
 * as its SUBMIT body, so the strict submit decoder checks it again on the
 * way back in.
 */
#include "config.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/msg_internal.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "ctld/job_record.h"
#include "ctld/resv_record.h"

static json_t *alloc_pack(const struct core *core, const struct core_job *job)
{
	json_t *arr = json_array();

	for (uint32_t i = 0; i < job->nalloc; i++) {
		const struct core_alloc *a = &job->alloc[i];
		json_t *cores = json_array();

		json_t *o;

		for (uint32_t k = 0; k < a->ncores; k++)
			json_array_append_new(cores, json_integer(a->cores[k]));
		o = json_pack("{s:s, s:o}", "node",
			      core_node_get(core, a->node)->name, "cores",
			      cores);
		if (a->ngpus)
			json_object_set_new(o, "gpus",
					    msg_u32v_pack(a->gpus, a->ngpus));
		json_array_append_new(arr, o);
	}
	return arr;
}

char *job_record_encode(const struct core *core, const struct core_job *job,
			size_t *len)
{
	struct rota_job_desc d = job->desc;
	json_t *o;
	char *desc, *head;
	size_t dlen;
	struct rota_strbuf b = { 0 };

	if (!d.script)
		d.script = ""; /* an ended job's script is let go */
	desc = rota_msg_submit_encode(&d, &dlen);
	o = json_pack("{s:s, s:I, s:s, s:I, s:I, s:s, s:I, s:I, s:I, s:I, "
		      "s:i, s:i, s:o}",
		      "kind", "job", "id", (json_int_t)job->id, "state",
		      rota_job_state_name(job->state), "uid",
		      (json_int_t)job->uid, "gid", (json_int_t)job->gid,
		      "queue", core_queue_get(core, job->queue)->name,
		      "time_limit", (json_int_t)job->time_limit, "submit",
		      (json_int_t)job->submit_time, "start",
		      (json_int_t)job->start_time, "end",
		      (json_int_t)job->end_time, "exit_code", job->exit_code,
		      "signal", job->term_signal, "alloc",
		      alloc_pack(core, job));
	if (job->end_text)
		json_object_set_new(o, "end_text", json_string(job->end_text));
	/* a range's minimum, when desc.ntasks is the tasks granted */
	if (job->ntasks_min != job->desc.ntasks)
		json_object_set_new(o, "ntasks_min",
				    json_integer(job->ntasks_min));
	if (job->run)
		json_object_set_new(o, "run", json_integer(job->run));
	if (job->cpu_usec)
		json_object_set_new(o, "cpu_usec",
				    json_integer((json_int_t)job->cpu_usec));
	if (job->mem_peak)
		json_object_set_new(o, "mem_peak",
				    json_integer((json_int_t)job->mem_peak));
	json_object_set_new(o, "user", json_string(job->user));
	if (job->hold)
		json_object_set_new(o, "hold", json_integer(job->hold));
	if (job->fence_node)
		json_object_set_new(
			o, "fence",
			json_string(core_node_get(core, job->fence_node - 1)
					    ->name));
	if (job->state == ROTA_JOB_PENDING || job->eligible_accum) {
		json_object_set_new(o, "eligible_accum",
				    json_integer(job->eligible_accum));
		json_object_set_new(o, "eligible_since",
				    json_integer(job->eligible_since));
	}
	if (job->recorded)
		json_object_set_new(o, "recorded", json_true());
	if (job->array_id) {
		json_object_set_new(o, "array_id",
				    json_integer(job->array_id));
		json_object_set_new(o, "array_task",
				    json_integer(job->array_task));
		json_object_set_new(o, "array_shape",
				    json_pack("[I, I, I, I]",
					      (json_int_t)job->shape.count,
					      (json_int_t)job->shape.min,
					      (json_int_t)job->shape.max,
					      (json_int_t)job->shape.step));
	}
	if (job->array) {
		char *rest = rota_taskset_text(&job->array->tasks);

		json_object_set_new(o, "array_rest", json_string(rest));
		free(rest);
	}
	head = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (!head)
		rota_fatal("out of memory encoding a journal record");
	/* splice the request in: {...} -> {...,"desc":<body>} */
	rota_strbuf_add(&b, head, strlen(head) - 1);
	rota_strbuf_adds(&b, ",\"desc\":");
	rota_strbuf_add(&b, desc, dlen);
	rota_strbuf_add(&b, "}", 1);
	free(head);
	free(desc);
	return rota_strbuf_take(&b, len);
}

char *job_record_next_id(uint32_t next, size_t *len)
{
	struct rota_strbuf b = { 0 };

	rota_strbuf_addf(&b, "{\"kind\":\"next_id\",\"next_id\":%u}", next);
	return rota_strbuf_take(&b, len);
}

struct alloc_in {
	struct core_alloc_state *v;
	uint32_t **cores;
	uint32_t **gpus;
	uint32_t n;
};

static void alloc_in_free(struct alloc_in *a)
{
	for (uint32_t i = 0; i < a->n; i++) {
		free(a->cores[i]);
		free(a->gpus[i]);
	}
	free(a->cores);
	free(a->gpus);
	free(a->v);
}

static int alloc_unpack(json_t *arr, struct alloc_in *a,
			struct rota_error *err)
{
	size_t n = json_array_size(arr);

	*a = (struct alloc_in){ 0 };
	if (!json_is_array(arr) || n > 65536)
		return rota_errorf(err, -EINVAL, "alloc: not a list");
	a->v = rota_xcalloc(n + 1, sizeof(*a->v));
	a->cores = rota_xcalloc(n + 1, sizeof(*a->cores));
	a->gpus = rota_xcalloc(n + 1, sizeof(*a->gpus));
	for (size_t i = 0; i < n; i++) {
		json_t *cores = NULL, *gpus = NULL;
		const char *node = NULL;
		size_t k, nc, ng = 0;

		if (json_unpack(json_array_get(arr, i), "{s:s, s:o, s?o !}",
				"node", &node, "cores", &cores, "gpus",
				&gpus) < 0 ||
		    !json_is_array(cores) ||
		    (nc = json_array_size(cores)) > 1u << 20)
			return rota_errorf(err, -EINVAL, "alloc %zu: bad", i);
		a->cores[i] = rota_xcalloc(nc + 1, sizeof(uint32_t));
		a->n = (uint32_t)i + 1;
		if (gpus && msg_u32v(gpus, ROTA_MSG_GPUS_MAX, "gpus",
				     &a->gpus[i], &ng, err) < 0)
			return rota_errorf(err, -EINVAL,
					   "alloc %zu: bad gpus", i);
		for (k = 0; k < nc; k++) {
			json_int_t c = json_integer_value(
				json_array_get(cores, k));

			if (c < 0 || c >= 1 << 20)
				return rota_errorf(err, -EINVAL,
						   "alloc %zu: bad core", i);
			a->cores[i][k] = (uint32_t)c;
		}
		a->v[i] = (struct core_alloc_state){ .node = node,
						     .ncores = (uint32_t)nc,
						     .cores = a->cores[i],
						     .ngpus = (uint32_t)ng,
						     .gpus = a->gpus[i] };
	}
	return 0;
}

static int apply_job(struct core *core, int64_t now, json_t *o,
		     struct rota_error *err)
{
	struct core_job_state st = { 0 };
	json_int_t id, uid, gid, limit, submit, start, end, run = 0;
	json_int_t el_accum = 0, el_since = 0, hold = 0;
	json_int_t cpu = 0, peak = 0, array_id = 0, array_task = 0;
	json_int_t ntasks_min = 0;
	int recorded = 0;
	const char *kind, *state, *queue, *end_text = NULL, *user = NULL;
	const char *fence = NULL, *array_rest = NULL;
	json_int_t shape[4] = { 0 };
	json_t *alloc, *desc;
	struct alloc_in a = { 0 };
	char *text;
	int rc;

	if (json_unpack(o, "{s:s, s:I, s:s, s:I, s:I, s:s, s:I, s:I, s:I, s:I, "
			   "s:i, s:i, s:o, s:o, s?s, s?I, s?s, s?I, s?I, s?I, s?b, "
			   "s?s, s?I, s?I, s?I, s?I, s?s, s?[IIII], s?I !}",
			"kind", &kind, "id", &id, "state", &state, "uid", &uid,
			"gid", &gid, "queue", &queue, "time_limit", &limit,
			"submit", &submit, "start", &start, "end", &end,
			"exit_code", &st.exit_code, "signal", &st.term_signal,
			"alloc", &alloc, "desc", &desc, "end_text",
			&end_text, "run", &run, "user", &user,
			"eligible_accum", &el_accum, "eligible_since",
			&el_since, "hold", &hold, "recorded", &recorded,
			"fence", &fence, "cpu_usec", &cpu, "mem_peak", &peak,
			"array_id", &array_id, "array_task", &array_task,
			"array_rest", &array_rest, "array_shape", &shape[0],
			&shape[1], &shape[2], &shape[3], "ntasks_min",
			&ntasks_min) < 0 ||
	    ntasks_min < 0 || ntasks_min > 1 << 20 ||
	    cpu < 0 || peak < 0 || el_accum < 0 || hold < 0 ||
	    array_id < 0 || array_id > UINT32_MAX || array_task < 0 ||
	    array_task > UINT32_MAX || shape[0] < 0 ||
	    shape[0] > UINT32_MAX || shape[1] < 0 || shape[1] > UINT32_MAX ||
	    shape[2] < 0 || shape[2] > UINT32_MAX || shape[3] < 0 ||
	    shape[3] > UINT32_MAX ||
	    hold > CORE_HOLD_OPERATOR ||
	    run < 0 || run > UINT32_MAX ||
	    id <= 0 || id > UINT32_MAX || uid < 0 || uid >= UINT32_MAX ||
	    gid < 0 || gid >= UINT32_MAX ||
	    rota_job_state_parse(state, &st.state) < 0)
		return rota_errorf(err, -EINVAL, "malformed job record");
	rc = alloc_unpack(alloc, &a, err);
	text = rc == 0 ? json_dumps(desc, JSON_COMPACT) : NULL;
	if (rc == 0 && (!text || rota_msg_submit_decode(text, strlen(text),
							&st.desc, err) < 0))
		rc = rota_errorf(err, -EINVAL, "job %lld: bad request: %s",
				 (long long)id, err->text);
	free(text);
	if (rc == 0) {
		st.id = (uint32_t)id;
		st.uid = (uid_t)uid;
		st.gid = (gid_t)gid;
		st.user = user;
		st.queue = queue;
		st.time_limit = limit;
		st.submit_time = submit;
		st.start_time = start;
		st.end_time = end;
		st.end_text = end_text;
		st.run = (uint32_t)run;
		st.cpu_usec = (uint64_t)cpu;
		st.mem_peak = (uint64_t)peak;
		st.eligible_accum = el_accum;
		st.eligible_since = el_since;
		st.hold = (enum core_hold)hold;
		st.fence = fence;
		st.recorded = recorded;
		st.array_id = (uint32_t)array_id;
		st.array_task = (uint32_t)array_task;
		st.array_rest = array_rest;
		st.array_shape = (struct core_array_shape){
			(uint32_t)shape[0], (uint32_t)shape[1],
			(uint32_t)shape[2], (uint32_t)shape[3] };
		st.alloc = a.v;
		st.nalloc = a.n;
		st.ntasks_min = (uint32_t)ntasks_min;
		rc = core_restore_job(core, now, &st, err);
	}
	rota_job_desc_clear(&st.desc);
	alloc_in_free(&a);
	return rc;
}

/*
 * UsageCharge=measured: [[job, run, cpu_usec, io_bytes, charged], ...];
 * charged -1: the meter waits for a first report to set it (baseline).
 */
static json_t *marks_encode(const struct core_usage_mark *m, size_t nm)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < nm; i++)
		json_array_append_new(arr,
				      json_pack("[I, I, I, I, f]",
						(json_int_t)m[i].job_id,
						(json_int_t)m[i].run,
						(json_int_t)m[i].cpu_usec,
						(json_int_t)m[i].io_bytes,
						m[i].baseline ? -1.0
							      : m[i].charged));
	return arr;
}

static int marks_apply(struct core *core, json_t *arr, bool measured,
		       struct rota_error *err)
{
	size_t n = json_array_size(arr);
	struct core_usage_mark *m;
	int rc = 0;

	if (!json_is_array(arr) || n > 1u << 24)
		return rota_errorf(err, -EINVAL, "usage record: bad marks");
	m = rota_xcalloc(n + 1, sizeof(*m));
	for (size_t i = 0; i < n && !rc; i++) {
		json_t *v = json_array_get(arr, i);
		json_int_t f[4] = { 0 };

		if (json_unpack(v, "[I, I, I, I, F !]", &f[0], &f[1], &f[2],
				&f[3], &m[i].charged) < 0 ||
		    f[0] <= 0 || f[0] > UINT32_MAX || f[1] < 0 ||
		    f[1] > UINT32_MAX || f[2] < 0 || f[3] < 0 ||
		    !(m[i].charged >= 0 || m[i].charged == -1))
			rc = rota_errorf(err, -EINVAL,
					 "usage record: mark %zu is bad", i);
		m[i].baseline = m[i].charged == -1;
		if (m[i].baseline)
			m[i].charged = 0;
		m[i].job_id = (uint32_t)f[0];
		m[i].run = (uint32_t)f[1];
		m[i].cpu_usec = (uint64_t)f[2];
		m[i].io_bytes = (uint64_t)f[3];
	}
	if (!rc)
		core_usage_restore_marks(core, m, n, measured);
	free(m);
	return rc;
}

char *job_record_usage(const struct core *core, const struct core_usage *u,
		       size_t n, int64_t at, size_t *len)
{
	struct core_usage_mark *m = NULL;
	size_t nm = core_usage_marks(core, &m);
	json_t *arr = json_array();
	json_t *o;
	char *text;

	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, json_pack("{s:s, s:s, s:f}",
						     "account", u[i].account,
						     "user", u[i].user,
						     "usage", u[i].usage));
	o = json_pack("{s:s, s:I, s:o}", "kind", "usage", "time",
		      (json_int_t)at, "usage", arr);
	/* only when measured: a record without them reads as before */
	if (core_usage_is_measured(core))
		json_object_set_new(o, "measured", json_true());
	if (nm)
		json_object_set_new(o, "marks", marks_encode(m, nm));
	free(m);
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (!text)
		rota_fatal("out of memory encoding a usage record");
	*len = strlen(text);
	return text;
}

static int apply_usage(struct core *core, json_t *o, struct rota_error *err)
{
	const char *kind;
	json_int_t at;
	json_t *arr;
	json_t *marks = NULL;
	int measured = 0;
	struct core_usage *u;
	size_t n;
	int rc = 0;

	if (json_unpack(o, "{s:s, s:I, s:o, s?b, s?o !}", "kind", &kind,
			"time", &at, "usage", &arr, "measured", &measured,
			"marks", &marks) < 0 ||
	    !json_is_array(arr) || (n = json_array_size(arr)) > 1u << 20)
		return rota_errorf(err, -EINVAL, "malformed usage record");
	u = rota_xcalloc(n + 1, sizeof(*u));
	for (size_t i = 0; i < n && !rc; i++) {
		if (json_unpack(json_array_get(arr, i), "{s:s, s:s, s:F !}",
				"account", &u[i].account, "user", &u[i].user,
				"usage", &u[i].usage) < 0 ||
		    !(u[i].usage >= 0))
			rc = rota_errorf(err, -EINVAL,
					 "usage record: entry %zu is bad", i);
	}
	if (!rc)
		core_usage_restore(core, u, n, at);
	free(u);
	/* the last record's meters replace an earlier one's, or none */
	if (!rc && marks)
		rc = marks_apply(core, marks, measured, err);
	else if (!rc)
		core_usage_restore_marks(core, NULL, 0, measured);
	return rc;
}

int job_record_apply(struct core *core, int64_t now, const char *rec,
		     size_t len, struct rota_error *err)
{
	json_error_t jerr;
	json_t *o = json_loadb(rec, len, JSON_REJECT_DUPLICATES, &jerr);
	const char *kind = NULL;
	json_int_t next = 0;
	int rc;

	if (!o || json_unpack(o, "{s:s}", "kind", &kind) < 0) {
		json_decref(o);
		return rota_errorf(err, -EINVAL, "malformed record");
	}
	if (strcmp(kind, "job") == 0) {
		rc = apply_job(core, now, o, err);
	} else if (strcmp(kind, "usage") == 0) {
		rc = apply_usage(core, o, err);
	} else if (resv_record_is_kind(kind)) {
		rc = resv_record_apply(core, rec, len, err);
	} else if (strcmp(kind, "next_id") == 0 &&
		   json_unpack(o, "{s:s, s:I !}", "kind", &kind, "next_id",
			       &next) == 0 &&
		   next > 0 && next <= UINT32_MAX) {
		core_raise_next_id(core, (uint32_t)next);
		rc = 0;
	} else {
		rc = rota_errorf(err, -EINVAL, "record of unknown kind");
	}
	json_decref(o);
	return rc;
}
