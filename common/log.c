// SPDX-License-Identifier: MIT
/*
 * The process logger: one line per event, "time ident[pid]: level: text",
 * to stderr or an append-only file.  Process-wide by design (STYLE 4): every
 * daemon has exactly one log.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"

static struct {
	char ident[32];
	enum rota_log_level level;
	FILE *out;
} logger = { "rota", ROTA_LOG_INFO, NULL };

static const char *const level_names[] = {
	[ROTA_LOG_FATAL] = "fatal", [ROTA_LOG_ERR] = "error",
	[ROTA_LOG_WARN] = "warn",   [ROTA_LOG_INFO] = "info",
	[ROTA_LOG_DEBUG] = "debug",
};

int rota_log_init(const char *ident, enum rota_log_level level,
		  const char *path)
{
	FILE *f;

	snprintf(logger.ident, sizeof(logger.ident), "%s", ident);
	logger.level = level;
	if (!path)
		return 0;
	f = fopen(path, "ae");
	if (!f)
		return -errno;
	setvbuf(f, NULL, _IOLBF, 0);
	if (logger.out)
		fclose(logger.out);
	logger.out = f;
	return 0;
}

int rota_log_level_parse(const char *text, enum rota_log_level *out)
{
	for (size_t i = 0; i < sizeof(level_names) / sizeof(*level_names); i++) {
		if (strcmp(text, level_names[i]) == 0) {
			*out = (enum rota_log_level)i;
			return 0;
		}
	}
	return -EINVAL;
}

void rota_log_set_level(enum rota_log_level level)
{
	logger.level = level;
}

bool rota_log_enabled(enum rota_log_level level)
{
	return level <= logger.level;
}

static void log_line(enum rota_log_level level, const char *func,
		     const char *fmt, va_list ap)
{
	FILE *out = logger.out ? logger.out : stderr;
	struct timespec ts;
	struct tm tm;
	char stamp[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	flockfile(out);
	fprintf(out, "%s.%03ld %s[%d]: %s: ", stamp, ts.tv_nsec / 1000000,
		logger.ident, (int)getpid(), level_names[level]);
	if (logger.level >= ROTA_LOG_DEBUG)
		fprintf(out, "%s: ", func);
	vfprintf(out, fmt, ap);
	fputc('\n', out);
	funlockfile(out);
}

void rota_log(enum rota_log_level level, const char *func, const char *fmt,
	      ...)
{
	va_list ap;

	if (!rota_log_enabled(level))
		return;
	va_start(ap, fmt);
	log_line(level, func, fmt, ap);
	va_end(ap);
}

void rota_log_fatal(const char *func, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(ROTA_LOG_FATAL, func, fmt, ap);
	va_end(ap);
	abort();
}
