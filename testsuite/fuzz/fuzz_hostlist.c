// SPDX-License-Identifier: MIT
/*
 * Fuzz target: hostlist expressions (common/hostlist.h).  The input, cut at
 * its first NUL, is expanded; a refused one leaves no list and says why.
 * An accepted one yields 1..ROTA_HOSTLIST_MAX valid names, and compressing
 * them with rota_hostlist_format() and expanding that again must give the
 * same names in the same order.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "common/hostlist.h"
#include "testsuite/fuzz/fuzz.h"

#define NAME_CHARS                                                             \
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._:"

static void check_round_trip(const struct rota_hostlist *hl)
{
	size_t n = rota_hostlist_count(hl);
	const char **names = malloc(n * sizeof(*names));
	struct rota_hostlist *again = NULL;
	struct rota_error err = { "" };
	char *text;

	if (!names)
		abort();
	for (size_t i = 0; i < n; i++) {
		names[i] = rota_hostlist_nth(hl, i);
		FUZZ_CHECK(names[i] != NULL);
		FUZZ_CHECK(names[i][0] != '\0' && strlen(names[i]) <= 255);
		FUZZ_CHECK(strspn(names[i], NAME_CHARS) == strlen(names[i]));
	}
	FUZZ_CHECK(rota_hostlist_nth(hl, n) == NULL);
	text = rota_hostlist_format(names, n);
	FUZZ_CHECK(text != NULL);
	if (rota_hostlist_parse(text, &again, &err) != 0) {
		fprintf(stderr, "format gave '%.200s': %s\n", text, err.text);
		FUZZ_CHECK(!"the formatted list parses");
	}
	FUZZ_CHECK(rota_hostlist_count(again) == n);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(strcmp(rota_hostlist_nth(again, i), names[i]) == 0);
	rota_hostlist_destroy(again);
	free(text);
	free(names);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *expr = fuzz_strndup(data, size);
	struct rota_hostlist *hl = (struct rota_hostlist *)expr; /* not NULL */
	struct rota_error err = { "" };
	int rc = rota_hostlist_parse(expr, &hl, &err);

	if (rc) {
		FUZZ_CHECK(rc == -EINVAL);
		FUZZ_CHECK(hl == NULL);
		FUZZ_CHECK(err.text[0] != '\0');
	} else {
		FUZZ_CHECK(hl != NULL);
		FUZZ_CHECK(rota_hostlist_count(hl) >= 1 &&
			   rota_hostlist_count(hl) <= ROTA_HOSTLIST_MAX);
		check_round_trip(hl);
		rota_hostlist_destroy(hl);
	}
	free(expr);
	return 0;
}
