// SPDX-License-Identifier: MIT
/*
 * Override and functional tickets per job, and policy_hierarchy, as Grid
 * Engine deals them (ftickets.h).  Written from the rules found against a
 * real Grid Engine (bench/oracle/FINDINGS.md, rules 7-11), which
 * model_policies.py checks against every capture; names follow sgeee.c's
 * where a reader will look for them there.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>

#include "common/xalloc.h"
#include "ctld/core/ftickets.h"

/* the categories; the first K_ENTS are entities a job refers to */
enum { K_USER, K_PROJECT, K_DEPT, K_JOB, K_N, K_ENTS = K_JOB };

/* sgeee.c adds this to the sums a pending job is valued against */
#define FTICKETS_EPSILON 0.001

/* One pending job in a category list: what sorts it. */
struct cat_item {
	uint32_t own;		/* job share, or the job's override tickets */
	uint32_t ent[K_ENTS];	/* user, project, department: TICKET_NONE
				   when it has nothing of this policy */
	double prior;
	int64_t submit;
	uint32_t id;
	size_t job;		/* index in the jobs */
};

/* The categories of one policy: runs of 'items', a cursor in each. */
struct cats {
	struct cat_item *items;
	size_t n;
	size_t *first;		/* per category: its first item not taken */
	size_t *end;
	size_t ncats;
	size_t *taken;		/* jobs taken, in order */
	size_t ntaken;
};

static struct ticket_entity *entity(struct ticket_entity *ents, uint32_t i)
{
	return i == TICKET_NONE ? NULL : &ents[i];
}

/* A job's entities, indexed by K_USER, K_PROJECT, K_DEPT. */
static void job_ents(const struct ticket_job *j, uint32_t *e)
{
	e[K_USER] = j->user;
	e[K_PROJECT] = j->project;
	e[K_DEPT] = j->dept;
}

/* The job counts of its user, project and department, +1 or -1. */
static void count_add(struct ticket_entity *ents, const struct ticket_job *j,
		      int d)
{
	uint32_t e[K_ENTS];

	job_ents(j, e);
	for (int k = 0; k < K_ENTS; k++)
		if (entity(ents, e[k]))
			ents[e[k]].count += d;
}

static int cat_cmp(const void *x, const void *y)
{
	const struct cat_item *a = x, *b = y;

	if (a->own != b->own)
		return a->own < b->own ? -1 : 1;
	for (int k = 0; k < K_ENTS; k++)
		if (a->ent[k] != b->ent[k])
			return a->ent[k] < b->ent[k] ? -1 : 1;
	/* within one: by the tickets dealt before (0 when independent) */
	if (a->prior != b->prior)
		return a->prior > b->prior ? -1 : 1;
	if (a->submit != b->submit)
		return a->submit < b->submit ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static bool same_cat(const struct cat_item *a, const struct cat_item *b)
{
	return a->own == b->own && a->ent[0] == b->ent[0] &&
	       a->ent[1] == b->ent[1] && a->ent[2] == b->ent[2];
}

/*
 * build_functional_categories(): the pending jobs with anything to get
 * of the policy ('functional': shares, else override tickets).
 */
static void cats_build(struct cats *c, struct ticket_entity *ents,
		       const struct ticket_job *jobs, size_t n,
		       bool functional, bool dependent)
{
	*c = (struct cats){ .items = rota_xcalloc(n + 1, sizeof(*c->items)) };
	for (size_t i = 0; i < n; i++) {
		const struct ticket_job *j = &jobs[i];
		uint32_t e[K_ENTS];
		bool any = false;
		struct cat_item it = {
			.own = functional ? j->jobshare : j->oticket,
			.prior = dependent ? j->prior : 0,
			.submit = j->submit,
			.id = j->id,
			.job = i,
		};

		if (j->running)
			continue;
		job_ents(j, e);
		for (int k = 0; k < K_ENTS; k++) {
			const struct ticket_entity *t = entity(ents, e[k]);
			double has = !t ? 0 : functional ? t->fshares
							 : t->otickets;

			it.ent[k] = has > 0 ? e[k] : TICKET_NONE;
			any |= has > 0;
		}
		if (it.own || any)
			c->items[c->n++] = it;
	}
	qsort(c->items, c->n, sizeof(*c->items), cat_cmp);
	c->first = rota_xcalloc(c->n + 1, sizeof(*c->first));
	c->end = rota_xcalloc(c->n + 1, sizeof(*c->end));
	c->taken = rota_xcalloc(c->n + 1, sizeof(*c->taken));
	for (size_t i = 0; i < c->n; i++) {
		if (i == 0 || !same_cat(&c->items[i - 1], &c->items[i]))
			c->first[c->ncats++] = i;
		c->end[c->ncats - 1] = i + 1;
	}
}

static void cats_free(struct cats *c)
{
	free(c->items);
	free(c->first);
	free(c->end);
	free(c->taken);
}

/* ---- override (rule 7) ---------------------------------------------------- */

static void override_running(const struct rota_ticket_policy *p,
			     struct ticket_entity *ents,
			     struct ticket_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct ticket_job *j = &jobs[i];
		uint32_t e[K_ENTS];

		if (!j->running)
			continue;
		job_ents(j, e);
		j->otickets = j->oticket;
		for (int k = 0; k < K_ENTS; k++) {
			const struct ticket_entity *t = entity(ents, e[k]);

			if (!t || !(t->otickets > 0) || !t->count)
				continue;
			j->otickets += p->share_override
					       ? t->otickets / t->count
					       : t->otickets;
		}
	}
}

