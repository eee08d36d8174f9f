// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the SWF line parser and trace reader (sim/swf.h).  The
 * input is parsed as one line (it must say job, comment or malformed
 * with a reason, and a job's fields are never below -1) and as a whole
 * trace, strict and lenient: strict fails exactly when lenient counted a
 * malformed line, and both read the same jobs otherwise.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "sim/swf.h"
#include "testsuite/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rota_error err = { "" };
	struct swf_job j;
	struct swf_trace strict;
	struct swf_trace lenient;
	int rc = swf_parse_line((const char *)data, size, &j, &err);
	int rs;

	FUZZ_CHECK(rc == 1 || rc == 0 || rc == -EPROTO);
	if (rc < 0)
		FUZZ_CHECK(err.text[0] != '\0');
	if (rc == 1)
		FUZZ_CHECK(j.submit >= -1 && j.run >= -1 && j.req_procs >= -1 &&
			   j.req_time >= -1 && j.user >= -1 && j.prec >= -1 &&
			   j.think >= -1);
	rs = swf_read_buffer("f.swf", (const char *)data, size, false, &strict,
			     &err);
	FUZZ_CHECK(swf_read_buffer("f.swf", (const char *)data, size, true,
				   &lenient, &err) == 0);
	FUZZ_CHECK(rs == 0 || rs == -EPROTO);
	FUZZ_CHECK((rs < 0) == (lenient.malformed > 0));
	if (rs == 0) {
		FUZZ_CHECK(strict.n == lenient.n);
		FUZZ_CHECK(!strict.n || memcmp(strict.jobs, lenient.jobs,
					       strict.n * sizeof(j)) == 0);
		for (size_t i = 1; i < strict.n; i++)
			FUZZ_CHECK(strict.jobs[i - 1].submit <=
				   strict.jobs[i].submit);
	}
	swf_trace_fini(&strict);
	swf_trace_fini(&lenient);
	return 0;
}
