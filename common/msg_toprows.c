// SPDX-License-Identifier: MIT
/*
 * The TOP_ROWS reply, what rota top reads every second (see msg.h).  The
 * JOB_ROWS way (msg_jobrows.c): written by hand into one buffer, read back
 * with the strict scanner into one arena, every column's range and every
 * string's length checked, the struct left empty on failure.  Wider than
 * JOB_ROWS by what top shows and the queue listing does not: cores,
 * submit time, priority, nice, urgency, hold, expected start and
 * account.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonscan.h"
#include "common/msg.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

#define NINTS 10 /* the whole-number columns after the state */
#define NSTRS 5

static void ints_of(const struct rota_top_row *r, int64_t v[NINTS])
{
	int64_t x[NINTS] = { r->cores,	    r->nodes,	 r->submit_time,
			     r->start_time, r->end_time, r->priority_milli,
			     r->nice,	    r->urgency,	 r->hold,
			     r->est_start };

	memcpy(v, x, sizeof(x));
}

char *rota_msg_top_rows_encode(const struct rota_top_row *rows, size_t n,
			       int64_t now, size_t *len)
{
	struct rota_strbuf b = { 0 };

	rota_strbuf_adds(&b, "{\"now\":");
	rota_strbuf_add_i64(&b, now);
	rota_strbuf_adds(&b, ",\"rows\":[");
	for (size_t i = 0; i < n; i++) {
		const struct rota_top_row *r = &rows[i];
		const char *s[NSTRS] = { r->queue, r->user, r->account,
					 r->name, r->where };
		int64_t v[NINTS];

		ints_of(r, v);
		rota_strbuf_add(&b, i ? ",[" : "[", i ? 2 : 1);
		rota_strbuf_add_i64(&b, r->id);
		rota_strbuf_add(&b, ",\"", 2);
		rota_strbuf_adds(&b, rota_job_state_short(r->state));
		rota_strbuf_add(&b, "\"", 1);
		for (size_t k = 0; k < NINTS; k++) {
			rota_strbuf_add(&b, ",", 1);
			rota_strbuf_add_i64(&b, v[k]);
		}
		for (size_t k = 0; k < NSTRS; k++) {
			rota_strbuf_add(&b, ",", 1);
			rota_strbuf_add_json(&b, s[k] ? s[k] : "");
		}
		rota_strbuf_add(&b, "]", 1);
	}
	rota_strbuf_add(&b, "]}", 2);
	return rota_strbuf_take(&b, len);
}

struct top_in {
	struct rota_jscan s;
	struct rota_error *err;
};

static int bad(struct top_in *in, const char *what)
{
	return rota_errorf(in->err, -EPROTO, "top rows: %s%s%s", what,
			   in->s.why ? ": " : "", in->s.why ? in->s.why : "");
}

static int expect(struct top_in *in, enum rota_jtok t, const char *what)
{
	return rota_jscan_next(&in->s) == t ? 0 : bad(in, what);
}

static int key(struct top_in *in, const char *name)
{
	if (rota_jscan_next(&in->s) != ROTA_JT_STRING ||
	    strcmp(in->s.str, name) != 0)
		return bad(in, name);
	return expect(in, ROTA_JT_COLON, "expected ':'");
}

static int num(struct top_in *in, int64_t lo, int64_t hi, int64_t *out,
	       const char *what)
{
	if (rota_jscan_next(&in->s) != ROTA_JT_INT || in->s.num < lo ||
	    in->s.num > hi)
		return bad(in, what);
	*out = in->s.num;
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

static const struct {
	const char *name;
	int64_t lo;
	int64_t hi;
} int_cols[NINTS] = {
	{ "cores", 0, UINT32_MAX },
	{ "nodes", 0, UINT32_MAX },
	{ "submit", 0, INT64_MAX },
	{ "start", 0, INT64_MAX },
	{ "end", 0, INT64_MAX },
	{ "priority", INT64_MIN, INT64_MAX },
	{ "nice", -ROTA_MSG_NICE_LIMIT, ROTA_MSG_NICE_LIMIT },
	{ "urgency", 0, 31 },
	{ "hold", 0, 2 },
	{ "est_start", 0, INT64_MAX },
};

/* One row, after its '[' */
static int row(struct top_in *in, struct rota_top_row *r)
{
	int64_t v[NINTS] = { 0 };
	int64_t id = 0;
	const char **s[NSTRS] = { &r->queue, &r->user, &r->account, &r->name,
				  &r->where };
	int rc = num(in, 1, UINT32_MAX, &id, "id");

	if (!rc)
		rc = expect(in, ROTA_JT_COMMA, "expected ','");
	if (!rc && (rota_jscan_next(&in->s) != ROTA_JT_STRING ||
		    in->s.len > 4 || state_of(in->s.str, &r->state) < 0))
		rc = bad(in, "state");
	for (size_t k = 0; !rc && k < NINTS; k++) {
		rc = expect(in, ROTA_JT_COMMA, "expected ','");
		if (!rc)
			rc = num(in, int_cols[k].lo, int_cols[k].hi, &v[k],
				 int_cols[k].name);
	}
	for (size_t k = 0; !rc && k < NSTRS; k++) {
		size_t max = k == NSTRS - 1 ? ROTA_MSG_PATH_MAX
					    : ROTA_MSG_NAME_MAX;

		rc = expect(in, ROTA_JT_COMMA, "expected ','");
		if (!rc && (rota_jscan_next(&in->s) != ROTA_JT_STRING ||
			    in->s.len > max))
			rc = bad(in, "string column");
		if (!rc)
			*s[k] = in->s.str;
	}
	if (!rc)
		rc = expect(in, ROTA_JT_RBRACK, "expected ']' after a row");
	r->id = (uint32_t)id;
	r->cores = (uint32_t)v[0];
	r->nodes = (uint32_t)v[1];
	r->submit_time = v[2];
	r->start_time = v[3];
	r->end_time = v[4];
	r->priority_milli = v[5];
	r->nice = (int32_t)v[6];
	r->urgency = (uint32_t)v[7];
	r->hold = (uint32_t)v[8];
	r->est_start = v[9];
	return rc;
}

static int rows(struct top_in *in, struct rota_msg_top_rows *m)
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

int rota_msg_top_rows_decode(const char *buf, size_t len,
			     struct rota_msg_top_rows *m,
			     struct rota_error *err)
{
	struct top_in in = { .err = err };
	int rc;

	*m = (struct rota_msg_top_rows){ 0 };
	if (len > (size_t)1 << 31)
		return rota_errorf(err, -EPROTO, "top rows: body too large");
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
		rota_msg_top_rows_clear(m);
	return rc;
}

void rota_msg_top_rows_clear(struct rota_msg_top_rows *m)
{
	free(m->rows);
	free(m->arena);
	*m = (struct rota_msg_top_rows){ 0 };
}
