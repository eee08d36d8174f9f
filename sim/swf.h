/* SPDX-License-Identifier: MIT */
#ifndef ROTA_SIM_SWF_H
#define ROTA_SIM_SWF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/*
 * The Standard Workload Format of the Parallel Workloads Archive: one job
 * a line, 18 whitespace-separated integers, -1 where unknown; header lines
 * start with ';' ("; MaxProcs: 240").  Every byte is hostile: a line is
 * refused with its number, never half-read.
 */

/* The fields a replay uses (the rest are checked as numbers, then dropped). */
struct swf_job {
	int64_t id;		/* 1: job number */
	int64_t submit;		/* 2: seconds since the log's start */
	int64_t wait;		/* 3 */
	int64_t run;		/* 4: wall-clock seconds, -1 unknown */
	int64_t alloc_procs;	/* 5 */
	int64_t req_procs;	/* 8 */
	int64_t req_time;	/* 9: the user's limit, seconds */
	int64_t status;		/* 11: 1 done, 0 failed, 5 cancelled */
	int64_t user;		/* 12 */
	int64_t group;		/* 13 */
	int64_t queue;		/* 15 */
	int64_t partition;	/* 16 */
	int64_t prec;		/* 17: preceding job's number, -1 none */
	int64_t think;		/* 18: seconds from its end to this submit */
};

#define SWF_FIELDS 18
/* A line longer than this is malformed (real ones are under 150 bytes). */
#define SWF_LINE_MAX 1024

/*
 * Parse one line (without its newline; NUL bytes make it malformed).
 * Returns 1 and fills 'job' for a job line, 0 for a blank or ';' line,
 * -EPROTO with the reason in 'err' ("field 4: 'x' is not a number") for
 * anything else: a field count other than 18, a field that is not a
 * decimal number of at most 18 digits before an optional fraction (the
 * fraction is dropped: "552.21" is 552), or a value below -1.
 */
int swf_parse_line(const char *line, size_t len, struct swf_job *job,
		   struct rota_error *err);

struct swf_trace {
	struct swf_job *jobs;	/* in file order */
	size_t n;
	int64_t max_procs;	/* header's MaxProcs; -1 if absent */
	int64_t max_nodes;	/* header's MaxNodes; -1 if absent */
	int64_t unix_start;	/* header's UnixStartTime; -1 if absent */
	size_t malformed;	/* lines skipped under 'lenient' */
	size_t first_bad_line;	/* the first of them, 0 if none */
	char first_bad[160];	/* and why */
};

/*
 * Read a whole trace, plain or gzip-compressed (zlib reads both).  Lines
 * must come in submit order or are sorted by it (stably).  Without
 * 'lenient' the first malformed line is the error: -EPROTO with
 * "FILE:LINE: reason"; with it, such lines are skipped and counted.
 * -ENOENT/-EIO (errno) when the file cannot be read.  Caller frees with
 * swf_trace_fini(); on failure 't' is left empty.
 */
int swf_read(const char *path, bool lenient, struct swf_trace *t,
	     struct rota_error *err);

/* The same from memory (tests, fuzzing); 'name' is used in messages. */
int swf_read_buffer(const char *name, const char *text, size_t len,
		    bool lenient, struct swf_trace *t, struct rota_error *err);

void swf_trace_fini(struct swf_trace *t);

#endif
