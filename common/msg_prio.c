// SPDX-License-Identifier: MIT
/* The PRIO_REPLY codec: priorities and their terms (see msg.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/msg_internal.h"
#include "common/msg_rows.h"
#include "common/xalloc.h"

#define PRIO_FACTORS_MAX 64

static const char *const state_names[] = {
	[ROTA_PRIO_ROW_PENDING] = "pending",
	[ROTA_PRIO_ROW_HELD] = "held",
	[ROTA_PRIO_ROW_RUNNING] = "running",
};

static const char *state_name(enum rota_prio_row_state s)
{
	return s >= ROTA_PRIO_ROW_PENDING && s <= ROTA_PRIO_ROW_RUNNING
		       ? state_names[s]
		       : "pending";
}

/* A row without "state" (an older controller's) is a pending job's. */
static int state_unpack(const char *name, enum rota_prio_row_state *s,
			struct rota_error *err)
{
	*s = ROTA_PRIO_ROW_PENDING;
	if (!name)
		return 0;
	for (int i = ROTA_PRIO_ROW_PENDING; i <= ROTA_PRIO_ROW_RUNNING; i++) {
		if (strcmp(name, state_names[i]) == 0) {
			*s = (enum rota_prio_row_state)i;
			return 0;
		}
	}
	return rota_errorf(err, -EPROTO, "state: unknown");
}

struct rota_msg_prio_writer {
	struct msg_rows_out o;
	size_t n;
};

/* The longest a string can be once escaped, with its quotes and a ','. */
static size_t str_room(const char *s)
{
	return 6 * strlen(s) + 3;
}

struct rota_msg_prio_writer *rota_msg_prio_begin(const struct rota_msg_prio *m)
{
	struct rota_msg_prio_writer *w = rota_xcalloc(1, sizeof(*w));
	struct msg_rows_out *o = &w->o;

	msg_rows_reserve(o, 128 + str_room(m->plugin) + str_room(m->describe));
	o->p = stpcpy(o->p, "{\"plugin\":");
	o->p = msg_rows_put_str(o->p, m->plugin, ',');
	o->p = stpcpy(o->p, "\"describe\":");
	o->p = msg_rows_put_str(o->p, m->describe, ',');
	if (m->rates_all)
		o->p = stpcpy(o->p, "\"rates_all\":true,");
	if (m->rated_at) {
		o->p = stpcpy(o->p, "\"rated_at\":");
		o->p = stpcpy(msg_rows_put_i64(o->p, m->rated_at), ",");
	}
	if (m->now) {
		o->p = stpcpy(o->p, "\"now\":");
		o->p = stpcpy(msg_rows_put_i64(o->p, m->now), ",");
	}
	o->p = stpcpy(o->p, "\"rows\":[");
	return w;
}

/* "key":"text", */
static char *put_field(char *p, const char *key, const char *s)
{
	*p++ = '"';
	p = stpcpy(p, key);
	p = stpcpy(p, "\":");
	return msg_rows_put_str(p, s, ',');
}

void rota_msg_prio_add(struct rota_msg_prio_writer *w,
		       const struct rota_prio_row *r)
{
	const char *str[] = { msg_rows_or_empty(r->user),
			      msg_rows_or_empty(r->account),
			      msg_rows_or_empty(r->queue),
			      msg_rows_or_empty(r->qos),
			      r->array,
			      r->department };
	struct msg_rows_out *o = &w->o;
	size_t need = 256;

	for (size_t i = 0; i < sizeof(str) / sizeof(*str); i++)
		need += str[i] ? str_room(str[i]) + 16 : 0;
	for (size_t i = 0; i < r->nfactors; i++)
		need += str_room(r->factors[i].name) + 4 * 26 + 4;
	msg_rows_reserve(o, need);
	if (w->n++)
		*o->p++ = ',';
	o->p = stpcpy(o->p, "{\"id\":");
	o->p = stpcpy(msg_rows_put_i64(o->p, r->id), ",");
	o->p = put_field(o->p, "user", str[0]);
	o->p = put_field(o->p, "account", str[1]);
	o->p = put_field(o->p, "queue", str[2]);
	o->p = put_field(o->p, "qos", str[3]);
	o->p = stpcpy(o->p, "\"priority\":");
	o->p = stpcpy(msg_rows_put_real(o->p, r->priority), ",\"factors\":[");
	for (size_t i = 0; i < r->nfactors; i++) {
		const struct rota_msg_prio_factor *x = &r->factors[i];
		const double v[] = { x->raw, x->norm, x->weight, x->value };

		o->p = stpcpy(o->p, i ? ",[" : "[");
		o->p = msg_rows_put_str(o->p, x->name, ',');
		for (size_t k = 0; k < 4; k++) {
			o->p = msg_rows_put_real(o->p, v[k]);
			*o->p++ = k < 3 ? ',' : ']';
		}
	}
	o->p = stpcpy(o->p, "],");
	if (r->array)
		o->p = put_field(o->p, "array", r->array);
	if (r->department)
		o->p = put_field(o->p, "department", r->department);
	if (r->tasks > 1) {
		o->p = stpcpy(o->p, "\"tasks\":");
		o->p = stpcpy(msg_rows_put_i64(o->p, r->tasks), ",");
	}
	o->p = stpcpy(o->p, "\"state\":\"");
	o->p = stpcpy(o->p, state_name(r->state));
	o->p = stpcpy(o->p, "\"}");
}

