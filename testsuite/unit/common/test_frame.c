// SPDX-License-Identifier: MIT
/* Frame headers (good and hostile) and SHA-256 known answers. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/frame.h"
#include "common/proto.h"
#include "common/sha256.h"

/* ---- frame header ---- */

/* A raw header, so that hostile ones need no encoder. */
static void raw_header(uint8_t out[ROTA_FRAME_HEADER_LEN], uint32_t magic,
		       uint16_t version, uint16_t type, uint32_t cred_len,
		       uint32_t body_len)
{
	const uint32_t words[4] = {
		magic,
		(uint32_t)version << 16 | type,
		cred_len,
		body_len,
	};

	for (int i = 0; i < 4; i++) {
		out[4 * i] = (uint8_t)(words[i] >> 24);
		out[4 * i + 1] = (uint8_t)(words[i] >> 16);
		out[4 * i + 2] = (uint8_t)(words[i] >> 8);
		out[4 * i + 3] = (uint8_t)words[i];
	}
}

/* Decode from a heap copy of exactly 'len' bytes: ASan sees any overread. */
static int decode_exact(const uint8_t *buf, size_t len, size_t max,
			struct rota_frame_header *h, struct rota_error *err)
{
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, buf, len);
	rc = rota_frame_header_decode(copy, len, max, h, err);
	free(copy);
	return rc;
}

static const struct {
	uint16_t type;
	uint32_t cred_len;
	uint32_t body_len;
	size_t max;
} rt[] = {
	{ ROTA_MSG_PING, 0, 0, ROTA_FRAME_DEFAULT_MAX },
	{ ROTA_MSG_SUBMIT, 120, 4000, ROTA_FRAME_DEFAULT_MAX },
	{ ROTA_MSG_LAUNCH, ROTA_FRAME_CRED_MAX, 1, ROTA_FRAME_DEFAULT_MAX },
	/* exactly at the limit */
	{ ROTA_MSG_JOB_LIST_REPLY, ROTA_FRAME_CRED_MAX,
	  ROTA_FRAME_DEFAULT_MAX - ROTA_FRAME_CRED_MAX,
	  ROTA_FRAME_DEFAULT_MAX },
	{ ROTA_MSG_NONE, 0, 1000, 1000 },
	/* the type is not the header's business */
	{ 0xffff, 7, 9, 16 },
	{ 0x0102, 0x0304, 0x0506, 1u << 20 },
};

START_TEST(test_header_roundtrip)
{
	struct rota_frame_header h = { 1, 2, 3, 4 };
	struct rota_error err = { "untouched" };
	uint8_t buf[ROTA_FRAME_HEADER_LEN];

	rota_frame_header_encode(buf, rt[_i].type, rt[_i].cred_len,
				 rt[_i].body_len);
	ck_assert_int_eq(decode_exact(buf, sizeof(buf), rt[_i].max, &h,
				      &err),
			 0);
	ck_assert_uint_eq(h.version, ROTA_PROTO_VERSION);
	ck_assert_uint_eq(h.type, rt[_i].type);
	ck_assert_uint_eq(h.cred_len, rt[_i].cred_len);
	ck_assert_uint_eq(h.body_len, rt[_i].body_len);
	ck_assert_str_eq(err.text, "untouched");
}
END_TEST

START_TEST(test_header_bytes)
{
	static const uint8_t want[ROTA_FRAME_HEADER_LEN] = {
		'R', 'O', 'T', 'A', 0x00, 0x01, 0x01, 0x2c,
		0x00, 0x00, 0x10, 0x00, 0x01, 0x02, 0x03, 0x04,
	};
	uint8_t buf[ROTA_FRAME_HEADER_LEN];

	ck_assert_int_eq(ROTA_PROTO_VERSION, 1);
	rota_frame_header_encode(buf, ROTA_MSG_LAUNCH, 4096, 0x01020304);
	ck_assert_mem_eq(buf, want, sizeof(want));
}
END_TEST

