/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_CORE_SHARE_H
#define ROTA_CTLD_CORE_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "ctld/core/ftickets.h"
#include "plugins/rota_plugin.h"

/*
 * The account tree of rota.conf with each association's decayed usage,
 * and the fairshare plugin run over it.  Part of the scheduling core: time
 * arrives as arguments.  Associations have stable ids (a job keeps its
 * own); the plugin's view (struct rota_share_tree) is rebuilt in preorder
 * when a user first seen joins the tree.
 */
struct rota_conf;
struct plugin;
struct share;

#define SHARE_ROOT 0u		/* the id of the root account */

/*
 * 'fairshare' is borrowed: it must outlive the tree.  'flux': its factors
 * are replaced by Flux's 2^(-U/S) reading (Fairshare=... Convention=flux).
 */
struct share *share_create(const struct rota_conf *conf,
			   struct plugin *fairshare, bool flux);
void share_destroy(struct share *s);

/*
 * The association a job of 'user' charges: in 'account', or the user's
 * default account when NULL.  A user rota.conf does not list gets a leaf
 * of the root account with Shares=1, unless EnforceAccounts (then -EPERM).
 * -ENOENT for an unknown account, -EPERM for one the user is not in, with
 * the user's line.  'lenient' (restoring a job) never refuses: it falls
 * back to the user's leaf under the root.
 */
int share_assoc(struct share *s, const char *user, const char *account,
		bool lenient, uint32_t *id, struct rota_error *err);
/* The account of association 'id'; borrowed, valid until destroy. */
const char *share_assoc_account(const struct share *s, uint32_t id);
/* Its Priority=, or its nearest ancestor's (Slurm's association factor). */
double share_assoc_priority(const struct share *s, uint32_t id);
double share_max_priority(const struct share *s);
/*
 * Grid Engine's ticket entities (ftickets.h) of association 'id': its
 * user's and its account's, each an association id, and its user's
 * department's (the departments follow the associations), all below
 * share_entities(); TICKET_NONE where none (a department always is).
 * share_entity_fill() writes every entity's FShares= and OTickets= into
 * 'ents' (share_entities() of them), counts 0.  Valid until an
 * association is added.
 */
void share_ticket_entities(const struct share *s, uint32_t id, uint32_t *user,
			   uint32_t *project, uint32_t *dept);
/* Its user's department's name ("defaultdepartment"); borrowed. */
const char *share_assoc_department(const struct share *s, uint32_t id);
size_t share_entities(const struct share *s);
void share_entity_fill(const struct share *s, struct ticket_entity *ents);
/*
 * The limits of association 'id''s own line, and those of its accounts
 * (for a user: its account first) up to the root, NULL-ended; borrowed
 * until the next association is added.
 */
const struct rota_limit_set *share_assoc_limits(const struct share *s,
					       uint32_t id);
const struct rota_limit_set *const *share_account_limits(struct share *s,
							 uint32_t id);

/* Add 'amount' core-seconds charged at time 'at' to association 'id'. */
void share_charge(struct share *s, uint32_t id, double amount, int64_t at);
/*
 * A job of association 'id' joined (+1) or left (-1) the pending or
 * running jobs: the counts the plugin sees, as of each share_prepare().
 */
void share_count_job(struct share *s, uint32_t id, bool running, int delta);

/*
 * Decay every usage to 'now', sum it up the tree, run the plugin.  Returns
 * the plugin's result (0, or -errno, the old outputs then kept).
 */
int share_update(struct share *s, int64_t now);
/*
 * The same, but the view is filled and the plugin run only when its
 * outputs are first read (share_tree, share_compute), on the inputs as of
 * 'now' whatever was charged since: a re-rating with no job to rate costs
 * neither.
 */
void share_prepare(struct share *s, int64_t now);
int share_compute(struct share *s);
/* The view after the last update or prepare; borrowed until the next. */
const struct rota_share_tree *share_tree(struct share *s);
/*
 * The same for a reader of the users' factors alone: the rest may be as
 * of an earlier prepare (the plugin's factors(), where it has one).
 */
const struct rota_share_tree *share_factors(struct share *s);
/*
 * Index of association 'id' in share_tree()'s nodes; ROTA_SHARE_NONE for
 * one that joined after the last share_update().
 */
uint32_t share_view_index(const struct share *s, uint32_t id);
/* The fairshare plugin's name and settings as the host uses them. */
const char *share_plugin_name(const struct share *s);
bool share_flux_convention(const struct share *s);

/*
 * Durability.  share_usage_at() is an association's usage decayed to 'now'
 * (0 for accounts: usage lives on user leaves).  share_usage_set() puts a
 * journaled value back: the user's leaf in 'account' (created as for a
 * job), its usage being 'usage' at time 'at'.
 */
size_t share_assoc_count(const struct share *s);
bool share_assoc_is_user(const struct share *s, uint32_t id);
const char *share_assoc_name(const struct share *s, uint32_t id);
double share_usage_at(const struct share *s, uint32_t id, int64_t now);
void share_usage_set(struct share *s, const char *account, const char *user,
		     double usage, int64_t at);
/* Forget every usage (before a journaled record is put back). */
void share_usage_clear(struct share *s);
/* Set by each charge and usage_set, cleared by the caller once journaled. */
bool share_is_dirty(const struct share *s);
bool share_take_dirty(struct share *s);

#endif
