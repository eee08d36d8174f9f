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
 * places; a node tied with the sibling before it hands its rank on to
 * its first user.  Tied sibling accounts are walked one after the other,
 * as a real Slurm 22.05 walks them (bench/oracle/FINDINGS-slurm.md):
 * its _count_tied_accounts() counts following users instead of
 * accounts, contrary to its comment, so it never merges.  MergeTies=yes
 * follows Slurm's documented rule instead: tied sibling accounts have
 * their children merged and sorted together.  Rota has no
 * FairShare=parent.
 *
 * Siblings share their parent's usage, so they are sorted by a key, S /
 * usage, which is LF over that usage: the same order, and a value that
 * moves only when the node's own usage does.  It is a long double, S a
 * double, as Slurm keeps LF and S; Slurm divides twice, so two siblings
 * a unit of precision apart could fall the other way there.  Children
 * of tied accounts, which have different parents, are compared by LF
 * itself, computed as Slurm does.
 *
 * Between two ratings usage moves for few users, and a common decay
 * moves no one: with the host's usage_ref (undecayed), a key is made
 * again only for a node whose usage moved, and a child list is sorted
 * again only when a key in it moved, by taking the moved ones out and
 * putting them back.  Everything fixed by the tree's shape and shares
 * (S, the child lists, N) is worked out again only when the host says
 * the shape changed (rota_share_tree.shape).
 *
 * The host links this file into the controller as the default fairshare
 * plugin, so it must not depend on anything but libc and libm.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/rota_plugin.h"

/*
 * An ordering value per node, kept in long double and compared first as
 * a double (which orders the same way where it differs).
 */
struct ft_keys {
	long double *l;
	double *d;
	bool *exact;	/* d is l (0, +inf, few bits): two such with equal
			   d are equal */
};

/*
 * Kept between ratings: what follows from the tree's shape; each
 * account's children in their last order (off[p]..off[p] + nkids[p] in
 * ord); each node's usage as last seen and its key.
 */
struct ft_state {
	size_t n;		/* nodes of the tree the arrays were made for */
	uint64_t shape;		/* the tree's, when they were derived */
	uint64_t epoch;		/* its usage_epoch, when ref was taken */
	bool seen;		/* ref and key hold the last rating's */
	bool *is_user;		/* per node */
	double *s;		/* per node: S, shares / siblings' shares */
	double *level;		/* per node: its children's shares */
	uint32_t *off;		/* per node: its children's place in ord */
	uint32_t *nkids;	/* per node: how many children */
	uint32_t *ord;		/* the children of every account, last order */
	uint32_t *scratch;	/* children of tied accounts, merged; moved
				   children while a list is sorted again */
	uint32_t *accounts;	/* the accounts' indexes */
	uint32_t naccounts;
	double *ref;		/* per node: usage as last seen */
	double *usage;		/* per node: the tree's usage, when the host
				   gives no usage_ref */
	bool *changed;		/* per node: ref moved in this rating */
	uint32_t *moved;	/* the nodes that did, parents first */
	size_t nmoved;
	uint32_t *parent;	/* per node; the root's 0 */
	bool *users_only;	/* per account: all its children are users */
	uint32_t *rank_at;	/* per place 1..N of the walk: the rank the
				   user there got */
	bool *unsorted;		/* per account: a child's key moved since its
				   list was last sorted */
	bool *stale;		/* per account: left unsorted by a rating
				   (its children were merged with a tied
				   account's), so 'changed' does not say
				   what moved */
	bool *pos;		/* per account: ref > 0 when its children's
				   keys were made */
	struct ft_keys key;	/* per node: S / usage, i.e. LF over the
				   parent's usage, so it orders siblings as
				   LF does and moves only with own usage */
	struct ft_keys lf;	/* LF itself, for the children of tied
				   accounts (different parents) only */
	uint32_t users;		/* N */
	double *factor;		/* per rank r in 0..N: r / N, divided once */
	bool *tie;		/* per node: tied with the one before it in
				   its list in the last walk (the first of a
				   list: false, whatever its account's) */
	uint32_t *at;		/* per node: its place in its parent's list */
	bool *in_merge;		/* per account: merged with a tied sibling
				   in the last walk */
	bool merge_ties;	/* MergeTies: the documented rule */
};