/* Every length short of a header asks for more, and fills nothing in. */
START_TEST(test_header_short)
{
	struct rota_frame_header h = { 1, 2, 3, 4 };
	struct rota_error err = { "untouched" };
	uint8_t buf[ROTA_FRAME_HEADER_LEN];

	rota_frame_header_encode(buf, ROTA_MSG_PING, 10, 20);
	ck_assert_int_eq(decode_exact(buf, (size_t)_i, ROTA_FRAME_DEFAULT_MAX,
				      &h, &err),
			 -EAGAIN);
	ck_assert_uint_eq(h.version, 0);
	ck_assert_uint_eq(h.type, 0);
	ck_assert_uint_eq(h.cred_len, 0);
	ck_assert_uint_eq(h.body_len, 0);
	ck_assert_str_eq(err.text, "untouched");
}
END_TEST

static const struct {
	uint32_t magic;
	uint16_t version;
	uint32_t cred_len;
	uint32_t body_len;
	size_t max;
	const char *error;
} bad[] = {
	{ 0x524f5442, 1, 0, 0, ROTA_FRAME_DEFAULT_MAX,
	  "not a rota frame (bad magic)" },
	{ 0x41544f52, 1, 0, 0, ROTA_FRAME_DEFAULT_MAX,
	  "not a rota frame (bad magic)" },
	/* an HTTP client on the wrong port */
	{ 0x47455420, 1, 0, 0, ROTA_FRAME_DEFAULT_MAX,
	  "not a rota frame (bad magic)" },
	{ 0, 0, 0, 0, ROTA_FRAME_DEFAULT_MAX, "not a rota frame (bad magic)" },
	{ ROTA_FRAME_MAGIC, 0, 0, 0, ROTA_FRAME_DEFAULT_MAX,
	  "protocol version 0, this side speaks 1" },
	{ ROTA_FRAME_MAGIC, 2, 0, 0, ROTA_FRAME_DEFAULT_MAX,
	  "protocol version 2, this side speaks 1" },
	{ ROTA_FRAME_MAGIC, 0xffff, 0, 0, ROTA_FRAME_DEFAULT_MAX,
	  "protocol version 65535, this side speaks 1" },
	{ ROTA_FRAME_MAGIC, 1, ROTA_FRAME_CRED_MAX + 1, 0,
	  ROTA_FRAME_DEFAULT_MAX, "credential of 4097 bytes exceeds 4096" },
	{ ROTA_FRAME_MAGIC, 1, 0xffffffff, 0, SIZE_MAX,
	  "credential of 4294967295 bytes exceeds 4096" },
	{ ROTA_FRAME_MAGIC, 1, 100, 901, 1000,
	  "frame of 1001 bytes exceeds the limit of 1000" },
	{ ROTA_FRAME_MAGIC, 1, 0, 1001, 1000,
	  "frame of 1001 bytes exceeds the limit of 1000" },
	{ ROTA_FRAME_MAGIC, 1, 1, 0, 0,
	  "frame of 1 bytes exceeds the limit of 0" },
	{ ROTA_FRAME_MAGIC, 1, 0, ROTA_FRAME_DEFAULT_MAX + 1,
	  ROTA_FRAME_DEFAULT_MAX,
	  "frame of 16777217 bytes exceeds the limit of 16777216" },
	/* 4 GiB: the sum must not wrap around in 32 bits */
	{ ROTA_FRAME_MAGIC, 1, 0, 0xffffffff, ROTA_FRAME_DEFAULT_MAX,
	  "frame of 4294967295 bytes exceeds the limit of 16777216" },
	{ ROTA_FRAME_MAGIC, 1, ROTA_FRAME_CRED_MAX, 0xffffffff,
	  ROTA_FRAME_DEFAULT_MAX,
	  "frame of 4294971391 bytes exceeds the limit of 16777216" },
	{ ROTA_FRAME_MAGIC, 1, 1, 0xffffffff, 0xffffffff,
	  "frame of 4294967296 bytes exceeds the limit of 4294967295" },
};

START_TEST(test_header_bad)
{
	struct rota_frame_header h;
	struct rota_error err = { "" };
	uint8_t buf[ROTA_FRAME_HEADER_LEN];

	raw_header(buf, bad[_i].magic, bad[_i].version, ROTA_MSG_SUBMIT,
		   bad[_i].cred_len, bad[_i].body_len);
	ck_assert_int_eq(decode_exact(buf, sizeof(buf), bad[_i].max, &h,
				      &err),
			 -EPROTO);
	ck_assert_str_eq(err.text, bad[_i].error);
	/* no error slot: the code alone */
	ck_assert_int_eq(decode_exact(buf, sizeof(buf), bad[_i].max, &h, NULL),
			 -EPROTO);
}
END_TEST

