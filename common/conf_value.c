// SPDX-License-Identifier: MIT
/*
 * rota.conf's value setters: one per value type (number, duration, size,
 * bool, string, path, name list, hostlist), each saying only why a value
 * is wrong; the caller adds "file:line: Key: ".  Shared by the parsers of
 * every kind of line (conf_internal.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf_internal.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/units.h"
#include "common/xalloc.h"

/*
 * Make room for 'need' elements of 'size' bytes in 'array' of '*slots',
 * doubling: a file of one-node lines must not cost n^2 copies.
 */
void *conf_grow(void *array, size_t *slots, size_t need, size_t size)
{
	if (need <= *slots)
		return array;
	*slots = need > *slots * 2 ? need : *slots * 2;
	return rota_xreallocarray(array, *slots, size);
}


/* ---- value setters ------------------------------------------------------- */

/* How a numeric type reads text and shows a bound in messages. */
struct conf_number {
	int (*parse)(const char *text, int64_t *v, struct rota_error *err);
	void (*show)(int64_t v, char *buf, size_t len);
};

static int parse_uint(const char *text, int64_t *v, struct rota_error *err)
{
	size_t len = strspn(text, "0123456789");

	if (len == 0 || text[len])
		return rota_errorf(err, -EINVAL, "'%.40s' is not a number",
				   text);
	if (len > 18)
		return rota_errorf(err, -EINVAL, "'%.40s' is too large", text);
	*v = strtoll(text, NULL, 10);
	return 0;
}

static int parse_dur_unit(const char *text, int64_t *v,
			  struct rota_error *err)
{
	return rota_duration_parse(text, ROTA_DURATION_NEED_UNIT, v, err);
}

static int parse_dur_slurm(const char *text, int64_t *v,
			   struct rota_error *err)
{
	return rota_duration_parse(text, ROTA_DURATION_BARE_MINUTES, v, err);
}

static int parse_size(const char *text, int64_t *v, bool mb,
		      struct rota_error *err)
{
	uint64_t u;
	int rc = mb ? rota_size_parse_mb(text, &u, err)
		    : rota_size_parse_bytes(text, &u, err);

	if (rc)
		return rc;
	if (u > INT64_MAX)
		return rota_errorf(err, -EINVAL, "'%.40s' is too large", text);
	*v = (int64_t)u;
	return 0;
}

static int parse_mb(const char *text, int64_t *v, struct rota_error *err)
{
	return parse_size(text, v, true, err);
}

static int parse_bytes(const char *text, int64_t *v, struct rota_error *err)
{
	return parse_size(text, v, false, err);
}

static void show_plain(int64_t v, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRId64, v);
}

/* "0", "90s", "15m", "1h", "7d": the largest unit that divides. */
void conf_show_seconds(int64_t v, char *buf, size_t len)
{
	static const struct {
		char unit;
		int64_t seconds;
	} units[] = { { 'd', 86400 }, { 'h', 3600 }, { 'm', 60 }, { 's', 1 } };

	if (v == ROTA_DURATION_UNLIMITED || v == 0) {
		snprintf(buf, len, v ? "UNLIMITED" : "0");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (v % units[i].seconds == 0) {
			snprintf(buf, len, "%" PRId64 "%c",
				 v / units[i].seconds, units[i].unit);
			return;
		}
	}
}

static void show_mb(int64_t v, char *buf, size_t len)
{
	rota_size_format_mb((uint64_t)v, buf, len);
}

static void show_bytes(int64_t v, char *buf, size_t len)
{
	static const char units[] = "TGMK";

	for (int i = 0; i < 4; i++) {
		int64_t u = INT64_C(1) << (10 * (4 - i));

		if (v && v % u == 0) {
			snprintf(buf, len, "%" PRId64 "%c", v / u, units[i]);
			return;
		}
	}
	snprintf(buf, len, "%" PRId64, v);
}

static const struct conf_number number_uint = { parse_uint, show_plain };
static const struct conf_number number_dur = { parse_dur_unit, conf_show_seconds };
static const struct conf_number number_time = { parse_dur_slurm, conf_show_seconds };
static const struct conf_number number_mb = { parse_mb, show_mb };
static const struct conf_number number_bytes = { parse_bytes, show_bytes };

/* Parse 'value' as 'num' within the key's bounds ("-3s" is below 0). */
static int number_get(const struct conf_key *key, const char *value,
		      const struct conf_number *num, int64_t *out,
		      struct rota_error *err)
{
	char bound[32];
	int64_t v;
	int rc;

