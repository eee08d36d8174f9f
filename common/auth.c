// SPDX-License-Identifier: MIT
/*
 * Munge-opened sessions and their HMACs (see auth.h): the only place that
 * says who a peer is.
 */
#include "config.h"

#include <errno.h>
#include <munge.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "common/auth.h"
#include "common/hex.h"
#include "common/log.h"
#include "common/sha256.h"
#include "common/xalloc.h"

/* A credential's payload: the message digest, then the session key. */
#define PAYLOAD_LEN (ROTA_SHA256_LEN + ROTA_AUTH_KEY_LEN)

struct rota_auth {
	munge_ctx_t ctx;
	uid_t restricted; /* uid restriction set on ctx, or -1 */
};

struct rota_auth *rota_auth_create(const char *socket)
{
	struct rota_auth *auth = rota_xcalloc(1, sizeof(*auth));

	if (!socket)
		socket = getenv("ROTA_MUNGE_SOCKET");
	auth->ctx = munge_ctx_create();
	if (!auth->ctx)
		rota_fatal("out of memory creating a munge context");
	if (socket && *socket)
		munge_ctx_set(auth->ctx, MUNGE_OPT_SOCKET, socket);
	auth->restricted = (uid_t)-1;
	return auth;
}

void rota_auth_destroy(struct rota_auth *auth)
{
	if (!auth)
		return;
	munge_ctx_destroy(auth->ctx);
	free(auth);
}

static void digest(uint16_t type, const void *body, size_t len,
		   uint8_t out[ROTA_SHA256_LEN])
{
	struct rota_sha256 s;
	uint8_t t[2] = { (uint8_t)(type >> 8), (uint8_t)type };

	rota_sha256_init(&s);
	rota_sha256_update(&s, t, sizeof(t));
	rota_sha256_update(&s, body, len);
	rota_sha256_final(&s, out);
}

/* HMAC-SHA256's inner hash, up to the body: key ^ ipad, seq, type. */
static void hmac_begin(const uint8_t key[ROTA_AUTH_KEY_LEN], uint64_t seq,
		       uint16_t type, struct rota_sha256 *s)
{
	uint8_t pad[64], head[10];

	for (int i = 0; i < 8; i++)
		head[i] = (uint8_t)(seq >> (56 - 8 * i));
	head[8] = (uint8_t)(type >> 8);
	head[9] = (uint8_t)type;
	memset(pad, 0x36, sizeof(pad));
	for (int i = 0; i < ROTA_AUTH_KEY_LEN; i++)
		pad[i] ^= key[i];
	rota_sha256_init(s);
	rota_sha256_update(s, pad, sizeof(pad));
	rota_sha256_update(s, head, sizeof(head));
}

/* The inner hash has had the whole body: the outer one gives the MAC. */
static void hmac_end(const uint8_t key[ROTA_AUTH_KEY_LEN],
		     struct rota_sha256 *s, uint8_t out[ROTA_SHA256_LEN])
{
	uint8_t pad[64], inner[ROTA_SHA256_LEN];

	rota_sha256_final(s, inner);
	memset(pad, 0x5c, sizeof(pad));
	for (int i = 0; i < ROTA_AUTH_KEY_LEN; i++)
		pad[i] ^= key[i];
	rota_sha256_init(s);
	rota_sha256_update(s, pad, sizeof(pad));
	rota_sha256_update(s, inner, sizeof(inner));
	rota_sha256_final(s, out);
}

/* HMAC-SHA256 (RFC 2104) of (seq, type, body) under a 32-byte key. */
static void hmac(const uint8_t key[ROTA_AUTH_KEY_LEN], uint64_t seq,
		 uint16_t type, const void *body, size_t len,
		 uint8_t out[ROTA_SHA256_LEN])
{
	struct rota_sha256 s;

	hmac_begin(key, seq, type, &s);
	rota_sha256_update(&s, body, len);
	hmac_end(key, &s, out);
}

int rota_auth_open(struct rota_auth *auth, uid_t peer_uid, uint16_t type,
		   const void *body, size_t len, struct rota_session *s,
		   char **cred, struct rota_error *err)
{
	uint8_t payload[PAYLOAD_LEN];
	munge_err_t e;

	*cred = NULL;
	*s = (struct rota_session){ .open = true };
	if (getrandom(s->key, sizeof(s->key), 0) != (ssize_t)sizeof(s->key))
		rota_fatal("getrandom: no randomness for a session key");
	digest(type, body, len, payload);
	memcpy(payload + ROTA_SHA256_LEN, s->key, ROTA_AUTH_KEY_LEN);
	if (auth->restricted != peer_uid) {
		munge_ctx_set(auth->ctx, MUNGE_OPT_UID_RESTRICTION, peer_uid);
		auth->restricted = peer_uid;
	}
	e = munge_encode(cred, auth->ctx, payload, sizeof(payload));
	if (e != EMUNGE_SUCCESS) {
		free(*cred);
		*cred = NULL;
		return rota_errorf(err, -ECONNREFUSED, "munge: %s",
				   munge_ctx_strerror(auth->ctx));
	}
	return 0;
}

