/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_CLIENT_H
#define ROTA_COMMON_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"

/*
 * The one client of the controller that every command shares: connect,
 * send one signed request, read and verify one reply.  Blocking, with a
 * deadline; for commands, not daemons.
 */
struct rota_client;

struct rota_reply {
	uint16_t type;
	char *body;	/* owned; free with rota_reply_clear() */
	size_t len;
	bool unsealed;	/* an ERROR our refused credential left unsealed */
};

/*
 * Connect to the controller at 'addr':'port', running as 'ctld_uid' (only
 * that uid can open the requests: see auth.h).  Caller frees with
 * rota_client_destroy().  -errno with 'err' ("connect to 127.0.0.1:6817:
 * Connection refused").
 */
int rota_client_connect(const char *addr, unsigned port, uid_t ctld_uid,
			int timeout_ms, struct rota_client **out,
			struct rota_error *err);
void rota_client_destroy(struct rota_client *c);

/*
 * Send (type, body) and wait for the reply.  An ERROR reply is returned as
 * its code with its text in 'err' (the line to show the user); any other
 * reply fills 'reply'.  -ETIMEDOUT, -EPROTO, -EACCES (a reply that is not
 * the controller's) otherwise.
 */
int rota_client_call(struct rota_client *c, uint16_t type, const char *body,
		     size_t len, struct rota_reply *reply,
		     struct rota_error *err);
void rota_reply_clear(struct rota_reply *r);

/*
 * ---- One request that outlives the controller's restarts (issue 18) ----
 * rota_client_request() connects, sends and reads the reply, and while
 * the controller does not answer (connection refused, reset, closed
 * without a reply, timed out) or answers busy (an ERROR of -EAGAIN) it tries
 * again, after 100 ms doubling to 2 s with jitter, for 'retry_ms'.  A
 * request that changes state (rota_msg_type_has_rid) carries a request id,
 * the same on every attempt, so that the controller answers a repeat of a
 * request it did with its first answer: retrying never submits twice.  An
 * older controller that refuses the id by name is asked again without it.
 */
struct rota_request {
	const char *host;
	unsigned port;
	uid_t ctld_uid;
	int timeout_ms;		/* each attempt's */
	int64_t retry_ms;	/* retry this long; 0: one attempt */
	const char *rid;	/* NULL: a fresh id (tests fix one) */
	/* called once, with its line, when the retrying begins; optional */
	void (*waiting_cb)(const char *line, void *arg);
	void *arg;
};

/*
 * Send (type, body) as rota_client_call() does, retrying as above.  On
 * giving up, 'err' says so in one line, and for a request that changes
 * state whether it may have been applied.  Blocking: for commands.
 */
int rota_client_request(const struct rota_request *rq, uint16_t type,
			const char *body, size_t len, struct rota_reply *reply,
			struct rota_error *err);

#endif
