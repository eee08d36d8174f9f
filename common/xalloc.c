// SPDX-License-Identifier: MIT
/* Fatal-on-failure allocation wrappers (STYLE 6). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"

void *rota_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		rota_fatal("out of memory allocating %zu bytes", size);
	return p;
}

void *rota_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		rota_fatal("out of memory allocating %zu x %zu bytes", n, size);
	return p;
}

void *rota_xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		rota_fatal("out of memory reallocating %zu bytes", size);
	return p;
}

void *rota_xreallocarray(void *ptr, size_t n, size_t size)
{
	if (size && n > (size_t)-1 / size)
		rota_fatal("array of %zu x %zu bytes overflows", n, size);
	return rota_xrealloc(ptr, n * size);
}

char *rota_xstrdup(const char *s)
{
	return rota_xstrndup(s, strlen(s));
}

char *rota_xstrndup(const char *s, size_t n)
{
	char *p = rota_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *rota_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		rota_fatal("out of memory formatting a string");
	return p;
}
