// SPDX-License-Identifier: MIT
/*
 * Framed connections (see conn.h).  A connection is freed only when none of
 * its own callbacks is on the stack ('depth'), so handlers can close the
 * connection they were called for.  Before a connection is authenticated
 * its reads are sized so that it never holds more than preauth_max bytes,
 * and a frame's body is not read before its credential passed cred_cb.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/conn.h"
#include "common/evloop.h"
#include "common/xalloc.h"

struct buf {
	uint8_t *data;
	size_t off; /* consumed */
	size_t len; /* filled */
	size_t cap;
};

struct rota_conn {
	struct rota_evloop *loop;
	int fd;
	struct rota_watch *watch;
	struct rota_timer *idle;
	struct rota_timer *preauth;	/* deadline for the first credential */
	struct rota_conn_limits lim;
	const struct rota_conn_ops *ops;
	void *arg;
	struct buf in;
	struct buf out;
	/* a frame's body taken by rota_conn_send_take, sent after 'out' */
	uint8_t *big;
	size_t big_off;
	size_t big_len;
	bool closed;	 /* no more callbacks; free when depth drops to 0 */
	bool draining;	 /* close_after_flush */
	bool freeing;	 /* a reap timer will free it */
	bool notified;	 /* close_cb has been called */
	bool authed;	 /* a credential passed cred_cb (or no pre-auth) */
	int depth;
	char peer[64];
	char peer_addr[48];
};

static void buf_reserve(struct buf *b, size_t more)
{
	if (b->off && b->off == b->len)
		b->off = b->len = 0;
	if (b->len + more <= b->cap)
		return;
	if (b->off) {
		memmove(b->data, b->data + b->off, b->len - b->off);
		b->len -= b->off;
		b->off = 0;
		if (b->len + more <= b->cap)
			return;
	}
	while (b->cap < b->len + more)
		b->cap = b->cap ? 2 * b->cap : 4096;
	b->data = rota_xrealloc(b->data, b->cap);
}

/* Tell the owner, once, that the connection is over. */
static void notify(struct rota_conn *c, int code, const char *why)
{
	if (c->notified)
		return;
	c->notified = true;
	if (c->ops->close_cb) {
		c->depth++;
		c->ops->close_cb(c, code, why, c->arg);
		c->depth--;
	}
}

static void conn_free(struct rota_conn *c)
{
	notify(c, 0, "closed");
	rota_watch_remove(c->watch);
	rota_timer_cancel(c->idle);
	rota_timer_cancel(c->preauth);
	close(c->fd);
	free(c->in.data);
	free(c->out.data);
	free(c->big);
	free(c);
}

static void reap_cb(struct rota_evloop *loop, void *arg)
{
	conn_free(arg);
}

static void conn_release_later(struct rota_conn *c)
{
	if (c->freeing)
		return;
	c->freeing = true;
	rota_watch_set_events(c->watch, 0);
	rota_evloop_defer(c->loop, reap_cb, c);
}

/* Free a closed connection unless a reap is already on its way. */
static void conn_release(struct rota_conn *c)
{
	if (!c->freeing)
		conn_free(c);
}

static void conn_fail(struct rota_conn *c, int code, const char *why)
{
	if (c->closed)
		return;
	c->closed = true;
	rota_watch_set_events(c->watch, 0);
	notify(c, code, why);
}

/* Bytes waiting to be written. */
static size_t queued_bytes(const struct rota_conn *c)
{
	return c->out.len - c->out.off + c->big_len - c->big_off;
}

static void update_events(struct rota_conn *c)
{
	unsigned ev = 0;
	size_t queued = queued_bytes(c);

	if (c->closed)
		return;
	if (!c->draining && queued < c->lim.out_high_water)
		ev |= ROTA_EV_READ;
	if (queued)
		ev |= ROTA_EV_WRITE;
	rota_watch_set_events(c->watch, ev);
}

/*
 * At most this much a call: a long reply (megabytes) is written over
 * several turns of the loop, each copying a quarter of a megabyte into
 * the kernel, rather than in one turn that holds up every other peer.
 */
