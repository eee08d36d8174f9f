// SPDX-License-Identifier: MIT
/*
 * What each job array's tasks have done so far (core.h, "Layers":
 * tables): how many are pending or running, how many ended otherwise
 * than COMPLETED with exit 0, and when the first started.  A dependency
 * on an array's id (afterok:12) asks these, not its tasks one by one, so
 * that a task's end costs O(1) however large the array.  Kept by array.c
 * and jobstate.c as tasks come and go; counted again after a restore
 * (an ended task the controller has forgotten is not in it).
 */
#include "config.h"

#include <stdlib.h>

#include "common/xalloc.h"
#include "ctld/core/core_internal.h"

struct array_tallies {
	struct array_tally *slots; /* open addressing on the id; 0: free */
	size_t cap;
	size_t n;
};

static struct array_tally *slot(const struct array_tallies *t, uint32_t id)
{
	size_t i = id & (t->cap - 1);

	while (t->slots[i].id && t->slots[i].id != id)
		i = (i + 1) & (t->cap - 1);
	return &t->slots[i];
}

static void grow(struct array_tallies *t)
{
	struct array_tally *old = t->slots;
	size_t oldcap = t->cap;

	t->cap = oldcap ? 2 * oldcap : 64;
	t->slots = rota_xcalloc(t->cap, sizeof(*t->slots));
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].id)
			*slot(t, old[i].id) = old[i];
	free(old);
}

struct array_tally *array_tally_get(struct core *core, uint32_t id)
{
	struct array_tallies *t = core->tallies;
	struct array_tally *s;

	if (!t)
		t = core->tallies = rota_xcalloc(1, sizeof(*t));
	if (2 * (t->n + 1) > t->cap)
		grow(t);
	s = slot(t, id);
	if (!s->id) {
		s->id = id;
		t->n++;
	}
	return s;
}

const struct array_tally *array_tally_find(const struct core *core,
					   uint32_t id)
{
	const struct array_tally *s;

	if (!core->tallies || !core->tallies->n)
		return NULL;
	s = slot(core->tallies, id);
	return s->id ? s : NULL;
}

void array_tally_reset(struct core *core)
{
	struct array_tallies *t = core->tallies;

	for (size_t i = 0; t && i < t->cap; i++)
		t->slots[i] = (struct array_tally){ 0 };
	if (t)
		t->n = 0;
}

void array_tally_fini(struct core *core)
{
	if (core->tallies)
		free(core->tallies->slots);
	free(core->tallies);
	core->tallies = NULL;
}
