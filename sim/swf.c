// SPDX-License-Identifier: MIT
/*
 * The SWF reader (swf.h): header keys the replay needs, job lines checked
 * field by field.  Hand-written rather than sscanf so that a bad byte is
 * named with its field and nothing depends on the locale.  zlib's gzread
 * reads plain files too, so one path serves .swf and .swf.gz.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/xalloc.h"
#include "sim/swf.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/*
 * A decimal number, optional '-', at most 18 digits before an optional
 * fraction (average CPU time and memory are fractional in some logs),
 * which is dropped; -EPROTO otherwise.
 */
static int parse_int(const char *s, size_t len, int64_t *out)
{
	size_t i = 0;
	size_t digits = 0;
	int64_t v = 0;
	bool neg = false;

	if (len && s[0] == '-') {
		neg = true;
		i = 1;
	}
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (++digits > 18)
			return -EPROTO;
		v = v * 10 + (s[i] - '0');
	}
	if (!digits)
		return -EPROTO;
	if (i < len && s[i] == '.') {
		i++;
		if (i == len)
			return -EPROTO;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	if (i != len)
		return -EPROTO;
	*out = neg ? -v : v;
	return 0;
}

static void store(struct swf_job *job, int field, int64_t v)
{
	switch (field) {
	case 1: job->id = v; break;
	case 2: job->submit = v; break;
	case 3: job->wait = v; break;
	case 4: job->run = v; break;
	case 5: job->alloc_procs = v; break;
	case 8: job->req_procs = v; break;
	case 9: job->req_time = v; break;
	case 11: job->status = v; break;
	case 12: job->user = v; break;
	case 13: job->group = v; break;
	case 15: job->queue = v; break;
	case 16: job->partition = v; break;
	case 17: job->prec = v; break;
	case 18: job->think = v; break;
	default: break;
	}
}

int swf_parse_line(const char *line, size_t len, struct swf_job *job,
		   struct rota_error *err)
{
	struct swf_job j = { 0 };
	size_t i = 0;
	int field = 0;

	while (i < len && is_space(line[i]))
		i++;
	if (i == len || line[i] == ';')
		return 0;
	while (i < len) {
		size_t start = i;
		int64_t v;

		while (i < len && !is_space(line[i]))
			i++;
		if (++field > SWF_FIELDS)
			return rota_errorf(err, -EPROTO,
					   "more than %d fields", SWF_FIELDS);
		if (parse_int(line + start, i - start, &v) < 0)
			return rota_errorf(err, -EPROTO,
					   "field %d: '%.*s' is not a number",
					   field, (int)(i - start > 24 ? 24
								: i - start),
					   line + start);
		if (v < -1)
			return rota_errorf(err, -EPROTO,
					   "field %d: %lld is below -1", field,
					   (long long)v);
		store(&j, field, v);
		while (i < len && is_space(line[i]))
			i++;
	}
	if (field != SWF_FIELDS)
		return rota_errorf(err, -EPROTO, "%d fields, not %d", field,
				   SWF_FIELDS);
	*job = j;
	return 1;
}

/* "; MaxProcs: 240" and the like; unknown keys are comments. */
static void parse_header(struct swf_trace *t, const char *line, size_t len)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "MaxProcs:", offsetof(struct swf_trace, max_procs) },
		{ "MaxNodes:", offsetof(struct swf_trace, max_nodes) },
		{ "UnixStartTime:", offsetof(struct swf_trace, unix_start) },
	};
	size_t i = 1;

	while (i < len && is_space(line[i]))
		i++;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		size_t kl = strlen(keys[k].key);
		size_t v;
		size_t e;
		int64_t val;

		if (len - i < kl || memcmp(line + i, keys[k].key, kl) != 0)
			continue;
		for (v = i + kl; v < len && is_space(line[v]); v++)
			;
		for (e = v; e < len && !is_space(line[e]); e++)
			;
		if (parse_int(line + v, e - v, &val) == 0 && val > 0)
			*(int64_t *)((char *)t + keys[k].off) = val;
	}
}

struct reader {
	const char *name;
	bool lenient;
	struct swf_trace *t;
	size_t cap;
	size_t lineno;
	bool unsorted;
};

static int take_line(struct reader *r, const char *line, size_t len,
		     struct rota_error *err)
{
	struct swf_trace *t = r->t;
	struct rota_error why = { "" };
	struct swf_job job;
	int rc;

