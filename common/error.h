/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_ERROR_H
#define ROTA_COMMON_ERROR_H

/*
 * Human detail of a failure, filled by the callee and shown by whoever
 * handles the error (STYLE 5).  'text' is one line, no trailing newline.
 */
struct rota_error {
	char text[160];
};

/*
 * Fill 'err' (may be NULL) from a printf format and return 'code', so that
 * callers can write: return rota_errorf(err, -EINVAL, "...", ...);
 */
int rota_errorf(struct rota_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Reset 'err' to the empty string. */
void rota_error_clear(struct rota_error *err);

#endif
