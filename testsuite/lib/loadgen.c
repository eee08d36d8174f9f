// SPDX-License-Identifier: MIT
/*
 * loadgen: many clients at once against a controller, for the load test
 * and bench/load.  Each client is a process that, until the time is up,
 * submits a trivial job and, every fourth request, lists the queue; every
 * request's latency is measured.  Prints one line:
 *   requests N failed N p50_ms X p99_ms X max_ms X
 * and the first failure's text, if any.  Exit 1 if any request failed.
 * MODE "submit" sends submits only (bench/query fills its queue with it
 * and measures submit latency beside large reads); MAX, if given, stops
 * each client after that many requests.
 *
 *   loadgen ADDR:PORT CLIENTS SECONDS [mix|submit] [MAX]
 */
#include "config.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/client.h"
#include "common/msg.h"
#include "common/net.h"
#include "common/proto.h"

#define MAX_SAMPLES 200000

/* One result, written whole (under PIPE_BUF) by any of the clients. */
struct sample {
	float ms;	/* < 0: the request failed */
	char text[60];	/* why, when it failed */
};

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static bool submit_only;
static long max_requests; /* per client; 0: no limit */

static int one_request(const char *host, unsigned port, int n,
		       struct rota_error *err)
{
	char cwd[PATH_MAX];
	struct rota_job_desc d = {
		.name = "load",
		.script = "#!/bin/sh\ntrue\n",
		.workdir = getcwd(cwd, sizeof(cwd)) ? cwd : "/",
		.output = "/dev/null",
		.ntasks = 1,
		.cpus_per_task = 1,
	};
	struct rota_client *c;
	struct rota_reply r;
	size_t len;
	char *body;
	int rc = rota_client_connect(host, port, 0, 30000, &c, err);

	if (rc < 0)
		return rc;
	if (n % 4 == 3 && !submit_only) {
		rc = rota_client_call(c, ROTA_MSG_JOB_ROWS, "{}", 2, &r, err);
	} else {
		body = rota_msg_submit_encode(&d, &len);
		rc = rota_client_call(c, ROTA_MSG_SUBMIT, body, len, &r, err);
		free(body);
	}
	if (rc == 0)
		rota_reply_clear(&r);
	rota_client_destroy(c);
	return rc;
}

/* One client: a sample per request to 'fd'. */
static void client(const char *host, unsigned port, double until, int fd)
{
	struct rota_error err;
	int n = 0;

	while (now_ms() < until && (!max_requests || n < max_requests)) {
		double t0 = now_ms();
		int rc = one_request(host, port, n++, &err);
		struct sample s = { .ms = (float)(now_ms() - t0) };

		if (rc < 0) {
			s.ms = -1;
			snprintf(s.text, sizeof(s.text), "%.59s", err.text);
		}
		if (write(fd, &s, sizeof(s)) != (ssize_t)sizeof(s))
			break;
	}
	_exit(0);
}

static int cmp(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	char host[256], first[60] = "";
	float *v = calloc(MAX_SAMPLES, sizeof(float));
	size_t n = 0, failed = 0;
	unsigned port;
	int clients, seconds, fds[2];
	double until;
	struct sample s;

	if (argc < 4 || argc > 6 ||
	    rota_net_split(argv[1], host, sizeof(host), &port) < 0 ||
	    (argc > 4 && strcmp(argv[4], "mix") && strcmp(argv[4], "submit"))) {
		fprintf(stderr, "usage: loadgen ADDR:PORT CLIENTS SECONDS "
				"[mix|submit] [MAX]\n");
		return 2;
	}
	submit_only = argc > 4 && strcmp(argv[4], "submit") == 0;
	max_requests = argc > 5 ? atol(argv[5]) : 0;
	clients = atoi(argv[2]);
	seconds = atoi(argv[3]);
	if (pipe(fds) < 0)
		return 1;
	until = now_ms() + seconds * 1e3;
	for (int i = 0; i < clients; i++) {
		if (fork() == 0) {
			close(fds[0]);
			client(host, port, until, fds[1]);
		}
	}
	close(fds[1]);
	while (read(fds[0], &s, sizeof(s)) == (ssize_t)sizeof(s)) {
		if (s.ms < 0) {
			if (!failed++)
				memcpy(first, s.text, sizeof(first));
			continue;
		}
		if (n < MAX_SAMPLES)
			v[n++] = s.ms;
	}
	while (wait(NULL) > 0)
		;
	qsort(v, n, sizeof(*v), cmp);
	printf("requests %zu failed %zu p50_ms %.1f p99_ms %.1f max_ms %.1f\n",
	       n + failed, failed, n ? v[n / 2] : 0.0,
	       n ? v[n * 99 / 100] : 0.0, n ? v[n - 1] : 0.0);
	if (failed)
		printf("first failure: %s\n", first);
	free(v);
	return failed ? 1 : 0;
}
