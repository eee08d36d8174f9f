// SPDX-License-Identifier: MIT
/*
 * The job_sort_formula language (expr.h): a recursive-descent parser that
 * compiles to postfix code, and a stack machine that runs it per job.
 *
 * Every limit is checked while parsing, so that evaluation cannot fail
 * but on arithmetic: the text is at most ROTA_EXPR_MAX_LEN characters,
 * parentheses and calls nest at most ROTA_EXPR_MAX_DEPTH deep (the
 * parser recurses once per level, and a run of unary minuses is a loop,
 * not recursion), and the code has at most one instruction per character
 * (every instruction is paid for by a token or an operator), so the
 * stack a formula needs is bounded too and sized when compiling.
 *
 * Numbers are read with strtod() after our own scan has fixed their
 * extent, so that its extras (hex, "inf", "nan") never get in; this
 * assumes the C locale's decimal point, which the daemon never changes.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/priority/expr.h"

/*
 * Each nesting level holds at most three pending operands (a sum's left
 * side, a product's, a min/max's running result), so 64 levels need at
 * most 3 * 65 + 1 slots; more is a parser bug, refused all the same.
 */
#define EXPR_STACK_MAX 256
#define EXPR_NAME_SHOWN 64	/* characters of a name quoted in errors */

enum expr_op {
	EXPR_CONST = 1,
	EXPR_VALUE,
	EXPR_ADD,
	EXPR_SUB,
	EXPR_MUL,
	EXPR_DIV,
	EXPR_NEG,
	EXPR_MIN,
	EXPR_MAX,
};

struct expr_insn {
	enum expr_op op;
	unsigned index;		/* EXPR_VALUE */
	double value;		/* EXPR_CONST */
};

struct rota_expr {
	size_t n;
	size_t cap;
	unsigned nvalues;
	struct expr_insn code[];
};

struct parser {
	const char *text;
	const char *p;
	const struct rota_expr_name *names;
	size_t nnames;
	struct rota_expr *expr;
	unsigned depth;
	unsigned sp;		/* stack height after the code so far */
	char *err;
	size_t errlen;
};

static int expr_parse_sum(struct parser *ps);

