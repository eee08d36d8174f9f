// SPDX-License-Identifier: MIT
/*
 * Advance reservations (core.h, "Advance reservations"; "Layers":
 * resources): the table, and what placement and the passes ask of it.
 * Creating, deleting and restoring them, and the checks at submit, are
 * in resv_admin.c.
 *
 * A reservation holds a count of cores on each of its nodes, not named
 * cores: the nodes hand out their lowest free cores (node.c), so naming
 * them would only make a reservation wait for cores that happen to be
 * busy.  Nodes= takes whole nodes (sized when they register), their GPUs
 * too; CoreCount= spreads N cores over the named nodes, or over any, in
 * node order, taking on each what other reservations leave over the same
 * span, and GpuCount= (Slurm's TRES=gres/gpu=M) M GPUs among them, on
 * nodes with GPUs first.  GPUs are counted as cores are, per node.  Two
 * reservations never hold more of a node than it has at the same time,
 * so a job of one can always get its cores once ordinary jobs are gone.
 *
 * It is a small table walked in full: a site has a handful of them.  The
 * core has no clock, so a reservation starts and ends when an event or a
 * pass first sees 'now' past its times (resv_update); every such change,
 * like a create or a delete, goes through resv_changed().
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctld/core/core_internal.h"
#include "ctld/core/resv.h"
#include "ctld/core/share.h"

void resv_changed(struct core *core)
{
	core->resv_stamp++;
	core_mark_changed(core); /* the next passes must look again */
}

uint64_t core_resv_stamp(const struct core *core)
{
	return core->resv_stamp;
}

static void resv_free(struct core_resv *r)
{
	free(r->name);
	core_names_free(r->users);
	core_names_free(r->accounts);
	free(r->parts);
	free(r->lics);
	free(r->lics_used);
}

void resv_remove(struct core *core, size_t i)
{
	resv_free(&core->resv[i]);
	memmove(&core->resv[i], &core->resv[i + 1],
		(core->nresv - i - 1) * sizeof(*core->resv));
	core->nresv--;
}

void resv_fini(struct core *core)
{
	for (size_t i = 0; i < core->nresv; i++)
		resv_free(&core->resv[i]);
	free(core->resv);
	core->resv = NULL;
	core->nresv = 0;
}

void resv_update(struct core *core, int64_t now)
{
	bool changed = false;

	for (size_t i = core->nresv; i-- > 0;) {
		struct core_resv *r = &core->resv[i];

		if (now >= r->end) {
			resv_remove(core, i);
			changed = true;
		} else if (!r->active && now >= r->start) {
			r->active = true;
			changed = true;
		}
	}
	if (changed)
		resv_changed(core);
}

size_t core_resv_count(const struct core *core)
{
	return core->nresv;
}

const struct core_resv *core_resv_get(const struct core *core, size_t i)
{
	return i < core->nresv ? &core->resv[i] : NULL;
}

static struct core_resv *find_name(const struct core *core, const char *name)
{
	for (size_t i = 0; name && i < core->nresv; i++)
		if (strcmp(core->resv[i].name, name) == 0)
			return &core->resv[i];
	return NULL;
}

const struct core_resv *core_resv_find(const struct core *core,
				       const char *name)
{
	return find_name(core, name);
}

static struct core_resv *find_id(const struct core *core, uint32_t id)
{
	for (size_t i = 0; id && i < core->nresv; i++)
		if (core->resv[i].id == id)
			return &core->resv[i];
	return NULL;
}

uint32_t core_resv_part_cores(const struct core *core,
			      const struct core_resv *r, uint32_t i)
{
	const struct core_resv_part *p = &r->parts[i];

	return p->whole ? node_cores_total(&core->nodes[p->node]) : p->cores;
}

uint32_t core_resv_part_gpus(const struct core *core,
			     const struct core_resv *r, uint32_t i)
{
	const struct core_resv_part *p = &r->parts[i];

	return p->whole ? core->nodes[p->node].ngpus : p->gpus;
}

struct core_resv_part *resv_part_on(const struct core_resv *r, uint32_t node)
{
	for (uint32_t i = 0; i < r->nparts; i++)
		if (r->parts[i].node == node)
			return &r->parts[i];
	return NULL;
}

int64_t core_resv_next_boundary(const struct core *core, int64_t now)
{
	int64_t next = NEVER;

	for (size_t i = 0; i < core->nresv; i++) {
		const struct core_resv *r = &core->resv[i];
		int64_t t = r->start > now ? r->start : r->end;

		if (t > now && t < next)
			next = t;
	}
	return next;
}

/* ---- placement and the passes ---------------------------------------- */

static bool overlaps(const struct core_resv *r, int64_t t, int64_t d)
{
	return r->end > t && (!d || r->start < t + d);
}

