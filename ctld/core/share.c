// SPDX-License-Identifier: MIT
/*
 * The account tree and its usage (share.h).
 *
 * Usage lives on user leaves; an account's is the sum of its subtree.
 * Decay is kept lazily, so that a charge costs O(1) however large the
 * tree: a leaf stores its usage as of a reference time t0, and the true
 * value at t is stored * decay(t0, t).  A charge at t adds amount /
 * decay(t0, t).  t0 moves (and the decay is folded in) only when a charge
 * falls more than one half-life from it, so the division stays within a
 * factor of two.
 *
 * A re-rating prepares the view's inputs as of its time T, but most are
 * never read (nothing pending, nothing submitted before the next one), so
 * the view is filled only when first read.  Charges and job counts go to
 * a per-association delta until the next re-rating, which keeps the
 * stored values as of T for that late fill and for the plugin.  The
 * view's subtree sums are kept between fills: a re-rating adds the job
 * counts along the changed leaves' paths and marks the accounts on them,
 * whose usage the fill sums again from their children; all is summed
 * afresh from the leaves only when the units change (t0 moved, usage
 * restored, the tree rebuilt).
 *
 * decay(a, b) is 2^(-(b - a) / H) for UsageDecay=exponential (Slurm's and
 * Grid Engine's half-life), and 2^-(number of multiples of H passed
 * between a and b) for UsageDecay=halving (IT4I's "cut in half every 168
 * hours": the cuts fall on multiples of H since the Unix epoch, so every
 * controller and rota sim cut at the same instants).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/core/core_internal.h"
#include "ctld/core/plugin_host.h"
#include "ctld/core/share.h"

struct share_assoc {
	char *name;		/* account, or user */
	char *account;		/* itself, or the user's account */
	uint32_t parent;	/* id; ROTA_SHARE_NONE for the root */
	bool is_user;
	double shares;
	double priority;	/* Priority= of its line; 0: its parent's */
	struct rota_limit_set limits; /* of its line; all unset for guests */
	const struct rota_limit_set **chain; /* the accounts' limits from
				   here (a user: its account) up to the root,
				   NULL-ended; made when first asked */
	double eff_priority;	/* its Priority=, or its nearest ancestor's */
	uint32_t view;		/* index in the view */
};

/* Open addressing over "A:account", "U:user:account" and "D:user". */
struct share_slot {
	char *key;
	uint32_t id;
};

struct share {
	struct share_assoc *a;
	size_t n;
	size_t cap;
	/* per association, dense: the loops over every one stay short */
	double *stored;		/* usage at t0 as of the last prepare */
	double *delta;		/* charged since, at t0 */
	uint32_t *touched;	/* ids with a delta or new job counts */
	bool *listed;		/* per id: in touched (a delta may decay to
				   0 there and be charged again) */
	size_t ntouched;
	uint32_t *pending;	/* jobs now */
	uint32_t *running;
	uint32_t *pending_at;	/* as of the last prepare */
	uint32_t *running_at;
	uint32_t *view_assoc;	/* view index -> id */
	/*
	 * Per view node, dense, the sums of its subtree as of the last
	 * prepare, kept as charges and jobs come: a prepare adds the job
	 * counts along the changed leaves' paths and sums the usage of the
	 * accounts on them again, from their children in the order
	 * view_sums() takes them, so that equal subtrees sum to equal
	 * usage whatever order the charges came in (ties must stay ties).
	 */
	bool sums_stale;	/* to be summed again from the leaves */
	double *view_ref;	/* usage at t0 (usage_ref) */
	uint32_t *view_parent;
	bool *view_user;
	uint32_t *view_pending;
	uint32_t *view_running;
	uint32_t *view_koff;	/* node i's children: view_kids[koff[i]..] */
	uint32_t *view_kids;
	bool *view_dirty;	/* an account whose usage is to be summed */
	uint32_t *dirty_ids;	/* those accounts */
	size_t ndirty;
	double max_priority;
	struct share_slot *slots;
	size_t nslots;
	size_t nkeys;
	int64_t half_life;
	enum rota_usage_decay mode;
	bool enforce;
	bool flux;		/* Fairshare Convention=flux */
	int64_t t0;
	bool view_stale;	/* a user joined: rebuild the view */
	bool fill_due;		/* prepared as of fill_at, view not summed */
	int64_t fill_at;
	bool inputs_due;	/* summed, the nodes' inputs not filled */
	bool compute_due;	/* inputs prepared, the plugin not yet run */
	bool partial;		/* only the factors are of the last prepare */
	bool memo_valid;	/* memo_f is decay(memo_from, memo_to) */
	int64_t memo_from;
	int64_t memo_to;
	double memo_f;
	size_t view_n;		/* associations in the view */
	bool dirty;		/* usage changed since last taken */
	struct rota_share_tree tree;
	struct plugin *plugin;
	const struct rota_fairshare_ops *ops;
	/* the plugin's factors(), where the host may use it */
	int (*factors)(void *state, struct rota_share_tree *tree);
};

