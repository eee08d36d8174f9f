/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_CLIENT_H
#define ROTA_COMMON_CLIENT_H

#include <stddef.h>
#include <stdint.h>

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
};

/*
 * Connect to the controller at 'addr':'port'.  Caller frees with
 * rota_client_destroy().  -errno with 'err' ("connect to 127.0.0.1:6817:
 * Connection refused").
 */
int rota_client_connect(const char *addr, unsigned port, int timeout_ms,
			struct rota_client **out, struct rota_error *err);
void rota_client_destroy(struct rota_client *c);

/*
 * Send (type, body) and wait for the reply.  An ERROR reply is returned as
 * its code with its text in 'err' (the line to show the user); any other
 * reply fills 'reply'.  -ETIMEDOUT, -EPROTO, -EACCES (reply not signed)
 * otherwise.
 */
int rota_client_call(struct rota_client *c, uint16_t type, const char *body,
		     size_t len, struct rota_reply *reply,
		     struct rota_error *err);
void rota_reply_clear(struct rota_reply *r);

#endif
