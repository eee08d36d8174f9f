// SPDX-License-Identifier: MIT
/*
 * rota top's model: sort, filter, selection, counts, node panel shape;
 * deltas merged (issue 23).
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "ui/top/model.h"

#define NOW 1000000

static struct top_model m;

/* Snapshot rows and steps through the real codec, as the controller sends. */
static void load_steps(const struct rota_top_row *rows, size_t n,
		       const struct rota_top_step *steps, size_t nsteps)
{
	struct rota_msg_top_rows in;
	struct rota_error err;
	size_t len;
	struct rota_msg_top_rows out = {
		.rows = (struct rota_top_row *)rows, .n = n, .now = NOW,
		.steps = (struct rota_top_step *)steps, .nsteps = nsteps,
	};
	char *text = rota_msg_top_rows_encode(&out, &len);

	ck_assert_int_eq(rota_msg_top_rows_decode(text, len, &in, &err), 0);
	free(text);
	top_model_set_jobs(&m, &in);
	ck_assert_ptr_null(in.rows);
	ck_assert_ptr_null(in.steps);
}

static void load(const struct rota_top_row *rows, size_t n)
{
	load_steps(rows, n, NULL, 0);
}

#define ROW(i, st, u, q, p, sub, start, h, w)                                  \
	{                                                                      \
		.id = i, .state = st, .user = u, .queue = q, .account = "acc", \
		.name = "job" #i, .priority_milli = p, .submit_time = sub,     \
		.start_time = start, .hold = h, .cores = 1, .where = w,        \
	}

static const struct rota_top_row rows[] = {
	ROW(1, ROTA_JOB_RUNNING, "ana", "batch", 0, NOW - 500, NOW - 100, 0,
	    "n01"),
	ROW(2, ROTA_JOB_PENDING, "bob", "short", 5000, NOW - 50, 0, 0,
	    "Priority"),
	ROW(3, ROTA_JOB_PENDING, "ana", "batch", 9000, NOW - 10, 0, 1,
	    "JobHeldUser"),
	ROW(4, ROTA_JOB_PENDING, "cid", "batch", 7000, NOW - 900, 0, 0,
	    "max idle jobs (10) reached for user 'cid'"),
	ROW(5, ROTA_JOB_COMPLETED, "ana", "batch", 0, NOW - 999, NOW - 998, 0,
	    ""),
};

static void setup(void)
{
	top_model_init(&m, "ana");
	load(rows, sizeof(rows) / sizeof(*rows));
}

static void teardown(void)
{
	top_model_fini(&m);
}

/* The view's ids, as text: "3 4 2 1". */
static const char *ids(void)
{
	static char buf[256];
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < m.nview; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%u",
				      i ? " " : "", top_model_row(&m, i)->id);
	return buf;
}

static const struct {
	enum top_sort key;
	int times;	/* 2: reversed */
	const char *want;
} sorts[] = {
	{ TOP_SORT_PRIORITY, 1, "1 2 4 3" }, /* already the key: reversed */
	{ TOP_SORT_PRIORITY, 2, "3 4 2 1" },
	{ TOP_SORT_USER, 1, "1 3 2 4" },
	{ TOP_SORT_USER, 2, "4 2 1 3" },
	{ TOP_SORT_QUEUE, 1, "1 3 4 2" },
	{ TOP_SORT_WAIT, 1, "4 1 2 3" },
	{ TOP_SORT_ID, 1, "1 2 3 4" },
};

START_TEST(test_sort)
{
	ck_assert_str_eq(ids(), "3 4 2 1"); /* priority, highest first */
	for (int i = 0; i < sorts[_i].times; i++)
		top_model_set_sort(&m, sorts[_i].key);
	ck_assert_str_eq(ids(), sorts[_i].want);
}
END_TEST

