// SPDX-License-Identifier: MIT
/*
 * The JOB_ROWS reply, the queue listing (see msg.h).  It is the body that
 * grows with the queue, so both ends are written by hand: the encoder
 * writes straight into one buffer, the decoder (msg_rows.c) takes the
 * plain tokens itself, pulls the rest from the strict scanner, and keeps
 * every string in one arena.  Still hostile-input safe: exact
 * grammar, ranges and lengths checked, the struct left empty on failure.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/msg_rows.h"
#include "common/xalloc.h"

char *rota_msg_job_rows_encode(const struct rota_job_row *rows, size_t n,
			       int64_t now, size_t *len)
{
	struct msg_rows_out o = { 0 };

	msg_rows_reserve(&o, 64);
	o.p = msg_rows_put_i64(stpcpy(o.p, "{\"now\":"), now);
	o.p = stpcpy(o.p, ",\"rows\":[");
	for (size_t i = 0; i < n; i++) {
		const struct rota_job_row *r = &rows[i];
		const char *str[] = { msg_rows_or_empty(r->queue),
				      msg_rows_or_empty(r->name),
				      msg_rows_or_empty(r->user),
				      msg_rows_or_empty(r->where),
				      msg_rows_or_empty(r->array),
				      msg_rows_or_empty(r->gres) };
		/* an escape is 6 bytes at most; a number 20; then '"",' */
		size_t need = 2 + 6 * 21 + 5 * 3 + 6 * 8;

		for (size_t k = 0; k < 6; k++)
			need += 6 * strlen(str[k]) + 3;
		msg_rows_reserve(&o, need);
		if (i)
			*o.p++ = ',';
		*o.p++ = '[';
		o.p = msg_rows_put_i64(o.p, r->id);
		*o.p++ = ',';
		o.p = msg_rows_put_str(o.p, rota_job_state_short(r->state),
				       ',');
		o.p = msg_rows_put_i64(o.p, r->nodes);
		*o.p++ = ',';
		o.p = msg_rows_put_i64(o.p, r->start_time);
		*o.p++ = ',';
		o.p = msg_rows_put_i64(o.p, r->end_time);
		*o.p++ = ',';
		for (size_t k = 0; k < 4; k++)
			o.p = msg_rows_put_str(o.p, str[k], ',');
		o.p = msg_rows_put_i64(o.p, r->array_job_id);
		*o.p++ = ',';
		/* an 11th column only when it says something: older
		   readers take 10 */
		o.p = msg_rows_put_str(o.p, str[4], str[5][0] ? ',' : ']');
		if (str[5][0])
			o.p = msg_rows_put_str(o.p, str[5], ']');
	}
	msg_rows_reserve(&o, 3);
	o.p = stpcpy(o.p, "]}");
	*len = (size_t)(o.p - o.data);
	return o.data;
}

/* One row, after its '[' */
static int row(struct msg_rows_in *in, void *out)
{
	struct rota_job_row *r = out;
	int64_t id = 0, nodes = 0, array_job = 0;
	int rc;

	rc = msg_rows_num(in, 1, UINT32_MAX, &id, "id");
	if (!rc)
		rc = msg_rows_expect(in, ROTA_JT_COMMA, "expected ','");
	if (!rc)
		rc = msg_rows_state(in, &r->state);
	if (!rc)
		rc = msg_rows_expect(in, ROTA_JT_COMMA, "expected ','");
	if (!rc)
		rc = msg_rows_num(in, 0, UINT32_MAX, &nodes, "nodes");
	if (!rc)
		rc = msg_rows_expect(in, ROTA_JT_COMMA, "expected ','");
	if (!rc)
		rc = msg_rows_num(in, 0, INT64_MAX, &r->start_time, "start");
	if (!rc)
		rc = msg_rows_expect(in, ROTA_JT_COMMA, "expected ','");
	if (!rc)
		rc = msg_rows_num(in, 0, INT64_MAX, &r->end_time, "end");
	const char **strs[] = { &r->queue, &r->name, &r->user, &r->where };
	const size_t max[] = { ROTA_MSG_NAME_MAX, ROTA_MSG_NAME_MAX,
			       ROTA_MSG_NAME_MAX, ROTA_MSG_PATH_MAX };
	for (size_t i = 0; !rc && i < 4; i++) {
		rc = msg_rows_expect(in, ROTA_JT_COMMA, "expected ','");
		if (!rc)
			rc = msg_rows_str(in, max[i], strs[i], "string column");
	}
	if (!rc)
		rc = msg_rows_expect(in, ROTA_JT_COMMA, "expected ','");
	if (!rc)
		rc = msg_rows_num(in, 0, UINT32_MAX, &array_job,
				  "array job id");
	if (!rc)
		rc = msg_rows_expect(in, ROTA_JT_COMMA, "expected ','");
	if (!rc)
		rc = msg_rows_str(in, ROTA_MSG_PATH_MAX, &r->array,
				  "array column");
	r->gres = "";
	if (!rc && in->s.p < in->s.end && *in->s.p == ',') {
		rc = msg_rows_expect(in, ROTA_JT_COMMA, "expected ','");
		if (!rc)
			rc = msg_rows_str(in, ROTA_MSG_NAME_MAX, &r->gres,
					  "gres column");
	}
	if (!rc)
		rc = msg_rows_expect(in, ROTA_JT_RBRACK,
				     "expected ']' after a row");
	r->id = (uint32_t)id;
	r->nodes = (uint32_t)nodes;
	r->array_job_id = (uint32_t)array_job;
	return rc;
}

int rota_msg_job_rows_decode(const char *buf, size_t len,
			     struct rota_msg_job_rows *m,
			     struct rota_error *err)
{
	void *rows = NULL;
	int rc;

	*m = (struct rota_msg_job_rows){ 0 };
	rc = msg_rows_decode(buf, len, err, "job rows", sizeof(*m->rows), row,
			     &rows, &m->n, &m->now, &m->arena);
	m->rows = rows;
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
