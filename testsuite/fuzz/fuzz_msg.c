// SPDX-License-Identifier: MIT
/*
 * Fuzz target: every message decoder of common/msg.h.  The first input byte
 * picks the codec (its index in 'codecs', modulo their number); the rest is
 * the body.  Seed files start with the index itself: append new codecs,
 * never reorder, or the corpus changes meaning.
 *
 * Per msg.h a refused body returns -EPROTO with a message and leaves the
 * struct empty (it is filled with junk first, so "left empty" is checked,
 * not assumed); an accepted one obeys the field limits, encodes, decodes
 * again to an equal struct, and encodes again to the same text.
 *
 * Longer than STYLE's 800 lines on purpose: six small functions per codec
 * and one table, which read best side by side in one file.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "common/msg.h"
#include "testsuite/fuzz/fuzz.h"

union any {
	struct rota_msg_error error;
	struct rota_job_desc desc;
	uint32_t id;
	struct rota_msg_job_list_req req;
	struct rota_msg_job_list list;
	struct rota_msg_job_rows rows;
	struct rota_msg_job_ids cancel;
	struct rota_msg_text_list text;
	struct rota_node_info node;
	struct rota_msg_node_list nodes;
	struct rota_msg_launch launch;
	struct rota_msg_job_signal sig;
	struct rota_msg_job_end end;
	struct rota_msg_job_usage usage;
	char *name;
	struct rota_msg_counters counters;
	struct {
		uint32_t job_id;
		uint32_t run;
	} jr;
	struct rota_msg_share share;
	struct rota_msg_prio prio;
	struct rota_msg_control control;
	struct rota_msg_top_rows top;
	struct rota_msg_top_req top_req;
	struct rota_msg_resv_create resv_create;
	struct rota_msg_resv_list resv_list;
	struct rota_msg_why why;
	struct {
		char rid[ROTA_RID_LEN + 1];
		char *rest;
		size_t len;
	} rid;
	struct rota_msg_step_create step_create;
	struct rota_msg_step_create_reply step_reply;
	struct rota_step_cred cred;
	struct rota_msg_step_launch step_launch;
	struct rota_msg_step_complete step_complete;
	int64_t ints[2];
	struct {
		uint32_t rank;
		unsigned fd;
		const char *data;	/* into the body decoded */
		size_t n;
	} io;
};

/* ---- comparisons: NULL and an empty vector mean the same on the wire ---- */

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool strv_eq(char *const *a, char *const *b)
{
	size_t i = 0;

	for (; a && b && a[i] && b[i]; i++) {
		if (strcmp(a[i], b[i]) != 0)
			return false;
	}
	return !(a && a[i]) && !(b && b[i]);
}

static bool u32v_eq(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
	return na == nb && (na == 0 || memcmp(a, b, na * sizeof(*a)) == 0);
}

static void check_strv(char *const *v, size_t max_n, size_t max_len)
{
	size_t i = 0;

	for (; v && v[i]; i++)
		FUZZ_CHECK(strlen(v[i]) <= max_len);
	FUZZ_CHECK(i <= max_n);
}

static void check_str(const char *s, size_t max)
{
	FUZZ_CHECK(!s || strlen(s) <= max);
}

/* ---- ERROR ---- */

static int dec_error(const char *b, size_t n, union any *u,
		     struct rota_error *e)
{
	return rota_msg_error_decode(b, n, &u->error, e);
}

static char *enc_error(const union any *u, size_t *len)
{
	return rota_msg_error_encode(u->error.code, u->error.text, len);
}

static bool eq_error(const union any *a, const union any *b)
{
	return a->error.code == b->error.code &&
	       str_eq(a->error.text, b->error.text);
}

static bool empty_error(const union any *u)
{
	return u->error.code == 0 && !u->error.text;
}

static void check_error(const union any *u, size_t len)
{
	FUZZ_CHECK(u->error.code >= -4095 && u->error.code <= -1);
	FUZZ_CHECK(u->error.text && strlen(u->error.text) <= 1024);
}

static void clear_error(union any *u)
{
	rota_msg_error_clear(&u->error);
}

/* ---- SUBMIT ---- */

static int dec_submit(const char *b, size_t n, union any *u,
		      struct rota_error *e)
{
	return rota_msg_submit_decode(b, n, &u->desc, e);
}

static char *enc_submit(const union any *u, size_t *len)
{
	return rota_msg_submit_encode(&u->desc, len);
}

static bool eq_submit(const union any *a, const union any *b)
{
	const struct rota_job_desc *x = &a->desc;
	const struct rota_job_desc *y = &b->desc;

	return str_eq(x->name, y->name) && str_eq(x->script, y->script) &&
	       str_eq(x->workdir, y->workdir) && str_eq(x->output, y->output) &&
	       str_eq(x->error, y->error) && str_eq(x->queue, y->queue) &&
	       str_eq(x->account, y->account) &&
	       str_eq(x->constraint, y->constraint) &&
	       strv_eq(x->env, y->env) && x->ntasks == y->ntasks &&
	       x->cpus_per_task == y->cpus_per_task && x->nodes == y->nodes &&
	       x->mem_mb == y->mem_mb && x->time_limit == y->time_limit &&
	       x->no_requeue == y->no_requeue && str_eq(x->qos, y->qos) &&
	       x->nice == y->nice && x->urgency == y->urgency &&
	       x->ntasks_per_node == y->ntasks_per_node &&
	       x->exclusive == y->exclusive &&
	       x->mem_per_cpu_mb == y->mem_per_cpu_mb &&
	       str_eq(x->reservation, y->reservation) &&
	       x->deadline == y->deadline &&
	       str_eq(x->gpu_type, y->gpu_type) &&
	       x->gpus_per_node == y->gpus_per_node &&
	       x->gpus_per_task == y->gpus_per_task &&
	       str_eq(x->licenses, y->licenses) && str_eq(x->gres, y->gres);
}

static bool empty_submit(const union any *u)
{
	const struct rota_job_desc *d = &u->desc;

	return !d->name && !d->script && !d->workdir && !d->output &&
	       !d->error && !d->queue && !d->account && !d->constraint &&
	       !d->env && !d->ntasks && !d->cpus_per_task && !d->nodes &&
	       !d->mem_mb && !d->time_limit && !d->no_requeue && !d->qos &&
	       !d->nice && !d->urgency && !d->ntasks_per_node &&
	       !d->exclusive && !d->mem_per_cpu_mb && !d->reservation &&
	       !d->gpu_type && !d->gpus_per_node && !d->gpus_per_task &&
	       !d->licenses && !d->gres;
}

static void check_submit(const union any *u, size_t len)
{
	const struct rota_job_desc *d = &u->desc;

	FUZZ_CHECK(d->name && d->script && d->workdir);
	FUZZ_CHECK(d->workdir[0] == '/');
	FUZZ_CHECK(d->ntasks >= 1 && d->cpus_per_task >= 1);
	FUZZ_CHECK(d->time_limit >= 0);
	FUZZ_CHECK(!(d->gpus_per_node && d->gpus_per_task));
	FUZZ_CHECK(!d->gpu_type || d->gpus_per_node || d->gpus_per_task);
	check_str(d->name, ROTA_MSG_NAME_MAX);
	check_str(d->queue, ROTA_MSG_NAME_MAX);
	check_str(d->account, ROTA_MSG_NAME_MAX);
	check_str(d->constraint, ROTA_MSG_NAME_MAX);
	check_str(d->reservation, ROTA_MSG_NAME_MAX);
	check_str(d->gres, ROTA_MSG_NAME_MAX);
	FUZZ_CHECK(!d->mem_mb || !d->mem_per_cpu_mb);
	check_str(d->workdir, ROTA_MSG_PATH_MAX);
	check_str(d->output, ROTA_MSG_PATH_MAX);
	check_str(d->error, ROTA_MSG_PATH_MAX);
	check_strv(d->env, ROTA_MSG_ENV_MAX, ROTA_MSG_PATH_MAX * 8);
}

static void clear_submit(union any *u)
{
	rota_job_desc_clear(&u->desc);
}

/* ---- bodies of one job id: SUBMIT_REPLY, JOB_LIST ---- */

static int dec_submit_reply(const char *b, size_t n, union any *u,
			    struct rota_error *e)
{
	return rota_msg_submit_reply_decode(b, n, &u->id, e);
}

static char *enc_submit_reply(const union any *u, size_t *len)
{
	return rota_msg_submit_reply_encode(u->id, len);
}

static int dec_job_id(const char *b, size_t n, union any *u,
		      struct rota_error *e)
{
	return rota_msg_job_id_decode(b, n, &u->id, e);
}

static char *enc_job_id(const union any *u, size_t *len)
{
	return rota_msg_job_id_encode(u->id, len);
}

static int dec_req(const char *b, size_t n, union any *u, struct rota_error *e)
{
	return rota_msg_job_list_req_decode(b, n, &u->req, e);
}

static char *enc_req(const union any *u, size_t *len)
{
	return rota_msg_job_list_req_encode(&u->req, len);
}

/* 'id' and 'req' share their first bytes: one comparison serves both */
static bool eq_id(const union any *a, const union any *b)
{
	return a->id == b->id;
}

static bool empty_id(const union any *u)
{
	return u->id == 0;
}

/* Nothing allocated: back to empty, as a _clear would leave it. */
static void clear_none(union any *u)
{
	memset(u, 0, sizeof(*u));
}

/* ---- JOB_LIST reply ---- */