/* calc_pjob_override_tickets_shared(): as if it ran next */
static double override_value(struct ticket_entity *ents,
			     const struct ticket_job *j)
{
	uint32_t e[K_ENTS];
	double o = j->oticket;

	job_ents(j, e);
	for (int k = 0; k < K_ENTS; k++) {
		const struct ticket_entity *t = entity(ents, e[k]);

		if (t && t->otickets > 0)
			o += t->otickets / (t->count + 1);
	}
	return o;
}

static void override_pending(const struct rota_ticket_policy *p,
			     struct ticket_entity *ents,
			     struct ticket_job *jobs, size_t n, bool dependent)
{
	struct cats c;

	if (!p->share_override) { /* each job all of its entities' */
		for (size_t i = 0; i < n; i++) {
			struct ticket_job *j = &jobs[i];
			uint32_t e[K_ENTS];

			if (j->running)
				continue;
			job_ents(j, e);
			j->otickets = j->oticket;
			for (int k = 0; k < K_ENTS; k++)
				if (entity(ents, e[k]))
					j->otickets += ents[e[k]].otickets;
			if (dependent)
				j->prior += j->otickets;
		}
		return;
	}
	cats_build(&c, ents, jobs, n, false, dependent);
	for (;;) {
		size_t best = SIZE_MAX;
		double bo = -1;

		for (size_t k = 0; k < c.ncats; k++) {
			struct ticket_job *j;

			if (c.first[k] == c.end[k])
				continue;
			j = &jobs[c.items[c.first[k]].job];
			j->otickets = override_value(ents, j);
			if (best == SIZE_MAX || j->otickets > bo ||
			    (j->otickets == bo &&
			     j->id < jobs[c.items[c.first[best]].job].id)) {
				best = k;
				bo = j->otickets;
			}
		}
		if (best == SIZE_MAX)
			break;
		c.taken[c.ntaken] = c.items[c.first[best]++].job;
		count_add(ents, &jobs[c.taken[c.ntaken]], 1);
		/* whatever the hierarchy: sgeee.c always adds them */
		jobs[c.taken[c.ntaken++]].prior += bo;
	}
	for (size_t i = 0; i < c.ntaken; i++)
		count_add(ents, &jobs[c.taken[i]], -1);
	cats_free(&c);
}

/* ---- functional (rules 8-10) ---------------------------------------------- */

