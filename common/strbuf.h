/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_STRBUF_H
#define ROTA_COMMON_STRBUF_H

#include <stddef.h>
#include <stdint.h>

/* A growing text buffer; always NUL-terminated once anything is added. */
struct rota_strbuf {
	char *data;
	size_t len;
	size_t cap;
};

void rota_strbuf_add(struct rota_strbuf *b, const char *s, size_t n);
void rota_strbuf_adds(struct rota_strbuf *b, const char *s);
void rota_strbuf_addf(struct rota_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rota_strbuf_add_i64(struct rota_strbuf *b, int64_t v);
/* A JSON string literal, quotes included, escaped per RFC 8259. */
void rota_strbuf_add_json(struct rota_strbuf *b, const char *s);
/* Hand over the text (caller frees with free()); the buffer is reset. */
char *rota_strbuf_take(struct rota_strbuf *b, size_t *len);
void rota_strbuf_fini(struct rota_strbuf *b);

#endif