/*
 * A header claiming a 4 GiB body is refused from its 16 bytes alone: the
 * decoder sees nothing of the body, so the receiver has had no reason to
 * allocate for it (the buffer is exactly 16 heap bytes, ASan checks that
 * nothing past them is read).
 */
START_TEST(test_header_huge_body)
{
	struct rota_frame_header h;
	struct rota_error err = { "" };
	uint8_t buf[ROTA_FRAME_HEADER_LEN];

	rota_frame_header_encode(buf, ROTA_MSG_SUBMIT, 0, UINT32_MAX);
	ck_assert_int_eq(decode_exact(buf, sizeof(buf), ROTA_FRAME_DEFAULT_MAX,
				      &h, &err),
			 -EPROTO);
	ck_assert_str_eq(err.text,
			 "frame of 4294967295 bytes exceeds the limit of "
			 "16777216");
	/* trailing bytes are not looked at either */
	rota_frame_header_encode(buf, ROTA_MSG_SUBMIT, 0, 1u << 31);
	ck_assert_int_eq(decode_exact(buf, sizeof(buf), ROTA_FRAME_DEFAULT_MAX,
				      &h, &err),
			 -EPROTO);
	ck_assert_str_eq(err.text,
			 "frame of 2147483648 bytes exceeds the limit of "
			 "16777216");
}
END_TEST

static const struct {
	unsigned type;
	const char *name;
} names[] = {
	{ ROTA_MSG_ERROR, "ERROR" },
	{ ROTA_MSG_OK, "OK" },
	{ ROTA_MSG_SUBMIT, "SUBMIT" },
	{ ROTA_MSG_SUBMIT_REPLY, "SUBMIT_REPLY" },
	{ ROTA_MSG_JOB_LIST, "JOB_LIST" },
	{ ROTA_MSG_JOB_LIST_REPLY, "JOB_LIST_REPLY" },
	{ ROTA_MSG_CANCEL, "CANCEL" },
	{ ROTA_MSG_CANCEL_REPLY, "CANCEL_REPLY" },
	{ ROTA_MSG_NODE_LIST, "NODE_LIST" },
	{ ROTA_MSG_NODE_LIST_REPLY, "NODE_LIST_REPLY" },
	{ ROTA_MSG_PING, "PING" },
	{ ROTA_MSG_NODE_REGISTER, "NODE_REGISTER" },
	{ ROTA_MSG_HEARTBEAT, "HEARTBEAT" },
	{ ROTA_MSG_JOB_END, "JOB_END" },
	{ ROTA_MSG_LAUNCH, "LAUNCH" },
	{ ROTA_MSG_SIGNAL_JOB, "SIGNAL_JOB" },
	{ ROTA_MSG_JOB_END_ACK, "JOB_END_ACK" },
	{ ROTA_MSG_NONE, "UNKNOWN" },
	{ 3, "UNKNOWN" },
	{ 199, "UNKNOWN" },
	{ 65535, "UNKNOWN" },
	{ 0x10000 + ROTA_MSG_SUBMIT, "UNKNOWN" },
};

START_TEST(test_type_name)
{
	ck_assert_str_eq(rota_msg_type_name(names[_i].type), names[_i].name);
}
END_TEST

/* ---- SHA-256 ---- */

