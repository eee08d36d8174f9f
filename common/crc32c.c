// SPDX-License-Identifier: MIT
/* CRC-32C, a byte at a time from a table built at compile time. */
#include "config.h"

#include "common/crc32c.h"

#define P 0x82f63b78u /* the reflected Castagnoli polynomial */
#define R(c) ((c) & 1 ? ((c) >> 1) ^ P : (c) >> 1)
#define E(c) R(R(R(R(R(R(R(R((uint32_t)(c)))))))))
#define ROW(n) E(n), E(n + 1), E(n + 2), E(n + 3), E(n + 4), E(n + 5), \
	       E(n + 6), E(n + 7)
#define ROWS(n) ROW(n), ROW(n + 8), ROW(n + 16), ROW(n + 24)

static const uint32_t table[256] = {
	ROWS(0),   ROWS(32),  ROWS(64),  ROWS(96),
	ROWS(128), ROWS(160), ROWS(192), ROWS(224),
};

uint32_t rota_crc32c(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;

	crc = ~crc;
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