static void share_fill(struct share *s);

/* ---- names --------------------------------------------------------------- */

static uint64_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3u;
	return h;
}

static struct share_slot *slot_find(const struct share *s, const char *key)
{
	size_t i = hash(key) & (s->nslots - 1);

	while (s->slots[i].key && strcmp(s->slots[i].key, key) != 0)
		i = (i + 1) & (s->nslots - 1);
	return &s->slots[i];
}

static void key_put(struct share *s, char *key, uint32_t id)
{
	struct share_slot *slot;

	if (2 * (s->nkeys + 1) > s->nslots) {
		struct share_slot *old = s->slots;
		size_t n = s->nslots;

		s->nslots = n ? 2 * n : 64;
		s->slots = rota_xcalloc(s->nslots, sizeof(*s->slots));
		for (size_t i = 0; i < n; i++) {
			if (old[i].key)
				*slot_find(s, old[i].key) = old[i];
		}
		free(old);
	}
	slot = slot_find(s, key);
	if (slot->key) { /* a user's second line cannot be a new default */
		free(key);
		return;
	}
	slot->key = key;
	slot->id = id;
	s->nkeys++;
}

static bool key_get(const struct share *s, const char *key, uint32_t *id)
{
	const struct share_slot *slot = slot_find(s, key);

	if (!slot->key)
		return false;
	*id = slot->id;
	return true;
}

static uint32_t assoc_add(struct share *s, const char *name,
			  const char *account, uint32_t parent, bool is_user,
			  double shares, double priority,
			  const struct rota_conf_limits *limits)
{
	struct share_assoc *a;

	/* a view prepared before this user joined is filled without it */
	share_fill(s);
	if (s->n == s->cap) {
		/* chains point into the array: they are made again */
		for (size_t i = 0; i < s->n; i++) {
			free(s->a[i].chain);
			s->a[i].chain = NULL;
		}
		s->cap = s->cap ? 2 * s->cap : 16;
		s->a = rota_xreallocarray(s->a, s->cap, sizeof(*s->a));
		s->stored = rota_xreallocarray(s->stored, s->cap,
					       sizeof(*s->stored));
		s->delta = rota_xreallocarray(s->delta, s->cap,
					      sizeof(*s->delta));
		s->touched = rota_xreallocarray(s->touched, s->cap,
						sizeof(*s->touched));
		s->listed = rota_xreallocarray(s->listed, s->cap,
					       sizeof(*s->listed));
		s->pending = rota_xreallocarray(s->pending, s->cap,
						sizeof(*s->pending));
		s->running = rota_xreallocarray(s->running, s->cap,
						sizeof(*s->running));
		s->pending_at = rota_xreallocarray(s->pending_at, s->cap,
						   sizeof(*s->pending_at));
		s->running_at = rota_xreallocarray(s->running_at, s->cap,
						   sizeof(*s->running_at));
		s->view_assoc = rota_xreallocarray(s->view_assoc, s->cap,
						   sizeof(*s->view_assoc));
	}
	a = &s->a[s->n];
	*a = (struct share_assoc){
		.name = rota_xstrdup(name),
		.account = rota_xstrdup(account),
		.parent = parent,
		.is_user = is_user,
		.shares = shares,
		.priority = priority,
		/* parents are added before their children */
		.eff_priority = priority != 0 || parent == ROTA_SHARE_NONE
					? priority
					: s->a[parent].eff_priority,
	};
	s->stored[s->n] = s->delta[s->n] = 0;
	s->listed[s->n] = false;
	s->pending[s->n] = s->running[s->n] = 0;
	s->pending_at[s->n] = s->running_at[s->n] = 0;
	if (priority > s->max_priority)
		s->max_priority = priority;
	limits_from_conf(limits, &a->limits);
	if (is_user)
		key_put(s, rota_xasprintf("U:%s:%s", name, account),
			(uint32_t)s->n);
	else
		key_put(s, rota_xasprintf("A:%s", name), (uint32_t)s->n);
	s->view_stale = true;
	return (uint32_t)s->n++;
}