static int dec_list(const char *b, size_t n, union any *u, struct rota_error *e)
{
	return rota_msg_job_list_decode(b, n, &u->list, e);
}

static char *enc_list(const union any *u, size_t *len)
{
	return rota_msg_job_list_encode(u->list.jobs, u->list.njobs,
					u->list.now, len);
}

static bool job_eq(const struct rota_job_info *x, const struct rota_job_info *y)
{
	return x->id == y->id && x->state == y->state && x->uid == y->uid &&
	       x->gid == y->gid && str_eq(x->name, y->name) &&
	       str_eq(x->user, y->user) && str_eq(x->account, y->account) &&
	       str_eq(x->queue, y->queue) && str_eq(x->nodelist, y->nodelist) &&
	       str_eq(x->reason, y->reason) && str_eq(x->workdir, y->workdir) &&
	       str_eq(x->output, y->output) && str_eq(x->error, y->error) &&
	       str_eq(x->constraint, y->constraint) && x->ntasks == y->ntasks &&
	       x->cpus_per_task == y->cpus_per_task && x->nodes == y->nodes &&
	       x->mem_mb == y->mem_mb && x->time_limit == y->time_limit &&
	       x->submit_time == y->submit_time &&
	       x->start_time == y->start_time && x->end_time == y->end_time &&
	       x->exit_code == y->exit_code && x->term_signal == y->term_signal &&
	       x->runs == y->runs && x->est_start == y->est_start &&
	       x->mem_per_cpu_mb == y->mem_per_cpu_mb &&
	       str_eq(x->reservation, y->reservation) &&
	       str_eq(x->est_nodes, y->est_nodes) &&
	       str_eq(x->tres_per_node, y->tres_per_node) &&
	       str_eq(x->tres_per_task, y->tres_per_task) &&
	       str_eq(x->gpu_idx, y->gpu_idx);
}

static bool eq_list(const union any *a, const union any *b)
{
	if (a->list.now != b->list.now || a->list.njobs != b->list.njobs)
		return false;
	for (size_t i = 0; i < a->list.njobs; i++) {
		if (!job_eq(&a->list.jobs[i], &b->list.jobs[i]))
			return false;
	}
	return true;
}

static bool empty_list(const union any *u)
{
	return !u->list.jobs && !u->list.njobs && !u->list.now;
}

static void check_list(const union any *u, size_t len)
{
	FUZZ_CHECK(u->list.njobs <= ROTA_MSG_LIST_MAX && u->list.jobs);
	for (size_t i = 0; i < u->list.njobs; i++) {
		const struct rota_job_info *j = &u->list.jobs[i];

		FUZZ_CHECK(j->id >= 1);
		FUZZ_CHECK(j->state > ROTA_JOB_NONE &&
			   j->state < ROTA_JOB_STATE_COUNT);
		FUZZ_CHECK(j->ntasks >= 1 && j->cpus_per_task >= 1);
		FUZZ_CHECK(j->exit_code >= -1 && j->exit_code <= 255);
		FUZZ_CHECK(j->term_signal >= 0 && j->term_signal <= 128);
		check_str(j->name, ROTA_MSG_NAME_MAX);
		check_str(j->reason, 1024);
		check_str(j->nodelist, ROTA_MSG_PATH_MAX);
		check_str(j->est_nodes, ROTA_MSG_PATH_MAX);
	}
}

static void clear_list(union any *u)
{
	rota_msg_job_list_clear(&u->list);
}

/* ---- JOB_ROWS reply: decoded by the scanner into one arena ---- */

static int dec_rows(const char *b, size_t n, union any *u, struct rota_error *e)
{
	return rota_msg_job_rows_decode(b, n, &u->rows, e);
}

static char *enc_rows(const union any *u, size_t *len)
{
	return rota_msg_job_rows_encode(u->rows.rows, u->rows.n, u->rows.now,
					len);
}

static bool eq_rows(const union any *a, const union any *b)
{
	if (a->rows.now != b->rows.now || a->rows.n != b->rows.n)
		return false;
	for (size_t i = 0; i < a->rows.n; i++) {
		const struct rota_job_row *x = &a->rows.rows[i];
		const struct rota_job_row *y = &b->rows.rows[i];

		if (x->id != y->id || x->state != y->state ||
		    x->nodes != y->nodes || x->start_time != y->start_time ||
		    x->end_time != y->end_time || !str_eq(x->queue, y->queue) ||
		    !str_eq(x->name, y->name) || !str_eq(x->user, y->user) ||
		    !str_eq(x->where, y->where) || !str_eq(x->gres, y->gres) ||
		    x->array_job_id != y->array_job_id ||
		    !str_eq(x->array, y->array))
			return false;
	}
	return true;
}

static bool empty_rows(const union any *u)
{
	return !u->rows.rows && !u->rows.n && !u->rows.now && !u->rows.arena;
}

/* A row's string: inside the arena of len + 8 bytes, terminated there. */
static void check_in_arena(const char *s, const struct rota_msg_job_rows *m,
			   size_t len, size_t max)
{
	FUZZ_CHECK(s && s >= m->arena && s < m->arena + len + 8);
	FUZZ_CHECK(memchr(s, '\0', (size_t)(m->arena + len + 8 - s)));
	FUZZ_CHECK(strlen(s) <= max);
}

static void check_rows(const union any *u, size_t len)
{
	const struct rota_msg_job_rows *m = &u->rows;

	FUZZ_CHECK(m->arena && m->now >= 0);
	FUZZ_CHECK(m->n <= ROTA_MSG_LIST_MAX && (m->n == 0 || m->rows));
	for (size_t i = 0; i < m->n; i++) {
		const struct rota_job_row *r = &m->rows[i];

		FUZZ_CHECK(r->id >= 1);
		FUZZ_CHECK(r->state > ROTA_JOB_NONE &&
			   r->state < ROTA_JOB_STATE_COUNT);
		FUZZ_CHECK(r->start_time >= 0 && r->end_time >= 0);
		check_in_arena(r->queue, m, len, ROTA_MSG_NAME_MAX);
		check_in_arena(r->name, m, len, ROTA_MSG_NAME_MAX);
		check_in_arena(r->user, m, len, ROTA_MSG_NAME_MAX);
		check_in_arena(r->where, m, len, ROTA_MSG_PATH_MAX);
		/* an older controller's row has none: "" */
		FUZZ_CHECK(r->gres && strlen(r->gres) <= ROTA_MSG_NAME_MAX);
	}
}

static void clear_rows(union any *u)
{
	rota_msg_job_rows_clear(&u->rows);
}

/* ---- CANCEL and its text-list reply ---- */

static int dec_cancel(const char *b, size_t n, union any *u,
		      struct rota_error *e)
{
	return rota_msg_job_ids_decode(b, n, &u->cancel, e);
}

static char *enc_cancel(const union any *u, size_t *len)
{
	return rota_msg_job_ids_encode(&u->cancel, len);
}

static bool eq_cancel(const union any *a, const union any *b)
{
	return u32v_eq(a->cancel.job_ids, a->cancel.n, b->cancel.job_ids,
		       b->cancel.n);
}

static bool empty_cancel(const union any *u)
{
	return !u->cancel.job_ids && !u->cancel.n;
}

static void check_cancel(const union any *u, size_t len)
{
	FUZZ_CHECK(u->cancel.job_ids && u->cancel.n <= 65536);
}

static void clear_cancel(union any *u)
{
	rota_msg_job_ids_clear(&u->cancel);
}

static int dec_text(const char *b, size_t n, union any *u, struct rota_error *e)
{
	return rota_msg_text_list_decode(b, n, &u->text, e);
}

static char *enc_text(const union any *u, size_t *len)
{
	return rota_msg_text_list_encode(u->text.lines, u->text.n, len);
}

static bool eq_text(const union any *a, const union any *b)
{
	return a->text.n == b->text.n && strv_eq(a->text.lines, b->text.lines);
}

static bool empty_text(const union any *u)
{
	return !u->text.lines && !u->text.n;
}

static void check_text(const union any *u, size_t len)
{
	FUZZ_CHECK(u->text.lines && !u->text.lines[u->text.n]);
	check_strv(u->text.lines, 65536, 1024);
}

static void clear_text(union any *u)
{
	rota_msg_text_list_clear(&u->text);
}

/* ---- NODE_REGISTER and NODE_LIST ---- */

static int dec_node(const char *b, size_t n, union any *u, struct rota_error *e)
{
	return rota_msg_node_decode(b, n, &u->node, e);
}

static char *enc_node(const union any *u, size_t *len)
{
	return rota_msg_node_encode(&u->node, len);
}

static bool gpus_eq(const struct rota_node_info *x,
		    const struct rota_node_info *y)
{
	if (x->ngpus != y->ngpus)
		return false;
	for (size_t i = 0; i < x->ngpus; i++) {
		const struct rota_gpu_info *a = &x->gpus[i], *b = &y->gpus[i];

		if (!str_eq(a->type, b->type) || !str_eq(a->model, b->model) ||
		    !str_eq(a->busid, b->busid) || !str_eq(a->cores, b->cores) ||
		    a->numa != b->numa || a->job != b->job)
			return false;
	}
	return true;
}

