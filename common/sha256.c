// SPDX-License-Identifier: MIT
/*
 * SHA-256 through libcrypto's EVP interface, so that a munge credential can
 * carry a digest of a message body instead of the body itself: credentials
 * stay small whatever a body holds, and large replies hash at the speed of
 * the CPU's SHA instructions.
 */
#include "config.h"

#include <openssl/evp.h>

#include "common/log.h"
#include "common/sha256.h"

void rota_sha256_init(struct rota_sha256 *s)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	if (!ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		rota_fatal("libcrypto: cannot start a SHA-256 digest");
	s->ctx = ctx;
}

void rota_sha256_update(struct rota_sha256 *s, const void *data, size_t len)
{
	if (len && EVP_DigestUpdate(s->ctx, data, len) != 1)
		rota_fatal("libcrypto: SHA-256 update failed");
}

void rota_sha256_final(struct rota_sha256 *s, uint8_t out[ROTA_SHA256_LEN])
{
	unsigned int n = 0;

	if (EVP_DigestFinal_ex(s->ctx, out, &n) != 1 || n != ROTA_SHA256_LEN)
		rota_fatal("libcrypto: SHA-256 final failed");
	EVP_MD_CTX_free(s->ctx);
	s->ctx = NULL;
}