/* Accounts in an order where each parent comes before its children. */
static void add_accounts(struct share *s, const struct rota_conf *conf)
{
	bool *done = rota_xcalloc(conf->naccounts + 1, sizeof(bool));
	size_t left = conf->naccounts;
	char *key;
	uint32_t parent;

	/* conf.c has checked the parents form a tree: each pass adds some */
	while (left) {
		for (size_t i = 0; i < conf->naccounts; i++) {
			const struct rota_conf_account *c = &conf->accounts[i];

			key = rota_xasprintf("A:%s", c->parent);
			if (!done[i] && key_get(s, key, &parent)) {
				assoc_add(s, c->name, c->name, parent, false,
					  c->shares, c->priority, &c->limits);
				done[i] = true;
				left--;
			}
			free(key);
		}
	}
	free(done);
}

static void add_users(struct share *s, const struct rota_conf *conf)
{
	for (size_t i = 0; i < conf->nusers; i++) {
		const struct rota_conf_user *u = &conf->users[i];
		char *key = rota_xasprintf("A:%s", u->account);
		uint32_t parent = SHARE_ROOT;
		uint32_t id;

		key_get(s, key, &parent);
		free(key);
		id = assoc_add(s, u->name, u->account, parent, true, u->shares,
			       u->priority, &u->limits);
		if (u->is_default)
			key_put(s, rota_xasprintf("D:%s", u->name), id);
	}
}

struct share *share_create(const struct rota_conf *conf,
			   struct plugin *fairshare, bool flux)
{
	struct share *s = rota_xcalloc(1, sizeof(*s));

	s->half_life = conf->usage_half_life;
	s->mode = conf->usage_decay;
	s->enforce = conf->enforce_accounts;
	s->plugin = fairshare;
	/* factors() came in ABI 1.4: an older table is shorter */
	s->ops = plugin_ops(fairshare,
			    offsetof(struct rota_fairshare_ops, factors));
	s->flux = flux;
	/* Flux's reading of the factors needs usage_eff */
	s->factors = PLUGIN_OPS_HAS(s->ops, factors) && !flux ? s->ops->factors
							       : NULL;
	assoc_add(s, "root", "root", ROTA_SHARE_NONE, false, 1, 0, NULL);
	add_accounts(s, conf);
	add_users(s, conf);
	return s;
}

/* The view and its dense arrays, to be made again by view_build(). */
static void view_free(struct share *s)
{
	free(s->tree.nodes);
	free(s->view_ref);
	free(s->view_parent);
	free(s->view_user);
	free(s->view_pending);
	free(s->view_running);
	free(s->view_koff);
	free(s->view_kids);
	free(s->view_dirty);
	free(s->dirty_ids);
}

void share_destroy(struct share *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->a[i].name);
		free(s->a[i].account);
		free(s->a[i].chain);
	}
	for (size_t i = 0; i < s->nslots; i++)
		free(s->slots[i].key);
	free(s->slots);
	free(s->a);
	free(s->stored);
	free(s->delta);
	free(s->touched);
	free(s->listed);
	free(s->pending);
	free(s->running);
	free(s->pending_at);
	free(s->running_at);
	free(s->view_assoc);
	view_free(s);
	free(s);
}

