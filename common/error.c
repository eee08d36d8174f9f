// SPDX-License-Identifier: MIT
/* The error-detail carrier of STYLE 5. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "common/error.h"

int rota_errorf(struct rota_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	va_start(ap, fmt);
	vsnprintf(err->text, sizeof(err->text), fmt, ap);
	va_end(ap);
	return code;
}

void rota_error_clear(struct rota_error *err)
{
	if (err)
		err->text[0] = '\0';
}
