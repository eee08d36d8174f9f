// SPDX-License-Identifier: MIT
/*
 * Cursors: places in the core's listings that stay valid while the core
 * changes, so that a long reply is written a slice at a time from the
 * lists themselves instead of from a copy of the queue made at the
 * request (issue 23: at 50,000 pending jobs that copy alone cost 8 ms of
 * one loop turn, a cache miss a job).  The rules a listing gets are
 * core.h's (core_cursor_create).
 *
 * A list cursor points at the next job it will return; job_list_remove
 * moves it on when that job leaves (a list has a chain of cursors, NULL
 * almost always, so the check is one load).  The pending order can also
 * be rebuilt (a rating: prio_sort); before that, a cursor copies the ids
 * still ahead of it and finishes from the copy.  The copy costs what the
 * rest of the list does, once, in a loop turn that already pays for
 * rating and sorting the whole queue.
 *
 * An id cursor needs no help from the list functions: the id index only
 * grows at its end and leaves holes where jobs went, so the slot after
 * the last job returned stays right until the index is compacted or
 * sorted (core->order_epoch), and then the last id returned is found
 * again by binary search.
 */
#include "config.h"

#include <assert.h>
#include <stdlib.h>

#include "common/xalloc.h"
#include "ctld/core/core_internal.h"

struct core_cursor {
	enum core_cursor_kind kind;
	struct core *core;	/* the core whose chain holds it; NULL: none */
	struct core_cursor *next; /* in that chain */
	/* a list cursor in its list: the next job to return; NULL: the end */
	struct core_job *at;
	/* a list cursor out of its list: the ids left, looked up by id */
	bool detached;
	uint32_t *ids;
	size_t nids;
	size_t pos;
	/* an id cursor: the last id returned, and the slot after it */
	uint32_t last_id;
	uint32_t until;		/* ids from here on are not listed */
	size_t slot;
	uint64_t epoch;		/* 'slot' holds while core->order_epoch is */
	bool slot_valid;
};

static struct core_cursor **chain_of(struct core *core,
				     enum core_cursor_kind kind)
{
	switch (kind) {
	case CORE_CURSOR_PENDING:
		return &core->pending.cursors;
	case CORE_CURSOR_RUNNING:
		return &core->running.cursors;
	case CORE_CURSOR_BY_ID:
		break;
	}
	return &core->id_cursors;
}

static void chain_add(struct core *core, struct core_cursor *c)
{
	struct core_cursor **head = chain_of(core, c->kind);

	c->core = core;
	c->next = *head;
	*head = c;
}

static void chain_remove(struct core_cursor *c)
{
	struct core_cursor **pp = chain_of(c->core, c->kind);

	while (*pp != c)
		pp = &(*pp)->next;
	*pp = c->next;
	c->next = NULL;
	c->core = NULL;
}

struct core_cursor *core_cursor_create(struct core *core,
				       enum core_cursor_kind kind)
{
	struct core_cursor *c = rota_xcalloc(1, sizeof(*c));

	c->kind = kind;
	if (kind == CORE_CURSOR_PENDING)
		c->at = core->pending.head;
	else if (kind == CORE_CURSOR_RUNNING)
		c->at = core->running.head;
	c->until = core->next_id;
	c->slot_valid = true; /* slot 0 of this epoch */
	c->epoch = core->order_epoch;
	chain_add(core, c);
	return c;
}

void core_cursor_destroy(struct core_cursor *c)
{
	if (!c)
		return;
	if (c->core)
		chain_remove(c);
	free(c->ids);
	free(c);
}

/* ---- the list functions' side ---------------------------------------- */

void cursor_unlinked(struct job_list *l, const struct core_job *job)
{
	for (struct core_cursor *c = l->cursors; c; c = c->next)
		if (c->at == job)
			c->at = job->next;
}

/* Take the ids ahead of 'c' and leave the list's chain (not unlinked). */
static void take_rest(struct core_cursor *c)
{
	size_t n = 0;

	for (const struct core_job *j = c->at; j; j = j->next)
		n++;
	c->ids = rota_xcalloc(n + 1, sizeof(*c->ids));
	for (const struct core_job *j = c->at; j; j = j->next)
		c->ids[c->nids++] = j->id;
	c->at = NULL;
	c->detached = true;
	c->core = NULL;
	c->next = NULL;
}

void cursor_detach(struct job_list *l)
{
	struct core_cursor *c = l->cursors, *next;

	l->cursors = NULL;
	for (; c; c = next) {
		next = c->next;
		take_rest(c);
	}
}

void cursor_orphan_all(struct core *core)
{
	struct core_cursor *c = core->id_cursors, *next;

	cursor_detach(&core->pending);
	cursor_detach(&core->running);
	core->id_cursors = NULL;
	for (; c; c = next) {
		next = c->next;
		c->next = NULL;
		c->core = NULL;
		c->slot_valid = false;
	}
}

/* ---- walking ---------------------------------------------------------- */

static bool in_list(const struct core_cursor *c, const struct core_job *job)
{
	if (c->kind == CORE_CURSOR_PENDING)
		return job->in_pending;
	return job->state == ROTA_JOB_RUNNING;
}

static const struct core_job *next_in_list(struct core *core,
					   struct core_cursor *c)
{
	struct core_job *job = c->at;

	if (!c->detached) {
		if (job)
			c->at = job->next;
		return job;
	}
	while (c->pos < c->nids) {
		job = jobtab_find(core, c->ids[c->pos++]);
		if (job && in_list(c, job))
			return job;
	}
	return NULL;
}

/* The first slot of the id index whose job's id is above 'id'. */
static size_t slot_after(const struct core *core, uint32_t id)
{
	size_t lo = 0, hi = core->norder;

	/* the index is sorted by id, with holes (NULL) anywhere */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, k = mid;

		while (k < hi && !core->order[k])
			k++;
		if (k < hi && core->order[k]->id <= id)
			lo = k + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct core_job *next_by_id(struct core *core,
					 struct core_cursor *c)
{
	size_t slot = c->slot;

	if (!c->core) /* its core was replaced: this one's chain now */
		chain_add(core, c);
	if (!c->slot_valid || c->epoch != core->order_epoch)
		slot = slot_after(core, c->last_id);
	for (; slot < core->norder; slot++) {
		struct core_job *job = core->order[slot];

		if (!job)
			continue;
		if (job->id >= c->until)
			break;
		c->last_id = job->id;
		c->slot = slot + 1;
		c->epoch = core->order_epoch;
		c->slot_valid = true;
		return job;
	}
	c->slot = slot;
	c->last_id = c->until; /* done, whatever comes later */
	return NULL;
}

const struct core_job *core_cursor_next(struct core *core,
					struct core_cursor *c)
{
	assert(!c->core || c->core == core);
	if (c->kind == CORE_CURSOR_BY_ID)
		return next_by_id(core, c);
	return next_in_list(core, c);
}
