// SPDX-License-Identifier: MIT
/*
 * fairshare/sharetree: Grid Engine's share-tree policy (sgeee.c,
 * sge_calc_node_targets()): each node's targets, from which the host
 * deals tickets to jobs (ctld/core/tickets.c).
 *
 * Only "active" nodes take part: those with jobs in their subtree, held
 * jobs not counted.  Down from the root (ostt = oltt = 1), at each node,
 * over its active children c:
 *
 *   ltt  = shares / sum of the active siblings' shares   (long-term)
 *   oltt = parent's oltt * ltt
 *   shr  = shares^2 / max(usage, 1.0 * oltt), 0 when oltt is 0
 *   stt  = shr / sum of the siblings' shr                 (short-term)
 *   ostt = parent's ostt * stt
 *
 * so a child that used less than its shares would give it gets more than
 * its long-term share, for now.  The usage is the raw decayed
 * core-seconds; the floor 1.0 * oltt (Grid Engine's SGE_MIN_USAGE) keeps
 * an idle child from taking everything.  Compensation: a child whose
 * ostt exceeds CompensationFactor * oltt has its shr divided by
 * ostt / (CF * oltt), once, and the level's stt and ostt are recomputed.
 * CF 0 turns that off.
 *
 * Grid Engine runs this twice a pass: with running and pending jobs
 * making nodes active (pending jobs' tickets come from it), and with
 * running jobs alone (running jobs' tickets); the second pass is run only
 * for a host that asks for the targets (tree->targets).
 *
 * tickets = ostt * Tickets (first pass) for active nodes, 0 for the rest:
 * the active users' tickets add up to the pool, provided every active
 * level has a child with shares (a level of zero-share children gets
 * nothing, as in Grid Engine).  factor = tickets / the most tickets any
 * user holds; an account's is that of its best user, so that it stays
 * within [0, 1].
 *
 * Settings: Tickets (the pool, default 10000, from 1 to 1e12),
 * CompensationFactor (default 5, Grid Engine's; from 0 to 1e6).
 *
 * Grid Engine's other ticket policies, which the host deals with the
 * share tree's (ctld/core/ftickets.h), take their settings here too,
 * named after sched_conf's and passed on in tree->policy:
 * WeightTicketsFunctional (0: none), WeightUser, WeightProject (the
 * account's), WeightDepartment (the user's DepartmentName=), WeightJob
 * (0.25 each, sge_schedd_conf.c's), MaxFunctionalJobsToSchedule (200),
 * ShareFunctionalShares and ShareOverrideTickets (yes), PolicyHierarchy
 * (OFS; any order of some of O, F, S, or NONE).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/rota_plugin.h"

/* Grid Engine's SGE_MIN_USAGE, in usage units per unit of oltt */
#define SHARETREE_MIN_USAGE 1.0

struct sharetree_state {
	double tickets;
	double compensation;
	struct rota_ticket_policy policy;
};

/* policy_hierarchy's values: some of O, F and S in any order, or none */
static const char *const hierarchies[] = {
	"OFS", "OSF", "FOS", "FSO", "SOF", "SFO", "OF", "FO", "OS",
	"SO",  "FS",  "SF",  "O",   "F",   "S",   "NONE", NULL,
};

/* Grid Engine's defaults, as sched_conf(5) gives them. */
static int policy_init(const struct rota_host *host,
		       const struct rota_plugin_conf *conf,
		       struct rota_ticket_policy *p, char *err, size_t errlen)
{
	double max = 200;
	unsigned h = 0;
	int rc;