static const struct {
	const char *expr;
	const char *want;
} filters[] = {
	{ "", "3 4 2 1" },
	{ "user=ana", "3 1" },
	{ "queue=short", "2" },
	{ "state=R", "1" },
	{ "state=CD", "5" },
	{ "idle", "4" },		/* text in the reason */
	{ "user=ana queue=batch state=PD", "3" },
	{ "BOB", "2" },			/* text ignores case */
	{ "user=nobody", "" },
};

START_TEST(test_filter)
{
	struct rota_error err;

	ck_assert_int_eq(top_model_set_filter(&m, filters[_i].expr, &err), 0);
	ck_assert_str_eq(ids(), filters[_i].want);
}
END_TEST

START_TEST(test_filter_errors)
{
	struct rota_error err;

	top_model_set_filter(&m, "user=bob", &err);
	ck_assert_int_eq(top_model_set_filter(&m, "colour=red", &err),
			 -EINVAL);
	ck_assert_str_eq(err.text,
			 "'colour': not a filter key (user, queue, state)");
	ck_assert_int_eq(top_model_set_filter(&m, "state=dozing", &err),
			 -EINVAL);
	ck_assert_str_eq(err.text, "state 'dozing': unknown");
	ck_assert_str_eq(ids(), "2"); /* the old filter stays */
}
END_TEST

START_TEST(test_mine)
{
	top_model_toggle_mine(&m);
	ck_assert_str_eq(ids(), "3 1");
	top_model_toggle_mine(&m);
	ck_assert_str_eq(ids(), "3 4 2 1");
}
END_TEST

START_TEST(test_counts)
{
	ck_assert_uint_eq(m.sum.running, 1);
	ck_assert_uint_eq(m.sum.idle, 1);
	ck_assert_uint_eq(m.sum.blocked, 1);
	ck_assert_uint_eq(m.sum.held, 1);
	ck_assert(top_job_is_blocked(&m.jobs.rows[3]));
	ck_assert(!top_job_is_blocked(&m.jobs.rows[2])); /* held, not blocked */
	ck_assert_int_eq(top_job_elapsed(&m.jobs.rows[0], NOW), 100);
	ck_assert_int_eq(top_job_elapsed(&m.jobs.rows[1], NOW), 50);
	/* ended, but no end time: nothing to show */
	ck_assert_int_eq(top_job_elapsed(&m.jobs.rows[4], NOW), 0);
}
END_TEST

/* The selection follows its job across a refresh that reorders. */
START_TEST(test_selection_follows)
{
	struct rota_top_row again[4];

	top_model_move(&m, 2);
	ck_assert_uint_eq(top_model_selected(&m)->id, 2);
	memcpy(again, rows, sizeof(again));
	again[1].priority_milli = 99999; /* job 2 jumps to the top */
	load(again, 4);
	ck_assert_str_eq(ids(), "2 3 4 1");
	ck_assert_uint_eq(m.cursor, 0);
	ck_assert_uint_eq(top_model_selected(&m)->id, 2);
	/* gone: the cursor stays where it was, clamped */
	top_model_move(&m, 3);
	load(again, 3);
	ck_assert_uint_eq(m.cursor, 2);
	ck_assert_uint_eq(top_model_selected(&m)->id, 1);
	top_model_move(&m, -100);
	ck_assert_uint_eq(top_model_selected(&m)->id, 2);
	load(again, 0);
	ck_assert_ptr_null(top_model_selected(&m));
}
END_TEST

/* A reply through the real codec, as the controller sends it. */
static int apply(const struct rota_top_row *r, size_t n, int64_t change,
		 int64_t since, const uint32_t *gone, size_t ngone)
{
	struct rota_msg_top_rows in;
	struct rota_error err;
	size_t len;
	struct rota_msg_top_rows out = {
		.rows = (struct rota_top_row *)r,
		.n = n,
		.now = NOW + 1,
		.change = change,
		.since = since,
		.gone = (uint32_t *)gone,
		.ngone = ngone,
	};
	char *text = rota_msg_top_rows_encode(&out, &len);
	int rc;

	ck_assert_int_eq(rota_msg_top_rows_decode(text, len, &in, &err), 0);
	free(text);
	rc = top_model_apply_jobs(&m, &in);
	ck_assert_ptr_null(in.rows);
	ck_assert_ptr_null(in.arena);
	return rc;
}

