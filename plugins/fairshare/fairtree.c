// SPDX-License-Identifier: MIT
/*
 * fairshare/fairtree: Slurm's Fair Tree (the default since Slurm 19.05).
 *
 * Every node gets a Level FS, LF = S / U, looking only at its siblings:
 * S = shares / siblings' shares, U = usage / parent's usage (0 when the
 * parent has none).  Zero shares rank last whatever the usage (LF 0); no
 * usage ranks first (LF +inf).  Siblings are sorted by LF, highest first,
 * users before accounts on equal LF, and a depth-first walk ranks the
 * users as it meets them: the first gets N (the number of user leaves),
 * the last 1, and factor = rank / N.  So an account's users all outrank
 * those of any sibling account with a lower LF, however the usage is
 * spread below: the point of Fair Tree over classic.
 *
 * Ties use competition ranking, as Slurm's _calc_tree_fs() does: tied
 * sibling users share a rank and the next one down skips the tied
 * places; a user tied with the sibling account that follows it hands its
 * rank to that account's first user; tied sibling accounts have their
 * children merged and sorted together.  (Slurm's _count_tied_accounts()
 * counts following users instead of accounts, contrary to its comment;
 * we follow the documented rule.)  LF is computed and compared in long
 * double, S in double, exactly as Slurm stores them, so that ties and
 * near-ties fall the same way.  Rota has no FairShare=parent.
 *
 * Between two ratings usage moves for few users, and a common decay
 * moves no one, so each account's children are kept in their last order
 * and sorted from it (an insertion sort: one compare each when nothing
 * moved), falling back to qsort when they moved too much.  The result is
 * the same total order either way.  Everything fixed by the tree's shape
 * and shares (S, the child lists, N) is worked out again only when the
 * host says the shape changed (rota_share_tree.shape).
 *
 * The host links this file into the controller as the default fairshare
 * plugin, so it must not depend on anything but libc and libm.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "plugins/rota_plugin.h"

/*
 * Kept between ratings: what follows from the tree's shape, and each
 * account's children in their last order (off[p]..off[p] + nkids[p] in
 * ord).
 */
struct ft_state {
	size_t n;		/* nodes of the tree the arrays were made for */
	uint64_t shape;		/* the tree's, when they were derived */
	bool *is_user;		/* per node */
	double *s;		/* per node: S, shares / siblings' shares */
	double *level;		/* per node: its children's shares */
	uint32_t *off;		/* per node: its children's place in ord */
	uint32_t *nkids;	/* per node: how many children */
	uint32_t *ord;		/* the children of every account, last order */
	uint32_t *scratch;	/* children of tied accounts, merged */
	long double *lf;	/* per node; the root's unused */
	double *lfd;		/* the same rounded: compared first, as it
				   orders the same way where it differs */
	bool *exact;		/* lfd is lf (0, no usage, few bits): two
				   such with equal lfd have equal lf */
	uint32_t users;		/* N */
	double *factor;		/* per rank r in 0..N: r / N, divided once */
};

/* One compute() call: the tree and the ranking counters. */
struct ft_pass {
	const struct ft_state *st;
	struct rota_share_tree *tree;
	size_t top;	/* used part of st->scratch */
	uint32_t rank;	/* the current (possibly shared) rank */
	uint32_t rnt;	/* "rank no ties": the next free place */
};

/* Whether x ranks before y: higher LF, users first, then tree order. */
static inline bool ft_before(const struct ft_state *st, uint32_t x, uint32_t y)
{
	if (st->lfd[x] != st->lfd[y])
		return st->lfd[x] > st->lfd[y];
	if (!(st->exact[x] && st->exact[y]) && st->lf[x] != st->lf[y])
		return st->lf[x] > st->lf[y];
	if (st->is_user[x] != st->is_user[y])
		return st->is_user[x];
	return x < y;
}

static inline bool ft_same_lf(const struct ft_state *st, uint32_t x,
			      uint32_t y)
{
	return st->lfd[x] == st->lfd[y] &&
	       ((st->exact[x] && st->exact[y]) || st->lf[x] == st->lf[y]);
}

static int ft_cmp(const void *a, const void *b, void *st)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return ft_before(st, x, y) ? -1 : ft_before(st, y, x);
}

/*
 * Sort 'list' from its present order; false if it took more than a few
 * moves per entry (the caller then sorts with qsort).
 */
