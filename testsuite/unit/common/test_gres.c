// SPDX-License-Identifier: MIT
/* Generic resource specs as Slurm spells them (common/gres.h). */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "common/gres.h"

/* Parsed and written back: the canonical spelling (count always). */
START_TEST(test_good)
{
	static const char *const cases[][2] = {
		{ "gpu", "gpu:1" },
		{ "gpu:2", "gpu:2" },
		{ "gpu:v100:16", "gpu:v100:16" },
		{ "GPU:V100:16", "gpu:v100:16" },
		{ "gpu:v100", "gpu:v100:1" },
		{ "gpu:a100:4,gpu:v100:4,nvme:2", "gpu:a100:4,gpu:v100:4,nvme:2" },
		{ "fpga:xilinx_u250:1", "fpga:xilinx_u250:1" },
		{ "gpu:rtx-6000:2", "gpu:rtx-6000:2" },
		{ "", "" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct rota_gres *g;
		struct rota_error err = { "" };
		size_t n;
		char *text;

		ck_assert_msg(rota_gres_parse(cases[i][0], &g, &n, &err) == 0,
			      "%s: %s", cases[i][0], err.text);
		text = rota_gres_text(g, n);
		ck_assert_str_eq(text, cases[i][1]);
		free(text);
		free(g);
	}
}
END_TEST

START_TEST(test_bad)
{
	static const char *const cases[][2] = {
		{ "gpu:0", "'gpu:0': count must be 1 to 1000000" },
		{ "gpu:v100:0", "'gpu:v100:0': count must be 1 to 1000000" },
		{ "gpu:v100:x", "'gpu:v100:x': count 'x' is not a number" },
		{ "gpu:2:3", "'gpu:2:3': type '2' is a number" },
		{ "gpu:a:b:c", "'gpu:a:b:c': more than NAME:TYPE:COUNT" },
		{ ":2", "':2': empty name" },
		{ "gpu::2", "'gpu::2': empty type" },
		{ "gp u:2", "'gp u:2': bad character ' ' in name" },
		{ "gpu:2,", "'gpu:2,': ends in ','" },
		{ "gpu,,nvme", "'': empty name" },
		{ "gpu:v100:2,gpu:v100:1", "'gpu:v100' given twice" },
		{ "gpu:99999999999", "'gpu:99999999999': count must be 1 to 1000000" },
		{ "gpu:abcdefghijabcdefghijabcdefghijab:1",
		  "'gpu:abcdefghijabcdefghijabcdefghijab:1': type longer than 31" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct rota_gres *g = (void *)1;
		struct rota_error err = { "" };
		size_t n = 7;

		ck_assert_int_lt(rota_gres_parse(cases[i][0], &g, &n, &err), 0);
		ck_assert_str_eq(err.text, cases[i][1]);
		ck_assert_ptr_null(g);
		ck_assert_uint_eq(n, 0);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gres");
	TCase *tc = tcase_create("parse");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_good);
	tcase_add_test(tc, test_bad);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
