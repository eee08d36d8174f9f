// SPDX-License-Identifier: MIT
/* The PRIO_REPLY codec: priorities and their terms (see msg.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/msg_internal.h"
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

static json_t *row_pack(const struct rota_prio_row *r)
{
	json_t *f = json_array();

	for (size_t i = 0; i < r->nfactors; i++) {
		const struct rota_msg_prio_factor *x = &r->factors[i];

		json_array_append_new(f, json_pack("[s, f, f, f, f]", x->name,
						   x->raw, x->norm, x->weight,
						   x->value));
	}
	json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:s, s:f, s:o, s:s}", "id",
			      (json_int_t)r->id, "user", r->user, "account",
			      r->account, "queue", r->queue, "qos", r->qos,
			      "priority", r->priority, "factors", f, "state",
			      state_name(r->state));

	if (r->array)
		json_object_set_new(o, "array", json_string(r->array));
	if (r->department)
		json_object_set_new(o, "department",
				    json_string(r->department));
	if (r->tasks > 1)
		json_object_set_new(o, "tasks", json_integer(r->tasks));
	return o;
}

char *rota_msg_prio_encode(const struct rota_msg_prio *m, size_t *len)
{
	json_t *rows = json_array();

	for (size_t i = 0; i < m->n; i++)
		json_array_append_new(rows, row_pack(&m->rows[i]));
	json_t *root = json_pack("{s:s, s:s, s:o}", "plugin", m->plugin,
				 "describe", m->describe, "rows", rows);

	if (m->rates_all)
		json_object_set_new(root, "rates_all", json_true());
	return msg_dump(root, len);
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
	int rates_all = 0;
	int rc;

	*m = (struct rota_msg_prio){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:s, s:s, s:o, s?b !}", "plugin", &plugin,
			"describe", &describe, "rows", &rows, "rates_all",
			&rates_all);
	m->rates_all = rates_all;
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