static bool ft_insertion_sort(const struct ft_state *st, uint32_t *list,
			      size_t len)
{
	size_t budget = 8 * len + 64;

	for (size_t i = 1; i < len; i++) {
		uint32_t e = list[i];
		size_t j = i;

		while (j > 0 && ft_before(st, e, list[j - 1])) {
			list[j] = list[j - 1];
			j--;
			if (!budget--) {
				list[j] = e;
				return false;
			}
		}
		list[j] = e;
	}
	return true;
}

static void ft_sort(const struct ft_state *st, uint32_t *list, size_t len)
{
	if (!ft_insertion_sort(st, list, len))
		qsort_r(list, len, sizeof(*list), ft_cmp, (void *)st);
}

static void ft_state_free(struct ft_state *st)
{
	free(st->is_user);
	free(st->s);
	free(st->level);
	free(st->off);
	free(st->nkids);
	free(st->ord);
	free(st->scratch);
	free(st->lf);
	free(st->factor);
	free(st->lfd);
	free(st->exact);
	*st = (struct ft_state){ 0 };
}

/* The state's arrays sized for 'n' nodes. */
static int ft_state_fit(struct ft_state *st, size_t n)
{
	if (st->n == n)
		return 0;
	ft_state_free(st);
	st->is_user = malloc(n * sizeof(*st->is_user));
	st->s = malloc(n * sizeof(*st->s));
	st->level = malloc(n * sizeof(*st->level));
	st->off = malloc(n * sizeof(*st->off));
	st->nkids = malloc(n * sizeof(*st->nkids));
	st->ord = malloc(n * sizeof(*st->ord));
	st->scratch = malloc(n * sizeof(*st->scratch));
	st->lf = malloc(n * sizeof(*st->lf));
	st->factor = malloc((n + 1) * sizeof(*st->factor));
	st->lfd = malloc(n * sizeof(*st->lfd));
	st->exact = malloc(n * sizeof(*st->exact));
	if (!st->is_user || !st->s || !st->level ||
	    !st->off ||
	    !st->nkids || !st->ord || !st->scratch || !st->lf || !st->factor || !st->lfd ||
	    !st->exact) {
		ft_state_free(st);
		return -ENOMEM;
	}
	st->n = n;
	return 0;
}

/* Take the tree's shape: S, N and the child lists in tree order. */
static void ft_shape(struct ft_state *st, const struct rota_share_tree *tree)
{
	const struct rota_share_node *nodes = tree->nodes;
	size_t n = tree->n;
	uint32_t k = 0;

	st->users = 0;
	for (size_t i = 0; i < n; i++) {
		st->is_user[i] = nodes[i].is_user;
		st->users += nodes[i].is_user;
		st->nkids[i] = 0;
		st->level[i] = 0;
	}
	for (size_t c = 1; c < n; c++) {
		st->nkids[nodes[c].parent]++;
		st->level[nodes[c].parent] += nodes[c].shares;
	}
	for (size_t i = 0; i < n; i++) {
		st->off[i] = k;
		k += st->nkids[i];
		st->nkids[i] = 0;
	}
	/* children in increasing index: the tree's sibling order */
	for (size_t c = 1; c < n; c++) {
		uint32_t p = nodes[c].parent;

		st->ord[st->off[p] + st->nkids[p]++] = (uint32_t)c;
	}
	/* S a double, as Slurm stores it: shares over the siblings' */
	for (size_t c = 1; c < n; c++) {
		double level = st->level[nodes[c].parent];

		st->s[c] = level > 0 ? nodes[c].shares / level : 0;
	}
	st->s[0] = 0;
	for (uint32_t r = 0; r <= st->users; r++)
		st->factor[r] = (double)r / st->users;
	st->shape = tree->shape;
}

/*
 * Every node's LF, and the outputs that do not depend on the ranking:
 * S / U, U = usage / parent's usage (0 when the parent has none); zero
 * shares give 0, no usage +inf.
 */
static void ft_level_fs(struct ft_state *st, struct rota_share_tree *tree)
{
	struct rota_share_node *nodes = tree->nodes;

	nodes[0].usage_eff = nodes[0].usage_norm;
	nodes[0].level_fs = NAN;
	nodes[0].factor = nodes[0].tickets = 0;
	for (size_t c = 1; c < tree->n; c++) {
		struct rota_share_node *node = &nodes[c];
		double pu = nodes[node->parent].usage;
		long double u, lf;

		/* no division where the answer is known: 0, or no usage */
		if (!(st->s[c] > 0)) {
			lf = 0;
		} else if (!(pu > 0) || !(node->usage > 0)) {
			lf = INFINITY;
		} else {
			u = (long double)node->usage / pu;
			lf = u > 0 ? st->s[c] / u : INFINITY;
		}
		if (isnan(lf)) /* NaN would break the sort */
			lf = 0;
		st->lf[c] = lf;
		st->lfd[c] = (double)lf;
		st->exact[c] = st->lfd[c] == lf;
		node->usage_eff = node->usage_norm;
		node->level_fs = st->lfd[c];
		node->factor = node->tickets = 0;
	}
}