static bool node_eq(const struct rota_node_info *x,
		    const struct rota_node_info *y)
{
	return gpus_eq(x, y) && str_eq(x->gres, y->gres) &&
	       str_eq(x->gres_used, y->gres_used) &&
	       str_eq(x->name, y->name) && str_eq(x->state, y->state) &&
	       str_eq(x->reason, y->reason) && str_eq(x->addr, y->addr) &&
	       strv_eq(x->features, y->features) && x->sockets == y->sockets &&
	       x->cores == y->cores && x->pus == y->pus &&
	       x->cores_used == y->cores_used &&
	       x->cores_kept == y->cores_kept &&
	       x->cores_kept_used == y->cores_kept_used &&
	       x->memory_mb == y->memory_mb &&
	       x->memory_used_mb == y->memory_used_mb &&
	       u32v_eq(x->jobs, x->njobs, y->jobs, y->njobs) &&
	       !x->runs == !y->runs &&
	       (!x->runs || u32v_eq(x->runs, x->njobs, y->runs, y->njobs));
}

static bool node_empty(const struct rota_node_info *n)
{
	return !n->name && !n->state && !n->reason && !n->addr &&
	       !n->features && !n->sockets && !n->cores && !n->pus &&
	       !n->cores_used && !n->cores_kept && !n->cores_kept_used &&
	       !n->memory_mb && !n->memory_used_mb &&
	       !n->jobs && !n->runs && !n->njobs && !n->gpus && !n->ngpus &&
	       !n->gres && !n->gres_used;
}

static void node_check(const struct rota_node_info *n)
{
	FUZZ_CHECK(n->name && n->features && n->jobs);
	FUZZ_CHECK(n->cores >= 1 && n->sockets >= 1 && n->pus >= 1);
	FUZZ_CHECK(n->cores_used <= n->cores);
	FUZZ_CHECK(n->cores_kept_used <= n->cores_kept &&
		   n->cores_kept <= n->cores);
	check_str(n->name, ROTA_MSG_NAME_MAX);
	check_str(n->state, 32);
	check_str(n->reason, 1024);
	check_str(n->addr, 64);
	check_strv(n->features, 256, 64);
	FUZZ_CHECK(n->ngpus <= ROTA_MSG_GPUS_MAX && (!n->ngpus || n->gpus));
	for (size_t i = 0; i < n->ngpus; i++) {
		FUZZ_CHECK(n->gpus[i].type && n->gpus[i].model &&
			   n->gpus[i].busid && n->gpus[i].cores);
		check_str(n->gpus[i].type, 31);
		check_str(n->gpus[i].model, 95);
		check_str(n->gpus[i].busid, 15);
		check_str(n->gpus[i].cores, 4096);
	}
	check_str(n->gres, 1024);
}

static bool eq_node(const union any *a, const union any *b)
{
	return node_eq(&a->node, &b->node);
}

static bool empty_node(const union any *u)
{
	return node_empty(&u->node);
}

static void check_node(const union any *u, size_t len)
{
	node_check(&u->node);
}

static void clear_node(union any *u)
{
	rota_node_info_clear(&u->node);
}

static int dec_nodes(const char *b, size_t n, union any *u,
		     struct rota_error *e)
{
	return rota_msg_node_list_decode(b, n, &u->nodes, e);
}

static char *enc_nodes(const union any *u, size_t *len)
{
	return rota_msg_node_list_encode(u->nodes.nodes, u->nodes.n, len);
}

static bool eq_nodes(const union any *a, const union any *b)
{
	if (a->nodes.n != b->nodes.n)
		return false;
	for (size_t i = 0; i < a->nodes.n; i++) {
		if (!node_eq(&a->nodes.nodes[i], &b->nodes.nodes[i]))
			return false;
	}
	return true;
}

static bool empty_nodes(const union any *u)
{
	return !u->nodes.nodes && !u->nodes.n;
}

static void check_nodes(const union any *u, size_t len)
{
	FUZZ_CHECK(u->nodes.nodes && u->nodes.n <= 65536);
	for (size_t i = 0; i < u->nodes.n; i++)
		node_check(&u->nodes.nodes[i]);
}

static void clear_nodes(union any *u)
{
	rota_msg_node_list_clear(&u->nodes);
}

/* ---- LAUNCH, SIGNAL_JOB, JOB_END ---- */

static int dec_launch(const char *b, size_t n, union any *u,
		      struct rota_error *e)
{
	return rota_msg_launch_decode(b, n, &u->launch, e);
}

static char *enc_launch(const union any *u, size_t *len)
{
	return rota_msg_launch_encode(&u->launch, len);
}

static bool eq_launch(const union any *a, const union any *b)
{
	const struct rota_msg_launch *x = &a->launch;
	const struct rota_msg_launch *y = &b->launch;

	return x->job_id == y->job_id && x->run == y->run && x->uid == y->uid &&
	       x->gid == y->gid &&
	       str_eq(x->name, y->name) && str_eq(x->script, y->script) &&
	       str_eq(x->workdir, y->workdir) && str_eq(x->output, y->output) &&
	       str_eq(x->error, y->error) && str_eq(x->queue, y->queue) &&
	       str_eq(x->nodelist, y->nodelist) && strv_eq(x->env, y->env) &&
	       u32v_eq(x->cores, x->ncores, y->cores, y->ncores) &&
	       u32v_eq(x->gpus, x->ngpus, y->gpus, y->ngpus) &&
	       x->ntasks == y->ntasks && x->time_limit == y->time_limit;
}

static bool empty_launch(const union any *u)
{
	const struct rota_msg_launch *m = &u->launch;

	return !m->job_id && !m->run && !m->uid && !m->gid && !m->name &&
	       !m->script &&
	       !m->workdir && !m->output && !m->error && !m->queue &&
	       !m->nodelist && !m->env && !m->cores && !m->ncores &&
	       !m->ntasks && !m->time_limit && !m->gpus && !m->ngpus;
}

static void check_launch(const union any *u, size_t len)
{
	const struct rota_msg_launch *m = &u->launch;

	FUZZ_CHECK(m->job_id >= 1 && m->run >= 1);
	FUZZ_CHECK(m->ntasks >= 1 && m->time_limit >= 0);
	FUZZ_CHECK(m->env && m->cores && m->ncores >= 1);
	FUZZ_CHECK(m->workdir[0] == '/' && m->output[0] == '/');
	FUZZ_CHECK(!m->error || m->error[0] == '/');
	check_str(m->name, ROTA_MSG_NAME_MAX);
	check_str(m->queue, ROTA_MSG_NAME_MAX);
	check_str(m->nodelist, ROTA_MSG_PATH_MAX);
	check_strv(m->env, ROTA_MSG_ENV_MAX + 32, ROTA_MSG_PATH_MAX * 8);
}

static void clear_launch(union any *u)
{
	rota_msg_launch_clear(&u->launch);
}

static int dec_signal(const char *b, size_t n, union any *u,
		      struct rota_error *e)
{
	return rota_msg_job_signal_decode(b, n, &u->sig, e);
}

static char *enc_signal(const union any *u, size_t *len)
{
	return rota_msg_job_signal_encode(&u->sig, len);
}

static bool eq_signal(const union any *a, const union any *b)
{
	return a->sig.job_id == b->sig.job_id && a->sig.run == b->sig.run &&
	       a->sig.signo == b->sig.signo && a->sig.cancel == b->sig.cancel;
}

static bool empty_signal(const union any *u)
{
	return !u->sig.job_id && !u->sig.run && !u->sig.signo &&
	       !u->sig.cancel;
}

static void check_signal(const union any *u, size_t len)
{
	FUZZ_CHECK(u->sig.job_id >= 1 && u->sig.run >= 1);
	FUZZ_CHECK(u->sig.signo >= 1 && u->sig.signo <= SIGRTMAX);
}

static int dec_end(const char *b, size_t n, union any *u, struct rota_error *e)
{
	return rota_msg_job_end_decode(b, n, &u->end, e);
}

static char *enc_end(const union any *u, size_t *len)
{
	return rota_msg_job_end_encode(&u->end, len);
}

static bool eq_end(const union any *a, const union any *b)
{
	const struct rota_msg_job_end *x = &a->end;
	const struct rota_msg_job_end *y = &b->end;

	return x->job_id == y->job_id && x->run == y->run &&
	       x->state == y->state && x->exit_code == y->exit_code &&
	       x->term_signal == y->term_signal &&
	       x->start_time == y->start_time && x->end_time == y->end_time &&
	       str_eq(x->text, y->text);
}

static bool empty_end(const union any *u)
{
	const struct rota_msg_job_end *m = &u->end;

	return !m->job_id && !m->run && !m->state && !m->exit_code &&
	       !m->term_signal && !m->start_time && !m->end_time && !m->text;
}

static void check_end(const union any *u, size_t len)
{
	FUZZ_CHECK(u->end.job_id >= 1 && u->end.run >= 1);
	FUZZ_CHECK(rota_job_state_is_final(u->end.state));
	check_str(u->end.text, 1024);
}

static void clear_end(union any *u)
{
	rota_msg_job_end_clear(&u->end);
}

/* ---- JOB_USAGE: running jobs' cgroup totals ---- */

static int dec_usage(const char *b, size_t n, union any *u,
		     struct rota_error *e)
{
	return rota_msg_job_usage_decode(b, n, &u->usage, e);
}

static char *enc_usage(const union any *u, size_t *len)
{
	return rota_msg_job_usage_encode(&u->usage, len);
}

static bool eq_usage(const union any *a, const union any *b)
{
	const struct rota_msg_job_usage *x = &a->usage;
	const struct rota_msg_job_usage *y = &b->usage;

	return x->njobs == y->njobs &&
	       (!x->njobs || !memcmp(x->jobs, y->jobs,
				     x->njobs * sizeof(*x->jobs)));
}

