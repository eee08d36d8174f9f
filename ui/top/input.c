// SPDX-License-Identifier: MIT
/*
 * rota top's keys and the controller's answers.  Keys change the model
 * or queue a request to the worker; answers (a new snapshot, an action's
 * result) change the model and the status line.  Nothing here waits:
 * a request's answer arrives in a later pass of the loop.
 */
#include "config.h"

#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/proto.h"
#include "ui/top/top.h"

static void send_req(struct top *t, uint16_t type, const char *body,
		     size_t len)
{
	if (top_worker_send(t->worker, type, body, len) < 0)
		snprintf(t->status, sizeof(t->status),
			 "the request could not be sent");
}

/* The selected job's priority terms, if it is pending and none is out. */
static void request_prio(struct top *t)
{
	const struct rota_top_row *r = top_model_selected(&t->model);
	struct rota_msg_job_ids ids = { 0 };
	uint32_t id;
	size_t len;
	char *body;

	if (!r || r->state != ROTA_JOB_PENDING || t->prio_asked)
		return;
	id = r->id;
	ids.job_ids = &id;
	ids.n = 1;
	body = rota_msg_job_ids_encode(&ids, &len);
	send_req(t, ROTA_MSG_PRIO, body, len);
	free(body);
	t->prio_asked = true;
}

void top_request_refresh(struct top *t)
{
	/* what we saw: the controller sends only what changed since */
	struct rota_msg_top_req req = {
		.has_since = true,
		.since = top_model_since(&t->model),
	};
	size_t len;
	char *body;

	if (t->refreshing)
		return;
	body = rota_msg_top_req_encode(&req, &len);
	send_req(t, ROTA_MSG_TOP_ROWS, body, len);
	free(body);
	send_req(t, ROTA_MSG_NODE_LIST, "{}", 2);
	send_req(t, ROTA_MSG_DIAG, "{}", 2);
	t->refreshing = 3;
	request_prio(t);
}

static void act(struct top *t, uint16_t type, struct rota_msg_control *m)
{
	size_t len;
	char *body;

	m->job_ids = &t->action_job;
	m->n = 1;
	body = rota_msg_control_encode(m, &len);
	send_req(t, type, body, len);
	free(body);
}

static void act_cancel(struct top *t)
{
	struct rota_msg_job_ids ids = { .job_ids = &t->action_job, .n = 1 };
	size_t len;
	char *body = rota_msg_job_ids_encode(&ids, &len);

	send_req(t, ROTA_MSG_CANCEL, body, len);
	free(body);
}

static void end_prompt(struct top *t, bool apply)
{
	struct rota_error err;
	char text[sizeof(t->input) + 1];

	memcpy(text, t->input, t->input_len);
	text[t->input_len] = '\0';
	if (apply && t->mode == TOP_PROMPT_FILTER) {
		if (top_model_set_filter(&t->model, text, &err) < 0)
			snprintf(t->status, sizeof(t->status), "filter: %s",
				 err.text);
		else
			snprintf(t->status, sizeof(t->status), "filter: %s",
				 text[0] ? text : "(none)");
	} else if (apply && t->mode == TOP_PROMPT_NICE) {
		char *end;
		long v = strtol(text, &end, 10);

		if (!text[0] || *end || v < -ROTA_MSG_NICE_LIMIT ||
		    v > ROTA_MSG_NICE_LIMIT)
			snprintf(t->status, sizeof(t->status),
				 "'%s' is not a nice value ([+|-]N)", text);
		else
			act(t, ROTA_MSG_NICE,
			    &(struct rota_msg_control){
				    .has_nice = true, .nice = (int32_t)v,
				    .relative = text[0] == '+' ||
						text[0] == '-' });
	}
	t->mode = TOP_NORMAL;
	t->input_len = 0;
}

static void prompt_key(struct top *t, int key)
{
	if (key == '\n' || key == '\r' || key == KEY_ENTER)
		end_prompt(t, true);
	else if (key == 27)
		end_prompt(t, false);
	else if ((key == KEY_BACKSPACE || key == 127 || key == 8) &&
		 t->input_len)
		t->input_len--;
	else if (key >= 0x20 && key < 0x7f &&
		 t->input_len < sizeof(t->input) - 1)
		t->input[t->input_len++] = (char)key;
}

static bool job_key(struct top *t, int key)
{
	const struct rota_top_row *r = top_model_selected(&t->model);

	if (key != 'h' && key != 'r' && key != 'n' && key != 'c')
		return false;
	if (!r) {
		snprintf(t->status, sizeof(t->status), "no job selected");
		return true;
	}
	t->action_job = r->id;
	t->status[0] = '\0';
	if (key == 'h')
		act(t, ROTA_MSG_HOLD, &(struct rota_msg_control){ 0 });
	else if (key == 'r')
		act(t, ROTA_MSG_RELEASE, &(struct rota_msg_control){ 0 });
	else if (key == 'n')
		t->mode = TOP_PROMPT_NICE;
	else
		t->mode = TOP_CONFIRM_CANCEL;
	return true;
}

static const struct {
	int key;
	enum top_sort sort;
} sort_keys[] = {
	{ 'P', TOP_SORT_PRIORITY }, { 'U', TOP_SORT_USER },
	{ 'Q', TOP_SORT_QUEUE },    { 'W', TOP_SORT_WAIT },
	{ 'I', TOP_SORT_ID },
};