/* The user's accounts, for the line that says which they may use. */
static void user_accounts(const struct share *s, const char *user, char *buf,
			  size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->n && used < len; i++) {
		if (s->a[i].is_user && strcmp(s->a[i].name, user) == 0)
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%s", used ? ", " : "",
						 s->a[i].account);
	}
}

/* The leaf of a user rota.conf does not list: under root, Shares=1. */
static uint32_t guest_leaf(struct share *s, const char *user)
{
	char *key = rota_xasprintf("U:%s:root", user);
	uint32_t id;

	if (!key_get(s, key, &id))
		id = assoc_add(s, user, "root", SHARE_ROOT, true, 1, 0, NULL);
	free(key);
	return id;
}

/*
 * Look up "U:user:account", or "D:user" without an account: built on
 * the stack when short, as every submit asks.
 */
static bool user_key_get(const struct share *s, const char *user,
			 const char *account, uint32_t *id)
{
	char buf[160];
	size_t lu = strlen(user), la = account ? strlen(account) : 0;
	size_t need = 2 + lu + (account ? 1 + la : 0) + 1;
	char *key = need <= sizeof(buf) ? buf : rota_xmalloc(need);
	char *p = key;
	bool found;

	*p++ = account ? 'U' : 'D';
	*p++ = ':';
	memcpy(p, user, lu);
	p += lu;
	if (account) {
		*p++ = ':';
		memcpy(p, account, la);
		p += la;
	}
	*p = '\0';
	found = key_get(s, key, id);
	if (key != buf)
		free(key);
	return found;
}

int share_assoc(struct share *s, const char *user, const char *account,
		bool lenient, uint32_t *id, struct rota_error *err)
{
	char mine[128];
	bool listed;
	uint32_t any;
	char *key;

	if (user_key_get(s, user, account, id))
		return 0;
	listed = user_key_get(s, user, NULL, &any);
	if (lenient || (!listed && !s->enforce &&
			(!account || strcmp(account, "root") == 0))) {
		*id = guest_leaf(s, user);
		return 0;
	}
	if (!listed && !account)
		return rota_errorf(err, -EPERM,
				   "user '%s' has no account in rota.conf "
				   "(EnforceAccounts=yes)", user);
	key = rota_xasprintf("A:%s", account);
	listed = key_get(s, key, &any);
	free(key);
	if (!listed)
		return rota_errorf(err, -ENOENT, "account '%s' does not exist",
				   account);
	user_accounts(s, user, mine, sizeof(mine));
	return rota_errorf(err, -EPERM,
			   "user '%s' is not in account '%s'%s%s%s", user,
			   account, mine[0] ? " (" : "", mine,
			   mine[0] ? ")" : "");
}

const char *share_assoc_account(const struct share *s, uint32_t id)
{
	return s->a[id].account;
}

double share_assoc_priority(const struct share *s, uint32_t id)
{
	return s->a[id].eff_priority;
}

const struct rota_limit_set *share_assoc_limits(const struct share *s,
					       uint32_t id)
{
	return &s->a[id].limits;
}

const struct rota_limit_set *const *share_account_limits(struct share *s,
							 uint32_t id)
{
	struct share_assoc *a = &s->a[id];
	size_t n = 0;

	if (a->chain)
		return a->chain;
	for (uint32_t k = a->is_user ? a->parent : id; k != ROTA_SHARE_NONE;
	     k = s->a[k].parent)
		n++;
	a->chain = rota_xcalloc(n + 1, sizeof(*a->chain));
	n = 0;
	for (uint32_t k = a->is_user ? a->parent : id; k != ROTA_SHARE_NONE;
	     k = s->a[k].parent)
		a->chain[n++] = &s->a[k].limits;
	return a->chain;
}

double share_max_priority(const struct share *s)
{
	return s->max_priority;
}

/* ---- usage --------------------------------------------------------------- */

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b < 0);
}

/* How much of a usage at 'from' is left at 'to'. */
static double decay(const struct share *s, int64_t from, int64_t to)
{
	if (s->mode == ROTA_DECAY_HALVING)
		return ldexp(1.0, -(int)(floor_div(to, s->half_life) -
					 floor_div(from, s->half_life)));
	return exp2(-(double)(to - from) / (double)s->half_life);
}

