/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_JSONSCAN_H
#define ROTA_COMMON_JSONSCAN_H

#include <stddef.h>
#include <stdint.h>

/*
 * A strict pull scanner of JSON text (RFC 8259), for the one body that must
 * decode faster than a tree parser can build it: the queue listing.  It
 * hands out one token at a time; the caller checks the grammar it expects.
 * Input is hostile: every byte is checked, strings are unescaped into a
 * caller-owned arena (never longer than their escaped form), "\u0000" and
 * raw control characters are refused, whole numbers must fit in int64_t,
 * and a number with a fraction or an exponent (RFC 8259's grammar, at most
 * 40 characters) is a double that must be finite.
 */
enum rota_jtok {
	ROTA_JT_ERROR = -1,
	ROTA_JT_END = 0, /* the input is used up */
	ROTA_JT_LBRACE,
	ROTA_JT_RBRACE,
	ROTA_JT_LBRACK,
	ROTA_JT_RBRACK,
	ROTA_JT_COMMA,
	ROTA_JT_COLON,
	ROTA_JT_STRING,	/* 'str' points into the arena, NUL-terminated */
	ROTA_JT_INT,	/* 'num' */
	ROTA_JT_REAL,	/* 'real': a number with a fraction or exponent */
	ROTA_JT_TRUE,
	ROTA_JT_FALSE,
	ROTA_JT_NULL,
};

struct rota_jscan {
	const char *p;
	const char *end;
	char *arena;	 /* where strings are unescaped */
	size_t arena_used;
	size_t arena_cap;
	const char *str; /* last string */
	size_t len;	 /* its length */
	int64_t num;	 /* last integer */
	double real;	 /* last number with a fraction or exponent */
	const char *why; /* static text of the last error */
};

/*
 * Scan 'len' bytes at 'text'; strings go to 'arena' of 'cap' bytes, which
 * must be at least 'len' + 8 to hold every string of the text.
 */
void rota_jscan_init(struct rota_jscan *s, const char *text, size_t len,
		     char *arena, size_t cap);
/* The next token; ROTA_JT_ERROR with 'why' set on bad input. */
enum rota_jtok rota_jscan_next(struct rota_jscan *s);

#endif
