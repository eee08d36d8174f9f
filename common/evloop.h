/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_EVLOOP_H
#define ROTA_COMMON_EVLOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One thread, one loop (STYLE 10): fd watchers on epoll, monotonic timers in
 * a heap, signals through signalfd.  Callbacks must not block.  Watchers and
 * timers may be removed from inside any callback, their own included: the
 * memory is released after the current dispatch pass.
 */
struct rota_evloop;
struct rota_watch;
struct rota_timer;

enum {
	ROTA_EV_READ = 1,
	ROTA_EV_WRITE = 2,
	ROTA_EV_ERROR = 4, /* reported only: hang-up or error on the fd */
};

typedef void (*rota_fd_fn)(struct rota_evloop *loop, int fd, unsigned events,
			   void *arg);
typedef void (*rota_timer_fn)(struct rota_evloop *loop, void *arg);
typedef void (*rota_signal_fn)(struct rota_evloop *loop, int signo, void *arg);

/* Caller frees with rota_evloop_destroy(); NULL if epoll is unavailable. */
struct rota_evloop *rota_evloop_create(void);
/*
 * Frees the loop and the watchers and timers still registered (their fds
 * are not closed; owners of connections close those first).
 */
void rota_evloop_destroy(struct rota_evloop *loop);

/* Run until rota_evloop_stop(); returns 0 or -errno from epoll. */
int rota_evloop_run(struct rota_evloop *loop);
void rota_evloop_stop(struct rota_evloop *loop);

/*
 * How many watchers of this loop turn are still to be called with
 * something to read (epoll's ready list, at most 64 a turn, less those
 * already served or removed): the requests waiting while a callback
 * works.  0 in timers, deferred calls and outside the loop.
 */
size_t rota_evloop_ready(const struct rota_evloop *loop);

/* Milliseconds of CLOCK_MONOTONIC, cached once per loop pass. */
int64_t rota_evloop_now_ms(struct rota_evloop *loop);

/* Watch 'fd' for 'events'; the loop owns the watcher, not the fd. */
struct rota_watch *rota_evloop_add_fd(struct rota_evloop *loop, int fd,
				      unsigned events, rota_fd_fn cb,
				      void *arg);
void rota_watch_set_events(struct rota_watch *w, unsigned events);
void rota_watch_remove(struct rota_watch *w);

/*
 * Call 'cb' once, after the current dispatch pass, or when the loop is
 * destroyed if that comes first: for freeing what a caller still holds.
 */
void rota_evloop_defer(struct rota_evloop *loop, rota_timer_fn cb, void *arg);

/* Call 'cb' after 'ms', then every 'ms' if 'repeat'. */
struct rota_timer *rota_evloop_add_timer(struct rota_evloop *loop, int64_t ms,
					 bool repeat, rota_timer_fn cb,
					 void *arg);
/* Push a timer's next expiry to 'ms' from now. */
void rota_timer_rearm(struct rota_timer *t, int64_t ms);
void rota_timer_cancel(struct rota_timer *t);

/*
 * Deliver 'signo' through the loop (blocks it for the process, so children
 * must unblock signals before exec).  -errno on failure.
 */
int rota_evloop_add_signal(struct rota_evloop *loop, int signo,
			   rota_signal_fn cb, void *arg);

#endif