__attribute__((format(printf, 3, 4))) static int
parse_error(struct parser *ps, const char *at, const char *fmt, ...)
{
	char what[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(ps->err, ps->errlen, "%s at column %zu", what,
		 (size_t)(at - ps->text) + 1);
	return -EINVAL;
}

static void skip_blanks(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' ||
	       *ps->p == '\r')
		ps->p++;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(char c)
{
	return is_name_start(c) || is_digit(c);
}

/*
 * Append one instruction; 'pops' operands in, one out.  Both limits are
 * guaranteed by the parser (see the file comment) and checked anyway.
 */
static int emit(struct parser *ps, const char *at, enum expr_op op,
		unsigned pops, unsigned index, double value)
{
	struct rota_expr *expr = ps->expr;

	if (expr->n == expr->cap || ps->sp - pops + 1 > EXPR_STACK_MAX)
		return parse_error(ps, at, "formula too complex");
	expr->code[expr->n++] = (struct expr_insn){
		.op = op,
		.index = index,
		.value = value,
	};
	ps->sp = ps->sp - pops + 1;
	return 0;
}

static int parse_number(struct parser *ps)
{
	const char *start = ps->p;
	const char *q = start;
	bool digits = false;
	char *end;
	double v;

	while (is_digit(*q))
		q++, digits = true;
	if (*q == '.')
		for (q++; is_digit(*q); q++)
			digits = true;
	if (digits && (*q == 'e' || *q == 'E')) {
		q++;
		if (*q == '+' || *q == '-')
			q++;
		if (!is_digit(*q))
			return parse_error(ps, start, "malformed number");
		while (is_digit(*q))
			q++;
	}
	if (!digits || is_name_char(*q) || *q == '.')
		return parse_error(ps, start, "malformed number");
	v = strtod(start, &end);
	if (end != q)
		return parse_error(ps, start, "malformed number");
	if (!isfinite(v))
		return parse_error(ps, start, "number out of range");
	ps->p = q;
	return emit(ps, start, EXPR_CONST, 0, 0, v);
}

/* The arguments of min(...) or max(...), at the '('. */
static int parse_call(struct parser *ps, enum expr_op op)
{
	int rc;

	if (++ps->depth > ROTA_EXPR_MAX_DEPTH)
		return parse_error(ps, ps->p, "more than %d nested levels",
				   ROTA_EXPR_MAX_DEPTH);
	ps->p++;		/* '(' */
	rc = expr_parse_sum(ps);
	while (rc == 0 && *ps->p == ',') {
		const char *comma = ps->p++;

		rc = expr_parse_sum(ps);
		if (rc == 0)
			rc = emit(ps, comma, op, 2, 0, 0);
	}
	if (rc)
		return rc;
	if (*ps->p != ')')
		return parse_error(ps, ps->p, "expected ',' or ')'");
	ps->p++;
	ps->depth--;
	return 0;
}

static int parse_name(struct parser *ps)
{
	const char *start = ps->p;
	size_t len;

	while (is_name_char(*ps->p))
		ps->p++;
	len = (size_t)(ps->p - start);
	if ((len == 3 && !strncmp(start, "min", 3)) ||
	    (len == 3 && !strncmp(start, "max", 3))) {
		enum expr_op op = start[1] == 'i' ? EXPR_MIN : EXPR_MAX;

		skip_blanks(ps);
		if (*ps->p != '(')
			return parse_error(ps, ps->p,
					   "expected '(' after '%.3s'", start);
		return parse_call(ps, op);
	}
	for (size_t i = 0; i < ps->nnames; i++) {
		const struct rota_expr_name *name = &ps->names[i];

		if (strlen(name->name) != len ||
		    strncmp(name->name, start, len) != 0)
			continue;
		if (name->index >= ps->expr->nvalues)
			return parse_error(ps, start, "name '%s' has no value",
					   name->name);
		return emit(ps, start, EXPR_VALUE, 0, name->index, 0);
	}
	return parse_error(ps, start, "unknown name '%.*s%s'",
			   (int)(len < EXPR_NAME_SHOWN ? len : EXPR_NAME_SHOWN),
			   start, len > EXPR_NAME_SHOWN ? "..." : "");
}

static int parse_primary(struct parser *ps)
{
	const char *at = ps->p;
	unsigned char c = (unsigned char)*at;
	int rc;

	if (is_digit((char)c) || c == '.')
		return parse_number(ps);
	if (is_name_start((char)c))
		return parse_name(ps);
	if (c == '(') {
		if (++ps->depth > ROTA_EXPR_MAX_DEPTH)
			return parse_error(ps, at, "more than %d nested levels",
					   ROTA_EXPR_MAX_DEPTH);
		ps->p++;
		rc = expr_parse_sum(ps);
		if (rc)
			return rc;
		if (*ps->p != ')')
			return parse_error(ps, ps->p, "expected ')'");
		ps->p++;
		ps->depth--;
		return 0;
	}
	if (c == '\0' || strchr("+-*/),", c))
		return parse_error(ps, at, "expected a number, a name or '('");
	if (c < 0x20 || c >= 0x7f)
		return parse_error(ps, at, "unexpected byte 0x%02x", c);
	return parse_error(ps, at, "unexpected character '%c'", c);
}

/* Unary minuses are a loop: "----x" must not recurse per sign. */
static int parse_unary(struct parser *ps)
{
	const char *at = NULL;
	bool negate = false;
	int rc;

	skip_blanks(ps);
	while (*ps->p == '-') {
		at = ps->p++;
		negate = !negate;
		skip_blanks(ps);
	}
	rc = parse_primary(ps);
	if (rc == 0 && negate)
		rc = emit(ps, at, EXPR_NEG, 1, 0, 0);
	skip_blanks(ps);
	return rc;
}

static int parse_product(struct parser *ps)
{
	int rc = parse_unary(ps);

	while (rc == 0 && (*ps->p == '*' || *ps->p == '/')) {
		const char *at = ps->p++;

		rc = parse_unary(ps);
		if (rc == 0)
			rc = emit(ps, at, *at == '*' ? EXPR_MUL : EXPR_DIV, 2,
				  0, 0);
	}
	return rc;
}

static int expr_parse_sum(struct parser *ps)
{
	int rc = parse_product(ps);

	while (rc == 0 && (*ps->p == '+' || *ps->p == '-')) {
		const char *at = ps->p++;

		rc = parse_product(ps);
		if (rc == 0)
			rc = emit(ps, at, *at == '+' ? EXPR_ADD : EXPR_SUB, 2,
				  0, 0);
	}
	return rc;
}

static int expr_check_text(const char *text, char *err, size_t errlen)
{
	size_t len = strnlen(text, ROTA_EXPR_MAX_LEN + 1);

	if (len > ROTA_EXPR_MAX_LEN) {
		snprintf(err, errlen, "formula longer than %d characters",
			 ROTA_EXPR_MAX_LEN);
		return -EINVAL;
	}
	if (strspn(text, " \t\r\n") == len) {
		snprintf(err, errlen, "empty formula");
		return -EINVAL;
	}
	return 0;
}

int rota_expr_parse(const char *text, const struct rota_expr_name *names,
		    size_t n, unsigned nvalues, struct rota_expr **out,
		    char *err, size_t errlen)
{
	struct parser ps = {
		.text = text, .p = text, .names = names, .nnames = n,
		.err = err, .errlen = errlen,
	};
	size_t cap;
	int rc;

	*out = NULL;
	rc = expr_check_text(text, err, errlen);
	if (rc)
		return rc;
	cap = strlen(text);
	ps.expr = malloc(sizeof(*ps.expr) + cap * sizeof(ps.expr->code[0]));
	if (!ps.expr) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ps.expr->n = 0;
	ps.expr->cap = cap;
	ps.expr->nvalues = nvalues;
	rc = expr_parse_sum(&ps);
	if (rc == 0 && *ps.p == ')')
		rc = parse_error(&ps, ps.p, "unmatched ')'");
	else if (rc == 0 && *ps.p)
		rc = parse_error(&ps, ps.p, "trailing text");
	if (rc) {
		free(ps.expr);
		return rc;
	}
	*out = ps.expr;
	return 0;
}

void rota_expr_destroy(struct rota_expr *expr)
{
	free(expr);
}

/* One operator on finite operands: 0, -EDOM or -ERANGE. */
static int expr_apply(enum expr_op op, double a, double b, double *r)
{
	switch (op) {
	case EXPR_ADD: *r = a + b; break;
	case EXPR_SUB: *r = a - b; break;
	case EXPR_MUL: *r = a * b; break;
	case EXPR_DIV:
		if (b == 0)
			return -EDOM;
		*r = a / b;
		break;
	case EXPR_MIN: *r = a < b ? a : b; break;
	case EXPR_MAX: *r = a > b ? a : b; break;
	default: *r = a; break;
	}
	return isfinite(*r) ? 0 : -ERANGE;
}

int rota_expr_eval(const struct rota_expr *expr, const double *values,
		   double *out)
{
	double stack[EXPR_STACK_MAX];
	size_t sp = 0;
	int rc;

	*out = 0;
	for (size_t i = 0; i < expr->n; i++) {
		const struct expr_insn *in = &expr->code[i];

		switch (in->op) {
		case EXPR_CONST:
			stack[sp++] = in->value;
			break;
		case EXPR_VALUE:
			if (!isfinite(values[in->index]))
				return -ERANGE;
			stack[sp++] = values[in->index];
			break;
		case EXPR_NEG:
			stack[sp - 1] = -stack[sp - 1];
			break;
		default:
			sp--;
			rc = expr_apply(in->op, stack[sp - 1], stack[sp],
					&stack[sp - 1]);
			if (rc)
				return rc;
			break;
		}
	}
	*out = stack[0];
	return 0;
}

bool rota_expr_uses(const struct rota_expr *expr, unsigned index)
{
	for (size_t i = 0; i < expr->n; i++)
		if (expr->code[i].op == EXPR_VALUE &&
		    expr->code[i].index == index)
			return true;
	return false;
}
