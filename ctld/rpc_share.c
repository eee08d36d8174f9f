// SPDX-License-Identifier: MIT
/*
 * SHARE: the fairshare tree for rota share.  Usage is charged and decayed
 * up to the moment of the request and the plugin run again, so the
 * figures are those the next priority calculation would use.  Like
 * Slurm's sshare, anyone may see the whole tree: shares and usage are
 * what users need to understand their own place in it.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "common/conf.h"
#include "common/msg.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "ctld/ctld.h"
#include "plugins/rota_plugin.h"

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
		};
	}
	body = rota_msg_share_encode(&m, &len);
	peer_send(p, ROTA_MSG_SHARE_REPLY, body, len);
	free(body);
	free(m.rows);
}
