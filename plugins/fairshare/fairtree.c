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
 * moves no one, so each account's children are sorted starting from
 * their last order (an insertion sort: one compare each when nothing
 * moved), falling back to qsort when the list was never sorted or moved
 * too much.  The result is the same total order either way.
 *
 * The host links this file into the controller as the default fairshare
 * plugin, so it must not depend on anything but libc and libm.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "plugins/rota_plugin.h"

/* A node in a sibling list being ranked; carries its own sort key. */
struct ft_entry {
	long double lf;
	uint32_t node;
	bool is_user;
};

/*
 * Kept between ratings: each account's children in their last order (a
 * list through 'next' from 'head'), and the scratch arrays.
 */
struct ft_state {
	size_t n;		/* nodes of the tree the arrays were made for */
	uint32_t *head;		/* per node: its first child, last order */
	uint32_t *next;		/* per node: the sibling after it */
	uint32_t *stamp;	/* per node: the last push that took it */
	uint32_t pushes;
	long double *lf;
	struct ft_entry *stack;
};

/* One compute() call: the tree, the ranking counters and a scratch stack. */
struct ft_pass {
	struct ft_state *st;
	struct rota_share_tree *tree;
	long double *lf; /* per node; the root's unused */
	/*
	 * The sibling lists on the current path of the walk, one after the
	 * other.  They hold disjoint sets of nodes, so n entries suffice.
	 */
	struct ft_entry *stack;
	size_t top;
	uint32_t rank;	/* the current (possibly shared) rank */
	uint32_t rnt;	/* "rank no ties": the next free place */
	uint32_t users; /* N */
};