static bool empty_usage(const union any *u)
{
	return !u->usage.jobs && !u->usage.njobs;
}

static void check_usage(const union any *u, size_t len)
{
	FUZZ_CHECK(u->usage.njobs <= ROTA_MSG_JOB_USAGE_MAX);
	FUZZ_CHECK(!u->usage.njobs || u->usage.jobs);
	for (size_t i = 0; i < u->usage.njobs; i++)
		FUZZ_CHECK(u->usage.jobs[i].job_id >= 1 &&
			   u->usage.jobs[i].cpu_usec <= INT64_MAX &&
			   u->usage.jobs[i].mem_bytes <= INT64_MAX &&
			   u->usage.jobs[i].io_bytes <= INT64_MAX);
}

static void clear_usage(union any *u)
{
	rota_msg_job_usage_clear(&u->usage);
}

/* ---- JOB_END_ACK: a job id and its run ---- */

static int dec_job_run(const char *b, size_t n, union any *u,
		       struct rota_error *e)
{
	return rota_msg_job_run_decode(b, n, &u->jr.job_id, &u->jr.run, e);
}

static char *enc_job_run(const union any *u, size_t *len)
{
	return rota_msg_job_run_encode(u->jr.job_id, u->jr.run, len);
}

static bool eq_job_run(const union any *a, const union any *b)
{
	return a->jr.job_id == b->jr.job_id && a->jr.run == b->jr.run;
}

static bool empty_job_run(const union any *u)
{
	return !u->jr.job_id && !u->jr.run;
}

static void check_job_run(const union any *u, size_t len)
{
	FUZZ_CHECK(u->jr.job_id >= 1 && u->jr.run >= 1);
}

/* ---- HEARTBEAT: one name ---- */

static int dec_name(const char *b, size_t n, union any *u, struct rota_error *e)
{
	return rota_msg_name_decode(b, n, &u->name, e);
}

static char *enc_name(const union any *u, size_t *len)
{
	return rota_msg_name_encode(u->name, len);
}

static bool eq_name(const union any *a, const union any *b)
{
	return str_eq(a->name, b->name);
}

static bool empty_name(const union any *u)
{
	return !u->name;
}

static void check_name(const union any *u, size_t len)
{
	FUZZ_CHECK(u->name && strlen(u->name) <= ROTA_MSG_NAME_MAX);
}

static void clear_name(union any *u)
{
	free(u->name);
	u->name = NULL;
}

/* ---- DIAG_REPLY: named counters ---- */

static int dec_counters(const char *b, size_t n, union any *u,
			struct rota_error *e)
{
	return rota_msg_counters_decode(b, n, &u->counters, e);
}

static char *enc_counters(const union any *u, size_t *len)
{
	return rota_msg_counters_encode(u->counters.names, u->counters.values,
					u->counters.n, len);
}

static bool eq_counters(const union any *a, const union any *b)
{
	const struct rota_msg_counters *x = &a->counters;
	const struct rota_msg_counters *y = &b->counters;

	if (x->n != y->n)
		return false;
	for (size_t i = 0; i < x->n; i++) {
		if (strcmp(x->names[i], y->names[i]) != 0 ||
		    x->values[i] != y->values[i])
			return false;
	}
	return true;
}

static bool empty_counters(const union any *u)
{
	return !u->counters.names && !u->counters.values && !u->counters.n;
}

static void check_counters(const union any *u, size_t len)
{
	const struct rota_msg_counters *m = &u->counters;

	FUZZ_CHECK(m->names && m->values && m->n <= 1024);
	FUZZ_CHECK(!m->names[m->n]);
	for (size_t i = 0; i < m->n; i++) {
		FUZZ_CHECK(m->names[i][0] && strlen(m->names[i]) <= 64);
		FUZZ_CHECK(strspn(m->names[i], "abcdefghijklmnopqrstuvwxyz_") ==
			   strlen(m->names[i]));
	}
}

static void clear_counters(union any *u)
{
	rota_msg_counters_clear(&u->counters);
}

/* ---- SHARE_REPLY: the fairshare tree ---- */

static int dec_share(const char *b, size_t n, union any *u,
		     struct rota_error *e)
{
	return rota_msg_share_decode(b, n, &u->share, e);
}

static char *enc_share(const union any *u, size_t *len)
{
	return rota_msg_share_encode(&u->share, len);
}

/* Equal as numbers, NAN equal to NAN (level_fs "none"). */
static bool num_eq(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

static bool eq_share_row(const struct rota_share_row *x,
			 const struct rota_share_row *y)
{
	return str_eq(x->account, y->account) && str_eq(x->user, y->user) &&
	       x->depth == y->depth && num_eq(x->shares, y->shares) &&
	       num_eq(x->shares_norm, y->shares_norm) &&
	       num_eq(x->shares_level, y->shares_level) &&
	       num_eq(x->usage, y->usage) &&
	       num_eq(x->usage_level, y->usage_level) &&
	       num_eq(x->usage_norm, y->usage_norm) &&
	       num_eq(x->usage_eff, y->usage_eff) &&
	       num_eq(x->level_fs, y->level_fs) &&
	       num_eq(x->value, y->value) && num_eq(x->factor, y->factor) &&
	       num_eq(x->tickets, y->tickets) && x->pending == y->pending &&
	       x->running == y->running && num_eq(x->ltarget, y->ltarget) &&
	       num_eq(x->starget, y->starget) &&
	       num_eq(x->rtarget, y->rtarget);
}

static bool eq_share(const union any *a, const union any *b)
{
	const struct rota_msg_share *x = &a->share;
	const struct rota_msg_share *y = &b->share;

	if (!str_eq(x->plugin, y->plugin) ||
	    !str_eq(x->convention, y->convention) ||
	    !str_eq(x->decay, y->decay) || x->half_life != y->half_life ||
	    x->time != y->time || x->n != y->n)
		return false;
	for (size_t i = 0; i < x->n; i++) {
		if (!eq_share_row(&x->rows[i], &y->rows[i]))
			return false;
	}
	return true;
}

static bool empty_share(const union any *u)
{
	return !u->share.plugin && !u->share.rows && !u->share.n;
}

static void check_share(const union any *u, size_t len)
{
	const struct rota_msg_share *m = &u->share;

	FUZZ_CHECK(m->plugin && m->convention && m->decay && m->rows);
	FUZZ_CHECK(m->half_life > 0);
	for (size_t i = 0; i < m->n; i++) {
		const struct rota_share_row *r = &m->rows[i];

		FUZZ_CHECK(r->account && strlen(r->account) <= ROTA_MSG_NAME_MAX);
		FUZZ_CHECK(!r->user || strlen(r->user) <= ROTA_MSG_NAME_MAX);
		FUZZ_CHECK(isfinite(r->usage) && isfinite(r->factor));
		FUZZ_CHECK(r->depth <= 4096);
	}
}

static void clear_share(union any *u)
{
	rota_msg_share_clear(&u->share);
}

static void check_nothing(const union any *u, size_t len)
{
}

/* ---- HOLD, RELEASE, NICE, UPDATE, REQUEUE; TOP_ROWS (issue 8) ---- */

static int dec_control(const char *b, size_t n, union any *u,
		       struct rota_error *e)
{
	return rota_msg_control_decode(b, n, &u->control, e);
}

static char *enc_control(const union any *u, size_t *len)
{
	return rota_msg_control_encode(&u->control, len);
}

/* key=value pairs: UPDATE's, RESV_CREATE's. */
static bool kv_eq(const struct rota_msg_kv *x, size_t nx,
		  const struct rota_msg_kv *y, size_t ny)
{
	if (nx != ny)
		return false;
	for (size_t i = 0; i < nx; i++) {
		if (!str_eq(x[i].key, y[i].key) ||
		    !str_eq(x[i].value, y[i].value))
			return false;
	}
	return true;
}

static void check_kv(const struct rota_msg_kv *kv, size_t n, size_t max)
{
	FUZZ_CHECK(n <= max);
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(kv[i].key && *kv[i].key);
		FUZZ_CHECK(strlen(kv[i].key) <= ROTA_MSG_CONTROL_KEY_MAX);
		FUZZ_CHECK(kv[i].value &&
			   strlen(kv[i].value) <= ROTA_MSG_NAME_MAX);
	}
}

static bool eq_control(const union any *a, const union any *b)
{
	const struct rota_msg_control *x = &a->control;
	const struct rota_msg_control *y = &b->control;

	return u32v_eq(x->job_ids, x->n, y->job_ids, y->n) &&
	       x->operator_hold == y->operator_hold &&
	       x->has_nice == y->has_nice && x->nice == y->nice &&
	       x->relative == y->relative &&
	       kv_eq(x->set, x->nset, y->set, y->nset);
}

static bool empty_control(const union any *u)
{
	const struct rota_msg_control *m = &u->control;

	return !m->job_ids && !m->n && !m->set && !m->nset &&
	       !m->operator_hold && !m->has_nice && !m->nice && !m->relative;
}

static void check_control(const union any *u, size_t len)
{
	const struct rota_msg_control *m = &u->control;

	FUZZ_CHECK(m->n <= 65536);
	FUZZ_CHECK(m->nice >= -ROTA_MSG_NICE_LIMIT &&
		   m->nice <= ROTA_MSG_NICE_LIMIT);
	check_kv(m->set, m->nset, ROTA_MSG_CONTROL_SET_MAX);
}

static void clear_control(union any *u)
{
	rota_msg_control_clear(&u->control);
}

