// SPDX-License-Identifier: MIT
/*
 * Hostlist expressions: expansion ("n[01-03],m1" -> n01 n02 n03 m1) and
 * compression back.  The input is hostile (rota.conf, the command line, the
 * wire), so each term is parsed and counted first, and names are allocated
 * only once the count and the longest name are known to be within bounds.
 * A term's bracket groups multiply like an odometer, the last group turning
 * fastest, which keeps the order an admin reads.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/xalloc.h"

/* Longest name produced (FQDNs are at most 253 bytes). */
#define HL_NAME_MAX 255
/* Digits in one number of a range; keeps values and widths small. */
#define HL_DIGITS_MAX 9

/* All names in one buffer: two allocations however many names. */
struct rota_hostlist {
	size_t *offset;		/* of each name in 'text' */
	size_t count;
	size_t slots;		/* allocated offsets */
	char *text;
	size_t used;
	size_t cap;
};

struct hl_range {
	unsigned long lo;
	unsigned long hi;
	int width;		/* digits of 'lo' as written: zero padding */
};

/* One piece of a term: literal text, or a bracket group when nranges > 0. */
struct hl_seg {
	const char *text;
	size_t len;
	struct hl_range *ranges;
	size_t nranges;
	size_t count;		/* names the group yields */
};

/* A term being expanded; segments are bounded by HL_NAME_MAX (>= 1 byte). */
struct hl_term {
	struct hl_seg segs[HL_NAME_MAX + 1];
	size_t nsegs;
	size_t count;
	size_t maxlen;
};

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
	       c == ':';
}

static int bad_char(char c, struct rota_error *err)
{
	if (c > ' ' && c < 0x7f)
		return rota_errorf(err, -EINVAL, "bad character '%c'", c);
	return rota_errorf(err, -EINVAL, "bad character 0x%02x",
			   (unsigned char)c);
}

/* Parse up to HL_DIGITS_MAX digits; returns how many were read (0: none). */
static size_t parse_digits(const char *s, size_t len, unsigned long *out)
{
	size_t i;

	*out = 0;
	for (i = 0; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (i == HL_DIGITS_MAX)
			return 0;
		*out = *out * 10 + (unsigned long)(s[i] - '0');
	}
	return i;
}

/* "07" or "01-04" (s[0..len) holds no ',' or ']'). */
static int parse_range(const char *s, size_t len, struct hl_range *r,
		       struct rota_error *err)
{
	size_t n = parse_digits(s, len, &r->lo);
	size_t m;

	r->width = (int)n;
	r->hi = r->lo;
	if (n == len && n > 0)
		return 0;
	if (n == 0 || s[n] != '-')
		goto bad;
	m = parse_digits(s + n + 1, len - n - 1, &r->hi);
	if (m == 0 || n + 1 + m != len)
		goto bad;
	if (r->hi < r->lo)
		return rota_errorf(err, -EINVAL, "reversed range '%.*s'",
				   (int)len, s);
	return 0;
bad:
	if (len == 0)
		return rota_errorf(err, -EINVAL, "empty range in brackets");
	return rota_errorf(err, -EINVAL, "bad range '%.*s'",
			   len > 40 ? 40 : (int)len, s);
}