	*p = (struct rota_ticket_policy){
		.weight_user = 0.25,
		.weight_project = 0.25,
		.weight_department = 0.25,
		.weight_job = 0.25,
		.share_functional = true,
		.share_override = true,
	};
	rc = host->conf_double(conf, "WeightTicketsFunctional", 0, 1e12,
			       &p->functional, err, errlen);
	if (rc == 0)
		rc = host->conf_double(conf, "WeightUser", 0, 1e6,
				       &p->weight_user, err, errlen);
	if (rc == 0)
		rc = host->conf_double(conf, "WeightProject", 0, 1e6,
				       &p->weight_project, err, errlen);
	if (rc == 0)
		rc = host->conf_double(conf, "WeightDepartment", 0, 1e6,
				       &p->weight_department, err, errlen);
	if (rc == 0)
		rc = host->conf_double(conf, "WeightJob", 0, 1e6,
				       &p->weight_job, err, errlen);
	if (rc == 0)
		rc = host->conf_double(conf, "MaxFunctionalJobsToSchedule", 0,
				       1e9, &max, err, errlen);
	if (rc == 0)
		rc = host->conf_bool(conf, "ShareFunctionalShares",
				     &p->share_functional, err, errlen);
	if (rc == 0)
		rc = host->conf_bool(conf, "ShareOverrideTickets",
				     &p->share_override, err, errlen);
	if (rc == 0)
		rc = host->conf_choice(conf, "PolicyHierarchy", hierarchies, &h,
				       err, errlen);
	if (rc < 0)
		return rc;
	p->max_functional = (uint32_t)max;
	if (strcmp(hierarchies[h], "NONE"))
		memcpy(p->hierarchy, hierarchies[h], strlen(hierarchies[h]));
	return 0;
}

/* Per node targets of one pass of compute(). */
struct st_target {
	double oltt;
	double ostt;
	double shr;
};

/* One computation of the targets: which nodes count, and into where. */
struct st_pass {
	const struct rota_share_node *nodes;
	struct st_target *t;
	bool running_only;	/* Grid Engine's second pass */
	double cf;
};

static int sharetree_init(const struct rota_host *host,
			  const struct rota_plugin_conf *conf, void **state,
			  char *err, size_t errlen)
{
	struct sharetree_state *st;
	double tickets = 10000;
	double cf = 5;
	int rc;

	*state = NULL;
	rc = host->conf_double(conf, "Tickets", 1, 1e12, &tickets, err, errlen);
	if (rc < 0)
		return rc;
	rc = host->conf_double(conf, "CompensationFactor", 0, 1e6, &cf, err,
			       errlen);
	if (rc < 0)
		return rc;
	st = malloc(sizeof(*st));
	if (!st) {
		snprintf(err, errlen, "fairshare/sharetree: out of memory");
		return -ENOMEM;
	}
	rc = policy_init(host, conf, &st->policy, err, errlen);
	if (rc < 0) {
		free(st);
		return rc;
	}
	st->tickets = tickets;
	st->compensation = cf;
	*state = st;
	return 0;
}

static void sharetree_fini(void *state)
{
	free(state);
}

static bool st_is_active(const struct st_pass *ps, uint32_t c)
{
	const struct rota_share_node *n = &ps->nodes[c];

	return n->running > 0 || (!ps->running_only && n->pending > 0);
}

/* c or its first active next sibling; ROTA_SHARE_NONE when none */
static uint32_t st_active(const struct st_pass *ps, uint32_t c)
{
	while (c != ROTA_SHARE_NONE && !st_is_active(ps, c))
		c = ps->nodes[c].next_sibling;
	return c;
}

static uint32_t st_first(const struct st_pass *ps, uint32_t p)
{
	return st_active(ps, ps->nodes[p].first_child);
}

static uint32_t st_next(const struct st_pass *ps, uint32_t c)
{
	return st_active(ps, ps->nodes[c].next_sibling);
}

/* stt = shr / sum of shr, ostt = parent's ostt * stt, over p's children. */
static void st_short_term(const struct st_pass *ps, uint32_t p)
{
	struct st_target *t = ps->t;
	double sum = 0;
	uint32_t c;

	for (c = st_first(ps, p); c != ROTA_SHARE_NONE; c = st_next(ps, c))
		sum += t[c].shr;
	for (c = st_first(ps, p); c != ROTA_SHARE_NONE; c = st_next(ps, c))
		t[c].ostt = sum > 0 ? t[p].ostt * t[c].shr / sum : 0;
}