#define WRITE_MAX (256 * 1024)

/* 'n' bytes were written: from 'out' first, then from 'big'. */
static void consume_out(struct rota_conn *c, size_t n)
{
	size_t o = c->out.len - c->out.off;

	c->out.off += n < o ? n : o;
	if (n <= o)
		return;
	c->big_off += n - o;
	if (c->big_off == c->big_len) {
		free(c->big);
		c->big = NULL;
		c->big_off = c->big_len = 0;
	}
}

static void flush_out(struct rota_conn *c)
{
	size_t budget = WRITE_MAX;

	while (queued_bytes(c) && budget) {
		size_t o = c->out.len - c->out.off;
		size_t b = c->big_len - c->big_off;
		struct iovec iov[2];
		int niov = 0;
		ssize_t n;

		if (o)
			iov[niov++] = (struct iovec){
				c->out.data + c->out.off, o < budget ? o : budget
			};
		if (b && budget > o)
			iov[niov++] = (struct iovec){
				c->big + c->big_off,
				b < budget - o ? b : budget - o
			};
		n = writev(c->fd, iov, niov);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0) {
			conn_fail(c, -errno, strerror(errno));
			return;
		}
		consume_out(c, (size_t)n);
		budget -= (size_t)n;
	}
	if (c->draining && !queued_bytes(c))
		c->closed = true;
}

/*
 * An unauthenticated connection's frame at its header: 0 when it may be
 * read whole (small, or its credential passed cred_cb), -EAGAIN while its
 * credential is incomplete, another negative code once refused.
 */
static int preauth_gate(struct rota_conn *c, const struct rota_frame_header *h,
			const uint8_t *p, size_t avail)
{
	size_t total = ROTA_FRAME_HEADER_LEN + (size_t)h->cred_len + h->body_len;
	char why[96];
	int rc;

	if (h->cred_len == 0 || !c->ops->cred_cb) {
		if (total <= c->lim.preauth_max)
			return 0; /* frame_cb will refuse it if it must */
		snprintf(why, sizeof(why),
			 "frame of %zu bytes before authentication exceeds %zu",
			 total, c->lim.preauth_max);
		conn_fail(c, -EMSGSIZE, why);
		return -EMSGSIZE;
	}
	if (avail < ROTA_FRAME_HEADER_LEN + h->cred_len)
		return -EAGAIN;
	c->depth++;
	rc = c->ops->cred_cb(c, h, (const char *)p + ROTA_FRAME_HEADER_LEN,
			     c->arg);
	c->depth--;
	if (rc < 0) {
		if (!c->closed && !c->draining)
			conn_fail(c, rc, "credential refused");
		return rc;
	}
	c->authed = true;
	rota_timer_cancel(c->preauth);
	c->preauth = NULL;
	return 0;
}

/* Hand every whole frame in the input buffer to the owner. */
static void parse_frames(struct rota_conn *c)
{
	while (!c->closed && !c->draining) {
		struct rota_frame_header h;
		struct rota_error err;
		uint8_t *p = c->in.data + c->in.off;
		size_t avail = c->in.len - c->in.off;
		int rc = rota_frame_header_decode(p, avail, c->lim.max_frame,
						  &h, &err);

		if (rc == -EAGAIN)
			return;
		if (rc < 0) {
			conn_fail(c, rc, err.text);
			return;
		}
		if (!c->authed &&
		    preauth_gate(c, &h, p, avail) < 0)
			return;
		size_t total = ROTA_FRAME_HEADER_LEN + h.cred_len + h.body_len;

		if (avail < total) {
			buf_reserve(&c->in, total - avail);
			return;
		}
		struct rota_frame f = {
			.type = h.type,
			.cred = (const char *)p + ROTA_FRAME_HEADER_LEN,
			.cred_len = h.cred_len,
			.body = (const char *)p + ROTA_FRAME_HEADER_LEN +
				h.cred_len,
			.body_len = h.body_len,
		};
		c->in.off += total;
		if (c->idle)
			rota_timer_rearm(c->idle, c->lim.idle_ms);
		c->ops->frame_cb(c, &f, c->arg);
	}
}

