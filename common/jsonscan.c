// SPDX-License-Identifier: MIT
/*
 * The strict JSON pull scanner (see jsonscan.h).  Strings are copied out
 * with their escapes resolved, \u escapes (surrogate pairs included) turned
 * into UTF-8; the arena is sized by the caller to the input, so a string
 * can never outgrow it.
 */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonscan.h"

void rota_jscan_init(struct rota_jscan *s, const char *text, size_t len,
		     char *arena, size_t cap)
{
	*s = (struct rota_jscan){
		.p = text, .end = text + len, .arena = arena, .arena_cap = cap,
	};
}

static enum rota_jtok fail(struct rota_jscan *s, const char *why)
{
	s->why = why;
	return ROTA_JT_ERROR;
}

static int hex4(const char *p, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A \uXXXX escape at p (after the backslash-u); advances p. */
static int unicode_escape(struct rota_jscan *s, const char **pp, char *o,
			  size_t *n)
{
	const char *p = *pp;
	unsigned cp, lo;

	if (s->end - p < 4 || hex4(p, &cp) < 0)
		return -1;
	p += 4;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return -1; /* a lone low surrogate */
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (s->end - p < 6 || p[0] != '\\' || p[1] != 'u' ||
		    hex4(p + 2, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff)
			return -1;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		p += 6;
	}
	if (cp == 0)
		return -1; /* strings are C strings here */
	*n = put_utf8(o, cp);
	*pp = p;
	return 0;
}

static enum rota_jtok scan_string(struct rota_jscan *s)
{
	static const char simple[256] = {
		['"'] = '"', ['\\'] = '\\', ['/'] = '/', ['b'] = '\b',
		['f'] = '\f', ['n'] = '\n', ['r'] = '\r', ['t'] = '\t',
	};
	char *o = s->arena + s->arena_used;
	const char *p = s->p + 1;
	char *start = o;

	for (;;) {
		const char *run = p;
		size_t n;

		while (p < s->end && *p != '"' && *p != '\\' &&
		       (unsigned char)*p >= 0x20)
			p++;
		/* +4: the widest escape's output; the arena rule makes it fit */
		if ((size_t)(o - s->arena) + (size_t)(p - run) + 5 >
		    s->arena_cap)
			return fail(s, "string arena too small");
		memcpy(o, run, (size_t)(p - run));
		o += p - run;
		if (p == s->end)
			return fail(s, "unterminated string");
		if (*p == '"')
			break;
		if ((unsigned char)*p < 0x20)
			return fail(s, "control character in a string");
		if (++p == s->end)
			return fail(s, "unterminated escape");
		if (*p == 'u') {
			p++;
			if (unicode_escape(s, &p, o, &n) < 0)
				return fail(s, "bad \\u escape");
			o += n;
		} else if (simple[(unsigned char)*p]) {
			*o++ = simple[(unsigned char)*p++];
		} else {
			return fail(s, "bad escape");
		}
	}
	*o = '\0';
	s->str = start;
	s->len = (size_t)(o - start);
	s->arena_used += s->len + 1;
	s->p = p + 1;
	return ROTA_JT_STRING;
}

static const char *digits(const char *p, const char *end)
{
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p;
}

/* JSON's '.', whatever locale the program set (rota top sets the user's). */
static locale_t c_numeric(void)
{
	static locale_t c;

	if (!c)
		c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	return c;
}

/* From the number's start: its grammar checked, then strtod on a copy. */
static enum rota_jtok scan_real(struct rota_jscan *s)
{
	const char *p = s->p, *end = s->end, *d;
	char buf[41];
	char *stop;
	locale_t loc;

	p += *p == '-';
	p = digits(p, end);
	if (p < end && *p == '.') {
		d = digits(p + 1, end);
		if (d == p + 1)
			return fail(s, "bad number");
		p = d;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		d = digits(p, end);
		if (d == p)
			return fail(s, "bad number");
		p = d;
	}
	if ((size_t)(p - s->p) >= sizeof(buf))
		return fail(s, "number too long");
	memcpy(buf, s->p, (size_t)(p - s->p));
	buf[p - s->p] = '\0';
	loc = c_numeric();
	s->real = loc ? strtod_l(buf, &stop, loc) : strtod(buf, &stop);
	if (*stop || !isfinite(s->real))
		return fail(s, "number out of range");
	s->p = p;
	return ROTA_JT_REAL;
}

static enum rota_jtok scan_int(struct rota_jscan *s)
{
	const char *p = s->p;
	int neg = *p == '-';
	uint64_t v = 0;
	uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;

	p += neg;
	if (p == s->end || *p < '0' || *p > '9')
		return fail(s, "bad number");
	if (*p == '0' && p + 1 < s->end && p[1] >= '0' && p[1] <= '9')
		return fail(s, "number with a leading zero");
	while (p < s->end && *p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p++ - '0');

		if (v > (limit - d) / 10)
			return fail(s, "number out of range");
		v = v * 10 + d;
	}
	if (p < s->end && (*p == '.' || *p == 'e' || *p == 'E'))
		return scan_real(s);
	s->num = neg ? (int64_t)(0 - v) : (int64_t)v;
	s->p = p;
	return ROTA_JT_INT;
}

static enum rota_jtok scan_word(struct rota_jscan *s, const char *w,
				enum rota_jtok t)
{
	size_t n = strlen(w);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n) != 0)
		return fail(s, "unexpected character");
	s->p += n;
	return t;
}

enum rota_jtok rota_jscan_next(struct rota_jscan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' ||
				 *s->p == '\t' || *s->p == '\r'))
		s->p++;
	if (s->p == s->end)
		return ROTA_JT_END;
	switch (*s->p) {
	case '{': s->p++; return ROTA_JT_LBRACE;
	case '}': s->p++; return ROTA_JT_RBRACE;
	case '[': s->p++; return ROTA_JT_LBRACK;
	case ']': s->p++; return ROTA_JT_RBRACK;
	case ',': s->p++; return ROTA_JT_COMMA;
	case ':': s->p++; return ROTA_JT_COLON;
	case '"': return scan_string(s);
	case 't': return scan_word(s, "true", ROTA_JT_TRUE);
	case 'f': return scan_word(s, "false", ROTA_JT_FALSE);
	case 'n': return scan_word(s, "null", ROTA_JT_NULL);
	default:
		if (*s->p == '-' || (*s->p >= '0' && *s->p <= '9'))
			return scan_int(s);
		return fail(s, "unexpected character");
	}
}
