// SPDX-License-Identifier: MIT
/*
 * Usage and the fairshare plugin's view of the account tree (share.h;
 * core.h, "Layers": tables).
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

#include "ctld/core/share_internal.h"

void share_view_free(struct share *s)
{
	free(s->tree.nodes);
	free(s->tree.targets);
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

void share_usage_put(struct share *s, uint32_t id, double usage, int64_t at)
{
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
	share_view_free(s);
	s->tree.nodes = rota_xcalloc(s->n, sizeof(*s->tree.nodes));
	s->tree.n = s->n;
	/* read by the ticket dealing (tickets.c); NAN: not computed */
	s->tree.targets = rota_xcalloc(s->n, sizeof(*s->tree.targets));
	for (size_t i = 0; i < s->n; i++)
		s->tree.targets[i] = (struct rota_share_target){ NAN, NAN,
								 NAN };
	/* the ticket policies' settings: none until a plugin writes them */
	s->policy = (struct rota_ticket_policy){ 0 };
	s->tree.policy = &s->policy;
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
void share_fill(struct share *s)
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
