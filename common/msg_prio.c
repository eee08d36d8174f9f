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
			      msg_rows_or_empty(r->qos), r->array,
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

char *rota_msg_prio_encode(const struct rota_msg_prio *m, size_t *len)
{
	struct rota_msg_prio_writer *w = rota_msg_prio_begin(m);

	for (size_t i = 0; i < m->n; i++)
		rota_msg_prio_add(w, &m->rows[i]);
	return rota_msg_prio_finish(w, len);
}

static int factor_unpack(json_t *a, struct rota_msg_prio_factor *f,
			 struct rota_error *err)
{
	const char *name = NULL;
	json_t *v[4] = { NULL };
	double *dst[4] = { &f->raw, &f->norm, &f->weight, &f->value };
	int rc = msg_unpack(a, err, "[s, o, o, o, o !]", &name, &v[0], &v[1],
			    &v[2], &v[3]);

	for (int i = 0; rc == 0 && i < 4; i++)
		rc = msg_real(v[i], "factor", dst[i], err);
	if (rc == 0)
		rc = msg_str(name, 64, "factor", &f->name, err);
	return rc;
}

static int row_unpack(json_t *o, struct rota_prio_row *r,
		      struct rota_error *err)
{
	const char *user, *account, *queue, *qos, *array = NULL, *state = NULL;
	const char *dept = NULL;
	json_t *prio = NULL, *f = NULL;
	json_int_t id, tasks = 0;
	int rc = msg_unpack(o, err,
			    "{s:I, s:s, s:s, s:s, s:s, s:o, s:o, s?s, s?I, "
			    "s?s, s?s !}",
			    "id", &id, "user", &user, "account", &account,
			    "queue", &queue, "qos", &qos, "priority", &prio,
			    "factors", &f, "array", &array, "tasks", &tasks,
			    "state", &state, "department", &dept);

	if (rc == 0)
		rc = msg_range(id, 1, UINT32_MAX, "id", err);
	if (rc == 0)
		rc = state_unpack(state, &r->state, err);
	if (rc == 0)
		rc = msg_range(tasks, 0, UINT32_MAX, "tasks", err);
	if (rc == 0)
		rc = msg_str(array, ROTA_MSG_PATH_MAX, "array", &r->array, err);
	r->tasks = (uint32_t)tasks;
	if (rc == 0)
		rc = msg_real(prio, "priority", &r->priority, err);
	if (rc == 0 && (!json_is_array(f) ||
			json_array_size(f) > PRIO_FACTORS_MAX))
		rc = rota_errorf(err, -EPROTO, "factors: not a short list");
	if (rc == 0)
		rc = msg_str(user, ROTA_MSG_NAME_MAX, "user", &r->user, err);
	if (rc == 0)
		rc = msg_str(account, ROTA_MSG_NAME_MAX, "account",
			     &r->account, err);
	if (rc == 0)
		rc = msg_str(dept, ROTA_MSG_NAME_MAX, "department",
			     &r->department, err);
	if (rc == 0)
		rc = msg_str(queue, ROTA_MSG_NAME_MAX, "queue", &r->queue, err);
	if (rc == 0)
		rc = msg_str(qos, ROTA_MSG_NAME_MAX, "qos", &r->qos, err);
	if (rc == 0)
		r->factors = rota_xcalloc(json_array_size(f) + 1,
					  sizeof(*r->factors));
	for (size_t i = 0; rc == 0 && i < json_array_size(f); i++) {
		rc = factor_unpack(json_array_get(f, i), &r->factors[i], err);
		r->nfactors++;
	}
	r->id = (uint32_t)id;
	return rc;
}

int rota_msg_prio_decode(const char *buf, size_t len, struct rota_msg_prio *m,
			 struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	const char *plugin = NULL, *describe = NULL;
	json_t *rows = NULL;
	json_int_t rated_at = 0, now = 0;
	int rates_all = 0;
	int rc;

	*m = (struct rota_msg_prio){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:s, s:s, s:o, s?b, s?I, s?I !}",
			"plugin", &plugin, "describe", &describe, "rows", &rows,
			"rates_all", &rates_all, "rated_at", &rated_at, "now",
			&now);
	m->rates_all = rates_all;
	if (rc == 0)
		rc = msg_range(rated_at, 0, INT64_MAX, "rated_at", err);
	if (rc == 0)
		rc = msg_range(now, 0, INT64_MAX, "now", err);
	m->rated_at = rated_at;
	m->now = now;
	if (rc == 0 && (!json_is_array(rows) ||
			json_array_size(rows) > ROTA_MSG_LIST_MAX))
		rc = rota_errorf(err, -EPROTO, "rows: not a list");
	if (rc == 0)
		rc = msg_str(plugin, ROTA_MSG_NAME_MAX, "plugin", &m->plugin,
			     err);
	if (rc == 0)
		rc = msg_str(describe, ROTA_MSG_PATH_MAX, "describe",
			     &m->describe, err);
	if (rc == 0)
		m->rows = rota_xcalloc(json_array_size(rows) + 1,
				       sizeof(*m->rows));
	for (size_t i = 0; rc == 0 && i < json_array_size(rows); i++) {
		rc = row_unpack(json_array_get(rows, i), &m->rows[i], err);
		m->n++;
	}
	json_decref(root);
	if (rc < 0)
		rota_msg_prio_clear(m);
	return rc;
}

void rota_msg_prio_clear(struct rota_msg_prio *m)
{
	for (size_t i = 0; i < m->n; i++) {
		struct rota_prio_row *r = &m->rows[i];

		for (size_t k = 0; k < r->nfactors; k++)
			free(r->factors[k].name);
		free(r->factors);
		free(r->user);
		free(r->account);
		free(r->department);
		free(r->queue);
		free(r->qos);
		free(r->array);
	}
	free(m->rows);
	free(m->plugin);
	free(m->describe);
	*m = (struct rota_msg_prio){ 0 };
}
