// SPDX-License-Identifier: MIT
/*
 * bench/top_bench: one rota top refresh at N jobs (100,000 by default):
 * decode the TOP_ROWS and NODE_LIST replies, hand them to the model
 * (filter and sort), draw every view and flush into a virtual screen
 * (curses on /dev/null).  Prints the median and worst of 9 refreshes and
 * their parts; the target is a median under 50 ms.
 *   bench/top_bench [JOBS]
 */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/msg.h"
#include "ui/top/top.h"

#define RUNS 9
#define NODES 500

static double ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static char *make_jobs(size_t n, size_t *len)
{
	static const char *const users[] = { "ana", "bob", "cid", "dee" };
	static const char *const queues[] = { "batch", "short", "long" };
	struct rota_top_row *rows = calloc(n + 1, sizeof(*rows));
	/* a step under every tenth running job: 1,000 at 100,000 jobs */
	struct rota_top_step *steps = calloc(n / 100 + 1, sizeof(*steps));
	struct rota_msg_top_rows m = { .rows = rows, .n = n,
				       .now = 1700000000, .steps = steps };
	char *text;

	for (size_t i = 0; i < n; i++) {
		bool run = i % 10 == 0;

		rows[i] = (struct rota_top_row){
			.id = (uint32_t)i + 1,
			.state = run ? ROTA_JOB_RUNNING : ROTA_JOB_PENDING,
			.cores = 1 + i % 16,
			.nodes = 1,
			.submit_time = 1700000000 - (int64_t)(i * 7 % 86400),
			.start_time = run ? 1700000000 - 60 : 0,
			.priority_milli = (int64_t)((i * 2654435761u) % 100000000),
			.hold = i % 97 == 0,
			.queue = queues[i % 3],
			.user = users[i % 4],
			.account = "physics",
			.name = "sweep",
			.where = run ? "n001" : "Priority",
		};
		if (i % 100 == 0)
			steps[m.nsteps++] = (struct rota_top_step){
				.job_id = (uint32_t)i + 1,
				.ntasks = 4,
				.nnodes = 1,
				.start = 1700000000 - 30,
				.name = "a.out",
				.nodes = "n001",
			};
	}
	text = rota_msg_top_rows_encode(&m, len);
	free(steps);
	free(rows);
	return text;
}

static char *make_nodes(size_t *len)
{
	struct rota_node_info *n = calloc(NODES, sizeof(*n));
	static char *feats[] = { "ib", NULL };
	char (*names)[16] = calloc(NODES, 16);
	char *text;

	for (size_t i = 0; i < NODES; i++) {
		snprintf(names[i], 16, "n%03zu", i);
		n[i] = (struct rota_node_info){
			.name = names[i], .state = "UP", .reason = "",
			.addr = "10.0.0.1", .features = feats, .sockets = 2,
			.cores = 32, .pus = 64, .cores_used = (uint32_t)(i % 33),
			.memory_mb = 256000,
		};
	}
	text = rota_msg_node_list_encode(n, NODES, len);
	free(n);
	free(names);
	return text;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	size_t njobs = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	size_t jlen, nlen;
	double t0 = ms_now();
	char *jobs = make_jobs(njobs, &jlen);
	double enc = ms_now() - t0;
	char *nodes = make_nodes(&nlen);
	FILE *out = fopen("/dev/null", "w");
	FILE *in = fopen("/dev/null", "r");
	struct top t = { .color = true };
	double total[RUNS], dec[RUNS], model[RUNS], draw[RUNS];
	struct rota_error err;
	SCREEN *scr;

	scr = newterm("xterm-256color", out, in);
	if (!scr)
		scr = newterm("vt100", out, in);
	if (!scr) {
		fprintf(stderr, "top_bench: no terminal description\n");
		return 1;
	}
	resize_term(50, 160);
	top_colors_init(&t);
	top_model_init(&t.model, "ana");
	for (int r = 0; r < RUNS; r++) {
		struct rota_msg_top_rows rows;
		struct rota_msg_node_list nl;
		double a = ms_now(), b, c, d;

		if (rota_msg_top_rows_decode(jobs, jlen, &rows, &err) < 0 ||
		    rota_msg_node_list_decode(nodes, nlen, &nl, &err) < 0) {
			fprintf(stderr, "top_bench: %s\n", err.text);
			return 1;
		}
		b = ms_now();
		top_model_set_jobs(&t.model, &rows);
		top_model_set_nodes(&t.model, &nl);
		top_model_move(&t.model, r * 7);
		c = ms_now();
		top_draw(&t);
		wnoutrefresh(stdscr);
		doupdate();
		d = ms_now();
		dec[r] = b - a;
		model[r] = c - b;
		draw[r] = d - c;
		total[r] = d - a;
	}
	endwin();
	delscreen(scr);
	qsort(total, RUNS, sizeof(double), cmp_double);
	qsort(dec, RUNS, sizeof(double), cmp_double);
	qsort(model, RUNS, sizeof(double), cmp_double);
	qsort(draw, RUNS, sizeof(double), cmp_double);
	printf("rota top, one refresh at %zu jobs and %d nodes (%zu bytes): "
	       "median %.1f ms, worst %.1f ms (decode %.1f, model %.1f, draw "
	       "%.1f); target < 50 ms: %s\n",
	       njobs, NODES, jlen, total[RUNS / 2], total[RUNS - 1],
	       dec[RUNS / 2], model[RUNS / 2], draw[RUNS / 2],
	       total[RUNS / 2] < 50 ? "met" : "MISSED");
	printf("(the controller's encoding of the reply: %.1f ms)\n", enc);
	top_model_fini(&t.model);
	free(jobs);
	free(nodes);
	fclose(out);
	fclose(in);
	return 0;
}
