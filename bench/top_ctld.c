// SPDX-License-Identifier: MIT
/*
 * bench/top_ctld: what a rota top refresh costs the controller (issue 23:
 * at most 2 ms at 100,000 jobs), full and delta.  The controller's CPU
 * time is read from /proc/PID/schedstat (nanoseconds) before a request
 * and after its reply: a full refresh ({"since":0}, every row), and a
 * delta ({"since":C}) after CHANGES jobs were changed (their nice set,
 * one request each, not counted).  RUNS runs of REFRESHES refreshes
 * each; prints each run's mean and the median of the runs.
 *   bench/top_ctld ADDR:PORT CTLD-PID [RUNS [REFRESHES [CHANGES]]]
 * bench/top ... ctld starts a cluster, queues the jobs and runs it.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/client.h"
#include "common/msg.h"
#include "common/net.h"
#include "common/proto.h"

static struct rota_client *conn;
static char stat_path[64];

static void die(const char *what, const char *why)
{
	fprintf(stderr, "top_ctld: %s: %s\n", what, why);
	exit(1);
}

/* The controller's CPU time so far, nanoseconds. */
static uint64_t cpu_ns(void)
{
	FILE *f = fopen(stat_path, "r");
	unsigned long long ns = 0;

	if (!f || fscanf(f, "%llu", &ns) != 1)
		die(stat_path, "cannot read");
	fclose(f);
	return ns;
}

static void call(uint16_t type, const char *body, size_t len,
		 struct rota_reply *r)
{
	struct rota_error err;

	if (rota_client_call(conn, type, body, len, r, &err) < 0)
		die("request", err.text);
}

/* One refresh from 'since'; its cost in ms, the reply decoded in 'm'. */
static double refresh(int64_t since, struct rota_msg_top_rows *m)
{
	struct rota_reply r;
	struct rota_error err;
	char req[64];
	uint64_t t0, t1;

	snprintf(req, sizeof(req), "{\"since\":%" PRId64 "}", since);
	t0 = cpu_ns();
	call(ROTA_MSG_TOP_ROWS, req, strlen(req), &r);
	t1 = cpu_ns();
	if (rota_msg_top_rows_decode(r.body, r.len, m, &err) < 0)
		die("reply", err.text);
	rota_reply_clear(&r);
	return (double)(t1 - t0) / 1e6;
}

static void set_nice(uint32_t id, int32_t nice)
{
	struct rota_msg_control c = {
		.job_ids = &id,
		.n = 1,
		.has_nice = true,
		.nice = nice,
	};
	struct rota_reply r;
	size_t len;
	char *body = rota_msg_control_encode(&c, &len);

	call(ROTA_MSG_NICE, body, len, &r);
	rota_reply_clear(&r);
	free(body);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *what, double *runs, int n)
{
	double sorted[64];

	memcpy(sorted, runs, (size_t)n * sizeof(*runs));
	qsort(sorted, (size_t)n, sizeof(*sorted), cmp_double);
	printf("%-34s median %7.3f ms (runs:", what, sorted[n / 2]);
	for (int i = 0; i < n; i++)
		printf(" %.3f", runs[i]);
	printf(")\n");
}

int main(int argc, char **argv)
{
	struct rota_msg_top_rows m;
	struct rota_error err;
	char host[256];
	unsigned port;
	int nruns = argc > 3 ? atoi(argv[3]) : 5;
	int per = argc > 4 ? atoi(argv[4]) : 20;
	int nchg = argc > 5 ? atoi(argv[5]) : 3;
	double full[64], delta[64];
	uint32_t *ids;
	size_t njobs, rows = 0;
	int64_t change;
	int32_t nice = 1;

	if (argc < 3 ||
	    rota_net_split(argv[1], host, sizeof(host), &port) < 0 ||
	    nruns < 1 || nruns > 64 || per < 1 || nchg < 0) {
		fprintf(stderr, "usage: top_ctld ADDR:PORT CTLD-PID [RUNS "
				"[REFRESHES [CHANGES]]]\n");
		return 2;
	}
	snprintf(stat_path, sizeof(stat_path), "/proc/%s/schedstat", argv[2]);
	if (rota_client_connect(host, port, 0, 60000, &conn, &err) < 0)
		die("connect", err.text);
	refresh(0, &m);
	njobs = m.n;
	ids = calloc((size_t)nchg + 1, sizeof(*ids));
	if (!m.n)
		die("queue", "no jobs");
	/* spread over the queue */
	for (int i = 0; i < nchg; i++)
		ids[i] = m.rows[((size_t)i * 7919 + m.n / 2) % m.n].id;
	rota_msg_top_rows_clear(&m);
	for (int run = 0; run < nruns; run++) {
		double sum = 0;

		for (int i = 0; i < per; i++) {
			sum += refresh(0, &m);
			change = m.change;
			rota_msg_top_rows_clear(&m);
		}
		full[run] = sum / per;
		sum = 0;
		for (int i = 0; i < per; i++) {
			nice = nice == 1 ? 2 : 1;
			for (int k = 0; k < nchg; k++)
				set_nice(ids[k], nice);
			sum += refresh(change, &m);
			if (!m.since)
				die("delta", "the controller sent every row");
			change = m.change;
			rows += m.n;
			rota_msg_top_rows_clear(&m);
		}
		delta[run] = sum / per;
	}
	printf("%zu jobs; %d runs of %d refreshes; controller CPU per "
	       "refresh (schedstat)\n",
	       njobs, nruns, per);
	report("full (every row)", full, nruns);
	printf("delta: %.1f rows a refresh on average\n",
	       (double)rows / (nruns * per));
	report("delta (a few jobs changed)", delta, nruns);
	free(ids);
	rota_client_destroy(conn);
	return 0;
}
