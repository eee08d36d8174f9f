// SPDX-License-Identifier: MIT
/*
 * Durations, sizes and booleans as users and admins write them, and their
 * display forms.  Everything is parsed by hand with explicit overflow checks:
 * strtol() accepts signs, spaces and hex that no one means here.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/units.h"

/* Longest number accepted anywhere here; keeps products far from overflow. */
#define UNITS_DIGITS_MAX 12

/* Parse digits s[0..len) (len <= UNITS_DIGITS_MAX); -1 if not all digits. */
static int64_t parse_field(const char *s, size_t len)
{
	int64_t v = 0;

	if (len == 0 || len > UNITS_DIGITS_MAX)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static int not_duration(const char *text, struct rota_error *err)
{
	return rota_errorf(err, -EINVAL, "'%.40s' is not a duration", text);
}

/* "90s", "15m", "2h", "7d"; -1 if 'text' is not of that form. */
static int64_t parse_suffixed(const char *text, size_t len)
{
	static const struct {
		char unit;
		int64_t seconds;
	} units[] = { { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 } };
	int64_t v;

	if (len < 2)
		return -1;
	v = parse_field(text, len - 1);
	if (v < 0)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(*units); i++) {
		if ((text[len - 1] | 0x20) == units[i].unit)
			return v * units[i].seconds;
	}
	return -1;
}

/*
 * Slurm's forms: "MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS".
 * -1 if 'text' is none of them.
 */
static int64_t parse_clock(const char *text)
{
	const char *dash = strchr(text, '-');
	const char *p = dash ? dash + 1 : text;
	int64_t field[3];
	int64_t days = 0;
	size_t n = 0;

	if (dash) {
		days = parse_field(text, (size_t)(dash - text));
		if (days < 0)
			return -1;
	}
	for (;;) {
		size_t len = strcspn(p, ":");

		if (n == 3)
			return -1;
		field[n] = parse_field(p, len);
		if (field[n++] < 0)
			return -1;
		if (!p[len])
			break;
		p += len + 1;
	}
	if (dash) /* D-HH, D-HH:MM, D-HH:MM:SS */
		return days * 86400 + field[0] * 3600 +
		       (n > 1 ? field[1] * 60 : 0) + (n > 2 ? field[2] : 0);
	if (n == 1)
		return field[0] * 60;
	if (n == 2)
		return field[0] * 60 + field[1];
	return field[0] * 3600 + field[1] * 60 + field[2];
}

int rota_duration_parse(const char *text, enum rota_duration_flags flags,
			int64_t *seconds, struct rota_error *err)
{
	size_t len = strlen(text);
	bool bare;
	int64_t v;

	if (len == 0)
		return rota_errorf(err, -EINVAL, "empty duration");
	if (!strcasecmp(text, "UNLIMITED") || !strcasecmp(text, "infinite")) {
		*seconds = ROTA_DURATION_UNLIMITED;
		return 0;
	}
	if (text[0] == '-')
		return rota_errorf(err, -EINVAL, "'%.40s' is negative", text);
	bare = strspn(text, "0123456789") == len;
	if ((flags & ROTA_DURATION_NEED_UNIT) && bare)
		return rota_errorf(err, -EINVAL,
				   "'%.20s' has no unit (write %.20ss, %.20sm, %.20sh or %.20sd)",
				   text, text, text, text, text);
	v = parse_suffixed(text, len);
	if (v < 0)
		v = parse_clock(text);
	if (v < 0)
		return not_duration(text, err);
	if (v > ROTA_DURATION_MAX)
		return rota_errorf(err, -EINVAL, "'%.40s' is too long", text);
	*seconds = v;
	return 0;
}

void rota_duration_format(int64_t seconds, char *buf, size_t len)
{
	int64_t s = seconds < 0 ? 0 : seconds; /* no such thing: show zero */

	if (seconds == ROTA_DURATION_UNLIMITED) {
		snprintf(buf, len, "UNLIMITED");
		return;
	}
	if (s >= 86400)
		snprintf(buf, len, "%" PRId64 "-%02d:%02d:%02d", s / 86400,
			 (int)(s % 86400 / 3600), (int)(s % 3600 / 60),
			 (int)(s % 60));
	else
		snprintf(buf, len, "%02d:%02d:%02d", (int)(s / 3600),
			 (int)(s % 3600 / 60), (int)(s % 60));
}

