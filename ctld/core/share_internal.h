/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_CORE_SHARE_INTERNAL_H
#define ROTA_CTLD_CORE_SHARE_INTERNAL_H

/*
 * Shared by share.c (the tree, its names and associations) and
 * share_usage.c (usage, its decay, and the plugin's view) only; share.c
 * calls share_usage.c, never the other way.
 */
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
	double fshares;		/* FShares=: a user's, the largest of its
				   lines, in its first association */
	double otickets;	/* OTickets=, likewise */
	uint32_t user_entity;	/* a user's first association: the one
				   that stands for the user (ftickets.h) */
	uint32_t dept;		/* a user's department, in share.depts */
};

/* A department (DepartmentName=): a ticket entity after the associations. */
struct share_dept {
	char *name;
	double fshares;
	double otickets;
};

/*
 * Open addressing over "A:account", "U:user:account", "D:user" (default
 * association), "N:user" (its first) and "P:user" (its department).
 */
struct share_slot {
	char *key;
	uint32_t id;
};

struct share {
	struct share_assoc *a;
	size_t n;
	size_t cap;
	struct share_dept *depts; /* [0]: defaultdepartment */
	size_t ndepts;
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
	struct rota_ticket_policy policy; /* the sharetree plugin's */
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

/* share_usage.c: a view prepared but not yet summed is summed now. */
void share_fill(struct share *s);
/* The view and its dense arrays, to be made again when next needed. */
void share_view_free(struct share *s);
/* A journaled usage of association 'id' put back (share_usage_set). */
void share_usage_put(struct share *s, uint32_t id, double usage, int64_t at);

#endif