static int munge_error(struct rota_auth *auth, munge_err_t e,
		       struct rota_error *err)
{
	switch (e) {
	case EMUNGE_SOCKET:
	case EMUNGE_TIMEOUT:
	case EMUNGE_SNAFU:
	case EMUNGE_NO_MEMORY:
		return rota_errorf(err, -ECONNREFUSED, "munge: %s",
				   munge_ctx_strerror(auth->ctx));
	case EMUNGE_CRED_EXPIRED:
		return rota_errorf(err, -EACCES, "munge credential expired");
	case EMUNGE_CRED_REPLAYED:
		return rota_errorf(err, -EACCES, "munge credential replayed");
	case EMUNGE_CRED_REWOUND:
		return rota_errorf(err, -EACCES,
				   "munge credential from the future");
	case EMUNGE_CRED_UNAUTHORIZED:
		return rota_errorf(err, -EACCES,
				   "munge credential meant for another uid");
	default:
		return rota_errorf(err, -EACCES, "munge credential invalid: %s",
				   munge_strerror(e));
	}
}

/* Decode a munge credential's text; the payload is checked by the caller. */
static int open_munge(struct rota_auth *auth, const char *cred,
		      size_t cred_len, struct rota_auth_pending *pre,
		      struct rota_error *err)
{
	void *payload = NULL;
	char *text = rota_xstrndup(cred, cred_len);
	munge_err_t e;
	int plen = 0;
	uid_t uid;
	gid_t gid;

	*pre = (struct rota_auth_pending){ .set = false };
	if (strlen(text) != cred_len) {
		free(text);
		return rota_errorf(err, -EACCES, "munge credential invalid");
	}
	e = munge_decode(text, auth->ctx, &payload, &plen, &uid, &gid);
	free(text);
	if (e != EMUNGE_SUCCESS) {
		/* munge hands back the payload even for a replayed one */
		free(payload);
		return munge_error(auth, e, err);
	}
	if (plen != PAYLOAD_LEN) {
		free(payload);
		return rota_errorf(err, -EACCES,
				   "munge credential does not match the message");
	}
	_Static_assert(sizeof(pre->digest) == ROTA_SHA256_LEN, "digest size");
	memcpy(pre->digest, payload, ROTA_SHA256_LEN);
	memcpy(pre->key, (uint8_t *)payload + ROTA_SHA256_LEN,
	       ROTA_AUTH_KEY_LEN);
	pre->uid = uid;
	pre->gid = gid;
	pre->set = true;
	free(payload);
	return 0;
}

int rota_auth_finish(struct rota_auth_pending *pre, struct rota_session *s,
		     uint16_t type, const void *body, size_t len,
		     struct rota_error *err)
{
	uint8_t d[ROTA_SHA256_LEN];
	bool ok;

	digest(type, body, len, d);
	ok = pre->set && memcmp(pre->digest, d, sizeof(d)) == 0;
	if (ok) {
		*s = (struct rota_session){ .open = true, .uid = pre->uid,
					    .gid = pre->gid };
		memcpy(s->key, pre->key, ROTA_AUTH_KEY_LEN);
	}
	rota_auth_pending_clear(pre);
	if (!ok)
		return rota_errorf(err, -EACCES,
				   "munge credential does not match the message");
	return 0;
}

static int check_munge(struct rota_auth *auth, struct rota_session *s,
		       uint16_t type, const void *body, size_t len,
		       const char *cred, size_t cred_len,
		       struct rota_error *err)
{
	struct rota_auth_pending pre;
	int rc = open_munge(auth, cred, cred_len, &pre, err);

	if (rc < 0)
		return rc;
	return rota_auth_finish(&pre, s, type, body, len, err);
}

void rota_auth_mac(struct rota_session *s, uint16_t type, const void *body,
		   size_t len, char out[ROTA_AUTH_MAC_TEXT])
{
	uint8_t mac[ROTA_SHA256_LEN];

	hmac(s->key, s->seq_out++, type, body, len, mac);
	memcpy(out, "HMAC:", 5);
	rota_hex_encode(mac, sizeof(mac), out + 5);
}

void rota_auth_mac_begin(const struct rota_session *s, uint16_t type,
			 struct rota_auth_mac_stream *m)
{
	*m = (struct rota_auth_mac_stream){ .seq = s->seq_out, .type = type };
	memcpy(m->key, s->key, sizeof(m->key));
	hmac_begin(s->key, s->seq_out, type, &m->inner);
}

void rota_auth_mac_feed(struct rota_auth_mac_stream *m, const void *body,
			size_t len)
{
	if (len <= m->fed)
		return;
	rota_sha256_update(&m->inner, (const uint8_t *)body + m->fed,
			   len - m->fed);
	m->fed = len;
}