/* decay(t0, at) for a charge: a re-rating charges every job at one time. */
static double charge_decay(struct share *s, int64_t at)
{
	if (s->memo_from != s->t0 || s->memo_to != at || !s->memo_valid) {
		s->memo_from = s->t0;
		s->memo_to = at;
		s->memo_f = decay(s, s->t0, at);
		s->memo_valid = true;
	}
	return s->memo_f;
}

/* Fold the decay up to 'now' into the stored values and deltas. */
static void rebase(struct share *s, int64_t now)
{
	double f = decay(s, s->t0, now);

	for (size_t i = 0; i < s->n; i++) {
		s->stored[i] *= f;
		s->delta[i] *= f;
	}
	s->t0 = now;
	s->sums_stale = true;
}

static void touch(struct share *s, uint32_t id)
{
	if (!s->listed[id]) {
		s->listed[id] = true;
		s->touched[s->ntouched++] = id;
	}
}

/*
 * Association id's changes into the view's sums: its job counts up its
 * path, its usage into its leaf, and the accounts above marked for
 * view_resum().
 */
static void view_path_add(struct share *s, uint32_t id, int64_t pending,
			  int64_t running)
{
	uint32_t k = s->a[id].view;

	if (s->sums_stale || s->view_stale || id >= s->view_n)
		return;
	if (s->a[id].is_user) /* accounts hold no usage of their own */
		s->view_ref[k] = s->stored[id];
	for (;; k = s->view_parent[k]) {
		s->view_pending[k] = (uint32_t)(s->view_pending[k] + pending);
		s->view_running[k] = (uint32_t)(s->view_running[k] + running);
		if (!s->view_user[k] && !s->view_dirty[k]) {
			s->view_dirty[k] = true;
			s->dirty_ids[s->ndirty++] = k;
		}
		if (!k)
			break;
	}
}

/* An account's usage from its children's, last child first. */
static double account_usage(const struct share *s, uint32_t k)
{
	double sum = 0;

	for (uint32_t j = s->view_koff[k + 1]; j-- > s->view_koff[k];)
		sum += s->view_ref[s->view_kids[j]];
	return sum;
}

/*
 * The marked accounts' usage summed again, children before parents: at
 * the fill, not at each re-rating, as most are never filled.
 */
static void view_resum(struct share *s)
{
	/* few: an insertion sort, deepest (highest index) first */
	for (size_t i = 1; i < s->ndirty; i++) {
		uint32_t e = s->dirty_ids[i];
		size_t j = i;

		for (; j > 0 && s->dirty_ids[j - 1] < e; j--)
			s->dirty_ids[j] = s->dirty_ids[j - 1];
		s->dirty_ids[j] = e;
	}
	for (size_t i = 0; i < s->ndirty; i++) {
		uint32_t k = s->dirty_ids[i];

		s->view_ref[k] = account_usage(s, k);
		s->view_dirty[k] = false;
	}
	s->ndirty = 0;
}

/* The charges and job counts since the last prepare, taken. */
static void fold_deltas(struct share *s)
{
	for (size_t k = 0; k < s->ntouched; k++) {
		uint32_t id = s->touched[k];
		int64_t dp = (int64_t)s->pending[id] - s->pending_at[id];
		int64_t dr = (int64_t)s->running[id] - s->running_at[id];

		s->stored[id] += s->delta[id];
		view_path_add(s, id, dp, dr);
		s->delta[id] = 0;
		s->pending_at[id] = s->pending[id];
		s->running_at[id] = s->running[id];
		s->listed[id] = false;
	}
	s->ntouched = 0;
}

void share_charge(struct share *s, uint32_t id, double amount, int64_t at)
{
	double v;

	if (amount <= 0)
		return;
	if (at > s->t0 + s->half_life || at < s->t0 - s->half_life)
		rebase(s, at);
	/* into the delta even once filled: the plugin may not have run */
	v = amount / charge_decay(s, at);
	touch(s, id);
	s->delta[id] += v;
	s->dirty = true;
}

double share_usage_at(const struct share *s, uint32_t id, int64_t now)
{
	return (s->stored[id] + s->delta[id]) * decay(s, s->t0, now);
}

