// SPDX-License-Identifier: MIT
/*
 * topdelta: rota top's refreshes as its model sees them, for t0068.
 *
 *   topdelta ADDR:PORT full FILE
 *       a first refresh ({"since":0}): the reply's body goes to FILE;
 *       prints "full change C rows N"
 *   topdelta ADDR:PORT delta FILE
 *       the model from FILE, then one delta refresh from its change
 *       number: prints "delta rows ID,... gone ID,..." (or "full" when
 *       the controller sent every row), applies it to the model, asks a
 *       full refresh and prints "equal" when the model is that refresh
 *       row for row, else the first difference; FILE becomes the full
 *       refresh's body.  Should anything change in between (the change
 *       numbers differ), the delta and the full refresh are asked again.
 *   topdelta ADDR:PORT old
 *       the request of an older rota top ({}): prints "old change C
 *       rows N" (C 0: none sent, as before)
 *   topdelta ADDR:PORT since N
 *       a refresh from change N: prints "full rows N" or "delta"
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
#include "ui/top/model.h"

static struct rota_client *conn;

static void die(const char *what, const char *why)
{
	fprintf(stderr, "topdelta: %s: %s\n", what, why);
	exit(1);
}

/* One TOP_ROWS refresh: its body (caller frees) and decoded reply. */
static char *ask(const char *req, size_t *len, struct rota_msg_top_rows *m)
{
	struct rota_reply r = { 0 };
	struct rota_error err;

	if (rota_client_call(conn, ROTA_MSG_TOP_ROWS, req, strlen(req), &r,
			     &err) < 0)
		die("TOP_ROWS", err.text);
	if (rota_msg_top_rows_decode(r.body, r.len, m, &err) < 0)
		die("reply", err.text);
	*len = r.len;
	return r.body;
}

static char *ask_since(int64_t since, size_t *len, struct rota_msg_top_rows *m)
{
	char req[64];

	snprintf(req, sizeof(req), "{\"since\":%" PRId64 "}", since);
	return ask(req, len, m);
}

static void save(const char *path, const char *body, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(body, 1, len, f) != len || fclose(f) != 0)
		die(path, "cannot write");
}

static void load(const char *path, struct top_model *tm)
{
	static char buf[64 << 20];
	struct rota_msg_top_rows m;
	struct rota_error err;
	FILE *f = fopen(path, "r");
	size_t len;

	if (!f)
		die(path, "cannot read");
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (rota_msg_top_rows_decode(buf, len, &m, &err) < 0)
		die(path, err.text);
	top_model_set_jobs(tm, &m);
}

static void print_ids(const char *label, const uint32_t *v, size_t n)
{
	printf(" %s ", label);
	for (size_t i = 0; i < n; i++)
		printf("%s%" PRIu32, i ? "," : "", v[i]);
	if (!n)
		printf("-");
}

static bool str_same(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

/* The first difference of two rows, or NULL. */
static const char *row_diff(const struct rota_top_row *x,
			    const struct rota_top_row *y)
{
	if (x->id != y->id)
		return "id";
	if (x->state != y->state || x->cores != y->cores ||
	    x->nodes != y->nodes || x->submit_time != y->submit_time ||
	    x->start_time != y->start_time || x->end_time != y->end_time)
		return "state, size or times";
	if (x->priority_milli != y->priority_milli || x->nice != y->nice ||
	    x->urgency != y->urgency || x->hold != y->hold ||
	    x->est_start != y->est_start)
		return "priority, nice, hold or expected start";
	if (!str_same(x->queue, y->queue) || !str_same(x->user, y->user) ||
	    !str_same(x->account, y->account) || !str_same(x->name, y->name) ||
	    !str_same(x->where, y->where) || !str_same(x->array, y->array))
		return "a string column";
	return NULL;
}

/* 0 when the model's rows are the full refresh's, row for row. */
static int compare(const struct top_model *a, const struct top_model *b)
{
	const char *d;

	if (a->jobs.n != b->jobs.n) {
		printf("differ: %zu rows, a full refresh has %zu\n", a->jobs.n,
		       b->jobs.n);
		return 1;
	}
	for (size_t i = 0; i < a->jobs.n; i++) {
		d = row_diff(&a->jobs.rows[i], &b->jobs.rows[i]);
		if (d) {
			printf("differ: job %" PRIu32 ": %s\n",
			       a->jobs.rows[i].id, d);
			return 1;
		}
	}
	printf("equal\n");
	return 0;
}

static int delta(const char *path)
{
	struct top_model tm, full;
	struct rota_msg_top_rows m, f;
	size_t len, flen;
	char *body, *fbody;
	int rc = 1;

	top_model_init(&tm, "");
	load(path, &tm);
	for (int tries = 0; tries < 20; tries++) {
		body = ask_since(top_model_since(&tm), &len, &m);
		if (!m.since)
			printf("full rows %zu", m.n);
		else
			printf("delta");
		for (size_t i = 0; m.since && i < m.n; i++)
			printf("%s%" PRIu32, i ? "," : " rows ", m.rows[i].id);
		if (m.since && !m.n)
			printf(" rows -");
		if (m.since)
			print_ids("gone", m.gone, m.ngone);
		printf("\n");
		free(body);
		if (top_model_apply_jobs(&tm, &m) < 0)
			die("delta", "not from the model's change number");
		fbody = ask_since(0, &flen, &f);
		if (f.change != top_model_since(&tm)) {
			/* something changed in between: again */
			rota_msg_top_rows_clear(&f);
			free(fbody);
			continue;
		}
		save(path, fbody, flen);
		free(fbody);
		top_model_init(&full, "");
		top_model_set_jobs(&full, &f);
		rc = compare(&tm, &full);
		top_model_fini(&full);
		break;
	}
	top_model_fini(&tm);
	return rc;
}

int main(int argc, char **argv)
{
	struct rota_msg_top_rows m;
	struct rota_error err;
	char host[256];
	unsigned port;
	size_t len;
	char *body;

	if (argc < 3 ||
	    rota_net_split(argv[1], host, sizeof(host), &port) < 0) {
		fprintf(stderr,
			"usage: topdelta ADDR:PORT full|delta FILE | old\n");
		return 2;
	}
	if (rota_client_connect(host, port, 0, 30000, &conn, &err) < 0)
		die("connect", err.text);
	if (strcmp(argv[2], "old") == 0) {
		body = ask("{}", &len, &m);
		printf("old change %" PRId64 " rows %zu\n", m.change, m.n);
	} else if (strcmp(argv[2], "full") == 0 && argc == 4) {
		body = ask_since(0, &len, &m);
		save(argv[3], body, len);
		printf("full change %s rows %zu\n", m.change ? "set" : "none",
		       m.n);
	} else if (strcmp(argv[2], "since") == 0 && argc == 4) {
		body = ask_since(strtoll(argv[3], NULL, 10), &len, &m);
		if (m.since)
			printf("delta\n");
		else
			printf("full rows %zu\n", m.n);
	} else if (strcmp(argv[2], "delta") == 0 && argc == 4) {
		int rc = delta(argv[3]);

		rota_client_destroy(conn);
		return rc;
	} else {
		return 2;
	}
	free(body);
	rota_msg_top_rows_clear(&m);
	rota_client_destroy(conn);
	return 0;
}