static int digits_of(unsigned long v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/*
 * Parse the group "[...]" at 's' (just past '['), up to 'end'; sets *used to
 * the bytes consumed including ']'.  'room' is how many names the group may
 * still yield before the list is too long.
 */
static int parse_group(const char *s, const char *end, size_t room,
		       struct hl_seg *seg, size_t *used,
		       struct rota_error *err)
{
	const char *p = s;
	int width = 1;

	for (;;) {
		const char *q = p;
		struct hl_range r;
		int rc;

		while (q < end && *q != ',' && *q != ']' && *q != '[')
			q++;
		if (q == end)
			return rota_errorf(err, -EINVAL, "unbalanced '['");
		if (*q == '[')
			return rota_errorf(err, -EINVAL, "nested '['");
		rc = parse_range(p, (size_t)(q - p), &r, err);
		if (rc)
			return rc;
		if (r.hi - r.lo >= room - seg->count)
			return rota_errorf(err, -EINVAL,
					   "too many names (limit %d)",
					   ROTA_HOSTLIST_MAX);
		/* doubling at 0, 1, 2, 4...: "[1,3,5,...]" must not cost n^2 */
		if ((seg->nranges & (seg->nranges - 1)) == 0)
			seg->ranges = rota_xreallocarray(
				seg->ranges,
				seg->nranges ? 2 * seg->nranges : 1,
				sizeof(*seg->ranges));
		seg->ranges[seg->nranges++] = r;
		seg->count += r.hi - r.lo + 1;
		if (digits_of(r.hi) > width)
			width = digits_of(r.hi);
		if (r.width > width)
			width = r.width;
		p = q + 1;
		if (*q == ']')
			break;
	}
	seg->len = (size_t)width; /* the widest number the group prints */
	*used = (size_t)(p - s);
	return 0;
}

static void term_clear(struct hl_term *t)
{
	for (size_t i = 0; i < t->nsegs; i++)
		free(t->segs[i].ranges);
	t->nsegs = 0;
}

/* Add one segment; a term longer than a name is refused before this. */
static struct hl_seg *term_push(struct hl_term *t)
{
	struct hl_seg *seg = &t->segs[t->nsegs++];

	memset(seg, 0, sizeof(*seg));
	return seg;
}

/*
 * Parse the term s[0..len) (no top-level comma) into 't', checking that it
 * yields at most 'room' names, none longer than HL_NAME_MAX.
 */
static int term_parse(const char *s, size_t len, size_t room,
		      struct hl_term *t, struct rota_error *err)
{
	const char *p = s;
	const char *end = s + len;
	int rc;

	memset(t, 0, sizeof(*t));
	t->count = 1;
	if (len == 0)
		return rota_errorf(err, -EINVAL, "empty name");
	while (p < end) {
		struct hl_seg *seg = term_push(t);
		size_t used = 0;

		if (*p == ']')
			return rota_errorf(err, -EINVAL, "unbalanced ']'");
		if (*p != '[') {
			seg->text = p;
			while (p < end && *p != '[' && *p != ']') {
				if (!is_name_char(*p))
					return bad_char(*p, err);
				p++;
			}
			seg->len = (size_t)(p - seg->text);
		} else {
			rc = parse_group(p + 1, end, room / t->count, seg,
					 &used, err);
			if (rc)
				return rc;
			p += 1 + used;
			t->count *= seg->count;
		}
		t->maxlen += seg->len;
		if (t->maxlen > HL_NAME_MAX)
			return rota_errorf(err, -EINVAL,
					   "name too long (limit %d)",
					   HL_NAME_MAX);
	}
	if (t->count > room)
		return rota_errorf(err, -EINVAL, "too many names (limit %d)",
				   ROTA_HOSTLIST_MAX);
	return 0;
}

/* Odometer state of one group: which range, which value in it. */
struct hl_pos {
	size_t range;
	unsigned long value;
};

static void term_name(const struct hl_term *t, const struct hl_pos *pos,
		      struct rota_hostlist *hl)
{
	char *buf = hl->text + hl->used;
	size_t len = 0;

	for (size_t i = 0; i < t->nsegs; i++) {
		const struct hl_seg *seg = &t->segs[i];

		if (!seg->ranges) {
			memcpy(buf + len, seg->text, seg->len);
			len += seg->len;
			continue;
		}
		len += (size_t)snprintf(buf + len, HL_NAME_MAX + 1 - len,
					"%0*lu",
					seg->ranges[pos[i].range].width,
					pos[i].value);
	}
	buf[len] = '\0';
	hl->offset[hl->count++] = hl->used;
	hl->used += len + 1;
}

/* Turn the odometer one step, the last group fastest. */
static void term_next(const struct hl_term *t, struct hl_pos *pos)
{
	for (size_t i = t->nsegs; i-- > 0;) {
		const struct hl_seg *seg = &t->segs[i];

		if (!seg->ranges)
			continue;
		if (pos[i].value < seg->ranges[pos[i].range].hi) {
			pos[i].value++;
			return;
		}
		if (pos[i].range + 1 < seg->nranges) {
			pos[i].range++;
			pos[i].value = seg->ranges[pos[i].range].lo;
			return;
		}
		pos[i].range = 0;
		pos[i].value = seg->ranges[0].lo;
	}
}

static void term_expand(const struct hl_term *t, struct rota_hostlist *hl)
{
	struct hl_pos pos[HL_NAME_MAX + 1];

	for (size_t i = 0; i < t->nsegs; i++) {
		pos[i].range = 0;
		pos[i].value = t->segs[i].ranges ? t->segs[i].ranges[0].lo : 0;
	}
	if (hl->slots - hl->count < t->count) {
		/* Geometric: one term per name must not cost n^2 copies. */
		hl->slots = hl->slots * 2 + t->count;
		if (hl->slots > ROTA_HOSTLIST_MAX)
			hl->slots = ROTA_HOSTLIST_MAX;
		hl->offset = rota_xreallocarray(hl->offset, hl->slots,
						sizeof(*hl->offset));
	}
	for (size_t n = 0; n < t->count; n++) {
		/* Room for the longest name; at most 64K x 256 bytes in all. */
		if (hl->cap - hl->used < HL_NAME_MAX + 1) {
			hl->cap = hl->cap * 2 + HL_NAME_MAX + 1;
			hl->text = rota_xrealloc(hl->text, hl->cap);
		}
		term_name(t, pos, hl);
		term_next(t, pos);
	}
}

/* Length of the term at 's': up to the first comma outside brackets. */
static size_t term_len(const char *s)
{
	int depth = 0;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (s[i] == '[')
			depth++;
		else if (s[i] == ']')
			depth--;
		else if (s[i] == ',' && depth <= 0)
			break;
	}
	return i;
}

