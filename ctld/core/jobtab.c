// SPDX-License-Identifier: MIT
/*
 * The job table: open addressing on the job id with linear probing and
 * backward-shift deletion, so lookups stay O(1) with no tombstones however
 * many jobs come and go.  Ids are sequential, so the identity hash spreads
 * them perfectly.
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

void jobtab_insert(struct core *core, struct core_job *job)
{
	size_t s;

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
	core->slots[s] = NULL;
	core->njobs--;
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

void jobtab_fini(struct core *core)
{
	free(core->slots);
	core->slots = NULL;
	core->nslots = 0;
	core->njobs = 0;
}
