// SPDX-License-Identifier: MIT
/*
 * The job list and the detail pane.  The list draws only the lines on
 * screen (a window over the model's lines, scrolled to keep the selection
 * visible), so its cost does not grow with the queue.  Under a running
 * job, an indented line per running step: its id and command under
 * USER..QUEUE, its tasks under PRIORITY and CORES, then its time and
 * nodes.  The detail pane shows the selected job and, for a pending
 * one, its priority terms as `rota prio -l` gives them and why it waits.
 */
#include "config.h"

#include <curses.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/units.h"
#include "ui/top/top.h"

static void elapsed(const struct rota_top_row *r, int64_t now, char *buf,
		    size_t len)
{
	rota_duration_format(top_job_elapsed(r, now), buf, len);
}

static int row_pair(const struct rota_top_row *r)
{
	if (r->state == ROTA_JOB_RUNNING)
		return TOP_PAIR_RUN;
	if (r->hold || top_job_is_blocked(r))
		return TOP_PAIR_HELD;
	return 0;
}

static void draw_row(struct top *t, int y, int cols,
		     const struct rota_top_row *r, bool selected)
{
	char line[512], when[32], id[24];
	int pair = row_pair(r);
	int attr = (pair ? top_attr(t, pair) : 0) | (selected ? A_REVERSE : 0);

	elapsed(r, t->model.jobs.now, when, sizeof(when));
	snprintf(id, sizeof(id), "%u", r->id);
	/* an array's pending rest is one line: 12_[3-999%16] */
	snprintf(line, sizeof(line),
		 "%8s %-8.8s %-8.8s %-15.15s %-2s %10.1f %5u %11s %s",
		 r->array && *r->array ? r->array : id,
		 r->user, r->account, r->queue, rota_job_state_short(r->state),
		 (double)r->priority_milli / 1000.0, r->cores, when, r->where);
	attron(attr);
	mvaddnstr(y, 0, line, cols);
	if (selected)
		for (int x = (int)strlen(line); x < cols; x++)
			addch(' ');
	attroff(attr);
}

/* "         `- 12.0 sleep   ...   R   4 tasks   00:00:35 n[01-04]" */
static void draw_step(struct top *t, int y, int cols, size_t line)
{
	const struct top_model *m = &t->model;
	const struct rota_top_step *st = &m->jobs.steps[m->lines[line].step];
	const struct top_line *next = top_model_line(m, line + 1);
	bool last = !next || next->view != m->lines[line].view;
	char line_text[512], id[64], tasks[32], when[32];
	int64_t run = m->jobs.now - st->start;

	snprintf(id, sizeof(id), "%s %u.%u %s", last ? "`-" : "|-",
		 st->job_id, st->step_id, st->name);
	snprintf(tasks, sizeof(tasks), "%u task%s", st->ntasks,
		 st->ntasks == 1 ? "" : "s");
	rota_duration_format(run > 0 ? run : 0, when, sizeof(when));
	snprintf(line_text, sizeof(line_text), "%8s %-26.26s %-2s %16s %11s %s",
		 "", id, rota_job_state_short(ROTA_JOB_RUNNING), tasks, when,
		 st->nodes);
	attron(top_attr(t, TOP_PAIR_RUN));
	mvaddnstr(y, 0, line_text, cols);
	attroff(top_attr(t, TOP_PAIR_RUN));
}

static void jobs_draw(struct top *t, int y, int height, int cols)
{
	struct top_model *m = &t->model;
	size_t rows = height > 1 ? (size_t)height - 1 : 0;
	size_t cur = top_model_cursor_line(m);

	attron(A_BOLD | A_UNDERLINE);
	mvprintw(y, 0, "%8s %-8s %-8s %-15s %-2s %10s %5s %11s %s", "JOBID",
		 "USER", "ACCOUNT", "QUEUE", "ST", "PRIORITY", "CORES",
		 "TIME/WAIT", "NODES/REASON");
	attroff(A_BOLD | A_UNDERLINE);
	t->list_rows = rows;
	/* keep the selection on screen (list_first counts lines) */
	if (cur < t->list_first)
		t->list_first = cur;
	if (rows && cur >= t->list_first + rows)
		t->list_first = cur - rows + 1;
	if (t->list_first > m->nlines)
		t->list_first = 0;
	for (size_t i = 0; i < rows; i++) {
		size_t k = t->list_first + i;
		const struct top_line *l = top_model_line(m, k);

		if (!l)
			break;
		if (l->step != TOP_LINE_JOB)
			draw_step(t, y + 1 + (int)i, cols, k);
		else
			draw_row(t, y + 1 + (int)i, cols,
				 top_model_row(m, l->view), k == cur);
	}
	if (!m->nview)
		mvaddnstr(y + 1, 0, m->jobs.n ? "(no job matches the filter)"
					      : "(no jobs)", cols);
}