static void normal_key(struct top *t, int key)
{
	if (top_view_jobs.key(t, key)) {
		t->prio_error[0] = '\0';
		request_prio(t);
		return;
	}
	if (job_key(t, key))
		return;
	for (size_t i = 0; i < sizeof(sort_keys) / sizeof(*sort_keys); i++) {
		if (key == sort_keys[i].key) {
			top_model_set_sort(&t->model, sort_keys[i].sort);
			return;
		}
	}
	switch (key) {
	case 'q': t->quit = true; break;
	case '?': t->mode = TOP_HELP; break;
	case '/': t->mode = TOP_PROMPT_FILTER; t->input_len = 0; break;
	case 'u': top_model_toggle_mine(&t->model); break;
	case 't': top_model_toggle_steps(&t->model); break;
	case 's':
		top_model_set_sort(&t->model,
				   (t->model.sort + 1) % TOP_SORT_COUNT);
		break;
	case 12: clearok(curscr, TRUE); break; /* Ctrl-L */
	default: break;
	}
}

void top_key(struct top *t, int key)
{
	t->dirty = true;
	switch (t->mode) {
	case TOP_HELP: t->mode = TOP_NORMAL; break;
	case TOP_CONFIRM_CANCEL:
		if (key == 'y' || key == 'Y')
			act_cancel(t);
		else
			snprintf(t->status, sizeof(t->status),
				 "job %u: not cancelled", t->action_job);
		t->mode = TOP_NORMAL;
		break;
	case TOP_PROMPT_FILTER:
	case TOP_PROMPT_NICE: prompt_key(t, key); break;
	default: normal_key(t, key); break;
	}
}

/* ---- answers ---------------------------------------------------------- */

static const char *done_word(uint16_t req)
{
	switch (req) {
	case ROTA_MSG_HOLD: return "held";
	case ROTA_MSG_RELEASE: return "released";
	case ROTA_MSG_NICE: return "niced";
	case ROTA_MSG_CANCEL: return "cancelled";
	default: return "done";
	}
}

static void action_done(struct top *t, uint16_t req, const char *body,
			size_t len)
{
	struct rota_msg_text_list out;
	struct rota_error err;

	if (rota_msg_text_list_decode(body, len, &out, &err) < 0) {
		snprintf(t->status, sizeof(t->status), "bad reply: %s",
			 err.text);
		return;
	}
	if (out.n)
		snprintf(t->status, sizeof(t->status), "%s", out.lines[0]);
	else
		snprintf(t->status, sizeof(t->status), "job %u: %s",
			 t->action_job, done_word(req));
	rota_msg_text_list_clear(&out);
	t->prio_job = 0;
	top_request_refresh(t);
}

static void snapshot(struct top *t, uint16_t req, const char *body,
		     size_t len)
{
	struct rota_msg_top_rows rows;
	struct rota_msg_node_list nodes;
	struct rota_msg_counters c;
	struct rota_error err = { "" };
	int rc = -EPROTO;

	if (req == ROTA_MSG_TOP_ROWS) {
		rc = rota_msg_top_rows_decode(body, len, &rows, &err);
		/* a delta from elsewhere: the next refresh asks for all */
		if (rc == 0 && top_model_apply_jobs(&t->model, &rows) < 0)
			return;
		if (rc == 0 && strncmp(t->status, "refresh:", 8) == 0)
			t->status[0] = '\0';
	} else if (req == ROTA_MSG_NODE_LIST) {
		rc = rota_msg_node_list_decode(body, len, &nodes, &err);
		if (rc == 0)
			top_model_set_nodes(&t->model, &nodes);
	} else if (req == ROTA_MSG_DIAG) {
		rc = rota_msg_counters_decode(body, len, &c, &err);
		if (rc == 0) {
			top_model_set_counters(&t->model, &c);
			rota_msg_counters_clear(&c);
		}
	}
	if (rc < 0)
		snprintf(t->status, sizeof(t->status), "bad reply: %s",
			 err.text);
}

static void prio_done(struct top *t, int rc, const char *body, size_t len)
{
	struct rota_error err;

	t->prio_asked = false;
	rota_msg_prio_clear(&t->prio);
	t->prio_job = 0;
	if (rc < 0) {
		snprintf(t->prio_error, sizeof(t->prio_error),
			 "priority terms: %.*s", (int)len, body);
		return;
	}
	if (rota_msg_prio_decode(body, len, &t->prio, &err) < 0 ||
	    t->prio.n != 1) {
		rota_msg_prio_clear(&t->prio);
		return;
	}
	t->prio_error[0] = '\0';
	t->prio_job = t->prio.rows[0].id;
	/* the selection moved on meanwhile: ask about the new one */
	if (top_model_selected(&t->model) &&
	    top_model_selected(&t->model)->id != t->prio_job)
		request_prio(t);
}

void top_reply(struct top *t, uint16_t req, uint16_t type, int rc,
	       const char *body, size_t len)
{
	bool refresh = req == ROTA_MSG_TOP_ROWS || req == ROTA_MSG_NODE_LIST ||
		       req == ROTA_MSG_DIAG;

	t->dirty = true;
	if (refresh && t->refreshing)
		t->refreshing--;
	if (req == ROTA_MSG_PRIO) {
		prio_done(t, rc, body, len);
		return;
	}
	if (rc < 0) {
		snprintf(t->status, sizeof(t->status), "%s%.*s",
			 refresh ? "refresh: " : "", (int)len, body);
		return;
	}
	if (refresh)
		snapshot(t, req, body, len);
	else
		action_done(t, req, body, len);
	(void)type;
}
