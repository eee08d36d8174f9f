// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the JSON pull scanner (common/jsonscan.h), driven token by
 * token until END or ERROR with the arena the header asks for (len + 8).
 * Every token must consume input, every string must lie in the arena, be
 * NUL-terminated at its length and hold no NUL, and the scanner must never
 * move backwards or past the end; an integer is what strtoll() reads.
 */
#include "config.h"

#include <string.h>

#include "common/jsonscan.h"
#include "testsuite/fuzz/fuzz.h"

static void check_string(const struct rota_jscan *s, const char *arena,
			 size_t cap)
{
	FUZZ_CHECK(s->str >= arena && s->str < arena + cap);
	FUZZ_CHECK(s->len < cap - (size_t)(s->str - arena));
	FUZZ_CHECK(s->str[s->len] == '\0');
	FUZZ_CHECK(strlen(s->str) == s->len);
	FUZZ_CHECK(s->arena_used <= cap);
	FUZZ_CHECK(s->str + s->len + 1 == arena + s->arena_used);
}

/* The integer's text, from 'from' (whitespace first) to the scanner. */
static void check_int(const struct rota_jscan *s, const char *from)
{
	char buf[32];
	size_t n;

	from += strspn(from, " \t\r\n");
	n = (size_t)(s->p - from);
	FUZZ_CHECK(n > 0 && n < sizeof(buf));
	memcpy(buf, from, n);
	buf[n] = '\0';
	FUZZ_CHECK(strspn(buf + (buf[0] == '-'), "0123456789") ==
		   n - (buf[0] == '-'));
	FUZZ_CHECK(strtoll(buf, NULL, 10) == s->num);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	size_t cap = size + 8;
	char *arena = malloc(cap);
	struct rota_jscan s;
	const char *last;
	enum rota_jtok t;
	size_t ntok = 0;

	if (!arena)
		abort();
	rota_jscan_init(&s, text, size, arena, cap);
	for (;;) {
		last = s.p;
		s.why = NULL;
		t = rota_jscan_next(&s);
		FUZZ_CHECK(s.p >= last && s.p <= text + size);
		if (t == ROTA_JT_END) {
			FUZZ_CHECK(s.p == text + size);
			break;
		}
		if (t == ROTA_JT_ERROR) {
			FUZZ_CHECK(s.why != NULL && s.why[0] != '\0');
			break;
		}
		FUZZ_CHECK(t > ROTA_JT_END && t <= ROTA_JT_NULL);
		FUZZ_CHECK(s.p > last);
		FUZZ_CHECK(++ntok <= size);
		if (t == ROTA_JT_STRING)
			check_string(&s, arena, cap);
		if (t == ROTA_JT_INT)
			check_int(&s, last);
	}
	free(arena);
	return 0;
}
