// SPDX-License-Identifier: MIT
/*
 * Fuzz target: job array task ids (--array, common/taskset.h).  The
 * input, cut at its first NUL, is parsed with a throttle allowed and
 * MaxArraySize 100001; a refused one leaves no set and says why.  An
 * accepted one counts what it holds, walks in order, and its text parses
 * back to the same set; taking ids out lowest first empties it.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/taskset.h"
#include "testsuite/fuzz/fuzz.h"

static void check_set(struct rota_taskset *ts)
{
	struct rota_taskset again;
	struct rota_error err = { "" };
	uint32_t n = 0, prev = 0, id;
	char *text = rota_taskset_text(ts);

	for (id = rota_taskset_next(ts, 0); ts->count && id != UINT32_MAX;
	     id = rota_taskset_next(ts, id)) {
		FUZZ_CHECK(rota_taskset_has(ts, id));
		FUZZ_CHECK(!n || id > prev);
		prev = id;
		n++;
	}
	n += rota_taskset_has(ts, 0); /* next(0) starts after 0 */
	FUZZ_CHECK(n == ts->count);
	FUZZ_CHECK(rota_taskset_parse(text, 100001, &again, NULL, &err) == 0);
	FUZZ_CHECK(again.count == ts->count);
	for (id = rota_taskset_first(&again); id != UINT32_MAX;
	     id = rota_taskset_first(&again)) {
		FUZZ_CHECK(rota_taskset_has(ts, id));
		rota_taskset_remove(&again, id);
	}
	FUZZ_CHECK(again.count == 0);
	rota_taskset_fini(&again);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *expr = fuzz_strndup(data, size);
	struct rota_taskset ts;
	struct rota_error err = { "" };
	uint32_t throttle = 7;
	int rc = rota_taskset_parse(expr, 100001, &ts, &throttle, &err);

	if (rc) {
		FUZZ_CHECK(rc == -EINVAL);
		FUZZ_CHECK(ts.bits == NULL && ts.count == 0);
		FUZZ_CHECK(err.text[0] != '\0');
	} else {
		FUZZ_CHECK(ts.count >= 1 && ts.count <= 100001);
		FUZZ_CHECK(strchr(expr, '%') ? throttle >= 1 : throttle == 0);
		check_set(&ts);
		rota_taskset_fini(&ts);
	}
	free(expr);
	return 0;
}