/*
 * The view of the last prepare made whole, plugin run included, before a
 * fold changes its sums: a later read must not rate half-moved usage.
 */
static void share_settle(struct share *s)
{
	(void)share_tree(s);
}

void share_usage_set(struct share *s, const char *account, const char *user,
		     double usage, int64_t at)
{
	uint32_t id;

	if (!(usage >= 0) || !isfinite(usage))
		return;
	share_assoc(s, user, account, true, &id, NULL);
	share_settle(s);
	fold_deltas(s);
	rebase(s, at);
	s->stored[id] = usage;
	s->sums_stale = true;
	s->dirty = true;
}

void share_usage_clear(struct share *s)
{
	share_settle(s);
	fold_deltas(s);
	for (size_t i = 0; i < s->n; i++)
		s->stored[i] = 0;
	s->sums_stale = true;
}

bool share_is_dirty(const struct share *s)
{
	return s->dirty;
}

bool share_take_dirty(struct share *s)
{
	bool d = s->dirty;

	s->dirty = false;
	return d;
}

void share_count_job(struct share *s, uint32_t id, bool running, int delta)
{
	uint32_t *count = running ? &s->running[id] : &s->pending[id];

	*count = (uint32_t)((int64_t)*count + delta);
	touch(s, id);
}

/* ---- the plugin's view --------------------------------------------------- */

struct sort_ctx_entry {
	uint32_t id;
	const struct share_assoc *a;
};

static int child_cmp(const void *x, const void *y)
{
	const struct sort_ctx_entry *p = x;
	const struct sort_ctx_entry *q = y;
	int c;

	if (p->a->parent != q->a->parent)
		return p->a->parent < q->a->parent ? -1 : 1;
	c = strcmp(p->a->name, q->a->name);
	return c ? c : (int)p->a->is_user - (int)q->a->is_user;
}

/* Each view node's children in increasing index, dense. */
static void view_kids_build(struct share *s)
{
	uint32_t *next = rota_xcalloc(s->tree.n, sizeof(*next));

	for (size_t i = 1; i < s->tree.n; i++)
		s->view_koff[s->view_parent[i] + 1]++;
	for (size_t i = 0; i < s->tree.n; i++)
		s->view_koff[i + 1] += s->view_koff[i];
	for (size_t i = 1; i < s->tree.n; i++) {
		uint32_t p = s->view_parent[i];

		s->view_kids[s->view_koff[p] + next[p]++] = (uint32_t)i;
	}
	free(next);
}

