// SPDX-License-Identifier: MIT
/*
 * rota top's model (model.h): snapshots in, a filtered and sorted view
 * out.  The view is an index array over the snapshot's rows, rebuilt on
 * every snapshot: at 100,000 jobs a filter pass and a sort of 32-bit
 * indexes cost a few milliseconds, and nothing is copied.  The selection
 * follows its job id across refreshes, as top's does its process.
 * The list's lines are the view's jobs, each followed by its running
 * steps; the steps, few, are sorted once per snapshot and found by a
 * binary search for each running job of the view.
 *
 * A delta (issue 23: the controller sends what changed) is merged into
 * the rows, kept in id order: one pass over both.  The delta's strings
 * stay in its own arena, kept beside the snapshot's; every
 * ARENAS_MAX deltas the live strings are copied into one arena, so that
 * what the model holds stays the size of one snapshot.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "ui/top/model.h"

/* Deltas kept before their strings are gathered into one arena. */
#define ARENAS_MAX 32

static const char *const sort_names[TOP_SORT_COUNT] = {
	[TOP_SORT_PRIORITY] = "priority", [TOP_SORT_USER] = "user",
	[TOP_SORT_QUEUE] = "queue",	  [TOP_SORT_WAIT] = "wait",
	[TOP_SORT_ID] = "id",
};

const char *top_sort_name(enum top_sort key)
{
	return key < TOP_SORT_COUNT ? sort_names[key] : "?";
}

void top_model_init(struct top_model *m, const char *me)
{
	*m = (struct top_model){ .sum.sched_last_us = -1 };
	snprintf(m->me, sizeof(m->me), "%s", me ? me : "");
}

static void free_arenas(struct top_model *m)
{
	for (size_t i = 0; i < m->narenas; i++)
		free(m->arenas[i]);
	free(m->arenas);
	m->arenas = NULL;
	m->narenas = 0;
}

void top_model_fini(struct top_model *m)
{
	free_arenas(m);
	rota_msg_top_rows_clear(&m->jobs);
	rota_msg_node_list_clear(&m->nodes);
	free(m->view);
	free(m->lines);
	*m = (struct top_model){ 0 };
}

int64_t top_job_elapsed(const struct rota_top_row *r, int64_t now)
{
	int64_t t = 0;

	if (r->state == ROTA_JOB_PENDING)
		t = now - r->submit_time;
	else if (r->state == ROTA_JOB_RUNNING)
		t = now - r->start_time;
	else if (r->start_time && r->end_time)
		t = r->end_time - r->start_time;
	return t > 0 ? t : 0;
}

bool top_job_is_blocked(const struct rota_top_row *r)
{
	static const char *const turn[] = { "", "None", "Priority",
					    "Resources", "Requeued",
					    "NodeFail", "NodeNotConnected" };

	if (r->state != ROTA_JOB_PENDING || r->hold)
		return false;
	for (size_t i = 0; i < sizeof(turn) / sizeof(*turn); i++) {
		if (strcmp(r->where, turn[i]) == 0)
			return false;
	}
	return true;
}

static bool contains(const char *hay, const char *needle)
{
	return strcasestr(hay, needle) != NULL;
}

