// SPDX-License-Identifier: MIT
/*
 * Feature expressions, compiled once at submit into an OR of AND-terms so
 * that matching a node is a few string compares.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "ctld/core/constraint.h"

#define CONSTRAINT_MAX_FEATURES 32

struct constraint {
	size_t n;	/* features */
	char **feature;
	int *term;	/* term index of each feature: OR of terms */
};

void constraint_destroy(struct constraint *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->feature[i]);
	free(c->feature);
	free(c->term);
	free(c);
}

static bool is_feature_char(int ch)
{
	return isalnum(ch) || ch == '_' || ch == '-' || ch == '.';
}

int constraint_parse(const char *text, struct constraint **out,
		     struct rota_error *err)
{
	struct constraint *c = rota_xcalloc(1, sizeof(*c));
	const char *p = text;
	int term = 0;

	*out = NULL;
	c->feature = rota_xcalloc(CONSTRAINT_MAX_FEATURES, sizeof(char *));
	c->term = rota_xcalloc(CONSTRAINT_MAX_FEATURES, sizeof(int));
	for (;;) {
		const char *start = p;

		while (is_feature_char((unsigned char)*p))
			p++;
		if (p == start) {
			constraint_destroy(c);
			return rota_errorf(err, -EINVAL,
					   "constraint '%s': expected a "
					   "feature name at '%s'",
					   text, start);
		}
		if (c->n == CONSTRAINT_MAX_FEATURES) {
			constraint_destroy(c);
			return rota_errorf(err, -EINVAL,
					   "constraint '%s': more than %d "
					   "features",
					   text, CONSTRAINT_MAX_FEATURES);
		}
		c->feature[c->n] = rota_xstrndup(start, (size_t)(p - start));
		c->term[c->n++] = term;
		if (*p == '\0')
			break;
		if (*p == '|')
			term++;
		else if (*p != '&') {
			constraint_destroy(c);
			return rota_errorf(err, -EINVAL,
					   "constraint '%s': unexpected '%c'",
					   text, *p);
		}
		p++;
	}
	*out = c;
	return 0;
}

static bool has_feature(char *const *features, const char *f)
{
	for (; features && *features; features++) {
		if (strcmp(*features, f) == 0)
			return true;
	}
	return false;
}

bool constraint_match(const struct constraint *c, char *const *features)
{
	size_t i = 0;

	if (!c)
		return true;
	while (i < c->n) {
		int term = c->term[i];
		bool ok = true;

		for (; i < c->n && c->term[i] == term; i++)
			ok = ok && has_feature(features, c->feature[i]);
		if (ok)
			return true;
	}
	return false;
}
