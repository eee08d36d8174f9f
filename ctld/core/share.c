// SPDX-License-Identifier: MIT
/*
 * The account tree (share.h; core.h, "Layers": tables): its accounts and
 * users from rota.conf, the associations jobs charge, found by name, and
 * their limits and priorities.  Usage and the fairshare plugin's view of
 * the tree are share_usage.c's.
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

/* The department a user is in: its DepartmentName= line's, else 0. */
static uint32_t user_dept(const struct share *s, const char *user)
{
	char *key = rota_xasprintf("P:%s", user);
	uint32_t d = 0;

	key_get(s, key, &d);
	free(key);
	return d;
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
		.user_entity = (uint32_t)s->n,
		.dept = is_user ? user_dept(s, name) : 0,
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
				uint32_t id = assoc_add(s, c->name, c->name,
							parent, false,
							c->shares, c->priority,
							&c->limits);

				s->a[id].fshares = c->fshares;
				s->a[id].otickets = c->otickets;
				done[i] = true;
				left--;
			}
			free(key);
		}
	}
	free(done);
}

/* The user's first association stands for it: the largest FShares=. */
static void user_entity(struct share *s, uint32_t id,
			const struct rota_conf_user *u)
{
	char *key = rota_xasprintf("N:%s", u->name);
	uint32_t first = id;
	struct share_assoc *e;

	if (!key_get(s, key, &first))
		key_put(s, rota_xstrdup(key), id);
	free(key);
	s->a[id].user_entity = first;
	e = &s->a[first];
	e->fshares = e->fshares > u->fshares ? e->fshares : u->fshares;
	e->otickets = e->otickets > u->otickets ? e->otickets : u->otickets;
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
		user_entity(s, id, u);
		if (u->is_default)
			key_put(s, rota_xasprintf("D:%s", u->name), id);
	}
}

/*
 * The departments, defaultdepartment first (with its line's values if
 * one names it), and each named user's: before any user is added.
 */
static void add_depts(struct share *s, const struct rota_conf *conf)
{
	s->depts = rota_xcalloc(conf->ndepartments + 1, sizeof(*s->depts));
	s->depts[0].name = rota_xstrdup(ROTA_DEFAULT_DEPARTMENT);
	s->ndepts = 1;
	for (size_t i = 0; i < conf->ndepartments; i++) {
		const struct rota_conf_department *c = &conf->departments[i];
		uint32_t d = 0;

		if (strcmp(c->name, ROTA_DEFAULT_DEPARTMENT))
			s->depts[d = (uint32_t)s->ndepts++].name =
				rota_xstrdup(c->name);
		s->depts[d].fshares = c->fshares;
		s->depts[d].otickets = c->otickets;
		for (char **u = c->users; *u; u++)
			key_put(s, rota_xasprintf("P:%s", *u), d);
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
	add_depts(s, conf);
	assoc_add(s, "root", "root", ROTA_SHARE_NONE, false, 1, 0, NULL);
	add_accounts(s, conf);
	add_users(s, conf);
	return s;
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
	for (size_t i = 0; i < s->ndepts; i++)
		free(s->depts[i].name);
	free(s->depts);
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
	share_view_free(s);
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

void share_ticket_entities(const struct share *s, uint32_t id, uint32_t *user,
			   uint32_t *project, uint32_t *dept)
{
	const struct share_assoc *a = &s->a[id];

	*user = a->is_user ? a->user_entity : TICKET_NONE;
	*project = a->is_user ? a->parent : id;
	if (*project == ROTA_SHARE_NONE)
		*project = TICKET_NONE;
	/* every job has one: its user's, else defaultdepartment */
	*dept = (uint32_t)s->n + a->dept;
}

const char *share_assoc_department(const struct share *s, uint32_t id)
{
	return s->depts[s->a[id].dept].name;
}

size_t share_entities(const struct share *s)
{
	return s->n + s->ndepts;
}

void share_entity_fill(const struct share *s, struct ticket_entity *ents)
{
	for (size_t i = 0; i < s->n; i++)
		ents[i] = (struct ticket_entity){
			.fshares = s->a[i].fshares,
			.otickets = s->a[i].otickets,
		};
	for (size_t i = 0; i < s->ndepts; i++)
		ents[s->n + i] = (struct ticket_entity){
			.fshares = s->depts[i].fshares,
			.otickets = s->depts[i].otickets,
		};
}

double share_max_priority(const struct share *s)
{
	return s->max_priority;
}

void share_usage_set(struct share *s, const char *account, const char *user,
		     double usage, int64_t at)
{
	uint32_t id;

	if (!(usage >= 0) || !isfinite(usage))
		return;
	share_assoc(s, user, account, true, &id, NULL);
	share_usage_put(s, id, usage, at);
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