/* <0 when x ranks before y: higher LF, users first, then tree order. */
static inline int ft_order(const struct ft_entry *x, const struct ft_entry *y)
{
	if (x->lf != y->lf)
		return x->lf > y->lf ? -1 : 1;
	if (x->is_user != y->is_user)
		return x->is_user ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static int ft_cmp(const void *a, const void *b)
{
	return ft_order(a, b);
}

/*
 * Sort 'list' from its present order; false if it took more than a few
 * moves per entry (the caller then sorts with qsort).
 */
static bool ft_insertion_sort(struct ft_entry *list, size_t len)
{
	size_t budget = 8 * len + 64;

	for (size_t i = 1; i < len; i++) {
		struct ft_entry e = list[i];
		size_t j = i;

		while (j > 0 && ft_order(&e, &list[j - 1]) < 0) {
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

/* LF of child c of p, among siblings holding 'level_shares'. */
static long double ft_lf(const struct rota_share_node *nodes, uint32_t p,
			 uint32_t c, double level_shares)
{
	/* S a double and U a long double, as Slurm stores them */
	double s = 0;
	long double u = 0;
	long double lf;

	if (level_shares > 0)
		s = nodes[c].shares / level_shares;
	if (nodes[p].usage > 0)
		u = (long double)nodes[c].usage / nodes[p].usage;
	if (!(s > 0))
		return 0;
	if (!(u > 0))
		return INFINITY;
	lf = s / u;
	return isnan(lf) ? 0 : lf; /* NaN would break the sort */
}

/* LF of every node but the root. */
static void ft_level_fs(struct rota_share_tree *tree, long double *lf)
{
	const struct rota_share_node *nodes = tree->nodes;

	for (uint32_t p = 0; p < tree->n; p++) {
		double level_shares = 0;
		uint32_t c;

		for (c = nodes[p].first_child; c != ROTA_SHARE_NONE;
		     c = nodes[c].next_sibling)
			level_shares += nodes[c].shares;
		for (c = nodes[p].first_child; c != ROTA_SHARE_NONE;
		     c = nodes[c].next_sibling)
			lf[c] = ft_lf(nodes, p, c, level_shares);
	}
}

static void ft_push(struct ft_pass *pass, uint32_t c)
{
	struct ft_entry *e = &pass->stack[pass->top++];

	e->lf = pass->lf[c];
	e->node = c;
	e->is_user = pass->tree->nodes[c].is_user;
	pass->st->stamp[c] = pass->st->pushes;
}

/*
 * Push account p's children in their last order, if it still holds
 * exactly them; false (nothing pushed) if not.
 */
static bool ft_push_last_order(struct ft_pass *pass, uint32_t p)
{
	const struct rota_share_node *nodes = pass->tree->nodes;
	struct ft_state *st = pass->st;
	size_t mark = pass->top, k = 0;

	for (uint32_t c = nodes[p].first_child; c != ROTA_SHARE_NONE;
	     c = nodes[c].next_sibling)
		k++;
	st->pushes++;
	for (uint32_t c = st->head[p]; c != ROTA_SHARE_NONE && k;
	     c = st->next[c], k--) {
		if (c >= pass->tree->n || nodes[c].parent != p ||
		    st->stamp[c] == st->pushes)
			break;
		ft_push(pass, c);
	}
	/* k distinct children of p: all of them */
	if (k == 0)
		return true;
	pass->top = mark;
	return false;
}

/* Push the children of accounts list[first..last] onto the stack. */
static size_t ft_push_children(struct ft_pass *pass,
			       const struct ft_entry *list, size_t first,
			       size_t last)
{
	const struct rota_share_node *nodes = pass->tree->nodes;
	size_t mark = pass->top;

	if (first == last && ft_push_last_order(pass, list[first].node))
		return pass->top - mark;
	pass->st->pushes++;
	for (size_t i = first; i <= last; i++) {
		for (uint32_t c = nodes[list[i].node].first_child;
		     c != ROTA_SHARE_NONE; c = nodes[c].next_sibling)
			ft_push(pass, c);
	}
	return pass->top - mark;
}

/* Remember the sorted children of account p for the next rating. */
static void ft_keep_order(struct ft_state *st, uint32_t p,
			  const struct ft_entry *list, size_t len)
{
	st->head[p] = len ? list[0].node : ROTA_SHARE_NONE;
	for (size_t i = 0; i < len; i++)
		st->next[list[i].node] =
			i + 1 < len ? list[i + 1].node : ROTA_SHARE_NONE;
}

/*
 * Rank the users under the sibling list stack[base..base+len), which
 * starts tied when the account(s) it came from tied with the previous
 * sibling.  'parent' is the one account it came from, or
 * ROTA_SHARE_NONE for merged tied accounts.
 */
static void ft_rank(struct ft_pass *pass, size_t base, size_t len,
		    uint32_t parent, bool account_tied)
{
	struct ft_entry *list = &pass->stack[base];
	long double prev = 0;

	if (!ft_insertion_sort(list, len))
		qsort(list, len, sizeof(*list), ft_cmp);
	if (parent != ROTA_SHARE_NONE)
		ft_keep_order(pass->st, parent, list, len);
	for (size_t i = 0; i < len; i++) {
		bool tied = i == 0 ? account_tied : list[i].lf == prev;
		size_t last = i;
		size_t mark = pass->top;

		prev = list[i].lf;
		if (list[i].is_user) {
			if (!tied)
				pass->rank = pass->rnt;
			pass->tree->nodes[list[i].node].factor =
				(double)pass->rank / pass->users;
			pass->rnt--;
			continue;
		}
		while (last + 1 < len && !list[last + 1].is_user &&
		       list[last + 1].lf == list[i].lf)
			last++;
		ft_rank(pass, mark, ft_push_children(pass, list, i, last),
			i == last ? list[i].node : ROTA_SHARE_NONE, tied);
		pass->top = mark;
		i = last;
	}
}

/* Set the outputs that do not depend on the ranking; count the users. */
static uint32_t ft_prepare(struct rota_share_tree *tree, const long double *lf)
{
	uint32_t users = 0;

	for (size_t i = 0; i < tree->n; i++) {
		struct rota_share_node *node = &tree->nodes[i];

		node->usage_eff = node->usage_norm;
		node->level_fs = i == 0 ? NAN : (double)lf[i];
		node->factor = 0;
		node->tickets = 0;
		if (node->is_user)
			users++;
	}
	return users;
}

static void ft_state_free(struct ft_state *st)
{
	free(st->head);
	free(st->next);
	free(st->stamp);
	free(st->lf);
	free(st->stack);
	*st = (struct ft_state){ 0 };
}

/* The state's arrays sized for 'n' nodes; a new tree forgets orders. */
static int ft_state_fit(struct ft_state *st, size_t n)
{
	if (st->n == n)
		return 0;
	ft_state_free(st);
	st->n = n;
	st->head = malloc(n * sizeof(*st->head));
	st->next = malloc(n * sizeof(*st->next));
	st->stamp = calloc(n, sizeof(*st->stamp));
	st->lf = calloc(n, sizeof(*st->lf));
	st->stack = calloc(n, sizeof(*st->stack));
	if (!st->head || !st->next || !st->stamp || !st->lf || !st->stack) {
		ft_state_free(st);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		st->head[i] = st->next[i] = ROTA_SHARE_NONE;
	return 0;
}

static int fairtree_compute(void *state, struct rota_share_tree *tree)
{
	struct ft_pass pass = { .st = state, .tree = tree };

	if (tree->n == 0)
		return 0;
	if (ft_state_fit(pass.st, tree->n) < 0)
		return -ENOMEM;
	pass.lf = pass.st->lf;
	pass.stack = pass.st->stack;
	ft_level_fs(tree, pass.lf);
	pass.users = ft_prepare(tree, pass.lf);
	pass.rank = pass.rnt = pass.users;
	if (tree->nodes[0].first_child != ROTA_SHARE_NONE) {
		struct ft_entry root = { .node = 0 };

		ft_rank(&pass, 0, ft_push_children(&pass, &root, 0, 0), 0,
			false);
	}
	/*
	 * An account's factor is that of its best-ranked user (0 with no
	 * user below): what `rota share` shows next to the account, and
	 * never used to order jobs.  Preorder puts children after their
	 * parent, so one backward sweep carries the maximum up.
	 */
	for (size_t i = tree->n - 1; i > 0; i--) {
		struct rota_share_node *node = &tree->nodes[i];
		struct rota_share_node *parent = &tree->nodes[node->parent];

		if (node->factor > parent->factor)
			parent->factor = node->factor;
	}
	for (size_t i = 0; i < tree->n; i++)
		tree->nodes[i].value = tree->nodes[i].factor;
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
