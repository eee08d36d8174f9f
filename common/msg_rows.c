// SPDX-License-Identifier: MIT
/*
 * The row-list writer and reader (see msg_rows.h).  These bodies grow
 * with the queue and are read every second by rota top, so the plain
 * tokens our encoders write are taken straight from the text; anything
 * else goes to the strict scanner, which still decides what is accepted.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/msg_rows.h"
#include "common/xalloc.h"

void msg_rows_reserve(struct msg_rows_out *o, size_t need)
{
	size_t used = (size_t)(o->p - o->data);
	size_t cap = (size_t)(o->end - o->data);

	if ((size_t)(o->end - o->p) >= need)
		return;
	while (cap - used < need)
		cap = cap ? 2 * cap : 4096;
	o->data = rota_xrealloc(o->data, cap);
	o->p = o->data + used;
	o->end = o->data + cap;
}

char *msg_rows_put_i64(char *p, int64_t v)
{
	char tmp[24];
	char *t = tmp + sizeof(tmp);
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	do {
		*--t = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--t = '-';
	memcpy(p, t, (size_t)(tmp + sizeof(tmp) - t));
	return p + (tmp + sizeof(tmp) - t);
}

char *msg_rows_put_real(char *p, double v)
{
	if (!isfinite(v) || v == 0)
		v = 0;
	/* most raw inputs and weights are whole: no printf for them */
	if (fabs(v) < 1e15 && v == (double)(int64_t)v)
		return msg_rows_put_i64(p, (int64_t)v);
	return p + snprintf(p, 25, "%.17g", v);
}

char *msg_rows_put_str(char *p, const char *s, char sep)
{
	static const char hex[] = "0123456789abcdef";

	*p++ = '"';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x20 && c != '"' && c != '\\') {
			*p++ = (char)c;
		} else if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = (char)c;
		} else {
			memcpy(p, "\\u00", 4);
			p[4] = hex[c >> 4];
			p[5] = hex[c & 15];
			p += 6;
		}
	}
	*p++ = '"';
	*p++ = sep;
	return p;
}

int msg_rows_bad(struct msg_rows_in *in, const char *what)
{
	return rota_errorf(in->err, -EPROTO, "%s: %s%s%s", in->label, what,
			   in->s.why ? ": " : "", in->s.why ? in->s.why : "");
}

/*
 * The fast paths below take the tokens the encoders write (no white
 * space, no escapes, no signs) straight from the text, and hand anything
 * else to the scanner from where they started: they accept a part of what
 * it accepts, and read it as it would.
 */
static bool fast_char(struct msg_rows_in *in, char c)
{
	if (in->s.p < in->s.end && *in->s.p == c) {
		in->s.p++;
		return true;
	}
	return false;
}

int msg_rows_expect(struct msg_rows_in *in, enum rota_jtok t, const char *what)
{
	static const char punct[] = {
		[ROTA_JT_LBRACK] = '[',
		[ROTA_JT_RBRACK] = ']',
		[ROTA_JT_COMMA] = ',',
	};

	if (t < (int)sizeof(punct) && punct[t] && fast_char(in, punct[t]))
		return 0;
	return rota_jscan_next(&in->s) == t ? 0 : msg_rows_bad(in, what);
}

