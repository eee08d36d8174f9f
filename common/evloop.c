// SPDX-License-Identifier: MIT
/*
 * The daemons' event loop (after redis's ae.c and libuv): epoll for fds, a
 * binary heap of monotonic deadlines for timers, one signalfd for signals.
 * Removal is deferred to the end of a pass so that a callback may destroy
 * what it is called for.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/evloop.h"
#include "common/xalloc.h"

struct rota_watch {
	struct rota_evloop *loop;
	int fd;
	unsigned events;
	bool dead;
	rota_fd_fn cb;
	void *arg;
	struct rota_watch *next_dead;
	struct rota_watch *prev; /* every watcher, for destroy */
	struct rota_watch *next;
};

struct rota_timer {
	struct rota_evloop *loop;
	int64_t deadline;
	int64_t period; /* 0: one-shot */
	size_t slot;	/* index in the heap, or SIZE_MAX when not in it */
	rota_timer_fn cb;
	void *arg;
};

struct deferred {
	rota_timer_fn cb;
	void *arg;
	struct deferred *next;
};

struct signal_handler {
	int signo;
	rota_signal_fn cb;
	void *arg;
};

struct rota_evloop {
	int epfd;
	bool stop;
	int64_t now;
	struct rota_timer **heap;
	size_t nheap;
	size_t heap_cap;
	struct rota_watch *dead;
	struct rota_watch *watches;
	struct deferred *deferred;
	int sigfd;
	sigset_t sigmask;
	struct rota_watch *sigwatch;
	struct signal_handler sigs[16];
	size_t nsigs;
	/* this turn's ready list, while it is dispatched (rota_evloop_ready) */
	const struct epoll_event *evs;
	int nevs;
	int ev_next;	/* the first not yet dispatched */
};

struct rota_evloop *rota_evloop_create(void)
{
	struct rota_evloop *loop;
	int fd = epoll_create1(EPOLL_CLOEXEC);

	if (fd < 0)
		return NULL;
	loop = rota_xcalloc(1, sizeof(*loop));
	loop->epfd = fd;
	loop->sigfd = -1;
	loop->now = rota_clock_mono_ms();
	sigemptyset(&loop->sigmask);
	return loop;
}

static void watch_unlink(struct rota_watch *w)
{
	if (w->prev)
		w->prev->next = w->next;
	else
		w->loop->watches = w->next;
	if (w->next)
		w->next->prev = w->prev;
}

static void reap_dead(struct rota_evloop *loop)
{
	while (loop->dead) {
		struct rota_watch *w = loop->dead;

		loop->dead = w->next_dead;
		watch_unlink(w);
		free(w);
	}
}

void rota_evloop_defer(struct rota_evloop *loop, rota_timer_fn cb, void *arg)
{
	struct deferred *d = rota_xcalloc(1, sizeof(*d));

	d->cb = cb;
	d->arg = arg;
	d->next = loop->deferred;
	loop->deferred = d;
}

static void run_deferred(struct rota_evloop *loop)
{
	while (loop->deferred) {
		struct deferred *d = loop->deferred;

		loop->deferred = d->next;
		d->cb(loop, d->arg);
		free(d);
	}
}

void rota_evloop_destroy(struct rota_evloop *loop)
{
	if (!loop)
		return;
	run_deferred(loop);
	reap_dead(loop);
	/* what its owners left registered goes with the loop */
	while (loop->watches) {
		struct rota_watch *w = loop->watches;

		watch_unlink(w);
		free(w);
	}
	for (size_t i = 0; i < loop->nheap; i++)
		free(loop->heap[i]);
	free(loop->heap);
	if (loop->sigfd >= 0)
		close(loop->sigfd);
	close(loop->epfd);
	free(loop);
}

int64_t rota_evloop_now_ms(struct rota_evloop *loop)
{
	return loop->now;
}

void rota_evloop_stop(struct rota_evloop *loop)
{
	loop->stop = true;
}