static int dec_top(const char *b, size_t n, union any *u,
		   struct rota_error *e)
{
	return rota_msg_top_rows_decode(b, n, &u->top, e);
}

static char *enc_top(const union any *u, size_t *len)
{
	return rota_msg_top_rows_encode(&u->top, len);
}

static bool eq_top_steps(const struct rota_msg_top_rows *a,
			 const struct rota_msg_top_rows *b)
{
	if (a->nsteps != b->nsteps)
		return false;
	for (size_t i = 0; i < a->nsteps; i++) {
		const struct rota_top_step *x = &a->steps[i];
		const struct rota_top_step *y = &b->steps[i];

		if (x->job_id != y->job_id || x->step_id != y->step_id ||
		    x->ntasks != y->ntasks || x->nnodes != y->nnodes ||
		    x->start != y->start || !str_eq(x->name, y->name) ||
		    !str_eq(x->nodes, y->nodes))
			return false;
	}
	return true;
}

static bool eq_top(const union any *a, const union any *b)
{
	if (a->top.now != b->top.now || a->top.n != b->top.n ||
	    !eq_top_steps(&a->top, &b->top))
		return false;
	/* the delta keys (issue 23) */
	if (a->top.change != b->top.change || a->top.since != b->top.since ||
	    !u32v_eq(a->top.gone, a->top.ngone, b->top.gone, b->top.ngone))
		return false;
	for (size_t i = 0; i < a->top.n; i++) {
		const struct rota_top_row *x = &a->top.rows[i];
		const struct rota_top_row *y = &b->top.rows[i];

		if (x->id != y->id || x->state != y->state ||
		    x->cores != y->cores || x->nodes != y->nodes ||
		    x->submit_time != y->submit_time ||
		    x->start_time != y->start_time ||
		    x->end_time != y->end_time ||
		    x->priority_milli != y->priority_milli ||
		    x->nice != y->nice || x->urgency != y->urgency ||
		    x->hold != y->hold || x->est_start != y->est_start ||
		    !str_eq(x->queue, y->queue) ||
		    !str_eq(x->user, y->user) ||
		    !str_eq(x->account, y->account) ||
		    !str_eq(x->name, y->name) || !str_eq(x->where, y->where) ||
		    !str_eq(x->array, y->array))
			return false;
	}
	return true;
}

static bool empty_top(const union any *u)
{
	return !u->top.rows && !u->top.n && !u->top.now && !u->top.arena &&
	       !u->top.steps && !u->top.nsteps && !u->top.change &&
	       !u->top.since && !u->top.gone && !u->top.ngone;
}

static void check_top_str(const char *s, const struct rota_msg_top_rows *m,
			  size_t len, size_t max)
{
	FUZZ_CHECK(s && s >= m->arena && s < m->arena + len + 8);
	FUZZ_CHECK(memchr(s, '\0', (size_t)(m->arena + len + 8 - s)));
	FUZZ_CHECK(strlen(s) <= max);
}

static void check_top(const union any *u, size_t len)
{
	const struct rota_msg_top_rows *m = &u->top;

	FUZZ_CHECK(m->arena && m->now >= 0);
	FUZZ_CHECK(m->n <= ROTA_MSG_LIST_MAX && (m->n == 0 || m->rows));
	/* a delta has a change number at least its base; gone only then */
	FUZZ_CHECK(m->change >= 0 && m->since >= 0 && m->since <= m->change);
	FUZZ_CHECK(m->since || !m->ngone);
	FUZZ_CHECK(m->ngone <= ROTA_MSG_LIST_MAX &&
		   (m->ngone == 0 || m->gone));
	for (size_t i = 0; i < m->ngone; i++)
		FUZZ_CHECK(m->gone[i] >= 1);
	for (size_t i = 0; i < m->n; i++) {
		const struct rota_top_row *r = &m->rows[i];

		FUZZ_CHECK(r->id >= 1 && r->hold <= 2 && r->urgency <= 31);
		FUZZ_CHECK(r->state > ROTA_JOB_NONE &&
			   r->state < ROTA_JOB_STATE_COUNT);
		FUZZ_CHECK(r->submit_time >= 0 && r->start_time >= 0 &&
			   r->end_time >= 0);
		check_top_str(r->queue, m, len, ROTA_MSG_NAME_MAX);
		check_top_str(r->user, m, len, ROTA_MSG_NAME_MAX);
		check_top_str(r->account, m, len, ROTA_MSG_NAME_MAX);
		check_top_str(r->name, m, len, ROTA_MSG_NAME_MAX);
		check_top_str(r->where, m, len, ROTA_MSG_PATH_MAX);
		check_top_str(r->array, m, len, ROTA_MSG_PATH_MAX);
	}
	FUZZ_CHECK(m->nsteps <= ROTA_MSG_LIST_MAX &&
		   (m->nsteps == 0 || m->steps));
	for (size_t i = 0; i < m->nsteps; i++) {
		const struct rota_top_step *st = &m->steps[i];

		FUZZ_CHECK(st->job_id >= 1 && st->step_id != ROTA_STEP_NONE &&
			   st->start >= 0);
		check_top_str(st->name, m, len, ROTA_MSG_NAME_MAX);
		check_top_str(st->nodes, m, len, ROTA_MSG_PATH_MAX);
	}
}

static void clear_top(union any *u)
{
	rota_msg_top_rows_clear(&u->top);
}

/* TOP_ROWS' request: {} or {"since":N} (issue 23) */
static int dec_top_req(const char *b, size_t n, union any *u,
		       struct rota_error *e)
{
	return rota_msg_top_req_decode(b, n, &u->top_req, e);
}

static char *enc_top_req(const union any *u, size_t *len)
{
	return rota_msg_top_req_encode(&u->top_req, len);
}

static bool eq_top_req(const union any *a, const union any *b)
{
	return a->top_req.has_since == b->top_req.has_since &&
	       a->top_req.since == b->top_req.since;
}

static bool empty_top_req(const union any *u)
{
	return !u->top_req.has_since && !u->top_req.since;
}

static void check_top_req(const union any *u, size_t len)
{
	FUZZ_CHECK(u->top_req.since >= 0);
	FUZZ_CHECK(u->top_req.has_since || !u->top_req.since);
}

/* ---- the table: append only (the first byte of each corpus file) ---- */

struct codec {
	const char *name;
	int (*decode)(const char *buf, size_t len, union any *u,
		      struct rota_error *err);
	char *(*encode)(const union any *u, size_t *len);
	bool (*equal)(const union any *a, const union any *b);
	bool (*empty)(const union any *u);
	void (*check)(const union any *u, size_t len);
	void (*clear)(union any *u);
	bool raw;	/* a raw body (STEP_IO): its bytes may hold a NUL */
};

#define CODEC(n, d, e, eq, em, ch, cl)                                         \
	{                                                                      \
		.name = n, .decode = d, .encode = e, .equal = eq, .empty = em, \
		.check = ch, .clear = cl,                                      \
	}

/* ---- a request's "rid", taken off before its own decoder (issue 18) ---- */

static int dec_rid(const char *b, size_t n, union any *u, struct rota_error *e)
{
	return rota_msg_rid_take(b, n, u->rid.rid, &u->rid.rest, &u->rid.len,
				 e);
}

static char *enc_rid(const union any *u, size_t *len)
{
	char *body;

	if (!u->rid.rid[0]) {
		*len = 2;
		body = malloc(3);
		FUZZ_CHECK(body);
		memcpy(body, "{}", 3);
		return body;
	}
	body = rota_msg_rid_add(u->rid.rest, u->rid.len, u->rid.rid, len);
	FUZZ_CHECK(body);
	return body;
}

static bool eq_rid(const union any *a, const union any *b)
{
	return strcmp(a->rid.rid, b->rid.rid) == 0 &&
	       str_eq(a->rid.rest, b->rid.rest);
}

static bool empty_rid(const union any *u)
{
	return !u->rid.rid[0] && !u->rid.rest;
}

static void check_rid(const union any *u, size_t len)
{
	FUZZ_CHECK(!u->rid.rid[0] || rota_rid_is_valid(u->rid.rid));
	/* a body with an id is given back without it, and only then */
	FUZZ_CHECK(!u->rid.rid[0] == !u->rid.rest);
	FUZZ_CHECK(!u->rid.rest || u->rid.len < len);
}

static void clear_rid(union any *u)
{
	free(u->rid.rest);
	u->rid.rest = NULL;
	u->rid.rid[0] = '\0';
}

/* ---- RESV_CREATE, RESV_LIST_REPLY (issue 6) ---- */

static int dec_resv_create(const char *b, size_t n, union any *u,
			   struct rota_error *e)
{
	return rota_msg_resv_create_decode(b, n, &u->resv_create, e);
}

static char *enc_resv_create(const union any *u, size_t *len)
{
	return rota_msg_resv_create_encode(&u->resv_create, len);
}

static bool eq_resv_create(const union any *a, const union any *b)
{
	return kv_eq(a->resv_create.set, a->resv_create.nset,
		     b->resv_create.set, b->resv_create.nset);
}

static bool empty_resv_create(const union any *u)
{
	return !u->resv_create.set && !u->resv_create.nset;
}

static void check_resv_create(const union any *u, size_t len)
{
	check_kv(u->resv_create.set, u->resv_create.nset,
		 ROTA_MSG_RESV_SET_MAX);
}

static void clear_resv_create(union any *u)
{
	rota_msg_resv_create_clear(&u->resv_create);
}