/* Every row of the model in id order, as text: "1 2 3". */
static const char *all_ids(void)
{
	static char buf[256];
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < m.jobs.n; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%u",
				      i ? " " : "", m.jobs.rows[i].id);
	return buf;
}

START_TEST(test_delta)
{
	struct rota_top_row d[2] = { rows[1], rows[1] };

	ck_assert_int_eq(apply(rows, 5, 10, 0, NULL, 0), 0);
	ck_assert_int_eq(top_model_since(&m), 10);
	/* job 6 joins, job 2 changes, job 4 is gone (purged) */
	d[0].priority_milli = 99999;
	d[1].id = 6;
	d[1].name = "new";
	ck_assert_int_eq(apply(d, 2, 12, 10, (uint32_t[]){ 4 }, 1), 0);
	ck_assert_str_eq(all_ids(), "1 2 3 5 6");
	ck_assert_int_eq(top_model_since(&m), 12);
	ck_assert_int_eq(m.jobs.now, NOW + 1);
	ck_assert_str_eq(ids(), "2 3 6 1"); /* by priority */
	ck_assert_str_eq(m.jobs.rows[4].name, "new");
	ck_assert_str_eq(m.jobs.rows[0].name, "job1"); /* the snapshot's */
	ck_assert_uint_eq(m.sum.idle, 2);
	/* an empty delta changes nothing but the number */
	ck_assert_int_eq(apply(NULL, 0, 13, 12, NULL, 0), 0);
	ck_assert_str_eq(all_ids(), "1 2 3 5 6");
	/* a delta from elsewhere: refused, and the next request asks all */
	ck_assert_int_eq(apply(d, 1, 20, 11, NULL, 0), -ESTALE);
	ck_assert_str_eq(all_ids(), "1 2 3 5 6");
	ck_assert_int_eq(top_model_since(&m), 0);
	/* a full reply replaces everything */
	ck_assert_int_eq(apply(rows, 2, 30, 0, NULL, 0), 0);
	ck_assert_str_eq(all_ids(), "1 2");
	ck_assert_int_eq(top_model_since(&m), 30);
}
END_TEST

/* Many deltas: their strings gathered into one arena, all still read. */
START_TEST(test_delta_compact)
{
	char name[64][16];
	struct rota_top_row d = rows[2];

	ck_assert_int_eq(apply(rows, 5, 1, 0, NULL, 0), 0);
	for (int i = 0; i < 64; i++) {
		snprintf(name[i], sizeof(name[i]), "n%d", i);
		d.name = name[i];
		d.id = i % 2 ? 3 : 100 + (uint32_t)i;
		ck_assert_int_eq(apply(&d, 1, 2 + i, 1 + i, NULL, 0), 0);
		ck_assert_uint_lt(m.narenas, 33);
	}
	ck_assert_uint_eq(m.jobs.n, 5 + 32);
	ck_assert_str_eq(m.jobs.rows[2].name, "n63");
	ck_assert_str_eq(m.jobs.rows[2].where, "JobHeldUser");
	ck_assert_str_eq(m.jobs.rows[0].name, "job1");
	ck_assert_str_eq(m.jobs.rows[5].name, "n0");
	ck_assert_str_eq(m.jobs.rows[36].name, "n62");
}
END_TEST