/* One compute() call: the tree and the ranking counters. */
struct ft_pass {
	struct ft_state *st;
	struct rota_share_node *nodes;
	size_t top;	/* used part of st->scratch */
	uint32_t rank;	/* the current (possibly shared) rank */
	uint32_t rnt;	/* "rank no ties": the next free place */
	bool outputs;	/* write every output, not only the factors */
};

/* What a list is sorted by. */
struct ft_order {
	const bool *is_user;
	const struct ft_keys *k;
};

/* Whether x ranks before y: higher value, users first, then tree order. */
static inline bool ft_before(const struct ft_order *o, uint32_t x, uint32_t y)
{
	const struct ft_keys *k = o->k;

	if (k->d[x] != k->d[y])
		return k->d[x] > k->d[y];
	if (!(k->exact[x] && k->exact[y]) && k->l[x] != k->l[y])
		return k->l[x] > k->l[y];
	if (o->is_user[x] != o->is_user[y])
		return o->is_user[x];
	return x < y;
}

static inline bool ft_same(const struct ft_keys *k, uint32_t x, uint32_t y)
{
	return k->d[x] == k->d[y] &&
	       ((k->exact[x] && k->exact[y]) || k->l[x] == k->l[y]);
}

static int ft_cmp(const void *a, const void *b, void *o)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return ft_before(o, x, y) ? -1 : ft_before(o, y, x);
}

/*
 * Sort 'list' from its present order; false if it took more than a few
 * moves per entry (the caller then sorts with qsort).
 */