/*
 * Rank the users under 'list', sorted, which starts tied when the
 * account(s) it came from tied with the previous sibling.  Tied sibling
 * accounts have their children merged in the scratch array: the lists on
 * the walk's path hold disjoint nodes, so n entries suffice.
 */
static void ft_rank(struct ft_pass *w, const uint32_t *list, size_t len,
		    bool account_tied)
{
	const struct ft_state *st = w->st;
	for (size_t i = 0; i < len; i++) {
		uint32_t c = list[i];
		bool tied = i == 0 ? account_tied : ft_same_lf(st, c, list[i - 1]);
		size_t last = i;

		if (st->is_user[c]) {
			if (!tied)
				w->rank = w->rnt;
			w->tree->nodes[c].factor =
				st->factor[w->rank];
			w->rnt--;
			continue;
		}
		while (last + 1 < len && !st->is_user[list[last + 1]] &&
		       ft_same_lf(st, list[last + 1], c))
			last++;
		if (last == i) {
			uint32_t *kids = &st->ord[st->off[c]];

			ft_sort(st, kids, st->nkids[c]);
			ft_rank(w, kids, st->nkids[c], tied);
		} else {
			uint32_t *merged = &st->scratch[w->top];
			size_t m = 0;

			for (size_t k = i; k <= last; k++) {
				uint32_t a = list[k];

				for (uint32_t j = 0; j < st->nkids[a]; j++)
					merged[m++] = st->ord[st->off[a] + j];
			}
			ft_sort(st, merged, m);
			w->top += m;
			ft_rank(w, merged, m, tied);
			w->top -= m;
		}
		i = last;
	}
}

static int fairtree_compute(void *state, struct rota_share_tree *tree)
{
	struct ft_state *st = state;
	struct ft_pass w = { .st = st, .tree = tree };
	uint32_t *top;

	if (tree->n == 0)
		return 0;
	if (ft_state_fit(st, tree->n) < 0)
		return -ENOMEM;
	if (!tree->shape || tree->shape != st->shape)
		ft_shape(st, tree);
	ft_level_fs(st, tree);
	w.rank = w.rnt = st->users;
	top = &st->ord[st->off[0]];
	ft_sort(st, top, st->nkids[0]);
	ft_rank(&w, top, st->nkids[0], false);
	/*
	 * An account's factor is that of its best-ranked user (0 with no
	 * user below): what `rota share` shows next to the account, and
	 * never used to order jobs.  Preorder puts children after their
	 * parent, so one backward sweep carries the maximum up; a node's
	 * own is final when the sweep reaches it.
	 */
	for (size_t i = tree->n - 1; i > 0; i--) {
		struct rota_share_node *node = &tree->nodes[i];
		struct rota_share_node *parent = &tree->nodes[node->parent];

		if (node->factor > parent->factor)
			parent->factor = node->factor;
		node->value = node->factor;
	}
	tree->nodes[0].value = tree->nodes[0].factor;
	return 0;
}

static int fairtree_init(const struct rota_host *host,
			 const struct rota_plugin_conf *conf, void **state,
			 char *err, size_t errlen)
{
	(void)host;
	(void)conf;
	(void)err;
	(void)errlen;
	*state = calloc(1, sizeof(struct ft_state));
	return *state ? 0 : -ENOMEM;
}

static void fairtree_fini(void *state)
{
	struct ft_state *st = state;

	if (!st)
		return;
	ft_state_free(st);
	free(st);
}

static const struct rota_fairshare_ops fairtree_ops = {
	.size = sizeof(fairtree_ops),
	.compute = fairtree_compute,
};

extern const struct rota_plugin ROTA_PLUGIN_EXPORT(fairshare, fairtree);
const struct rota_plugin ROTA_PLUGIN_EXPORT(fairshare, fairtree) = {
	.abi = ROTA_PLUGIN_ABI,
	.kind = ROTA_PLUGIN_FAIRSHARE,
	.name = "fairtree",
	.init = fairtree_init,
	.fini = fairtree_fini,
	.ops = &fairtree_ops,
};
