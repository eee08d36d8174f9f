// SPDX-License-Identifier: MIT
/* Long replies in slices, one a loop turn (stream.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

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
	struct rota_timer *timer;
	const struct stream_ops *ops;
	void *ctx;
};

static void stream_free(struct reply_stream *s)
{
	s->p->stream = NULL;
	for (size_t i = 0; i < s->nwalk; i++)
		core_cursor_destroy(s->walk[i]);
	free(s);
}

/* Up to STREAM_SLICE jobs of the walk; false when it is over. */
static bool slice(struct reply_stream *s)
{
	struct core *core = s->p->ctld->core; /* a reconfiguration's, too */

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

static void slice_cb(struct rota_evloop *loop, void *arg)
{
	struct reply_stream *s = arg;
	const struct stream_ops *ops = s->ops;
	struct peer *p = s->p;
	void *ctx = s->ctx;

	s->timer = NULL; /* spent */
	if (slice(s)) {
		s->timer = rota_evloop_add_timer(loop, 0, false, slice_cb, s);
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
	p->stream = s;
	s->timer = rota_evloop_add_timer(p->ctld->loop, 0, false, slice_cb, s);
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
