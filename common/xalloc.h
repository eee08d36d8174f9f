/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_XALLOC_H
#define ROTA_COMMON_XALLOC_H

#include <stddef.h>

/*
 * Allocation that never fails: out of memory is fatal (STYLE 6), so callers
 * do not check.  Every size from outside must be bounded before it gets here.
 */
void *rota_xmalloc(size_t size);
void *rota_xcalloc(size_t n, size_t size);
void *rota_xrealloc(void *ptr, size_t size);
/* Grow an array of n elements of 'size' bytes, fatal on overflow. */
void *rota_xreallocarray(void *ptr, size_t n, size_t size);
char *rota_xstrdup(const char *s);
char *rota_xstrndup(const char *s, size_t n);
char *rota_xasprintf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

#endif
