// SPDX-License-Identifier: MIT
/*
 * prio_walk: a whole-queue rota prio while the queue changes under it,
 * for t0069-stream.  One process asks for the listing (written in slices,
 * ctld/stream.c) and prints its rows' ids, one a line; meanwhile another,
 * over one connection (a session: each request costs microseconds, not a
 * munge credential), cancels the jobs named on its input, one at a time,
 * and submits a held job after each, until the listing has come back.
 * It says on stderr how many of each it got in while it waited.
 *
 *   prio_walk ADDR:PORT < IDS-TO-CANCEL > LISTED-IDS
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

static int call(struct rota_client *c, uint16_t type, const char *body,
		size_t len, struct rota_reply *r)
{
	struct rota_error err;
	int rc = rota_client_call(c, type, body, len, r, &err);

	if (rc < 0)
		fprintf(stderr, "prio_walk: %s\n", err.text);
	return rc;
}

/* The listing: every pending job's id, in the order the reply gives. */
static int listing(const char *host, unsigned port)
{
	static const char all[] = "{\"job_ids\":[]}";
	struct rota_client *c;
	struct rota_msg_prio m;
	struct rota_error err;
	struct rota_reply r;
	int rc = rota_client_connect(host, port, 0, 60000, &c, &err);

	if (rc < 0) {
		fprintf(stderr, "prio_walk: %s\n", err.text);
		return 1;
	}
	rc = call(c, ROTA_MSG_PRIO, all, strlen(all), &r);
	rota_client_destroy(c);
	if (rc < 0)
		return 1;
	rc = rota_msg_prio_decode(r.body, r.len, &m, &err);
	rota_reply_clear(&r);
	if (rc < 0) {
		fprintf(stderr, "prio_walk: %s\n", err.text);
		return 1;
	}
	for (size_t i = 0; i < m.n; i++)
		printf("%u\n", m.rows[i].id);
	rota_msg_prio_clear(&m);
	return fflush(stdout) != 0;
}

/* Cancel one job and submit a held one; false once something failed. */
static bool change(struct rota_client *c, unsigned long id, const char *sub,
		   size_t sublen)
{
	uint32_t one = (uint32_t)id;
	struct rota_msg_job_ids m = { .job_ids = &one, .n = 1 };
	struct rota_reply r;
	size_t len;
	char *body = rota_msg_job_ids_encode(&m, &len);
	int rc = call(c, ROTA_MSG_CANCEL, body, len, &r);

	free(body);
	if (rc < 0)
		return false;
	rota_reply_clear(&r);
	if (call(c, ROTA_MSG_SUBMIT, sub, sublen, &r) < 0)
		return false;
	rota_reply_clear(&r);
	return true;
}

int main(int argc, char **argv)
{
	char host[256], cwd[PATH_MAX];
	struct rota_job_desc d = {
		.name = "walk",
		.script = "#!/bin/sh\ntrue\n",
		.workdir = getcwd(cwd, sizeof(cwd)) ? cwd : "/",
		.output = "/dev/null",
		.ntasks = 1,
		.cpus_per_task = 1,
		.hold = true,
	};
	struct rota_client *c;
	struct rota_error err;
	struct rota_reply r;
	unsigned long id;
	pid_t reaped;
	unsigned port;
	size_t sublen, done = 0;
	char *sub;
	int status = 1;
	pid_t child;

	if (argc != 2 || rota_net_split(argv[1], host, sizeof(host), &port)) {
		fprintf(stderr, "usage: prio_walk ADDR:PORT < IDS > LISTED\n");
		return 2;
	}
	/* the session opened first, so that changes start with the listing */
	if (rota_client_connect(host, port, 0, 60000, &c, &err) < 0) {
		fprintf(stderr, "prio_walk: %s\n", err.text);
		return 1;
	}
	if (call(c, ROTA_MSG_PING, "{}", 2, &r) < 0)
		return 1;
	rota_reply_clear(&r);
	fflush(stdout);
	child = fork();
	if (child == 0)
		_exit(listing(host, port));
	sub = rota_msg_submit_encode(&d, &sublen);
	while ((reaped = waitpid(child, &status, WNOHANG)) == 0 &&
	       scanf("%lu", &id) == 1 && change(c, id, sub, sublen))
		done++;
	if (!reaped && waitpid(child, &status, 0) < 0)
		status = 1;
	fprintf(stderr, "prio_walk: %zu cancels and submits while listing\n",
		done);
	free(sub);
	rota_client_destroy(c);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
