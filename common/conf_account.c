// SPDX-License-Identifier: MIT
/*
 * The fairshare tree of rota.conf:
 *   AccountName=physics Parent=root Shares=40
 *   UserName=ana Account=physics Shares=30 Default=yes
 * FShares= and OTickets= on either line are Grid Engine's functional
 * shares and override tickets of a project (the account) and a user
 * (ctld/core/ftickets.h); a user's are its own on every line it has:
 * the largest given counts.
 * Accounts may name parents declared further down, so the tree is checked
 * once the whole file is read: every parent and every user's account must
 * exist, parents must lead to the implicit root account without a cycle,
 * and no account or (user, account) pair is declared twice.  Names are
 * sorted once to find them, so 65536 lines cost n log n, not n^2.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf_internal.h"
#include "common/xalloc.h"

#define ROOT "root"

struct account_line {
	char *name;
	char *parent;
	unsigned shares;
	unsigned priority;
	unsigned fshares;
	unsigned otickets;
	struct rota_conf_limits limits;
};

#define ACCOUNT(n, s, f, lo, hi, d)                                            \
	{                                                                      \
		.name = n, .set = s,                                           \
		.offset = offsetof(struct account_line, f), .min = lo,         \
		.max = hi, .def = d,                                           \
	}

static const struct conf_key account_keys[] = {
	ACCOUNT("AccountName", conf_set_name, name, 0, 0, NULL),
	ACCOUNT("Parent", conf_set_name, parent, 0, 0, ROOT),
	ACCOUNT("Shares", conf_set_uint, shares, 0, 1000000000, "1"),
	ACCOUNT("Priority", conf_set_uint, priority, 0, 1000000000, NULL),
	ACCOUNT("FShares", conf_set_uint, fshares, 0, 1000000000, "0"),
	ACCOUNT("OTickets", conf_set_uint, otickets, 0, 1000000000, "0"),
	LIMIT_KEYS(struct account_line),
};

struct user_line {
	char *name;
	char *account;
	unsigned shares;
	unsigned priority;
	unsigned fshares;
	unsigned otickets;
	bool is_default;
	struct rota_conf_limits limits;
};

#define USER(n, s, f, lo, hi, d)                                               \
	{                                                                      \
		.name = n, .set = s, .offset = offsetof(struct user_line, f),  \
		.min = lo, .max = hi, .def = d,                                \
	}

static const struct conf_key user_keys[] = {
	USER("UserName", conf_set_name, name, 0, 0, NULL),
	USER("Account", conf_set_name, account, 0, 0, NULL),
	USER("Shares", conf_set_uint, shares, 0, 1000000000, "1"),
	USER("Default", conf_set_bool, is_default, 0, 0, NULL),
	USER("Priority", conf_set_uint, priority, 0, 1000000000, NULL),
	USER("FShares", conf_set_uint, fshares, 0, 1000000000, "0"),
	USER("OTickets", conf_set_uint, otickets, 0, 1000000000, "0"),
	LIMIT_KEYS(struct user_line),
};

int conf_account_line(struct conf_impl *impl, struct rota_error *err,
		      const struct conf_where *at,
		      const struct conf_token *tok, size_t ntok)
{
	struct rota_conf *conf = &impl->pub;
	struct account_line al = { 0 };
	int rc;

	conf_keys_default(account_keys, ARRAY_SIZE(account_keys), &al);
	conf_limits_init(&al.limits);
	rc = conf_line_apply(err, at, account_keys, ARRAY_SIZE(account_keys),
			     &al, tok, ntok);
	if (!rc)
		rc = conf_limits_check(&al.limits, at, err);
	if (!rc && strcmp(al.name, ROOT) == 0)
		rc = conf_errorf(err, -EINVAL, at, "AccountName",
				 "'root' is the implicit top of the tree");
	if (!rc && conf->naccounts == CONF_ACCOUNTS_MAX)
		rc = conf_errorf(err, -EINVAL, at, "AccountName",
				 "more than %d accounts", CONF_ACCOUNTS_MAX);
	if (rc) {
		free(al.name);
		free(al.parent);
		return rc;
	}
	conf->accounts = conf_grow(conf->accounts, &impl->account_slots,
				   conf->naccounts + 1,
				   sizeof(*conf->accounts));
	conf->accounts[conf->naccounts++] = (struct rota_conf_account){
		.name = al.name,
		.parent = al.parent,
		.shares = al.shares,
		.priority = al.priority,
		.fshares = al.fshares,
		.otickets = al.otickets,
		.limits = al.limits,
		.file = at->file,
		.line = at->line,
	};
	return 0;
}

int conf_user_line(struct conf_impl *impl, struct rota_error *err,
		   const struct conf_where *at, const struct conf_token *tok,
		   size_t ntok)
{
	struct rota_conf *conf = &impl->pub;
	struct user_line ul = { 0 };
	int rc;

	conf_keys_default(user_keys, ARRAY_SIZE(user_keys), &ul);
	conf_limits_init(&ul.limits);
	rc = conf_line_apply(err, at, user_keys, ARRAY_SIZE(user_keys), &ul,
			     tok, ntok);
	if (!rc)
		rc = conf_limits_check(&ul.limits, at, err);
	if (!rc && !ul.account)
		rc = conf_errorf(err, -EINVAL, at, "UserName",
				 "'%s' is in no account: add Account=NAME",
				 ul.name);
	if (!rc && conf->nusers == CONF_ACCOUNTS_MAX)
		rc = conf_errorf(err, -EINVAL, at, "UserName",
				 "more than %d user lines", CONF_ACCOUNTS_MAX);
	if (rc) {
		free(ul.name);
		free(ul.account);
		return rc;
	}
	conf->users = conf_grow(conf->users, &impl->user_slots,
				conf->nusers + 1, sizeof(*conf->users));
	conf->users[conf->nusers++] = (struct rota_conf_user){
		.name = ul.name,
		.account = ul.account,
		.shares = ul.shares,
		.priority = ul.priority,
		.fshares = ul.fshares,
		.otickets = ul.otickets,
		.limits = ul.limits,
		.is_default = ul.is_default,
		.file = at->file,
		.line = at->line,
	};
	return 0;
}

/* ---- the whole tree ------------------------------------------------------ */

