/* SPDX-License-Identifier: MIT */
#ifndef ROTA_TESTSUITE_FUZZ_H
#define ROTA_TESTSUITE_FUZZ_H

/*
 * What every libFuzzer target here shares.  A target is one fuzz_<name>.c
 * defining LLVMFuzzerTestOneInput; it links either with libFuzzer (make
 * fuzz) or with replay.c (make check replays its corpus).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Run one input; returns 0.  A broken invariant aborts (FUZZ_CHECK). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * assert() that NDEBUG cannot turn off: a failed invariant is a crash the
 * fuzzer keeps, with the condition and line on stderr.
 */
#define FUZZ_CHECK(cond)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: invariant failed: %s\n",       \
				__FILE__, __LINE__, #cond);                    \
			abort();                                               \
		}                                                              \
	} while (0)

/* A NUL-terminated heap copy of 'size' bytes; caller frees with free(). */
static inline char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	for (size_t i = 0; i < size; i++)
		s[i] = (char)data[i];
	s[size] = '\0';
	return s;
}

#endif
