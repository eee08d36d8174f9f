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
	if (m->nset)
		json_object_set_new(o, "set", msg_kv_pack(m->set, m->nset));
	if (m->tasks)
		json_object_set_new(o, "tasks", msg_strv_pack(m->tasks));
	return msg_dump(o, len);
}

int rota_msg_control_decode(const char *buf, size_t len,
			    struct rota_msg_control *m, struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	json_t *jobs = NULL;
	json_t *nice = NULL;
	json_t *set = NULL;
	json_t *tasks = NULL;
	int op = 0;
	int rel = 0;
	int rc;

	*m = (struct rota_msg_control){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:o, s?b, s?o, s?b, s?o, s?o !}",
			"jobs", &jobs, "operator", &op, "nice", &nice,
			"relative", &rel, "set", &set, "tasks", &tasks);
	if (rc == 0)
		rc = msg_u32v(jobs, 65536, "jobs", &m->job_ids, &m->n, err);
	if (rc == 0)
		rc = msg_tasks_unpack(tasks, m->n, &m->tasks, err);
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
		rc = msg_kv_unpack(set, ROTA_MSG_CONTROL_SET_MAX,
				   ROTA_MSG_NAME_MAX, &m->set, &m->nset, err);
	m->operator_hold = op;
	m->relative = rel;
	json_decref(root);
	if (rc < 0)
		rota_msg_control_clear(m);
	return rc;
}

void rota_msg_control_clear(struct rota_msg_control *m)
{
	msg_kv_free(m->set, m->nset);
	msg_strv_free(m->tasks);
	free(m->job_ids);
	*m = (struct rota_msg_control){ 0 };
}
