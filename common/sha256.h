/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_SHA256_H
#define ROTA_COMMON_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define ROTA_SHA256_LEN 32

/*
 * SHA-256, incremental, by libcrypto (which uses the CPU's SHA extensions
 * where there are some: a 4 MB queue listing hashes in about 2 ms rather
 * than 25).  No allocation: init may be called again at any time.
 */
struct rota_sha256 {
	/* libcrypto's SHA256_CTX, kept opaque; sha256.c checks it fits */
	_Alignas(8) unsigned char ctx[128];
};

void rota_sha256_init(struct rota_sha256 *s);
void rota_sha256_update(struct rota_sha256 *s, const void *data, size_t len);
void rota_sha256_final(struct rota_sha256 *s, uint8_t out[ROTA_SHA256_LEN]);

#endif
