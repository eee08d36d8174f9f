// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the frame header (common/frame.h).  The input is the bytes
 * a peer sent; the header is decoded against the default frame limit and
 * against a limit taken from the input's tail, so both length checks see
 * hostile values.  An accepted header encodes back to the same 16 bytes.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "common/frame.h"
#include "common/proto.h"
#include "testsuite/fuzz/fuzz.h"

static void check(const uint8_t *data, size_t size, size_t max_frame)
{
	struct rota_frame_header h;
	struct rota_error err = { "" };
	uint8_t again[ROTA_FRAME_HEADER_LEN];
	int rc = rota_frame_header_decode(data, size, max_frame, &h, &err);

	if (rc == -EAGAIN) {
		FUZZ_CHECK(size < ROTA_FRAME_HEADER_LEN);
		FUZZ_CHECK(h.version == 0 && h.type == 0 && h.cred_len == 0 &&
			   h.body_len == 0);
		return;
	}
	FUZZ_CHECK(size >= ROTA_FRAME_HEADER_LEN);
	if (rc == -EPROTO) {
		FUZZ_CHECK(err.text[0] != '\0');
		FUZZ_CHECK(memchr(err.text, '\0', sizeof(err.text)) != NULL);
		return;
	}
	FUZZ_CHECK(rc == 0);
	FUZZ_CHECK(h.version == ROTA_PROTO_VERSION);
	FUZZ_CHECK(h.cred_len <= ROTA_FRAME_CRED_MAX);
	FUZZ_CHECK((uint64_t)h.cred_len + h.body_len <= max_frame);
	FUZZ_CHECK(rota_msg_type_name(h.type) != NULL);
	rota_frame_header_encode(again, h.type, h.cred_len, h.body_len);
	FUZZ_CHECK(memcmp(again, data, ROTA_FRAME_HEADER_LEN) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t max = 0;

	check(data, size, ROTA_FRAME_DEFAULT_MAX);
	/* bytes 16..23, if there, as a limit (0 and SIZE_MAX included) */
	for (size_t i = ROTA_FRAME_HEADER_LEN;
	     i < size && i < ROTA_FRAME_HEADER_LEN + sizeof(max); i++)
		max = max << 8 | data[i];
	check(data, size, max);
	return 0;
}
