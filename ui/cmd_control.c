// SPDX-License-Identifier: MIT
/*
 * What rota hold, release, nice, update and requeue share: send one
 * control request and print the controller's line for each job it
 * refused.  The lines are the controller's, so that every client (these
 * commands, rota top) says the same thing.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/proto.h"
#include "common/taskset.h"
#include "common/xalloc.h"
#include "ui/cmd.h"

int cmd_control(const char *name, uint16_t type,
		const struct rota_msg_control *m)
{
	struct rota_msg_text_list out;
	struct rota_reply reply;
	struct rota_error err;
	size_t len;
	char *body = rota_msg_control_encode(m, &len);
	int rc = cmd_call(name, type, body, len, &reply);

	free(body);
	if (rc < 0)
		return 1;
	rc = rota_msg_text_list_decode(reply.body, reply.len, &out, &err);
	rota_reply_clear(&reply);
	if (rc < 0) {
		cmd_error(name, "bad reply: %s", err.text);
		return 1;
	}
	for (size_t i = 0; i < out.n; i++)
		cmd_error(name, "%s", out.lines[i]);
	rc = out.n ? 1 : 0;
	rota_msg_text_list_clear(&out);
	return rc;
}

/* "ID", "ID_TASK" or "ID_[TASKS]": the id, the tasks ("" for none). */
static int parse_spec(const char *name, const char *text, uint32_t *id,
		      char **tasks)
{
	const char *us = strchr(text, '_');
	struct rota_taskset ts;
	struct rota_error err;
	char *head, *t;
	size_t n;
	int rc;

	*tasks = NULL;
	if (!us)
		return cmd_parse_job_id(name, text, id);
	head = rota_xstrndup(text, (size_t)(us - text));
	rc = cmd_parse_job_id(name, head, id);
	free(head);
	if (rc < 0)
		return rc;
	t = rota_xstrdup(us + 1);
	n = strlen(t);
	if (n >= 2 && t[0] == '[' && t[n - 1] == ']') {
		memmove(t, t + 1, n - 2);
		t[n - 2] = '\0';
	}
	if (rota_taskset_parse(t, UINT32_MAX, &ts, NULL, &err) < 0) {
		cmd_error(name, "'%s': array tasks: %s", text, err.text);
		free(t);
		return -1;
	}
	rota_taskset_fini(&ts);
	*tasks = t;
	return 0;
}

int cmd_parse_job_ids(const char *name, int argc, char **argv,
		      struct rota_msg_control *m)
{
	bool any = false;

	m->job_ids = rota_xcalloc((size_t)argc + 1, sizeof(uint32_t));
	m->tasks = rota_xcalloc((size_t)argc + 1, sizeof(char *));
	m->n = 0;
	for (int i = 0; i < argc; i++) {
		char *tasks;

		if (parse_spec(name, argv[i], &m->job_ids[m->n], &tasks) < 0) {
			rota_msg_control_clear(m);
			return -1;
		}
		any |= tasks != NULL;
		m->tasks[m->n++] = tasks ? tasks : rota_xstrdup("");
	}
	if (!any) {
		/* plain ids: the body stays as it always was */
		for (size_t k = 0; k < m->n; k++)
			free(m->tasks[k]);
		free(m->tasks);
		m->tasks = NULL;
	}
	return 0;
}

bool cmd_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return true;
	}
	return false;
}

void cmd_print_nodes_json(const struct rota_node_info *nodes, size_t n)
{
	size_t len;
	char *text = rota_msg_node_list_encode(nodes, n, &len);

	printf("%s\n", text);
	free(text);
}
