// SPDX-License-Identifier: MIT
/*
 * rota top's screen layout: header (2 lines), node panel (a few lines, or
 * one summary line), job list (the rest), detail pane (4 lines), status
 * line.  At 80x24 the job list keeps 12 rows.  Drawing reads the model
 * only: it never waits on anything, and the bench times it.
 */
#include "config.h"

#include <curses.h>
#include <string.h>

#include "ui/top/top.h"

#define DETAIL_LINES 4

void top_colors_init(struct top *t)
{
	if (!t->color || !has_colors()) {
		t->color = false;
		return;
	}
	start_color();
	use_default_colors();
	init_pair(TOP_PAIR_RUN, COLOR_GREEN, -1);
	init_pair(TOP_PAIR_HELD, COLOR_YELLOW, -1);
	init_pair(TOP_PAIR_DOWN, COLOR_RED, -1);
	init_pair(TOP_PAIR_HEAD, COLOR_CYAN, -1);
}

int top_attr(const struct top *t, int pair)
{
	if (t->color)
		return COLOR_PAIR(pair);
	/* without colors, only what matters most stands out */
	return pair == TOP_PAIR_DOWN || pair == TOP_PAIR_HEAD ? A_BOLD
							      : A_NORMAL;
}

static void draw_status(struct top *t, int y, int cols)
{
	const char *hint = "q quit  ? help  / filter  s sort  u mine  "
			   "h hold  r release  n nice  c cancel  t steps";

	move(y, 0);
	clrtoeol();
	switch (t->mode) {
	case TOP_PROMPT_FILTER:
		mvprintw(y, 0, "filter (user= queue= state= text): %.*s",
			 (int)t->input_len, t->input);
		break;
	case TOP_PROMPT_NICE:
		mvprintw(y, 0, "nice for job %u ([+|-]N): %.*s", t->action_job,
			 (int)t->input_len, t->input);
		break;
	case TOP_CONFIRM_CANCEL:
		mvprintw(y, 0, "cancel job %u? (y/n)", t->action_job);
		break;
	default:
		attron(A_BOLD);
		mvaddnstr(y, 0, t->status[0] ? t->status : hint, cols - 1);
		attroff(A_BOLD);
		break;
	}
}

static void draw_help(int rows, int cols)
{
	static const char *const lines[] = {
		"rota top: keys",
		"",
		"  Up Down PgUp PgDn Home End   select a job",
		"  s        next sort key (priority, user, queue, wait, id)",
		"  P U Q W I   sort by that column; again: reverse",
		"  /        filter: user=NAME queue=Q state=PD|R|... text",
		"  u        only my jobs (again: everyone's)",
		"  t        hide the running jobs' steps (again: show them)",
		"  h r      hold, release the selected job",
		"  n        nice the selected job (+N, -N or N)",
		"  c        cancel the selected job (asks first)",
		"  q        quit            any key closes this help",
	};
	int n = (int)(sizeof(lines) / sizeof(*lines));
	int y0 = rows > n + 2 ? (rows - n - 2) / 2 : 0;

	for (int i = 0; i < n + 2 && y0 + i < rows; i++) {
		move(y0 + i, 0);
		clrtoeol();
		if (i > 0 && i <= n)
			mvaddnstr(y0 + i, 2, lines[i - 1], cols - 3);
	}
}

void top_draw(struct top *t)
{
	int rows = LINES, cols = COLS;
	int y = 0, nodes_h, list_h;

	erase();
	if (rows < 10 || cols < 40) {
		mvaddnstr(0, 0, "rota top: the terminal is too small (40x10)",
			  cols);
		return;
	}
	top_view_header.draw(t, y, 2, cols);
	y += 2;
	nodes_h = top_nodes_height(t, rows, cols);
	top_view_nodes.draw(t, y, nodes_h, cols);
	y += nodes_h;
	list_h = rows - y - DETAIL_LINES - 1;
	top_view_jobs.draw(t, y, list_h, cols);
	y += list_h;
	top_view_detail.draw(t, y, DETAIL_LINES, cols);
	draw_status(t, rows - 1, cols);
	if (t->mode == TOP_HELP)
		draw_help(rows, cols);
}