/* Bytes per unit letter; 0 for none.  A bare number is megabytes. */
static uint64_t unit_bytes(char c)
{
	switch (c | 0x20) {
	case 'k':
		return UINT64_C(1) << 10;
	case 'm':
		return UINT64_C(1) << 20;
	case 'g':
		return UINT64_C(1) << 30;
	case 't':
		return UINT64_C(1) << 40;
	default:
		return 0;
	}
}

/*
 * "512", "64G", "1.5T": at most 3 decimals, and only with a unit letter (the
 * formatter writes them).  Rounds down to whole bytes.
 */
int rota_size_parse_bytes(const char *text, uint64_t *bytes,
			  struct rota_error *err)
{
	size_t len = strlen(text);
	size_t ilen = strspn(text, "0123456789");
	size_t flen = 0;
	uint64_t unit = UINT64_C(1) << 20;
	uint64_t scale = 1;
	int64_t whole;
	int64_t frac = 0;
	uint64_t v;

	if (len == 0)
		return rota_errorf(err, -EINVAL, "empty size");
	if (text[0] == '-')
		return rota_errorf(err, -EINVAL, "'%.40s' is negative", text);
	if (text[ilen] == '.') {
		flen = strspn(text + ilen + 1, "0123456789");
		frac = flen <= 3 ? parse_field(text + ilen + 1, flen) : -1;
		for (size_t i = 0; i < flen; i++)
			scale *= 10;
	}
	if (ilen > UNITS_DIGITS_MAX)
		return rota_errorf(err, -EINVAL, "'%.40s' is too large", text);
	whole = parse_field(text, ilen);
	len -= ilen + (flen || text[ilen] == '.' ? flen + 1 : 0);
	if (len == 1)
		unit = unit_bytes(text[strlen(text) - 1]);
	if (whole < 0 || frac < 0 || len > 1 || unit == 0 ||
	    (scale > 1 && len == 0))
		return rota_errorf(err, -EINVAL, "'%.40s' is not a size", text);
	/* whole and fraction apart: "1757812.5T" fits, ten times it does not */
	if (__builtin_mul_overflow((uint64_t)whole, unit, &v) ||
	    __builtin_add_overflow(v, (uint64_t)frac * unit / scale, &v))
		return rota_errorf(err, -EINVAL, "'%.40s' is too large", text);
	*bytes = v;
	return 0;
}

int rota_size_parse_mb(const char *text, uint64_t *mb, struct rota_error *err)
{
	uint64_t bytes;
	int rc = rota_size_parse_bytes(text, &bytes, err);

	if (rc)
		return rc;
	/* Round up: "512K" of memory is not "0", which means "unset". */
	*mb = (bytes >> 20) + ((bytes & ((1u << 20) - 1)) != 0);
	return 0;
}

void rota_size_format_mb(uint64_t mb, char *buf, size_t len)
{
	static const struct {
		char unit;
		int shift;
	} units[] = { { 'T', 20 }, { 'G', 10 } };

	for (size_t i = 0; i < sizeof(units) / sizeof(*units); i++) {
		uint64_t u = UINT64_C(1) << units[i].shift;

		if (mb < u)
			continue;
		if (mb % u == 0) {
			snprintf(buf, len, "%" PRIu64 "%c", mb / u,
				 units[i].unit);
			return;
		}
		if ((mb * 10) % u == 0) {
			snprintf(buf, len, "%" PRIu64 ".%d%c", mb / u,
				 (int)(mb % u * 10 / u), units[i].unit);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64 "M", mb);
}

int rota_bool_parse(const char *text, bool *out)
{
	static const char *const yes[] = { "yes", "true", "1", "on" };
	static const char *const no[] = { "no", "false", "0", "off" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++) {
		if (!strcasecmp(text, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(text, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}
