// SPDX-License-Identifier: MIT
/* The plugin tests' fake host (fake_host.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "testsuite/unit/plugins/fake_host.h"

static const struct setting *lookup(const struct rota_plugin_conf *conf,
				    const char *key, int *line)
{
	for (int i = 0; conf && i < conf->n; i++) {
		if (strcasecmp(conf->s[i].key, key) == 0) {
			*line = i + 1;
			return &conf->s[i];
		}
	}
	return NULL;
}

static int fake_conf_double(const struct rota_plugin_conf *conf,
			    const char *key, double min, double max,
			    double *out, char *err, size_t errlen)
{
	int line;
	const struct setting *s = lookup(conf, key, &line);
	char *end;
	double v;

	if (!s)
		return 0;
	v = strtod(s->value, &end);
	if (end == s->value || *end || v < min || v > max) {
		snprintf(err, errlen, "test.conf:%d: %s: '%s' is not within "
			 "[%g, %g]", line, key, s->value, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* "90s", "2h", "7d" */
static int fake_conf_duration(const struct rota_plugin_conf *conf,
			      const char *key, int64_t min, int64_t max,
			      int64_t *out, char *err, size_t errlen)
{
	int line;
	const struct setting *s = lookup(conf, key, &line);
	char *end;
	long long v;

	if (!s)
		return 0;
	v = strtoll(s->value, &end, 10);
	switch (*end) {
	case 'd': v *= 24; /* fall through */
	case 'h': v *= 60; /* fall through */
	case 'm': v *= 60; /* fall through */
	case 's': break;
	default: v = -1;
	}
	if (v < min || v > max) {
		snprintf(err, errlen, "test.conf:%d: %s: bad duration", line,
			 key);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int fake_conf_string(const struct rota_plugin_conf *conf,
			    const char *key, const char **out, char *where,
			    size_t wherelen)
{
	int line;
	const struct setting *s = lookup(conf, key, &line);

	if (!s)
		return 0;
	*out = s->value;
	snprintf(where, wherelen, "test.conf:%d", line);
	return 0;
}

static int fake_conf_where(const struct rota_plugin_conf *conf,
			   const char *key, char *buf, size_t len)
{
	int line;
	const struct setting *s = lookup(conf, key, &line);

	if (!s)
		return -ENOENT;
	snprintf(buf, len, "test.conf:%d: %s", line, s->key);
	return 0;
}

static int fake_conf_bool(const struct rota_plugin_conf *conf,
			  const char *key, bool *out, char *err,
			  size_t errlen)
{
	int line;
	const struct setting *s = lookup(conf, key, &line);

	if (!s)
		return 0;
	if (!strcasecmp(s->value, "yes") || !strcasecmp(s->value, "no")) {
		*out = !strcasecmp(s->value, "yes");
		return 0;
	}
	snprintf(err, errlen, "test.conf:%d: %s: not yes or no", line, key);
	return -EINVAL;
}

static int fake_conf_choice(const struct rota_plugin_conf *conf,
			    const char *key, const char *const *choices,
			    unsigned *out, char *err, size_t errlen)
{
	int line;
	const struct setting *s = lookup(conf, key, &line);

	if (!s)
		return 0;
	for (unsigned i = 0; choices[i]; i++) {
		if (!strcasecmp(s->value, choices[i])) {
			*out = i;
			return 0;
		}
	}
	snprintf(err, errlen, "test.conf:%d: %s: not a choice", line, key);
	return -EINVAL;
}

void fake_host_init(struct rota_host *host)
{
	*host = (struct rota_host){
		.size = sizeof(*host),
		.conf_double = fake_conf_double,
		.conf_duration = fake_conf_duration,
		.conf_bool = fake_conf_bool,
		.conf_choice = fake_conf_choice,
		.conf_string = fake_conf_string,
		.conf_where = fake_conf_where,
	};
}
