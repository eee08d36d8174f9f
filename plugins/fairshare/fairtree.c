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

/* One compute() call: the tree, the ranking counters and a scratch stack. */
struct ft_pass {
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

static int ft_cmp(const void *a, const void *b)
{
	const struct ft_entry *x = a;
	const struct ft_entry *y = b;

	if (x->lf != y->lf)
		return x->lf > y->lf ? -1 : 1;
	if (x->is_user != y->is_user)
		return x->is_user ? -1 : 1;
	/* qsort is not stable: keep the host's (name) order for equals */
	return x->node < y->node ? -1 : x->node > y->node;
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

/* Push the children of accounts list[first..last] onto the stack. */
static size_t ft_push_children(struct ft_pass *pass,
			       const struct ft_entry *list, size_t first,
			       size_t last)
{
	const struct rota_share_node *nodes = pass->tree->nodes;
	size_t pushed = 0;

	for (size_t i = first; i <= last; i++) {
		for (uint32_t c = nodes[list[i].node].first_child;
		     c != ROTA_SHARE_NONE; c = nodes[c].next_sibling) {
			struct ft_entry *e = &pass->stack[pass->top++];

			e->lf = pass->lf[c];
			e->node = c;
			e->is_user = nodes[c].is_user;
			pushed++;
		}
	}
	return pushed;
}

/*
 * Rank the users under the sibling list stack[base..base+len), which
 * starts tied when the account(s) it came from tied with the previous
 * sibling.
 */
static void ft_rank(struct ft_pass *pass, size_t base, size_t len,
		    bool account_tied)
{
	struct ft_entry *list = &pass->stack[base];
	long double prev = 0;

	qsort(list, len, sizeof(*list), ft_cmp);
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
			tied);
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

static int fairtree_compute(void *state, struct rota_share_tree *tree)
{
	struct ft_pass pass = { .tree = tree };

	if (tree->n == 0)
		return 0;
	pass.lf = calloc(tree->n, sizeof(*pass.lf));
	pass.stack = calloc(tree->n, sizeof(*pass.stack));
	if (!pass.lf || !pass.stack) {
		free(pass.lf);
		free(pass.stack);
		return -ENOMEM;
	}
	ft_level_fs(tree, pass.lf);
	pass.users = ft_prepare(tree, pass.lf);
	pass.rank = pass.rnt = pass.users;
	if (tree->nodes[0].first_child != ROTA_SHARE_NONE) {
		struct ft_entry root = { .node = 0 };

		ft_rank(&pass, 0, ft_push_children(&pass, &root, 0, 0), false);
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
	free(pass.lf);
	free(pass.stack);
	return 0;
}

static const struct rota_fairshare_ops fairtree_ops = {
	.size = sizeof(fairtree_ops),
	.compute = fairtree_compute,
};

/* No settings, hence no state: init and fini are left out. */
extern const struct rota_plugin ROTA_PLUGIN_EXPORT(fairshare, fairtree);
const struct rota_plugin ROTA_PLUGIN_EXPORT(fairshare, fairtree) = {
	.abi = ROTA_PLUGIN_ABI,
	.kind = ROTA_PLUGIN_FAIRSHARE,
	.name = "fairtree",
	.ops = &fairtree_ops,
};
