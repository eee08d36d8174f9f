// SPDX-License-Identifier: MIT
/*
 * The four fairshare plugins on the documented example trees, called
 * through their descriptors as the host calls them, without the loader.
 * Trees are written as compact tables and filled in exactly as the host
 * fills them: preorder, siblings by name, shares_norm the product along
 * the path, an account's usage and job counts the sums of its children's.
 * One file for the four plugins, past 800 lines: they share the fake
 * host and the table-to-tree builder, which must stay the host's twin.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld/core/tickets.h"
#include "plugins/rota_plugin.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define MAX_NODES 64
/* what no plugin writes: proves every output of every node was set */
#define UNSET -777.0

extern const struct rota_plugin rota_plugin_fairshare_classic;
extern const struct rota_plugin rota_plugin_fairshare_fairtree;
extern const struct rota_plugin rota_plugin_fairshare_ratio;
extern const struct rota_plugin rota_plugin_fairshare_sharetree;

/* ---- a fake host --------------------------------------------------------- */

/* The test's settings: at most one key. */
struct rota_plugin_conf {
	const char *key;
	double value;
};

static void fake_log(const struct rota_host *host, enum rota_plugin_log level,
		     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int fake_conf_double(const struct rota_plugin_conf *conf,
			    const char *key, double min, double max,
			    double *out, char *err, size_t errlen)
{
	if (!conf || strcasecmp(conf->key, key) != 0)
		return 0;
	if (conf->value < min || conf->value > max) {
		snprintf(err, errlen, "test.conf:1: %s: '%g' is not within "
			 "[%g, %g]", key, conf->value, min, max);
		return -EINVAL;
	}
	*out = conf->value;
	return 0;
}

/* A boolean setting: the key's value, 0 or not. */
static int fake_conf_bool(const struct rota_plugin_conf *conf,
			  const char *key, bool *out, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	if (conf && strcasecmp(conf->key, key) == 0)
		*out = conf->value != 0;
	return 0;
}

/* no test sets these: the defaults stay */
static int fake_conf_choice(const struct rota_plugin_conf *conf,
			    const char *key, const char *const *choices,
			    unsigned *out, char *err, size_t errlen)
{
	return 0;
}

static const struct rota_host host = {
	.size = sizeof(host),
	.log = fake_log,
	.conf_double = fake_conf_double,
	.conf_bool = fake_conf_bool,
	.conf_choice = fake_conf_choice,
};

/* ---- trees from tables --------------------------------------------------- */

struct row {
	const char *name;
	const char *parent;	/* NULL for the root */
	bool is_user;
	double shares;
	double usage;		/* users only: accounts sum their children */
	uint32_t pending;	/* users only, likewise */
	uint32_t running;
};

#define ACCT(n, p, s) { n, p, false, s, 0, 0, 0 }
#define USER(n, p, s, u) { n, p, true, s, u, 0, 0 }
#define JOBS(n, p, s, u, pd, r) { n, p, true, s, u, pd, r }

static int by_name(const void *a, const void *b)
{
	const struct row *const *x = a;
	const struct row *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* Append row r and, recursively, its children by name; returns its index. */
static uint32_t add_node(struct rota_share_tree *tree, const struct row *rows,
			 int nrows, const struct row *r, uint32_t parent,
			 uint32_t depth)
{
	const struct row *kids[MAX_NODES];
	uint32_t idx = (uint32_t)tree->n++;
	struct rota_share_node *node = &tree->nodes[idx];
	uint32_t prev = ROTA_SHARE_NONE;
	int nkids = 0;

	ck_assert_uint_le(tree->n, MAX_NODES);
	*node = (struct rota_share_node){
		.name = r->name,
		.account = r->is_user ? r->parent : r->name,
		.parent = parent,
		.first_child = ROTA_SHARE_NONE,
		.next_sibling = ROTA_SHARE_NONE,
		.depth = depth,
		.is_user = r->is_user,
		.shares = r->shares,
		.usage = r->is_user ? r->usage : 0,
		.pending = r->is_user ? r->pending : 0,
		.running = r->is_user ? r->running : 0,
		.usage_eff = UNSET, .level_fs = UNSET, .value = UNSET,
		.factor = UNSET, .tickets = UNSET,
	};
	for (int i = 0; i < nrows; i++)
		if (rows[i].parent && !strcmp(rows[i].parent, r->name))
			kids[nkids++] = &rows[i];
	qsort(kids, nkids, sizeof(*kids), by_name);
	for (int i = 0; i < nkids; i++) {
		uint32_t c = add_node(tree, rows, nrows, kids[i], idx,
				      depth + 1);

		if (prev == ROTA_SHARE_NONE)
			tree->nodes[idx].first_child = c;
		else
			tree->nodes[prev].next_sibling = c;
		prev = c;
	}
	return idx;
}

/* The host's inputs for 'rows'; the caller frees tree->nodes. */
static void build(struct rota_share_tree *tree, const struct row *rows,
		  int nrows)
{
	struct rota_share_node *nodes = calloc(MAX_NODES, sizeof(*nodes));
	int root = 0;

	ck_assert_ptr_nonnull(nodes);
	*tree = (struct rota_share_tree){ .nodes = nodes, .now = 1700000000 };
	while (rows[root].parent)
		root++;
	add_node(tree, rows, nrows, &rows[root], ROTA_SHARE_NONE, 0);
	ck_assert_uint_eq(tree->n, nrows);
	for (size_t i = tree->n - 1; i > 0; i--) {
		struct rota_share_node *p = &nodes[nodes[i].parent];

		p->usage += nodes[i].usage;
		p->pending += nodes[i].pending;
		p->running += nodes[i].running;
	}
	nodes[0].shares_norm = 1;
	for (size_t p = 0; p < tree->n; p++) {
		double level = 0;
		uint32_t c;

		for (c = nodes[p].first_child; c != ROTA_SHARE_NONE;
		     c = nodes[c].next_sibling)
			level += nodes[c].shares;
		for (c = nodes[p].first_child; c != ROTA_SHARE_NONE;
		     c = nodes[c].next_sibling)
			nodes[c].shares_norm =
				level > 0 ? nodes[p].shares_norm *
						    nodes[c].shares / level :
					    0;
		if (nodes[0].usage > 0)
			nodes[p].usage_norm = nodes[p].usage / nodes[0].usage;
	}
}

static struct rota_share_node *find(struct rota_share_tree *tree,
				    const char *name)
{
	for (size_t i = 0; i < tree->n; i++)
		if (!strcmp(tree->nodes[i].name, name))
			return &tree->nodes[i];
	ck_abort_msg("no node '%s'", name);
	return NULL;
}

/* init, compute, fini through the descriptor; every output written. */
static void run(const struct rota_plugin *p, const char *name,
		const struct rota_plugin_conf *conf,
		struct rota_share_tree *tree)
{
	const struct rota_fairshare_ops *ops = p->ops;
	char err[160] = "";
	void *state = NULL;

	ck_assert_uint_eq(p->abi, ROTA_PLUGIN_ABI);
	ck_assert_int_eq(p->kind, ROTA_PLUGIN_FAIRSHARE);
	ck_assert_str_eq(p->name, name);
	ck_assert_uint_eq(ops->size, sizeof(*ops));
	if (p->init)
		ck_assert_int_eq(p->init(&host, conf, &state, err, sizeof(err)),
				 0);
	ck_assert_int_eq(ops->compute(state, tree), 0);
	if (p->fini)
		p->fini(state);
	for (size_t i = 0; i < tree->n; i++) {
		const struct rota_share_node *n = &tree->nodes[i];

		ck_assert_msg(n->usage_eff != UNSET && n->level_fs != UNSET &&
				      n->value != UNSET && n->factor != UNSET &&
				      n->tickets != UNSET,
			      "%s: node '%s' has an output unset", name,
			      n->name);
		ck_assert_msg(n->factor >= 0 && n->factor <= 1,
			      "%s: node '%s' factor %g", name, n->name,
			      n->factor);
	}
}

/* ---- fairtree ----------------------------------------------------------- */

/*
 * Slurm's test24.4 without aD (Rota has no FairShare=parent).  Root
 * shares 158, usage 130, N = 15 users.  Root level, by LF: u1 (inf, a
 * user first), aE and aF (inf, tied with u1 and merged: their users all
 * inf), aB 156/79, u2 65/79, aA 520/711, aG 104/316, aC 0.
 */
static const struct row test24_4[] = {
	ACCT("root", NULL, 0),
	ACCT("aA", "root", 40),
	ACCT("aAA", "aA", 30),
	USER("uAA1", "aAA", 1, 20),
	ACCT("aAB", "aA", 10),
	USER("uAB1", "aAB", 1, 25),
	USER("uAB2", "aAB", 1, 0),
	ACCT("aB", "root", 60),
	ACCT("aBA", "aB", 25),
	USER("uBA1", "aBA", 1, 25),
	ACCT("aBB", "aB", 35),
	USER("uBB1", "aBB", 1, 0),
	ACCT("aC", "root", 0),
	USER("uC1", "aC", 0, 30),
	ACCT("aE", "root", 10),
	USER("aE1", "aE", 10, 0),
	USER("aE2", "aE", 10, 0),
	USER("u1", "root", 10, 0),
	ACCT("aF", "root", 20),
	USER("uF1", "aF", 10, 0),
	USER("uF2", "aF", 20, 0),
	ACCT("aG", "root", 8),
	USER("uG1", "aG", 10, 10),
	ACCT("aGA", "aG", 10),
	USER("uGA1", "aGA", 20, 4),
	USER("uGA2", "aGA", 20, 6),
	USER("u2", "root", 10, 10),
};

/* rank out of 15; accounts: their best user's */
static const struct {
	const char *name;
	int rank;
} test24_4_ranks[] = {
	{ "u1", 15 },	{ "aE1", 15 },	{ "aE2", 15 },	{ "uF1", 15 },
	{ "uF2", 15 },	/* all inf, all tied */
	{ "uBB1", 10 }, /* 4 places skipped */
	{ "uBA1", 9 },	{ "u2", 8 },	{ "uAA1", 7 },	{ "uAB2", 6 },
	{ "uAB1", 5 },	{ "uG1", 4 },	{ "uGA1", 4 }, /* tied with aGA */
	{ "uGA2", 2 },	{ "uC1", 1 },	/* 0 shares: last */
	{ "root", 15 }, { "aE", 15 },	{ "aF", 15 },	{ "aB", 10 },
	{ "aBB", 10 },	{ "aBA", 9 },	{ "aA", 7 },	{ "aAA", 7 },
	{ "aAB", 6 },	{ "aG", 4 },	{ "aGA", 4 },	{ "aC", 1 },
};

START_TEST(test_fairtree_test24_4)
{
	struct rota_share_tree tree;

	build(&tree, test24_4, N(test24_4));
	run(&rota_plugin_fairshare_fairtree, "fairtree", NULL, &tree);
	for (int i = 0; i < N(test24_4_ranks); i++) {
		struct rota_share_node *n = find(&tree, test24_4_ranks[i].name);

		ck_assert_msg(n->factor == test24_4_ranks[i].rank / 15.0,
			      "%s: factor %.9f, want %d/15", n->name,
			      n->factor, test24_4_ranks[i].rank);
		ck_assert(n->value == n->factor);
		ck_assert(n->tickets == 0);
		ck_assert(n->usage_eff == n->usage_norm);
	}
	ck_assert(isnan(find(&tree, "root")->level_fs));
	ck_assert_double_eq_tol(find(&tree, "aA")->level_fs, 520.0 / 711,
				1e-12);
	ck_assert_double_eq_tol(find(&tree, "aB")->level_fs, 156.0 / 79, 1e-12);
	ck_assert_double_eq_tol(find(&tree, "u2")->level_fs, 65.0 / 79, 1e-12);
	ck_assert_double_eq_tol(find(&tree, "aG")->level_fs, 104.0 / 316,
				1e-12);
	ck_assert_double_eq_tol(find(&tree, "aBA")->level_fs, 5.0 / 12, 1e-12);
	ck_assert_double_eq_tol(find(&tree, "uGA2")->level_fs, 5.0 / 6, 1e-12);
	ck_assert(find(&tree, "uG1")->level_fs == 1.0);
	ck_assert(find(&tree, "aGA")->level_fs == 1.0);
	ck_assert(find(&tree, "uGA1")->level_fs == 1.25);
	ck_assert(find(&tree, "aC")->level_fs == 0);
	ck_assert(find(&tree, "uC1")->level_fs == 0); /* 0 shares, usage 30 */
	ck_assert(isinf(find(&tree, "u1")->level_fs));
	ck_assert(isinf(find(&tree, "uBB1")->level_fs)); /* parent usage 0 */
	free(tree.nodes);
}
END_TEST

/*
 * Tied sibling accounts X and Y (LF 1 each).  As a real Slurm 22.05 does
 * (its _count_tied_accounts() never merges): X, then Y, Y's first user
 * tied with X's last: x2 (LF 2) 4/4, x1 (2/3) 3/4, y2 (4) 3/4, y1 (4/7)
 * 1/4.  With MergeTies=yes, the documented rule: the children merged and
 * ranked together, y2 (LF 4), x2 (2), x1 (2/3), y1 (4/7).
 */
static const struct row merge_tree[] = {
	ACCT("root", NULL, 0),	   ACCT("X", "root", 1),
	USER("x1", "X", 1, 30),	   USER("x2", "X", 1, 10),
	ACCT("Y", "root", 1),	   USER("y1", "Y", 1, 35),
	USER("y2", "Y", 1, 5),
};

START_TEST(test_fairtree_merge)
{
	struct rota_share_tree tree;

	struct rota_plugin_conf merge = { "MergeTies", 1 };

	build(&tree, merge_tree, N(merge_tree));
	run(&rota_plugin_fairshare_fairtree, "fairtree", NULL, &tree);
	ck_assert(find(&tree, "x2")->factor == 1.0);
	ck_assert(find(&tree, "x1")->factor == 0.75);
	ck_assert(find(&tree, "y2")->factor == 0.75);
	ck_assert(find(&tree, "y1")->factor == 0.25);
	run(&rota_plugin_fairshare_fairtree, "fairtree", &merge, &tree);
	ck_assert(find(&tree, "y2")->factor == 1.0);
	ck_assert(find(&tree, "x2")->factor == 0.75);
	ck_assert(find(&tree, "x1")->factor == 0.5);
	ck_assert(find(&tree, "y1")->factor == 0.25);
	free(tree.nodes);
}
END_TEST

/*
 * factors() after a rating that merged tied accounts (MergeTies=yes): X
 * and Y stay tied
 * (usage 40 each) and neither's own list changes order (y1 stays ahead
 * of y2) as y1 and y2 move usage between them, but the merged order
 * does, by LF: y1 4, x2 2, x1 2/3, y2 4/7 before; x2 2, y1 4/3, y2 4/5,
 * x1 2/3 after.  The walk must be made again.
 */
START_TEST(test_fairtree_factors_merged)
{
	const struct rota_fairshare_ops *ops =
		rota_plugin_fairshare_fairtree.ops;
	struct row rows[] = {
		ACCT("root", NULL, 0),	USER("x1", "X", 1, 30),
		ACCT("X", "root", 1),	USER("x2", "X", 1, 10),
		ACCT("Y", "root", 1),	USER("y1", "Y", 1, 5),
		USER("y2", "Y", 1, 35),
	};
	struct rota_plugin_conf merge = { "MergeTies", 1 };
	double ref[MAX_NODES];
	char err[160] = "";
	void *kept = NULL;
	struct rota_share_tree t;

	ck_assert_int_eq(rota_plugin_fairshare_fairtree.init(&host, &merge,
							     &kept, err,
							     sizeof(err)),
			 0);
	for (int round = 0; round < 2; round++) {
		if (round) {
			rows[5].usage = 15; /* y1 */
			rows[6].usage = 25; /* y2 */
		}
		build(&t, rows, N(rows));
		t.shape = 1;
		t.usage_ref = ref;
		for (size_t i = 0; i < t.n; i++)
			ref[i] = t.nodes[i].usage;
		ck_assert_int_eq((round ? ops->factors : ops->compute)(kept,
								       &t),
				 0);
		if (round)
			break;
		ck_assert(find(&t, "y1")->factor == 1.0);
		ck_assert(find(&t, "y2")->factor == 0.25);
		free(t.nodes);
	}
	ck_assert(find(&t, "x2")->factor == 1.0);
	ck_assert(find(&t, "y1")->factor == 0.75);
	ck_assert(find(&t, "y2")->factor == 0.5);
	ck_assert(find(&t, "x1")->factor == 0.25);
	free(t.nodes);
	rota_plugin_fairshare_fairtree.fini(kept);
}
END_TEST

/*
 * Ratings that start from the last order (one plugin state and one
 * shape throughout) give what a fresh state gives, as users' usage moves
 * between them and some tie (usage 0 or equal).  Then a new shape (the
 * shares change) under the same name is seen.
 */
START_TEST(test_fairtree_last_order)
{
	const struct rota_fairshare_ops *ops =
		rota_plugin_fairshare_fairtree.ops;
	struct row rows[N(test24_4)];
	unsigned seed = 24;
	char err[160] = "";
	void *kept = NULL;

	memcpy(rows, test24_4, sizeof(rows));
	ck_assert_int_eq(rota_plugin_fairshare_fairtree.init(&host, NULL, &kept,
							     err, sizeof(err)),
			 0);
	for (int round = 0; round < 300; round++) {
		struct rota_share_tree a, b;

		for (int k = 0; k < 3; k++) {
			struct row *r = &rows[rand_r(&seed) % N(rows)];

			if (r->is_user)
				r->usage = rand_r(&seed) % 4 * 10;
		}
		build(&a, rows, N(rows));
		build(&b, rows, N(rows));
		a.shape = 1; /* one shape throughout: orders are kept */
		ck_assert_int_eq(ops->compute(kept, &a), 0);
		run(&rota_plugin_fairshare_fairtree, "fairtree", NULL, &b);
		for (size_t i = 0; i < a.n; i++)
			ck_assert_msg(a.nodes[i].factor == b.nodes[i].factor,
				      "round %d: %s: %g, fresh %g", round,
				      a.nodes[i].name, a.nodes[i].factor,
				      b.nodes[i].factor);
		free(a.nodes);
		free(b.nodes);
	}
	{
		struct rota_share_tree a, b;

		rows[1].shares = 400; /* aA: now far ahead of aB */
		build(&a, rows, N(rows));
		build(&b, rows, N(rows));
		a.shape = 2;
		ck_assert_int_eq(ops->compute(kept, &a), 0);
		run(&rota_plugin_fairshare_fairtree, "fairtree", NULL, &b);
		for (size_t i = 1; i < a.n; i++) /* the root's LF is NaN */
			ck_assert_msg(a.nodes[i].factor == b.nodes[i].factor &&
					      a.nodes[i].level_fs ==
						      b.nodes[i].level_fs,
				      "new shape: %s: %g, fresh %g",
				      a.nodes[i].name, a.nodes[i].factor,
				      b.nodes[i].factor);
		free(a.nodes);
		free(b.nodes);
	}
	rota_plugin_fairshare_fairtree.fini(kept);
}
END_TEST

/*
 * As the host runs it: one tree kept from rating to rating (outputs
 * included), usage_ref given, so that only what moved is worked out
 * again.  Every output must match a fresh rating of the same usage, as
 * a few users' usage moves each round (ties included: aE and aF tie
 * with no usage, and their children are then merged), and the units
 * change now and then (usage_epoch; x2 keeps every value exact).  Some
 * rounds ask for the factors alone (factors(), which may skip the walk
 * when no rank moved): then every user's factor must match, and the
 * next compute() every output.
 */
START_TEST(test_fairtree_kept_tree)
{
	const struct rota_fairshare_ops *ops =
		rota_plugin_fairshare_fairtree.ops;
	struct row rows[N(test24_4)];
	double ref[MAX_NODES];
	double scale = 1;
	unsigned seed = 7;
	char err[160] = "";
	void *kept = NULL;
	struct rota_share_tree a;

	memcpy(rows, test24_4, sizeof(rows));
	build(&a, rows, N(rows));
	a.shape = 1;
	a.usage_ref = ref;
	ck_assert_int_eq(rota_plugin_fairshare_fairtree.init(&host, NULL, &kept,
							     err, sizeof(err)),
			 0);
	for (int round = 0; round < 400; round++) {
		struct rota_share_tree b;
		bool factors = rand_r(&seed) % 3 != 0;

		for (int k = rand_r(&seed) % 4; k > 0; k--) {
			struct row *r = &rows[rand_r(&seed) % N(rows)];

			if (r->is_user)
				r->usage = rand_r(&seed) % 4 * 10;
		}
		if (rand_r(&seed) % 16 == 0) {
			scale *= 2;
			a.usage_epoch++;
		}
		build(&b, rows, N(rows));
		/*
		 * The kept tree takes the new inputs, outputs stay; for
		 * factors() only usage_ref, as the host leaves the rest.
		 */
		for (size_t i = 0; i < a.n; i++) {
			if (!factors) {
				a.nodes[i].usage = b.nodes[i].usage;
				a.nodes[i].usage_norm = b.nodes[i].usage_norm;
			}
			ref[i] = b.nodes[i].usage * scale;
		}
		ck_assert_int_eq((factors ? ops->factors : ops->compute)(kept,
									  &a),
				 0);
		run(&rota_plugin_fairshare_fairtree, "fairtree", NULL, &b);
		for (size_t i = 0; i < a.n; i++) {
			const struct rota_share_node *x = &a.nodes[i];
			const struct rota_share_node *y = &b.nodes[i];

			if (factors) {
				ck_assert_msg(!x->is_user ||
						      x->factor == y->factor,
					      "round %d (factors): %s: %g, "
					      "fresh %g", round, x->name,
					      x->factor, y->factor);
				continue;
			}
			ck_assert_msg(x->factor == y->factor &&
					      x->value == y->value &&
					      x->usage_eff == y->usage_eff &&
					      x->tickets == y->tickets &&
					      (x->level_fs == y->level_fs ||
					       (i == 0 && isnan(x->level_fs))),
				      "round %d: %s: factor %g LF %g, fresh "
				      "%g LF %g", round, x->name, x->factor,
				      x->level_fs, y->factor, y->level_fs);
		}
		free(b.nodes);
	}
	rota_plugin_fairshare_fairtree.fini(kept);
	free(a.nodes);
}
END_TEST

START_TEST(test_fairtree_empty)
{
	static const struct row lone[] = { ACCT("root", NULL, 0) };
	struct rota_share_tree tree;

	build(&tree, lone, N(lone));
	run(&rota_plugin_fairshare_fairtree, "fairtree", NULL, &tree);
	ck_assert(tree.nodes[0].factor == 0);
	ck_assert(isnan(tree.nodes[0].level_fs));
	tree.n = 0;
	ck_assert_int_eq(((const struct rota_fairshare_ops *)
				  rota_plugin_fairshare_fairtree.ops)
				 ->compute(NULL, &tree),
			 0);
	free(tree.nodes);
}
END_TEST

/*
 * Zero shares rank last even with no usage (LF 0, not +inf).  And test
 * 24.4's aD level without FairShare=parent: same shares (170) and usage
 * (110), so uD3 and uDA3 tie exactly while uD2, equal on paper, is
 * below them in floating point, as in Slurm's expected output.
 */
static const struct row zero_tree[] = {
	ACCT("root", NULL, 0),	     ACCT("A", "root", 1),
	USER("a0", "A", 0, 0),	     USER("a1", "A", 1, 10),
	ACCT("aD", "root", 1),	     USER("uD2", "aD", 40, 20),
	USER("uD3", "aD", 50, 25),   USER("uDA2", "aD", 30, 10),
	USER("uDA3", "aD", 50, 25),  USER("uZ", "aD", 0, 30),
};

START_TEST(test_fairtree_zero_and_fp_tie)
{
	struct rota_share_tree tree;

	build(&tree, zero_tree, N(zero_tree));
	run(&rota_plugin_fairshare_fairtree, "fairtree", NULL, &tree);
	/* root level: A (1/2)/(10/120) = 6 before aD (1/2)/(110/120) */
	ck_assert(find(&tree, "a0")->level_fs == 0);
	ck_assert(find(&tree, "a1")->factor == 7.0 / 7);
	ck_assert(find(&tree, "a0")->factor == 6.0 / 7);
	ck_assert(find(&tree, "uDA2")->factor == 5.0 / 7);
	ck_assert(find(&tree, "uD3")->factor == 4.0 / 7);
	ck_assert(find(&tree, "uDA3")->factor == 4.0 / 7);
	ck_assert(find(&tree, "uD2")->factor == 2.0 / 7);
	ck_assert(find(&tree, "uZ")->factor == 1.0 / 7);
	free(tree.nodes);
}
END_TEST

/* ---- classic ------------------------------------------------------------ */

/*
 * classic_fair_share.html: normalized usages 0.2, 0.25, 0, 0.25, 0 are of
 * a machine whose other 30% went elsewhere; Z (no shares) holds it, so
 * that each level's shares still total 100.
 */
static const struct row classic_doc[] = {
	ACCT("root", NULL, 0),
	ACCT("A", "root", 40),
	ACCT("B", "A", 30),
	USER("User1", "B", 1, 20),
	ACCT("C", "A", 10),
	USER("User2", "C", 1, 25),
	USER("User3", "C", 1, 0),
	ACCT("D", "root", 60),
	ACCT("E", "D", 25),
	USER("User4", "E", 1, 25),
	ACCT("F", "D", 35),
	USER("User5", "F", 1, 0),
	ACCT("Z", "root", 0),
	USER("z1", "Z", 1, 30),
};

static const struct {
	const char *name;
	double factor;
} classic_doc_factors[] = {
	{ "User1", 0.408479 }, { "User2", 0.022097 }, { "User3", 0.125000 },
	{ "User4", 0.500000 }, { "User5", 0.749154 }, { "z1", 0 },
};

START_TEST(test_classic_doc)
{
	struct rota_share_tree tree;

	build(&tree, classic_doc, N(classic_doc));
	run(&rota_plugin_fairshare_classic, "classic", NULL, &tree);
	for (int i = 0; i < N(classic_doc_factors); i++) {
		struct rota_share_node *n =
			find(&tree, classic_doc_factors[i].name);

		ck_assert_double_eq_tol(n->factor,
					classic_doc_factors[i].factor, 1e-4);
	}
	ck_assert_double_eq_tol(find(&tree, "B")->usage_eff, 0.3875, 1e-12);
	ck_assert_double_eq_tol(find(&tree, "F")->usage_eff, 0.145833, 1e-6);
	ck_assert_double_eq_tol(find(&tree, "User2")->usage_eff, 0.275, 1e-12);
	free(tree.nodes);
}
END_TEST

/*
 * test24.3 without AccountH (FairShare=parent): root shares 100, usage
 * 100.  User6 has no shares and no sibling with any: it takes
 * AccountG's UE (0.3) and factor 0.
 */
static const struct row test24_3[] = {
	ACCT("root", NULL, 0),
	ACCT("AccountA", "root", 40),
	ACCT("AccountB", "AccountA", 30),
	USER("User1", "AccountB", 1, 20),
	ACCT("AccountC", "AccountA", 10),
	USER("User2", "AccountC", 1, 25),
	USER("User3", "AccountC", 1, 0),
	ACCT("AccountD", "root", 60),
	ACCT("AccountE", "AccountD", 25),
	USER("User4", "AccountE", 1, 25),
	ACCT("AccountF", "AccountD", 35),
	USER("User5", "AccountF", 1, 0),
	ACCT("AccountG", "root", 0),
	USER("User6", "AccountG", 0, 30),
};

static const struct {
	const char *name;
	double shares_norm;
	double usage_eff;
	double factor;
} test24_3_rows[] = {
	{ "root", 1, 1, 0.5 },
	{ "AccountA", 0.4, 0.45, 0.458502022 },
	{ "AccountB", 0.3, 0.3875, 0.408478863 },
	{ "User1", 0.3, 0.3875, 0.408478863 },
	{ "AccountC", 0.1, 0.3, 0.125 },
	{ "User2", 0.05, 0.275, 0.022097087 },
	{ "User3", 0.05, 0.15, 0.125 },
	{ "AccountD", 0.6, 0.25, 0.749153538 },
	{ "AccountE", 0.25, 0.25, 0.5 },
	{ "User4", 0.25, 0.25, 0.5 },
	{ "AccountF", 0.35, 0.145833333, 0.749153538 },
	{ "User5", 0.35, 0.145833333, 0.749153538 },
	{ "AccountG", 0, 0.3, 0 },
	{ "User6", 0, 0.3, 0 },
};

START_TEST(test_classic_test24_3)
{
	struct rota_share_tree tree;

	build(&tree, test24_3, N(test24_3));
	run(&rota_plugin_fairshare_classic, "classic", NULL, &tree);
	for (int i = 0; i < N(test24_3_rows); i++) {
		struct rota_share_node *n = find(&tree, test24_3_rows[i].name);

		ck_assert_double_eq_tol(n->shares_norm,
					test24_3_rows[i].shares_norm, 1e-6);
		ck_assert_double_eq_tol(n->usage_eff,
					test24_3_rows[i].usage_eff, 1e-6);
		ck_assert_double_eq_tol(n->factor, test24_3_rows[i].factor,
					1e-6);
		ck_assert(n->value == n->factor);
		ck_assert(isnan(n->level_fs));
		ck_assert(n->tickets == 0);
	}
	free(tree.nodes);
}
END_TEST

START_TEST(test_classic_dampening)
{
	const struct rota_plugin *p = &rota_plugin_fairshare_classic;
	struct rota_plugin_conf conf = { "dampeningfactor", 2 };
	struct rota_plugin_conf bad = { "DampeningFactor", 0.5 };
	struct rota_share_tree tree;
	char err[160] = "";
	void *state = &conf;

	build(&tree, test24_3, N(test24_3));
	run(p, "classic", &conf, &tree);
	/* 2^(-(UE/S)/d): User4 UE/S = 1, AccountA 1.125 */
	ck_assert_double_eq_tol(find(&tree, "User4")->factor, sqrt(0.5),
				1e-12);
	ck_assert_double_eq_tol(find(&tree, "AccountA")->factor,
				exp2(-1.125 / 2), 1e-12);
	ck_assert_int_eq(p->init(&host, &bad, &state, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_null(state);
	ck_assert_str_eq(err, "test.conf:1: DampeningFactor: '0.5' is not "
			      "within [1, 10000]");
	free(tree.nodes);
}
END_TEST

/* No sibling has shares: Slurm gives the children their parent's UE. */
START_TEST(test_classic_no_level_shares)
{
	static const struct row rows[] = {
		ACCT("root", NULL, 0),	   ACCT("G", "root", 1),
		USER("g1", "G", 0, 10),	   USER("g2", "G", 0, 30),
		ACCT("H", "root", 1),	   USER("h1", "H", 1, 60),
	};
	struct rota_share_tree tree;

	build(&tree, rows, N(rows));
	run(&rota_plugin_fairshare_classic, "classic", NULL, &tree);
	ck_assert(find(&tree, "G")->usage_eff == 0.4);
	ck_assert(find(&tree, "g1")->usage_eff == 0.4);
	ck_assert(find(&tree, "g2")->usage_eff == 0.4);
	ck_assert(find(&tree, "g1")->factor == 0);
	/* h1: UE 0.6 + 0 * 1/1, S 0.5 */
	ck_assert_double_eq_tol(find(&tree, "h1")->factor, exp2(-1.2), 1e-12);
	free(tree.nodes);
}
END_TEST

/* ---- ratio -------------------------------------------------------------- */

/* IT4I: P1 300, P2 100, P3 0 core-hours; a user directly under root. */
static const struct row ratio_tree[] = {
	ACCT("root", NULL, 0),	      ACCT("P1", "root", 1),
	USER("ana", "P1", 1, 200),    USER("bob", "P1", 1, 100),
	ACCT("P2", "root", 1),	      USER("cid", "P2", 1, 100),
	USER("dan", "P2", 1, 0),      ACCT("P3", "root", 1),
	USER("eve", "P3", 1, 0),
};

START_TEST(test_ratio_projects)
{
	static const struct {
		const char *name;
		double value;
	} want[] = {
		{ "root", 1e6 }, { "P1", 250000 }, { "ana", 250000 },
		{ "bob", 250000 }, { "P2", 750000 }, { "cid", 750000 },
		{ "dan", 750000 }, { "P3", 1e6 },  { "eve", 1e6 },
	};
	struct rota_share_tree tree;

	build(&tree, ratio_tree, N(ratio_tree));
	run(&rota_plugin_fairshare_ratio, "ratio", NULL, &tree);
	for (int i = 0; i < N(want); i++) {
		struct rota_share_node *n = find(&tree, want[i].name);

		ck_assert_msg(n->value == want[i].value, "%s: %f", n->name,
			      n->value);
		ck_assert(n->factor == want[i].value / 1e6);
		ck_assert(n->usage_eff == n->usage_norm);
		ck_assert(isnan(n->level_fs));
		ck_assert(n->tickets == 0);
	}
	free(tree.nodes);
}
END_TEST

START_TEST(test_ratio_root_user_and_setting)
{
	static const struct row rows[] = {
		ACCT("root", NULL, 0),	    ACCT("P1", "root", 1),
		USER("ana", "P1", 1, 300),  USER("solo", "root", 1, 100),
	};
	struct rota_plugin_conf conf = { "MaxFairshare", 1000 };
	struct rota_plugin_conf bad = { "MaxFairshare", 0 };
	const struct rota_plugin *p = &rota_plugin_fairshare_ratio;
	struct rota_share_tree tree;
	char err[160] = "";
	void *state = NULL;

	build(&tree, rows, N(rows));
	run(p, "ratio", &conf, &tree);
	ck_assert(find(&tree, "root")->value == 1000);
	ck_assert(find(&tree, "P1")->value == 250);
	ck_assert(find(&tree, "ana")->value == 250);
	ck_assert(find(&tree, "solo")->value == 750); /* its own project */
	ck_assert(find(&tree, "solo")->factor == 0.75);
	ck_assert_int_eq(p->init(&host, &bad, &state, err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "test.conf:1: MaxFairshare: '0' is not within "
			      "[1, 1e+12]");
	free(tree.nodes);
}
END_TEST

START_TEST(test_ratio_no_usage)
{
	static const struct row rows[] = {
		ACCT("root", NULL, 0),	  ACCT("P1", "root", 1),
		USER("ana", "P1", 1, 0),  ACCT("P2", "root", 1),
		USER("bob", "P2", 1, 0),  USER("solo", "root", 1, 0),
	};
	struct rota_share_tree tree;

	build(&tree, rows, N(rows));
	run(&rota_plugin_fairshare_ratio, "ratio", NULL, &tree);
	for (size_t i = 0; i < tree.n; i++) {
		ck_assert(tree.nodes[i].value == 1e6);
		ck_assert(tree.nodes[i].factor == 1);
	}
	free(tree.nodes);
}
END_TEST

/* ---- sharetree ---------------------------------------------------------- */

/*
 * Notes 4.5: A (70 shares, usage 300) and B (30, usage 100).  shr 4900/300
 * and 900/100, so A holds 49/76 of the pool and B 27/76.  C has no job:
 * inactive, no tickets, and its shares do not count.
 */
static const struct row sge_tree[] = {
	ACCT("root", NULL, 0),
	ACCT("A", "root", 70),
	JOBS("ua", "A", 1, 300, 2, 1),
	ACCT("B", "root", 30),
	JOBS("ub", "B", 1, 100, 1, 0),
	ACCT("C", "root", 100),
	JOBS("uc", "C", 1, 0, 0, 0),
};

START_TEST(test_sharetree_derived)
{
	struct rota_share_tree tree;
	double sum = 0;

	build(&tree, sge_tree, N(sge_tree));
	run(&rota_plugin_fairshare_sharetree, "sharetree", NULL, &tree);
	ck_assert_double_eq_tol(find(&tree, "root")->tickets, 10000, 1e-9);
	ck_assert_double_eq_tol(find(&tree, "A")->tickets, 490000.0 / 76,
				1e-9);
	ck_assert_double_eq_tol(find(&tree, "ua")->tickets, 490000.0 / 76,
				1e-9);
	ck_assert_double_eq_tol(find(&tree, "B")->tickets, 270000.0 / 76,
				1e-9);
	ck_assert_double_eq_tol(find(&tree, "ub")->tickets, 270000.0 / 76,
				1e-9);
	ck_assert(find(&tree, "C")->tickets == 0);
	ck_assert(find(&tree, "uc")->tickets == 0);
	ck_assert(find(&tree, "uc")->factor == 0);
	ck_assert(find(&tree, "ua")->factor == 1);
	ck_assert_double_eq_tol(find(&tree, "ub")->factor, 27.0 / 49, 1e-12);
	ck_assert(find(&tree, "B")->factor == find(&tree, "ub")->factor);
	for (size_t i = 0; i < tree.n; i++) {
		ck_assert(tree.nodes[i].value == tree.nodes[i].tickets);
		ck_assert(isnan(tree.nodes[i].level_fs));
		if (tree.nodes[i].is_user)
			sum += tree.nodes[i].tickets;
	}
	ck_assert_double_eq_tol(sum, 10000, 1e-6);
	free(tree.nodes);
}
END_TEST

/* More usage for A: its short-term target, so its tickets, drop. */
START_TEST(test_sharetree_moves)
{
	struct row rows[N(sge_tree)];
	struct rota_share_tree tree;
	double before;

	memcpy(rows, sge_tree, sizeof(rows));
	build(&tree, rows, N(rows));
	run(&rota_plugin_fairshare_sharetree, "sharetree", NULL, &tree);
	before = find(&tree, "ua")->tickets;
	free(tree.nodes);
	rows[2].usage = 600;
	build(&tree, rows, N(rows));
	run(&rota_plugin_fairshare_sharetree, "sharetree", NULL, &tree);
	/* shr 4900/600 vs 9: A now holds 49/103 */
	ck_assert_double_eq_tol(find(&tree, "ua")->tickets,
				490000.0 / 103, 1e-9);
	ck_assert(find(&tree, "ua")->tickets < before);
	ck_assert(find(&tree, "ub")->tickets > 270000.0 / 76);
	free(tree.nodes);
}
END_TEST

/*
 * Grid Engine 8.1.9's own numbers (bench/oracle/FINDINGS.md, rule 5,
 * capture 1): Root -> groupA 70 (oracle1 60, usage 28.083; oracle2 40,
 * none), groupB 30 (oracle3 100, usage 17.199).  Running: 51 (oracle1, 1
 * slot), 52 (oracle3, 2); pending 53 (oracle1, 2 slots), 54 (oracle2),
 * 55 (oracle2, 3), 56 (oracle3), 60 (oracle1); 57 held, not passed.
 * stt(A) = (4900 / 28.083) / (4900 / 28.083 + 900 / 17.199) = 0.76929;
 * in A, oracle2 (no usage, floor 0.7 x 0.4) before oracle1, so A's order
 * is 51 (k 1), 54 (k 2), 55 (k 3), 53 (k 6), 60 (k 8); in B, 52 then 56
 * (k 3).  Running jobs: 10000 x their user's ostt among running users /
 * its running jobs.  Grid Engine showed 7692, 2307, 3846, 2564, 1282,
 * 961, 769 (truncated).
 */
static const struct row ge_capture1[] = {
	ACCT("Root", NULL, 0),
	ACCT("groupA", "Root", 70),
	JOBS("oracle1", "groupA", 60, 28.083, 2, 1),
	JOBS("oracle2", "groupA", 40, 0, 2, 0),
	ACCT("groupB", "Root", 30),
	JOBS("oracle3", "groupB", 100, 17.199, 1, 1),
};

struct deal {
	uint32_t id;
	const char *user;
	uint32_t slots;
	bool running;
	double want;
};

/* Run sharetree on 'rows' with targets, deal 'jobs', check each. */
static void check_deal(const struct row *rows, int nrows,
		       const struct deal *jobs, int njobs)
{
	struct rota_share_target targets[MAX_NODES];
	struct ticket_job tix[16];
	struct rota_share_tree tree;

	ck_assert_int_le(njobs, N(tix));
	build(&tree, rows, nrows);
	tree.targets = targets;
	run(&rota_plugin_fairshare_sharetree, "sharetree", NULL, &tree);
	for (int i = 0; i < njobs; i++)
		tix[i] = (struct ticket_job){
			.node = (uint32_t)(find(&tree, jobs[i].user) -
					   tree.nodes),
			.slots = jobs[i].slots,
			.id = jobs[i].id,
			.running = jobs[i].running,
			.ref = (size_t)i,
		};
	tickets_deal(&tree, tix, (size_t)njobs, false);
	for (int i = 0; i < njobs; i++) {
		const struct deal *d = &jobs[tix[i].ref];

		ck_assert_msg(fabs(tix[i].tickets - d->want) < 0.5,
			      "job %u: %.3f tickets, want %.3f", d->id,
			      tix[i].tickets, d->want);
	}
	free(tree.nodes);
}

START_TEST(test_sharetree_ge_capture1)
{
	static const struct deal jobs[] = {
		{ 60, "oracle1", 1, false, 961.6 },
		{ 53, "oracle1", 2, false, 1282.1 },
		{ 51, "oracle1", 1, true, 7692.9 },
		{ 56, "oracle3", 1, false, 769.0 },
		{ 54, "oracle2", 1, false, 3846.4 },
		{ 52, "oracle3", 2, true, 2307.1 },
		{ 55, "oracle2", 3, false, 2564.3 },
	};

	check_deal(ge_capture1, N(ge_capture1), jobs, N(jobs));
}
END_TEST

/*
 * Capture 2: job 57 (oracle1, p 1024) released: after 53 by id, before
 * 60 whatever its priority (k 8, 9); usage 31.792 and 20.819 now, so
 * stt(A) = 0.78095.  Grid Engine: 7809, 3904, 2603, 1301, 976, 867.
 */
START_TEST(test_sharetree_ge_released)
{
	struct row rows[N(ge_capture1)];
	static const struct deal jobs[] = {
		{ 51, "oracle1", 1, true, 7809.5 },
		{ 53, "oracle1", 2, false, 1301.6 },
		{ 54, "oracle2", 1, false, 3904.8 },
		{ 55, "oracle2", 3, false, 2603.2 },
		{ 57, "oracle1", 1, false, 976.2 },
		{ 60, "oracle1", 1, false, 867.7 },
	};

	memcpy(rows, ge_capture1, sizeof(rows));
	rows[2].usage = 31.792;
	rows[2].pending = 3;
	rows[5].usage = 20.819;
	check_deal(rows, N(rows), jobs, 6);
}
END_TEST

/*
 * Capture 7: only groupA has jobs, so it acts as the root and its users
 * are the top level: stt(oracle1) = (3600 / 36.211) / (3600 / 36.211 +
 * 1600 / 27.799) = 0.63334.  oracle1: 53 (2 slots) k 1, 57 k 3, 60 k 4;
 * oracle2: 55 running (3 slots), 58 (4 slots) k 4; 55 alone running:
 * 10000.  Grid Engine: 6333, 2111, 1583, 916 (and 10000 for 55).
 */
static const struct row ge_capture7[] = {
	ACCT("Root", NULL, 0),
	ACCT("groupA", "Root", 70),
	JOBS("oracle1", "groupA", 60, 36.211, 3, 0),
	JOBS("oracle2", "groupA", 40, 27.799, 1, 1),
	ACCT("groupB", "Root", 30),
	JOBS("oracle3", "groupB", 100, 20.0, 0, 0),
};

START_TEST(test_sharetree_ge_one_group)
{
	static const struct deal jobs[] = {
		{ 53, "oracle1", 2, false, 6333.4 },
		{ 57, "oracle1", 1, false, 2111.1 },
		{ 60, "oracle1", 1, false, 1583.3 },
		{ 55, "oracle2", 3, true, 10000 },
		{ 58, "oracle2", 4, false, 916.6 },
	};

	check_deal(ge_capture7, N(ge_capture7), jobs, N(jobs));
}
END_TEST

/*
 * Compensation: a (1 share, no usage) and b (3 shares, usage 9); oltt
 * 1/4 and 3/4; shr 1/max(0, 1/4) = 4 and 9/9 = 1, so ostt 0.8 and 0.2.
 * With CF 2, a is above 2 * 1/4: shr 4 / (0.8 / 0.5) = 2.5, ostt 5/7.
 * With the default 5 (cap 1.25) and with 0 (off), nothing changes.
 */
static const struct row cap_tree[] = {
	ACCT("root", NULL, 0),
	JOBS("a", "root", 1, 0, 1, 0),
	JOBS("b", "root", 3, 9, 4, 0),
};

START_TEST(test_sharetree_compensation)
{
	struct rota_plugin_conf cf2 = { "CompensationFactor", 2 };
	struct rota_plugin_conf cf0 = { "CompensationFactor", 0 };
	struct rota_plugin_conf pool = { "Tickets", 700 };
	struct rota_share_tree tree;

	build(&tree, cap_tree, N(cap_tree));
	run(&rota_plugin_fairshare_sharetree, "sharetree", &cf2, &tree);
	ck_assert_double_eq_tol(find(&tree, "a")->tickets, 50000.0 / 7, 1e-9);
	ck_assert_double_eq_tol(find(&tree, "b")->tickets, 20000.0 / 7, 1e-9);
	run(&rota_plugin_fairshare_sharetree, "sharetree", NULL, &tree);
	ck_assert_double_eq_tol(find(&tree, "a")->tickets, 8000, 1e-9);
	ck_assert_double_eq_tol(find(&tree, "b")->tickets, 2000, 1e-9);
	run(&rota_plugin_fairshare_sharetree, "sharetree", &cf0, &tree);
	ck_assert_double_eq_tol(find(&tree, "a")->tickets, 8000, 1e-9);
	run(&rota_plugin_fairshare_sharetree, "sharetree", &pool, &tree);
	ck_assert_double_eq_tol(find(&tree, "a")->tickets, 560, 1e-9);
	ck_assert_double_eq_tol(find(&tree, "b")->tickets, 140, 1e-9);
	free(tree.nodes);
}
END_TEST

/* A deep tree with jobs here and there: the active users hold the pool. */
START_TEST(test_sharetree_pool)
{
	struct row rows[N(test24_4)];
	struct rota_share_tree tree;
	double sum = 0;
	int active = 0;

	memcpy(rows, test24_4, sizeof(rows));
	for (int i = 0; i < N(rows); i++) {
		if (rows[i].shares == 0)
			rows[i].shares = 5; /* rota.conf requires >= 1 */
		if (rows[i].is_user && i % 3)
			rows[i].pending = i % 4 + 1;
	}
	build(&tree, rows, N(rows));
	run(&rota_plugin_fairshare_sharetree, "sharetree", NULL, &tree);
	for (size_t i = 0; i < tree.n; i++) {
		const struct rota_share_node *n = &tree.nodes[i];

		if (n->pending == 0)
			ck_assert(n->tickets == 0);
		if (!n->is_user)
			continue;
		ck_assert((n->tickets > 0) == (n->pending > 0));
		active += n->pending > 0;
		sum += n->tickets;
	}
	ck_assert_int_gt(active, 5);
	ck_assert_double_eq_tol(sum, 10000, 1e-6);
	free(tree.nodes);
}
END_TEST

START_TEST(test_sharetree_nothing_pending)
{
	struct rota_share_tree tree;

	build(&tree, test24_3, N(test24_3));
	run(&rota_plugin_fairshare_sharetree, "sharetree", NULL, &tree);
	for (size_t i = 0; i < tree.n; i++) {
		ck_assert(tree.nodes[i].tickets == 0);
		ck_assert(tree.nodes[i].factor == 0);
	}
	free(tree.nodes);
}
END_TEST

/*
 * One user alone (the root passed over down to its node): its j-th
 * pending job behind a 2-slot running one gets 10000 / (2 + j), and a
 * flood of 10000 jobs does not multiply its tickets beyond that series.
 * A job whose node is not in the tree and a tree without targets get 0.
 */
static const struct row lone_tree[] = {
	ACCT("root", NULL, 0),
	ACCT("a", "root", 10),
	JOBS("u", "a", 1, 50, 10000, 1),
	ACCT("b", "root", 10),
	USER("v", "b", 1, 0),
};

START_TEST(test_sharetree_flood)
{
	struct rota_share_target targets[MAX_NODES];
	struct ticket_job *tix = calloc(10002, sizeof(*tix));
	struct rota_share_tree tree;
	uint32_t u;

	ck_assert_ptr_nonnull(tix);
	build(&tree, lone_tree, N(lone_tree));
	tree.targets = targets;
	run(&rota_plugin_fairshare_sharetree, "sharetree", NULL, &tree);
	u = (uint32_t)(find(&tree, "u") - tree.nodes);
	for (uint32_t i = 0; i < 10000; i++)
		tix[i] = (struct ticket_job){ .node = u, .slots = 1,
					      .id = 10000 - i, .ref = i };
	tix[10000] = (struct ticket_job){ .node = u, .slots = 2, .id = 20000,
					  .running = true, .ref = 10000 };
	tix[10001] = (struct ticket_job){ .node = 999, .slots = 1, .id = 1,
					  .ref = 10001 };
	tickets_deal(&tree, tix, 10002, false);
	for (uint32_t i = 0; i < 10002; i++) {
		double want = tix[i].ref == 10000   ? 10000
			      : tix[i].ref == 10001 ? 0
						    : 10000.0 / (2 + tix[i].id);

		ck_assert_msg(fabs(tix[i].tickets - want) < 1e-6,
			      "job %u: %g, want %g", tix[i].id, tix[i].tickets,
			      want);
	}
	tree.targets = NULL;
	tickets_deal(&tree, tix, 10002, false);
	for (uint32_t i = 0; i < 10002; i++)
		ck_assert(tix[i].tickets == 0);
	free(tix);
	free(tree.nodes);
}
END_TEST

static Suite *fairshare_suite(void)
{
	Suite *s = suite_create("fairshare");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_fairtree_test24_4);
	tcase_add_test(tc, test_fairtree_merge);
	tcase_add_test(tc, test_fairtree_empty);
	tcase_add_test(tc, test_fairtree_last_order);
	tcase_add_test(tc, test_fairtree_kept_tree);
	tcase_add_test(tc, test_fairtree_factors_merged);
	tcase_add_test(tc, test_fairtree_zero_and_fp_tie);
	tcase_add_test(tc, test_classic_doc);
	tcase_add_test(tc, test_classic_test24_3);
	tcase_add_test(tc, test_classic_dampening);
	tcase_add_test(tc, test_classic_no_level_shares);
	tcase_add_test(tc, test_ratio_projects);
	tcase_add_test(tc, test_ratio_root_user_and_setting);
	tcase_add_test(tc, test_ratio_no_usage);
	tcase_add_test(tc, test_sharetree_derived);
	tcase_add_test(tc, test_sharetree_moves);
	tcase_add_test(tc, test_sharetree_ge_capture1);
	tcase_add_test(tc, test_sharetree_ge_released);
	tcase_add_test(tc, test_sharetree_ge_one_group);
	tcase_add_test(tc, test_sharetree_compensation);
	tcase_add_test(tc, test_sharetree_pool);
	tcase_add_test(tc, test_sharetree_nothing_pending);
	tcase_add_test(tc, test_sharetree_flood);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fairshare_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}
