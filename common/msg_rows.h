/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_MSG_ROWS_H
#define ROTA_COMMON_MSG_ROWS_H

/*
 * The writer and reader behind the row-list replies (JOB_ROWS, TOP_ROWS),
 * shared by common/msg_jobrows.c and common/msg_toprows.c only.  Both
 * bodies are {"now":N,"rows":[[...],...]}; a codec supplies its columns.
 * The writer also writes PRIO_REPLY (msg_prio.c) row by row.
 */

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/jsonscan.h"
#include "common/msg.h"

/*
 * The writer: straight into one buffer through 'p', the worst case of
 * each row reserved first.  Through rota_strbuf, ten calls a row cost
 * more than the rest of a 50,000-job listing.
 */
struct msg_rows_out {
	char *data;
	char *p;
	char *end;
};

void msg_rows_reserve(struct msg_rows_out *o, size_t need);
/* Each writes at 'p' and returns the byte after what it wrote. */
char *msg_rows_put_i64(char *p, int64_t v);
/*
 * A finite double as JSON would read it back (17 significant digits; a
 * whole number as one), 0 for NaN and infinities; at most 24 bytes.
 */
char *msg_rows_put_real(char *p, double v);
/* 's' as a JSON string (what rota_strbuf_add_json writes), then 'sep'. */
char *msg_rows_put_str(char *p, const char *s, char sep);

static inline const char *msg_rows_or_empty(const char *s)
{
	return s ? s : "";
}

struct msg_rows_in {
	struct rota_jscan s;
	struct rota_error *err;
	const char *label; /* "job rows": the start of every error */
};

/* -EPROTO, "<label>: <what>[: <scanner's reason>]" */
int msg_rows_bad(struct msg_rows_in *in, const char *what);
int msg_rows_expect(struct msg_rows_in *in, enum rota_jtok t, const char *what);
/* A whole number in [lo, hi]. */
int msg_rows_num(struct msg_rows_in *in, int64_t lo, int64_t hi, int64_t *out,
		 const char *what);
/* Any finite number. */
int msg_rows_real(struct msg_rows_in *in, double *out, const char *what);
/* A string of at most 'max' bytes, left in the arena. */
int msg_rows_str(struct msg_rows_in *in, size_t max, const char **out,
		 const char *what);
/* A state column (its short name). */
int msg_rows_state(struct msg_rows_in *in, enum rota_job_state *out);

/* Reads one row, after its '['. */
typedef int (*msg_rows_row_fn)(struct msg_rows_in *in, void *row);

/*
 * The whole body: 'now', then rows of 'size' bytes each into a growing
 * '*rows', every string in '*arena'.  On failure the caller clears what
 * was left in '*rows' and '*arena'.
 */
int msg_rows_decode(const char *buf, size_t len, struct rota_error *err,
		    const char *label, size_t size, msg_rows_row_fn row,
		    void **rows, size_t *n, int64_t *now, char **arena);

/* "key": and nothing else. */
int msg_rows_key(struct msg_rows_in *in, const char *name);
/*
 * A list of rows after its '[', up to its ']': rows of 'size' bytes into
 * a growing '*rows' (at most ROTA_MSG_LIST_MAX), '*n' counting them.
 */
int msg_rows_list(struct msg_rows_in *in, size_t size, msg_rows_row_fn row,
		  void **rows, size_t *n);

/*
 * msg_rows_decode with room for one more key after the rows: 'tail', if
 * set, is called when a ',' follows the rows' ']', and reads that key
 * and its value (TOP_ROWS' optional "steps").  The out fields start
 * empty; on failure the caller clears what was left in 'rows', in its
 * tail's and in 'arena'.
 */
struct msg_rows_body {
	const char *label;
	size_t size;
	msg_rows_row_fn row;
	int (*tail)(struct msg_rows_in *in, void *arg);
	void *arg;
	void *rows;	/* out */
	size_t n;	/* out */
	int64_t now;	/* out */
	char *arena;	/* out */
};
int msg_rows_decode_body(const char *buf, size_t len, struct msg_rows_body *b,
			 struct rota_error *err);

#endif
