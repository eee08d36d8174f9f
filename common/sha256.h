/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_SHA256_H
#define ROTA_COMMON_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define ROTA_SHA256_LEN 32

struct rota_sha256 {
	uint32_t h[8];
	uint64_t bytes;
	uint8_t buf[64];
	size_t used;
};

/* FIPS 180-4 SHA-256, incremental. */
void rota_sha256_init(struct rota_sha256 *s);
void rota_sha256_update(struct rota_sha256 *s, const void *data, size_t len);
void rota_sha256_final(struct rota_sha256 *s, uint8_t out[ROTA_SHA256_LEN]);

#endif