/* get_functional_weighting_parameters(): of the kinds with a sum */
static void fweights(const struct rota_ticket_policy *p, const double *sums,
		     double *w)
{
	double total;

	w[K_USER] = sums[K_USER] > 0 ? p->weight_user : 0;
	w[K_PROJECT] = sums[K_PROJECT] > 0 ? p->weight_project : 0;
	w[K_DEPT] = sums[K_DEPT] > 0 ? p->weight_department : 0;
	w[K_JOB] = sums[K_JOB] > 0 ? p->weight_job : 0;
	total = w[K_USER] + w[K_PROJECT] + w[K_DEPT] + w[K_JOB];
	for (int k = 0; total > 0 && k < K_N; k++)
		w[k] /= total;
}

/* calc_job_functional_tickets_pass1(): its shares, into the sums */
static void fpass1(const struct rota_ticket_policy *p,
		   struct ticket_entity *ents, struct ticket_job *j,
		   double *sums, bool add_all)
{
	uint32_t e[K_ENTS];

	job_ents(j, e);
	for (int k = 0; k < K_ENTS; k++) {
		const struct ticket_entity *t = entity(ents, e[k]);

		if (!t)
			continue;
		j->fsh[k] = p->share_functional ? t->fshares / t->count
						: t->fshares;
		if (add_all || t->count <= 1)
			sums[k] += j->fsh[k];
	}
	sums[K_JOB] += j->jobshare;
}

/* calc_job_functional_tickets_pass2() */
static double fvalue(const struct rota_ticket_policy *p,
		     const struct ticket_job *j, const double *sums,
		     const double *w)
{
	uint32_t e[K_ENTS];
	double f = 0;

	job_ents(j, e);
	for (int k = 0; k < K_ENTS; k++)
		if (e[k] != TICKET_NONE && sums[k] != 0)
			f += w[k] * j->fsh[k] * p->functional / sums[k];
	if (sums[K_JOB] != 0)
		f += w[K_JOB] * j->jobshare * p->functional / sums[K_JOB];
	return f;
}

/* Running jobs' functional tickets; 'sums' left as pass 1 made them. */
static void functional_running(const struct rota_ticket_policy *p,
			       struct ticket_entity *ents,
			       struct ticket_job *jobs, size_t n, double *sums)
{
	double w[K_N];

	for (size_t i = 0; i < n; i++)
		if (jobs[i].running)
			fpass1(p, ents, &jobs[i], sums, true);
	fweights(p, sums, w);
	for (size_t i = 0; i < n; i++)
		if (jobs[i].running)
			jobs[i].ftickets = fvalue(p, &jobs[i], sums, w);
}

/*
 * calc_intern_pending_job_functional_tickets(): as if it ran next, its
 * own entity shares not in the sums when they are shared.
 */
static double fcandidate(const struct rota_ticket_policy *p,
			 struct ticket_entity *ents, struct ticket_job *j,
			 const double *sums, const double *w)
{
	uint32_t e[K_ENTS];
	double s[K_N];

	job_ents(j, e);
	for (int k = 0; k < K_N; k++)
		s[k] = sums[k] + FTICKETS_EPSILON;
	for (int k = 0; k < K_ENTS; k++) {
		const struct ticket_entity *t = entity(ents, e[k]);

		if (!t)
			continue;
		j->fsh[k] = p->share_functional ? t->fshares / (t->count + 1)
						: t->fshares;
		if (!p->share_functional)
			s[k] += j->fsh[k];
	}
	s[K_JOB] += j->jobshare;
	return fvalue(p, j, s, w);
}

/* The category whose first job is worth most, or SIZE_MAX. */
static size_t fbest(const struct rota_ticket_policy *p,
		    struct ticket_entity *ents, struct ticket_job *jobs,
		    const struct cats *c, const double *sums, const double *w,
		    bool dependent)
{
	size_t best = SIZE_MAX;
	double bv = -1;

	for (size_t k = 0; k < c->ncats; k++) {
		struct ticket_job *j, *b;
		double v;

		if (c->first[k] == c->end[k])
			continue;
		j = &jobs[c->items[c->first[k]].job];
		j->ftickets = fcandidate(p, ents, j, sums, w);
		v = j->ftickets + (dependent ? j->prior : 0);
		b = best == SIZE_MAX ? NULL
				     : &jobs[c->items[c->first[best]].job];
		if (v >= bv && (!b || v > bv || j->submit < b->submit ||
				(j->submit == b->submit && j->id < b->id))) {
			best = k;
			bv = v;
		}
	}
	return best;
}