/*
 * How much one read may take: before authentication no more than fits
 * under preauth_max, in small steps, so that a stranger costs a few KiB.
 */
static size_t read_size(struct rota_conn *c)
{
	size_t held = c->in.len - c->in.off;
	size_t room;

	if (c->authed) {
		buf_reserve(&c->in, 16384);
		return c->in.cap - c->in.len;
	}
	/* a whole frame or credential under the limit was handed on */
	room = held < c->lim.preauth_max ? c->lim.preauth_max - held : 0;
	if (room > 4096)
		room = 4096;
	if (room)
		buf_reserve(&c->in, room);
	return room;
}

static void read_in(struct rota_conn *c)
{
	for (int rounds = 0; rounds < 16 && !c->closed; rounds++) {
		size_t want = read_size(c);
		ssize_t n;

		if (!want) {
			conn_fail(c, -EMSGSIZE, "pre-authentication buffer full");
			return;
		}
		n = read(c->fd, c->in.data + c->in.len, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0) {
			conn_fail(c, -errno, strerror(errno));
			return;
		}
		if (n == 0) {
			if (c->in.len > c->in.off)
				conn_fail(c, -EPROTO, "peer closed mid-frame");
			else
				conn_fail(c, 0, "peer closed");
			return;
		}
		c->in.len += (size_t)n;
		parse_frames(c);
		if (queued_bytes(c) >= c->lim.out_high_water)
			return;
	}
}

static void io_cb(struct rota_evloop *loop, int fd, unsigned events,
		  void *arg)
{
	struct rota_conn *c = arg;

	if (c->closed)
		return;
	c->depth++;
	if (events & ROTA_EV_WRITE)
		flush_out(c);
	if ((events & ROTA_EV_READ) && !c->closed && !c->draining)
		read_in(c);
	if (!c->closed && queued_bytes(c))
		flush_out(c);
	update_events(c);
	c->depth--;
	if (c->closed && c->depth == 0)
		conn_release(c);
}

static void idle_cb(struct rota_evloop *loop, void *arg)
{
	struct rota_conn *c = arg;

	c->idle = NULL; /* one-shot timers are gone once fired */
	if (c->closed)
		return;
	c->depth++;
	conn_fail(c, -ETIMEDOUT, "idle timeout");
	c->depth--;
	if (c->depth == 0)
		conn_release(c);
}

static void preauth_cb(struct rota_evloop *loop, void *arg)
{
	struct rota_conn *c = arg;

	c->preauth = NULL;
	if (c->closed)
		return;
	c->depth++;
	conn_fail(c, -ETIMEDOUT,
		  "no credential within the authentication deadline");
	c->depth--;
	if (c->depth == 0)
		conn_release(c);
}

static void describe_peer(struct rota_conn *c)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	unsigned port = 0;

	snprintf(c->peer, sizeof(c->peer), "?");
	snprintf(c->peer_addr, sizeof(c->peer_addr), "?");
	if (getpeername(c->fd, (struct sockaddr *)&ss, &len) < 0)
		return;
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &in->sin_addr, c->peer_addr,
			  sizeof(c->peer_addr));
		port = ntohs(in->sin_port);
	} else if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &in6->sin6_addr, c->peer_addr,
			  sizeof(c->peer_addr));
		port = ntohs(in6->sin6_port);
	}
	snprintf(c->peer, sizeof(c->peer), "%s:%u", c->peer_addr, port);
}

struct rota_conn *rota_conn_create(struct rota_evloop *loop, int fd,
				   const struct rota_conn_limits *lim,
				   const struct rota_conn_ops *ops, void *arg)
{
	struct rota_conn *c = rota_xcalloc(1, sizeof(*c));

	c->loop = loop;
	c->fd = fd;
	c->lim = *lim;
	c->ops = ops;
	c->arg = arg;
	describe_peer(c);
	c->watch = rota_evloop_add_fd(loop, fd, ROTA_EV_READ, io_cb, c);
	if (!c->watch) {
		close(fd);
		free(c);
		return NULL;
	}
	if (lim->idle_ms > 0)
		c->idle = rota_evloop_add_timer(loop, lim->idle_ms, false,
						idle_cb, c);
	c->authed = lim->preauth_max == 0;
	if (!c->authed && lim->preauth_ms > 0)
		c->preauth = rota_evloop_add_timer(loop, lim->preauth_ms, false,
						   preauth_cb, c);
	return c;
}

