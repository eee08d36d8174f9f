// SPDX-License-Identifier: MIT
/*
 * The control codec (see msg.h): one body for HOLD, RELEASE, NICE, UPDATE
 * and REQUEUE, since each names jobs and at most one or two knobs.  The
 * message type says what to do; the body says to which jobs and how.  A
 * field is written only where it carries something, so every body has one
 * encoding and round-trips exactly.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/msg_internal.h"
#include "common/xalloc.h"

char *rota_msg_control_encode(const struct rota_msg_control *m, size_t *len)
{
	json_t *o = json_pack("{s:o}", "jobs",
			      msg_u32v_pack(m->job_ids, m->n));

	if (m->operator_hold)
		json_object_set_new(o, "operator", json_true());
	if (m->has_nice)
		json_object_set_new(o, "nice", json_integer(m->nice));
	if (m->relative)
		json_object_set_new(o, "relative", json_true());
	if (m->nset) {
		json_t *set = json_array();

		for (size_t i = 0; i < m->nset; i++)
			json_array_append_new(set,
					      json_pack("[s, s]",
							m->set[i].key,
							m->set[i].value));
		json_object_set_new(o, "set", set);
	}
	return msg_dump(o, len);
}

static int set_unpack(json_t *arr, struct rota_msg_control *m,
		      struct rota_error *err)
{
	size_t n = json_array_size(arr);

	if (!json_is_array(arr))
		return rota_errorf(err, -EPROTO, "set: not an array");
	if (n > ROTA_MSG_CONTROL_SET_MAX)
		return rota_errorf(err, -EPROTO, "set: more than %d pairs",
				   ROTA_MSG_CONTROL_SET_MAX);
	m->set = rota_xcalloc(n + 1, sizeof(*m->set));
	for (size_t i = 0; i < n; i++) {
		const char *k = NULL;
		const char *v = NULL;
		int rc = msg_unpack(json_array_get(arr, i), err, "[s, s !]",
				    &k, &v);

		if (rc == 0 && !*k)
			rc = rota_errorf(err, -EPROTO, "set: empty key");
		if (rc == 0)
			rc = msg_str(k, ROTA_MSG_CONTROL_KEY_MAX, "set key",
				     &m->set[i].key, err);
		if (rc == 0)
			rc = msg_str(v, ROTA_MSG_NAME_MAX, "set value",
				     &m->set[i].value, err);
		m->nset = i + 1;
		if (rc < 0)
			return rc;
	}
	return 0;
}

int rota_msg_control_decode(const char *buf, size_t len,
			    struct rota_msg_control *m, struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	json_t *jobs = NULL;
	json_t *nice = NULL;
	json_t *set = NULL;
	int op = 0;
	int rel = 0;
	int rc;

	*m = (struct rota_msg_control){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:o, s?b, s?o, s?b, s?o !}", "jobs",
			&jobs, "operator", &op, "nice", &nice, "relative",
			&rel, "set", &set);
	if (rc == 0)
		rc = msg_u32v(jobs, 65536, "jobs", &m->job_ids, &m->n, err);
	if (rc == 0 && nice) {
		if (!json_is_integer(nice))
			rc = rota_errorf(err, -EPROTO, "nice: not an integer");
		else
			rc = msg_range(json_integer_value(nice),
				       -ROTA_MSG_NICE_LIMIT,
				       ROTA_MSG_NICE_LIMIT, "nice", err);
		m->has_nice = true;
		m->nice = rc == 0 ? (int32_t)json_integer_value(nice) : 0;
	}
	if (rc == 0 && set)
		rc = set_unpack(set, m, err);
	m->operator_hold = op;
	m->relative = rel;
	json_decref(root);
	if (rc < 0)
		rota_msg_control_clear(m);
	return rc;
}

void rota_msg_control_clear(struct rota_msg_control *m)
{
	for (size_t i = 0; i < m->nset; i++) {
		free(m->set[i].key);
		free(m->set[i].value);
	}
	free(m->set);
	free(m->job_ids);
	*m = (struct rota_msg_control){ 0 };
}
