/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_HEX_H
#define ROTA_COMMON_HEX_H

#include <stddef.h>
#include <stdint.h>

/* 'n' bytes as 2n lowercase hex digits and a NUL in 'out' (2n + 1). */
void rota_hex_encode(const uint8_t *in, size_t n, char *out);

/*
 * Exactly 2n lowercase hex digits in 'in' to 'n' bytes: 0, or -EINVAL
 * (another length, another character; 'out' then undefined).
 */
int rota_hex_decode(const char *in, uint8_t *out, size_t n);

#endif