static uint32_t to_epoll(unsigned events)
{
	return (events & ROTA_EV_READ ? EPOLLIN : 0) |
	       (events & ROTA_EV_WRITE ? EPOLLOUT : 0);
}

struct rota_watch *rota_evloop_add_fd(struct rota_evloop *loop, int fd,
				      unsigned events, rota_fd_fn cb,
				      void *arg)
{
	struct rota_watch *w = rota_xcalloc(1, sizeof(*w));
	struct epoll_event ev = { .events = to_epoll(events), .data.ptr = w };

	w->loop = loop;
	w->fd = fd;
	w->events = events;
	w->cb = cb;
	w->arg = arg;
	if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		free(w);
		return NULL;
	}
	w->next = loop->watches;
	if (w->next)
		w->next->prev = w;
	loop->watches = w;
	return w;
}

void rota_watch_set_events(struct rota_watch *w, unsigned events)
{
	struct epoll_event ev = { .events = to_epoll(events), .data.ptr = w };

	if (w->dead || w->events == events)
		return;
	w->events = events;
	epoll_ctl(w->loop->epfd, EPOLL_CTL_MOD, w->fd, &ev);
}

void rota_watch_remove(struct rota_watch *w)
{
	if (!w || w->dead)
		return;
	epoll_ctl(w->loop->epfd, EPOLL_CTL_DEL, w->fd, NULL);
	w->dead = true;
	w->next_dead = w->loop->dead;
	w->loop->dead = w;
}

/* ---- timers: a binary min-heap on deadline ---- */

static void heap_swap(struct rota_evloop *loop, size_t a, size_t b)
{
	struct rota_timer *t = loop->heap[a];

	loop->heap[a] = loop->heap[b];
	loop->heap[b] = t;
	loop->heap[a]->slot = a;
	loop->heap[b]->slot = b;
}

static void heap_up(struct rota_evloop *loop, size_t i)
{
	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (loop->heap[p]->deadline <= loop->heap[i]->deadline)
			break;
		heap_swap(loop, p, i);
		i = p;
	}
}

static void heap_down(struct rota_evloop *loop, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < loop->nheap &&
		    loop->heap[l]->deadline < loop->heap[m]->deadline)
			m = l;
		if (r < loop->nheap &&
		    loop->heap[r]->deadline < loop->heap[m]->deadline)
			m = r;
		if (m == i)
			return;
		heap_swap(loop, i, m);
		i = m;
	}
}

static void heap_push(struct rota_evloop *loop, struct rota_timer *t)
{
	if (loop->nheap == loop->heap_cap) {
		loop->heap_cap = loop->heap_cap ? 2 * loop->heap_cap : 16;
		loop->heap = rota_xreallocarray(loop->heap, loop->heap_cap,
						sizeof(*loop->heap));
	}
	t->slot = loop->nheap;
	loop->heap[loop->nheap++] = t;
	heap_up(loop, t->slot);
}

static void heap_remove(struct rota_evloop *loop, struct rota_timer *t)
{
	size_t i = t->slot;

	if (i == SIZE_MAX)
		return;
	t->slot = SIZE_MAX;
	if (i == --loop->nheap)
		return;
	loop->heap[i] = loop->heap[loop->nheap];
	loop->heap[i]->slot = i;
	heap_down(loop, i);
	heap_up(loop, i);
}

struct rota_timer *rota_evloop_add_timer(struct rota_evloop *loop, int64_t ms,
					 bool repeat, rota_timer_fn cb,
					 void *arg)
{
	struct rota_timer *t = rota_xcalloc(1, sizeof(*t));

	t->loop = loop;
	t->deadline = rota_clock_mono_ms() + ms;
	t->period = repeat ? (ms > 0 ? ms : 1) : 0;
	t->cb = cb;
	t->arg = arg;
	heap_push(loop, t);
	return t;
}

void rota_timer_rearm(struct rota_timer *t, int64_t ms)
{
	heap_remove(t->loop, t);
	t->deadline = rota_clock_mono_ms() + ms;
	heap_push(t->loop, t);
}

