// SPDX-License-Identifier: MIT
/*
 * The one encoder of job completion records (jobcomp_json.h), so that the
 * file and http plugins write the same document.  Jansson, not printf:
 * job names and users are the users' text and must be escaped.
 */
#include "config.h"

#include <jansson.h>
#include <stdlib.h>
#include <time.h>

#include "plugins/jobcomp/jobcomp_json.h"

char *jobcomp_json_encode(const struct rota_jobcomp_record *r)
{
	time_t end = (time_t)r->end;
	struct tm tm;
	char iso[32] = "";
	json_t *o;
	char *text;

	if (gmtime_r(&end, &tm))
		strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &tm);
	o = json_pack("{s:I, s:s, s:s, s:s, s:I, s:I, s:s, s:s, s:s, s:I, "
		      "s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:i, s:s, s:f, "
		      "s:f, s:I, s:I, s:I, s:s}",
		      "id", (json_int_t)r->id, "cluster", r->cluster, "name",
		      r->name, "user", r->user, "uid", (json_int_t)r->uid,
		      "gid", (json_int_t)r->gid, "account", r->account,
		      "queue", r->queue, "nodes", r->nodes, "cores",
		      (json_int_t)r->cores, "memory_mb",
		      (json_int_t)r->memory_mb, "time_limit",
		      (json_int_t)r->time_limit, "submit",
		      (json_int_t)r->submit, "eligible",
		      (json_int_t)r->eligible, "start", (json_int_t)r->start,
		      "end", (json_int_t)r->end, "exit_code", r->exit_code,
		      "signal", r->signal, "state", r->state, "priority",
		      r->priority, "usage", r->usage, "runs",
		      (json_int_t)r->runs, "cpu_usec", (json_int_t)r->cpu_usec,
		      "mem_peak", (json_int_t)r->mem_peak, "@timestamp", iso);
	if (!o)
		return NULL;
	if (r->array_job_id) {
		json_object_set_new(o, "array_job_id",
				    json_integer(r->array_job_id));
		json_object_set_new(o, "array_task_id",
				    json_integer(r->array_task_id));
		if (r->array_tasks)
			json_object_set_new(o, "array_tasks",
					    json_string(r->array_tasks));
	}
	/* the GPUs only for a job that held some, as the array ids */
	if (r->tres)
		json_object_set_new(o, "tres", json_string(r->tres));
	if (r->gpus) {
		json_object_set_new(o, "gpus", json_integer(r->gpus));
		json_object_set_new(o, "gpu_idx",
				    json_string(r->gpu_idx ? r->gpu_idx : ""));
	}
	if (r->nsteps) {
		json_t *steps = json_array();

		for (uint32_t i = 0; i < r->nsteps; i++) {
			const struct rota_jobcomp_step *s = &r->steps[i];

			json_array_append_new(
				steps,
				json_pack("{s:I, s:s, s:I, s:s, s:s, s:i, s:i, "
					  "s:I, s:I, s:I}",
					  "id", (json_int_t)s->id, "name",
					  s->name, "ntasks",
					  (json_int_t)s->ntasks, "nodes",
					  s->nodes, "state", s->state,
					  "exit_code", s->exit_code,
					  "failed_rank", (int)s->failed_rank,
					  "cpu_usec", (json_int_t)s->cpu_usec,
					  "start", (json_int_t)s->start, "end",
					  (json_int_t)s->end));
		}
		json_object_set_new(o, "steps", steps);
	}
	text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return text;
}
