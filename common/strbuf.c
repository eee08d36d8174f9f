// SPDX-License-Identifier: MIT
/* Growing text buffers, with the JSON string escaping the fast encoders use. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "common/xalloc.h"

static void reserve(struct rota_strbuf *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return;
	while (b->cap < b->len + more + 1)
		b->cap = b->cap ? 2 * b->cap : 256;
	b->data = rota_xrealloc(b->data, b->cap);
}

void rota_strbuf_add(struct rota_strbuf *b, const char *s, size_t n)
{
	reserve(b, n);
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void rota_strbuf_adds(struct rota_strbuf *b, const char *s)
{
	rota_strbuf_add(b, s, strlen(s));
}

void rota_strbuf_addf(struct rota_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void rota_strbuf_add_i64(struct rota_strbuf *b, int64_t v)
{
	char tmp[24];
	char *p = tmp + sizeof(tmp);
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	rota_strbuf_add(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

void rota_strbuf_add_json(struct rota_strbuf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s;

	rota_strbuf_add(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[7] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		rota_strbuf_add(b, run, (size_t)(s - run));
		run = s + 1;
		if (c == '"' || c == '\\') {
			esc[1] = (char)c;
			rota_strbuf_add(b, esc, 2);
		} else {
			rota_strbuf_add(b, esc, 6);
		}
	}
	rota_strbuf_add(b, run, (size_t)(s - run));
	rota_strbuf_add(b, "\"", 1);
}

char *rota_strbuf_take(struct rota_strbuf *b, size_t *len)
{
	char *p;

	reserve(b, 0);
	p = b->data;
	p[b->len] = '\0';
	if (len)
		*len = b->len;
	*b = (struct rota_strbuf){ 0 };
	return p;
}

void rota_strbuf_fini(struct rota_strbuf *b)
{
	free(b->data);
	*b = (struct rota_strbuf){ 0 };
}
