// SPDX-License-Identifier: MIT
/*
 * The text of a job's --dependency (see depend.h): parsed into items and
 * formatted back.  Shared by the client, which refuses bad input before
 * it is sent, and the controller, which parses again and decides.  Every
 * refusal is one line that quotes the part at fault.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/depend.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

static const char *const type_names[] = {
	[ROTA_DEPEND_NONE] = "none",
	[ROTA_DEPEND_AFTER] = "after",
	[ROTA_DEPEND_AFTERANY] = "afterany",
	[ROTA_DEPEND_AFTEROK] = "afterok",
	[ROTA_DEPEND_AFTERNOTOK] = "afternotok",
	[ROTA_DEPEND_AFTERCORR] = "aftercorr",
	[ROTA_DEPEND_SINGLETON] = "singleton",
};

const char *rota_depend_type_name(enum rota_depend_type t)
{
	return t <= ROTA_DEPEND_SINGLETON ? type_names[t] : "none";
}

static enum rota_depend_type type_parse(const char *s, size_t len)
{
	for (int t = ROTA_DEPEND_AFTER; t <= ROTA_DEPEND_SINGLETON; t++)
		if (strlen(type_names[t]) == len &&
		    strncmp(type_names[t], s, len) == 0)
			return (enum rota_depend_type)t;
	return ROTA_DEPEND_NONE;
}

/* A decimal number in [min, max] spanning exactly [s, s + len). */
static bool number(const char *s, size_t len, uint32_t min, uint32_t max,
		   uint32_t *out)
{
	uint64_t v = 0;

	if (len == 0 || len > 10)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v < min || v > max)
		return false;
	*out = (uint32_t)v;
	return true;
}

static void add_item(struct rota_depend *d, enum rota_depend_type type,
		     uint32_t id, uint32_t minutes)
{
	d->items = rota_xrealloc(d->items, (d->n + 1) * sizeof(*d->items));
	d->items[d->n++] = (struct rota_depend_item){
		.type = type, .job_id = id, .minutes = minutes,
	};
}

/* One id of a part, "ID" or, for after, "ID+MIN". */
static int parse_id(struct rota_depend *d, enum rota_depend_type type,
		    const char *s, size_t len, struct rota_error *err)
{
	const char *plus = memchr(s, '+', len);
	size_t idlen = plus ? (size_t)(plus - s) : len;
	uint32_t id = 0, min = 0;

	if (!number(s, idlen, 1, UINT32_MAX - 1, &id))
		return rota_errorf(err, -EINVAL,
				   "dependency: bad job id '%.*s' in %s",
				   (int)len, s, type_names[type]);
	if (plus && type != ROTA_DEPEND_AFTER)
		return rota_errorf(err, -EINVAL,
				   "dependency: '+minutes' only with after, "
				   "not %s ('%.*s')",
				   type_names[type], (int)len, s);
	if (plus && !number(plus + 1, len - idlen - 1, 0,
			    ROTA_DEPEND_MINUTES_MAX, &min))
		return rota_errorf(err, -EINVAL,
				   "dependency: bad minutes in '%.*s' "
				   "(0 to %u)",
				   (int)len, s, ROTA_DEPEND_MINUTES_MAX);
	if (d->n >= ROTA_DEPEND_MAX)
		return rota_errorf(err, -EINVAL,
				   "dependency: more than %d jobs",
				   ROTA_DEPEND_MAX);
	add_item(d, type, id, min);
	return 0;
}

/* One part, "type:id[:id...]" or "singleton", spanning [s, s + len). */
static int parse_part(struct rota_depend *d, const char *s, size_t len,
		      struct rota_error *err)
{
	const char *colon = memchr(s, ':', len);
	size_t tlen = colon ? (size_t)(colon - s) : len;
	enum rota_depend_type type = type_parse(s, tlen);
	const char *end = s + len;
	int rc = 0;

	if (len == 0)
		return rota_errorf(err, -EINVAL, "dependency: an empty part");
	if (type == ROTA_DEPEND_NONE)
		return rota_errorf(err, -EINVAL,
				   "dependency: unknown type '%.*s' (after, "
				   "afterany, afterok, afternotok, aftercorr, "
				   "singleton)",
				   (int)tlen, s);
	if (type == ROTA_DEPEND_SINGLETON) {
		if (colon)
			return rota_errorf(err, -EINVAL,
					   "dependency: singleton takes no "
					   "job id ('%.*s')", (int)len, s);
		add_item(d, type, 0, 0);
		return 0;
	}
	if (!colon)
		return rota_errorf(err, -EINVAL,
				   "dependency: %s needs a job id (%s:ID)",
				   type_names[type], type_names[type]);
	for (const char *p = colon + 1; rc == 0; p++) {
		const char *q = memchr(p, ':', (size_t)(end - p));

		rc = parse_id(d, type, p, (size_t)((q ? q : end) - p), err);
		if (!q)
			break;
		p = q;
	}
	return rc;
}

int rota_depend_parse(const char *text, struct rota_depend *out,
		      struct rota_error *err)
{
	bool comma = strchr(text, ',') != NULL;
	bool any = strchr(text, '?') != NULL;
	const char *p = text;
	int rc = 0;

	*out = (struct rota_depend){ 0 };
	if (comma && any)
		return rota_errorf(err, -EINVAL,
				   "dependency '%s': ',' (all) and '?' (any) "
				   "cannot be mixed", text);
	out->any = any;
	while (*text && rc == 0) {
		size_t len = strcspn(p, ",?");

		rc = parse_part(out, p, len, err);
		if (!p[len])
			break;
		p += len + 1;
	}
	if (rc < 0)
		rota_depend_clear(out);
	return rc;
}

char *rota_depend_format(const struct rota_depend *d)
{
	struct rota_strbuf b = { 0 };
	size_t len;

	if (!d->n)
		return NULL;
	for (size_t i = 0; i < d->n; i++) {
		const struct rota_depend_item *it = &d->items[i];

		if (i)
			rota_strbuf_adds(&b, d->any ? "?" : ",");
		rota_strbuf_adds(&b, type_names[it->type]);
		if (it->type == ROTA_DEPEND_SINGLETON)
			continue;
		rota_strbuf_addf(&b, ":%u", it->job_id);
		if (it->minutes)
			rota_strbuf_addf(&b, "+%u", it->minutes);
	}
	return rota_strbuf_take(&b, &len);
}

void rota_depend_clear(struct rota_depend *d)
{
	free(d->items);
	*d = (struct rota_depend){ 0 };
}