char *rota_msg_prio_finish(struct rota_msg_prio_writer *w, size_t *len)
{
	char *body;

	msg_rows_reserve(&w->o, 4);
	w->o.p = stpcpy(w->o.p, "]}");
	*len = (size_t)(w->o.p - w->o.data);
	body = w->o.data;
	free(w);
	return body;
}

const char *rota_msg_prio_written(const struct rota_msg_prio_writer *w,
				  size_t *len)
{
	*len = (size_t)(w->o.p - w->o.data);
	return w->o.data;
}

char *rota_msg_prio_encode(const struct rota_msg_prio *m, size_t *len)
{
	struct rota_msg_prio_writer *w = rota_msg_prio_begin(m);

	for (size_t i = 0; i < m->n; i++)
		rota_msg_prio_add(w, &m->rows[i]);
	return rota_msg_prio_finish(w, len);
}

/*
 * The decoder reads the text with the strict scanner (msg_rows.c), not
 * through a JSON tree: 50,000 rows took a tree parser half a second.
 * Keys may come in any order, each at most once; unknown keys are
 * refused.  Strings stay in one arena the message owns.
 */
enum {
	ROW_ID = 1 << 0,
	ROW_USER = 1 << 1,
	ROW_ACCOUNT = 1 << 2,
	ROW_QUEUE = 1 << 3,
	ROW_QOS = 1 << 4,
	ROW_PRIORITY = 1 << 5,
	ROW_FACTORS = 1 << 6,
	ROW_NEEDED = (1 << 7) - 1,
	ROW_ARRAY = 1 << 7,
	ROW_TASKS = 1 << 8,
	ROW_STATE = 1 << 9,
	ROW_DEPT = 1 << 10,
};

static const char *const row_keys[] = {
	"id",	   "user",  "account", "queue", "qos",	      "priority",
	"factors", "array", "tasks",   "state", "department",
};

/* The next key of an object (after its '{' or a ','), its index in 'keys'. */
static int key_of(struct msg_rows_in *in, const char *const *keys, size_t n,
		  unsigned *seen, const char *what)
{
	if (rota_jscan_next(&in->s) != ROTA_JT_STRING)
		return rota_errorf(in->err, -EPROTO, "%s: %s: expected a key",
				   in->label, what);
	for (size_t k = 0; k < n; k++) {
		if (strcmp(in->s.str, keys[k]) != 0)
			continue;
		if (*seen & (1u << k))
			return rota_errorf(in->err, -EPROTO, "%s: twice",
					   keys[k]);
		*seen |= 1u << k;
		if (msg_rows_expect(in, ROTA_JT_COLON, "expected ':'") < 0)
			return -EPROTO;
		return (int)k;
	}
	return rota_errorf(in->err, -EPROTO, "%s: unknown key", what);
}

/* ',' and another key, or the object's '}': 1, 0, or <0. */
static int more_keys(struct msg_rows_in *in)
{
	enum rota_jtok t = rota_jscan_next(&in->s);

	if (t == ROTA_JT_COMMA)
		return 1;
	return t == ROTA_JT_RBRACE ? 0 : msg_rows_bad(in, "expected '}'");
}

