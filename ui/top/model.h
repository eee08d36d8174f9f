/* SPDX-License-Identifier: MIT */
#ifndef ROTA_UI_TOP_MODEL_H
#define ROTA_UI_TOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/msg.h"

/*
 * rota top's model: the last snapshots the controller gave (jobs, nodes,
 * counters) and what the user asked to see of them (sort key, filter,
 * selection).  Pure: no terminal, no network, no clock (the snapshot's
 * 'now' is the time), so it is unit-tested on its own and benchmarked at
 * 100,000 jobs.  Views only read it; input changes it through these calls.
 */
enum top_sort {
	TOP_SORT_PRIORITY = 0,	/* highest first: the scheduler's view */
	TOP_SORT_USER,
	TOP_SORT_QUEUE,
	TOP_SORT_WAIT,		/* longest wait (or run) first */
	TOP_SORT_ID,
	TOP_SORT_COUNT,
};

struct top_filter {
	char user[64];		/* "" any */
	char queue[65];		/* a queue name is up to 64 characters */
	enum rota_job_state state; /* NONE: any unfinished */
	char text[64];		/* in the name, user, account, queue, reason */
};

struct top_summary {
	uint64_t cores_busy;
	uint64_t cores_total;
	uint64_t gpus_busy;	/* GPUs in use, of... */
	uint64_t gpus_total;	/* ...all the nodes' (0: no node has any) */
	size_t nodes_up;
	size_t nodes_down;	/* DOWN or UNKNOWN */
	size_t nodes_drained;	/* DRAINING or DRAINED */
	size_t running;
	size_t idle;		/* pending, waiting only for its turn */
	size_t blocked;		/* pending, held back by a limit or such */
	size_t held;
	int64_t sched_last_us;	/* -1: not known */
};

/*
 * One line of the job list: a job of the view, or one of its running
 * steps under it (as top shows a process's threads).
 */
#define TOP_LINE_JOB UINT32_MAX
struct top_line {
	uint32_t view;		/* the job: its index in the view */
	uint32_t step;		/* in jobs.steps; TOP_LINE_JOB: the job */
};

struct top_model {
	struct rota_msg_top_rows jobs;	 /* owned: the last snapshot, with
					    the deltas since applied; rows
					    in id order */
	char **arenas;		/* owned: the deltas' strings, beside
				   jobs.arena, until compacted */
	size_t narenas;
	struct rota_msg_node_list nodes; /* owned */
	struct top_summary sum;
	uint32_t *view;		/* indexes into jobs.rows, filtered, sorted */
	size_t nview;
	enum top_sort sort;
	bool reverse;
	struct top_filter filter;
	bool mine;		/* only 'me's jobs */
	char me[64];
	uint32_t selected;	/* job id; 0 none */
	size_t cursor;		/* its index in view */
	bool hide_steps;	/* 't': the jobs' lines only */
	struct top_line *lines;	/* the view's jobs, each with its steps */
	size_t nlines;
};

/* An empty model for user 'me'; top_model_fini frees what it holds. */
void top_model_init(struct top_model *m, const char *me);
void top_model_fini(struct top_model *m);

/* Take a new snapshot over (the struct is left empty) and rebuild the view. */
void top_model_set_jobs(struct top_model *m, struct rota_msg_top_rows *rows);
/*
 * Take a TOP_ROWS reply over (left empty): a full one as set_jobs, a
 * delta (rows->since set, msg.h) merged into the rows: its rows replace
 * or join those of their ids, its gone ids leave.  -ESTALE when the
 * delta is not from the change number the model is at: nothing is
 * applied and the model's change number is reset, so that the next
 * request (top_model_since) asks for every row.
 */
int top_model_apply_jobs(struct top_model *m, struct rota_msg_top_rows *rows);
/* What the next TOP_ROWS request says it saw ({"since":N}). */
int64_t top_model_since(const struct top_model *m);
void top_model_set_nodes(struct top_model *m, struct rota_msg_node_list *n);
/* The GPUs of node 'n' a job uses (the node list names the job of each). */
uint32_t top_node_gpus_used(const struct rota_node_info *n);
/* The scheduling pass time from DIAG's counters. */
void top_model_set_counters(struct top_model *m,
			    const struct rota_msg_counters *c);

/* Sort by 'key'; the same key again reverses the order. */
void top_model_set_sort(struct top_model *m, enum top_sort key);
const char *top_sort_name(enum top_sort key);
/*
 * Filter from the user's words: "user=ana queue=batch state=PD text",
 * any of them, space-separated; "" clears.  -EINVAL (nothing changed)
 * with 'err' for an unknown key or state.
 */
int top_model_set_filter(struct top_model *m, const char *expr,
			 struct rota_error *err);
void top_model_toggle_mine(struct top_model *m);
/* Steps under their jobs, or not (they are shown at first). */
void top_model_toggle_steps(struct top_model *m);

/* Move the selection by 'delta' rows (clamped); keeps it by job id. */
void top_model_move(struct top_model *m, long delta);
/* The selected row, or NULL; borrowed until the next set_jobs. */
const struct rota_top_row *top_model_selected(const struct top_model *m);
const struct rota_top_row *top_model_row(const struct top_model *m,
					 size_t view_index);

/*
 * The job list's line 'i' (a job, or a step under it), or NULL past the
 * end; borrowed until the model next changes.  Steps follow their job:
 * a job the filter hides hides its steps.
 */
const struct top_line *top_model_line(const struct top_model *m, size_t i);
/* The selected job's line (0: no selection). */
size_t top_model_cursor_line(const struct top_model *m);
/*
 * How many running steps job 'id' has in the snapshot, '*first' the
 * index of the first in jobs.steps (they are in job, then step order).
 */
size_t top_model_job_steps(const struct top_model *m, uint32_t id,
			   size_t *first);

/* Seconds a job waited (pending) or ran (running or ended). */
int64_t top_job_elapsed(const struct rota_top_row *r, int64_t now);
/* Pending and held back by something else than its turn or room. */
bool top_job_is_blocked(const struct rota_top_row *r);

/*
 * The node panel's shape: cells of 'cell_w' columns, as many per line as
 * 'cols' allows, on at most 'max_lines' lines.  Returns the lines needed,
 * or 0 when the nodes do not fit and the panel folds to a summary line.
 */
size_t top_node_lines(size_t nnodes, size_t cell_w, size_t cols,
		      size_t max_lines);

#endif