static void hex(const uint8_t d[ROTA_SHA256_LEN], char out[65])
{
	for (int i = 0; i < ROTA_SHA256_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void sha256_chunked(const void *data, size_t len, size_t chunk,
			   char out[65])
{
	const uint8_t *p = data;
	struct rota_sha256 s;
	uint8_t d[ROTA_SHA256_LEN];

	rota_sha256_init(&s);
	while (len) {
		size_t n = chunk < len ? chunk : len;

		rota_sha256_update(&s, p, n);
		p += n;
		len -= n;
	}
	rota_sha256_final(&s, d);
	hex(d, out);
}

/* FIPS 180-2 appendix B and the NIST example values. */
static const struct {
	const char *in;
	const char *digest;
} kat[] = {
	{ "",
	  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
	{ "abc",
	  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
	{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
	  "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
	  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
};

START_TEST(test_sha256_kat)
{
	const char *in = kat[_i].in;
	char got[65];

	sha256_chunked(in, strlen(in), SIZE_MAX, got);
	ck_assert_str_eq(got, kat[_i].digest);
	/* byte by byte gives the same */
	sha256_chunked(in, strlen(in), 1, got);
	ck_assert_str_eq(got, kat[_i].digest);
}
END_TEST

/* "a" repeated, around the 55/56/64-byte padding boundaries (sha256sum). */
static const struct {
	size_t n;
	const char *digest;
} as[] = {
	{ 1,
	  "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb" },
	{ 55,
	  "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
	{ 56,
	  "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a" },
	{ 57,
	  "f13b2d724659eb3bf47f2dd6af1accc87b81f09f59f2b75e5c0bed6589dfe8c6" },
	{ 63,
	  "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34" },
	{ 64,
	  "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
	{ 65,
	  "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0" },
	{ 111,
	  "6374f73208854473827f6f6a3f43b1f53eaa3b82c21c1a6d69a2110b2a79baad" },
	{ 112,
	  "f54353008a2553262ecdc4a34749563ba0950e8b0fc8652780b0a614b99683c1" },
	{ 119,
	  "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb" },
	{ 120,
	  "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c" },
	{ 127,
	  "c57e9278af78fa3cab38667bef4ce29d783787a2f731d4e12200270f0c32320a" },
	{ 128,
	  "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e" },
	{ 129,
	  "c12cb024a2e5551cca0e08fce8f1c5e314555cc3fef6329ee994a3db752166ae" },
};

START_TEST(test_sha256_boundaries)
{
	char *in = malloc(as[_i].n);
	char got[65];

	ck_assert_ptr_nonnull(in);
	memset(in, 'a', as[_i].n);
	sha256_chunked(in, as[_i].n, as[_i].n, got);
	ck_assert_str_eq(got, as[_i].digest);
	sha256_chunked(in, as[_i].n, 1, got);
	ck_assert_str_eq(got, as[_i].digest);
	sha256_chunked(in, as[_i].n, 63, got);
	ck_assert_str_eq(got, as[_i].digest);
	free(in);
}
END_TEST

/* One million 'a', fed in odd-sized chunks that straddle blocks. */
static const size_t chunks[] = { 1, 3, 7, 55, 63, 65, 127, 1000, 4099,
				 999999, 1000000, 1000001 };

START_TEST(test_sha256_million)
{
	const size_t n = 1000000;
	char *in = malloc(n);
	char got[65];

	ck_assert_ptr_nonnull(in);
	memset(in, 'a', n);
	sha256_chunked(in, n, chunks[_i], got);
	ck_assert_str_eq(got, "cdc76e5c9914fb9281a1c7e284d73e67"
			      "f1809a48a497200e046d39ccc7112cd0");
	free(in);
}
END_TEST

/* Reusing a context after init starts afresh. */
START_TEST(test_sha256_reinit)
{
	struct rota_sha256 s;
	uint8_t d[ROTA_SHA256_LEN];
	char got[65];

	rota_sha256_init(&s);
	rota_sha256_update(&s, "junk that is thrown away", 24);
	rota_sha256_init(&s);
	rota_sha256_update(&s, "ab", 2);
	rota_sha256_update(&s, "", 0);
	rota_sha256_update(&s, "c", 1);
	rota_sha256_final(&s, d);
	hex(d, got);
	ck_assert_str_eq(got, kat[1].digest);
}
END_TEST

#define N(a) ((int)(sizeof(a) / sizeof(*(a))))

static Suite *frame_suite(void)
{
	Suite *s = suite_create("frame");
	TCase *tc = tcase_create("header");

	tcase_add_loop_test(tc, test_header_roundtrip, 0, N(rt));
	tcase_add_test(tc, test_header_bytes);
	tcase_add_loop_test(tc, test_header_short, 0, ROTA_FRAME_HEADER_LEN);
	tcase_add_loop_test(tc, test_header_bad, 0, N(bad));
	tcase_add_test(tc, test_header_huge_body);
	tcase_add_loop_test(tc, test_type_name, 0, N(names));
	suite_add_tcase(s, tc);

	tc = tcase_create("sha256");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_sha256_kat, 0, N(kat));
	tcase_add_loop_test(tc, test_sha256_boundaries, 0, N(as));
	tcase_add_loop_test(tc, test_sha256_million, 0, N(chunks));
	tcase_add_test(tc, test_sha256_reinit);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(frame_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}
