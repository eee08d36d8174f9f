/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_UNITS_H
#define ROTA_COMMON_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/*
 * Durations and sizes as users and admins write them.
 *
 * Durations: "MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS"
 * (Slurm's --time forms, a bare number being minutes), or a number with a
 * unit suffix: "90s", "15m", "2h", "7d".  "UNLIMITED" or "infinite" gives
 * ROTA_DURATION_UNLIMITED.  With ROTA_DURATION_NEED_UNIT a bare number is
 * refused, which rota.conf uses so that "KillWait=30" cannot silently mean
 * thirty minutes.
 *
 * Sizes: a number with an optional K, M, G or T suffix (powers of 1024), a
 * bare number being megabytes (Slurm's --mem and RealMemory).
 */
#define ROTA_DURATION_UNLIMITED INT64_MAX
#define ROTA_DURATION_MAX ((int64_t)366 * 24 * 3600 * 100)

enum rota_duration_flags {
	ROTA_DURATION_BARE_MINUTES = 0,
	ROTA_DURATION_NEED_UNIT = 1,
};

/* Parse a duration into seconds; -EINVAL with 'err' saying why. */
int rota_duration_parse(const char *text, enum rota_duration_flags flags,
			int64_t *seconds, struct rota_error *err);
/* Format seconds as "[D-]HH:MM:SS" (or "UNLIMITED") into buf. */
void rota_duration_format(int64_t seconds, char *buf, size_t len);

/* Parse a size into megabytes; -EINVAL with 'err' saying why. */
int rota_size_parse_mb(const char *text, uint64_t *mb, struct rota_error *err);
/*
 * The same syntax (a bare number still being megabytes) into bytes, for
 * limits below a megabyte such as rota.conf's MaxMessageSize=64K.  Added for
 * conf.c; decimals ("1.5G") are accepted with a unit, as the formatter
 * writes them.
 */
int rota_size_parse_bytes(const char *text, uint64_t *bytes,
			  struct rota_error *err);
/* Format megabytes as "512M", "64G", "1.5T" into buf. */
void rota_size_format_mb(uint64_t mb, char *buf, size_t len);

/* Parse "yes/no/true/false/1/0/on/off"; -EINVAL otherwise. */
int rota_bool_parse(const char *text, bool *out);

#endif