int rota_hostlist_parse(const char *expr, struct rota_hostlist **out,
			struct rota_error *err)
{
	struct rota_hostlist *hl = rota_xcalloc(1, sizeof(*hl));
	struct hl_term *t = rota_xmalloc(sizeof(*t));
	const char *p = expr;
	int rc = 0;

	*out = NULL;
	for (;;) {
		size_t len = term_len(p);

		rc = term_parse(p, len, ROTA_HOSTLIST_MAX - hl->count, t, err);
		if (rc) {
			term_clear(t);
			break;
		}
		term_expand(t, hl);
		term_clear(t);
		p += len;
		if (!*p++)
			break;
	}
	free(t);
	if (rc) {
		rota_hostlist_destroy(hl);
		return rc;
	}
	*out = hl;
	return 0;
}

void rota_hostlist_destroy(struct rota_hostlist *hl)
{
	if (!hl)
		return;
	free(hl->offset);
	free(hl->text);
	free(hl);
}

size_t rota_hostlist_count(const struct rota_hostlist *hl)
{
	return hl->count;
}

const char *rota_hostlist_nth(const struct rota_hostlist *hl, size_t i)
{
	return i < hl->count ? hl->text + hl->offset[i] : NULL;
}

/* ---- compression --------------------------------------------------------- */

struct hl_buf {
	char *p;
	size_t len;
	size_t cap;
};

static void buf_add(struct hl_buf *b, const char *s, size_t len)
{
	if (b->len + len + 1 > b->cap) {
		b->cap = (b->len + len + 1) * 2;
		b->p = rota_xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, len);
	b->len += len;
	b->p[b->len] = '\0';
}

/* A name split around its last run of digits: prefix, number, suffix. */
struct hl_split {
	const char *name;
	size_t plen;		/* prefix length */
	size_t dlen;		/* digits; 0: no number, the name as is */
	unsigned long value;
};

static void split_name(const char *name, struct hl_split *sp)
{
	size_t len = strlen(name);
	size_t end = len;
	size_t start;

	memset(sp, 0, sizeof(*sp));
	sp->name = name;
	while (end > 0 && !(name[end - 1] >= '0' && name[end - 1] <= '9'))
		end--;
	start = end;
	while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9')
		start--;
	if (end == start || end - start > HL_DIGITS_MAX)
		return;
	sp->plen = start;
	sp->dlen = parse_digits(name + start, end - start, &sp->value);
}

/* Does 'b' print back exactly with the width 'width' of its group's head? */
static bool can_join(const struct hl_split *a, const struct hl_split *b)
{
	char num[HL_DIGITS_MAX + 2];
	const char *as = a->name + a->plen + a->dlen;
	const char *bs = b->name + b->plen + b->dlen;

	if (!a->dlen || !b->dlen || a->plen != b->plen ||
	    strncmp(a->name, b->name, a->plen) != 0 || strcmp(as, bs) != 0)
		return false;
	snprintf(num, sizeof(num), "%0*lu", (int)a->dlen, b->value);
	return strlen(num) == b->dlen &&
	       memcmp(num, b->name + b->plen, b->dlen) == 0;
}

static void add_number(struct hl_buf *b, int width, unsigned long v)
{
	char num[HL_DIGITS_MAX + 2];
	int n = snprintf(num, sizeof(num), "%0*lu", width, v);

	buf_add(b, num, (size_t)n);
}

/* Emit names[i..j) (all joinable with names[i]) as prefix[ranges]suffix. */
static void emit_group(struct hl_buf *b, const struct hl_split *sp, size_t n)
{
	int width = (int)sp[0].dlen;
	const char *suffix = sp[0].name + sp[0].plen + sp[0].dlen;

	if (n == 1) {
		buf_add(b, sp[0].name, strlen(sp[0].name));
		return;
	}
	buf_add(b, sp[0].name, sp[0].plen);
	buf_add(b, "[", 1);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;

		while (j < n && sp[j].value == sp[j - 1].value + 1)
			j++;
		if (i > 0)
			buf_add(b, ",", 1);
		add_number(b, width, sp[i].value);
		if (j - i > 1) {
			buf_add(b, "-", 1);
			add_number(b, width, sp[j - 1].value);
		}
		i = j;
	}
	buf_add(b, "]", 1);
	buf_add(b, suffix, strlen(suffix));
}

char *rota_hostlist_format(const char *const *names, size_t n)
{
	struct hl_buf b = { NULL, 0, 0 };
	struct hl_split *sp = rota_xreallocarray(NULL, n ? n : 1, sizeof(*sp));

	buf_add(&b, "", 0);
	for (size_t i = 0; i < n; i++)
		split_name(names[i], &sp[i]);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;

		while (j < n && can_join(&sp[i], &sp[j]))
			j++;
		if (i > 0)
			buf_add(&b, ",", 1);
		emit_group(&b, sp + i, j - i);
		i = j;
	}
	free(sp);
	return b.p;
}
