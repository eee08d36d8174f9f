// SPDX-License-Identifier: MIT
/* The real and virtual clocks. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <time.h>

#include "common/clock.h"

START_TEST(test_real)
{
	/* time() reads a coarse clock that may lag by a second: allow it */
	int64_t before = (int64_t)time(NULL);
	int64_t now = rota_clock_now(&rota_clock_real);

	ck_assert_int_ge(now, before);
	ck_assert_int_le(now, (int64_t)time(NULL) + 1);
}
END_TEST

START_TEST(test_virtual)
{
	struct rota_clock c = rota_clock_virtual(1000);

	ck_assert_int_eq(rota_clock_now(&c), 1000);
	ck_assert_int_eq(rota_clock_now(&c), 1000); /* it does not move alone */
	rota_clock_advance(&c, 3600);
	ck_assert_int_eq(rota_clock_now(&c), 4600);
	rota_clock_advance(&c, 0);
	ck_assert_int_eq(rota_clock_now(&c), 4600);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("clock");
	TCase *tc = tcase_create("clock");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_real);
	tcase_add_test(tc, test_virtual);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