static int name_str(struct msg_rows_in *in, size_t max, char **out,
		    const char *what)
{
	const char *s;
	int rc = msg_rows_str(in, max, &s, what);

	if (rc == 0)
		*out = (char *)s; /* in the arena the message owns */
	return rc;
}

static int factors_unpack(struct msg_rows_in *in, struct rota_prio_row *r)
{
	size_t cap = 0;
	enum rota_jtok t;

	if (msg_rows_expect(in, ROTA_JT_LBRACK, "factors: not a list") < 0)
		return -EPROTO;
	t = rota_jscan_next(&in->s);
	while (t != ROTA_JT_RBRACK) {
		struct rota_msg_prio_factor *f;
		double *v[4];
		int rc;

		if (t != ROTA_JT_LBRACK || r->nfactors == PRIO_FACTORS_MAX)
			return rota_errorf(in->err, -EPROTO,
					   "factors: not a short list");
		if (r->nfactors == cap) {
			cap = cap ? 2 * cap : 8;
			r->factors = rota_xreallocarray(r->factors, cap + 1,
							sizeof(*r->factors));
		}
		f = &r->factors[r->nfactors++];
		*f = (struct rota_msg_prio_factor){ 0 };
		v[0] = &f->raw;
		v[1] = &f->norm;
		v[2] = &f->weight;
		v[3] = &f->value;
		rc = name_str(in, 64, &f->name, "factor");
		for (int k = 0; rc == 0 && k < 4; k++) {
			rc = msg_rows_expect(in, ROTA_JT_COMMA, "factor");
			if (rc == 0)
				rc = msg_rows_real(in, v[k], "factor");
		}
		if (rc == 0)
			rc = msg_rows_expect(in, ROTA_JT_RBRACK, "factor");
		if (rc < 0)
			return rc;
		t = rota_jscan_next(&in->s);
		if (t == ROTA_JT_COMMA)
			t = rota_jscan_next(&in->s);
		else if (t != ROTA_JT_RBRACK)
			return msg_rows_bad(in, "factors: expected ']'");
	}
	if (!r->factors)
		r->factors = rota_xcalloc(1, sizeof(*r->factors));
	return 0;
}

static int state_str(struct msg_rows_in *in, struct rota_prio_row *r)
{
	const char *name;
	int rc = msg_rows_str(in, 16, &name, "state");

	return rc ? rc : state_unpack(name, &r->state, in->err);
}

static int row_unpack(struct msg_rows_in *in, struct rota_prio_row *r)
{
	unsigned seen = 0;
	int64_t v;
	int rc, k;

	if (msg_rows_expect(in, ROTA_JT_LBRACE, "rows: expected a row") < 0)
		return -EPROTO;
	r->state = ROTA_PRIO_ROW_PENDING; /* an older controller's: pending */
	r->tasks = 1;			  /* the writer leaves out one task */
	do {
		k = key_of(in, row_keys, sizeof(row_keys) / sizeof(*row_keys),
			   &seen, "row");
		if (k < 0)
			return k;
		switch (1 << k) {
		case ROW_ID:
			rc = msg_rows_num(in, 1, UINT32_MAX, &v, "id");
			r->id = (uint32_t)v;
			break;
		case ROW_USER:
			rc = name_str(in, ROTA_MSG_NAME_MAX, &r->user, "user");
			break;
		case ROW_ACCOUNT:
			rc = name_str(in, ROTA_MSG_NAME_MAX, &r->account,
				      "account");
			break;
		case ROW_QUEUE:
			rc = name_str(in, ROTA_MSG_NAME_MAX, &r->queue,
				      "queue");
			break;
		case ROW_QOS:
			rc = name_str(in, ROTA_MSG_NAME_MAX, &r->qos, "qos");
			break;
		case ROW_PRIORITY:
			rc = msg_rows_real(in, &r->priority, "priority");
			break;
		case ROW_FACTORS: rc = factors_unpack(in, r); break;
		case ROW_ARRAY:
			rc = name_str(in, ROTA_MSG_PATH_MAX, &r->array,
				      "array");
			break;
		case ROW_TASKS:
			rc = msg_rows_num(in, 1, UINT32_MAX, &v, "tasks");
			r->tasks = (uint32_t)v;
			break;
		case ROW_STATE: rc = state_str(in, r); break;
		default:
			rc = name_str(in, ROTA_MSG_NAME_MAX, &r->department,
				      "department");
			break;
		}
		if (rc < 0)
			return rc;
	} while ((rc = more_keys(in)) == 1);
	if (rc == 0 && (seen & ROW_NEEDED) != ROW_NEEDED)
		rc = rota_errorf(in->err, -EPROTO, "row: a key is missing");
	return rc;
}

