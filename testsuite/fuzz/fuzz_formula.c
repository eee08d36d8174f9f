// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the job_sort_formula language (plugins/priority/expr.h).
 * The input, cut at its first NUL, is parsed against a fixed table of
 * names.  A formula that parses evaluates, with ordinary and extreme
 * values, to a finite number or a reported error (never a NaN or an
 * infinity passed off as a result); one that does not parse leaves a
 * one-line message naming a column within the input (or one past its
 * end, where something was expected), or saying why there is none.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "plugins/priority/expr.h"
#include "testsuite/fuzz/fuzz.h"

static const struct rota_expr_name names[] = {
	{ "queue_priority", 0 }, { "fairshare_priority", 1 },
	{ "eligible_time", 2 },	 { "ncpus", 3 },
	{ "nice", 4 },		 { "mem", 5 },
};

static const double value_sets[][6] = {
	{ 150, 250000, 86400, 64, 0, 4096 },
	{ 0, 0, 0, 0, 0, 0 },
	{ -1024, 1e6, 8640000, 1, -10000, 1e12 },
	{ 1e300, -1e300, 1e-300, 3, 1, 1e308 },
};

static void check_error(const char *text, const char *err)
{
	const char *col = strstr(err, " at column ");
	unsigned long c;

	FUZZ_CHECK(err[0] != '\0');
	FUZZ_CHECK(strchr(err, '\n') == NULL);
	if (!col) {
		FUZZ_CHECK(!strcmp(err, "empty formula") ||
			   !strcmp(err, "formula longer than 4096 characters"));
		return;
	}
	c = strtoul(col + strlen(" at column "), NULL, 10);
	FUZZ_CHECK(c >= 1 && c <= strlen(text) + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size);
	struct rota_expr *expr = (struct rota_expr *)text;
	char err[160] = "";
	int rc = rota_expr_parse(text, names, sizeof(names) / sizeof(*names),
				 6, &expr, err, sizeof(err));

	FUZZ_CHECK(rc == 0 || rc == -EINVAL);
	if (rc) {
		FUZZ_CHECK(expr == NULL);
		check_error(text, err);
		free(text);
		return 0;
	}
	for (size_t i = 0; i < sizeof(value_sets) / sizeof(*value_sets); i++) {
		double v = NAN;
		int erc = rota_expr_eval(expr, value_sets[i], &v);

		FUZZ_CHECK(erc == 0 || erc == -EDOM || erc == -ERANGE);
		FUZZ_CHECK(isfinite(v));
		FUZZ_CHECK(erc == 0 || v == 0);
	}
	rota_expr_destroy(expr);
	free(text);
	return 0;
}
