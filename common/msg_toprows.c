// SPDX-License-Identifier: MIT
/*
 * The TOP_ROWS reply, what rota top reads every second (see msg.h).  The
 * JOB_ROWS way: written straight into one buffer and read back into one
 * arena by the row writer and reader (msg_rows.c), every column's range
 * and every string's length checked, the struct left empty on failure.  Wider
 * than JOB_ROWS by what top shows and the queue listing does not: cores, submit
 * time, priority, nice, urgency, hold, expected start and account.
 * Then, when some job has any, the running steps (msg.h): few, so they
 * go after the rows in a list of their own rather than in a column of
 * every row.  Before them, to a client that asked with "since", the
 * change number and, in a delta, the delta's base and the gone jobs:
 * optional keys in a fixed order, each written only when it differs
 * from what its absence means, so that a decoded reply encodes back to
 * the same bytes.  The request ({"since":N}) is a small JSON object,
 * read with jansson like the other requests.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/msg_internal.h"
#include "common/msg_rows.h"
#include "common/xalloc.h"

#define NINTS 10 /* the whole-number columns after the state */
#define NSTRS 6

static void ints_of(const struct rota_top_row *r, int64_t v[NINTS])
{
	int64_t x[NINTS] = { r->cores,	    r->nodes,	 r->submit_time,
			     r->start_time, r->end_time, r->priority_milli,
			     r->nice,	    r->urgency,	 r->hold,
			     r->est_start };

	memcpy(v, x, sizeof(x));
}

/* ,"steps":[[job,step,ntasks,nnodes,start,"name","nodes"],...] */
static void put_steps(struct msg_rows_out *o, const struct rota_top_step *st,
		      size_t n)
{
	msg_rows_reserve(o, 16);
	o->p = stpcpy(o->p, ",\"steps\":[");
	for (size_t i = 0; i < n; i++) {
		const char *name = msg_rows_or_empty(st[i].name);
		const char *nodes = msg_rows_or_empty(st[i].nodes);
		int64_t v[] = { st[i].job_id, st[i].step_id, st[i].ntasks,
				st[i].nnodes, st[i].start };

		msg_rows_reserve(o, 2 + 5 * 21 + 2 * 3 +
					    6 * (strlen(name) + strlen(nodes)));
		if (i)
			*o->p++ = ',';
		*o->p++ = '[';
		for (size_t k = 0; k < 5; k++) {
			o->p = msg_rows_put_i64(o->p, v[k]);
			*o->p++ = ',';
		}
		o->p = msg_rows_put_str(o->p, name, ',');
		o->p = msg_rows_put_str(o->p, nodes, ']');
	}
	msg_rows_reserve(o, 1);
	*o->p++ = ']';
}

/* ,"change":C[,"since":S[,"gone":[id,...]]] */
static void put_delta(struct msg_rows_out *o, int64_t change, int64_t since,
		      const uint32_t *gone, size_t ngone)
{
	msg_rows_reserve(o, 2 * 32 + 12);
	o->p = msg_rows_put_i64(stpcpy(o->p, ",\"change\":"), change);
	if (!since)
		return;
	o->p = msg_rows_put_i64(stpcpy(o->p, ",\"since\":"), since);
	if (!ngone)
		return;
	o->p = stpcpy(o->p, ",\"gone\":[");
	for (size_t i = 0; i < ngone; i++) {
		msg_rows_reserve(o, 12);
		if (i)
			*o->p++ = ',';
		o->p = msg_rows_put_i64(o->p, gone[i]);
	}
	msg_rows_reserve(o, 1);
	*o->p++ = ']';
}

struct rota_msg_top_writer {
	struct msg_rows_out o;
	size_t n;
	int64_t change;		/* 0: no delta keys (an older client) */
	int64_t since;
	const uint32_t *gone;
	size_t ngone;
};

struct rota_msg_top_writer *rota_msg_top_begin(int64_t now)
{
	struct rota_msg_top_writer *w = rota_xcalloc(1, sizeof(*w));

	msg_rows_reserve(&w->o, 64);
	w->o.p = msg_rows_put_i64(stpcpy(w->o.p, "{\"now\":"), now);
	w->o.p = stpcpy(w->o.p, ",\"rows\":[");
	return w;
}

void rota_msg_top_add(struct rota_msg_top_writer *w,
		      const struct rota_top_row *r)
{
	struct msg_rows_out *o = &w->o;
	const char *s[NSTRS] = { msg_rows_or_empty(r->queue),
				 msg_rows_or_empty(r->user),
				 msg_rows_or_empty(r->account),
				 msg_rows_or_empty(r->name),
				 msg_rows_or_empty(r->where),
				 msg_rows_or_empty(r->array) };
	/* an escape is 6 bytes at most; a number 20; then '"",' */
	size_t need = 2 + (NINTS + 1) * 21 + (NSTRS + 1) * 3 + 6 * 8;
	int64_t v[NINTS];

	for (size_t k = 0; k < NSTRS; k++)
		need += 6 * strlen(s[k]);
	msg_rows_reserve(o, need);
	ints_of(r, v);
	if (w->n++)
		*o->p++ = ',';
	*o->p++ = '[';
	o->p = msg_rows_put_i64(o->p, r->id);
	*o->p++ = ',';
	o->p = msg_rows_put_str(o->p, rota_job_state_short(r->state), ',');
	for (size_t k = 0; k < NINTS; k++) {
		o->p = msg_rows_put_i64(o->p, v[k]);
		*o->p++ = ',';
	}
	for (size_t k = 0; k < NSTRS; k++)
		o->p = msg_rows_put_str(o->p, s[k], k < NSTRS - 1 ? ',' : ']');
}

