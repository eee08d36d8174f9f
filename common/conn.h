/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_CONN_H
#define ROTA_COMMON_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/frame.h"

struct rota_evloop;
struct rota_conn;

/*
 * A framed, non-blocking connection on the event loop: partial reads and
 * writes, the frame size limit, an output high-water mark (a peer that does
 * not read its replies is not read from either, so it cannot make us grow
 * without bound) and an idle deadline counted from the last whole frame (a
 * peer trickling one byte a second is cut off all the same).
 */
struct rota_conn_limits {
	size_t max_frame;	/* credential + body */
	size_t out_high_water;	/* stop reading above this many queued bytes */
	int64_t idle_ms;	/* 0: none */
	size_t preauth_max;	/* 0: trust the peer from the start; see below */
	int64_t preauth_ms;	/* 0: no deadline to authenticate */
};

/*
 * Pre-authentication limits, for a server's accepted connections (OpenSSH
 * keeps an unauthenticated client to small packets and LoginGraceTime,
 * nginx to client_header_timeout and its header buffers: a stranger gets
 * little until it proves who it is).  Until ops->cred_cb has passed one
 * credential:
 *   - at most 'preauth_max' bytes are buffered and a whole frame
 *     (header included) may be at most that large, except that a frame
 *     with a credential is held at its credential: cred_cb sees it before
 *     any of the body is read, and only if it passes may the body grow to
 *     'max_frame'.  A larger frame without a credential is refused at its
 *     header (close code -EMSGSIZE).
 *   - the first credential must be whole within 'preauth_ms' of the
 *     connection's creation, however the bytes trickle in (close code
 *     -ETIMEDOUT while rota_conn_is_authenticated() is false).
 * A passed credential authenticates the connection for good: later frames
 * go straight to frame_cb (the owner checks their credentials there).
 * ROTA_FRAME_CRED_MAX plus the header must fit in 'preauth_max'.
 */

struct rota_conn_ops {
	/* A whole frame; its pointers are valid until the callback returns. */
	void (*frame_cb)(struct rota_conn *c, const struct rota_frame *f,
			 void *arg);
	/*
	 * The connection is over, called exactly once whatever ended it: the
	 * peer closed or we did (code 0), an I/O error (-errno), a bad frame
	 * (-EPROTO) or the idle deadline (-ETIMEDOUT); 'why' says which.  The
	 * owner frees its own state here; the connection is freed after.
	 */
	void (*close_cb)(struct rota_conn *c, int code, const char *why,
			 void *arg);
	/*
	 * Optional (needed with preauth_max): a frame's header and
	 * credential, before its body is read, while the connection is not
	 * authenticated.  Return 0 to read the body and authenticate the
	 * connection, or a negative code to stop reading: the owner has
	 * then refused the peer (rota_conn_close_after_flush() or
	 * rota_conn_close()).  Pointers valid until the callback returns.
	 */
	int (*cred_cb)(struct rota_conn *c, const struct rota_frame_header *h,
		       const char *cred, void *arg);
};

/*
 * Take over the non-blocking socket 'fd' (closed with the connection).
 * 'ops' and 'arg' are borrowed for the connection's lifetime.
 */
struct rota_conn *rota_conn_create(struct rota_evloop *loop, int fd,
				   const struct rota_conn_limits *lim,
				   const struct rota_conn_ops *ops, void *arg);

/* Queue one frame (copied); -EPIPE once the connection is closing. */
int rota_conn_send(struct rota_conn *c, uint16_t type, const char *cred,
		   size_t cred_len, const void *body, size_t len);
/*
 * As rota_conn_send, but the body (malloc'ed) is taken, not copied: a
 * reply of megabytes costs no copy in the turn that sends it.  The body
 * is freed once written, or at once on failure.
 */
int rota_conn_send_take(struct rota_conn *c, uint16_t type, const char *cred,
			size_t cred_len, void *body, size_t len);

/*
 * Close now (close_cb follows); memory is released once no callback of 'c'
 * is running.
 */
void rota_conn_close(struct rota_conn *c);
/* Stop reading, send what is queued, then close. */
void rota_conn_close_after_flush(struct rota_conn *c);

/* "ip:port" of the peer; borrowed, valid while the connection lives. */
const char *rota_conn_peer(const struct rota_conn *c);
/* The peer's IPv4/IPv6 address text without the port. */
const char *rota_conn_peer_addr(const struct rota_conn *c);
void rota_conn_set_arg(struct rota_conn *c, void *arg);
/* The socket, for a child that takes the connection over (noded/steps.c). */
int rota_conn_fd(const struct rota_conn *c);
/* Whether a credential passed cred_cb (always, without preauth_max). */
bool rota_conn_is_authenticated(const struct rota_conn *c);
/* Bytes held in the input buffer (its capacity), for tests and limits. */
size_t rota_conn_in_capacity(const struct rota_conn *c);
size_t rota_conn_queued(const struct rota_conn *c);

#endif
