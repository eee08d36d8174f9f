// SPDX-License-Identifier: MIT
/*
 * The change index behind rota top's deltas (issue 23: a refresh costs
 * what changed, not the queue).  Every job carries the change number at
 * which its row last changed, and the jobs hang in one list in that
 * order, a job moved to the tail when it changes: the jobs changed
 * after change S are the tail's run above S, found in O(changes).  A
 * job that leaves the table (purged) takes a new number into a bounded
 * ring of gone ids; once the ring drops its oldest entry, a delta from
 * before that entry cannot be told and the host sends every row.
 *
 * What "changed" means is decided above (shown.c): code that may change
 * what a row shows only marks the job a candidate here (O(1), once per
 * job until settled), and the settling compares the row's digest, so
 * that a rating that leaves the shown priority alone or a backfill pass
 * that plans the same start changes nothing.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "common/xalloc.h"
#include "ctld/core/core_internal.h"

int64_t core_priority_milli(double v)
{
	if (!isfinite(v))
		return 0;
	if (v > 9e15)
		return (int64_t)9e18;
	if (v < -9e15)
		return (int64_t)-9e18;
	return llround(v * 1000);
}

/* tables.c's core_ids_push, which this file may not call (it calls us) */
static void push(uint32_t **v, size_t *n, size_t *cap, uint32_t id)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = rota_xreallocarray(*v, *cap, sizeof(**v));
	}
	(*v)[(*n)++] = id;
}

void changes_mark(struct core *core, struct core_job *job)
{
	struct core_changes *c = &core->changes;

	/* off until the host starts it: rota sim never pays for it */
	if (!c->on || job->candidate)
		return;
	job->candidate = true;
	push(&c->cand, &c->ncand, &c->cand_cap, job->id);
}

size_t changes_take_candidates(struct core *core, uint32_t **ids)
{
	struct core_changes *c = &core->changes;
	size_t n = c->ncand;

	*ids = c->cand;
	c->cand = NULL;
	c->ncand = c->cand_cap = 0;
	return n;
}

static void unlink_job(struct core_changes *c, struct core_job *job)
{
	if (!job->change)
		return; /* never changed: not in the list */
	if (job->cprev)
		job->cprev->cnext = job->cnext;
	else
		c->head = job->cnext;
	if (job->cnext)
		job->cnext->cprev = job->cprev;
	else
		c->tail = job->cprev;
	job->cprev = job->cnext = NULL;
}

void changes_touch(struct core *core, struct core_job *job)
{
	struct core_changes *c = &core->changes;

	unlink_job(c, job);
	job->change = ++c->last;
	job->cprev = c->tail;
	job->cnext = NULL;
	if (c->tail)
		c->tail->cnext = job;
	else
		c->head = job;
	c->tail = job;
}

void changes_gone(struct core *core, struct core_job *job)
{
	struct core_changes *c = &core->changes;
	struct change_gone *g;

	if (!c->on)
		return;
	unlink_job(c, job);
	job->change = 0;
	if (!c->gone_max)
		c->gone_max = CHANGES_GONE_MAX;
	if (!c->gone)
		c->gone = rota_xcalloc(c->gone_max, sizeof(*c->gone));
	if (c->ngone == c->gone_max) {
		/* the oldest is forgotten: no delta from before it */
		c->horizon = c->gone[c->gone_first].change;
		c->gone_first = (c->gone_first + 1) % c->gone_max;
		c->ngone--;
	}
	g = &c->gone[(c->gone_first + c->ngone++) % c->gone_max];
	*g = (struct change_gone){ .id = job->id, .change = ++c->last };
}

void changes_restart(struct core *core, int64_t base)
{
	struct core_changes *c = &core->changes;

	c->on = true;
	if (base > c->last)
		c->last = base;
	c->horizon = c->last;
	c->ngone = c->gone_first = 0;
}

void core_changes_set_log(struct core *core, size_t max)
{
	struct core_changes *c = &core->changes;

	/* before the first job leaves: the ring is made at that size */
	if (!c->gone && max)
		c->gone_max = max;
}

void changes_fini(struct core *core)
{
	free(core->changes.gone);
	free(core->changes.cand);
	core->changes = (struct core_changes){ 0 };
}

int64_t core_change_number(const struct core *core)
{
	return core->changes.last;
}

static int by_id(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int core_changes_since(const struct core *core, int64_t since,
		       struct core_delta *out)
{
	const struct core_changes *c = &core->changes;
	size_t cap = 0;

	*out = (struct core_delta){ 0 };
	if (since < 1 || since < c->horizon || since > c->last)
		return -ESTALE;
	for (const struct core_job *j = c->tail; j && j->change > since;
	     j = j->cprev)
		push(&out->ids, &out->n, &cap, j->id);
	cap = 0;
	for (size_t i = c->ngone; i > 0; i--) {
		const struct change_gone *g =
			&c->gone[(c->gone_first + i - 1) % c->gone_max];

		if (g->change <= since)
			break;
		push(&out->gone, &out->ngone, &cap, g->id);
	}
	if (out->n)
		qsort(out->ids, out->n, sizeof(*out->ids), by_id);
	if (out->ngone)
		qsort(out->gone, out->ngone, sizeof(*out->gone), by_id);
	return 0;
}

void core_delta_clear(struct core_delta *d)
{
	free(d->ids);
	free(d->gone);
	*d = (struct core_delta){ 0 };
}
