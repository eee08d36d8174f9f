// SPDX-License-Identifier: MIT
/*
 * Job completion records, read back (jobrec.h).  Decoding is lenient
 * about keys it does not know, so that rota history reads what a newer
 * controller wrote, and strict about the ones it knows: every line of the
 * file is hostile input.
 */
#include "config.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/jobrec.h"
#include "common/units.h"
#include "common/xalloc.h"

int rota_jobrec_decode(const char *line, size_t len, struct rota_jobrec *r,
		       struct rota_error *err)
{
	json_int_t id, uid, gid, cores, mem, limit, submit, elig, start, end;
	json_int_t runs = 0, cpu = 0, peak = 0, array_job = 0, array_task = 0;
	const char *cl, *name, *user, *acct, *queue, *nodes, *state;
	const char *array_tasks = NULL, *tres = NULL, *gpu_idx = NULL;
	json_int_t gpus = 0;
	json_t *o;
	int rc = 0;

	*r = (struct rota_jobrec){ 0 };
	o = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
	if (!o || json_unpack(o,
			      "{s:I, s:s, s:s, s:s, s:I, s:I, s:s, s:s, s:s, "
			      "s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:i, "
			      "s:s, s:F, s:F, s?I, s?I, s?I, s?I, s?I, s?s, "
			      "s?s, s?I, s?s}",
			      "id", &id, "cluster", &cl, "name", &name, "user",
			      &user, "uid", &uid, "gid", &gid, "account", &acct,
			      "queue", &queue, "nodes", &nodes, "cores", &cores,
			      "memory_mb", &mem, "time_limit", &limit, "submit",
			      &submit, "eligible", &elig, "start", &start,
			      "end", &end, "exit_code", &r->exit_code,
			      "signal", &r->signal, "state", &state,
			      "priority", &r->priority, "usage", &r->usage,
			      "runs", &runs, "cpu_usec", &cpu, "mem_peak",
			      &peak, "array_job_id", &array_job,
			      "array_task_id", &array_task, "array_tasks",
			      &array_tasks, "tres", &tres, "gpus", &gpus,
			      "gpu_idx", &gpu_idx) < 0)
		rc = rota_errorf(err, -EPROTO, "not a job record");
	else if (id <= 0 || id > UINT32_MAX || uid < 0 || uid > UINT32_MAX ||
		 gid < 0 || gid > UINT32_MAX || cores < 0 ||
		 cores > UINT32_MAX || mem < 0 || runs < 0 || cpu < 0 ||
		 peak < 0 || array_job < 0 || array_job > UINT32_MAX ||
		 array_task < 0 || array_task > UINT32_MAX ||
		 runs > UINT32_MAX || gpus < 0 || gpus > UINT32_MAX)
		rc = rota_errorf(err, -EPROTO, "job record: a value out of range");
	if (rc < 0) {
		json_decref(o);
		*r = (struct rota_jobrec){ 0 };
		return rc;
	}
	r->id = (uint32_t)id;
	r->uid = (uint32_t)uid;
	r->gid = (uint32_t)gid;
	r->cores = (uint32_t)cores;
	r->runs = (uint32_t)runs;
	r->cpu_usec = (uint64_t)cpu;
	r->mem_peak = (uint64_t)peak;
	r->array_job_id = (uint32_t)array_job;
	r->array_task_id = (uint32_t)array_task;
	r->memory_mb = (uint64_t)mem;
	r->time_limit = limit;
	r->submit = submit;
	r->eligible = elig;
	r->start = start;
	r->end = end;
	r->cluster = rota_xstrdup(cl);
	r->name = rota_xstrdup(name);
	r->user = rota_xstrdup(user);
	r->account = rota_xstrdup(acct);
	r->queue = rota_xstrdup(queue);
	r->nodes = rota_xstrdup(nodes);
	r->state = rota_xstrdup(state);
	r->array_tasks = array_tasks ? rota_xstrdup(array_tasks) : NULL;
	r->tres = tres ? rota_xstrdup(tres) : NULL;
	r->gpus = (uint32_t)gpus;
	r->gpu_idx = gpu_idx && gpu_idx[0] ? rota_xstrdup(gpu_idx) : NULL;
	json_decref(o);
	return 0;
}

void rota_jobrec_clear(struct rota_jobrec *r)
{
	free(r->cluster);
	free(r->name);
	free(r->user);
	free(r->account);
	free(r->queue);
	free(r->nodes);
	free(r->state);
	free(r->array_tasks);
	free(r->tres);
	free(r->gpu_idx);
	*r = (struct rota_jobrec){ 0 };
}

/* Is 'word' one of the comma-separated 'list'? */
static bool in_list(const char *list, const char *word, bool nocase)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == n && (nocase ? strncasecmp(p, word, n) == 0
					: strncmp(p, word, n) == 0))
			return true;
		p = comma ? comma + 1 : p + len;
	}
	return false;
}

bool rota_jobrec_match(const struct rota_jobrec *r,
		       const struct rota_jobrec_filter *f)
{
	int64_t from = r->start ? r->start : r->submit;

	if (f->job && r->id != f->job && r->array_job_id != f->job)
		return false;
	if (f->users && !in_list(f->users, r->user, false))
		return false;
	if (f->accounts && !in_list(f->accounts, r->account, false))
		return false;
	if (f->states && !in_list(f->states, r->state, true))
		return false;
	return r->end >= f->since && from <= f->until;
}

int rota_jobrec_time_parse(const char *text, int64_t now, int64_t *out,
			   struct rota_error *err)
{
	struct tm tm = { .tm_isdst = -1 };
	struct rota_error why;
	const char *end;
	int64_t d = 0;
	char *e;

	if (strcmp(text, "now") == 0) {
		*out = now;
		return 0;
	}
	if (strncmp(text, "now-", 4) == 0 || strncmp(text, "now+", 4) == 0) {
		if (rota_duration_parse(text + 4, ROTA_DURATION_NEED_UNIT, &d,
					&why) < 0)
			return rota_errorf(err, -EINVAL, "'%s': %s", text,
					   why.text);
		*out = text[3] == '-' ? now - d : now + d;
		return 0;
	}
	if (text[0] == '@') {
		errno = 0;
		d = strtoll(text + 1, &e, 10);
		if (e == text + 1 || *e || errno)
			return rota_errorf(err, -EINVAL,
					   "'%s': not @UNIXSECONDS", text);
		*out = d;
		return 0;
	}
	end = strptime(text, "%Y-%m-%d", &tm);
	if (end && *end == 'T')
		end = strptime(end + 1, "%H:%M", &tm);
	if (end && *end == ':')
		end = strptime(end + 1, "%S", &tm);
	if (!end || *end)
		return rota_errorf(err, -EINVAL,
				   "'%s': not a time (YYYY-MM-DD[THH:MM[:SS]], "
				   "now, now-2h, now+2h, @UNIXSECONDS)",
				   text);
	*out = (int64_t)mktime(&tm);
	return 0;
}
