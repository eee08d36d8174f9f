// SPDX-License-Identifier: MIT
/* rota cancel: end jobs, pending or running. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota cancel JOB...\n"
	"\n"
	"Cancel jobs.  A pending job ends at once; a running one gets SIGTERM\n"
	"on its whole process group, then SIGKILL after KillWait, and ends\n"
	"as CANCELLED.  Users cancel their own jobs; operators any.\n"
	"\n"
	"Exit status: 0 all cancelled, 1 some could not be (each said on\n"
	"stderr), 2 bad usage.\n";

static int cancel_run(int argc, char **argv)
{
	struct rota_msg_job_ids m = { 0 };
	struct rota_msg_text_list out;
	struct rota_reply reply;
	struct rota_error err;
	size_t len;
	char *body;
	int rc;

	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 ||
			  strcmp(argv[1], "--help") == 0))
		return cmd_print_help(&cmd_cancel);
	if (argc < 2) {
		fputs(help, stderr);
		return 2;
	}
	m.job_ids = rota_xcalloc((size_t)argc, sizeof(uint32_t));
	for (int i = 1; i < argc; i++) {
		if (cmd_parse_job_id("cancel", argv[i], &m.job_ids[m.n++]) < 0) {
			free(m.job_ids);
			return 2;
		}
	}
	body = rota_msg_job_ids_encode(&m, &len);
	free(m.job_ids);
	rc = cmd_call("cancel", ROTA_MSG_CANCEL, body, len, &reply);
	free(body);
	if (rc < 0)
		return 1;
	rc = rota_msg_text_list_decode(reply.body, reply.len, &out, &err);
	rota_reply_clear(&reply);
	if (rc < 0) {
		cmd_error("cancel", "bad reply: %s", err.text);
		return 1;
	}
	for (size_t i = 0; i < out.n; i++)
		cmd_error("cancel", "%s", out.lines[i]);
	rc = out.n ? 1 : 0;
	rota_msg_text_list_clear(&out);
	return rc;
}

const struct cmd cmd_cancel = {
	.name = "cancel",
	.summary = "cancel jobs",
	.help = help,
	.run = cancel_run,
};
