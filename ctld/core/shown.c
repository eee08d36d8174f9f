// SPDX-License-Identifier: MIT
/*
 * What rota top shows of a job, as a 64-bit digest, and the settling of
 * the jobs marked since the last (changes.c): a marked job whose digest
 * differs from the one it was last numbered with takes the next change
 * number; one whose row came out the same (a rating that moved its
 * priority by less than a thousandth, a backfill pass that planned the
 * same start, a journal mark of something top does not show) does not.
 * The digest covers every column of the row (ctld/rpc_top.c) from what
 * it is made of: the same inputs, the same row.  A running job's nodes
 * are fixed from its start on, so their count stands for their names.
 * What no event marks (a limit's text that changes while the job stays
 * blocked) a slow sweep of the table finds: a few jobs at every tick.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ctld/core/core_internal.h"

/* FNV-1a, 64 bits: no two rows of a job meet by chance in practice. */
#define FNV_OFFSET 14695981039346656037ULL
#define FNV_PRIME  1099511628211ULL

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * FNV_PRIME;
	return h;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	/* the NUL too: "ab","c" is not "a","bc" */
	return s ? mix(h, s, strlen(s) + 1) : mix(h, "", 1) ^ 1;
}

static uint64_t digest(const struct core *core, const struct core_job *job)
{
	bool pending = job->state == ROTA_JOB_PENDING;
	int64_t v[] = {
		job->state,
		(int64_t)job->desc.ntasks * job->desc.cpus_per_task,
		job->nalloc ? job->nalloc : job->desc.nodes,
		job->submit_time,
		job->start_time,
		job->end_time,
		core_priority_milli(job->priority),
		job->desc.nice,
		job->desc.urgency,
		job->hold,
		pending ? job->est_start : 0,
		job->queue,
		job->uid,
		job->array_id,
		job->array_task,
	};
	uint64_t h = mix(FNV_OFFSET, v, sizeof(v));
	char *rest;

	h = mix_str(h, job->desc.account);
	h = mix_str(h, job->desc.name);
	if (!job->nalloc)
		h = mix_str(h, core_job_reason(core, job));
	if (job->array) { /* an array's pending rest: its tasks' text */
		rest = core_job_array_name(job);
		h = mix_str(h, rest);
		free(rest);
	}
	return h ? h : 1; /* 0: never counted */
}

void core_changes_settle(struct core *core)
{
	uint32_t *ids;
	size_t n = changes_take_candidates(core, &ids);

	for (size_t i = 0; i < n; i++) {
		struct core_job *job = jobtab_find(core, ids[i]);
		uint64_t d;

		/* gone since, or listed twice (an id freed and reused) */
		if (!job || !job->candidate)
			continue;
		job->candidate = false;
		d = digest(core, job);
		if (d == job->shown)
			continue;
		job->shown = d;
		changes_touch(core, job);
	}
	free(ids);
}

void core_changes_sweep(struct core *core, size_t n)
{
	struct core_changes *c = &core->changes;
	struct core_job *job;

	if (!c->on)
		return;
	for (size_t k = 0; k < n && k < core->norder; k++) {
		if (c->sweep >= core->norder)
			c->sweep = 0;
		job = core->order[c->sweep++];
		if (job)
			changes_mark(core, job);
	}
	core_changes_settle(core);
}

void core_changes_start(struct core *core, int64_t base)
{
	uint32_t *ids;

	changes_take_candidates(core, &ids);
	free(ids);
	for (size_t i = 0; i < core->norder; i++) {
		struct core_job *job = core->order[i];

		if (!job)
			continue;
		job->candidate = false;
		job->shown = digest(core, job);
	}
	changes_restart(core, base);
}
