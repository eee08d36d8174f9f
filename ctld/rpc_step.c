// SPDX-License-Identifier: MIT
/*
 * STEP_CREATE and STEP_COMPLETE: `rota run` inside a job (step.h).  Not
 * journaled: a step is the work of one client, and ends with it.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/msg.h"
#include "common/proto.h"
#include "ctld/core/core.h"
#include "ctld/ctld.h"
#include "ctld/step.h"

void rpc_step_create(struct peer *p, const struct rota_frame *f)
{
	struct rota_msg_step_create req;
	struct rota_msg_step_create_reply reply;
	struct rota_error err;
	size_t len;
	char *body;
	int rc;

	if (rota_msg_step_create_decode(f->body, f->body_len, &req, &err) <
	    0) {
		peer_send_error(p, -EPROTO, err.text);
		return;
	}
	rc = steps_create(p->ctld, p->uid, &req, &reply, &err);
	rota_msg_step_create_clear(&req);
	if (rc < 0) {
		if (rc == -EPERM)
			p->ctld->stats.denied++;
		peer_send_error(p, rc, err.text);
		return;
	}
	body = rota_msg_step_reply_encode(&reply, &len);
	peer_send(p, ROTA_MSG_STEP_CREATE_REPLY, body, len);
	free(body);
	rota_msg_step_reply_clear(&reply);
}

void rpc_step_complete(struct peer *p, const struct rota_frame *f)
{
	struct rota_msg_step_complete m;
	struct rota_error err;
	int rc;

	if (rota_msg_step_complete_decode(f->body, f->body_len, &m, &err) <
	    0) {
		peer_send_error(p, -EPROTO, err.text);
		return;
	}
	bool end_job = m.end_job;

	rc = steps_complete(p->ctld, p->uid, &m, &err);
	if (rc == 0 && end_job)
		rc = core_signal(p->ctld->core, m.job_id, p->uid,
				 ctld_is_operator(p->ctld, p->uid),
				 m.exit_code ? SIGUSR1 : SIGTERM, &err);
	rota_msg_step_complete_clear(&m);
	if (rc == 0 && end_job)
		ctld_run_actions(p->ctld);
	if (rc < 0) {
		peer_send_error(p, rc, err.text);
		return;
	}
	peer_send(p, ROTA_MSG_OK, "{}", 2);
}

void rpc_step_list(struct peer *p, const struct rota_frame *f)
{
	static const char *const keys[] = { "job_id" };
	static const int64_t max[] = { UINT32_MAX };
	struct rota_step_info *steps;
	struct rota_error err;
	int64_t id;
	size_t n, len;
	char *body;

	if (rota_msg_ints_decode(f->body, f->body_len, keys, max, &id, 1,
				 &err) < 0) {
		peer_send_error(p, -EPROTO, err.text);
		return;
	}
	n = steps_list(p->ctld, (uint32_t)id, &steps);
	body = rota_msg_step_list_encode(steps, n, ctld_now(p->ctld), &len);
	peer_send(p, ROTA_MSG_STEP_LIST_REPLY, body, len);
	free(body);
	free(steps);
}
