// SPDX-License-Identifier: MIT
/*
 * The JOB_ROWS reply, the queue listing (see msg.h).  It is the body that
 * grows with the queue, so both ends are written by hand: the encoder
 * appends to one buffer, the decoder pulls tokens from the strict scanner
 * and keeps every string in one arena.  Still hostile-input safe: exact
 * grammar, ranges and lengths checked, the struct left empty on failure.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonscan.h"
#include "common/msg.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

char *rota_msg_job_rows_encode(const struct rota_job_row *rows, size_t n,
			       int64_t now, size_t *len)
{
	struct rota_strbuf b = { 0 };

	rota_strbuf_adds(&b, "{\"now\":");
	rota_strbuf_add_i64(&b, now);
	rota_strbuf_adds(&b, ",\"rows\":[");
	for (size_t i = 0; i < n; i++) {
		const struct rota_job_row *r = &rows[i];

		rota_strbuf_add(&b, i ? ",[" : "[", i ? 2 : 1);
		rota_strbuf_add_i64(&b, r->id);
		rota_strbuf_add(&b, ",\"", 2);
		rota_strbuf_adds(&b, rota_job_state_short(r->state));
		rota_strbuf_add(&b, "\",", 2);
		rota_strbuf_add_i64(&b, r->nodes);
		rota_strbuf_add(&b, ",", 1);
		rota_strbuf_add_i64(&b, r->start_time);
		rota_strbuf_add(&b, ",", 1);
		rota_strbuf_add_i64(&b, r->end_time);
		rota_strbuf_add(&b, ",", 1);
		rota_strbuf_add_json(&b, r->queue ? r->queue : "");
		rota_strbuf_add(&b, ",", 1);
		rota_strbuf_add_json(&b, r->name ? r->name : "");
		rota_strbuf_add(&b, ",", 1);
		rota_strbuf_add_json(&b, r->user ? r->user : "");
		rota_strbuf_add(&b, ",", 1);
		rota_strbuf_add_json(&b, r->where ? r->where : "");
		rota_strbuf_add(&b, "]", 1);
	}
	rota_strbuf_add(&b, "]}", 2);
	return rota_strbuf_take(&b, len);
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

static int expect(struct rows_in *in, enum rota_jtok t, const char *what)
{
	return rota_jscan_next(&in->s) == t ? 0 : bad(in, what);
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
	if (rota_jscan_next(&in->s) != ROTA_JT_INT || in->s.num < lo ||
	    in->s.num > hi)
		return bad(in, what);
	*out = in->s.num;
	return 0;
}

static int str(struct rows_in *in, size_t max, const char **out,
	       const char *what)
{
	if (rota_jscan_next(&in->s) != ROTA_JT_STRING || in->s.len > max)
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
