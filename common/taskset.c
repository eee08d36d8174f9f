// SPDX-License-Identifier: MIT
/*
 * Job array task sets (taskset.h): the --array expression parsed, kept as
 * a bitmap, and written back in its shortest form.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/taskset.h"
#include "common/xalloc.h"

struct item {
	uint32_t first, last, step;
};

/* A decimal task id at *p (advanced); -EINVAL past 'max' or not one. */
static int number(const char **p, uint32_t max, uint32_t *out,
		  struct rota_error *err)
{
	uint64_t v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return rota_errorf(err, -EINVAL, "'%s': a task id expected",
				   s);
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v >= max)
			return rota_errorf(err, -EINVAL,
					   "task id %.*s: MaxArraySize is %u "
					   "(ids 0 to %u)",
					   (int)(s + 1 - *p), *p, max, max - 1);
	}
	*p = s;
	*out = (uint32_t)v;
	return 0;
}

/* "N", "N-M" or "N-M:S" at *p. */
static int item(const char **p, uint32_t max, struct item *it,
		struct rota_error *err)
{
	int rc = number(p, max, &it->first, err);

	it->last = it->first;
	it->step = 1;
	if (rc == 0 && **p == '-') {
		(*p)++;
		rc = number(p, max, &it->last, err);
		if (rc == 0 && it->last < it->first)
			return rota_errorf(err, -EINVAL,
					   "%u-%u: the range runs backwards",
					   it->first, it->last);
	}
	if (rc == 0 && **p == ':' && it->last != it->first) {
		(*p)++;
		rc = number(p, UINT32_MAX, &it->step, err);
		if (rc == 0 && !it->step)
			return rota_errorf(err, -EINVAL, "a step of 0");
	}
	return rc;
}

static void set_bit(struct rota_taskset *ts, uint32_t id)
{
	uint32_t i = id - ts->base;
	uint64_t m = 1ull << (i % 64);

	if (!(ts->bits[i / 64] & m)) {
		ts->bits[i / 64] |= m;
		ts->count++;
	}
}

int rota_taskset_parse(const char *text, uint32_t max_size,
		       struct rota_taskset *ts, uint32_t *throttle,
		       struct rota_error *err)
{
	struct item *v = NULL;
	size_t n = 0;
	uint32_t lo = UINT32_MAX, hi = 0;
	const char *p = text;
	int rc = 0;

	*ts = (struct rota_taskset){ 0 };
	if (throttle)
		*throttle = 0;
	if (!*p)
		return rota_errorf(err, -EINVAL, "no task ids");
	while (rc == 0) {
		v = rota_xreallocarray(v, n + 1, sizeof(*v));
		rc = item(&p, max_size, &v[n], err);
		if (rc < 0)
			break;
		lo = v[n].first < lo ? v[n].first : lo;
		hi = v[n].last > hi ? v[n].last : hi;
		n++;
		if (*p != ',')
			break;
		p++;
	}
	if (rc == 0 && *p == '%') {
		p++;
		if (!throttle)
			rc = rota_errorf(err, -EINVAL, "no throttle (%%) here");
		else if ((rc = number(&p, UINT32_MAX, throttle, err)) == 0 &&
			 !*throttle)
			rc = rota_errorf(err, -EINVAL,
					 "%%0: a throttle of 0 runs no task");
	}
	if (rc == 0 && *p)
		rc = rota_errorf(err, -EINVAL, "'%s': not understood", p);
	if (rc == 0) {
		ts->base = lo;
		ts->span = hi - lo + 1;
		ts->bits = rota_xcalloc((ts->span + 63) / 64, sizeof(uint64_t));
		for (size_t i = 0; i < n; i++)
			for (uint64_t id = v[i].first; id <= v[i].last;
			     id += v[i].step)
				set_bit(ts, (uint32_t)id);
	}
	free(v);
	return rc;
}

void rota_taskset_fini(struct rota_taskset *ts)
{
	free(ts->bits);
	*ts = (struct rota_taskset){ 0 };
}

bool rota_taskset_has(const struct rota_taskset *ts, uint32_t id)
{
	uint32_t i = id - ts->base;

	return id >= ts->base && i < ts->span &&
	       (ts->bits[i / 64] >> (i % 64) & 1);
}