static int account_cmp(const void *a, const void *b)
{
	const struct rota_conf_account *const *x = a;
	const struct rota_conf_account *const *y = b;
	int c = strcmp((*x)->name, (*y)->name);

	return c ? c : (*x > *y) - (*x < *y); /* ties in file order */
}

static int account_key_cmp(const void *key, const void *elem)
{
	return strcmp(key,
		      (*(const struct rota_conf_account *const *)elem)->name);
}

static const struct rota_conf_account *
account_lookup(const struct rota_conf_account **index, size_t n,
	       const char *name)
{
	const struct rota_conf_account *const *found =
		bsearch(name, index, n, sizeof(*index), account_key_cmp);

	return found ? *found : NULL;
}

static int accounts_unique(const struct rota_conf_account **index, size_t n,
			   struct rota_error *err)
{
	for (size_t i = 1; i < n; i++) {
		const struct rota_conf_account *a = index[i - 1];
		const struct rota_conf_account *b = index[i];
		struct conf_where at = { b->file, b->line };

		if (strcmp(a->name, b->name) == 0)
			return conf_errorf(err, -EINVAL, &at, "AccountName",
					   "'%s' already declared at %s:%u",
					   b->name, a->file, a->line);
	}
	return 0;
}

/* Every parent exists and the chain of parents reaches the root. */
static int account_parents(const struct rota_conf *conf,
			   const struct rota_conf_account **index,
			   struct rota_error *err)
{
	size_t n = conf->naccounts;

	for (size_t i = 0; i < n; i++) {
		const struct rota_conf_account *a = &conf->accounts[i];
		struct conf_where at = { a->file, a->line };
		size_t steps = 0;

		if (strcmp(a->parent, ROOT) &&
		    !account_lookup(index, n, a->parent))
			return conf_errorf(err, -EINVAL, &at, "Parent",
					   "'%s' is not a declared account",
					   a->parent);
		while (a && strcmp(a->parent, ROOT) && steps++ <= n)
			a = account_lookup(index, n, a->parent);
		if (steps > n)
			return conf_errorf(
				err, -EINVAL, &at, "Parent",
				"account '%s' is its own ancestor (a cycle)",
				conf->accounts[i].name);
	}
	return 0;
}

