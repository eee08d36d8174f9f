// SPDX-License-Identifier: MIT
/*
 * Long replies in slices, one a loop turn (stream.h).  A stream walks the
 * core's lists with cursors (core_cursor_create), so neither the request
 * nor any slice costs the whole queue; and for a reply that lets it (rota
 * prio: ops->written and ops->body) it also hashes the session MAC a
 * slice at a time and hands the finished body to the connection without
 * a copy, so that the last turn does not pay for megabytes either.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/auth.h"
#include "common/evloop.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "ctld/ctld.h"
#include "ctld/stream.h"

struct reply_stream {
	struct peer *p;
	struct core_cursor *walk[2]; /* walked one after the other */
	size_t nwalk;
	size_t at;		/* the one being walked */
	uint32_t *ids;		/* or these jobs (stream_start_ids) */
	size_t nids;
	size_t idpos;
	struct rota_timer *timer;
	const struct stream_ops *ops;
	void *ctx;
	bool mac_on;		/* the MAC is made as the body grows */
	struct rota_auth_mac_stream mac;
};

static void stream_free(struct reply_stream *s)
{
	if (s->mac_on) /* the key's copy wiped */
		memset(&s->mac, 0, sizeof(s->mac));
	s->p->stream = NULL;
	for (size_t i = 0; i < s->nwalk; i++)
		core_cursor_destroy(s->walk[i]);
	free(s->ids);
	free(s);
}

/* Up to STREAM_SLICE jobs of the walk; false when it is over. */
static bool slice(struct reply_stream *s)
{
	struct core *core = s->p->ctld->core; /* a reconfiguration's, too */

	if (s->ids) { /* a job gone meanwhile is left out */
		for (unsigned k = 0; k < STREAM_SLICE && s->idpos < s->nids;
		     k++) {
			const struct core_job *job =
				core_job_find(core, s->ids[s->idpos++]);

			if (job)
				s->ops->row(job, s->ctx);
		}
		return s->idpos < s->nids;
	}
	for (unsigned k = 0; k < STREAM_SLICE; k++) {
		const struct core_job *job = NULL;

		while (s->at < s->nwalk &&
		       !(job = core_cursor_next(core, s->walk[s->at])))
			s->at++;
		if (!job)
			return false;
		s->ops->row(job, s->ctx);
	}
	return true;
}

/* The stream's own reply: its MAC mostly made already (ops->body). */
static void send_body(struct reply_stream *s)
{
	struct rota_auth_mac_stream mac = s->mac;
	bool mac_on = s->mac_on;
	struct peer *p = s->p;
	uint16_t type = s->ops->type;
	size_t len;
	char *body = s->ops->body(s->ctx, &len);

	stream_free(s); /* first: a failed send closes and frees the peer */
	if (!mac_on) /* not begun with the stream: made whole at the end */
		rota_auth_mac_begin(&p->sess, type, &mac);
	peer_send_mac(p, type, body, len, &mac); /* takes 'body' */
	memset(&mac, 0, sizeof(mac));
}

static void slice_cb(struct rota_evloop *loop, void *arg)
{
	struct reply_stream *s = arg;
	const struct stream_ops *ops = s->ops;
	struct peer *p = s->p;
	void *ctx = s->ctx;

	s->timer = NULL; /* spent */
	if (slice(s)) {
		if (s->mac_on) {
			size_t len;
			const char *body = ops->written(ctx, &len);

			rota_auth_mac_feed(&s->mac, body, len);
		}
		s->timer = rota_evloop_add_timer(loop, 0, false, slice_cb, s);
		return;
	}
	if (ops->body) {
		send_body(s);
		return;
	}
	stream_free(s); /* first: a failed send closes and frees the peer */
	ops->finish(p, ctx);
}

bool stream_busy(struct peer *p)
{
	if (p->stream)
		peer_send_error(p, -EBUSY, "a listing is still being sent");
	return p->stream != NULL;
}

static void stream_go(struct peer *p, struct reply_stream *s)
{
	if (s->ops->written && p->sess.open) {
		s->mac_on = true;
		rota_auth_mac_begin(&p->sess, s->ops->type, &s->mac);
	}
	p->stream = s;
	s->timer = rota_evloop_add_timer(p->ctld->loop, 0, false, slice_cb, s);
}

void stream_start_ids(struct peer *p, uint32_t *ids, size_t n,
		      const struct stream_ops *ops, void *ctx)
{
	struct reply_stream *s = rota_xcalloc(1, sizeof(*s));

	*s = (struct reply_stream){
		.p = p, .ops = ops, .ctx = ctx, .ids = ids, .nids = n,
	};
	stream_go(p, s);
}

void stream_start(struct peer *p, enum stream_walk walk,
		  const struct stream_ops *ops, void *ctx)
{
	struct core *core = p->ctld->core;
	struct reply_stream *s = rota_xcalloc(1, sizeof(*s));

	*s = (struct reply_stream){
		.p = p,
		.ops = ops,
		.ctx = ctx,
	};
	if (walk == STREAM_BY_ID)
		s->walk[s->nwalk++] = core_cursor_create(core,
							 CORE_CURSOR_BY_ID);
	if (walk == STREAM_RUNNING_PENDING) /* first, as qstat lists them */
		s->walk[s->nwalk++] = core_cursor_create(core,
							 CORE_CURSOR_RUNNING);
	if (walk != STREAM_BY_ID)
		s->walk[s->nwalk++] = core_cursor_create(core,
							 CORE_CURSOR_PENDING);
	stream_go(p, s);
}

void stream_abort(struct peer *p)
{
	struct reply_stream *s = p->stream;

	if (!s)
		return;
	if (s->timer)
		rota_timer_cancel(s->timer);
	s->ops->drop(s->ctx);
	stream_free(s);
}
