// SPDX-License-Identifier: MIT
/*
 * Tests only: send one STEP_LAUNCH to a node daemon, as `rota run` would,
 * with a credential given on the command line (a real one replayed or
 * taken by another user, or a forged one), and print the answer:
 * "OK" or "ERROR <text>".  Usage: steplaunch ADDR PORT UID CRED CMD...
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/client.h"
#include "common/msg.h"
#include "common/proto.h"

int main(int argc, char **argv)
{
	struct rota_msg_step_launch m = { 0 };
	char *env[] = { "PATH=/usr/bin:/bin", NULL };
	struct rota_client *c;
	struct rota_reply reply;
	struct rota_error err;
	size_t len;
	char *body;
	int rc;

	if (argc < 6) {
		fprintf(stderr, "usage: steplaunch ADDR PORT UID CRED CMD...\n");
		return 2;
	}
	m.cred = argv[4];
	m.argv = argv + 5;
	m.env = env;
	m.cwd = "/";
	m.mpi = "none";
	if (rota_client_connect(argv[1], (unsigned)atoi(argv[2]),
				(uid_t)atoi(argv[3]), 5000, &c, &err) < 0) {
		printf("CONNECT %s\n", err.text);
		return 1;
	}
	body = rota_msg_step_launch_encode(&m, &len);
	rc = rota_client_call(c, ROTA_MSG_STEP_LAUNCH, body, len, &reply, &err);
	free(body);
	if (rc < 0) {
		printf("ERROR %s\n", err.text);
	} else {
		printf("%s\n", reply.type == ROTA_MSG_OK ? "OK" : "OTHER");
		rota_reply_clear(&reply);
	}
	rota_client_destroy(c);
	return rc < 0;
}