void rota_auth_mac_end(struct rota_session *s, struct rota_auth_mac_stream *m,
		       const void *body, size_t len,
		       char out[ROTA_AUTH_MAC_TEXT])
{
	uint8_t mac[ROTA_SHA256_LEN];

	/* sent meanwhile, or the session reopened: the MAC made afresh */
	if (m->seq != s->seq_out || m->fed > len ||
	    memcmp(m->key, s->key, sizeof(m->key)) != 0) {
		rota_auth_mac(s, m->type, body, len, out);
	} else {
		rota_auth_mac_feed(m, body, len);
		hmac_end(s->key, &m->inner, mac);
		s->seq_out++;
		memcpy(out, "HMAC:", 5);
		rota_hex_encode(mac, sizeof(mac), out + 5);
	}
	memset(m->key, 0, sizeof(m->key)); /* a secret */
}

static int check_mac(struct rota_session *s, uint16_t type, const void *body,
		     size_t len, const char *cred, size_t cred_len,
		     struct rota_error *err)
{
	uint8_t mac[ROTA_SHA256_LEN];
	char want[ROTA_AUTH_MAC_TEXT];
	unsigned diff = 0;

	if (!s->open)
		return rota_errorf(err, -EACCES,
				   "no session: send a munge credential first");
	hmac(s->key, s->seq_in, type, body, len, mac);
	memcpy(want, "HMAC:", 5);
	rota_hex_encode(mac, sizeof(mac), want + 5);
	if (cred_len != strlen(want))
		return rota_errorf(err, -EACCES, "session MAC malformed");
	for (size_t i = 0; i < cred_len; i++)
		diff |= (unsigned)(cred[i] ^ want[i]); /* constant time */
	if (diff)
		return rota_errorf(err, -EACCES,
				   "session MAC does not match the message");
	s->seq_in++;
	return 0;
}

int rota_auth_check(struct rota_auth *auth, struct rota_session *s,
		    uint16_t type, const void *body, size_t len,
		    const char *cred, size_t cred_len, struct rota_error *err)
{
	if (cred_len == 0)
		return rota_errorf(err, -EACCES, "no munge credential");
	if (cred_len > 6 && memcmp(cred, "MUNGE:", 6) == 0)
		return check_munge(auth, s, type, body, len, cred, cred_len,
				   err);
	if (cred_len > 5 && memcmp(cred, "HMAC:", 5) == 0)
		return check_mac(s, type, body, len, cred, cred_len, err);
	return rota_errorf(err, -EACCES, "credential of an unknown kind");
}

int rota_auth_precheck(struct rota_auth *auth, const char *cred,
		       size_t cred_len, struct rota_auth_pending *pre,
		       struct rota_error *err)
{
	*pre = (struct rota_auth_pending){ .set = false };
	if (cred_len == 0)
		return rota_errorf(err, -EACCES, "no munge credential");
	if (cred_len > 6 && memcmp(cred, "MUNGE:", 6) == 0)
		return open_munge(auth, cred, cred_len, pre, err);
	if (cred_len > 5 && memcmp(cred, "HMAC:", 5) == 0)
		return rota_errorf(err, -EACCES,
				   "no session: send a munge credential first");
	return rota_errorf(err, -EACCES, "credential of an unknown kind");
}

void rota_auth_pending_clear(struct rota_auth_pending *pre)
{
	explicit_bzero(pre, sizeof(*pre));
}

int rota_auth_uid(const char *user, uid_t *uid)
{
	struct passwd *pw = getpwnam(user);
	char *end;
	unsigned long v;

	if (pw) {
		*uid = pw->pw_uid;
		return 0;
	}
	v = strtoul(user, &end, 10);
	if (*user && !*end && v < (uid_t)-1) {
		*uid = (uid_t)v;
		return 0;
	}
	return -ENOENT;
}

int rota_auth_seal(struct rota_auth *auth, uid_t peer_uid, const void *payload,
		   size_t len, char **cred, struct rota_error *err)
{
	munge_err_t e;

	*cred = NULL;
	if (len > INT32_MAX)
		return rota_errorf(err, -EMSGSIZE, "munge: payload too large");
	if (auth->restricted != peer_uid) {
		munge_ctx_set(auth->ctx, MUNGE_OPT_UID_RESTRICTION, peer_uid);
		auth->restricted = peer_uid;
	}
	e = munge_encode(cred, auth->ctx, payload, (int)len);
	if (e != EMUNGE_SUCCESS) {
		free(*cred);
		*cred = NULL;
		return rota_errorf(err, -ECONNREFUSED, "munge: %s",
				   munge_ctx_strerror(auth->ctx));
	}
	return 0;
}

int rota_auth_unseal(struct rota_auth *auth, const char *cred,
		     char **payload, size_t *len, uid_t *uid, gid_t *gid,
		     struct rota_error *err)
{
	void *p = NULL;
	int plen = 0;
	munge_err_t e = munge_decode(cred, auth->ctx, &p, &plen, uid, gid);

	*payload = NULL;
	*len = 0;
	if (e != EMUNGE_SUCCESS) {
		free(p);
		return munge_error(auth, e, err);
	}
	*payload = rota_xmalloc((size_t)plen + 1);
	if (plen)
		memcpy(*payload, p, (size_t)plen);
	(*payload)[plen] = '\0';
	*len = (size_t)plen;
	free(p);
	return 0;
}