static int dec_resv_list(const char *b, size_t n, union any *u,
			 struct rota_error *e)
{
	return rota_msg_resv_list_decode(b, n, &u->resv_list, e);
}

static char *enc_resv_list(const union any *u, size_t *len)
{
	return rota_msg_resv_list_encode(&u->resv_list, len);
}

static bool eq_resv(const struct rota_resv_info *x,
		    const struct rota_resv_info *y)
{
	return str_eq(x->name, y->name) && str_eq(x->state, y->state) &&
	       x->start == y->start && x->end == y->end &&
	       str_eq(x->nodes, y->nodes) && x->cores == y->cores &&
	       x->core_count == y->core_count && strv_eq(x->users, y->users) &&
	       strv_eq(x->accounts, y->accounts) && x->gpus == y->gpus &&
	       x->gpu_count == y->gpu_count &&
	       str_eq(x->licenses, y->licenses);
}

static bool eq_resv_list(const union any *a, const union any *b)
{
	if (a->resv_list.n != b->resv_list.n ||
	    a->resv_list.now != b->resv_list.now)
		return false;
	for (size_t i = 0; i < a->resv_list.n; i++)
		if (!eq_resv(&a->resv_list.resvs[i], &b->resv_list.resvs[i]))
			return false;
	return true;
}

static bool empty_resv_list(const union any *u)
{
	return !u->resv_list.resvs && !u->resv_list.n && !u->resv_list.now;
}

static void check_resv_list(const union any *u, size_t len)
{
	for (size_t i = 0; i < u->resv_list.n; i++) {
		const struct rota_resv_info *r = &u->resv_list.resvs[i];

		FUZZ_CHECK(r->name && r->state && r->nodes);
		check_str(r->name, ROTA_MSG_NAME_MAX);
		check_strv(r->users, 4096, ROTA_MSG_NAME_MAX);
		check_strv(r->accounts, 4096, ROTA_MSG_NAME_MAX);
	}
	FUZZ_CHECK(u->resv_list.n <= len);
}

static void clear_resv_list(union any *u)
{
	rota_msg_resv_list_clear(&u->resv_list);
}

/* ---- WHY_REPLY (issue 6) ---- */

static int dec_why(const char *b, size_t n, union any *u, struct rota_error *e)
{
	return rota_msg_why_decode(b, n, &u->why, e);
}

static char *enc_why(const union any *u, size_t *len)
{
	return rota_msg_why_encode(&u->why, len);
}

static bool why_job_eq(const struct rota_why_job *x,
		       const struct rota_why_job *y)
{
	return x->id == y->id && str_eq(x->queue, y->queue) &&
	       x->est_start == y->est_start &&
	       str_eq(x->est_nodes, y->est_nodes);
}

static bool eq_why(const union any *a, const union any *b)
{
	const struct rota_msg_why *x = &a->why, *y = &b->why;

	if (x->now != y->now || x->id != y->id || x->state != y->state ||
	    !str_eq(x->user, y->user) || !str_eq(x->queue, y->queue) ||
	    !str_eq(x->reason, y->reason) || !str_eq(x->sched, y->sched) ||
	    !str_eq(x->reservation, y->reservation) || x->hold != y->hold ||
	    x->limited != y->limited || x->ntasks != y->ntasks ||
	    x->cpus_per_task != y->cpus_per_task ||
	    x->time_limit != y->time_limit || x->est_start != y->est_start ||
	    !str_eq(x->est_nodes, y->est_nodes) || x->nahead != y->nahead ||
	    !why_job_eq(&x->first, &y->first) || x->nresv != y->nresv ||
	    x->resv_total != y->resv_total || x->fits_now != y->fits_now ||
	    x->fit_limit != y->fit_limit || x->fit_tasks != y->fit_tasks ||
	    !str_eq(x->tres, y->tres) || x->tres_per_task != y->tres_per_task ||
	    x->gpus_free != y->gpus_free || x->gpus_total != y->gpus_total ||
	    !str_eq(x->gres, y->gres) || x->gres_free != y->gres_free ||
	    x->gres_total != y->gres_total)
		return false;
	for (size_t i = 0; i < x->nresv; i++)
		if (!why_job_eq(&x->resv[i], &y->resv[i]))
			return false;
	return true;
}

static bool empty_why(const union any *u)
{
	return !u->why.id && !u->why.user && !u->why.resv && !u->why.nresv &&
	       !u->why.first.queue && !u->why.now;
}

static void check_why(const union any *u, size_t len)
{
	const struct rota_msg_why *m = &u->why;

	FUZZ_CHECK(m->id >= 1 && m->hold <= 2);
	FUZZ_CHECK(m->state > ROTA_JOB_NONE && m->state < ROTA_JOB_STATE_COUNT);
	FUZZ_CHECK(m->nresv <= ROTA_MSG_WHY_AHEAD_MAX &&
		   m->nresv <= m->resv_total);
	FUZZ_CHECK(m->user && m->queue && m->reason && m->sched &&
		   m->reservation && m->est_nodes && m->first.queue);
	check_str(m->reason, 1024);
	check_str(m->est_nodes, ROTA_MSG_PATH_MAX);
	for (size_t i = 0; i < m->nresv; i++)
		check_str(m->resv[i].est_nodes, ROTA_MSG_PATH_MAX);
	FUZZ_CHECK(m->nresv <= len);
}

static void clear_why(union any *u)
{
	rota_msg_why_clear(&u->why);
}

/* ---- job steps (issue 19): STEP_CREATE, its reply, the credential,
 * STEP_LAUNCH, STEP_COMPLETE, the small frames, STEP_IO ---- */

static int dec_step_create(const char *b, size_t n, union any *u,
			   struct rota_error *e)
{
	return rota_msg_step_create_decode(b, n, &u->step_create, e);
}

static char *enc_step_create(const union any *u, size_t *len)
{
	return rota_msg_step_create_encode(&u->step_create, len);
}

static bool eq_step_create(const union any *a, const union any *b)
{
	const struct rota_msg_step_create *x = &a->step_create;
	const struct rota_msg_step_create *y = &b->step_create;

	return x->job_id == y->job_id && x->ntasks == y->ntasks &&
	       x->nnodes == y->nnodes && x->cpus_per_task == y->cpus_per_task &&
	       x->ntasks_per_node == y->ntasks_per_node &&
	       x->overlap == y->overlap && str_eq(x->nodelist, y->nodelist) &&
	       str_eq(x->name, y->name);
}

static bool empty_step_create(const union any *u)
{
	const struct rota_msg_step_create *m = &u->step_create;

	return !m->job_id && !m->ntasks && !m->nnodes && !m->cpus_per_task &&
	       !m->ntasks_per_node && !m->overlap && !m->nodelist && !m->name;
}

static void check_step_create(const union any *u, size_t len)
{
	const struct rota_msg_step_create *m = &u->step_create;

	FUZZ_CHECK(m->job_id >= 1);
	FUZZ_CHECK(m->ntasks <= ROTA_STEP_TASKS_MAX &&
		   m->nnodes <= ROTA_STEP_TASKS_MAX);
	FUZZ_CHECK(m->cpus_per_task <= 65536 && m->ntasks_per_node <= 65536);
	check_str(m->nodelist, ROTA_MSG_PATH_MAX);
	check_str(m->name, ROTA_MSG_NAME_MAX);
}

static void clear_step_create(union any *u)
{
	rota_msg_step_create_clear(&u->step_create);
}

static int dec_step_reply(const char *b, size_t n, union any *u,
			  struct rota_error *e)
{
	return rota_msg_step_reply_decode(b, n, &u->step_reply, e);
}

static char *enc_step_reply(const union any *u, size_t *len)
{
	return rota_msg_step_reply_encode(&u->step_reply, len);
}

static bool eq_step_reply(const union any *a, const union any *b)
{
	const struct rota_msg_step_create_reply *x = &a->step_reply;
	const struct rota_msg_step_create_reply *y = &b->step_reply;

	if (x->job_id != y->job_id || x->step_id != y->step_id ||
	    x->ntasks != y->ntasks || x->nnodes != y->nnodes)
		return false;
	for (size_t i = 0; i < x->nnodes; i++) {
		const struct rota_step_node *p = &x->nodes[i];
		const struct rota_step_node *q = &y->nodes[i];

		if (!str_eq(p->name, q->name) || !str_eq(p->addr, q->addr) ||
		    p->port != q->port || p->uid != q->uid ||
		    p->ntasks != q->ntasks || !str_eq(p->cred, q->cred))
			return false;
	}
	return true;
}

static bool empty_step_reply(const union any *u)
{
	const struct rota_msg_step_create_reply *m = &u->step_reply;

	return !m->job_id && !m->step_id && !m->ntasks && !m->nodes &&
	       !m->nnodes;
}

static void check_step_reply(const union any *u, size_t len)
{
	const struct rota_msg_step_create_reply *m = &u->step_reply;
	uint64_t sum = 0;

	FUZZ_CHECK(m->job_id >= 1 && m->ntasks >= 1 &&
		   m->ntasks <= ROTA_STEP_TASKS_MAX);
	FUZZ_CHECK(m->nodes && m->nnodes >= 1 && m->nnodes <= 65536);
	for (size_t i = 0; i < m->nnodes; i++) {
		const struct rota_step_node *n = &m->nodes[i];

		FUZZ_CHECK(n->name && n->addr && n->cred);
		FUZZ_CHECK(n->port >= 1 && n->port <= 65535);
		FUZZ_CHECK(n->ntasks >= 1 && n->uid != UINT32_MAX);
		check_str(n->name, ROTA_MSG_NAME_MAX);
		check_str(n->addr, 64);
		check_str(n->cred, 4096);
		sum += n->ntasks;
	}
	/* rota run counts ranks off the nodes and sizes by ntasks */
	FUZZ_CHECK(sum == m->ntasks);
	FUZZ_CHECK(m->nnodes <= len);
}

