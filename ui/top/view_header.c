// SPDX-License-Identifier: MIT
/*
 * The header and the node panel.  The header sums the cluster up (cores,
 * nodes by state, jobs by kind, the last scheduling pass); the panel gives
 * every node a cell (name, state, cores used of total, ib and largemem
 * marked, GPUs used of total when any node has GPUs), or folds to one line of counts when the cells do not fit in a
 * quarter of the screen.
 */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ui/top/top.h"

static void header_draw(struct top *t, int y, int height, int cols)
{
	const struct top_summary *s = &t->model.sum;
	char sched[32] = "-";
	char clock[16] = "";
	time_t now = (time_t)t->model.jobs.now;
	struct tm tm;

	if (now && localtime_r(&now, &tm))
		strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	if (s->sched_last_us >= 0)
		snprintf(sched, sizeof(sched), "%.1f ms",
			 (double)s->sched_last_us / 1000.0);
	attron(top_attr(t, TOP_PAIR_HEAD) | A_BOLD);
	mvprintw(y, 0, "rota top %s", clock);
	attroff(top_attr(t, TOP_PAIR_HEAD) | A_BOLD);
	printw("  cores %llu/%llu busy", (unsigned long long)s->cores_busy,
	       (unsigned long long)s->cores_total);
	if (s->gpus_total)
		printw("  gpus %llu/%llu busy", (unsigned long long)s->gpus_busy,
		       (unsigned long long)s->gpus_total);
	printw("  nodes %zu up %zu down %zu drained", s->nodes_up,
	       s->nodes_down, s->nodes_drained);
	if (height < 2)
		return;
	mvprintw(y + 1, 0,
		 "jobs %zu running %zu idle %zu blocked %zu held  sched %s"
		 "  sort %s%s%s",
		 s->running, s->idle, s->blocked, s->held, sched,
		 top_sort_name(t->model.sort), t->model.reverse ? "-" : "",
		 t->model.mine ? "  mine" : "");
	(void)cols;
}

const struct top_view_ops top_view_header = {
	.title = "header",
	.draw = header_draw,
};

/* GPUs "g2/16" after the cores, when any node has GPUs: 7 columns */
#define GPU_CELL_W 7

/* name, state letter, marks, "used/total", and the GPUs' if any */
static size_t cell_width(const struct top *t)
{
	size_t w = 3;

	for (size_t i = 0; i < t->model.nodes.n; i++) {
		size_t n = strlen(t->model.nodes.nodes[i].name);

		if (n > w)
			w = n;
	}
	return w + 13 + (t->model.sum.gpus_total ? GPU_CELL_W : 0);
}

int top_nodes_height(const struct top *t, int rows, int cols)
{
	size_t max = rows >= 24 ? (size_t)(rows - 12) / 4 : 1;
	size_t lines = top_node_lines(t->model.nodes.n, cell_width(t),
				      (size_t)cols, max ? max : 1);

	return lines ? (int)lines : 1;
}

static bool has_feature(const struct rota_node_info *n, const char *f)
{
	for (char **p = n->features; p && *p; p++) {
		if (strcmp(*p, f) == 0)
			return true;
	}
	return false;
}

static char state_letter(const struct rota_node_info *n, int *pair)
{
	*pair = TOP_PAIR_RUN;
	if (strcmp(n->state, "UP") == 0)
		return 'U';
	*pair = TOP_PAIR_HELD;
	if (strncmp(n->state, "DRAIN", 5) == 0)
		return 'X';
	*pair = TOP_PAIR_DOWN;
	return 'D';
}

static void draw_summary(struct top *t, int y, int cols)
{
	const struct top_summary *s = &t->model.sum;
	size_t ib = 0, big = 0, full = 0, idle = 0;

	for (size_t i = 0; i < t->model.nodes.n; i++) {
		const struct rota_node_info *n = &t->model.nodes.nodes[i];

		ib += has_feature(n, "ib");
		big += has_feature(n, "largemem");
		full += n->cores && n->cores_used == n->cores;
		idle += n->cores_used == 0;
	}
	mvprintw(y, 0, "%zu nodes: %zu up (%zu full, %zu idle), %zu down, "
		 "%zu drained; ib %zu, largemem %zu",
		 t->model.nodes.n, s->nodes_up, full, idle, s->nodes_down,
		 s->nodes_drained, ib, big);
	(void)cols;
}

static void nodes_draw(struct top *t, int y, int height, int cols)
{
	size_t w = cell_width(t), per = (size_t)cols / w;
	size_t gw = t->model.sum.gpus_total ? GPU_CELL_W : 0;
	size_t lines = top_node_lines(t->model.nodes.n, w, (size_t)cols,
				      (size_t)height);

	if (!lines) {
		draw_summary(t, y, cols);
		return;
	}
	for (size_t i = 0; i < t->model.nodes.n; i++) {
		const struct rota_node_info *n = &t->model.nodes.nodes[i];
		int pair;
		char st = state_letter(n, &pair);
		char used[24], gpus[24];

		snprintf(used, sizeof(used), "%u/%u", n->cores_used, n->cores);
		move(y + (int)(i / per), (int)((i % per) * w));
		printw("%-*s ", (int)(w - 13 - gw), n->name);
		attron(top_attr(t, pair));
		addch((chtype)st);
		attroff(top_attr(t, pair));
		/* k: cores kept for test queues, K: some in use by them */
		printw("%c%c%c%-8s", has_feature(n, "ib") ? 'i' : ' ',
		       has_feature(n, "largemem") ? 'L' : ' ',
		       !n->cores_kept ? ' ' : n->cores_kept_used ? 'K' : 'k',
		       used);
		if (!gw)
			continue;
		/* a node without GPUs: blank, not "g0/0" */
		snprintf(gpus, sizeof(gpus), "g%u/%zu", top_node_gpus_used(n),
			 n->ngpus);
		printw("%-*s", (int)gw, n->ngpus ? gpus : "");
	}
}

const struct top_view_ops top_view_nodes = {
	.title = "nodes",
	.draw = nodes_draw,
};