void rota_taskset_remove(struct rota_taskset *ts, uint32_t id)
{
	uint32_t i = id - ts->base;

	if (!rota_taskset_has(ts, id))
		return;
	ts->bits[i / 64] &= ~(1ull << (i % 64));
	ts->count--;
}

/* The first set bit at or after bit 'i'; span when none. */
static uint32_t scan(const struct rota_taskset *ts, uint32_t i)
{
	uint32_t w = i / 64, words = (ts->span + 63) / 64;
	uint64_t m;

	if (i >= ts->span)
		return ts->span;
	m = ts->bits[w] & (~0ull << (i % 64));
	while (!m && ++w < words)
		m = ts->bits[w];
	if (!m)
		return ts->span;
	i = w * 64 + (uint32_t)__builtin_ctzll(m);
	return i < ts->span ? i : ts->span;
}

uint32_t rota_taskset_first(struct rota_taskset *ts)
{
	if (!ts->count)
		return UINT32_MAX;
	ts->lo = scan(ts, ts->lo);
	return ts->base + ts->lo;
}

uint32_t rota_taskset_lowest(const struct rota_taskset *ts)
{
	uint32_t i = ts->count ? scan(ts, ts->lo) : ts->span;

	return i < ts->span ? ts->base + i : UINT32_MAX;
}

uint32_t rota_taskset_next(const struct rota_taskset *ts, uint32_t id)
{
	uint32_t i;

	if (!ts->count)
		return UINT32_MAX;
	if (id < ts->base)
		i = scan(ts, 0);
	else if (id - ts->base + 1 >= ts->span)
		return UINT32_MAX;
	else
		i = scan(ts, id - ts->base + 1);
	return i < ts->span ? ts->base + i : UINT32_MAX;
}

uint32_t rota_taskset_last(const struct rota_taskset *ts)
{
	for (uint32_t i = ts->span; ts->count && i-- > 0;)
		if (ts->bits[i / 64] >> (i % 64) & 1)
			return ts->base + i;
	return UINT32_MAX;
}

void rota_taskset_format(const struct rota_taskset *ts, struct rota_strbuf *b)
{
	uint32_t i = ts->count ? scan(ts, 0) : ts->span;
	uint32_t a = i < ts->span ? ts->base + i : UINT32_MAX;
	bool first = true;

	while (a != UINT32_MAX) {
		uint32_t nb = rota_taskset_next(ts, a), last = a, len = 1;
		uint32_t step = nb != UINT32_MAX ? nb - a : 1;

		/*
		 * The longest run of equal steps from a; a stride stops
		 * short of an id that starts a run of consecutive ones
		 * ("1,3,5-9", not "1-5:2,6-9").
		 */
		while (nb != UINT32_MAX && nb - last == step &&
		       (step == 1 || !rota_taskset_has(ts, nb + 1))) {
			last = nb;
			len++;
			nb = rota_taskset_next(ts, nb);
		}
		rota_strbuf_adds(b, first ? "" : ",");
		first = false;
		if (len == 1 || (len == 2 && step > 1)) {
			/* "1,3": two ids are not worth a step */
			rota_strbuf_addf(b, "%u", a);
			a = rota_taskset_next(ts, a);
			continue;
		}
		if (step == 1)
			rota_strbuf_addf(b, "%u-%u", a, last);
		else
			rota_strbuf_addf(b, "%u-%u:%u", a, last, step);
		a = nb;
	}
}

char *rota_array_job_name(uint32_t array_id, uint32_t task, const char *rest,
			  uint32_t throttle)
{
	if (task != ROTA_ARRAY_PENDING_REST)
		return rota_xasprintf("%u_%u", array_id, task);
	if (throttle)
		return rota_xasprintf("%u_[%s%%%u]", array_id, rest ? rest : "",
				      throttle);
	return rota_xasprintf("%u_[%s]", array_id, rest ? rest : "");
}

char *rota_taskset_text(const struct rota_taskset *ts)
{
	struct rota_strbuf b = { 0 };

	rota_taskset_format(ts, &b);
	return b.data ? rota_strbuf_take(&b, NULL) : rota_xstrdup("");
}