static bool ft_insertion_sort(const struct ft_order *o, uint32_t *list,
			      size_t len)
{
	size_t budget = 8 * len + 64;

	for (size_t i = 1; i < len; i++) {
		uint32_t e = list[i];
		size_t j = i;

		while (j > 0 && ft_before(o, e, list[j - 1])) {
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

static void ft_sort(const struct ft_order *o, uint32_t *list, size_t len)
{
	if (!ft_insertion_sort(o, list, len))
		qsort_r(list, len, sizeof(*list), ft_cmp, (void *)o);
}

/*
 * Sort an account's children again after some keys moved: the others
 * keep their order, so the moved ones are taken out and put back each
 * where a binary search finds its place.  Many moved: sort them all.
 * Each child's place is noted (st->at) for ft_settled().
 */
static void ft_resort(struct ft_state *st, uint32_t p, uint32_t *tmp)
{
	struct ft_order o = { st->is_user, &st->key };
	uint32_t *list = &st->ord[st->off[p]];
	uint32_t len = st->nkids[p], kept = 0, moved = 0;

	for (uint32_t i = 0; i < len; i++) {
		if (st->changed[list[i]])
			tmp[moved++] = list[i];
		else
			list[kept++] = list[i];
	}
	if (st->stale[p] || moved * 8 > len) {
		st->stale[p] = false;
		for (uint32_t i = 0; i < moved; i++)
			list[kept + i] = tmp[i];
		ft_sort(&o, list, len);
		moved = 0; /* all in place: none to put back below */
	}
	for (uint32_t i = 0; i < moved; i++) {
		uint32_t lo = 0, hi = kept, e = tmp[i];

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (ft_before(&o, list[mid], e))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (uint32_t j = kept; j > lo; j--)
			list[j] = list[j - 1];
		list[lo] = e;
		kept++;
	}
	for (uint32_t i = 0; i < len; i++)
		st->at[list[i]] = i;
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
	free(st->accounts);
	free(st->ref);
	free(st->usage);
	free(st->changed);
	free(st->parent);
	free(st->moved);
	free(st->rank_at);
	free(st->users_only);
	free(st->unsorted);
	free(st->stale);
	free(st->pos);
	free(st->key.l);
	free(st->key.d);
	free(st->key.exact);
	free(st->lf.l);
	free(st->lf.d);
	free(st->lf.exact);
	free(st->factor);
	free(st->tie);
	free(st->at);
	free(st->in_merge);
	*st = (struct ft_state){ .merge_ties = st->merge_ties };
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
	st->accounts = malloc(n * sizeof(*st->accounts));
	st->ref = malloc(n * sizeof(*st->ref));
	st->usage = malloc(n * sizeof(*st->usage));
	st->changed = calloc(n, sizeof(*st->changed));
	st->parent = malloc(n * sizeof(*st->parent));
	st->moved = malloc(n * sizeof(*st->moved));
	st->rank_at = malloc((n + 1) * sizeof(*st->rank_at));
	st->users_only = malloc(n * sizeof(*st->users_only));
	st->unsorted = calloc(n, sizeof(*st->unsorted));
	st->stale = calloc(n, sizeof(*st->stale));
	st->pos = calloc(n, sizeof(*st->pos));
	st->key.l = malloc(n * sizeof(*st->key.l));
	st->key.d = malloc(n * sizeof(*st->key.d));
	st->key.exact = malloc(n * sizeof(*st->key.exact));
	st->lf.l = malloc(n * sizeof(*st->lf.l));
	st->lf.d = malloc(n * sizeof(*st->lf.d));
	st->lf.exact = malloc(n * sizeof(*st->lf.exact));
	st->factor = malloc((n + 1) * sizeof(*st->factor));
	st->tie = calloc(n, sizeof(*st->tie));
	st->at = malloc(n * sizeof(*st->at));
	st->in_merge = calloc(n, sizeof(*st->in_merge));
	if (!st->is_user || !st->s || !st->level || !st->off || !st->nkids ||
	    !st->ord || !st->scratch || !st->accounts || !st->ref ||
	    !st->usage ||
	    !st->changed || !st->parent ||
	    !st->moved || !st->rank_at || !st->users_only || !st->unsorted || !st->stale ||
	    !st->pos ||
	    !st->key.l || !st->key.d || !st->key.exact || !st->lf.l ||
	    !st->lf.d || !st->lf.exact || !st->factor || !st->tie ||
	    !st->at || !st->in_merge) {
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

	st->users = st->naccounts = 0;
	for (size_t i = 0; i < n; i++) {
		st->is_user[i] = nodes[i].is_user;
		st->users += nodes[i].is_user;
		if (!nodes[i].is_user)
			st->accounts[st->naccounts++] = (uint32_t)i;
		st->nkids[i] = 0;
		st->level[i] = 0;
	}
	st->parent[0] = 0;
	for (size_t i = 0; i < n; i++)
		st->users_only[i] = !nodes[i].is_user;
	for (size_t c = 1; c < n; c++) {
		if (!nodes[c].is_user)
			st->users_only[nodes[c].parent] = false;
		st->parent[c] = nodes[c].parent;
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

		st->at[c] = st->nkids[p];
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
	st->seen = false;
}

static void ft_put(struct ft_keys *k, uint32_t c, long double v)
{
	if (isnan(v)) /* NaN would break the sort */
		v = 0;
	k->l[c] = v;
	k->d[c] = (double)v;
	k->exact[c] = k->d[c] == v;
}

/*
 * Which nodes' usage moved since the last rating (all of them when the
 * shape or the usage's units changed, or the host gives no usage_ref),
 * and the key of each that moved: S / usage; zero shares 0, no usage or
 * a parent without +inf.  A parent comes before its children, so its
 * usage is taken first; when it turns 0 or stops being 0, every child's
 * key moves.  'all' says the outputs the host keeps must be written again
 * too.
 */
static void ft_changes(struct ft_state *st, const struct rota_share_tree *tree,
		       bool *all)
{
	const double *ref = tree->usage_ref;
	double *seen = st->ref;
	bool *changed = st->changed;
	uint32_t *moved = st->moved;
	size_t n = tree->n, nmoved = 0;
	bool every = !st->seen || !ref || tree->usage_epoch != st->epoch;

	for (size_t k = 0; k < st->nmoved; k++)
		changed[moved[k]] = false;
	if (!ref) {
		for (size_t c = 0; c < n; c++)
			st->usage[c] = tree->nodes[c].usage;
		ref = st->usage;
	}
	/*
	 * The common case first: few moved, so blocks of 8 whose bytes are
	 * alike are passed over (a NaN kept as it was is no move either).
	 */
	for (size_t b = 0; b < n; b += 8) {
		size_t m = n - b < 8 ? n - b : 8;

		if (!every && !memcmp(&ref[b], &seen[b], m * sizeof(*ref)))
			continue;
		for (size_t c = b; c < b + m; c++) {
			if (every || ref[c] != seen[c]) {
				changed[c] = true;
				moved[nmoved++] = (uint32_t)c;
			}
		}
	}
	/* in index order, each parent before its children */
	for (size_t k = 0; k < nmoved; k++) {
		uint32_t c = moved[k], p = st->parent[c];
		double r = ref[c];

		seen[c] = r;
		if (!st->is_user[c] && st->pos[c] != (r > 0)) {
			/* every child's key moves with it */
			const uint32_t *kids = &st->ord[st->off[c]];

			st->pos[c] = r > 0;
			for (uint32_t j = 0; j < st->nkids[c]; j++) {
				if (!changed[kids[j]]) {
					changed[kids[j]] = true;
					moved[nmoved++] = kids[j];
				}
			}
		}
		if (!c)
			continue;
		st->unsorted[p] = true;
		if (!(st->s[c] > 0))
			ft_put(&st->key, c, 0);
		else if (!st->pos[p] || !(ref[c] > 0))
			ft_put(&st->key, c, INFINITY);
		else
			ft_put(&st->key, c, st->s[c] / (long double)ref[c]);
	}
	st->nmoved = nmoved;
	st->epoch = tree->usage_epoch;
	st->seen = true;
	*all = every;
}

/*
 * LF as Slurm computes it, for the children of tied sibling accounts:
 * they have different parents, so their keys do not compare.
 */
static void ft_lf(struct ft_state *st, uint32_t c)
{
	double pu = st->ref[st->parent[c]];

	if (!(st->s[c] > 0))
		ft_put(&st->lf, c, 0);
	else if (!(pu > 0) || !(st->ref[c] > 0))
		ft_put(&st->lf, c, INFINITY);
	else
		ft_put(&st->lf, c, st->s[c] / ((long double)st->ref[c] / pu));
}

/*
 * The outputs of node c but its factor, its parent's usage 'pu': LF = S
 * / U, U = usage / parent's usage, which is key x parent's usage.  None
 * for factors(), which writes the factors alone.
 */
static inline void ft_out(const struct ft_pass *w, uint32_t c, double pu)
{
	struct rota_share_node *node = &w->nodes[c];
	double k = w->st->key.d[c];

	if (!w->outputs) /* factors() */
		return;
	node->level_fs = pu > 0 && k > 0 ? k * pu : k;
	node->usage_eff = node->usage_norm;
	node->value = node->factor;
}

/*
 * ft_rank for the children of account p when all are users (most lists):
 * the same steps, kept to what they need.
 */
static void ft_rank_users(struct ft_pass *w, uint32_t p, bool tied)
{
	struct ft_state *st = w->st;
	const uint32_t *list = &st->ord[st->off[p]];
	const double *factor = st->factor;
	struct rota_share_node *nodes = w->nodes;
	uint32_t *rank_at = st->rank_at;
	uint32_t rank = w->rank, rnt = w->rnt, len = st->nkids[p];
	double pu = st->ref[p];

	for (uint32_t i = 0; i < len; i++) {
		uint32_t c = list[i];

		if (i > 0)
			tied = ft_same(&st->key, c, list[i - 1]);
		st->tie[c] = i > 0 && tied;
		if (!tied)
			rank = rnt;
		rank_at[rnt--] = rank;
		nodes[c].factor = factor[rank];
		ft_out(w, c, pu);
	}
	w->rank = rank;
	w->rnt = rnt;
}

/*
 * Rank the users under 'list', sorted by 'k', which starts tied when the
 * account(s) it came from tied with the previous sibling, and write every
 * node's outputs on the way.  'parent' is the list's, or ROTA_SHARE_NONE
 * for the merged children of tied sibling accounts: those are merged in
 * the scratch array, and as the lists on the walk's path hold disjoint
 * nodes, n entries suffice (the rest of it serves ft_resort).  An
 * account's factor is that of its best-ranked user (0 with none below),
 * the first the walk met in it: what `rota share` shows next to the
 * account, never used to order jobs.
 */
static void ft_rank(struct ft_pass *w, const uint32_t *list, size_t len,
		    const struct ft_keys *k, bool account_tied, uint32_t parent)
{
	struct ft_state *st = w->st;
	struct rota_share_node *nodes = w->nodes;
	const bool *is_user = st->is_user;
	const double *factor = st->factor;
	uint32_t *rank_at = st->rank_at;
	uint32_t rank = w->rank, rnt = w->rnt;
	double list_pu = parent != ROTA_SHARE_NONE ? st->ref[parent] : 0;

	for (size_t i = 0; i < len; i++) {
		uint32_t c = list[i];
		bool own = i > 0 && ft_same(k, c, list[i - 1]);
		bool tied = i == 0 ? account_tied : own;
		double pu = parent != ROTA_SHARE_NONE ? list_pu
						      : st->ref[st->parent[c]];
		size_t last = i;

		st->tie[c] = own;
		if (is_user[c]) {
			if (!tied)
				rank = rnt;
			nodes[c].factor = factor[rank];
			rank_at[rnt--] = rank;
			ft_out(w, c, pu);
			continue;
		}
		while (st->merge_ties && last + 1 < len &&
		       !is_user[list[last + 1]] && ft_same(k, list[last + 1], c))
			last++;
		w->rank = rank;
		w->rnt = rnt;
		if (last == i) {
			if (st->unsorted[c]) {
				ft_resort(st, c, &st->scratch[w->top]);
				st->unsorted[c] = false;
			}
			if (st->users_only[c])
				ft_rank_users(w, c, tied);
			else
				ft_rank(w, &st->ord[st->off[c]], st->nkids[c],
					&st->key, tied, c);
			nodes[c].factor = w->rnt < rnt
					  ? factor[rank_at[rnt]] : 0;
			ft_out(w, c, pu);
		} else {
			struct ft_order o = { st->is_user, &st->lf };
			uint32_t *merged = &st->scratch[w->top];
			size_t m = 0;

			for (size_t a = i; a <= last; a++)
				st->in_merge[list[a]] = true;
			for (size_t a = i; a <= last; a++) {
				uint32_t acct = list[a];

				for (uint32_t j = 0; j < st->nkids[acct]; j++) {
					merged[m] = st->ord[st->off[acct] + j];
					ft_lf(st, merged[m++]);
				}
			}
			ft_sort(&o, merged, m);
			w->top += m;
			ft_rank(w, merged, m, &st->lf, tied, ROTA_SHARE_NONE);
			w->top -= m;
			/* each account's users were met mixed with others' */
			for (size_t a = i; a <= last; a++) {
				uint32_t acct = list[a];
				double best = 0;

				for (uint32_t j = 0; j < st->nkids[acct]; j++) {
					uint32_t kid = st->ord[st->off[acct] + j];

					if (nodes[kid].factor > best)
						best = nodes[kid].factor;
				}
				nodes[acct].factor = best;
				ft_out(w, acct,
				       parent != ROTA_SHARE_NONE
					       ? list_pu
					       : st->ref[st->parent[acct]]);
			}
		}
		rank = w->rank;
		rnt = w->rnt;
		i = last;
	}
	w->rank = rank;
	w->rnt = rnt;
}

/*
 * Whether the users' ranks stand as the last walk left them: each node
 * whose key moved is still in order with its neighbours (then its list,
 * sorted before, still is, and kept its order), and none started or
 * stopped tying with a neighbour.  Tied accounts merged in the last
 * walk had their children ordered by LF, which moves with the accounts'
 * usage: a move of such an account or of a child of one (a deeper move
 * moves the child too) is never taken as standing.  Accounts that never
 * ran a job tie at no usage and stay merged, so this must not stop every
 * skip.  (Only merged accounts' lists are left stale by a walk, so a
 * moved child of a stale list is caught here too.)
 */
static bool ft_settled(struct ft_state *st)
{
	struct ft_order o = { st->is_user, &st->key };

	for (size_t k = 0; k < st->nmoved; k++) {
		uint32_t c = st->moved[k], p = st->parent[c], i = st->at[c];
		const uint32_t *list = &st->ord[st->off[p]];
		uint32_t len = st->nkids[p];

		if (!c)
			continue;
		/* a merged account, or a child of one: the LF order moved */
		if (st->in_merge[c] || st->in_merge[p])
			return false;
		if ((i > 0 && !ft_before(&o, list[i - 1], c)) ||
		    (i + 1 < len && !ft_before(&o, c, list[i + 1])))
			return false;
		if ((i > 0 && ft_same(&st->key, c, list[i - 1])) != st->tie[c])
			return false;
		if (i + 1 < len && ft_same(&st->key, list[i + 1], c) !=
					   st->tie[list[i + 1]])
			return false;
	}
	for (size_t k = 0; k < st->nmoved; k++)
		st->unsorted[st->parent[st->moved[k]]] = false;
	return true;
}

/*
 * Rank every user, and with 'outputs' write every node's outputs; the
 * host keeps the nodes and the outputs written in them between calls of
 * one shape (rota_plugin.h), so tickets, always 0 here, are written only
 * when the tree is new to this state.  Without 'outputs' (factors()),
 * the walk is skipped when the ranks stand.
 */
static int ft_run(struct ft_state *st, struct rota_share_tree *tree,
		  bool outputs)
{
	struct rota_share_node *nodes = tree->nodes;
	struct ft_pass w = { .st = st, .nodes = nodes, .outputs = outputs };
	bool all;

	if (tree->n == 0)
		return 0;
	if (ft_state_fit(st, tree->n) < 0)
		return -ENOMEM;
	if (!tree->shape || tree->shape != st->shape)
		ft_shape(st, tree);
	ft_changes(st, tree, &all);
	if (all)
		for (size_t c = 0; c < tree->n; c++)
			nodes[c].tickets = 0;
	if (!outputs && !all && ft_settled(st))
		return 0;
	w.rank = w.rnt = st->users;
	for (size_t c = 0; c < tree->n; c++)
		st->in_merge[c] = false;
	if (st->unsorted[0]) {
		ft_resort(st, 0, st->scratch);
		st->unsorted[0] = false;
	}
	ft_rank(&w, &st->ord[st->off[0]], st->nkids[0], &st->key, false, 0);
	for (uint32_t a = 0; a < st->naccounts; a++)
		st->stale[st->accounts[a]] |= st->unsorted[st->accounts[a]];
	nodes[0].factor = w.rnt < st->users ? st->factor[st->rank_at[st->users]]
					    : 0;
	if (outputs) {
		nodes[0].level_fs = NAN;
		nodes[0].usage_eff = nodes[0].usage_norm;
		nodes[0].value = nodes[0].factor;
	}
	return 0;
}

static int fairtree_compute(void *state, struct rota_share_tree *tree)
{
	return ft_run(state, tree, true);
}

static int fairtree_factors(void *state, struct rota_share_tree *tree)
{
	return ft_run(state, tree, false);
}

static int fairtree_init(const struct rota_host *host,
			 const struct rota_plugin_conf *conf, void **state,
			 char *err, size_t errlen)
{
	struct ft_state *st;
	bool merge = false;
	int rc = 0;

	*state = NULL;
	if (ROTA_HOST_HAS(host, conf_bool) && host->conf_bool)
		rc = host->conf_bool(conf, "MergeTies", &merge, err, errlen);
	if (rc < 0)
		return rc;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->merge_ties = merge;
	*state = st;
	return 0;
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
	.factors = fairtree_factors,
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