static int user_cmp(const void *a, const void *b)
{
	const struct rota_conf_user *const *x = a;
	const struct rota_conf_user *const *y = b;
	int c = strcmp((*x)->name, (*y)->name);

	return c ? c : (*x > *y) - (*x < *y);
}

/* A user's lines (sorted, adjacent): distinct accounts, one default. */
static int user_lines(struct rota_conf_user **u, size_t n,
		      struct rota_error *err)
{
	struct rota_conf_user *def = NULL;

	for (size_t i = 0; i < n; i++) {
		struct conf_where at = { u[i]->file, u[i]->line };

		for (size_t k = 0; k < i; k++) {
			if (strcmp(u[k]->account, u[i]->account) == 0)
				return conf_errorf(
					err, -EINVAL, &at, "Account",
					"user '%s' is already in '%s' at %s:%u",
					u[i]->name, u[i]->account, u[k]->file,
					u[k]->line);
		}
		if (u[i]->is_default && def)
			return conf_errorf(err, -EINVAL, &at, "Default",
					   "user '%s' already defaults to '%s' "
					   "at %s:%u",
					   u[i]->name, def->account, def->file,
					   def->line);
		if (u[i]->is_default)
			def = u[i];
	}
	if (!def) /* sorted with ties in file order: the first line */
		u[0]->is_default = true;
	return 0;
}

static int users_check(struct rota_conf *conf,
		       const struct rota_conf_account **index,
		       struct rota_error *err)
{
	struct rota_conf_user **u;
	int rc = 0;

	for (size_t i = 0; i < conf->nusers; i++) {
		const struct rota_conf_user *us = &conf->users[i];
		struct conf_where at = { us->file, us->line };

		if (strcmp(us->account, ROOT) &&
		    !account_lookup(index, conf->naccounts, us->account))
			return conf_errorf(err, -EINVAL, &at, "Account",
					   "'%s' is not a declared account",
					   us->account);
	}
	u = rota_xreallocarray(NULL, conf->nusers + 1, sizeof(*u));
	for (size_t i = 0; i < conf->nusers; i++)
		u[i] = &conf->users[i];
	qsort(u, conf->nusers, sizeof(*u), user_cmp);
	for (size_t i = 0, j; i < conf->nusers && !rc; i = j) {
		for (j = i + 1; j < conf->nusers &&
				strcmp(u[i]->name, u[j]->name) == 0;
		     j++)
			;
		/* a user's lines: at most one per account, so few */
		if (j - i > 4096)
			rc = conf_errorf(err, -EINVAL,
					 &(struct conf_where){ u[j - 1]->file,
							       u[j - 1]->line },
					 "UserName", "user '%s' is in more "
					 "than 4096 accounts", u[i]->name);
		else
			rc = user_lines(u + i, j - i, err);
	}
	free(u);
	return rc;
}

int conf_accounts_finish(struct conf_impl *impl, struct rota_error *err)
{
	struct rota_conf *conf = &impl->pub;
	const struct rota_conf_account **index;
	int rc;

	index = rota_xreallocarray(NULL, conf->naccounts + 1, sizeof(*index));
	for (size_t i = 0; i < conf->naccounts; i++)
		index[i] = &conf->accounts[i];
	qsort(index, conf->naccounts, sizeof(*index), account_cmp);
	rc = accounts_unique(index, conf->naccounts, err);
	if (!rc)
		rc = account_parents(conf, index, err);
	if (!rc)
		rc = users_check(conf, index, err);
	free(index);
	return rc;
}

void conf_accounts_free(struct conf_impl *impl)
{
	struct rota_conf *conf = &impl->pub;

	for (size_t i = 0; i < conf->naccounts; i++) {
		free(conf->accounts[i].name);
		free(conf->accounts[i].parent);
	}
	free(conf->accounts);
	for (size_t i = 0; i < conf->nusers; i++) {
		free(conf->users[i].name);
		free(conf->users[i].account);
	}
	free(conf->users);
}

const struct rota_conf_account *
rota_conf_account_find(const struct rota_conf *conf, const char *name)
{
	for (size_t i = 0; i < conf->naccounts; i++) {
		if (strcmp(conf->accounts[i].name, name) == 0)
			return &conf->accounts[i];
	}
	return NULL;
}
