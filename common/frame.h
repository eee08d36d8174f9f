/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_FRAME_H
#define ROTA_COMMON_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/*
 * The wire frame.  A 16-byte header, big-endian:
 *   u32 magic "ROTA", u16 protocol version, u16 message type,
 *   u32 credential length, u32 body length,
 * then the munge credential (text), then the body (JSON).  Both lengths are
 * bounded before anything is allocated: the credential by
 * ROTA_FRAME_CRED_MAX, credential plus body by the configured maximum.
 */
#define ROTA_FRAME_MAGIC 0x524f5441u
#define ROTA_FRAME_HEADER_LEN 16
#define ROTA_FRAME_CRED_MAX 4096
#define ROTA_FRAME_DEFAULT_MAX (16u << 20)
/*
 * The most a peer that has not authenticated yet may have buffered (see
 * conn.h): room for a header and the longest credential, and for the
 * small frames that are refused with a reason rather than a close.
 */
#define ROTA_FRAME_PREAUTH_MAX (32u << 10)
_Static_assert(ROTA_FRAME_PREAUTH_MAX >=
		       ROTA_FRAME_HEADER_LEN + ROTA_FRAME_CRED_MAX,
	       "a credential must fit before authentication");

struct rota_frame_header {
	uint16_t version;
	uint16_t type;
	uint32_t cred_len;
	uint32_t body_len;
};

/* A whole received frame; the pointers are borrowed from the receiver. */
struct rota_frame {
	uint16_t type;
	const char *cred;
	size_t cred_len;
	const char *body;
	size_t body_len;
};

void rota_frame_header_encode(uint8_t out[ROTA_FRAME_HEADER_LEN],
			      uint16_t type, uint32_t cred_len,
			      uint32_t body_len);

/*
 * Decode the header at 'buf'.  Returns 0, -EAGAIN when fewer than
 * ROTA_FRAME_HEADER_LEN bytes are there, or -EPROTO (bad magic, other
 * protocol version, a length over the limits) with 'err' saying which.
 */
int rota_frame_header_decode(const uint8_t *buf, size_t len, size_t max_frame,
			     struct rota_frame_header *h,
			     struct rota_error *err);

#endif
