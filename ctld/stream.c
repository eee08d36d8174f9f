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
	uint32_t *ids;
	size_t n;
	size_t pos;
	struct rota_timer *timer;
	const struct stream_ops *ops;
	void *ctx;
};

static void stream_free(struct reply_stream *s)
{
	s->p->stream = NULL;
	free(s->ids);
	free(s);
}

static void slice_cb(struct rota_evloop *loop, void *arg)
{
	struct reply_stream *s = arg;
	const struct core *core = s->p->ctld->core;
	size_t end =
		s->n - s->pos > STREAM_SLICE ? s->pos + STREAM_SLICE : s->n;
	const struct stream_ops *ops = s->ops;
	struct peer *p = s->p;
	void *ctx = s->ctx;

	s->timer = NULL; /* spent */
	for (; s->pos < end; s->pos++) {
		const struct core_job *job =
			core_job_find(core, s->ids[s->pos]);

		if (job)
			ops->row(job, ctx);
	}
	if (s->pos < s->n) {
		s->timer = rota_evloop_add_timer(loop, 0, false, slice_cb, s);
		return;
	}
	stream_free(s); /* first: a failed send closes and frees the peer */
	ops->finish(p, ctx);
}

void stream_add_id(const struct core_job *job, void *ids)
{
	struct stream_ids *s = ids;

	s->v[s->n++] = job->id;
}

bool stream_busy(struct peer *p)
{
	if (p->stream)
		peer_send_error(p, -EBUSY, "a listing is still being sent");
	return p->stream != NULL;
}

void stream_start(struct peer *p, uint32_t *ids, size_t n,
		  const struct stream_ops *ops, void *ctx)
{
	struct reply_stream *s = rota_xcalloc(1, sizeof(*s));

	*s = (struct reply_stream){
		.p = p,
		.ids = ids,
		.n = n,
		.ops = ops,
		.ctx = ctx,
	};
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