static bool keep(const struct top_model *m, const struct rota_top_row *r)
{
	const struct top_filter *f = &m->filter;

	if (f->state ? r->state != f->state
		     : rota_job_state_is_final(r->state))
		return false;
	if (m->mine && strcmp(r->user, m->me) != 0)
		return false;
	if (f->user[0] && strcmp(r->user, f->user) != 0)
		return false;
	if (f->queue[0] && strcmp(r->queue, f->queue) != 0)
		return false;
	return !f->text[0] || contains(r->name, f->text) ||
	       contains(r->user, f->text) || contains(r->account, f->text) ||
	       contains(r->queue, f->text) || contains(r->where, f->text);
}

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static int row_cmp(const void *x, const void *y, void *arg)
{
	const struct top_model *m = arg;
	const struct rota_top_row *a = &m->jobs.rows[*(const uint32_t *)x];
	const struct rota_top_row *b = &m->jobs.rows[*(const uint32_t *)y];
	int c = 0;

	switch (m->sort) {
	case TOP_SORT_PRIORITY:
		c = -cmp_i64(a->priority_milli, b->priority_milli);
		break;
	case TOP_SORT_USER: c = strcmp(a->user, b->user); break;
	case TOP_SORT_QUEUE: c = strcmp(a->queue, b->queue); break;
	case TOP_SORT_WAIT:
		c = -cmp_i64(top_job_elapsed(a, m->jobs.now),
			     top_job_elapsed(b, m->jobs.now));
		break;
	default: break;
	}
	if (m->reverse)
		c = -c;
	/* ties (and TOP_SORT_ID) in job id order: a stable, total order */
	return c ? c : cmp_i64(a->id, b->id);
}

/* Numeric orders sort (key, id) pairs: no pointer chase per compare. */
struct num_key {
	int64_t key;
	uint32_t id;
	uint32_t idx;
};