/* Up to 18 digits, no leading zero, then no digit, '.', 'e' or 'E'. */
static bool fast_num(struct msg_rows_in *in, int64_t *out)
{
	const char *p = in->s.p, *end = in->s.end;
	const char *stop = end - p > 18 ? p + 18 : end;
	int64_t v = 0;

	if (p == stop || *p < '0' || *p > '9')
		return false;
	if (*p == '0') {
		p++;
	} else {
		while (p < stop && *p >= '0' && *p <= '9')
			v = v * 10 + (*p++ - '0');
	}
	if (p == end || (*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' ||
	    *p == 'E')
		return false;
	in->s.p = p;
	*out = v;
	return true;
}

/* A string of plain bytes, into the arena as the scanner would put it. */
static bool fast_str(struct msg_rows_in *in)
{
	struct rota_jscan *s = &in->s;
	const char *p = s->p + 1, *run = p;
	char *o = s->arena + s->arena_used;
	size_t n;

	if (s->p == s->end || *s->p != '"')
		return false;
	while (p < s->end && *p != '"' && *p != '\\' &&
	       (unsigned char)*p >= 0x20)
		p++;
	n = (size_t)(p - run);
	if (p == s->end || *p != '"' || s->arena_used + n + 5 > s->arena_cap)
		return false;
	memcpy(o, run, n);
	o[n] = '\0';
	s->str = o;
	s->len = n;
	s->arena_used += n + 1;
	s->p = p + 1;
	return true;
}

int msg_rows_key(struct msg_rows_in *in, const char *name)
{
	if (rota_jscan_next(&in->s) != ROTA_JT_STRING ||
	    strcmp(in->s.str, name) != 0)
		return msg_rows_bad(in, name);
	return msg_rows_expect(in, ROTA_JT_COLON, "expected ':'");
}

int msg_rows_num(struct msg_rows_in *in, int64_t lo, int64_t hi, int64_t *out,
		 const char *what)
{
	int64_t v;

	enum rota_jtok t = ROTA_JT_INT;

	if (fast_num(in, &v))
		in->s.num = v;
	else
		t = rota_jscan_next(&in->s);
	if (t == ROTA_JT_REAL)
		in->s.why = "not a whole number";
	if (t != ROTA_JT_INT || in->s.num < lo || in->s.num > hi)
		return msg_rows_bad(in, what);
	*out = in->s.num;
	return 0;
}

int msg_rows_real(struct msg_rows_in *in, double *out, const char *what)
{
	int64_t v;
	enum rota_jtok t;

	if (fast_num(in, &v)) {
		*out = (double)v;
		return 0;
	}
	t = rota_jscan_next(&in->s);
	if (t == ROTA_JT_INT)
		*out = (double)in->s.num;
	else if (t == ROTA_JT_REAL)
		*out = in->s.real;
	else
		return msg_rows_bad(in, what);
	return 0;
}

int msg_rows_str(struct msg_rows_in *in, size_t max, const char **out,
		 const char *what)
{
	if (!fast_str(in) && rota_jscan_next(&in->s) != ROTA_JT_STRING)
		return msg_rows_bad(in, what);
	if (in->s.len > max)
		return msg_rows_bad(in, what);
	*out = in->s.str;
	return 0;
}

int msg_rows_state(struct msg_rows_in *in, enum rota_job_state *out)
{
	const char *s = NULL;
	int rc = msg_rows_str(in, 4, &s, "state");

	for (int i = 1; !rc && i < ROTA_JOB_STATE_COUNT; i++) {
		if (strcmp(s, rota_job_state_short(i)) == 0) {
			*out = (enum rota_job_state)i;
			return 0;
		}
	}
	return rc ? rc : msg_rows_bad(in, "state");
}

int msg_rows_list(struct msg_rows_in *in, size_t size, msg_rows_row_fn row,
		  void **rows, size_t *n)
{
	size_t cap = 0;
	enum rota_jtok t = rota_jscan_next(&in->s);

	if (t == ROTA_JT_RBRACK)
		return 0;
	for (;;) {
		if (t != ROTA_JT_LBRACK)
			return msg_rows_bad(in, "expected a row");
		if (*n == ROTA_MSG_LIST_MAX)
			return msg_rows_bad(in, "too many rows");
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			*rows = rota_xreallocarray(*rows, cap, size);
		}
		if (row(in, (char *)*rows + *n * size) < 0)
			return -EPROTO;
		(*n)++;
		t = rota_jscan_next(&in->s);
		if (t == ROTA_JT_RBRACK)
			return 0;
		if (t != ROTA_JT_COMMA)
			return msg_rows_bad(in, "expected ',' or ']'");
		t = rota_jscan_next(&in->s);
	}
}

/* After the rows' ']': the '}', or the tail's key first. */
static int body_end(struct msg_rows_in *in, struct msg_rows_body *b)
{
	enum rota_jtok t = rota_jscan_next(&in->s);
	int rc;

	if (t == ROTA_JT_RBRACE)
		return 0;
	if (t != ROTA_JT_COMMA || !b->tail)
		return msg_rows_bad(in, "expected '}'");
	rc = b->tail(in, b->arg);
	return rc ? rc : msg_rows_expect(in, ROTA_JT_RBRACE, "expected '}'");
}

int msg_rows_decode_body(const char *buf, size_t len, struct msg_rows_body *b,
			 struct rota_error *err)
{
	struct msg_rows_in in = { .err = err, .label = b->label };
	int rc;

	if (len > (size_t)1 << 31)
		return rota_errorf(err, -EPROTO, "%s: body too large",
				   b->label);
	b->arena = rota_xmalloc(len + 8);
	rota_jscan_init(&in.s, buf, len, b->arena, len + 8);
	rc = msg_rows_expect(&in, ROTA_JT_LBRACE, "expected '{'");
	if (!rc)
		rc = msg_rows_key(&in, "now");
	if (!rc)
		rc = msg_rows_num(&in, 0, INT64_MAX, &b->now, "now");
	if (!rc)
		rc = msg_rows_expect(&in, ROTA_JT_COMMA, "expected ','");
	if (!rc)
		rc = msg_rows_key(&in, "rows");
	if (!rc)
		rc = msg_rows_expect(&in, ROTA_JT_LBRACK, "expected '['");
	if (!rc)
		rc = msg_rows_list(&in, b->size, b->row, &b->rows, &b->n);
	if (!rc)
		rc = body_end(&in, b);
	if (!rc)
		rc = msg_rows_expect(&in, ROTA_JT_END, "trailing bytes");
	return rc;
}

int msg_rows_decode(const char *buf, size_t len, struct rota_error *err,
		    const char *label, size_t size, msg_rows_row_fn row,
		    void **rows, size_t *n, int64_t *now, char **arena)
{
	struct msg_rows_body b = { .label = label, .size = size, .row = row };
	int rc = msg_rows_decode_body(buf, len, &b, err);

	*rows = b.rows;
	*n = b.n;
	*now = b.now;
	*arena = b.arena;
	return rc;
}
