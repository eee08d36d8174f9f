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
 * queue): STREAM_SLICE jobs a turn of the controller's loop, after the
 * turn's requests, so that a submit or a node's message arriving
 * meanwhile waits for a slice (a millisecond or so), never for 100,000
 * rows, and the request itself costs no more than a slice either: the
 * jobs are walked from the core's own lists with cursors it keeps valid
 * (core_cursor_create), not copied at the request.  One stream a peer at
 * a time.
 *
 * What a listing shows while jobs come and go under it (the core's
 * rules, core.h):
 *  - a job that is in the walked list from the request to the end of the
 *    listing is written exactly once, in the list's order;
 *  - a job that joins or leaves meanwhile may be written or not (one
 *    that ran and was requeued, perhaps twice: once running, once
 *    pending);
 *  - if a rating reorders the pending list under a listing, the listing
 *    finishes in the order it began in (its cursor copies the ids it has
 *    yet to write, then), each row with the job's figures when written;
 *  - a reconfiguration's new core takes over, by id, the same way.
 * The rows are written by ops->row, which still decides whether the job
 * belongs (rota prio lists running jobs only when they are rated).
 */
#define STREAM_SLICE 256

struct stream_ops {
	/* write 'job''s row, if it still belongs in the reply */
	void (*row)(const struct core_job *job, void *ctx);
	/* the rows are written: send the reply to 'p' and free 'ctx' */
	void (*finish)(struct peer *p, void *ctx);
	/* the peer left first: free 'ctx' */
	void (*drop)(void *ctx);
	/*
	 * Optional, instead of finish: the stream sends the reply itself,
	 * its session MAC hashed a slice at a time as the body grows, not
	 * all in the last turn (7 MB, 6 ms, at 50,000 rows).  'written':
	 * the body so far (borrowed), which 'body' (the whole body, the
	 * caller's to free; 'ctx' freed) begins with; 'type' the reply's.
	 */
	const char *(*written)(void *ctx, size_t *len);
	char *(*body)(void *ctx, size_t *len);
	uint16_t type;
};

/* What a stream walks, in its order. */
enum stream_walk {
	STREAM_BY_ID = 1,	/* every job, in id order */
	STREAM_PENDING,		/* the pending jobs, in scheduling order */
	STREAM_RUNNING_PENDING, /* the running jobs, then the pending */
};

/*
 * One long reply a peer at a time (its client waits for it): true, and
 * the request refused with one line, while one is being written.
 */
bool stream_busy(struct peer *p);

/*
 * Walk 'walk' for 'p', a slice a loop turn from the next turn on, calling
 * 'ops' with 'ctx' (theirs until finish or drop).  Event loop only.
 */
void stream_start(struct peer *p, enum stream_walk walk,
		  const struct stream_ops *ops, void *ctx);
/*
 * The same over the jobs 'ids' (n of them, malloc'ed: the stream's from
 * now), in that order, a job gone meanwhile left out: rota top's delta,
 * the jobs that changed.
 */
void stream_start_ids(struct peer *p, uint32_t *ids, size_t n,
		      const struct stream_ops *ops, void *ctx);
/* The peer closes: its stream, if any, is dropped. */
void stream_abort(struct peer *p);

#endif