static int num_cmp(const void *x, const void *y)
{
	const struct num_key *a = x;
	const struct num_key *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static int64_t num_of(const struct top_model *m, const struct rota_top_row *r)
{
	int64_t k = m->sort == TOP_SORT_PRIORITY ? -r->priority_milli
		    : m->sort == TOP_SORT_WAIT   ? -top_job_elapsed(r, m->jobs.now)
						 : 0;

	/* reversed: the key turns, ties stay in id order */
	return m->reverse ? -k : k;
}

static void sort_view(struct top_model *m)
{
	size_t n = m->nview;
	struct num_key *v;

	if (m->sort == TOP_SORT_USER || m->sort == TOP_SORT_QUEUE) {
		qsort_r(m->view, n, sizeof(*m->view), row_cmp, m);
		return;
	}
	v = rota_xcalloc(n + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		const struct rota_top_row *r = &m->jobs.rows[m->view[i]];

		v[i] = (struct num_key){ num_of(m, r), r->id, m->view[i] };
	}
	qsort(v, n, sizeof(*v), num_cmp);
	for (size_t i = 0; i < n; i++)
		m->view[i] = v[i].idx;
	free(v);
}

size_t top_model_job_steps(const struct top_model *m, uint32_t id,
			   size_t *first)
{
	const struct rota_top_step *st = m->jobs.steps;
	size_t lo = 0, hi = m->jobs.nsteps, end;

	while (lo < hi) { /* the first step of a job >= id */
		size_t mid = lo + (hi - lo) / 2;

		if (st[mid].job_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	for (end = lo; end < m->jobs.nsteps && st[end].job_id == id; end++)
		;
	return end - lo;
}

static void add_line(struct top_model *m, size_t *cap, uint32_t view,
		     uint32_t step)
{
	if (m->nlines == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		m->lines = rota_xreallocarray(m->lines, *cap,
					      sizeof(*m->lines));
	}
	m->lines[m->nlines++] = (struct top_line){ view, step };
}

static void build_lines(struct top_model *m)
{
	size_t cap = m->nview + 1;

	free(m->lines);
	m->lines = rota_xcalloc(cap, sizeof(*m->lines));
	m->nlines = 0;
	for (size_t i = 0; i < m->nview; i++) {
		const struct rota_top_row *r = &m->jobs.rows[m->view[i]];
		size_t first = 0, n = 0;

		add_line(m, &cap, (uint32_t)i, TOP_LINE_JOB);
		if (m->jobs.nsteps && !m->hide_steps &&
		    r->state == ROTA_JOB_RUNNING)
			n = top_model_job_steps(m, r->id, &first);
		for (size_t k = 0; k < n; k++)
			add_line(m, &cap, (uint32_t)i, (uint32_t)(first + k));
	}
}

static void rebuild(struct top_model *m)
{
	size_t n = 0;

	free(m->view);
	m->view = rota_xcalloc(m->jobs.n + 1, sizeof(*m->view));
	for (size_t i = 0; i < m->jobs.n; i++) {
		if (keep(m, &m->jobs.rows[i]))
			m->view[n++] = (uint32_t)i;
	}
	m->nview = n;
	sort_view(m);
	build_lines(m);
	/* the selection follows its job; gone, the cursor stays in place */
	for (size_t i = 0; m->selected && i < n; i++) {
		if (m->jobs.rows[m->view[i]].id == m->selected) {
			m->cursor = i;
			return;
		}
	}
	if (m->cursor >= n)
		m->cursor = n ? n - 1 : 0;
	m->selected = n ? m->jobs.rows[m->view[m->cursor]].id : 0;
}

static int step_cmp(const void *x, const void *y)
{
	const struct rota_top_step *a = x;
	const struct rota_top_step *b = y;

	if (a->job_id != b->job_id)
		return a->job_id < b->job_id ? -1 : 1;
	return a->step_id < b->step_id ? -1 : a->step_id > b->step_id;
}

static void count_jobs(struct top_model *m)
{
	struct top_summary *s = &m->sum;

	s->running = s->idle = s->blocked = s->held = 0;
	for (size_t i = 0; i < m->jobs.n; i++) {
		const struct rota_top_row *r = &m->jobs.rows[i];

		if (r->state == ROTA_JOB_RUNNING)
			s->running++;
		else if (r->state != ROTA_JOB_PENDING)
			continue;
		else if (r->hold)
			s->held++;
		else if (top_job_is_blocked(r))
			s->blocked++;
		else
			s->idle++;
	}
}

static int row_id_cmp(const void *x, const void *y)
{
	const struct rota_top_row *a = x;
	const struct rota_top_row *b = y;

	return a->id < b->id ? -1 : a->id > b->id;
}

/* In id order, as the controller sends them; sorted if they are not. */
static void sort_rows(struct rota_top_row *rows, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		if (rows[i - 1].id >= rows[i].id) {
			qsort(rows, n, sizeof(*rows), row_id_cmp);
			return;
		}
	}
}

static void sort_steps(struct top_model *m)
{
	/* the controller sends them so; the lookups must not trust it */
	if (m->jobs.nsteps)
		qsort(m->jobs.steps, m->jobs.nsteps, sizeof(*m->jobs.steps),
		      step_cmp);
}

void top_model_set_jobs(struct top_model *m, struct rota_msg_top_rows *rows)
{
	free_arenas(m);
	rota_msg_top_rows_clear(&m->jobs);
	m->jobs = *rows;
	*rows = (struct rota_msg_top_rows){ 0 };
	free(m->jobs.gone); /* a full reply has none; its keys do not apply */
	m->jobs.gone = NULL;
	m->jobs.ngone = 0;
	m->jobs.since = 0;
	sort_rows(m->jobs.rows, m->jobs.n);
	sort_steps(m);
	count_jobs(m);
	rebuild(m);
}

int64_t top_model_since(const struct top_model *m)
{
	return m->jobs.change;
}

static bool is_gone(const uint32_t *gone, size_t n, uint32_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (gone[mid] == id)
			return true;
		if (gone[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static int u32_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * The rows in id order from the model's (less the gone) and the
 * delta's (both sorted): a delta's row replaces the model's of its id
 * (the controller sends each once; of several, one is kept).
 */
static void merge_rows(struct top_model *m, struct rota_msg_top_rows *d)
{
	const struct rota_top_row *a = m->jobs.rows, *b = d->rows;
	size_t na = m->jobs.n, nb = d->n, i = 0, j = 0, n = 0;
	struct rota_top_row *out = rota_xcalloc(na + nb + 1, sizeof(*out));

	while (i < na || j < nb) {
		if (j < nb && (i == na || b[j].id <= a[i].id)) {
			if (i < na && a[i].id == b[j].id)
				i++;
			while (j + 1 < nb && b[j + 1].id == b[j].id)
				j++;
			out[n++] = b[j++];
		} else if (is_gone(d->gone, d->ngone, a[i].id)) {
			i++;
		} else {
			out[n++] = a[i++];
		}
	}
	free(m->jobs.rows);
	m->jobs.rows = out;
	m->jobs.n = n;
}

/* Copy 's' to 'p', point 's' there, and return the byte after. */
static char *gather(char *p, const char **s)
{
	size_t len = strlen(*s) + 1;

	memcpy(p, *s, len);
	*s = p;
	return p + len;
}

/* Every live string into one arena; the others go. */
static void compact(struct top_model *m)
{
	size_t total = 1;
	char *arena, *p;

	for (size_t i = 0; i < m->jobs.n; i++) {
		const struct rota_top_row *r = &m->jobs.rows[i];

		total += strlen(r->queue) + strlen(r->user) +
			 strlen(r->account) + strlen(r->name) +
			 strlen(r->where) + strlen(r->array) + 6;
	}
	for (size_t i = 0; i < m->jobs.nsteps; i++)
		total += strlen(m->jobs.steps[i].name) +
			 strlen(m->jobs.steps[i].nodes) + 2;
	p = arena = rota_xmalloc(total);
	for (size_t i = 0; i < m->jobs.n; i++) {
		struct rota_top_row *r = &m->jobs.rows[i];

		p = gather(p, &r->queue);
		p = gather(p, &r->user);
		p = gather(p, &r->account);
		p = gather(p, &r->name);
		p = gather(p, &r->where);
		p = gather(p, &r->array);
	}
	for (size_t i = 0; i < m->jobs.nsteps; i++) {
		p = gather(p, &m->jobs.steps[i].name);
		p = gather(p, &m->jobs.steps[i].nodes);
	}
	free_arenas(m);
	free(m->jobs.arena);
	m->jobs.arena = arena;
}

int top_model_apply_jobs(struct top_model *m, struct rota_msg_top_rows *d)
{
	if (!d->since) {
		top_model_set_jobs(m, d);
		return 0;
	}
	if (d->since != m->jobs.change) {
		rota_msg_top_rows_clear(d);
		m->jobs.change = 0;
		return -ESTALE;
	}
	sort_rows(d->rows, d->n);
	if (d->ngone)
		qsort(d->gone, d->ngone, sizeof(*d->gone), u32_cmp);
	merge_rows(m, d);
	free(m->jobs.steps);
	m->jobs.steps = d->steps;
	m->jobs.nsteps = d->nsteps;
	m->jobs.now = d->now;
	m->jobs.change = d->change;
	m->arenas = rota_xreallocarray(m->arenas, m->narenas + 1,
				       sizeof(*m->arenas));
	m->arenas[m->narenas++] = d->arena;
	free(d->rows);
	free(d->gone);
	*d = (struct rota_msg_top_rows){ 0 };
	if (m->narenas >= ARENAS_MAX)
		compact(m);
	sort_steps(m);
	count_jobs(m);
	rebuild(m);
	return 0;
}

uint32_t top_node_gpus_used(const struct rota_node_info *n)
{
	uint32_t used = 0;

	for (size_t i = 0; i < n->ngpus; i++)
		used += n->gpus[i].job != 0;
	return used;
}

void top_model_set_nodes(struct top_model *m, struct rota_msg_node_list *n)
{
	struct top_summary *s = &m->sum;

	rota_msg_node_list_clear(&m->nodes);
	m->nodes = *n;
	*n = (struct rota_msg_node_list){ 0 };
	s->cores_busy = s->cores_total = 0;
	s->gpus_busy = s->gpus_total = 0;
	s->nodes_up = s->nodes_down = s->nodes_drained = 0;
	for (size_t i = 0; i < m->nodes.n; i++) {
		const struct rota_node_info *x = &m->nodes.nodes[i];

		s->cores_busy += x->cores_used;
		s->cores_total += x->cores;
		s->gpus_busy += top_node_gpus_used(x);
		s->gpus_total += x->ngpus;
		if (strncmp(x->state, "DRAIN", 5) == 0)
			s->nodes_drained++;
		else if (strcmp(x->state, "UP") == 0)
			s->nodes_up++;
		else
			s->nodes_down++;
	}
}

void top_model_set_counters(struct top_model *m,
			    const struct rota_msg_counters *c)
{
	for (size_t i = 0; i < c->n; i++) {
		if (strcmp(c->names[i], "sched_last_us") == 0)
			m->sum.sched_last_us = c->values[i];
	}
}

void top_model_set_sort(struct top_model *m, enum top_sort key)
{
	if (key >= TOP_SORT_COUNT)
		return;
	m->reverse = key == m->sort ? !m->reverse : false;
	m->sort = key;
	rebuild(m);
}

static int filter_word(struct top_filter *f, const char *w,
		       struct rota_error *err)
{
	const char *eq = strchr(w, '=');
	size_t klen = eq ? (size_t)(eq - w) : 0;

	if (!eq) {
		snprintf(f->text, sizeof(f->text), "%s", w);
		return 0;
	}
	if (klen == 4 && strncmp(w, "user", 4) == 0)
		snprintf(f->user, sizeof(f->user), "%s", eq + 1);
	else if (klen == 5 && strncmp(w, "queue", 5) == 0)
		snprintf(f->queue, sizeof(f->queue), "%s", eq + 1);
	else if (klen == 5 && strncmp(w, "state", 5) == 0) {
		if (rota_job_state_parse(eq + 1, &f->state) < 0)
			return rota_errorf(err, -EINVAL,
					   "state '%s': unknown", eq + 1);
	} else
		return rota_errorf(err, -EINVAL,
				   "'%.*s': not a filter key (user, queue, "
				   "state)", (int)klen, w);
	return 0;
}

int top_model_set_filter(struct top_model *m, const char *expr,
			 struct rota_error *err)
{
	struct top_filter f = { .state = ROTA_JOB_NONE };
	char buf[256];
	char *save = NULL;

	snprintf(buf, sizeof(buf), "%s", expr);
	for (char *w = strtok_r(buf, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		if (filter_word(&f, w, err) < 0)
			return -EINVAL;
	}
	m->filter = f;
	rebuild(m);
	return 0;
}

void top_model_toggle_mine(struct top_model *m)
{
	m->mine = !m->mine;
	rebuild(m);
}

void top_model_toggle_steps(struct top_model *m)
{
	m->hide_steps = !m->hide_steps;
	build_lines(m);
}

void top_model_move(struct top_model *m, long delta)
{
	long c = (long)m->cursor + delta;

	if (!m->nview)
		return;
	if (c < 0)
		c = 0;
	if (c >= (long)m->nview)
		c = (long)m->nview - 1;
	m->cursor = (size_t)c;
	m->selected = m->jobs.rows[m->view[m->cursor]].id;
}

const struct rota_top_row *top_model_row(const struct top_model *m,
					 size_t view_index)
{
	return view_index < m->nview ? &m->jobs.rows[m->view[view_index]]
				     : NULL;
}

const struct top_line *top_model_line(const struct top_model *m, size_t i)
{
	return i < m->nlines ? &m->lines[i] : NULL;
}

size_t top_model_cursor_line(const struct top_model *m)
{
	size_t lo = 0, hi = m->nlines;

	/* a job's own line comes first of those of its view index */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->lines[mid].view < m->cursor)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nlines ? lo : 0;
}

const struct rota_top_row *top_model_selected(const struct top_model *m)
{
	return m->selected ? top_model_row(m, m->cursor) : NULL;
}

size_t top_node_lines(size_t nnodes, size_t cell_w, size_t cols,
		      size_t max_lines)
{
	size_t per = cell_w && cols >= cell_w ? cols / cell_w : 0;
	size_t lines;

	if (!nnodes)
		return 0;
	if (!per)
		return 0;
	lines = (nnodes + per - 1) / per;
	return lines <= max_lines ? lines : 0;
}
