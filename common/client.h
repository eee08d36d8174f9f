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

#endif