static void clear_step_reply(union any *u)
{
	rota_msg_step_reply_clear(&u->step_reply);
}

static int dec_cred(const char *b, size_t n, union any *u,
		    struct rota_error *e)
{
	return rota_step_cred_decode(b, n, &u->cred, e);
}

static char *enc_cred(const union any *u, size_t *len)
{
	return rota_step_cred_encode(&u->cred, len);
}

static bool eq_cred(const union any *a, const union any *b)
{
	const struct rota_step_cred *x = &a->cred;
	const struct rota_step_cred *y = &b->cred;

	return x->job_id == y->job_id && x->run == y->run &&
	       x->step_id == y->step_id && x->uid == y->uid &&
	       x->gid == y->gid && str_eq(x->node, y->node) &&
	       x->node_id == y->node_id && strv_eq(x->nodes, y->nodes) &&
	       u32v_eq(x->counts, x->nnodes, y->counts, y->nnodes) &&
	       u32v_eq(x->cores, x->ncores, y->cores, y->ncores) &&
	       x->cpus_per_task == y->cpus_per_task &&
	       x->overlap == y->overlap && x->mem_mb == y->mem_mb &&
	       x->end_time == y->end_time &&
	       u32v_eq(x->gpus, x->ngpus, y->gpus, y->ngpus);
}

static bool empty_cred(const union any *u)
{
	const struct rota_step_cred *c = &u->cred;

	return !c->job_id && !c->run && !c->step_id && !c->uid && !c->gid &&
	       !c->node && !c->node_id && !c->nodes && !c->counts &&
	       !c->nnodes && !c->cores && !c->ncores && !c->cpus_per_task &&
	       !c->overlap && !c->mem_mb && !c->end_time && !c->gpus &&
	       !c->ngpus;
}

/* What steps.c and step_task_env rely on once a credential is open. */
static void check_cred(const union any *u, size_t len)
{
	const struct rota_step_cred *c = &u->cred;
	uint64_t total = 0;
	size_t n = 0;

	FUZZ_CHECK(c->job_id >= 1 && c->run >= 1 && c->cpus_per_task >= 1);
	FUZZ_CHECK(c->nodes && c->counts && c->cores && c->ncores >= 1);
	while (c->nodes[n])
		check_str(c->nodes[n++], ROTA_MSG_NAME_MAX);
	FUZZ_CHECK(n == c->nnodes && n >= 1 && c->node_id < n);
	FUZZ_CHECK(strcmp(c->nodes[c->node_id], c->node) == 0);
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(c->counts[i] >= 1);
		total += c->counts[i];
	}
	FUZZ_CHECK(total <= ROTA_STEP_TASKS_MAX);
	FUZZ_CHECK(c->overlap || (uint64_t)c->counts[c->node_id] *
						 c->cpus_per_task <=
					 c->ncores);
	FUZZ_CHECK(c->end_time >= 0 && n <= len && c->ncores <= len);
	for (size_t i = 0; i < c->ngpus; i++) /* gpus_deny_rules' index */
		FUZZ_CHECK(c->gpus[i] < ROTA_MSG_GPUS_MAX);
}

static void clear_cred(union any *u)
{
	rota_step_cred_clear(&u->cred);
}

static int dec_step_launch(const char *b, size_t n, union any *u,
			   struct rota_error *e)
{
	return rota_msg_step_launch_decode(b, n, &u->step_launch, e);
}

static char *enc_step_launch(const union any *u, size_t *len)
{
	return rota_msg_step_launch_encode(&u->step_launch, len);
}

static bool eq_step_launch(const union any *a, const union any *b)
{
	const struct rota_msg_step_launch *x = &a->step_launch;
	const struct rota_msg_step_launch *y = &b->step_launch;

	return str_eq(x->cred, y->cred) && strv_eq(x->argv, y->argv) &&
	       strv_eq(x->env, y->env) && str_eq(x->cwd, y->cwd) &&
	       str_eq(x->mpi, y->mpi) && x->pty == y->pty &&
	       x->rows == y->rows && x->cols == y->cols;
}

static bool empty_step_launch(const union any *u)
{
	const struct rota_msg_step_launch *m = &u->step_launch;

	return !m->cred && !m->argv && !m->env && !m->cwd && !m->mpi &&
	       !m->pty && !m->rows && !m->cols;
}

static void check_step_launch(const union any *u, size_t len)
{
	const struct rota_msg_step_launch *m = &u->step_launch;

	FUZZ_CHECK(m->cred && m->argv && m->argv[0] && m->env && m->cwd);
	FUZZ_CHECK(m->cwd[0] == '/');
	FUZZ_CHECK(strcmp(m->mpi, "none") == 0 || strcmp(m->mpi, "pmi2") == 0 ||
		   strcmp(m->mpi, "pmix") == 0);
	FUZZ_CHECK(m->rows <= 65535 && m->cols <= 65535);
	check_str(m->cred, 4096);
	check_str(m->cwd, ROTA_MSG_PATH_MAX);
	check_strv(m->argv, 4096, 1 << 17);
	check_strv(m->env, ROTA_MSG_ENV_MAX + 64, 1 << 17);
}

static void clear_step_launch(union any *u)
{
	rota_msg_step_launch_clear(&u->step_launch);
}

static int dec_step_complete(const char *b, size_t n, union any *u,
			     struct rota_error *e)
{
	return rota_msg_step_complete_decode(b, n, &u->step_complete, e);
}

static char *enc_step_complete(const union any *u, size_t *len)
{
	return rota_msg_step_complete_encode(&u->step_complete, len);
}

static bool eq_step_complete(const union any *a, const union any *b)
{
	const struct rota_msg_step_complete *x = &a->step_complete;
	const struct rota_msg_step_complete *y = &b->step_complete;

	return x->job_id == y->job_id && x->step_id == y->step_id &&
	       x->exit_code == y->exit_code &&
	       x->failed_rank == y->failed_rank && x->cpu_usec == y->cpu_usec &&
	       str_eq(x->text, y->text) && x->end_job == y->end_job;
}

static bool empty_step_complete(const union any *u)
{
	const struct rota_msg_step_complete *m = &u->step_complete;

	return !m->job_id && !m->step_id && !m->exit_code && !m->failed_rank &&
	       !m->cpu_usec && !m->text && !m->end_job;
}

static void check_step_complete(const union any *u, size_t len)
{
	const struct rota_msg_step_complete *m = &u->step_complete;

	FUZZ_CHECK(m->job_id >= 1);
	FUZZ_CHECK(m->exit_code >= 0 && m->exit_code <= 255);
	FUZZ_CHECK(m->failed_rank >= -1 &&
		   m->failed_rank <= (int32_t)ROTA_STEP_TASKS_MAX);
	FUZZ_CHECK(m->cpu_usec <= INT64_MAX);
	check_str(m->text, 1024);
}

static void clear_step_complete(union any *u)
{
	rota_msg_step_complete_clear(&u->step_complete);
}

/* The small frames, as STEP_TASK_END's {rank, status}. */
static const char *const ints_keys[] = { "rank", "status" };
static const int64_t ints_max[] = { ROTA_STEP_TASKS_MAX, 0xffff };

static int dec_ints(const char *b, size_t n, union any *u,
		    struct rota_error *e)
{
	int64_t v[2] = { -1, -1 };
	int rc = rota_msg_ints_decode(b, n, ints_keys, ints_max, v, 2, e);

	/* its values are only written when accepted */
	u->ints[0] = rc == 0 ? v[0] : 0;
	u->ints[1] = rc == 0 ? v[1] : 0;
	return rc;
}

static char *enc_ints(const union any *u, size_t *len)
{
	return rota_msg_ints_encode(ints_keys, u->ints, 2, len);
}

static bool eq_ints(const union any *a, const union any *b)
{
	return a->ints[0] == b->ints[0] && a->ints[1] == b->ints[1];
}

static bool empty_ints(const union any *u)
{
	return !u->ints[0] && !u->ints[1];
}

static void check_ints(const union any *u, size_t len)
{
	for (size_t i = 0; i < 2; i++)
		FUZZ_CHECK(u->ints[i] >= 0 && u->ints[i] <= ints_max[i]);
}

static int dec_io(const char *b, size_t n, union any *u, struct rota_error *e)
{
	/* the outputs are only written when accepted */
	memset(&u->io, 0, sizeof(u->io));
	return rota_step_io_decode(b, n, &u->io.rank, &u->io.fd, &u->io.data,
				   &u->io.n, e);
}

static char *enc_io(const union any *u, size_t *len)
{
	return rota_step_io_encode(u->io.rank, u->io.fd, u->io.data, u->io.n,
				   len);
}

static bool eq_io(const union any *a, const union any *b)
{
	return a->io.rank == b->io.rank && a->io.fd == b->io.fd &&
	       a->io.n == b->io.n &&
	       (a->io.n == 0 || memcmp(a->io.data, b->io.data, a->io.n) == 0);
}

static bool empty_io(const union any *u)
{
	return !u->io.rank && !u->io.fd && !u->io.data && !u->io.n;
}

