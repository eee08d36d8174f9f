// SPDX-License-Identifier: MIT
/*
 * Munge credentials bound to one message (see auth.h).  The only place that
 * says who a peer is.
 */
#include "config.h"

#include <errno.h>
#include <munge.h>
#include <stdlib.h>
#include <string.h>

#include "common/auth.h"
#include "common/log.h"
#include "common/sha256.h"
#include "common/xalloc.h"

struct rota_auth {
	munge_ctx_t ctx;
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

int rota_auth_sign(struct rota_auth *auth, uint16_t type, const void *body,
		   size_t len, char **cred, struct rota_error *err)
{
	uint8_t d[ROTA_SHA256_LEN];
	munge_err_t e;

	*cred = NULL;
	digest(type, body, len, d);
	e = munge_encode(cred, auth->ctx, d, sizeof(d));
	if (e != EMUNGE_SUCCESS) {
		free(*cred);
		*cred = NULL;
		return rota_errorf(err, -ECONNREFUSED, "munge: %s",
				   munge_ctx_strerror(auth->ctx));
	}
	return 0;
}

static int verify_error(struct rota_auth *auth, munge_err_t e,
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
	default:
		return rota_errorf(err, -EACCES, "munge credential invalid: %s",
				   munge_strerror(e));
	}
}

int rota_auth_verify(struct rota_auth *auth, uint16_t type, const void *body,
		     size_t len, const char *cred, size_t cred_len, uid_t *uid,
		     gid_t *gid, struct rota_error *err)
{
	uint8_t d[ROTA_SHA256_LEN];
	void *payload = NULL;
	char *text;
	munge_err_t e;
	int plen = 0;
	int ok;

	*uid = (uid_t)-1;
	*gid = (gid_t)-1;
	if (cred_len == 0)
		return rota_errorf(err, -EACCES, "no munge credential");
	/* munge wants a NUL-terminated string; the frame gives a length. */
	text = rota_xstrndup(cred, cred_len);
	if (strlen(text) != cred_len) {
		free(text);
		return rota_errorf(err, -EACCES, "munge credential invalid");
	}
	e = munge_decode(text, auth->ctx, &payload, &plen, uid, gid);
	free(text);
	if (e != EMUNGE_SUCCESS) {
		/* munge hands back the payload even for a replayed one */
		free(payload);
		*uid = (uid_t)-1;
		*gid = (gid_t)-1;
		return verify_error(auth, e, err);
	}
	digest(type, body, len, d);
	ok = plen == (int)sizeof(d) && memcmp(payload, d, sizeof(d)) == 0;
	free(payload);
	if (!ok) {
		*uid = (uid_t)-1;
		*gid = (gid_t)-1;
		return rota_errorf(err, -EACCES,
				   "munge credential does not match the message");
	}
	return 0;
}
