// SPDX-License-Identifier: MIT
/*
 * SHA-256 by libcrypto, so that a munge credential can carry a digest of a
 * message body instead of the body itself: credentials stay small whatever
 * a body holds, and large replies hash at the speed of the CPU's SHA
 * instructions.
 *
 * The low-level SHA256_* calls, not EVP: EVP's first use loads OpenSSL 3's
 * providers, error strings and name maps, about a millisecond that every
 * `rota` command would pay, for the very same assembly.  They are
 * deprecated in OpenSSL 3 but kept, so we ask for them by name.
 */
#include "config.h"

#define OPENSSL_API_COMPAT 10101
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include "common/log.h"
#include "common/sha256.h"

_Static_assert(sizeof(SHA256_CTX) <= sizeof(((struct rota_sha256 *)0)->ctx),
	       "SHA256_CTX does not fit in struct rota_sha256");

void rota_sha256_init(struct rota_sha256 *s)
{
	if (SHA256_Init((SHA256_CTX *)s->ctx) != 1)
		rota_fatal("libcrypto: cannot start a SHA-256 digest");
}

void rota_sha256_update(struct rota_sha256 *s, const void *data, size_t len)
{
	if (len && SHA256_Update((SHA256_CTX *)s->ctx, data, len) != 1)
		rota_fatal("libcrypto: SHA-256 update failed");
}

void rota_sha256_final(struct rota_sha256 *s, uint8_t out[ROTA_SHA256_LEN])
{
	if (SHA256_Final(out, (SHA256_CTX *)s->ctx) != 1)
		rota_fatal("libcrypto: SHA-256 final failed");
}