/* The targets of p's active children, p's being set. */
static void st_targets(const struct st_pass *ps, uint32_t p)
{
	const struct rota_share_node *nodes = ps->nodes;
	struct st_target *t = ps->t;
	double sum = 0;
	bool changed = false;
	uint32_t c;

	for (c = st_first(ps, p); c != ROTA_SHARE_NONE; c = st_next(ps, c))
		sum += nodes[c].shares;
	for (c = st_first(ps, p); c != ROTA_SHARE_NONE; c = st_next(ps, c)) {
		double min_usage;

		t[c].oltt = sum > 0 ? t[p].oltt * nodes[c].shares / sum : 0;
		min_usage = SHARETREE_MIN_USAGE * t[c].oltt;
		t[c].shr = 0;
		if (t[c].oltt > 0)
			t[c].shr = nodes[c].shares * nodes[c].shares /
				   fmax(nodes[c].usage, min_usage);
	}
	st_short_term(ps, p);
	if (!(ps->cf > 0))
		return;
	for (c = st_first(ps, p); c != ROTA_SHARE_NONE; c = st_next(ps, c)) {
		double cap = ps->cf * t[c].oltt;

		if (t[c].ostt > cap) {
			t[c].shr /= t[c].ostt / cap;
			changed = true;
		}
	}
	if (changed)
		st_short_term(ps, p);
}

/* Every node's targets (0 for the inactive), down from the root. */
static void st_pass_run(const struct st_pass *ps, size_t n)
{
	memset(ps->t, 0, n * sizeof(*ps->t));
	if (st_is_active(ps, 0))
		ps->t[0].oltt = ps->t[0].ostt = 1;
	/* preorder: a parent's targets are set before its children's */
	for (uint32_t i = 0; i < n; i++)
		if (st_is_active(ps, i))
			st_targets(ps, i);
}

static int sharetree_compute(void *state, struct rota_share_tree *tree)
{
	const struct sharetree_state *st = state;
	struct rota_share_node *nodes = tree->nodes;
	struct st_pass ps = { .nodes = nodes, .cf = st->compensation };
	struct st_target *both, *running;
	double best = 0;

	if (tree->policy)
		*tree->policy = st->policy;
	if (tree->n == 0)
		return 0;
	both = calloc(2 * tree->n, sizeof(*both));
	if (!both)
		return -ENOMEM;
	running = both + tree->n;
	if (tree->targets) { /* the second pass: only a host that reads it */
		ps.t = running;
		ps.running_only = true;
		st_pass_run(&ps, tree->n);
		ps.running_only = false;
	}
	ps.t = both;
	st_pass_run(&ps, tree->n);
	for (size_t i = 0; i < tree->n; i++) {
		nodes[i].tickets = ps.t[i].ostt * st->tickets;
		nodes[i].value = nodes[i].tickets;
		nodes[i].usage_eff = nodes[i].usage_norm;
		nodes[i].level_fs = NAN;
		if (nodes[i].is_user && nodes[i].tickets > best)
			best = nodes[i].tickets;
		if (tree->targets)
			tree->targets[i] = (struct rota_share_target){
				.oltt = ps.t[i].oltt,
				.ostt = ps.t[i].ostt,
				.ostt_running = running[i].ostt,
			};
	}
	for (size_t i = 0; i < tree->n; i++) {
		bool ranked = nodes[i].is_user && best > 0;

		nodes[i].factor = ranked ? nodes[i].tickets / best : 0;
	}
	for (size_t i = tree->n - 1; i > 0; i--)
		if (nodes[i].factor > nodes[nodes[i].parent].factor)
			nodes[nodes[i].parent].factor = nodes[i].factor;
	free(both);
	return 0;
}

static const struct rota_fairshare_ops sharetree_ops = {
	.size = sizeof(sharetree_ops),
	.compute = sharetree_compute,
};

extern const struct rota_plugin ROTA_PLUGIN_EXPORT(fairshare, sharetree);
const struct rota_plugin ROTA_PLUGIN_EXPORT(fairshare, sharetree) = {
	.abi = ROTA_PLUGIN_ABI,
	.kind = ROTA_PLUGIN_FAIRSHARE,
	.name = "sharetree",
	.init = sharetree_init,
	.fini = sharetree_fini,
	.ops = &sharetree_ops,
};
