// SPDX-License-Identifier: MIT
/*
 * held_fill: queue N held jobs fast, for bench/held.  Each is a real job
 * of its own (not an array, whose held tasks would be one record), sent
 * by CLIENTS processes at once, each over one connection while the
 * controller keeps it open.  A shell loop of `rota submit --hold` would
 * take minutes for 100,000 jobs at the rate being measured.
 *
 *   held_fill ADDR:PORT N CLIENTS
 *
 * Exit 1 if any submit failed (the first failure's text on stderr).
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/client.h"
#include "common/msg.h"
#include "common/net.h"
#include "common/proto.h"

static int submit(const char *host, unsigned port, struct rota_client **c,
		  const char *body, size_t len, struct rota_error *err)
{
	struct rota_reply r;
	int rc;

	for (int attempt = 0; attempt < 2; attempt++) {
		if (!*c) {
			rc = rota_client_connect(host, port, 0, 60000, c, err);
			if (rc < 0)
				return rc;
		}
		rc = rota_client_call(*c, ROTA_MSG_SUBMIT, body, len, &r, err);
		if (rc == 0) {
			rota_reply_clear(&r);
			return 0;
		}
		/* the controller may close a connection: open another */
		rota_client_destroy(*c);
		*c = NULL;
	}
	return rc;
}

static int client(const char *host, unsigned port, long n)
{
	char cwd[PATH_MAX];
	struct rota_job_desc d = {
		.name = "held",
		.script = "#!/bin/sh\ntrue\n",
		.workdir = getcwd(cwd, sizeof(cwd)) ? cwd : "/",
		.output = "/dev/null",
		.ntasks = 1,
		.cpus_per_task = 1,
		.hold = true,
	};
	struct rota_client *c = NULL;
	struct rota_error err;
	size_t len;
	char *body = rota_msg_submit_encode(&d, &len);
	int rc = 0;

	for (long i = 0; i < n && rc == 0; i++)
		rc = submit(host, port, &c, body, len, &err);
	if (rc < 0)
		fprintf(stderr, "held_fill: %s\n", err.text);
	if (c)
		rota_client_destroy(c);
	free(body);
	return rc < 0;
}

int main(int argc, char **argv)
{
	char host[256];
	unsigned port;
	long n;
	int clients, status, failed = 0;

	if (argc != 4 ||
	    rota_net_split(argv[1], host, sizeof(host), &port) < 0) {
		fprintf(stderr, "usage: held_fill ADDR:PORT N CLIENTS\n");
		return 2;
	}
	n = atol(argv[2]);
	clients = atoi(argv[3]);
	if (clients < 1)
		clients = 1;
	for (int i = 0; i < clients; i++) {
		long share = n / clients + (i < n % clients);

		if (fork() == 0)
			_exit(client(host, port, share));
	}
	while (wait(&status) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	return failed;
}