/* Preorder, siblings by name: the layout rota_plugin.h promises. */
static void view_build(struct share *s)
{
	struct sort_ctx_entry *e = rota_xcalloc(s->n, sizeof(*e));
	uint32_t *first = rota_xcalloc(s->n, sizeof(uint32_t)); /* in e[] */
	uint32_t *count = rota_xcalloc(s->n, sizeof(uint32_t));
	uint32_t *stack = rota_xcalloc(s->n + 1, sizeof(uint32_t));
	size_t top = 0;
	uint32_t next = 0;

	for (size_t i = 1; i < s->n; i++)
		e[i - 1] = (struct sort_ctx_entry){ (uint32_t)i, &s->a[i] };
	qsort(e, s->n - 1, sizeof(*e), child_cmp);
	for (size_t i = s->n - 1; i-- > 0;) {
		first[e[i].a->parent] = (uint32_t)i;
		count[e[i].a->parent]++;
	}
	view_free(s);
	s->tree.nodes = rota_xcalloc(s->n, sizeof(*s->tree.nodes));
	s->tree.n = s->n;
	s->view_ref = rota_xcalloc(s->n, sizeof(*s->view_ref));
	s->view_parent = rota_xcalloc(s->n, sizeof(*s->view_parent));
	s->view_user = rota_xcalloc(s->n, sizeof(*s->view_user));
	s->view_pending = rota_xcalloc(s->n, sizeof(*s->view_pending));
	s->view_running = rota_xcalloc(s->n, sizeof(*s->view_running));
	s->view_koff = rota_xcalloc(s->n + 1, sizeof(*s->view_koff));
	s->view_kids = rota_xcalloc(s->n, sizeof(*s->view_kids));
	s->view_dirty = rota_xcalloc(s->n, sizeof(*s->view_dirty));
	s->dirty_ids = rota_xcalloc(s->n, sizeof(*s->dirty_ids));
	s->ndirty = 0;
	s->tree.usage_ref = s->view_ref;
	stack[top++] = SHARE_ROOT;
	while (top) {
		uint32_t id = stack[--top];
		struct share_assoc *a = &s->a[id];
		struct rota_share_node *v = &s->tree.nodes[next];

		a->view = next;
		s->view_assoc[next++] = id;
		*v = (struct rota_share_node){
			.name = a->name,
			.account = a->account,
			.parent = a->parent == ROTA_SHARE_NONE
					  ? ROTA_SHARE_NONE
					  : s->a[a->parent].view,
			.first_child = ROTA_SHARE_NONE,
			.next_sibling = ROTA_SHARE_NONE,
			.depth = a->parent == ROTA_SHARE_NONE
					 ? 0
					 : s->tree.nodes[s->a[a->parent].view]
							   .depth + 1,
			.is_user = a->is_user,
			.shares = a->shares,
		};
		/* children pushed last-first, so popped in name order */
		for (uint32_t k = count[id]; k-- > 0;)
			stack[top++] = e[first[id] + k].id;
	}
	/* sibling links: children follow their parent in preorder */
	for (size_t i = s->tree.n; i-- > 1;) {
		struct rota_share_node *v = &s->tree.nodes[i];
		struct rota_share_node *p = &s->tree.nodes[v->parent];

		v->next_sibling = p->first_child;
		p->first_child = (uint32_t)i;
	}
	for (size_t i = 0; i < s->tree.n; i++) {
		s->view_parent[i] = s->tree.nodes[i].parent;
		s->view_user[i] = s->tree.nodes[i].is_user;
	}
	view_kids_build(s);
	s->view_stale = false;
	s->view_n = s->n;
	s->tree.shape++;
	s->sums_stale = true;
	free(e);
	free(first);
	free(count);
	free(stack);
}

/* Each node's share of the machine: fixed until the view is rebuilt. */
static void view_shares(struct share *s)
{
	struct rota_share_node *v = s->tree.nodes;

	v[0].shares_norm = 1;
	for (size_t i = 0; i < s->tree.n; i++) {
		double sum = 0;

		for (uint32_t c = v[i].first_child; c != ROTA_SHARE_NONE;
		     c = v[c].next_sibling)
			sum += v[c].shares;
		for (uint32_t c = v[i].first_child; c != ROTA_SHARE_NONE;
		     c = v[c].next_sibling)
			v[c].shares_norm = sum > 0 ? v[i].shares_norm *
							     v[c].shares / sum
						   : 0;
	}
}

/*
 * The view's sums from the leaves (accounts hold no usage of their own):
 * at t0, so that a subtree nobody charged sums to the same usage_ref as
 * last time.  New units for usage_ref: a new usage_epoch.
 */
static void view_sums(struct share *s)
{
	size_t n = s->tree.n;
	const uint32_t *id = s->view_assoc, *up = s->view_parent;
	const bool *user = s->view_user;
	double *ref = s->view_ref;
	uint32_t *pend = s->view_pending, *run = s->view_running;

	/* children come after their parent: zero all, then sum leaves up */
	memset(ref, 0, n * sizeof(*ref));
	memset(pend, 0, n * sizeof(*pend));
	memset(run, 0, n * sizeof(*run));
	for (size_t i = n; i-- > 1;) {
		double r = ref[i] + (user[i] ? s->stored[id[i]] : 0);
		uint32_t p = pend[i] + s->pending_at[id[i]];
		uint32_t q = run[i] + s->running_at[id[i]];

		ref[i] = r;
		pend[i] = p;
		run[i] = q;
		ref[up[i]] += r;
		pend[up[i]] += p;
		run[up[i]] += q;
	}
	/* the root account's own (no job charges it: for the record) */
	pend[0] += s->pending_at[id[0]];
	run[0] += s->running_at[id[0]];
	for (size_t i = 0; i < s->ndirty; i++)
		s->view_dirty[s->dirty_ids[i]] = false;
	s->ndirty = 0;
	s->sums_stale = false;
	s->tree.usage_epoch++;
}