/* A taken body still queued goes into 'out', so that frames keep order. */
static void big_to_out(struct rota_conn *c)
{
	size_t b = c->big_len - c->big_off;

	if (!c->big)
		return;
	buf_reserve(&c->out, b);
	memcpy(c->out.data + c->out.len, c->big + c->big_off, b);
	c->out.len += b;
	free(c->big);
	c->big = NULL;
	c->big_off = c->big_len = 0;
}

/* A frame's header and credential queued in 'out'. */
static void put_head(struct rota_conn *c, uint16_t type, const char *cred,
		     size_t cred_len, size_t len, size_t more)
{
	uint8_t hdr[ROTA_FRAME_HEADER_LEN];

	rota_frame_header_encode(hdr, type, (uint32_t)cred_len, (uint32_t)len);
	buf_reserve(&c->out, sizeof(hdr) + cred_len + more);
	memcpy(c->out.data + c->out.len, hdr, sizeof(hdr));
	c->out.len += sizeof(hdr);
	if (cred_len)
		memcpy(c->out.data + c->out.len, cred, cred_len);
	c->out.len += cred_len;
}

/* Frames were queued on a connection that had none: write now, or later. */
static int kick(struct rota_conn *c, bool was_empty)
{
	if (was_empty && c->depth == 0) {
		/* not inside our own callback: write now, or ask for EPOLLOUT */
		c->depth++;
		flush_out(c);
		update_events(c);
		c->depth--;
		if (c->closed) {
			/* the caller still holds 'c': free it on the next pass */
			conn_release_later(c);
			return -EPIPE;
		}
	}
	return 0;
}

int rota_conn_send(struct rota_conn *c, uint16_t type, const char *cred,
		   size_t cred_len, const void *body, size_t len)
{
	bool was_empty = !queued_bytes(c);

	if (c->closed || c->draining)
		return -EPIPE;
	big_to_out(c);
	put_head(c, type, cred, cred_len, len, len);
	if (len)
		memcpy(c->out.data + c->out.len, body, len);
	c->out.len += len;
	return kick(c, was_empty);
}

int rota_conn_send_take(struct rota_conn *c, uint16_t type, const char *cred,
			size_t cred_len, void *body, size_t len)
{
	bool was_empty = !queued_bytes(c);

	if (c->big || !len) { /* one taken body at a time */
		int rc = rota_conn_send(c, type, cred, cred_len, body, len);

		free(body);
		return rc;
	}
	if (c->closed || c->draining) {
		free(body);
		return -EPIPE;
	}
	put_head(c, type, cred, cred_len, len, 0);
	c->big = body;
	c->big_len = len;
	return kick(c, was_empty);
}

void rota_conn_close(struct rota_conn *c)
{
	c->closed = true;
	rota_watch_set_events(c->watch, 0);
	if (c->depth == 0)
		conn_release(c);
}

void rota_conn_close_after_flush(struct rota_conn *c)
{
	if (c->closed)
		return;
	c->draining = true;
	if (!queued_bytes(c)) {
		rota_conn_close(c);
		return;
	}
	update_events(c);
}

const char *rota_conn_peer(const struct rota_conn *c)
{
	return c->peer;
}

const char *rota_conn_peer_addr(const struct rota_conn *c)
{
	return c->peer_addr;
}

void rota_conn_set_arg(struct rota_conn *c, void *arg)
{
	c->arg = arg;
}

bool rota_conn_is_authenticated(const struct rota_conn *c)
{
	return c->authed;
}

size_t rota_conn_in_capacity(const struct rota_conn *c)
{
	return c->in.cap;
}

size_t rota_conn_queued(const struct rota_conn *c)
{
	return queued_bytes(c);
}

int rota_conn_fd(const struct rota_conn *c)
{
	return c->fd;
}
