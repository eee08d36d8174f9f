/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_AUTH_H
#define ROTA_COMMON_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "common/sha256.h"

/*
 * Who sent a message, and that it is the message they sent.
 *
 * A request opens a session: its munge credential ("MUNGE:...") carries the
 * SHA-256 of the message type and body, binding the sender's uid/gid to
 * exactly that message, and a fresh random session key.  The credential
 * may be decoded only by the controller's uid (munge's uid restriction), so
 * only the real controller learns the key.  Munge refuses expired and
 * replayed credentials.  Identity comes from here only, never from a body.
 *
 * Every later frame of the session, in either direction, carries
 * "HMAC:<hex>": HMAC-SHA256 under the session key of the direction, a
 * sequence number and the message, so it can be neither forged, replayed
 * nor reordered.  A reply is the first frame back; a node daemon's link is
 * a session that lasts as long as the connection.  One munge round trip per
 * session instead of one per message on each side: that is most of what a
 * short job used to cost.
 *
 * The munged socket is the library default, or $ROTA_MUNGE_SOCKET when set
 * (tests run a private munged).
 */
struct rota_auth;

#define ROTA_AUTH_KEY_LEN 32

/* One session: its key and both directions' next sequence numbers. */
struct rota_session {
	uint8_t key[ROTA_AUTH_KEY_LEN];
	bool open;
	uint64_t seq_out;
	uint64_t seq_in;
	uid_t uid;	/* who opened it (from munge) */
	gid_t gid;
};

/* Caller frees with rota_auth_destroy(); 'socket' NULL: see above. */
struct rota_auth *rota_auth_create(const char *socket);
void rota_auth_destroy(struct rota_auth *auth);

/*
 * Open a session with a request to a peer running as 'peer_uid' (the
 * controller's): a credential for (type, body) carrying a new key, which
 * only that uid can decode.  '*cred' is freed by the caller with free();
 * 's' is reset and holds the key.  -ECONNREFUSED with munged's complaint.
 */
int rota_auth_open(struct rota_auth *auth, uid_t peer_uid, uint16_t type,
		   const void *body, size_t len, struct rota_session *s,
		   char **cred, struct rota_error *err);

/*
 * Authenticate a received frame.  A munge credential opens (or reopens) the
 * session 's' and gives the sender's uid/gid; an HMAC must match the open
 * session's key and next sequence number.  -EACCES with 'err' saying why
 * (missing, invalid, expired, replayed, not matching the message, no
 * session); -ECONNREFUSED when munged cannot be reached.  On failure 's' is
 * left as it was.
 */
int rota_auth_check(struct rota_auth *auth, struct rota_session *s,
		    uint16_t type, const void *body, size_t len,
		    const char *cred, size_t cred_len, struct rota_error *err);

/*
 * A munge credential opened ahead of its message: who sent it, and the
 * digest its body must have.  The controller opens the credential of an
 * unauthenticated connection's frame before it reads that frame's body, so
 * that only a peer munge vouches for can make it hold a large buffer.
 */
struct rota_auth_pending {
	bool set;
	uint8_t digest[32];	/* SHA-256 of the message type and body */
	uint8_t key[ROTA_AUTH_KEY_LEN];
	uid_t uid;
	gid_t gid;
};

/*
 * Open the munge credential 'cred' without its body into 'pre'.  An HMAC
 * is refused ("no session: ..."): a connection that has proved nothing has
 * no session.  Errors as rota_auth_check(); on failure 'pre' is unset.
 */
int rota_auth_precheck(struct rota_auth *auth, const char *cred,
		       size_t cred_len, struct rota_auth_pending *pre,
		       struct rota_error *err);

/*
 * The body of a precheck'ed credential has arrived: it must match the
 * digest; then the session 's' is opened as rota_auth_check() would.
 * 'pre' is unset either way.  -EACCES with 'err' when it does not match.
 */
int rota_auth_finish(struct rota_auth_pending *pre, struct rota_session *s,
		     uint16_t type, const void *body, size_t len,
		     struct rota_error *err);

/* Forget a pending credential (its key is a secret); 'pre' may be unset. */
void rota_auth_pending_clear(struct rota_auth_pending *pre);

#define ROTA_AUTH_MAC_TEXT 70 /* "HMAC:" + 64 hex digits + NUL */

/* The credential text of the session's next outgoing frame. */
void rota_auth_mac(struct rota_session *s, uint16_t type, const void *body,
		   size_t len, char out[ROTA_AUTH_MAC_TEXT]);

/*
 * rota_auth_mac() of a long body computed while it is being written, so
 * that the frame's turn does not hash megabytes at once (ctld/stream.c):
 * _begin for the session's next outgoing frame of 'type'; _feed the
 * body's first 'len' bytes (those fed before are skipped: the body only
 * grows at its end); _end writes rota_auth_mac()'s text for the whole
 * body and counts the frame.  If another frame was sent on the session
 * meanwhile, or it was reopened, _end computes the MAC afresh over
 * 'body', so it is always right.  'm' holds a copy of the key until _end
 * wipes it.
 */
struct rota_auth_mac_stream {
	struct rota_sha256 inner; /* the inner hash, body fed so far */
	uint8_t key[ROTA_AUTH_KEY_LEN];
	uint64_t seq;
	uint16_t type;
	size_t fed;
};
void rota_auth_mac_begin(const struct rota_session *s, uint16_t type,
			 struct rota_auth_mac_stream *m);
void rota_auth_mac_feed(struct rota_auth_mac_stream *m, const void *body,
			size_t len);
void rota_auth_mac_end(struct rota_session *s, struct rota_auth_mac_stream *m,
		       const void *body, size_t len,
		       char out[ROTA_AUTH_MAC_TEXT]);

/* The uid of a user name, or of a number; -ENOENT if unknown. */
int rota_auth_uid(const char *user, uid_t *uid);

/*
 * A sealed payload: a munge credential carrying 'payload' itself, which
 * only 'peer_uid' can open, once (munge refuses a replay).  The controller
 * seals a job step's credential for one node daemon with it (msg.h's
 * rota_step_cred).  Errors as rota_auth_open().
 */
int rota_auth_seal(struct rota_auth *auth, uid_t peer_uid, const void *payload,
		   size_t len, char **cred, struct rota_error *err);
/*
 * Open a sealed payload: '*payload' (NUL-terminated, caller frees) and the
 * sealer's uid/gid.  Errors as rota_auth_check().
 */
int rota_auth_unseal(struct rota_auth *auth, const char *cred,
		     char **payload, size_t *len, uid_t *uid, gid_t *gid,
		     struct rota_error *err);

#endif