static bool jobs_key(struct top *t, int key)
{
	long page = t->list_rows ? (long)t->list_rows : 10;

	switch (key) {
	case KEY_UP: case 'k': top_model_move(&t->model, -1); break;
	case KEY_DOWN: case 'j': top_model_move(&t->model, 1); break;
	case KEY_PPAGE: top_model_move(&t->model, -page); break;
	case KEY_NPAGE: top_model_move(&t->model, page); break;
	case KEY_HOME: case 'g': top_model_move(&t->model, -(1L << 30)); break;
	case KEY_END: case 'G': top_model_move(&t->model, 1L << 30); break;
	default: return false;
	}
	return true;
}

const struct top_view_ops top_view_jobs = {
	.title = "jobs",
	.draw = jobs_draw,
	.key = jobs_key,
};

static const char *hold_name(uint32_t hold)
{
	return hold == 2 ? "operator" : hold == 1 ? "user" : "none";
}

static void draw_terms(struct top *t, int y, int cols, uint32_t id)
{
	char line[512];
	size_t n = 0;

	if (t->prio_job != id || !t->prio.n) {
		mvaddnstr(y, 0, t->prio_error[0] ? t->prio_error
						 : "priority terms: asking...",
			  cols);
		return;
	}
	n += (size_t)snprintf(line, sizeof(line), "priority %.4f (%s):",
			      t->prio.rows[0].priority, t->prio.plugin);
	for (size_t i = 0; i < t->prio.rows[0].nfactors && n < sizeof(line);
	     i++) {
		const struct rota_msg_prio_factor *f =
			&t->prio.rows[0].factors[i];

		n += (size_t)snprintf(line + n, sizeof(line) - n,
				      " %s=%.6g", f->name, f->value);
	}
	mvaddnstr(y, 0, line, cols);
}

/* "3m20s" from now to 't' (backfill's expected start). */
static const char *until(int64_t t, int64_t now, char *buf, size_t len)
{
	int64_t d = t > now ? t - now : 0;

	if (d >= 3600)
		snprintf(buf, len, "%lldh%02lldm", (long long)(d / 3600),
			 (long long)(d % 3600 / 60));
	else
		snprintf(buf, len, "%lldm%02llds", (long long)(d / 60),
			 (long long)(d % 60));
	return buf;
}

static void detail_draw(struct top *t, int y, int height, int cols)
{
	const struct rota_top_row *r = top_model_selected(&t->model);
	char when[32];

	mvhline(y, 0, ACS_HLINE, cols);
	if (!r || height < 4)
		return;
	elapsed(r, t->model.jobs.now, when, sizeof(when));
	mvprintw(y + 1, 0, "job %u '%.40s' %s/%s %s %s  nice %d urgency %u "
		 "hold %s", r->id, r->name, r->user, r->account, r->queue,
		 rota_job_state_name(r->state), r->nice,
		 r->urgency ? r->urgency : 16, hold_name(r->hold));
	if (r->state == ROTA_JOB_PENDING) {
		mvprintw(y + 2, 0, "waiting %s, cores %u: %.*s", when, r->cores,
			 cols > 40 ? cols - 30 : 10, r->where);
		if (r->est_start)
			printw("  expected start in %s",
			       until(r->est_start, t->model.jobs.now, when,
				     sizeof(when)));
		else
			printw("  (no start estimate yet)");
		draw_terms(t, y + 3, cols, r->id);
	} else {
		size_t first, nsteps = top_model_job_steps(&t->model, r->id,
							   &first);

		mvprintw(y + 2, 0, "%s %s on %.*s", r->state ==
			 ROTA_JOB_RUNNING ? "running" : "ran", when,
			 cols > 40 ? cols - 30 : 10, r->where);
		if (nsteps)
			printw("  %zu step%s running%s", nsteps,
			       nsteps == 1 ? "" : "s",
			       t->model.hide_steps ? " (t shows them)" : "");
	}
}

const struct top_view_ops top_view_detail = {
	.title = "detail",
	.draw = detail_draw,
};