	if (value[0] == '-' && num->parse(value + 1, &v, NULL) == 0) {
		v = -1; /* "-3s": say it is below the minimum */
	} else {
		rc = num->parse(value, &v, err);
		if (rc)
			return rc;
	}
	if (v < key->min) {
		num->show(key->min, bound, sizeof(bound));
		return rota_errorf(err, -EINVAL, "'%.40s' is below %s", value,
				   bound);
	}
	if (v > key->max) {
		num->show(key->max, bound, sizeof(bound));
		return rota_errorf(err, -EINVAL, "'%.40s' is above %s", value,
				   bound);
	}
	*out = v;
	return 0;
}

int conf_set_uint(const struct conf_key *key, const char *value, void *base,
		    struct rota_error *err)
{
	int64_t v;
	int rc = number_get(key, value, &number_uint, &v, err);

	if (!rc)
		*FIELD(base, key, unsigned) = (unsigned)v;
	return rc;
}

/* A whole number that may be negative: IT4I's qfree has priority -1024. */
int conf_set_int(const struct conf_key *key, const char *value, void *base,
		 struct rota_error *err)
{
	bool neg = value[0] == '-';
	int64_t v;
	int rc = parse_uint(value + neg, &v, err);

	if (rc)
		return rota_errorf(err, -EINVAL, "'%.40s' is not a number",
				   value);
	v = neg ? -v : v;
	if (v < key->min || v > key->max)
		return rota_errorf(err, -EINVAL,
				   "'%.40s' is not within [%" PRId64 ", %" PRId64
				   "]",
				   value, key->min, key->max);
	*FIELD(base, key, int) = (int)v;
	return 0;
}

/* A decimal number within [min, max] ("0.25", "1e6"). */
int conf_set_double(const struct conf_key *key, const char *value, void *base,
		    struct rota_error *err)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(value, &end);
	if (end == value || *end || errno || v != v)
		return rota_errorf(err, -EINVAL, "'%.40s' is not a number",
				   value);
	if (v < (double)key->min)
		return rota_errorf(err, -EINVAL, "'%.40s' is below %" PRId64,
				   value, key->min);
	if (v > (double)key->max)
		return rota_errorf(err, -EINVAL, "'%.40s' is above %" PRId64,
				   value, key->max);
	*FIELD(base, key, double) = v;
	return 0;
}

/* rota.conf's own durations: a unit is required ("KillWait=30s"). */
int conf_set_duration(const struct conf_key *key, const char *value,
			void *base, struct rota_error *err)
{
	return number_get(key, value, &number_dur, FIELD(base, key, int64_t),
			  err);
}

/* Queue time limits, in Slurm's forms (a bare number is minutes). */
int conf_set_time(const struct conf_key *key, const char *value, void *base,
		    struct rota_error *err)
{
	return number_get(key, value, &number_time, FIELD(base, key, int64_t),
			  err);
}

int conf_set_size_mb(const struct conf_key *key, const char *value,
		       void *base, struct rota_error *err)
{
	int64_t v;
	int rc = number_get(key, value, &number_mb, &v, err);

	if (!rc)
		*FIELD(base, key, uint64_t) = (uint64_t)v;
	return rc;
}

int conf_set_size_bytes(const struct conf_key *key, const char *value,
			  void *base, struct rota_error *err)
{
	int64_t v;
	int rc = number_get(key, value, &number_bytes, &v, err);

	if (!rc)
		*FIELD(base, key, uint64_t) = (uint64_t)v;
	return rc;
}

int conf_set_bool(const struct conf_key *key, const char *value, void *base,
		    struct rota_error *err)
{
	if (rota_bool_parse(value, FIELD(base, key, bool)))
		return rota_errorf(err, -EINVAL, "'%.40s' is not yes or no",
				   value);
	return 0;
}

int conf_set_string(const struct conf_key *key, const char *value,
		      void *base, struct rota_error *err)
{
	char **field = FIELD(base, key, char *);

	free(*field);
	*field = rota_xstrdup(value);
	return 0;
}

int conf_set_path(const struct conf_key *key, const char *value, void *base,
		    struct rota_error *err)
{
	if (value[0] != '/')
		return rota_errorf(err, -EINVAL,
				   "'%.40s' is not an absolute path", value);
	return conf_set_string(key, value, base, err);
}

