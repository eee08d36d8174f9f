// SPDX-License-Identifier: MIT
/*
 * The job table: open addressing on the job id with linear probing and
 * backward-shift deletion, so lookups stay O(1) with no tombstones however
 * many jobs come and go.  Ids are sequential, so the identity hash spreads
 * them perfectly.
 *
 * Beside it, an index of every job in id order, for listings: ids only
 * grow, so a job is appended at submit; a purged one leaves a hole, and the
 * holes are squeezed out once they are half the index.
 */
#include "config.h"

#include <stdlib.h>

#include "common/xalloc.h"
#include "ctld/core/core_internal.h"

static size_t slot_of(const struct core *core, uint32_t id)
{
	return id & (core->nslots - 1);
}

static void grow(struct core *core)
{
	struct core_job **old = core->slots;
	size_t oldn = core->nslots;

	core->nslots = oldn ? oldn * 2 : 1024;
	core->slots = rota_xcalloc(core->nslots, sizeof(*core->slots));
	for (size_t i = 0; i < oldn; i++) {
		struct core_job *j = old[i];
		size_t s;

		if (!j)
			continue;
		for (s = slot_of(core, j->id); core->slots[s];
		     s = (s + 1) & (core->nslots - 1))
			;
		core->slots[s] = j;
	}
	free(old);
}

static void order_append(struct core *core, struct core_job *job)
{
	if (core->norder == core->order_cap) {
		core->order_cap = core->order_cap ? 2 * core->order_cap : 1024;
		core->order = rota_xreallocarray(core->order, core->order_cap,
						 sizeof(*core->order));
	}
	job->order_slot = core->norder;
	core->order[core->norder++] = job;
}

static void order_squeeze(struct core *core)
{
	size_t n = 0;

	for (size_t i = 0; i < core->norder; i++) {
		if (!core->order[i])
			continue;
		core->order[i]->order_slot = n;
		core->order[n++] = core->order[i];
	}
	core->norder = n;
	core->order_epoch++;
}

void jobtab_insert(struct core *core, struct core_job *job)
{
	size_t s;

	order_append(core, job);
	userjobs_insert(core, job);

	if ((core->njobs + 1) * 2 > core->nslots)
		grow(core);
	for (s = slot_of(core, job->id); core->slots[s];
	     s = (s + 1) & (core->nslots - 1))
		;
	core->slots[s] = job;
	core->njobs++;
}

struct core_job *jobtab_find(const struct core *core, uint32_t id)
{
	if (!core->nslots)
		return NULL;
	for (size_t s = slot_of(core, id); core->slots[s];
	     s = (s + 1) & (core->nslots - 1)) {
		if (core->slots[s]->id == id)
			return core->slots[s];
	}
	return NULL;
}

void jobtab_remove(struct core *core, uint32_t id)
{
	size_t mask = core->nslots - 1;
	size_t s, next;

	if (!core->nslots)
		return;
	for (s = slot_of(core, id); core->slots[s]; s = (s + 1) & mask) {
		if (core->slots[s]->id == id)
			break;
	}
	if (!core->slots[s])
		return;
	userjobs_remove(core, core->slots[s]);
	changes_gone(core, core->slots[s]); /* for rota top's deltas */
	core->order[core->slots[s]->order_slot] = NULL;
	core->slots[s] = NULL;
	core->njobs--;
	if (core->norder > 1024 && core->njobs < core->norder / 2)
		order_squeeze(core);
	/* shift back the entries whose probe run crossed the hole */
	for (next = (s + 1) & mask; core->slots[next];
	     next = (next + 1) & mask) {
		size_t home = slot_of(core, core->slots[next]->id);

		if (((next - home) & mask) >= ((next - s) & mask)) {
			core->slots[s] = core->slots[next];
			core->slots[next] = NULL;
			s = next;
		}
	}
}

static int by_id(const void *a, const void *b)
{
	const struct core_job *x = *(const struct core_job *const *)a;
	const struct core_job *y = *(const struct core_job *const *)b;

	if (!x || !y)
		return !x - !y; /* holes last */
	return x->id < y->id ? -1 : x->id > y->id;
}

void jobtab_sort(struct core *core)
{
	if (core->norder) /* qsort wants an array, even of nothing */
		qsort(core->order, core->norder, sizeof(*core->order), by_id);
	while (core->norder && !core->order[core->norder - 1])
		core->norder--;
	for (size_t i = 0; i < core->norder; i++)
		core->order[i]->order_slot = i;
	core->order_epoch++;
}

void jobtab_foreach(const struct core *core,
		    void (*fn)(const struct core_job *job, void *arg), void *arg)
{
	for (size_t i = 0; i < core->norder; i++) {
		if (core->order[i])
			fn(core->order[i], arg);
	}
}

void jobtab_fini(struct core *core)
{
	free(core->order);
	core->order = NULL;
	core->norder = core->order_cap = 0;
	free(core->slots);
	core->slots = NULL;
	core->nslots = 0;
	core->njobs = 0;
	userjobs_fini(core);
}
