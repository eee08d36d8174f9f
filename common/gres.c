// SPDX-License-Identifier: MIT
/* Generic resource specs: gpu:v100:16,nvme:2 (gres.h). */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/gres.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return n > 0;
}

static int word(const char *item, const char *s, size_t n, char *out,
		const char *what, struct rota_error *err)
{
	if (!n)
		return rota_errorf(err, -EINVAL, "'%s': empty %s", item, what);
	if (n > ROTA_GRES_NAME_MAX)
		return rota_errorf(err, -EINVAL, "'%s': %s longer than %d",
				   item, what, ROTA_GRES_NAME_MAX);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!isalnum(c) && c != '_' && c != '-')
			return rota_errorf(err, -EINVAL,
					   "'%s': bad character '%c' in %s",
					   item, c, what);
		out[i] = (char)tolower(c);
	}
	out[n] = '\0';
	return 0;
}

static int count_of(const char *item, const char *s, size_t n, uint32_t *out,
		    struct rota_error *err)
{
	uint64_t v = 0;

	if (!all_digits(s, n))
		return rota_errorf(err, -EINVAL,
				   "'%s': count '%.*s' is not a number", item,
				   (int)n, s);
	for (size_t i = 0; i < n && v <= ROTA_GRES_COUNT_MAX; i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	if (v < 1 || v > ROTA_GRES_COUNT_MAX)
		return rota_errorf(err, -EINVAL,
				   "'%s': count must be 1 to %d", item,
				   ROTA_GRES_COUNT_MAX);
	*out = (uint32_t)v;
	return 0;
}

/* One NAME[:TYPE][:COUNT] of 'len' characters at 's'. */
static int item_parse(const char *s, size_t len, struct rota_gres *g,
		      struct rota_error *err)
{
	char item[128];
	const char *f[4];
	size_t fl[4], nf = 0;
	const char *p = s, *end = s + len;
	int rc;

	snprintf(item, sizeof(item), "%.*s", (int)(len < 100 ? len : 100), s);
	while (nf < 4) {
		const char *c = memchr(p, ':', (size_t)(end - p));

		f[nf] = p;
		fl[nf++] = (size_t)((c ? c : end) - p);
		if (!c)
			break;
		p = c + 1;
	}
	if (nf > 3)
		return rota_errorf(err, -EINVAL,
				   "'%s': more than NAME:TYPE:COUNT", item);
	*g = (struct rota_gres){ .count = 1 };
	rc = word(item, f[0], fl[0], g->name, "name", err);
	if (rc == 0 && nf == 2 && all_digits(f[1], fl[1]))
		rc = count_of(item, f[1], fl[1], &g->count, err);
	else if (rc == 0 && nf >= 2) {
		if (all_digits(f[1], fl[1]))
			return rota_errorf(err, -EINVAL,
					   "'%s': type '%.*s' is a number",
					   item, (int)fl[1], f[1]);
		rc = word(item, f[1], fl[1], g->type, "type", err);
	}
	if (rc == 0 && nf == 3)
		rc = count_of(item, f[2], fl[2], &g->count, err);
	return rc;
}

int rota_gres_parse(const char *text, struct rota_gres **out, size_t *n,
		    struct rota_error *err)
{
	struct rota_gres *v = NULL;
	size_t k = 0;
	const char *p = text;

	*out = NULL;
	*n = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		int rc;

		v = rota_xreallocarray(v, k + 1, sizeof(*v));
		rc = item_parse(p, len, &v[k], err);
		for (size_t i = 0; rc == 0 && i < k; i++)
			if (!strcmp(v[i].name, v[k].name) &&
			    !strcmp(v[i].type, v[k].type))
				rc = rota_errorf(err, -EINVAL,
						 "'%s%s%s' given twice",
						 v[k].name, *v[k].type ? ":" : "",
						 v[k].type);
		if (rc < 0) {
			free(v);
			return rc;
		}
		k++;
		p += len;
		if (*p == ',' && !*++p) {
			free(v);
			return rota_errorf(err, -EINVAL, "'%s': ends in ','",
					   text);
		}
	}
	*out = v;
	*n = k;
	return 0;
}

char *rota_gres_text(const struct rota_gres *g, size_t n)
{
	struct rota_strbuf b = { 0 };
	size_t len;
	char *t;

	for (size_t i = 0; i < n; i++) {
		rota_strbuf_addf(&b, "%s%s", i ? "," : "", g[i].name);
		if (g[i].type[0])
			rota_strbuf_addf(&b, ":%s", g[i].type);
		rota_strbuf_addf(&b, ":%u", g[i].count);
	}
	t = rota_strbuf_take(&b, &len);
	return t ? t : rota_xstrdup("");
}