static void functional_pending(const struct rota_ticket_policy *p,
			       struct ticket_entity *ents,
			       struct ticket_job *jobs, size_t n,
			       const double *running_sums, bool dependent)
{
	double sums[K_N], w[K_N], ones[K_N] = { 1, 1, 1, 1 };
	struct cats c;
	size_t rounds;

	for (int k = 0; k < K_N; k++)
		sums[k] = running_sums[k];
	fweights(p, ones, w); /* all the weights, whatever the sums */
	cats_build(&c, ents, jobs, n, true, dependent);
	rounds = c.n < p->max_functional ? c.n : p->max_functional;
	for (size_t r = 0; r < rounds; r++) {
		size_t k = fbest(p, ents, jobs, &c, sums, w, dependent);
		struct ticket_job *j;

		if (k == SIZE_MAX)
			break;
		j = &jobs[c.items[c.first[k]++].job];
		if (c.first[k] < c.end[k]) /* copy_ftickets() */
			jobs[c.items[c.first[k]].job].ftickets = j->ftickets;
		count_add(ents, j, 1);
		fpass1(p, ents, j, sums, !p->share_functional);
		j->ftickets = fvalue(p, j, sums, w);
		c.taken[c.ntaken++] = (size_t)(j - jobs);
	}
	for (size_t i = 0; i < c.ntaken; i++) {
		count_add(ents, &jobs[c.taken[i]], -1);
		if (dependent)
			jobs[c.taken[i]].prior += jobs[c.taken[i]].ftickets;
	}
	/* destribute_ftickets(): the rest get their first job's value */
	for (size_t k = 0; k < c.ncats; k++)
		for (size_t i = c.first[k] + 1; i < c.end[k]; i++) {
			struct ticket_job *j = &jobs[c.items[i].job];

			j->ftickets = jobs[c.items[c.first[k]].job].ftickets;
			if (dependent)
				j->prior += j->ftickets;
		}
	cats_free(&c);
}

/* ---- the hierarchy (rule 11) ---------------------------------------------- */

/* sconf_ph_fill_array(): the named policies, dependent, then the rest. */
static size_t hierarchy(const struct rota_ticket_policy *p, char *order,
			bool *dependent)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(p->hierarchy) && p->hierarchy[i]; i++)
		if (n < 3) {
			order[n] = p->hierarchy[i];
			dependent[n++] = true;
		}
	for (const char *c = "OFS"; *c; c++) {
		bool named = false;

		for (size_t i = 0; i < n; i++)
			named |= order[i] == *c;
		if (!named) {
			order[n] = *c;
			dependent[n++] = false;
		}
	}
	return n;
}

void ftickets_deal(const struct rota_ticket_policy *p,
		   struct ticket_entity *ents, const struct rota_share_tree *t,
		   struct ticket_job *jobs, size_t n)
{
	double sums[K_N] = { 0 };
	char order[3];
	bool dependent[3];
	size_t np;

	for (size_t i = 0; i < n; i++) {
		jobs[i].otickets = jobs[i].ftickets = jobs[i].prior = 0;
		if (p && jobs[i].running)
			count_add(ents, &jobs[i], 1);
	}
	if (!p) { /* Grid Engine's default hierarchy, OFS: S dependent */
		tickets_deal(t, jobs, n, true);
		return;
	}
	override_running(p, ents, jobs, n);
	if (p->functional > 0)
		functional_running(p, ents, jobs, n, sums);
	np = hierarchy(p, order, dependent);
	for (size_t i = 0; i < np; i++) {
		if (order[i] == 'O')
			override_pending(p, ents, jobs, n, dependent[i]);
		else if (order[i] == 'F' && p->functional > 0)
			functional_pending(p, ents, jobs, n, sums,
					   dependent[i]);
		else if (order[i] == 'S')
			tickets_deal(t, jobs, n, dependent[i]);
	}
	for (size_t i = 0; i < n; i++)
		if (jobs[i].running)
			count_add(ents, &jobs[i], -1);
}