void rota_timer_cancel(struct rota_timer *t)
{
	if (!t)
		return;
	heap_remove(t->loop, t);
	free(t);
}

static void run_timers(struct rota_evloop *loop)
{
	while (loop->nheap && loop->heap[0]->deadline <= loop->now) {
		struct rota_timer *t = loop->heap[0];

		heap_remove(loop, t);
		if (t->period) {
			t->deadline = loop->now + t->period;
			heap_push(loop, t);
			t->cb(loop, t->arg);
		} else {
			/* one-shot: the callback may not cancel it, it's gone */
			rota_timer_fn cb = t->cb;
			void *arg = t->arg;

			free(t);
			cb(loop, arg);
		}
		if (loop->stop)
			return;
	}
}

/* ---- signals ---- */

static void signal_cb(struct rota_evloop *loop, int fd, unsigned events,
		      void *arg)
{
	struct signalfd_siginfo si;

	while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		for (size_t i = 0; i < loop->nsigs; i++) {
			if (loop->sigs[i].signo == (int)si.ssi_signo)
				loop->sigs[i].cb(loop, loop->sigs[i].signo,
						 loop->sigs[i].arg);
		}
	}
}

int rota_evloop_add_signal(struct rota_evloop *loop, int signo,
			   rota_signal_fn cb, void *arg)
{
	int fd;

	if (loop->nsigs == sizeof(loop->sigs) / sizeof(*loop->sigs))
		return -ENOSPC;
	sigaddset(&loop->sigmask, signo);
	if (sigprocmask(SIG_BLOCK, &loop->sigmask, NULL) < 0)
		return -errno;
	fd = signalfd(loop->sigfd, &loop->sigmask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (loop->sigfd < 0) {
		loop->sigfd = fd;
		loop->sigwatch = rota_evloop_add_fd(loop, fd, ROTA_EV_READ,
						    signal_cb, NULL);
	}
	loop->sigs[loop->nsigs++] = (struct signal_handler){ signo, cb, arg };
	return 0;
}

/* ---- the loop ---- */

size_t rota_evloop_ready(const struct rota_evloop *loop)
{
	size_t n = 0;

	for (int i = loop->ev_next; i < loop->nevs; i++) {
		const struct rota_watch *w = loop->evs[i].data.ptr;

		n += !w->dead && (loop->evs[i].events & (EPOLLIN | EPOLLHUP));
	}
	return n;
}

int rota_evloop_run(struct rota_evloop *loop)
{
	struct epoll_event evs[64];

	loop->stop = false;
	while (!loop->stop) {
		int timeout = -1;
		int n;

		loop->now = rota_clock_mono_ms();
		if (loop->nheap) {
			int64_t d = loop->heap[0]->deadline - loop->now;

			timeout = d < 0 ? 0 : (d > 60000 ? 60000 : (int)d);
		}
		n = epoll_wait(loop->epfd, evs, 64, timeout);
		if (n < 0 && errno != EINTR)
			return -errno;
		loop->now = rota_clock_mono_ms();
		loop->evs = evs;
		loop->nevs = n;
		for (int i = 0; i < n && !loop->stop; i++) {
			struct rota_watch *w = evs[i].data.ptr;
			unsigned ev = 0;

			loop->ev_next = i + 1;
			if (w->dead)
				continue;
			if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
				ev |= ROTA_EV_READ;
			if (evs[i].events & EPOLLOUT)
				ev |= ROTA_EV_WRITE;
			if (evs[i].events & (EPOLLHUP | EPOLLERR))
				ev |= ROTA_EV_ERROR;
			w->cb(loop, w->fd, ev, w->arg);
		}
		loop->nevs = 0; /* timers run with nothing left to read */
		run_deferred(loop);
		reap_dead(loop);
		if (!loop->stop)
			run_timers(loop);
	}
	run_deferred(loop);
	reap_dead(loop);
	return 0;
}
