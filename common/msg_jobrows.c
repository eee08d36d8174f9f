// SPDX-License-Identifier: MIT
/*
 * The JOB_ROWS reply, the queue listing (see msg.h).  It is the body that
 * grows with the queue, so both ends are written by hand: the encoder
 * writes straight into one buffer, the decoder takes the plain tokens
 * itself, pulls the rest from the strict scanner, and keeps every string
 * in one arena.  Still hostile-input safe: exact
 * grammar, ranges and lengths checked, the struct left empty on failure.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonscan.h"
#include "common/msg.h"
#include "common/xalloc.h"

/* The encoder's buffer: written through 'p', grown before each row. */
struct rows_out {
	char *data;
	char *p;
	char *end;
};

static void out_reserve(struct rows_out *o, size_t need)
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

static char *put_i64(char *p, int64_t v)
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

/* 's' as a JSON string (what rota_strbuf_add_json writes), then ','. */
static char *put_str(char *p, const char *s, char sep)
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

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/*
 * Written straight into one buffer, each row's worst case reserved first:
 * through rota_strbuf, ten calls a row cost more than the rest of a
 * 50,000-job listing.
 */
char *rota_msg_job_rows_encode(const struct rota_job_row *rows, size_t n,
			       int64_t now, size_t *len)
{
	struct rows_out o = { 0 };

	out_reserve(&o, 64);
	o.p = put_i64(stpcpy(o.p, "{\"now\":"), now);
	o.p = stpcpy(o.p, ",\"rows\":[");
	for (size_t i = 0; i < n; i++) {
		const struct rota_job_row *r = &rows[i];
		const char *str[] = { or_empty(r->queue), or_empty(r->name),
				      or_empty(r->user), or_empty(r->where) };
		/* an escape is 6 bytes at most; a number 20; then '"",' */
		size_t need = 2 + 5 * 21 + 4 * 3 + 6 * 8;

		for (size_t k = 0; k < 4; k++)
			need += 6 * strlen(str[k]);
		out_reserve(&o, need);
		if (i)
			*o.p++ = ',';
		*o.p++ = '[';
		o.p = put_i64(o.p, r->id);
		*o.p++ = ',';
		o.p = put_str(o.p, rota_job_state_short(r->state), ',');
		o.p = put_i64(o.p, r->nodes);
		*o.p++ = ',';
		o.p = put_i64(o.p, r->start_time);
		*o.p++ = ',';
		o.p = put_i64(o.p, r->end_time);
		*o.p++ = ',';
		for (size_t k = 0; k < 4; k++)
			o.p = put_str(o.p, str[k], k < 3 ? ',' : ']');
	}
	out_reserve(&o, 3);
	o.p = stpcpy(o.p, "]}");
	*len = (size_t)(o.p - o.data);
	return o.data;
}

struct rows_in {
	struct rota_jscan s;
	struct rota_error *err;
};

static int bad(struct rows_in *in, const char *what)
{
	return rota_errorf(in->err, -EPROTO, "job rows: %s%s%s", what,
			   in->s.why ? ": " : "", in->s.why ? in->s.why : "");
}

/*
 * The fast paths below take the tokens this encoder writes (no white
 * space, no escapes, no signs) straight from the text, and hand anything
 * else to the scanner from where they started: they accept a part of what
 * it accepts, and read it as it would.
 */
static bool fast_char(struct rows_in *in, char c)
{
	if (in->s.p < in->s.end && *in->s.p == c) {
		in->s.p++;
		return true;
	}
	return false;
}

static int expect(struct rows_in *in, enum rota_jtok t, const char *what)
{
	static const char punct[] = {
		[ROTA_JT_LBRACK] = '[', [ROTA_JT_RBRACK] = ']',
		[ROTA_JT_COMMA] = ',',
	};

	if (t < (int)sizeof(punct) && punct[t] && fast_char(in, punct[t]))
		return 0;
	return rota_jscan_next(&in->s) == t ? 0 : bad(in, what);
}

/* Up to 18 digits, no leading zero, then no digit, '.', 'e' or 'E'. */
static bool fast_num(struct rows_in *in, int64_t *out)
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
static bool fast_str(struct rows_in *in)
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

static int key(struct rows_in *in, const char *name)
{
	if (rota_jscan_next(&in->s) != ROTA_JT_STRING ||
	    strcmp(in->s.str, name) != 0)
		return bad(in, name);
	return expect(in, ROTA_JT_COLON, "expected ':'");
}

static int num(struct rows_in *in, int64_t lo, int64_t hi, int64_t *out,
	       const char *what)
{
	int64_t v;

	if (fast_num(in, &v)) {
		in->s.num = v;
	} else if (rota_jscan_next(&in->s) != ROTA_JT_INT) {
		return bad(in, what);
	}
	if (in->s.num < lo || in->s.num > hi)
		return bad(in, what);
	*out = in->s.num;
	return 0;
}

