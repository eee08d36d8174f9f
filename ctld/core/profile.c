// SPDX-License-Identifier: MIT
/*
 * The availability profile of backfill: for every node, the cores,
 * memory and GPUs that will be free from now on, as a step function of
 * time (GPUs of any type: a node's are of one type as a rule, and
 * placement checks a job's type against the node's own).  It
 * starts from what is free now and steps up as running jobs reach their
 * time limits; each reservation made during a pass steps it down for the
 * reserved span.  A job fits at time t on a node when the minimum over
 * [t, t + its limit) covers it: a job started now against this profile
 * can therefore never delay a reservation, EASY's or conservative's.
 *
 * Advance reservations (resv.c) are blocks too: the cores and GPUs one
 * holds on a node step down at its start (or now, less what its jobs use)
 * and up at its end, and its running jobs' come back only when it ends.  The
 * blocks are for the jobs of no reservation; a reservation's own jobs are
 * placed on its cores by what is free now (backfill.c).
 *
 * Cores kept for test queues (ReservedCores: a pool on each node, shared
 * by all its test queues) are counted apart: 'cores' is what a test
 * queue's job may have, 'ocores' what an ordinary job may have, the
 * node's size less the ordinary jobs' cores, the reservations' and the
 * whole pool.  An ordinary job gets the smaller of the two (test jobs
 * beyond the pool take ordinary cores too).  A test job's steps move
 * 'cores' only: what it frees goes back to the pool first, as place.c
 * counts the cores free now.
 *
 * Licenses (Licenses=, licenses.c) are counted cluster-wide in the same
 * way, one step list per license: what is free now, up as running jobs
 * holding some reach their limits, down for each job the pass starts or
 * reserves, so that a waiting job's licenses are kept for it as its
 * cores are.
 *
 * Each node's steps are few (its running jobs, its reservations), kept
 * sorted in a small array, so a query costs a short walk; the pass asks
 * only for the nodes of the job's queue that could ever hold it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <stdbool.h>

#include "common/xalloc.h"
#include "ctld/core/core_internal.h"
#include "ctld/core/profile.h"
#include "ctld/core/resv.h"

#define PROFILE_LEVELS 24	/* 2^0 .. 2^23 cores on one node */

struct step {
	int64_t t;
	int64_t mem;		/* change of free memory (MB) at t */
	int32_t cores;		/* change of free cores at t */
	int32_t ocores;		/* change of an ordinary job's cores at t */
	int32_t gpus;		/* change of free GPUs at t */
};

/*
 * A license's free count over time (Licenses=, licenses.c): cluster-wide,
 * not per node; it steps up as running jobs holding it reach their limits
 * and down for each job the pass starts or reserves.  A node's generic
 * resources (GresTypes, gres.c) are counted the same way, per node.
 */
struct lic_step {
	int64_t t;
	int32_t d;		/* change of the free count at t */
};

struct lic_steps {
	int32_t free0;		/* free now */
	struct lic_step *s;	/* in time order */
	uint32_t n;
	uint32_t cap;
};

struct node_steps {
	struct step *s;
	uint32_t n;
	uint32_t cap;
	int32_t cores0;		/* free now */
	int64_t mem0;
	int32_t ocores0;	/* an ordinary job's now (the file's top) */
	int32_t gpus0;
	/*
	 * reach[k]: the first step after now at which the node has 2^k
	 * cores free; recomputed, when asked, after its steps changed.
	 */
	int64_t reach[PROFILE_LEVELS];
	bool reach_stale;
	struct lic_steps *gres;	/* per GresTypes name; NULL: none */
};

struct profile {
	int64_t now;
	bool overdue;		/* a running job is past its limit */
	struct node_steps *nodes;
	size_t nnodes;
	struct lic_steps *lics;	/* per license, as core->licenses */
	size_t nlics;
	size_t ngres;		/* GresTypes names: each node's 'gres' */
};

/*
 * The running jobs' ends, per node in time order, kept as jobs start and
 * stop (jobstate.c, core_running_add/core_running_remove): a pass copies them instead
 * of sorting them again.  Jobs of an advance reservation are left to each
 * pass, their cores being held as long as the reservation lasts.
 */
struct base_node {
	struct step *s;
	uint32_t n;
	uint32_t cap;
};

struct profile_base {
	struct base_node *nodes;
	size_t nnodes;
	size_t in_resv;		/* running jobs left to each pass */
};

