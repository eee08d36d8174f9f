// SPDX-License-Identifier: MIT
/* Share-tree tickets per job, as Grid Engine deals them (tickets.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "common/xalloc.h"
#include "ctld/core/tickets.h"

static bool active(const struct rota_share_node *n)
{
	return n->pending > 0 || n->running > 0;
}

/*
 * The node acting as the root: the root, or while it has a single active
 * child, that child (Grid Engine prunes such a root).
 */
static uint32_t acting_root(const struct rota_share_tree *t)
{
	uint32_t p = 0;

	for (;;) {
		uint32_t only = ROTA_SHARE_NONE;
		unsigned count = 0;

		for (uint32_t c = t->nodes[p].first_child;
		     c != ROTA_SHARE_NONE; c = t->nodes[c].next_sibling)
			if (active(&t->nodes[c]) && count++ == 0)
				only = c;
		if (count != 1)
			return p;
		p = only;
	}
}

/* stt: a node's short-term target among its siblings. */
static double short_term(const struct rota_share_tree *t, uint32_t i)
{
	double up = t->targets[t->nodes[i].parent].ostt;

	return up > 0 ? t->targets[i].ostt / up : 0;
}

/*
 * The jobs of the level being dealt first (the deepest: those below have
 * moved up to it), by node; then running first, the best key, by id.
 */
static int level_cmp(const void *x, const void *y)
{
	const struct ticket_job *a = x, *b = y;

	if (a->at_depth != b->at_depth)
		return a->at_depth > b->at_depth ? -1 : 1;
	if (a->at != b->at)
		return a->at < b->at ? -1 : 1;
	if (a->running != b->running)
		return a->running ? -1 : 1;
	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* What one dealing keeps the same from level to level. */
struct deal {
	const struct rota_share_tree *t;
	uint32_t root;		/* the acting root */
	double pool;		/* Tickets */
	bool dependent;
};

/*
 * One level: each job of a node at 'depth' gets stt / k and moves up; at
 * the top level (the acting root's children, or the acting root when it
 * is a user's node), Tickets x ostt / k, its tickets.
 */
static void deal_level(const struct deal *dl, struct ticket_job *jobs,
		       size_t n, uint32_t depth, bool top)
{
	const struct rota_share_tree *t = dl->t;
	uint32_t root = dl->root;
	size_t i = 0;

	qsort(jobs, n, sizeof(*jobs), level_cmp);
	while (i < n && jobs[i].at_depth == depth) {
		uint32_t at = jobs[i].at;
		/* a node not under the acting root: no job of it counted */
		bool counted = !top || at == root || t->nodes[at].parent == root;
		double share = top ? t->nodes[at].tickets : short_term(t, at);
		double k = 1;

		for (; i < n && jobs[i].at == at; i++) {
			jobs[i].level = share / k;
			/* sge_sort_job_nodes()'s STN_sort for the next level */
			jobs[i].key = (dl->dependent ? jobs[i].prior : 0) +
				      jobs[i].level * dl->pool;
			k += jobs[i].slots;
			if (top)
				jobs[i].tickets = counted ? jobs[i].level : 0;
			jobs[i].at = t->nodes[at].parent;
			jobs[i].at_depth = depth - 1;
		}
	}
}

/* A running job's share of its user's tickets: by job share, if any. */
static void deal_running(const struct rota_share_tree *t,
			 struct ticket_job *jobs, size_t n, double pool)
{
	double *js = rota_xcalloc(t->n + 1, sizeof(*js));

	for (size_t i = 0; i < n; i++)
		if (jobs[i].running && jobs[i].node < t->n)
			js[jobs[i].node] += jobs[i].jobshare;
	for (size_t i = 0; i < n; i++) {
		const struct rota_share_node *leaf;
		double held;

		if (!jobs[i].running || jobs[i].node >= t->n)
			continue;
		leaf = &t->nodes[jobs[i].node];
		held = pool * t->targets[jobs[i].node].ostt_running;
		if (js[jobs[i].node] > 0) /* Grid Engine truncates */
			jobs[i].tickets =
				floor(jobs[i].jobshare * held /
				      js[jobs[i].node]);
		else
			jobs[i].tickets = leaf->running ? held / leaf->running
							: 0;
	}
	free(js);
}

void tickets_deal(const struct rota_share_tree *t, struct ticket_job *jobs,
		  size_t n, bool dependent)
{
	bool dealt = t->targets && t->n > 0 && t->targets[0].ostt > 0;
	uint32_t top, deepest = 0;
	struct deal dl = { .t = t, .dependent = dependent };

	for (size_t i = 0; i < n; i++) {
		jobs[i].tickets = 0;
		jobs[i].level = 0;
		jobs[i].key = dependent ? jobs[i].prior + 0.01 * jobs[i].jobshare
					: jobs[i].jobshare;
		/* one that joined since is not in the tree: never dealt */
		jobs[i].at = jobs[i].node < t->n ? jobs[i].node : 0;
		jobs[i].at_depth = dealt ? t->nodes[jobs[i].at].depth : 0;
		if (jobs[i].at_depth > deepest)
			deepest = jobs[i].at_depth;
	}
	if (!dealt)
		return;
	dl.root = acting_root(t);
	dl.pool = t->nodes[0].tickets / t->targets[0].ostt;
	top = t->nodes[dl.root].depth +
	      (t->nodes[dl.root].first_child != ROTA_SHARE_NONE);
	for (uint32_t d = deepest; d >= top && d > 0; d--)
		deal_level(&dl, jobs, n, d, d == top);
	/* a running job: from the second pass, among running jobs alone */
	deal_running(t, jobs, n, dl.pool);
	if (dependent)
		for (size_t i = 0; i < n; i++)
			if (!jobs[i].running)
				jobs[i].prior += jobs[i].tickets;
}