/* The sums into the view, usage decayed to 'at'. */
static void view_inputs(struct share *s, int64_t at)
{
	size_t n = s->tree.n;
	struct rota_share_node *v = s->tree.nodes;
	const double *ref = s->view_ref;
	const uint32_t *pend = s->view_pending, *run = s->view_running;
	double f = decay(s, s->t0, at);
	bool some = ref[0] * f > 0;

	for (size_t i = 0; i < n; i++) {
		v[i].usage = ref[i] * f;
		v[i].usage_norm = some ? ref[i] / ref[0] : 0;
		v[i].pending = pend[i];
		v[i].running = run[i];
	}
}

/* The view's sums (usage_ref) as of the last prepare, if not made yet. */
static void share_sum(struct share *s)
{
	if (!s->fill_due)
		return;
	s->fill_due = false;
	if (s->view_stale) {
		view_build(s);
		view_shares(s);
	}
	if (s->sums_stale)
		view_sums(s);
	else
		view_resum(s);
	s->tree.now = s->fill_at;
	s->inputs_due = true;
}

/* The whole view as of the last prepare, if not filled yet. */
static void share_fill(struct share *s)
{
	share_sum(s);
	if (s->inputs_due) {
		view_inputs(s, s->tree.now);
		s->inputs_due = false;
	}
}

void share_prepare(struct share *s, int64_t now)
{
	/* a view prepared but not filled is dropped for this one */
	fold_deltas(s);
	/*
	 * Idle (nothing charged) for over a half-life: the decay into the
	 * stored values, so that usage_ref, as usage, goes to 0 when the
	 * decay underflows, and everyone ties again.
	 */
	if (now > s->t0 + s->half_life)
		rebase(s, now);
	s->fill_due = true;
	s->fill_at = now;
	s->compute_due = true;
}

int share_compute(struct share *s)
{
	int rc;

	share_fill(s);
	if (!s->compute_due && !s->partial)
		return 0;
	s->compute_due = false;
	s->partial = false;
	rc = s->ops->compute(plugin_state(s->plugin), &s->tree);
	if (rc < 0 || !s->flux)
		return rc;
	/* Flux's reading: 0.5 served as entitled, 1 unused, 0 far over */
	for (size_t i = 0; i < s->tree.n; i++) {
		struct rota_share_node *n = &s->tree.nodes[i];

		n->factor = n->shares_norm > 0
				    ? exp2(-n->usage_eff / n->shares_norm)
				    : 0;
	}
	return 0;
}

int share_update(struct share *s, int64_t now)
{
	share_prepare(s, now);
	return share_compute(s);
}

static const struct rota_share_tree *rated(struct share *s, int rc)
{
	if (rc < 0)
		rota_err("fairshare/%s: rating failed (%d): the last factors "
			 "kept", plugin_name(s->plugin), rc);
	return &s->tree;
}

const struct rota_share_tree *share_tree(struct share *s)
{
	return rated(s, share_compute(s));
}

const struct rota_share_tree *share_factors(struct share *s)
{
	if (!s->factors)
		return share_tree(s);
	share_sum(s);
	if (!s->compute_due)
		return &s->tree;
	s->compute_due = false;
	s->partial = true;
	return rated(s, s->factors(plugin_state(s->plugin), &s->tree));
}

uint32_t share_view_index(const struct share *s, uint32_t id)
{
	return id < s->view_n ? s->a[id].view : ROTA_SHARE_NONE;
}

const char *share_plugin_name(const struct share *s)
{
	return plugin_name(s->plugin);
}

bool share_flux_convention(const struct share *s)
{
	return s->flux;
}

size_t share_assoc_count(const struct share *s)
{
	return s->n;
}

bool share_assoc_is_user(const struct share *s, uint32_t id)
{
	return s->a[id].is_user;
}

const char *share_assoc_name(const struct share *s, uint32_t id)
{
	return s->a[id].name;
}
