/* SPDX-License-Identifier: MIT */
#ifndef ROTA_PLUGINS_PRIORITY_EXPR_H
#define ROTA_PLUGINS_PRIORITY_EXPR_H

/*
 * A small arithmetic language for PBS's job_sort_formula, shared by the
 * formula plugin and its fuzz target.  It is plugin code: libc and libm
 * only, no globals, so that it links into a dlopen'ed .so.
 *
 *   expr    = term { ("+" | "-") term }
 *   term    = unary { ("*" | "/") unary }
 *   unary   = { "-" } primary
 *   primary = number | name | "(" expr ")"
 *           | ("min" | "max") "(" expr { "," expr } ")"
 *   number  = digits [ "." [ digits ] ] [ ("e" | "E") [ "+" | "-" ] digits ]
 *           | "." digits [ exponent ]
 *   name    = [a-z_][a-z0-9_]*
 *
 * Blanks (space, tab) separate tokens.  A formula is parsed once into a
 * compiled form, then evaluated per job against an array of values.
 */

#include <stdbool.h>
#include <stddef.h>

#define ROTA_EXPR_MAX_LEN 4096	 /* characters of formula text */
#define ROTA_EXPR_MAX_DEPTH 64	 /* nested parentheses and calls */

/* One name a formula may use, and its index into the values array. */
struct rota_expr_name {
	const char *name;
	unsigned index;
};

struct rota_expr;

/*
 * Compile 'text' against 'names' (n entries, indices below 'nvalues').
 * On success '*out' is the compiled formula (caller frees with
 * rota_expr_destroy()) and 0 is returned.  On failure '*out' is NULL,
 * 'err' holds one line naming the 1-based column and what is wrong
 * ("unknown name 'x' at column 7", "expected ')' at column 31", "empty
 * formula") and the result is -EINVAL, or -ENOMEM ("out of memory").
 */
int rota_expr_parse(const char *text, const struct rota_expr_name *names,
		    size_t n, unsigned nvalues, struct rota_expr **out,
		    char *err, size_t errlen);

/* Free a compiled formula; NULL is fine. */
void rota_expr_destroy(struct rota_expr *expr);

/*
 * Evaluate 'expr' with 'values' (at least the 'nvalues' given to
 * rota_expr_parse()).  0 and '*out' set, or '*out' = 0 and -EDOM for a
 * division by zero, -ERANGE when an input or any intermediate result is
 * not finite (an overflow, or a NaN value passed in): the caller decides
 * what such a job's priority is.
 */
int rota_expr_eval(const struct rota_expr *expr, const double *values,
		   double *out);

/* Whether the formula reads values[index]. */
bool rota_expr_uses(const struct rota_expr *expr, unsigned index);

#endif
