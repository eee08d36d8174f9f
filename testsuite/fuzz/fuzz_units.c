// SPDX-License-Identifier: MIT
/*
 * Fuzz target: durations and sizes (common/units.h).  The input, cut at its
 * first NUL, is parsed as a duration with and without
 * ROTA_DURATION_NEED_UNIT and as a size.  The two duration modes agree
 * except on bare numbers, results stay in range, and what the formatters
 * write parses back to the same value.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "common/units.h"
#include "testsuite/fuzz/fuzz.h"

static void check_duration(const char *text)
{
	struct rota_error err = { "" };
	int64_t bare = -1;
	int64_t unit = -1;
	int64_t again = -1;
	char buf[64];
	int rc_bare = rota_duration_parse(text, ROTA_DURATION_BARE_MINUTES,
					  &bare, &err);
	int rc_unit =
		rota_duration_parse(text, ROTA_DURATION_NEED_UNIT, &unit, &err);
	bool digits = text[0] && strspn(text, "0123456789") == strlen(text);

	FUZZ_CHECK(rc_bare == 0 || rc_bare == -EINVAL);
	FUZZ_CHECK(rc_unit == 0 || rc_unit == -EINVAL);
	if (rc_bare || rc_unit)
		FUZZ_CHECK(err.text[0] != '\0');
	/* NEED_UNIT refuses bare numbers and changes nothing else */
	if (digits)
		FUZZ_CHECK(rc_unit == -EINVAL);
	else
		FUZZ_CHECK(rc_unit == rc_bare && (rc_bare || unit == bare));
	if (rc_bare)
		return;
	FUZZ_CHECK(bare == ROTA_DURATION_UNLIMITED ||
		   (bare >= 0 && bare <= ROTA_DURATION_MAX));
	rota_duration_format(bare, buf, sizeof(buf));
	FUZZ_CHECK(rota_duration_parse(buf, ROTA_DURATION_BARE_MINUTES, &again,
				       &err) == 0);
	FUZZ_CHECK(again == bare);
}

static void check_size(const char *text)
{
	struct rota_error err = { "" };
	uint64_t mb = 0;
	uint64_t bytes = 0;
	uint64_t again = 0;
	char buf[64];
	int rc = rota_size_parse_mb(text, &mb, &err);

	FUZZ_CHECK(rc == 0 || rc == -EINVAL);
	FUZZ_CHECK((rota_size_parse_bytes(text, &bytes, NULL) == 0) ==
		   (rc == 0));
	if (rc) {
		FUZZ_CHECK(err.text[0] != '\0');
		return;
	}
	/* megabytes round up, so that "512K" is not 0 ("unset") */
	FUZZ_CHECK(mb == bytes / (1u << 20) + (bytes % (1u << 20) != 0));
	rota_size_format_mb(mb, buf, sizeof(buf));
	/*
	 * Refused only past what a size can say: a number of 13+ digits
	 * ("...M"), or 16777216T (2^64 bytes, from rounding 2^64 - 1 up).
	 */
	if (rota_size_parse_mb(buf, &again, &err) == 0)
		FUZZ_CHECK(again == mb);
	else
		FUZZ_CHECK(strlen(buf) > 13 || mb == UINT64_C(1) << 44);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size);
	bool b;

	check_duration(text);
	check_size(text);
	FUZZ_CHECK(rota_bool_parse(text, &b) == 0 ||
		   rota_bool_parse(text, &b) == -EINVAL);
	free(text);
	return 0;
}