static int rows_unpack(struct msg_rows_in *in, struct rota_msg_prio *m)
{
	size_t cap = 0;
	enum rota_jtok t;

	if (msg_rows_expect(in, ROTA_JT_LBRACK, "rows: not a list") < 0)
		return -EPROTO;
	if (in->s.p < in->s.end && *in->s.p == ']') {
		in->s.p++;
		return 0;
	}
	do {
		if (m->n == ROTA_MSG_LIST_MAX)
			return rota_errorf(in->err, -EPROTO,
					   "rows: not a list");
		if (m->n == cap) {
			cap = cap ? 2 * cap : 256;
			m->rows = rota_xreallocarray(m->rows, cap + 1,
						     sizeof(*m->rows));
		}
		m->rows[m->n] = (struct rota_prio_row){ 0 };
		if (row_unpack(in, &m->rows[m->n++]) < 0)
			return -EPROTO;
		t = rota_jscan_next(&in->s);
	} while (t == ROTA_JT_COMMA);
	return t == ROTA_JT_RBRACK ? 0 : msg_rows_bad(in, "rows: expected ']'");
}

static const char *const head_keys[] = {
	"plugin", "describe", "rows", "rates_all", "rated_at", "now",
};

static int head_unpack(struct msg_rows_in *in, struct rota_msg_prio *m)
{
	unsigned seen = 0;
	enum rota_jtok t;
	int64_t v;
	int rc, k;

	if (msg_rows_expect(in, ROTA_JT_LBRACE, "expected '{'") < 0)
		return -EPROTO;
	do {
		k = key_of(in, head_keys,
			   sizeof(head_keys) / sizeof(*head_keys), &seen,
			   "priorities");
		if (k < 0)
			return k;
		switch (k) {
		case 0:
			rc = name_str(in, ROTA_MSG_NAME_MAX, &m->plugin,
				      "plugin");
			break;
		case 1:
			rc = name_str(in, ROTA_MSG_PATH_MAX, &m->describe,
				      "describe");
			break;
		case 2: rc = rows_unpack(in, m); break;
		case 3:
			t = rota_jscan_next(&in->s);
			m->rates_all = t == ROTA_JT_TRUE;
			rc = t == ROTA_JT_TRUE || t == ROTA_JT_FALSE
				     ? 0
				     : msg_rows_bad(in, "rates_all");
			break;
		default:
			rc = msg_rows_num(in, 0, INT64_MAX, &v,
					  k == 4 ? "rated_at" : "now");
			*(k == 4 ? &m->rated_at : &m->now) = v;
			break;
		}
		if (rc < 0)
			return rc;
	} while ((rc = more_keys(in)) == 1);
	if (rc == 0 && (seen & 7) != 7)
		rc = rota_errorf(
			in->err, -EPROTO,
			"priorities: plugin, describe or rows missing");
	if (rc == 0 && rota_jscan_next(&in->s) != ROTA_JT_END)
		rc = msg_rows_bad(in, "trailing bytes");
	return rc;
}

int rota_msg_prio_decode(const char *buf, size_t len, struct rota_msg_prio *m,
			 struct rota_error *err)
{
	struct msg_rows_in in = { .err = err, .label = "priorities" };
	int rc;

	*m = (struct rota_msg_prio){ .arena = rota_xmalloc(len + 8) };
	rota_jscan_init(&in.s, buf, len, m->arena, len + 8);
	rc = head_unpack(&in, m);
	if (rc < 0)
		rota_msg_prio_clear(m);
	return rc;
}

void rota_msg_prio_clear(struct rota_msg_prio *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->rows[i].factors);
	free(m->rows);
	free(m->arena);
	*m = (struct rota_msg_prio){ 0 };
}
