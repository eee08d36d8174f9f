// SPDX-License-Identifier: MIT
/*
 * A session MAC made while a long body is written (rota_auth_mac_begin,
 * _feed, _end) is the MAC rota_auth_mac makes of the whole body at once,
 * whatever the pieces; and when another frame went out meanwhile, or the
 * session was reopened, it is made afresh for the sequence number the
 * frame really gets.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "common/auth.h"

#define LEN 100000

static char body[LEN];

static struct rota_session session(uint8_t seed)
{
	struct rota_session s = { .open = true, .seq_out = 7 };

	for (int i = 0; i < ROTA_AUTH_KEY_LEN; i++)
		s.key[i] = (uint8_t)(seed + 13 * i);
	for (size_t i = 0; i < LEN; i++)
		body[i] = (char)('a' + (i * 7 + seed) % 26);
	return s;
}

/* Fed in pieces of 'step' bytes (0: not fed at all before _end). */
START_TEST(test_same_as_at_once)
{
	static const size_t steps[] = { 0, 1, 63, 64, 4096, 33333, LEN };
	struct rota_session a = session(1), b = a;
	struct rota_auth_mac_stream m;
	char want[ROTA_AUTH_MAC_TEXT], got[ROTA_AUTH_MAC_TEXT];
	size_t step = steps[_i];

	rota_auth_mac_begin(&b, 42, &m);
	for (size_t n = step; step && n < LEN; n += step)
		rota_auth_mac_feed(&m, body, n);
	rota_auth_mac_feed(&m, body, step / 2); /* already fed: nothing */
	rota_auth_mac_end(&b, &m, body, LEN, got);
	rota_auth_mac(&a, 42, body, LEN, want);
	ck_assert_str_eq(got, want);
	ck_assert_uint_eq(b.seq_out, a.seq_out);
	/* the next frame's MAC follows on as usual */
	rota_auth_mac(&a, 3, "{}", 2, want);
	rota_auth_mac(&b, 3, "{}", 2, got);
	ck_assert_str_eq(got, want);
}
END_TEST

/* Another frame first: the long one gets the next number, rightly. */
START_TEST(test_frame_between)
{
	struct rota_session a = session(2), b = a;
	struct rota_auth_mac_stream m;
	char want[ROTA_AUTH_MAC_TEXT], got[ROTA_AUTH_MAC_TEXT];

	rota_auth_mac_begin(&b, 42, &m);
	rota_auth_mac_feed(&m, body, LEN / 2);
	rota_auth_mac(&b, 5, "{}", 2, got);	/* an error reply, say */
	rota_auth_mac(&a, 5, "{}", 2, want);
	ck_assert_str_eq(got, want);
	rota_auth_mac_end(&b, &m, body, LEN, got);
	rota_auth_mac(&a, 42, body, LEN, want);
	ck_assert_str_eq(got, want);
	ck_assert_uint_eq(b.seq_out, 9);
}
END_TEST

/* The session reopened with another key and the same number. */
START_TEST(test_session_reopened)
{
	struct rota_session b = session(3), a = session(4);
	struct rota_auth_mac_stream m;
	char want[ROTA_AUTH_MAC_TEXT], got[ROTA_AUTH_MAC_TEXT];

	rota_auth_mac_begin(&b, 42, &m);
	rota_auth_mac_feed(&m, body, LEN);
	b = a;
	rota_auth_mac_end(&b, &m, body, LEN, got);
	rota_auth_mac(&a, 42, body, LEN, want);
	ck_assert_str_eq(got, want);
}
END_TEST

static Suite *mac_suite(void)
{
	Suite *s = suite_create("auth_mac");
	TCase *tc = tcase_create("auth_mac");

	tcase_add_loop_test(tc, test_same_as_at_once, 0, 7);
	tcase_add_test(tc, test_frame_between);
	tcase_add_test(tc, test_session_reopened);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(mac_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
