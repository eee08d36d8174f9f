// SPDX-License-Identifier: MIT
/*
 * Bytes as lowercase hex: MACs on the wire, request ids, digests in the
 * journal.  One spelling, so that what one side writes the other reads.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "common/hex.h"

void rota_hex_encode(const uint8_t *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = '\0';
}

int rota_hex_decode(const char *in, uint8_t *out, size_t n)
{
	if (strlen(in) != 2 * n)
		return -EINVAL;
	for (size_t i = 0; i < 2 * n; i++) {
		char c = in[i];
		int v = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
					       : -1;

		if (v < 0)
			return -EINVAL;
		out[i / 2] = (uint8_t)(i % 2 ? out[i / 2] | v : v << 4);
	}
	return 0;
}
