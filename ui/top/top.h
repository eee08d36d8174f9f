/* SPDX-License-Identifier: MIT */
#ifndef ROTA_UI_TOP_TOP_H
#define ROTA_UI_TOP_TOP_H

/* Shared by the files of ui/top only. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/msg.h"
#include "ui/top/model.h"

enum top_mode {
	TOP_NORMAL = 0,
	TOP_PROMPT_FILTER,	/* '/': typing a filter */
	TOP_PROMPT_NICE,	/* 'n': typing a nice value */
	TOP_CONFIRM_CANCEL,	/* 'c': y or n */
	TOP_HELP,		/* '?': the keys, until any key */
};

struct top_worker;

/* rota top's state: the model plus what the screen and keys need. */
struct top {
	struct top_model model;
	bool color;
	enum top_mode mode;
	char input[128];	/* the prompt's text so far */
	size_t input_len;
	uint32_t action_job;	/* the job a prompt or confirmation is about */
	char status[256];	/* the last action's result, or an error */
	struct rota_msg_prio prio; /* the selected job's terms (owned) */
	uint32_t prio_job;	/* which job 'prio' is about; 0 none */
	char prio_error[160];
	struct top_worker *worker;
	unsigned refreshing;	/* refresh replies still to come */
	bool prio_asked;	/* a PRIO request is out */
	bool dirty;		/* redraw at the end of this pass */
	bool quit;
	size_t list_first;	/* first job list row on screen */
	size_t list_rows;	/* job list rows on screen (set by draw) */
};

/*
 * A view (STYLE 12): a part of the screen with its own drawing and keys.
 * draw() gets its rectangle; key() returns true if it took the key.
 */
struct top_view_ops {
	const char *title;
	void (*draw)(struct top *t, int y, int height, int cols);
	bool (*key)(struct top *t, int key);
};

extern const struct top_view_ops top_view_header;
extern const struct top_view_ops top_view_nodes;
extern const struct top_view_ops top_view_jobs;
extern const struct top_view_ops top_view_detail;

/* draw.c: lay the views out on stdscr and draw them (no refresh()). */
void top_draw(struct top *t);
/* Lines the node panel takes at 'cols' x 'rows' (1: the folded summary). */
int top_nodes_height(const struct top *t, int rows, int cols);
/* Color pairs when t->color (draw.c). */
void top_colors_init(struct top *t);
enum { TOP_PAIR_RUN = 1, TOP_PAIR_HELD, TOP_PAIR_DOWN, TOP_PAIR_HEAD };
int top_attr(const struct top *t, int pair);

/* input.c: one key in the current mode. */
void top_key(struct top *t, int key);
/* Ask the controller for a new snapshot (jobs, nodes, counters, prio). */
void top_request_refresh(struct top *t);
/* A reply from the worker (worker.c calls it). */
void top_reply(struct top *t, uint16_t req, uint16_t type, int rc,
	       const char *body, size_t len);

/*
 * worker.c: a child process that makes the blocking controller calls, so
 * that the screen never waits on the network.  Start it before curses.
 */
int top_worker_start(struct top_worker **out, struct rota_error *err);
/* Queue a request; replies come back through top_worker_read(). */
int top_worker_send(struct top_worker *w, uint16_t type, const char *body,
		    size_t len);
int top_worker_fd(const struct top_worker *w);
/* Read what is there; hand each whole reply to top_reply(). -EPIPE: gone. */
int top_worker_read(struct top_worker *w, struct top *t);
void top_worker_stop(struct top_worker *w);

#endif