static int str(struct rows_in *in, size_t max, const char **out,
	       const char *what)
{
	if (!fast_str(in) && rota_jscan_next(&in->s) != ROTA_JT_STRING)
		return bad(in, what);
	if (in->s.len > max)
		return bad(in, what);
	*out = in->s.str;
	return 0;
}

static int state_of(const char *s, enum rota_job_state *out)
{
	for (int i = 1; i < ROTA_JOB_STATE_COUNT; i++) {
		if (strcmp(s, rota_job_state_short(i)) == 0) {
			*out = (enum rota_job_state)i;
			return 0;
		}
	}
	return -1;
}

/* One row, after its '[' */
static int row(struct rows_in *in, struct rota_job_row *r)
{
	int64_t id = 0, nodes = 0;
	const char *st = NULL;
	int rc;

	rc = num(in, 1, UINT32_MAX, &id, "id");
	if (!rc)
		rc = expect(in, ROTA_JT_COMMA, "expected ','");
	if (!rc)
		rc = str(in, 4, &st, "state");
	if (!rc && state_of(st, &r->state) < 0)
		rc = bad(in, "state");
	if (!rc)
		rc = expect(in, ROTA_JT_COMMA, "expected ','");
	if (!rc)
		rc = num(in, 0, UINT32_MAX, &nodes, "nodes");
	if (!rc)
		rc = expect(in, ROTA_JT_COMMA, "expected ','");
	if (!rc)
		rc = num(in, 0, INT64_MAX, &r->start_time, "start");
	if (!rc)
		rc = expect(in, ROTA_JT_COMMA, "expected ','");
	if (!rc)
		rc = num(in, 0, INT64_MAX, &r->end_time, "end");
	const char **strs[] = { &r->queue, &r->name, &r->user, &r->where };
	const size_t max[] = { ROTA_MSG_NAME_MAX, ROTA_MSG_NAME_MAX,
			       ROTA_MSG_NAME_MAX, ROTA_MSG_PATH_MAX };
	for (size_t i = 0; !rc && i < 4; i++) {
		rc = expect(in, ROTA_JT_COMMA, "expected ','");
		if (!rc)
			rc = str(in, max[i], strs[i], "string column");
	}
	if (!rc)
		rc = expect(in, ROTA_JT_RBRACK, "expected ']' after a row");
	r->id = (uint32_t)id;
	r->nodes = (uint32_t)nodes;
	return rc;
}

static int rows(struct rows_in *in, struct rota_msg_job_rows *m)
{
	size_t cap = 0;
	enum rota_jtok t = rota_jscan_next(&in->s);

	if (t == ROTA_JT_RBRACK)
		return 0;
	for (;;) {
		if (t != ROTA_JT_LBRACK)
			return bad(in, "expected a row");
		if (m->n == ROTA_MSG_LIST_MAX)
			return bad(in, "too many rows");
		if (m->n == cap) {
			cap = cap ? 2 * cap : 1024;
			m->rows = rota_xreallocarray(m->rows, cap,
						     sizeof(*m->rows));
		}
		if (row(in, &m->rows[m->n]) < 0)
			return -EPROTO;
		m->n++;
		t = rota_jscan_next(&in->s);
		if (t == ROTA_JT_RBRACK)
			return 0;
		if (t != ROTA_JT_COMMA)
			return bad(in, "expected ',' or ']'");
		t = rota_jscan_next(&in->s);
	}
}

int rota_msg_job_rows_decode(const char *buf, size_t len,
			     struct rota_msg_job_rows *m,
			     struct rota_error *err)
{
	struct rows_in in = { .err = err };
	int rc;

	*m = (struct rota_msg_job_rows){ 0 };
	if (len > (size_t)1 << 31)
		return rota_errorf(err, -EPROTO, "job rows: body too large");
	m->arena = rota_xmalloc(len + 8);
	rota_jscan_init(&in.s, buf, len, m->arena, len + 8);
	rc = expect(&in, ROTA_JT_LBRACE, "expected '{'");
	if (!rc)
		rc = key(&in, "now");
	if (!rc)
		rc = num(&in, 0, INT64_MAX, &m->now, "now");
	if (!rc)
		rc = expect(&in, ROTA_JT_COMMA, "expected ','");
	if (!rc)
		rc = key(&in, "rows");
	if (!rc)
		rc = expect(&in, ROTA_JT_LBRACK, "expected '['");
	if (!rc)
		rc = rows(&in, m);
	if (!rc)
		rc = expect(&in, ROTA_JT_RBRACE, "expected '}'");
	if (!rc)
		rc = expect(&in, ROTA_JT_END, "trailing bytes");
	if (rc < 0)
		rota_msg_job_rows_clear(m);
	return rc;
}

void rota_msg_job_rows_clear(struct rota_msg_job_rows *m)
{
	free(m->rows);
	free(m->arena);
	*m = (struct rota_msg_job_rows){ 0 };
}
