/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_CONN_H
#define ROTA_COMMON_CONN_H

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
};

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
size_t rota_conn_queued(const struct rota_conn *c);

#endif