void rota_msg_top_delta(struct rota_msg_top_writer *w, int64_t change,
			int64_t since, const uint32_t *gone, size_t ngone)
{
	w->change = change;
	w->since = since;
	w->gone = gone;
	w->ngone = ngone;
}

char *rota_msg_top_finish(struct rota_msg_top_writer *w,
			  const struct rota_top_step *steps, size_t nsteps,
			  size_t *len)
{
	struct msg_rows_out o = w->o;

	msg_rows_reserve(&o, 1);
	*o.p++ = ']';
	if (w->change)
		put_delta(&o, w->change, w->since, w->gone, w->ngone);
	free(w);
	if (nsteps)
		put_steps(&o, steps, nsteps);
	msg_rows_reserve(&o, 2);
	o.p = stpcpy(o.p, "}");
	*len = (size_t)(o.p - o.data);
	return o.data;
}

char *rota_msg_top_rows_encode(const struct rota_msg_top_rows *m, size_t *len)
{
	struct rota_msg_top_writer *w = rota_msg_top_begin(m->now);

	for (size_t i = 0; i < m->n; i++)
		rota_msg_top_add(w, &m->rows[i]);
	rota_msg_top_delta(w, m->change, m->since, m->gone, m->ngone);
	return rota_msg_top_finish(w, m->steps, m->nsteps, len);
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
static int row(struct msg_rows_in *in, void *out)
{
	struct rota_top_row *r = out;
	int64_t v[NINTS] = { 0 };
	int64_t id = 0;
	const char **s[NSTRS] = { &r->queue, &r->user, &r->account, &r->name,
				  &r->where, &r->array };
	int rc = msg_rows_num(in, 1, UINT32_MAX, &id, "id");

	if (!rc)
		rc = msg_rows_expect(in, ROTA_JT_COMMA, "expected ','");
	if (!rc)
		rc = msg_rows_state(in, &r->state);
	for (size_t k = 0; !rc && k < NINTS; k++) {
		rc = msg_rows_expect(in, ROTA_JT_COMMA, "expected ','");
		if (!rc)
			rc = msg_rows_num(in, int_cols[k].lo, int_cols[k].hi,
					  &v[k], int_cols[k].name);
	}
	for (size_t k = 0; !rc && k < NSTRS; k++) {
		/* "where" and "array" are paths or lists: longer */
		size_t max = k >= 4 ? ROTA_MSG_PATH_MAX : ROTA_MSG_NAME_MAX;

		rc = msg_rows_expect(in, ROTA_JT_COMMA, "expected ','");
		if (!rc)
			rc = msg_rows_str(in, max, s[k], "string column");
	}
	if (!rc)
		rc = msg_rows_expect(in, ROTA_JT_RBRACK,
				     "expected ']' after a row");
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

/* One step, after its '[' */
static int step_row(struct msg_rows_in *in, void *out)
{
	struct rota_top_step *st = out;
	static const struct {
		const char *name;
		int64_t lo;
		int64_t hi;
	} cols[] = {
		{ "step job id", 1, UINT32_MAX },
		{ "step id", 0, UINT32_MAX - 1 }, /* ROTA_STEP_NONE is none */
		{ "step tasks", 0, UINT32_MAX },
		{ "step nodes", 0, UINT32_MAX },
		{ "step start", 0, INT64_MAX },
	};
	int64_t v[5] = { 0 };
	int rc = 0;

	for (size_t k = 0; !rc && k < 5; k++) {
		rc = msg_rows_num(in, cols[k].lo, cols[k].hi, &v[k],
				  cols[k].name);
		if (!rc)
			rc = msg_rows_expect(in, ROTA_JT_COMMA, "expected ','");
	}
	if (!rc)
		rc = msg_rows_str(in, ROTA_MSG_NAME_MAX, &st->name,
				  "step name");
	if (!rc)
		rc = msg_rows_expect(in, ROTA_JT_COMMA, "expected ','");
	if (!rc)
		rc = msg_rows_str(in, ROTA_MSG_PATH_MAX, &st->nodes,
				  "step nodes");
	if (!rc)
		rc = msg_rows_expect(in, ROTA_JT_RBRACK,
				     "expected ']' after a step");
	st->job_id = (uint32_t)v[0];
	st->step_id = (uint32_t)v[1];
	st->ntasks = (uint32_t)v[2];
	st->nnodes = (uint32_t)v[3];
	st->start = v[4];
	return rc;
}

/* "steps":[...] */
static int steps_value(struct msg_rows_in *in, struct rota_msg_top_rows *m)
{
	void *steps = NULL;
	int rc = msg_rows_expect(in, ROTA_JT_LBRACK, "expected '['");

	if (!rc)
		rc = msg_rows_list(in, sizeof(*m->steps), step_row, &steps,
				   &m->nsteps);
	m->steps = steps;
	return rc;
}

/* "gone":[id,...]: job ids, at most ROTA_MSG_LIST_MAX */
static int gone_value(struct msg_rows_in *in, struct rota_msg_top_rows *m)
{
	size_t cap = 0;
	int64_t id;
	int rc = msg_rows_expect(in, ROTA_JT_LBRACK, "expected '['");
	struct rota_jscan save = in->s;

	if (!rc && rota_jscan_next(&in->s) == ROTA_JT_RBRACK)
		return 0;
	in->s = save;
	while (!rc) {
		if (m->ngone == ROTA_MSG_LIST_MAX)
			return msg_rows_bad(in, "too many gone jobs");
		rc = msg_rows_num(in, 1, UINT32_MAX, &id, "gone job id");
		if (rc)
			break;
		if (m->ngone == cap) {
			cap = cap ? 2 * cap : 64;
			m->gone = rota_xreallocarray(m->gone, cap,
						     sizeof(*m->gone));
		}
		m->gone[m->ngone++] = (uint32_t)id;
		save = in->s;
		if (rota_jscan_next(&in->s) == ROTA_JT_RBRACK)
			return 0;
		in->s = save;
		rc = msg_rows_expect(in, ROTA_JT_COMMA, "expected ',' or ']'");
	}
	return rc;
}

/* "change" then "since" (delta keys), each >= 1, since <= change */
static int number_value(struct msg_rows_in *in, struct rota_msg_top_rows *m,
			size_t k)
{
	int64_t hi = k == 0 ? INT64_MAX : m->change;

	return msg_rows_num(in, 1, hi, k == 0 ? &m->change : &m->since,
			    k == 0 ? "change" : "since");
}

/*
 * The keys after the rows, in this order, each at most once: what the
 * writer writes.  "since" needs "change", "gone" needs "since": a reply
 * without them would encode back without them.
 */
static int top_tail(struct msg_rows_in *in, void *arg)
{
	static const char *const keys[] = { "change", "since", "gone",
					    "steps" };
	struct rota_msg_top_rows *m = arg;
	size_t next = 0, k;
	struct rota_jscan save;
	int rc;

	for (;;) {
		if (rota_jscan_next(&in->s) != ROTA_JT_STRING)
			return msg_rows_bad(in, "expected a key");
		for (k = next; k < 4 && strcmp(in->s.str, keys[k]); k++)
			;
		if (k == 4 || (k == 1 && !m->change) || (k == 2 && !m->since))
			return msg_rows_bad(in, "unexpected key");
		next = k + 1;
		rc = msg_rows_expect(in, ROTA_JT_COLON, "expected ':'");
		if (!rc && k < 2)
			rc = number_value(in, m, k);
		else if (!rc)
			rc = k == 2 ? gone_value(in, m) : steps_value(in, m);
		if (rc)
			return rc;
		/* a ',' goes on; anything else is left for the '}' */
		save = in->s;
		if (rota_jscan_next(&in->s) != ROTA_JT_COMMA) {
			in->s = save;
			return 0;
		}
	}
}

int rota_msg_top_rows_decode(const char *buf, size_t len,
			     struct rota_msg_top_rows *m,
			     struct rota_error *err)
{
	struct msg_rows_body b = {
		.label = "top rows",
		.size = sizeof(*m->rows),
		.row = row,
		.tail = top_tail,
		.arg = m,
	};
	int rc;

	*m = (struct rota_msg_top_rows){ 0 };
	rc = msg_rows_decode_body(buf, len, &b, err);
	m->rows = b.rows;
	m->n = b.n;
	m->now = b.now;
	m->arena = b.arena;
	if (rc < 0)
		rota_msg_top_rows_clear(m);
	return rc;
}

void rota_msg_top_rows_clear(struct rota_msg_top_rows *m)
{
	free(m->rows);
	free(m->gone);
	free(m->steps);
	free(m->arena);
	*m = (struct rota_msg_top_rows){ 0 };
}

char *rota_msg_top_req_encode(const struct rota_msg_top_req *r, size_t *len)
{
	if (!r->has_since)
		return msg_dump(json_object(), len);
	return msg_dump(json_pack("{s:I}", "since", (json_int_t)r->since), len);
}

int rota_msg_top_req_decode(const char *buf, size_t len,
			    struct rota_msg_top_req *r, struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	json_t *since = NULL;
	int rc;

	*r = (struct rota_msg_top_req){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s?o !}", "since", &since);
	if (rc == 0 && since && !json_is_integer(since))
		rc = rota_errorf(err, -EPROTO, "since: not a whole number");
	if (rc == 0 && since)
		rc = msg_range(json_integer_value(since), 0, INT64_MAX, "since",
			       err);
	if (rc == 0 && since) {
		r->has_since = true;
		r->since = json_integer_value(since);
	}
	json_decref(root);
	return rc;
}