START_TEST(test_nodes)
{
	static char *feats[] = { "ib", NULL };
	/* 3 GPUs on n01, one used by job 7: the header's "gpus 1/3" */
	struct rota_gpu_info g[3] = {
		{ .type = "v100", .model = "V100", .busid = "0000:01:00.0",
		  .cores = "0-3", .job = 7 },
		{ .type = "v100", .model = "V100", .busid = "0000:02:00.0",
		  .cores = "0-3" },
		{ .type = "v100", .model = "V100", .busid = "0000:03:00.0",
		  .cores = "4-7", .numa = 1 },
	};
	struct rota_node_info n[3] = {
		{ .name = "n01", .state = "UP", .cores = 8, .cores_used = 8,
		  .features = feats, .reason = "", .addr = "a", .sockets = 1,
		  .pus = 8, .gpus = g, .ngpus = 3 },
		{ .name = "n02", .state = "DRAINED", .cores = 8, .reason = "",
		  .addr = "a", .features = feats + 1, .sockets = 1,
		  .pus = 8 },
		{ .name = "n03", .state = "DOWN", .cores = 4, .reason = "",
		  .addr = "a", .features = feats + 1, .sockets = 1,
		  .pus = 8 },
	};
	struct rota_msg_node_list in;
	struct rota_error err;
	size_t len;
	char *text = rota_msg_node_list_encode(n, 3, &len);

	ck_assert_msg(rota_msg_node_list_decode(text, len, &in, &err) == 0,
		      "%s", err.text);
	free(text);
	top_model_set_nodes(&m, &in);
	ck_assert_uint_eq(m.sum.cores_busy, 8);
	ck_assert_uint_eq(m.sum.cores_total, 20);
	ck_assert_uint_eq(m.sum.gpus_busy, 1);
	ck_assert_uint_eq(m.sum.gpus_total, 3);
	ck_assert_uint_eq(top_node_gpus_used(&m.nodes.nodes[0]), 1);
	ck_assert_uint_eq(top_node_gpus_used(&m.nodes.nodes[1]), 0);
	ck_assert_uint_eq(m.sum.nodes_up, 1);
	ck_assert_uint_eq(m.sum.nodes_drained, 1);
	ck_assert_uint_eq(m.sum.nodes_down, 1);
}
END_TEST

/* The list's lines, as text: "1 1.0 1.1 2" (a step: JOB.STEP). */
static const char *lines(void)
{
	static char buf[256];
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; top_model_line(&m, i); i++) {
		const struct top_line *l = top_model_line(&m, i);

		if (l->step == TOP_LINE_JOB)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%u",
					      i ? " " : "",
					      top_model_row(&m, l->view)->id);
		else
			n += (size_t)snprintf(buf + n, sizeof(buf) - n,
					      " %u.%u",
					      m.jobs.steps[l->step].job_id,
					      m.jobs.steps[l->step].step_id);
	}
	return buf;
}

/* Out of order on purpose; 3 is pending and 99 unknown: not shown. */
static const struct rota_top_step steps[] = {
	{ .job_id = 1, .step_id = 1, .ntasks = 2, .nnodes = 1,
	  .start = NOW - 5, .name = "a.out", .nodes = "n01" },
	{ .job_id = 99, .step_id = 0, .ntasks = 1, .nnodes = 1,
	  .start = NOW - 5, .name = "x", .nodes = "n09" },
	{ .job_id = 1, .step_id = 0, .ntasks = 4, .nnodes = 1,
	  .start = NOW - 50, .name = "sleep", .nodes = "n01" },
	{ .job_id = 3, .step_id = 0, .ntasks = 1, .nnodes = 1,
	  .start = NOW - 5, .name = "y", .nodes = "n02" },
};

START_TEST(test_steps_under_their_job)
{
	size_t first = 7;

	ck_assert_str_eq(lines(), "3 4 2 1"); /* no steps in the snapshot */
	ck_assert_uint_eq(top_model_job_steps(&m, 1, &first), 0);
	load_steps(rows, 5, steps, 4);
	ck_assert_str_eq(lines(), "3 4 2 1 1.0 1.1");
	ck_assert_uint_eq(top_model_job_steps(&m, 1, &first), 2);
	ck_assert_str_eq(m.jobs.steps[first].name, "sleep");
	ck_assert_str_eq(m.jobs.steps[first + 1].name, "a.out");
	ck_assert_uint_eq(top_model_job_steps(&m, 2, &first), 0);
	top_model_set_sort(&m, TOP_SORT_ID);
	ck_assert_str_eq(lines(), "1 1.0 1.1 2 3 4");
}
END_TEST