/*
 * Names of clusters, accounts, QOS, features and users:
 * [A-Za-z0-9_.-]{1,64} (queues take more: conf_set_queue_name()).
 */
int conf_check_name(const char *s, size_t len, struct rota_error *err)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";

	if (len == 0)
		return rota_errorf(err, -EINVAL, "empty name in list");
	if (len > CONF_NAME_MAX)
		return rota_errorf(err, -EINVAL, "'%.40s...' is too long",
				   s);
	for (size_t i = 0; i < len; i++) {
		if (!s[i] || !strchr(ok, s[i]))
			return rota_errorf(err, -EINVAL,
					   "'%.*s' is not a valid name",
					   len > 40 ? 40 : (int)len, s);
	}
	return 0;
}

int conf_set_name(const struct conf_key *key, const char *value, void *base,
		    struct rota_error *err)
{
	int rc = conf_check_name(value, strlen(value), err);

	return rc ? rc : conf_set_string(key, value, base, err);
}

/*
 * Queue names as Slurm's partition names: Slurm checks no characters in
 * them, only its syntax reserves some (',' between names in lists; space,
 * '=' and '#' in slurm.conf).  So a queue may be "medium40:test" (GWDG) or
 * "gpu+": any printable ASCII but what rota.conf's syntax needs (space,
 * '=', ',', '#' and the quote), 1 to 64 of them.
 */
int conf_set_queue_name(const struct conf_key *key, const char *value,
			void *base, struct rota_error *err)
{
	size_t len = strlen(value);

	if (len > CONF_NAME_MAX)
		return rota_errorf(err, -EINVAL, "'%.40s...' is too long",
				   value);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)value[i];

		if (c <= ' ' || c > '~' || strchr("=,#\"", c))
			return rota_errorf(err, -EINVAL,
					   "'%.40s' is not a valid queue name "
					   "(no space, '=', ',', '#' or '\"')",
					   value);
	}
	return conf_set_string(key, value, base, err);
}

void conf_list_free(char **list)
{
	for (size_t i = 0; list && list[i]; i++)
		free(list[i]);
	free(list);
}

/* "a,b,c" into a NULL-terminated list of checked names. */
int conf_set_names(const struct conf_key *key, const char *value,
		     void *base, struct rota_error *err)
{
	char ***field = FIELD(base, key, char **);
	size_t n = 1;
	char **list;
	int rc;

	for (const char *p = value; *p; p++)
		n += *p == ',';
	list = rota_xcalloc(n + 1, sizeof(*list));
	for (size_t i = 0; i < n; i++) {
		size_t len = strcspn(value, ",");

		rc = conf_check_name(value, len, err);
		if (rc) {
			conf_list_free(list);
			return rc;
		}
		list[i] = rota_xstrndup(value, len);
		value += len + 1;
	}
	conf_list_free(*field);
	*field = list;
	return 0;
}

int conf_set_log_level(const struct conf_key *key, const char *value,
			 void *base, struct rota_error *err)
{
	enum rota_log_level level;
	char lower[16];
	size_t i;

	for (i = 0; value[i] && i + 1 < sizeof(lower); i++)
		lower[i] = (char)(value[i] | (value[i] >= 'A' &&
					      value[i] <= 'Z' ? 0x20 : 0));
	lower[i] = '\0';
	if (value[i] || rota_log_level_parse(lower, &level))
		return rota_errorf(err, -EINVAL,
				   "'%.40s' is not one of fatal, error, warn, info, debug",
				   value);
	return conf_set_string(key, lower, base, err);
}

int conf_set_hostlist(const struct conf_key *key, const char *value,
			void *base, struct rota_error *err)
{
	struct rota_hostlist **field = FIELD(base, key, struct rota_hostlist *);
	struct rota_hostlist *hl;
	int rc = rota_hostlist_parse(value, &hl, err);

	if (rc)
		return rc;
	rota_hostlist_destroy(*field);
	*field = hl;
	return 0;
}

/* A queue's Nodes: a hostlist, or ALL (left NULL). */
int conf_set_queue_nodes(const struct conf_key *key, const char *value,
			   void *base, struct rota_error *err)
{
	struct rota_hostlist **field = FIELD(base, key, struct rota_hostlist *);

	if (strcasecmp(value, "ALL") == 0) {
		rota_hostlist_destroy(*field);
		*field = NULL;
		return 0;
	}
	return conf_set_hostlist(key, value, base, err);
}