/* The first step of 'b' later than t (or, with 'same', not earlier). */
static uint32_t base_find(const struct base_node *b, int64_t t, bool same)
{
	uint32_t lo = 0, hi = b->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (b->s[mid].t < t || (!same && b->s[mid].t == t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void profile_base_add(struct core *core, const struct core_job *job)
{
	struct profile_base *pb = core->pbase;
	bool test = core->queues[job->queue].reserved_cores > 0;

	if (!pb) {
		pb = core->pbase = rota_xcalloc(1, sizeof(*pb));
		pb->nnodes = core->nnodes;
		pb->nodes = rota_xcalloc(core->nnodes + 1, sizeof(*pb->nodes));
	}
	if (job->resv_id) {
		pb->in_resv++;
		return;
	}
	for (uint32_t k = 0; k < job->nalloc; k++) {
		const struct core_alloc *a = &job->alloc[k];
		struct base_node *b = &pb->nodes[a->node];
		uint32_t i;

		if (b->n == b->cap) {
			b->cap = b->cap ? 2 * b->cap : 4;
			b->s = rota_xreallocarray(b->s, b->cap, sizeof(*b->s));
		}
		/* after those of the same time: in start order, as a rebuild */
		i = base_find(b, job_limit_end(job), false);
		memmove(&b->s[i + 1], &b->s[i], (b->n - i) * sizeof(*b->s));
		b->s[i] = (struct step){
			.t = job_limit_end(job),
			.cores = (int32_t)a->ncores,
			.mem = (int64_t)core_job_node_mem(job, a->ncores),
			.ocores = test ? 0 : (int32_t)a->ncores,
			.gpus = (int32_t)a->ngpus,
		};
		b->n++;
	}
}

void profile_base_remove(struct core *core, const struct core_job *job)
{
	struct profile_base *pb = core->pbase;
	bool test = core->queues[job->queue].reserved_cores > 0;

	if (!pb)
		return;
	if (job->resv_id) {
		pb->in_resv--;
		return;
	}
	for (uint32_t k = 0; k < job->nalloc; k++) {
		const struct core_alloc *a = &job->alloc[k];
		struct base_node *b = &pb->nodes[a->node];
		int64_t mem = (int64_t)core_job_node_mem(job, a->ncores);
		int32_t oc = test ? 0 : (int32_t)a->ncores;
		uint32_t i = base_find(b, job_limit_end(job), true);

		/* equal steps are alike: any one of them is this job's */
		while (i < b->n && b->s[i].t == job_limit_end(job) &&
		       (b->s[i].cores != (int32_t)a->ncores ||
			b->s[i].mem != mem || b->s[i].ocores != oc ||
			b->s[i].gpus != (int32_t)a->ngpus))
			i++;
		if (i == b->n || b->s[i].t != job_limit_end(job))
			continue;
		memmove(&b->s[i], &b->s[i + 1], (b->n - i - 1) * sizeof(*b->s));
		b->n--;
	}
}

void profile_base_destroy(struct core *core)
{
	struct profile_base *pb = core->pbase;

	if (!pb)
		return;
	for (size_t i = 0; i < pb->nnodes; i++)
		free(pb->nodes[i].s);
	free(pb->nodes);
	free(pb);
	core->pbase = NULL;
}

/* Node i's kept ends into its steps; those past due end any moment. */
static void copy_base(struct profile *p, const struct base_node *b,
		      struct node_steps *ns)
{
	if (ns->cap < b->n) {
		ns->cap = b->n;
		ns->s = rota_xreallocarray(ns->s, ns->cap, sizeof(*ns->s));
	}
	if (b->n)
		memcpy(ns->s, b->s, b->n * sizeof(*b->s));
	ns->n = b->n;
	for (uint32_t k = 0; k < ns->n && ns->s[k].t <= p->now; k++) {
		ns->s[k].t = p->now + 1;
		p->overdue = true;
	}
}

/* 'ocores': the change for ordinary jobs (a test job's steps: 0). */
static void step_add(struct node_steps *ns, int64_t t, int32_t cores,
		     int64_t mem, int32_t ocores, int32_t gpus)
{
	uint32_t i = ns->n;

	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? 2 * ns->cap : 4;
		ns->s = rota_xreallocarray(ns->s, ns->cap, sizeof(*ns->s));
	}
	/* most steps come in time order: insert from the end */
	while (i > 0 && ns->s[i - 1].t > t) {
		ns->s[i] = ns->s[i - 1];
		i--;
	}
	ns->s[i] = (struct step){
		.t = t, .mem = mem, .cores = cores, .ocores = ocores,
		.gpus = gpus,
	};
	ns->n++;
	ns->reach_stale = true;
}

/* Each reservation's cores and GPUs as a block over its span. */
static void add_reservations(struct profile *p, const struct core *core)
{
	for (size_t i = 0; i < core_resv_count(core); i++) {
		const struct core_resv *r = core_resv_get(core, i);

		for (uint32_t k = 0; k < r->nparts && r->end > p->now; k++) {
			const struct core_resv_part *rp = &r->parts[k];
			struct node_steps *ns = &p->nodes[rp->node];
			uint32_t c = core_resv_part_cores(core, r, k);
			uint32_t g = core_resv_part_gpus(core, r, k);

			if (r->start > p->now) {
				step_add(ns, r->start, -(int32_t)c, 0,
					 -(int32_t)c, -(int32_t)g);
				step_add(ns, r->end, (int32_t)c, 0, (int32_t)c,
					 (int32_t)g);
				continue;
			}
			/* its jobs' cores and GPUs are not free already */
			c = c > rp->used ? c - rp->used : 0;
			g = g > rp->gpus_used ? g - rp->gpus_used : 0;
			ns->cores0 -= (int32_t)c;
			ns->ocores0 -= (int32_t)c;
			ns->gpus0 -= (int32_t)g;
			step_add(ns, r->end, (int32_t)c, 0, (int32_t)c,
				 (int32_t)g);
		}
	}
}

static void lic_step_add(struct lic_steps *ls, int64_t t, int32_t d)
{
	uint32_t i = ls->n;

	if (ls->n == ls->cap) {
		ls->cap = ls->cap ? 2 * ls->cap : 4;
		ls->s = rota_xreallocarray(ls->s, ls->cap, sizeof(*ls->s));
	}
	while (i > 0 && ls->s[i - 1].t > t) {
		ls->s[i] = ls->s[i - 1];
		i--;
	}
	ls->s[i] = (struct lic_step){ .t = t, .d = d };
	ls->n++;
}

/* Free now, and the running jobs' licenses back at their limits. */
static void add_licenses(struct profile *p, const struct core *core)
{
	for (size_t i = 0; i < p->nlics; i++) {
		const struct core_license *l = &core->licenses[i];

		p->lics[i].n = 0;
		p->lics[i].free0 = (int32_t)(l->total > l->used
						     ? l->total - l->used
						     : 0);
	}
	for (const struct core_job *j = core->running.head; p->nlics && j;
	     j = j->next) {
		int64_t end = job_limit_end(j);

		if (!j->nlics)
			continue;
		if (end <= p->now) {
			end = p->now + 1; /* past its limit: any moment */
			p->overdue = true;
		}
		/* a reservation's job gives its licenses back to it */
		end = resv_job_holds_until(core, j, end);
		for (uint32_t k = 0; k < j->nlics && end != NEVER; k++)
			lic_step_add(&p->lics[j->lics[k].idx], end,
				     (int32_t)j->lics[k].count);
	}
}

/* Each reservation's licenses as a block over its span, as its cores. */
static void add_resv_licenses(struct profile *p, const struct core *core)
{
	for (size_t i = 0; i < core_resv_count(core); i++) {
		const struct core_resv *r = core_resv_get(core, i);

		for (uint32_t k = 0; k < r->nlics && r->end > p->now; k++) {
			struct lic_steps *ls = &p->lics[r->lics[k].idx];
			int32_t c = (int32_t)r->lics[k].count;

			if (r->start > p->now) {
				lic_step_add(ls, r->start, -c);
			} else {
				/* its jobs' are taken already */
				c -= (int32_t)r->lics_used[k] < c
					     ? (int32_t)r->lics_used[k]
					     : c;
				ls->free0 -= c;
			}
			if (r->end != NEVER)
				lic_step_add(ls, r->end, c);
		}
	}
}

/* A step per running job's end on each of its nodes with GresTypes counts. */
static void add_gres(struct profile *p, const struct core *core)
{
	for (size_t i = 0; p->ngres && i < core->nnodes; i++) {
		const struct core_node *n = &core->nodes[i];
		struct node_steps *ns = &p->nodes[i];

		if (!n->ngres)
			continue;
		if (!ns->gres)
			ns->gres = rota_xcalloc(p->ngres, sizeof(*ns->gres));
		for (uint32_t k = 0; k < p->ngres; k++) {
			ns->gres[k].n = 0;
			ns->gres[k].free0 =
				node_is_usable(n)
					? (int32_t)node_gres_count(core, n, k,
								   NULL, true)
					: 0;
		}
	}
	for (const struct core_job *j = core->running.head; p->ngres && j;
	     j = j->next) {
		int64_t end = job_limit_end(j);

		if (!j->ngres || end == NEVER)
			continue;
		end = end <= p->now ? p->now + 1 : end;
		for (uint32_t a = 0; a < j->nalloc; a++) {
			struct node_steps *ns = &p->nodes[j->alloc[a].node];

			for (uint32_t k = 0; ns->gres && k < j->ngres; k++)
				lic_step_add(&ns->gres[j->gres[k].idx], end,
					     (int32_t)j->gres[k].count);
		}
	}
}

struct profile *profile_renew(struct profile *p, const struct core *core,
			      int64_t now)
{
	if (p && (p->nnodes != core->nnodes || p->nlics != core->nlicenses ||
		  p->ngres != core->ngres_types)) {
		profile_destroy(p);
		p = NULL;
	}
	if (!p) {
		p = rota_xcalloc(1, sizeof(*p));
		p->nnodes = core->nnodes;
		p->nodes = rota_xcalloc(core->nnodes + 1, sizeof(*p->nodes));
		p->nlics = core->nlicenses;
		p->lics = rota_xcalloc(core->nlicenses + 1, sizeof(*p->lics));
		p->ngres = core->ngres_types;
	}
	p->now = now;
	p->overdue = false;
	for (size_t i = 0; i < core->nnodes; i++) {
		const struct core_node *n = &core->nodes[i];
		bool up = node_is_usable(n);

		p->nodes[i].n = 0; /* the steps' arrays are kept */
		p->nodes[i].reach_stale = true;
		p->nodes[i].cores0 = up ? (int32_t)node_cores_free(n) : 0;
		p->nodes[i].mem0 = up ? (int64_t)node_mem_free(n) : 0;
		p->nodes[i].gpus0 = up ? (int32_t)(n->ngpus - n->gpus_used) : 0;
		/* the test jobs' cores back, the whole pool off */
		p->nodes[i].ocores0 = p->nodes[i].cores0 +
				      (up ? (int32_t)n->test_used : 0) -
				      (int32_t)n->test_reserved;
	}
	for (size_t i = 0; core->pbase && i < core->nnodes; i++)
		if (node_is_usable(&core->nodes[i]))
			copy_base(p, &core->pbase->nodes[i], &p->nodes[i]);
	for (const struct core_job *j = core->running.head;
	     j && core->pbase && core->pbase->in_resv; j = j->next) {
		int64_t end = job_limit_end(j);

		if (!j->resv_id)
			continue;
		if (end <= now) {
			end = now + 1; /* past its limit: ends any moment */
			p->overdue = true;
		}
		end = resv_job_holds_until(core, j, end);
		for (uint32_t k = 0; k < j->nalloc; k++) {
			const struct core_alloc *a = &j->alloc[k];
			int32_t c = (int32_t)a->ncores;

			if (!node_is_usable(&core->nodes[a->node]))
				continue;
			step_add(&p->nodes[a->node], end, c,
				 (int64_t)core_job_node_mem(j, a->ncores),
				 core->queues[j->queue].reserved_cores ? 0 : c,
				 (int32_t)a->ngpus);
		}
	}
	add_reservations(p, core);
	add_licenses(p, core);
	add_resv_licenses(p, core);
	add_gres(p, core);
	return p;
}

bool profile_overdue(const struct profile *p)
{
	return p->overdue;
}

void profile_destroy(struct profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nnodes; i++) {
		free(p->nodes[i].s);
		for (size_t k = 0; p->nodes[i].gres && k < p->ngres; k++)
			free(p->nodes[i].gres[k].s);
		free(p->nodes[i].gres);
	}
	free(p->nodes);
	for (size_t i = 0; i < p->nlics; i++)
		free(p->lics[i].s);
	free(p->lics);
	free(p);
}

/* The cores a job may have: a test job all free ones (see the top). */
static int32_t usable(int32_t c, int32_t oc, bool test)
{
	return test || c < oc ? c : oc;
}

void profile_min_free(const struct profile *p, uint32_t node, int64_t t,
		      int64_t d, bool test, int32_t *cores, int64_t *mem,
		      int32_t *gpus)
{
	const struct node_steps *ns = &p->nodes[node];
	int64_t end = d ? t + d : NEVER;
	int32_t c = ns->cores0, oc = ns->ocores0, g = ns->gpus0;
	int64_t m = ns->mem0;
	int32_t min_c, min_g;
	int64_t min_m;
	uint32_t i = 0;

	for (; i < ns->n && ns->s[i].t <= t; i++) {
		c += ns->s[i].cores;
		oc += ns->s[i].ocores;
		m += ns->s[i].mem;
		g += ns->s[i].gpus;
	}
	min_c = usable(c, oc, test);
	min_m = m;
	min_g = g;
	while (i < ns->n && ns->s[i].t < end) {
		/* the steps of one instant are one change: no dip between */
		int64_t at = ns->s[i].t;

		for (; i < ns->n && ns->s[i].t == at; i++) {
			c += ns->s[i].cores;
			oc += ns->s[i].ocores;
			m += ns->s[i].mem;
			g += ns->s[i].gpus;
		}
		min_c = usable(c, oc, test) < min_c ? usable(c, oc, test)
						    : min_c;
		min_m = m < min_m ? m : min_m;
		min_g = g < min_g ? g : min_g;
	}
	*cores = min_c;
	*mem = min_m;
	if (gpus)
		*gpus = min_g;
}

int64_t profile_next_change(const struct profile *p, uint32_t node,
			    int64_t after)
{
	const struct node_steps *ns = &p->nodes[node];

	for (uint32_t i = 0; i < ns->n; i++) {
		if (ns->s[i].t > after && ns->s[i].cores > 0)
			return ns->s[i].t;
	}
	return NEVER;
}

void profile_take(struct profile *p, uint32_t node, int64_t t, int64_t d,
		  bool test, uint32_t cores, uint64_t mem, uint32_t gpus)
{
	struct node_steps *ns = &p->nodes[node];
	int32_t oc = test ? 0 : (int32_t)cores;

	ns->reach_stale = true;
	if (t <= p->now) {
		ns->cores0 -= (int32_t)cores;
		ns->ocores0 -= oc;
		ns->mem0 -= (int64_t)mem;
		ns->gpus0 -= (int32_t)gpus;
	} else {
		step_add(ns, t, -(int32_t)cores, -(int64_t)mem, -oc,
			 -(int32_t)gpus);
	}
	if (d)
		step_add(ns, t + d, (int32_t)cores, (int64_t)mem, oc,
			 (int32_t)gpus);
}

int64_t profile_earliest(const struct profile *p, uint32_t node, bool test,
			 int32_t cores, int64_t mem, int32_t gpus, int64_t d,
			 int64_t until)
{
	const struct node_steps *ns = &p->nodes[node];
	int32_t c = ns->cores0, oc = ns->ocores0, g = ns->gpus0;
	int64_t m = ns->mem0, start = p->now;
	uint32_t i = 0;

	/* steps at or before now are part of the free-now values */
	for (; i < ns->n && ns->s[i].t <= p->now; i++) {
		c += ns->s[i].cores;
		oc += ns->s[i].ocores;
		m += ns->s[i].mem;
		g += ns->s[i].gpus;
	}
	/*
	 * One sweep over the segments: 'start' is the candidate, the first
	 * segment since the last short one; it holds once the segments from
	 * it cover [start, start + d) with enough cores and memory.
	 */
	for (;;) {
		bool ok = usable(c, oc, test) >= cores && m >= mem &&
			  g >= gpus;

		if (!ok)
			start = NEVER;
		if (ok && start == NEVER)
			start = i && ns->s[i - 1].t > p->now ? ns->s[i - 1].t
							     : p->now;
		if (start != NEVER &&
		    (i == ns->n || (d && ns->s[i].t >= start + d)))
			return start <= until ? start : NEVER;
		/* no candidate yet, and any later one would start too late */
		if (i == ns->n || (start == NEVER && ns->s[i].t > until))
			return NEVER;
		/* to the next instant, all its steps at once (min_free) */
		for (int64_t at = ns->s[i].t; i < ns->n && ns->s[i].t == at;
		     i++) {
			c += ns->s[i].cores;
			oc += ns->s[i].ocores;
			m += ns->s[i].mem;
			g += ns->s[i].gpus;
		}
	}
}

static void reach_levels(struct node_steps *ns)
{
	int64_t c = ns->cores0;
	unsigned set = 0;

	for (uint32_t i = 0; i < ns->n && set < PROFILE_LEVELS; i++) {
		c += ns->s[i].cores;
		/* levels reached form a prefix: 2^k free means 2^j for j < k */
		while (ns->s[i].cores > 0 && set < PROFILE_LEVELS &&
		       c >= (int64_t)1 << set)
			ns->reach[set++] = ns->s[i].t;
	}
	while (set < PROFILE_LEVELS)
		ns->reach[set++] = NEVER;
	ns->reach_stale = false;
}

int64_t profile_gain_bound(struct profile *p, uint32_t node, uint32_t cores)
{
	struct node_steps *ns = &p->nodes[node];
	unsigned k = 0;

	if (ns->reach_stale)
		reach_levels(ns);
	while (k + 1 < PROFILE_LEVELS && (uint64_t)1 << (k + 1) <= cores)
		k++;
	return cores ? ns->reach[k] : p->now;
}

int64_t profile_now(const struct profile *p)
{
	return p->now;
}

/* The least free count of license 'ls' over [t, t + d) (d 0: on). */
static int32_t lic_min(const struct lic_steps *ls, int64_t t, int64_t d)
{
	int64_t end = d && t <= NEVER - d ? t + d : NEVER;
	int32_t f = ls->free0, min;
	uint32_t i = 0;

	for (; i < ls->n && ls->s[i].t <= t; i++)
		f += ls->s[i].d;
	min = f;
	for (; i < ls->n && ls->s[i].t < end; i++) {
		f += ls->s[i].d;
		min = f < min ? f : min;
	}
	return min;
}

bool profile_lics_fit(const struct profile *p, const struct core_job *job,
		      int64_t t, int64_t d)
{
	for (uint32_t k = 0; k < job->nlics; k++)
		if (job->lics[k].idx >= p->nlics ||
		    lic_min(&p->lics[job->lics[k].idx], t, d) <
			    (int32_t)job->lics[k].count)
			return false;
	return true;
}

int64_t profile_lics_earliest(const struct profile *p,
			      const struct core_job *job, int64_t from,
			      int64_t d)
{
	int64_t t = from;

	/*
	 * A fit can only begin at 'from' or where a license gains: try
	 * those times in order (a job's licenses are few, their steps the
	 * running and planned jobs that hold them).
	 */
	for (;;) {
		int64_t next = NEVER;

		if (profile_lics_fit(p, job, t, d))
			return t;
		for (uint32_t k = 0; k < job->nlics; k++) {
			const struct lic_steps *ls;

			if (job->lics[k].idx >= p->nlics)
				return NEVER;
			ls = &p->lics[job->lics[k].idx];
			for (uint32_t i = 0; i < ls->n; i++)
				if (ls->s[i].t > t && ls->s[i].d > 0 &&
				    ls->s[i].t < next)
					next = ls->s[i].t;
		}
		if (next == NEVER)
			return NEVER;
		t = next;
	}
}

void profile_lics_take(struct profile *p, const struct core_job *job,
		       int64_t t, int64_t d)
{
	for (uint32_t k = 0; k < job->nlics; k++) {
		struct lic_steps *ls;
		int32_t c = (int32_t)job->lics[k].count;

		if (job->lics[k].idx >= p->nlics)
			continue;
		ls = &p->lics[job->lics[k].idx];
		if (t <= p->now)
			ls->free0 -= c;
		else
			lic_step_add(ls, t, -c);
		if (d && t <= NEVER - d)
			lic_step_add(ls, t + d, c);
	}
}

int32_t profile_gres_min(const struct profile *p, uint32_t node, uint32_t idx,
			 int64_t t, int64_t d)
{
	const struct node_steps *ns = &p->nodes[node];

	return ns->gres && idx < p->ngres ? lic_min(&ns->gres[idx], t, d) : 0;
}

void profile_gres_take(struct profile *p, uint32_t node,
		       const struct core_job *job, int64_t t, int64_t d)
{
	struct node_steps *ns = &p->nodes[node];

	for (uint32_t k = 0; ns->gres && k < job->ngres; k++) {
		struct lic_steps *ls = &ns->gres[job->gres[k].idx];
		int32_t c = (int32_t)job->gres[k].count;

		if (t <= p->now)
			ls->free0 -= c;
		else
			lic_step_add(ls, t, -c);
		if (d && t <= NEVER - d)
			lic_step_add(ls, t + d, c);
	}
}