/* Steps follow their job through the filter; 't' hides and shows them. */
START_TEST(test_steps_follow)
{
	struct rota_error err;

	load_steps(rows, 5, steps, 4);
	top_model_set_filter(&m, "user=bob", &err);
	ck_assert_str_eq(lines(), "2");
	top_model_set_filter(&m, "state=R", &err);
	ck_assert_str_eq(lines(), "1 1.0 1.1");
	top_model_set_filter(&m, "", &err);
	top_model_toggle_steps(&m);
	ck_assert_str_eq(lines(), "3 4 2 1");
	load_steps(rows, 5, steps, 4); /* hidden over refreshes too */
	ck_assert_str_eq(lines(), "3 4 2 1");
	top_model_toggle_steps(&m);
	ck_assert_str_eq(lines(), "3 4 2 1 1.0 1.1");
}
END_TEST

/* The selection is a job; the screen scrolls by lines. */
START_TEST(test_steps_cursor_line)
{
	load_steps(rows, 5, steps, 4);
	top_model_set_sort(&m, TOP_SORT_ID); /* 1 1.0 1.1 2 3 4 */
	ck_assert_uint_eq(top_model_selected(&m)->id, 3); /* it follows */
	ck_assert_uint_eq(top_model_cursor_line(&m), 4);
	top_model_move(&m, -100);
	ck_assert_uint_eq(top_model_cursor_line(&m), 0);
	top_model_move(&m, 1);
	ck_assert_uint_eq(top_model_selected(&m)->id, 2);
	ck_assert_uint_eq(top_model_cursor_line(&m), 3);
	top_model_move(&m, 2);
	ck_assert_uint_eq(top_model_cursor_line(&m), 5);
	top_model_toggle_steps(&m);
	ck_assert_uint_eq(top_model_cursor_line(&m), 3);
	load(rows, 0);
	ck_assert_ptr_null(top_model_line(&m, 0));
	ck_assert_uint_eq(top_model_cursor_line(&m), 0);
}
END_TEST

static const struct {
	size_t nodes, cell, cols, max, want;
} shapes[] = {
	{ 2, 16, 80, 3, 1 },	/* 5 cells a line */
	{ 15, 16, 80, 3, 3 },
	{ 16, 16, 80, 3, 0 },	/* does not fit: fold to a summary */
	{ 1, 100, 80, 3, 0 },	/* a cell wider than the screen */
	{ 0, 16, 80, 3, 0 },
};

START_TEST(test_node_lines)
{
	ck_assert_uint_eq(top_node_lines(shapes[_i].nodes, shapes[_i].cell,
					 shapes[_i].cols, shapes[_i].max),
			  shapes[_i].want);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("top_model");
	TCase *tc = tcase_create("model");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_sort, 0, sizeof(sorts) / sizeof(*sorts));
	tcase_add_loop_test(tc, test_filter, 0,
			    sizeof(filters) / sizeof(*filters));
	tcase_add_test(tc, test_filter_errors);
	tcase_add_test(tc, test_mine);
	tcase_add_test(tc, test_counts);
	tcase_add_test(tc, test_selection_follows);
	tcase_add_test(tc, test_nodes);
	tcase_add_test(tc, test_delta);
	tcase_add_test(tc, test_delta_compact);
	tcase_add_test(tc, test_steps_under_their_job);
	tcase_add_test(tc, test_steps_follow);
	tcase_add_test(tc, test_steps_cursor_line);
	tcase_add_loop_test(tc, test_node_lines, 0,
			    sizeof(shapes) / sizeof(*shapes));
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