/* A part's cores, or its GPUs, and how many its running jobs have. */
static uint32_t part_has(const struct core *core, const struct core_resv *r,
			 const struct core_resv_part *p, bool gpus)
{
	uint32_t k = (uint32_t)(p - r->parts);

	return gpus ? core_resv_part_gpus(core, r, k)
		    : core_resv_part_cores(core, r, k);
}

static uint32_t part_used(const struct core_resv_part *p, bool gpus)
{
	return gpus ? p->gpus_used : p->used;
}

/*
 * Of 'want' cores (or GPUs) free on 'node', what the job may have over
 * [t, t + its limit): a reservation's job, what its reservation holds
 * there; any other, what no reservation holds (only asked 'now': a
 * profile's blocks hold them later, profile.c).
 */
static uint32_t node_share(const struct core *core, const struct core_job *job,
			   uint32_t node, bool now, int64_t t, uint32_t want,
			   bool gpus)
{
	uint32_t blocked = 0;

	if (job->desc.reservation) {
		const struct core_resv *r =
			core_resv_find(core, job->desc.reservation);
		const struct core_resv_part *p =
			r ? resv_part_on(r, node) : NULL;
		uint32_t have;

		if (!p || (now && (!r->active || t < r->start || t >= r->end)))
			return 0;
		have = part_has(core, r, p, gpus);
		if (now)
			have = have > part_used(p, gpus)
				       ? have - part_used(p, gpus)
				       : 0;
		return want < have ? want : have;
	}
	for (size_t i = 0; now && i < core->nresv; i++) {
		const struct core_resv *r = &core->resv[i];
		const struct core_resv_part *p = resv_part_on(r, node);
		uint32_t c;

		if (!p || !overlaps(r, t, job->time_limit))
			continue;
		c = part_has(core, r, p, gpus);
		/* its jobs' cores (GPUs) are busy already: count the rest */
		if (r->active)
			c = c > part_used(p, gpus) ? c - part_used(p, gpus) : 0;
		blocked += c;
	}
	return want > blocked ? want - blocked : 0;
}

uint32_t resv_node_cores(const struct core *core, const struct core_job *job,
			 uint32_t node, bool now, int64_t t, uint32_t cores)
{
	return node_share(core, job, node, now, t, cores, false);
}

uint32_t resv_node_gpus(const struct core *core, const struct core_job *job,
			uint32_t node, bool now, int64_t t, uint32_t gpus)
{
	return node_share(core, job, node, now, t, gpus, true);
}

const char *resv_job_reason(const struct core *core,
			    const struct core_job *job)
{
	const struct core_resv *r;

	if (!job->desc.reservation)
		return NULL;
	r = core_resv_find(core, job->desc.reservation);
	if (!r)
		return "ReservationDeleted";
	return r->active ? NULL : "Reservation";
}

/* A job of 'r' starts or stops holding its licenses there. */
static void lics_move(struct core_resv *r, const struct core_job *job,
		      bool take)
{
	for (uint32_t i = 0; i < job->nlics; i++) {
		for (uint32_t k = 0; k < r->nlics; k++) {
			uint32_t *u = &r->lics_used[k];
			uint32_t c = job->lics[i].count;

			if (r->lics[k].idx != job->lics[i].idx)
				continue;
			*u = take ? *u + c : *u - (c < *u ? c : *u);
		}
	}
}

void resv_job_take(struct core *core, struct core_job *job)
{
	struct core_resv *r;

	if (!job->desc.reservation)
		return;
	r = find_name(core, job->desc.reservation);
	if (!r)
		return;
	job->resv_id = r->id;
	lics_move(r, job, true);
	for (uint32_t i = 0; i < job->nalloc; i++) {
		struct core_resv_part *p = resv_part_on(r, job->alloc[i].node);

		if (!p)
			continue;
		p->used += job->alloc[i].ncores;
		p->gpus_used += job->alloc[i].ngpus;
	}
}

void resv_job_release(struct core *core, struct core_job *job)
{
	struct core_resv *r = find_id(core, job->resv_id);

	job->resv_id = 0;
	if (r)
		lics_move(r, job, false);
	for (uint32_t i = 0; r && i < job->nalloc; i++) {
		struct core_resv_part *p = resv_part_on(r, job->alloc[i].node);
		uint32_t c = job->alloc[i].ncores;
		uint32_t g = job->alloc[i].ngpus;

		if (!p)
			continue;
		p->used -= c < p->used ? c : p->used;
		p->gpus_used -= g < p->gpus_used ? g : p->gpus_used;
	}
}

int64_t resv_job_holds_until(const struct core *core,
			     const struct core_job *job, int64_t end)
{
	const struct core_resv *r = find_id(core, job->resv_id);

	return r && r->active && r->end > end ? r->end : end;
}