	r->lineno++;
	if (len && line[0] == ';') {
		parse_header(t, line, len);
		return 0;
	}
	rc = memchr(line, '\0', len) ? rota_errorf(&why, -EPROTO, "NUL byte")
	     : len > SWF_LINE_MAX    ? rota_errorf(&why, -EPROTO,
						   "longer than %d bytes",
						   SWF_LINE_MAX)
				     : swf_parse_line(line, len, &job, &why);
	if (rc == 0)
		return 0;
	if (rc < 0) {
		if (!r->lenient)
			return rota_errorf(err, rc, "%s:%zu: %s", r->name,
					   r->lineno, why.text);
		if (!t->malformed++) {
			t->first_bad_line = r->lineno;
			snprintf(t->first_bad, sizeof(t->first_bad), "%s",
				 why.text);
		}
		return 0;
	}
	if (t->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		t->jobs = rota_xreallocarray(t->jobs, r->cap, sizeof(*t->jobs));
	}
	if (t->n && job.submit < t->jobs[t->n - 1].submit)
		r->unsorted = true;
	t->jobs[t->n++] = job;
	return 0;
}

static int by_submit(const void *a, const void *b)
{
	const struct swf_job *x = a;
	const struct swf_job *y = b;

	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	/* qsort is not stable: the job number keeps file order for ties */
	return (x->id > y->id) - (x->id < y->id);
}

static void reader_init(struct reader *r, const char *name, bool lenient,
			struct swf_trace *t)
{
	*t = (struct swf_trace){ .max_procs = -1, .max_nodes = -1,
				 .unix_start = -1 };
	*r = (struct reader){ .name = name, .lenient = lenient, .t = t };
}

static void reader_finish(struct reader *r)
{
	if (r->unsorted)
		qsort(r->t->jobs, r->t->n, sizeof(*r->t->jobs), by_submit);
}

/* Split 'buf[0..len)' into lines; returns bytes consumed (whole lines). */
static size_t feed(struct reader *r, const char *buf, size_t len, bool last,
		   int *rc, struct rota_error *err)
{
	size_t done = 0;

	while (*rc == 0 && done < len) {
		const char *nl = memchr(buf + done, '\n', len - done);
		size_t n;

		if (!nl && !last)
			break;
		n = nl ? (size_t)(nl - (buf + done)) : len - done;
		*rc = take_line(r, buf + done, n, err);
		done += n + (nl != NULL);
	}
	return done;
}

int swf_read_buffer(const char *name, const char *text, size_t len,
		    bool lenient, struct swf_trace *t, struct rota_error *err)
{
	struct reader r;
	int rc = 0;

	reader_init(&r, name, lenient, t);
	feed(&r, text, len, true, &rc, err);
	if (rc < 0) {
		swf_trace_fini(t);
		return rc;
	}
	reader_finish(&r);
	return 0;
}

/* Lenient: drop the rest of an overlong line; what follows it stays. */
static size_t skip_rest(gzFile f, char *buf, size_t chunk)
{
	for (;;) {
		int got = gzread(f, buf, (unsigned)chunk);
		char *nl = got > 0 ? memchr(buf, '\n', (size_t)got) : NULL;
		size_t left;

		if (got <= 0)
			return 0;
		if (!nl)
			continue;
		left = (size_t)(buf + got - nl - 1);
		memmove(buf, nl + 1, left);
		return left;
	}
}

int swf_read(const char *path, bool lenient, struct swf_trace *t,
	     struct rota_error *err)
{
	enum { CHUNK = 1 << 16 };
	gzFile f = gzopen(path, "rb");
	char *buf;
	size_t have = 0;
	struct reader r;
	int rc = 0;

	reader_init(&r, path, lenient, t);
	if (!f)
		return rota_errorf(err, errno ? -errno : -ENOMEM, "%s: %s",
				   path, strerror(errno ? errno : ENOMEM));
	/* room for one chunk past the longest line we accept whole */
	buf = rota_xmalloc(CHUNK + SWF_LINE_MAX + 2);
	for (;;) {
		int got = gzread(f, buf + have, CHUNK);
		size_t used;
		int zerr;

		if (got < 0) {
			rc = rota_errorf(err, -EIO, "%s: %s", path,
					 gzerror(f, &zerr));
			break;
		}
		have += (size_t)got;
		used = feed(&r, buf, have, got == 0, &rc, err);
		if (rc < 0 || got == 0)
			break;
		memmove(buf, buf + used, have - used);
		have -= used;
		if (have > SWF_LINE_MAX) {
			/* a line with no end in sight: refuse it whole */
			rc = take_line(&r, buf, have, err);
			if (rc == 0)
				have = skip_rest(f, buf, CHUNK);
			if (rc < 0)
				break;
		}
	}
	free(buf);
	gzclose(f);
	if (rc < 0) {
		swf_trace_fini(t);
		return rc;
	}
	reader_finish(&r);
	return 0;
}

void swf_trace_fini(struct swf_trace *t)
{
	free(t->jobs);
	*t = (struct swf_trace){ .max_procs = -1, .max_nodes = -1,
				 .unix_start = -1 };
}
