// SPDX-License-Identifier: MIT
/*
 * SHARE: the fairshare tree for rota share.  Usage is charged and decayed
 * up to the moment of the request and the plugin run again, so the
 * figures are those the next priority calculation would use.  Like
 * Slurm's sshare, anyone may see the whole tree: shares and usage are
 * what users need to understand their own place in it.
 *
 * Besides the plugin's figures, each row gets the two sshare shows under
 * Fair-Tree, Slurm's default: the share among siblings (NormShares) and
 * the usage over the parent's (EffectvUsage); the tree's shares_norm and
 * usage_norm stay, being of the whole machine.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "common/conf.h"
#include "common/msg.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "ctld/ctld.h"
#include "plugins/rota_plugin.h"

/*
 * Row i's share among its siblings (its own shares over theirs, its own
 * included: 0 when they are all 0, as in Slurm) and its usage over its
 * parent's (0 when the parent has none; the root's is 1, as in Slurm).
 * 'level' holds each node's children's shares, summed.
 */
static void set_level(const struct rota_share_tree *t, const double *level,
		      size_t i, struct rota_share_row *r)
{
	const struct rota_share_node *n = &t->nodes[i];
	const struct rota_share_node *parent;

	r->shares_level = 1;
	r->usage_level = 1;
	if (n->parent >= t->n) /* the root (ROTA_SHARE_NONE) */
		return;
	parent = &t->nodes[n->parent];
	r->shares_level =
		level[n->parent] > 0 ? n->shares / level[n->parent] : 0;
	r->usage_level = parent->usage > 0 ? n->usage / parent->usage : 0;
}

void rpc_share(struct peer *p, const struct rota_frame *f)
{
	struct ctld *ctld = p->ctld;
	int64_t now = ctld_now(ctld);
	const struct rota_share_tree *t;
	struct rota_msg_share m = {
		.plugin = (char *)core_share_plugin(ctld->core),
		.decay = ctld->conf->usage_decay == ROTA_DECAY_HALVING
				 ? "halving"
				 : "exponential",
		.half_life = ctld->conf->usage_half_life,
		.time = now,
	};
	double *level;
	size_t len;
	char *body;

	if (core_share_update(ctld->core, now) < 0) {
		peer_send_error(p, -EIO, "the fairshare plugin failed: see "
					 "the controller's log");
		return;
	}
	t = core_share_tree(ctld->core);
	m.convention = core_share_flux(ctld->core) ? "flux" : "native";
	m.rows = rota_xcalloc(t->n + 1, sizeof(*m.rows));
	level = rota_xcalloc(t->n + 1, sizeof(*level));
	for (size_t i = 0; i < t->n; i++)
		if (t->nodes[i].parent < t->n)
			level[t->nodes[i].parent] += t->nodes[i].shares;
	for (size_t i = 0; i < t->n; i++) {
		const struct rota_share_node *n = &t->nodes[i];

		m.rows[m.n++] = (struct rota_share_row){
			.account = (char *)n->account,
			.user = n->is_user ? (char *)n->name : NULL,
			.depth = n->depth,
			.shares = n->shares,
			.shares_norm = n->shares_norm,
			.usage = n->usage,
			.usage_norm = n->usage_norm,
			.usage_eff = n->usage_eff,
			.level_fs = n->level_fs,
			.value = n->value,
			.factor = n->factor,
			.tickets = n->tickets,
			.pending = n->pending,
			.running = n->running,
			.ltarget = t->targets ? t->targets[i].oltt : NAN,
			.starget = t->targets ? t->targets[i].ostt : NAN,
			.rtarget = t->targets ? t->targets[i].ostt_running
					      : NAN,
		};
		set_level(t, level, i, &m.rows[i]);
	}
	body = rota_msg_share_encode(&m, &len);
	peer_send(p, ROTA_MSG_SHARE_REPLY, body, len);
	free(body);
	free(m.rows);
	free(level);
}