/* The bytes lie inside the body, after its header line. */
static void check_io(const union any *u, size_t len)
{
	FUZZ_CHECK(u->io.rank <= ROTA_STEP_TASKS_MAX && u->io.fd <= 2);
	FUZZ_CHECK(u->io.data && u->io.n < len);
	FUZZ_CHECK(u->io.data[-1] == '\n');
}

/* ---- PRIO_REPLY: priorities and their terms ---- */

static int dec_prio(const char *b, size_t n, union any *u,
		    struct rota_error *e)
{
	return rota_msg_prio_decode(b, n, &u->prio, e);
}

static char *enc_prio(const union any *u, size_t *len)
{
	return rota_msg_prio_encode(&u->prio, len);
}

static bool eq_prio_row(const struct rota_prio_row *x,
			const struct rota_prio_row *y)
{
	if (x->id != y->id || x->state != y->state || x->tasks != y->tasks ||
	    !str_eq(x->array, y->array) || !str_eq(x->user, y->user) ||
	    !str_eq(x->account, y->account) ||
	    !str_eq(x->department, y->department) ||
	    !str_eq(x->queue, y->queue) || !str_eq(x->qos, y->qos) ||
	    x->priority != y->priority || x->nfactors != y->nfactors)
		return false;
	for (size_t k = 0; k < x->nfactors; k++) {
		const struct rota_msg_prio_factor *a = &x->factors[k];
		const struct rota_msg_prio_factor *b = &y->factors[k];

		if (!str_eq(a->name, b->name) || a->raw != b->raw ||
		    a->norm != b->norm || a->weight != b->weight ||
		    a->value != b->value)
			return false;
	}
	return true;
}

static bool eq_prio(const union any *a, const union any *b)
{
	const struct rota_msg_prio *x = &a->prio;
	const struct rota_msg_prio *y = &b->prio;

	if (!str_eq(x->plugin, y->plugin) || !str_eq(x->describe, y->describe) ||
	    x->rates_all != y->rates_all || x->rated_at != y->rated_at ||
	    x->now != y->now || x->n != y->n)
		return false;
	for (size_t i = 0; i < x->n; i++) {
		if (!eq_prio_row(&x->rows[i], &y->rows[i]))
			return false;
	}
	return true;
}

static bool empty_prio(const union any *u)
{
	return !u->prio.plugin && !u->prio.rows && !u->prio.n &&
	       !u->prio.arena;
}

static void check_prio(const union any *u, size_t len)
{
	const struct rota_msg_prio *m = &u->prio;

	FUZZ_CHECK(m->plugin && m->describe && m->rated_at >= 0);
	FUZZ_CHECK(m->n <= len);
	for (size_t i = 0; i < m->n; i++) {
		const struct rota_prio_row *r = &m->rows[i];

		FUZZ_CHECK(r->id && r->user && r->account && r->queue &&
			   r->qos && r->factors);
		FUZZ_CHECK(isfinite(r->priority));
		for (size_t k = 0; k < r->nfactors; k++)
			FUZZ_CHECK(r->factors[k].name &&
				   isfinite(r->factors[k].value));
	}
}

static void clear_prio(union any *u)
{
	rota_msg_prio_clear(&u->prio);
}

static const struct codec codecs[] = {
	CODEC("error", dec_error, enc_error, eq_error, empty_error, check_error,
	      clear_error),
	CODEC("submit", dec_submit, enc_submit, eq_submit, empty_submit,
	      check_submit, clear_submit),
	CODEC("submit_reply", dec_submit_reply, enc_submit_reply, eq_id,
	      empty_id, check_nothing, clear_none),
	CODEC("job_list_req", dec_req, enc_req, eq_id, empty_id, check_nothing,
	      clear_none),
	CODEC("job_list", dec_list, enc_list, eq_list, empty_list, check_list,
	      clear_list),
	CODEC("job_rows", dec_rows, enc_rows, eq_rows, empty_rows, check_rows,
	      clear_rows),
	CODEC("cancel", dec_cancel, enc_cancel, eq_cancel, empty_cancel,
	      check_cancel, clear_cancel),
	CODEC("text_list", dec_text, enc_text, eq_text, empty_text, check_text,
	      clear_text),
	CODEC("node", dec_node, enc_node, eq_node, empty_node, check_node,
	      clear_node),
	CODEC("node_list", dec_nodes, enc_nodes, eq_nodes, empty_nodes,
	      check_nodes, clear_nodes),
	CODEC("launch", dec_launch, enc_launch, eq_launch, empty_launch,
	      check_launch, clear_launch),
	CODEC("job_signal", dec_signal, enc_signal, eq_signal, empty_signal,
	      check_signal, clear_none),
	CODEC("job_end", dec_end, enc_end, eq_end, empty_end, check_end,
	      clear_end),
	CODEC("job_id", dec_job_id, enc_job_id, eq_id, empty_id, check_nothing,
	      clear_none),
	CODEC("name", dec_name, enc_name, eq_name, empty_name, check_name,
	      clear_name),
	CODEC("counters", dec_counters, enc_counters, eq_counters,
	      empty_counters, check_counters, clear_counters),
	CODEC("job_run", dec_job_run, enc_job_run, eq_job_run, empty_job_run,
	      check_job_run, clear_none),
	CODEC("share", dec_share, enc_share, eq_share, empty_share, check_share,
	      clear_share),
	CODEC("control", dec_control, enc_control, eq_control, empty_control,
	      check_control, clear_control),
	CODEC("top_rows", dec_top, enc_top, eq_top, empty_top, check_top,
	      clear_top),
	CODEC("resv_create", dec_resv_create, enc_resv_create, eq_resv_create,
	      empty_resv_create, check_resv_create, clear_resv_create),
	CODEC("resv_list", dec_resv_list, enc_resv_list, eq_resv_list,
	      empty_resv_list, check_resv_list, clear_resv_list),
	CODEC("why", dec_why, enc_why, eq_why, empty_why, check_why,
	      clear_why),
	CODEC("rid", dec_rid, enc_rid, eq_rid, empty_rid, check_rid,
	      clear_rid),
	CODEC("step_create", dec_step_create, enc_step_create,
	      eq_step_create, empty_step_create, check_step_create,
	      clear_step_create),
	CODEC("step_reply", dec_step_reply, enc_step_reply, eq_step_reply,
	      empty_step_reply, check_step_reply, clear_step_reply),
	CODEC("step_cred", dec_cred, enc_cred, eq_cred, empty_cred,
	      check_cred, clear_cred),
	CODEC("step_launch", dec_step_launch, enc_step_launch,
	      eq_step_launch, empty_step_launch, check_step_launch,
	      clear_step_launch),
	CODEC("step_complete", dec_step_complete, enc_step_complete,
	      eq_step_complete, empty_step_complete, check_step_complete,
	      clear_step_complete),
	CODEC("step_ints", dec_ints, enc_ints, eq_ints, empty_ints,
	      check_ints, clear_none),
	{
		.name = "step_io", .decode = dec_io, .encode = enc_io,
		.equal = eq_io, .empty = empty_io, .check = check_io,
		.clear = clear_none, .raw = true,
	},
	CODEC("job_usage", dec_usage, enc_usage, eq_usage, empty_usage,
	      check_usage, clear_usage),
	CODEC("prio", dec_prio, enc_prio, eq_prio, empty_prio, check_prio,
	      clear_prio),
	CODEC("top_req", dec_top_req, enc_top_req, eq_top_req, empty_top_req,
	      check_top_req, clear_none),
};

#define NCODECS (sizeof(codecs) / sizeof(*codecs))

/* Decode 'buf'; on failure the struct must be empty and 'err' say why. */
static int decode(const struct codec *c, const char *buf, size_t len,
		  union any *u)
{
	struct rota_error err = { "" };
	int rc;

	memset(u, 0xa5, sizeof(*u));
	rc = c->decode(buf, len, u, &err);
	if (rc == 0)
		return 0;
	FUZZ_CHECK(rc == -EPROTO);
	FUZZ_CHECK(err.text[0] != '\0');
	FUZZ_CHECK(c->empty(u));
	return rc;
}

/* A heap copy of exactly 'len' bytes, no terminator: ASan sees overreads. */
static char *exact_copy(const char *buf, size_t len)
{
	char *p = malloc(len ? len : 1);

	if (!p)
		abort();
	memcpy(p, buf, len);
	return p;
}

/* encode -> decode -> equal, and the second encoding is the first. */
static void round_trip(const struct codec *c, const union any *u)
{
	union any again;
	size_t len = 0;
	size_t len2 = 0;
	char *text = c->encode(u, &len);
	char *body = exact_copy(text, len);
	char *text2;

	FUZZ_CHECK(text && (c->raw || strlen(text) == len));
	if (decode(c, body, len, &again) != 0) {
		fprintf(stderr, "%s: own encoding refused: %.300s\n", c->name,
			text);
		FUZZ_CHECK(!"an encoded body decodes");
	}
	FUZZ_CHECK(c->equal(u, &again));
	c->check(&again, len);
	text2 = c->encode(&again, &len2);
	FUZZ_CHECK(len2 == len && memcmp(text, text2, len) == 0);
	c->clear(&again);
	free(text2);
	free(body);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct codec *c;
	union any u;

	if (size == 0)
		return 0;
	c = &codecs[data[0] % NCODECS];
	if (decode(c, (const char *)data + 1, size - 1, &u) != 0)
		return 0;
	c->check(&u, size - 1);
	round_trip(c, &u);
	c->clear(&u);
	FUZZ_CHECK(c->empty(&u));
	return 0;
}
