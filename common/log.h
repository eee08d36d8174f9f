/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_LOG_H
#define ROTA_COMMON_LOG_H

#include <stdbool.h>
#include <stdnoreturn.h>

enum rota_log_level {
	ROTA_LOG_FATAL = 0,
	ROTA_LOG_ERR,
	ROTA_LOG_WARN,
	ROTA_LOG_INFO,
	ROTA_LOG_DEBUG,
};

/*
 * Set up the process logger: 'ident' prefixes every line; 'path' (NULL for
 * stderr) is opened for appending.  Returns 0 or -errno when the file cannot
 * be opened (the logger then stays on stderr).
 */
int rota_log_init(const char *ident, enum rota_log_level level,
		  const char *path);

/* Parse "fatal", "error", "warn", "info" or "debug"; -EINVAL otherwise. */
int rota_log_level_parse(const char *text, enum rota_log_level *out);

void rota_log_set_level(enum rota_log_level level);
bool rota_log_enabled(enum rota_log_level level);

void rota_log(enum rota_log_level level, const char *func, const char *fmt,
	      ...) __attribute__((format(printf, 3, 4)));
noreturn void rota_log_fatal(const char *func, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define rota_fatal(...) rota_log_fatal(__func__, __VA_ARGS__)
#define rota_err(...) rota_log(ROTA_LOG_ERR, __func__, __VA_ARGS__)
#define rota_warn(...) rota_log(ROTA_LOG_WARN, __func__, __VA_ARGS__)
#define rota_info(...) rota_log(ROTA_LOG_INFO, __func__, __VA_ARGS__)
#define rota_debug(...)                                                        \
	do {                                                                   \
		if (rota_log_enabled(ROTA_LOG_DEBUG))                          \
			rota_log(ROTA_LOG_DEBUG, __func__, __VA_ARGS__);       \
	} while (0)

#endif
