/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_STREAM_H
#define ROTA_CTLD_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct core_job;
struct peer;

/*
 * A long reply written in slices (rota prio, rota top of the whole
 * queue): STREAM_SLICE rows a turn of the controller's loop, after the
 * turn's requests, so that a submit or a node's message arriving
 * meanwhile waits for a slice (a millisecond or so), never for 100,000
 * rows.  The rows are the jobs whose ids the caller copied at the
 * request, in that order; a job that has left by the time its slice
 * comes is skipped.  One stream a peer at a time.
 */
#define STREAM_SLICE 256

struct stream_ops {
	/* write 'job''s row, if it still belongs in the reply */
	void (*row)(const struct core_job *job, void *ctx);
	/* the rows are written: send the reply to 'p' and free 'ctx' */
	void (*finish)(struct peer *p, void *ctx);
	/* the peer left first: free 'ctx' */
	void (*drop)(void *ctx);
};

/* The ids of a stream, gathered by a core_*_foreach with stream_add_id. */
struct stream_ids {
	uint32_t *v; /* room for all, made by the caller */
	size_t n;
};
void stream_add_id(const struct core_job *job, void *ids);

/*
 * One long reply a peer at a time (its client waits for it): true, and
 * the request refused with one line, while one is being written.
 */
bool stream_busy(struct peer *p);

/* Take 'ids' (n of them, malloc'ed); the first slice comes next turn. */
void stream_start(struct peer *p, uint32_t *ids, size_t n,
		  const struct stream_ops *ops, void *ctx);
/* The peer closes: its stream, if any, is dropped. */
void stream_abort(struct peer *p);

#endif
