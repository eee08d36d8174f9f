/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_AUTH_H
#define ROTA_COMMON_AUTH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"

/*
 * Munge authentication.  A credential's payload is the SHA-256 of the
 * message type and body, so it binds the sender's uid/gid to exactly that
 * message; identity comes from here only, never from a body.  Munge itself
 * refuses expired and replayed credentials (each one decodes once).
 *
 * The munged socket is the library default, or $ROTA_MUNGE_SOCKET when set
 * (tests run a private munged).
 */
struct rota_auth;

/* Caller frees with rota_auth_destroy(); 'socket' NULL: see above. */
struct rota_auth *rota_auth_create(const char *socket);
void rota_auth_destroy(struct rota_auth *auth);

/*
 * Make a credential for (type, body); caller frees '*cred' with free().
 * -ECONNREFUSED with 'err' naming munged's complaint when it cannot.
 */
int rota_auth_sign(struct rota_auth *auth, uint16_t type, const void *body,
		   size_t len, char **cred, struct rota_error *err);

/*
 * Check 'cred' against (type, body) and give the sender's uid and gid.
 * -EACCES with 'err' saying why (missing, invalid, expired, replayed, not
 * matching this message); -ECONNREFUSED when munged cannot be reached.
 */
int rota_auth_verify(struct rota_auth *auth, uint16_t type, const void *body,
		     size_t len, const char *cred, size_t cred_len, uid_t *uid,
		     gid_t *gid, struct rota_error *err);

#endif
