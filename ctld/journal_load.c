// SPDX-License-Identifier: MIT
/*
 * Reading StateDir (see journal.c for its generations): find the newest
 * chain of snapshot and journals that is whole, replay it, cut a torn tail
 * off the newest journal; for --salvage, replay what is intact around
 * damage and say what was dropped.  Each file is read whole and walked
 * twice: once to judge it, once to replay it, so that nothing reaches the
 * caller from a chain that is then refused.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/crc32c.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/journal_internal.h"

/* The most generations a chain may span (it spans 2 or 3). */
#define CHAIN_MAX 64

/* One file of a chain, read whole. */
struct sfile {
	char *path;
	const char *name; /* its base name, in 'path' */
	char *data;
	size_t len;
	bool missing;
	bool journal;
	bool newest;	/* the journal appended to: a torn tail is fine */
	bool need_end;	/* a snapshot (but a legacy one) ends in END_MAGIC */
	/* what walk() found */
	size_t records;
	size_t end;	/* where the valid records (before zeros) end */
	size_t damaged;	/* damaged places, a torn tail not counted */
	size_t bad;	/* the first one */
	char why[48];	/* what was wrong there */
	size_t torn;	/* a torn tail's offset, or 'len' */
	bool ended;	/* its end record was seen */
};

char *journal_gen_path(const char *dir, const char *kind, unsigned gen)
{
	return gen ? rota_xasprintf("%s/%s.%u", dir, kind, gen)
		   : rota_xasprintf("%s/%s", dir, kind);
}

static int read_file(struct sfile *f, struct rota_error *err)
{
	struct stat st;
	int fd = open(f->path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t got = 0;

	f->data = NULL;
	f->len = 0;
	f->missing = fd < 0 && errno == ENOENT;
	if (fd < 0)
		return f->missing ? 0
				  : rota_errorf(err, -errno, "%s: %s", f->path,
						strerror(errno));
	if (fstat(fd, &st) < 0 || st.st_size > (off_t)1 << 40) {
		close(fd);
		return rota_errorf(err, -EFBIG, "%s: cannot size it", f->path);
	}
	f->data = rota_xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size &&
	       (n = read(fd, f->data + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	close(fd);
	f->len = got;
	return 0;
}

static bool is_zero(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i])
			return false;
	}
	return true;
}

/* Why the record at 'off' is not whole, or NULL (its length in '*n'). */
static const char *check_record(const char *data, size_t len, size_t off,
				uint32_t *n)
{
	const uint8_t *h = (const uint8_t *)data + off;

	*n = 1;
	if (len - off < 8)
		return "a partial header";
	*n = journal_get32(h);
	if (*n == 0)
		return "length 0";
	if (*n > JOURNAL_RECORD_MAX)
		return "a length over the maximum";
	if (*n > len - off - 8)
		return "a length past the end";
	if (rota_crc32c(0, data + off + 8, *n) != journal_get32(h + 4))
		return "a CRC mismatch";
	return NULL;
}

/* The first valid record at or after 'off', or 'len'. */
static size_t resync(const char *data, size_t len, size_t off)
{
	uint32_t n;

	for (; off + 8 < len; off++) {
		if (!check_record(data, len, off, &n))
			return off;
	}
	return len;
}

struct walk_ctx {
	journal_record_fn fn;	/* NULL: only look */
	void *arg;
	bool salvage;		/* report and skip damage */
	size_t dropped_bytes;
	size_t dropped_places;
	size_t dropped_records; /* those whose count is known */
	size_t refused;		/* whole records 'fn' refused (salvage) */
};

static void report_drop(struct sfile *f, size_t off, size_t next,
			const char *why, uint32_t n, struct walk_ctx *w)
{
	bool one = !strcmp(why, "a CRC mismatch") && off + 8 + n == next;

	w->dropped_bytes += next - off;
	w->dropped_places++;
	w->dropped_records += one;
	if (one)
		rota_warn("salvage: %s: dropped %zu bytes at offset %zu: 1 "
			  "record (%s)",
			  f->path, next - off, off, why);
	else
		rota_warn("salvage: %s: dropped %zu bytes at offset %zu: "
			  "one or more records (%s)",
			  f->path, next - off, off, why);
}

static bool is_end(const char *rec, uint32_t n)
{
	return n == END_LEN && !memcmp(rec, END_MAGIC, 4);
}

/* Why the end record at 'off' is wrong, or NULL. */
static const char *end_check(const struct sfile *f, size_t off, uint32_t n)
{
	if (f->journal || f->damaged)
		return "a misplaced end record";
	if (journal_get32((const uint8_t *)f->data + off + 12) != f->records)
		return "an end record with a wrong count";
	if (off + 8 + n != f->len)
		return "records after the end record";
	return NULL;
}

/* Give a valid record to w->fn; in a salvage, one it refuses is skipped. */
static int apply(struct sfile *f, size_t off, uint32_t n, struct walk_ctx *w,
		 struct rota_error *err)
{
	int rc;

	if (!w->fn)
		return 0;
	rc = w->fn(f->data + off + 8, n, w->arg, err);
	if (rc < 0 && w->salvage) {
		rota_warn("salvage: %s: record at offset %zu refused, "
			  "dropped: %s",
			  f->path, off, err->text);
		w->refused++;
		return 0;
	}
	return rc;
}

/*
 * Walk the records of 'f', giving each to w->fn: a journal ends at its
 * zeros, the newest at a torn tail too; past damage, the walk goes on at
 * the next valid record (only a salvage gives those to w->fn).
 */
static int walk(struct sfile *f, struct walk_ctx *w, struct rota_error *err)
{
	size_t off = 0;
	uint32_t n;
	int rc;

	f->records = f->end = f->damaged = 0;
	f->ended = false;
	f->torn = f->len;
	while (off < f->len) {
		const char *why = check_record(f->data, f->len, off, &n);
		size_t next;

		if (!why && !f->data[off + 8]) {
			why = is_end(f->data + off + 8, n)
				      ? end_check(f, off, n)
				      : "a record of an unknown kind";
			if (!why) {
				f->ended = true;
				off += 8 + n;
				f->end = f->damaged ? f->end : off;
				continue;
			}
		}
		if (!why) {
			rc = f->damaged && !w->salvage
				     ? 0
				     : apply(f, off, n, w, err);
			if (rc < 0)
				return rc;
			f->records++;
			off += 8 + n;
			if (!f->damaged)
				f->end = off;
			continue;
		}
		if (f->journal && n == 0 &&
		    is_zero(f->data + off, f->len - off))
			break;
		next = resync(f->data, f->len, off + 1);
		if (next == f->len && f->newest) {
			f->torn = off;
			break;
		}
		if (!f->damaged++) {
			f->bad = off;
			snprintf(f->why, sizeof(f->why), "%s", why);
		}
		if (w->salvage && w->fn)
			report_drop(f, off, next, why, n, w);
		off = next;
	}
	if (f->need_end && !f->ended && !f->damaged++) {
		f->bad = f->len;
		snprintf(f->why, sizeof(f->why), "no end record: cut short");
	}
	return 0;
}

static void sfile_free(struct sfile *f)
{
	free(f->path);
	free(f->data);
	memset(f, 0, sizeof(*f));
}

/* A chain: snapshot.K (if any) and journals K..T. */
struct chain {
	unsigned base;
	bool has_snapshot;
	size_t nfiles;
	struct sfile *files;	/* the snapshot first, if any */
};

static void chain_free(struct chain *c)
{
	for (size_t i = 0; i < c->nfiles; i++)
		sfile_free(&c->files[i]);
	free(c->files);
	c->files = NULL;
	c->nfiles = 0;
}

static void sfile_set(struct sfile *f, const char *dir, const char *kind,
		      unsigned gen)
{
	f->path = journal_gen_path(dir, kind, gen);
	f->name = strrchr(f->path, '/') + 1;
}

/*
 * Read and walk (without applying) the chain from 'base' to 'top'.  0 and
 * an empty 'why' if it can be replayed as it is; with damage it allows
 * ('salvage'), still 0 and 'why' says what; else -EILSEQ and 'why'.
 */
enum allow { ALLOW_NONE = 0, ALLOW_JOURNAL = 1, ALLOW_SNAPSHOT = 2 };

static int chain_check(const char *dir, struct chain *c, unsigned top,
		       unsigned allow, char *why, size_t wlen,
		       struct rota_error *err)
{
	struct walk_ctx w = { 0 };
	size_t i = 0;
	int rc;

	why[0] = '\0';
	/* a chain is 2 or 3 generations long: a stray name is not one */
	if (top - c->base > CHAIN_MAX) {
		snprintf(why, wlen, "%s: generations %u to %u: too far apart",
			 dir, c->base, top);
		return -EILSEQ;
	}
	c->nfiles = (size_t)(top - c->base) + 1 + c->has_snapshot;
	c->files = rota_xcalloc(c->nfiles, sizeof(*c->files));
	if (c->has_snapshot) {
		sfile_set(&c->files[i], dir, "snapshot", c->base);
		c->files[i++].need_end = c->base > 0;
	}
	for (unsigned g = c->base; i < c->nfiles; g++, i++) {
		sfile_set(&c->files[i], dir, "journal", g);
		c->files[i].journal = true;
		c->files[i].newest = g == top;
	}
	for (i = 0; i < c->nfiles; i++) {
		struct sfile *f = &c->files[i];
		bool may = f->journal ? allow & ALLOW_JOURNAL
				      : allow & ALLOW_SNAPSHOT;

		rc = read_file(f, err);
		if (rc < 0)
			return rc;
		if (f->missing && !f->newest) {
			snprintf(why, wlen, "%s is missing", f->path);
			return -EILSEQ;
		}
		walk(f, &w, err);
		if (!f->damaged)
			continue;
		snprintf(why, wlen,
			 "%s: damaged record at offset %zu of %zu (%s)",
			 f->path, f->bad, f->len, f->why);
		if (!may)
			return -EILSEQ;
	}
	return 0;
}

/* "snapshot.G", "journal.G" (G > 0), "snapshot", "journal" (G = 0). */
bool journal_parse_name(const char *name, const char *kind, const char *tail,
			unsigned *gen)
{
	size_t k = strlen(kind);
	unsigned long g;
	char *end;

	if (strncmp(name, kind, k))
		return false;
	if (!name[k] && !*tail) {
		*gen = 0;
		return true;
	}
	if (name[k] != '.' || !isdigit((unsigned char)name[k + 1]))
		return false;
	errno = 0;
	g = strtoul(name + k + 1, &end, 10);
	if (errno || g == 0 || g > GEN_MAX || strcmp(end, tail))
		return false;
	*gen = (unsigned)g;
	return true;
}

struct listing {
	unsigned *snaps;	/* snapshot generations, newest first */
	size_t nsnaps;
	unsigned top;		/* the newest generation of any file */
	bool any;
	bool journal0;		/* "journal" exists */
};

static int cmp_desc(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

static int list_dir(const char *dir, struct listing *l, struct rota_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned g;

	memset(l, 0, sizeof(*l));
	if (!d)
		return rota_errorf(err, -errno, "StateDir '%s': %s", dir,
				   strerror(errno));
	while ((e = readdir(d))) {
		if (journal_parse_name(e->d_name, "snapshot", "", &g)) {
			l->snaps = rota_xrealloc(l->snaps, (l->nsnaps + 1) *
							   sizeof(*l->snaps));
			l->snaps[l->nsnaps++] = g;
		} else if (journal_parse_name(e->d_name, "journal", "", &g)) {
			l->journal0 |= g == 0;
		} else {
			continue;
		}
		l->top = !l->any || g > l->top ? g : l->top;
		l->any = true;
	}
	closedir(d);
	if (l->nsnaps > 1) /* qsort takes no NULL, even for none */
		qsort(l->snaps, l->nsnaps, sizeof(*l->snaps), cmp_desc);
	return 0;
}

void journal_aside_clear(struct journal *j)
{
	for (size_t i = 0; i < j->naside; i++)
		free(j->aside[i]);
	j->naside = 0;
}

/* Remember a damaged file, to be set aside once a new snapshot is in. */
static void set_aside_later(struct journal *j, const char *path)
{
	j->aside = rota_xrealloc(j->aside, (j->naside + 1) * sizeof(*j->aside));
	j->aside[j->naside++] = rota_xstrdup(path);
}

/* "snapshot.7 (120 records) and 35 records of journal.6..journal.7" */
static void describe(struct journal *j, const struct chain *c,
		     const struct walk_ctx *w)
{
	const struct sfile *first = &c->files[c->has_snapshot];
	const struct sfile *last = &c->files[c->nfiles - 1];
	size_t jrec = 0;
	int n;

	for (size_t i = c->has_snapshot; i < c->nfiles; i++)
		jrec += c->files[i].records;
	if (c->has_snapshot)
		n = snprintf(j->loaded, sizeof(j->loaded),
			     "%s (%zu records) and ", c->files[0].name,
			     c->files[0].records);
	else
		n = snprintf(j->loaded, sizeof(j->loaded), "no snapshot, ");
	if (first == last)
		snprintf(j->loaded + n, sizeof(j->loaded) - (size_t)n,
			 "%zu records of %s", jrec, first->name);
	else
		snprintf(j->loaded + n, sizeof(j->loaded) - (size_t)n,
			 "%zu records of %s..%s", jrec, first->name,
			 last->name);
	n = (int)strlen(j->loaded);
	if (w->salvage)
		snprintf(j->loaded + n, sizeof(j->loaded) - (size_t)n,
			 "; salvage dropped %zu bytes (damaged places: %zu, "
			 "of them single records: %zu; records refused: %zu)",
			 w->dropped_bytes, w->dropped_places,
			 w->dropped_records, w->refused);
}

/* Replay a checked chain; cut the newest journal's torn tail or zeros. */
static int chain_replay(struct journal *j, struct chain *c,
			struct walk_ctx *w, struct rota_error *err)
{
	struct sfile *top = &c->files[c->nfiles - 1];
	int rc;

	for (size_t i = 0; i < c->nfiles; i++) {
		rc = walk(&c->files[i], w, err);
		if (rc < 0)
			return rc;
		if (c->files[i].damaged)
			set_aside_later(j, c->files[i].path);
	}
	j->path = rota_xstrdup(top->path);
	if (top->damaged) {
		/* set aside whole at the next compaction: nothing is cut */
		j->size = j->filled = top->len;
		return 0;
	}
	if (top->torn < top->len && !is_zero(top->data + top->torn,
					     top->len - top->torn))
		rota_warn("%s: a torn record at offset %zu (a crash while "
			  "writing it) was cut off",
			  top->path, top->torn);
	if (top->end < top->len && truncate(top->path, (off_t)top->end) < 0)
		return rota_errorf(err, -errno, "%s: %s", top->path,
				   strerror(errno));
	j->size = j->filled = top->end;
	return 0;
}

/*
 * Find the newest chain that 'allow's, newest snapshot first (and, with
 * no snapshot "snapshot", the journals from generation 0).  0 with 'c'
 * filled, '*skipped' the newer snapshots refused for their own damage and
 * 'why' the first refusal; -EILSEQ if none will do.
 */
static int chain_find(struct journal *j, const struct listing *l,
		      unsigned allow, struct chain *c, char *why, size_t wlen,
		      struct rota_error *err)
{
	size_t n = l->nsnaps;
	char reason[256];
	int rc = -EILSEQ;

	if (l->journal0 && (!n || l->snaps[n - 1] != 0))
		n++;
	for (size_t i = 0; i < n; i++) {
		memset(c, 0, sizeof(*c));
		c->has_snapshot = i < l->nsnaps;
		c->base = c->has_snapshot ? l->snaps[i] : 0;
		rc = chain_check(j->dir, c, l->top, allow, reason,
				 sizeof(reason), err);
		if (rc == 0)
			return 0;
		if (!why[0])
			snprintf(why, wlen, "%s", reason);
		/* a newer snapshot that failed by its own damage goes aside */
		if (c->has_snapshot && c->files && c->files[0].damaged)
			set_aside_later(j, c->files[0].path);
		chain_free(c);
		if (rc != -EILSEQ)
			return rc;
	}
	return -EILSEQ;
}

int journal_load(struct journal *j, journal_record_fn fn, void *arg,
		 bool salvage, struct rota_error *err)
{
	struct walk_ctx w = { .fn = fn, .arg = arg, .salvage = salvage };
	struct listing l;
	struct chain c = { 0 };
	char why[256] = "";
	int rc = list_dir(j->dir, &l, err);

	if (rc < 0)
		return rc;
	if (!l.any) {
		j->path = journal_gen_path(j->dir, "journal", 0);
		snprintf(j->loaded, sizeof(j->loaded), "an empty StateDir");
		free(l.snaps);
		return 0;
	}
	rc = chain_find(j, &l, salvage ? ALLOW_JOURNAL : ALLOW_NONE, &c, why,
			sizeof(why), err);
	if (rc == -EILSEQ && salvage) {
		journal_aside_clear(j);
		rc = chain_find(j, &l, ALLOW_JOURNAL | ALLOW_SNAPSHOT, &c,
				why, sizeof(why), err);
	}
	if (rc == -EILSEQ)
		rc = rota_errorf(err, rc, "%s; refusing to start: run "
				 "'rota-ctld --salvage'", why);
	if (rc == 0) {
		j->gen = l.top;
		j->base = c.base;
		j->fell_back = c.has_snapshot ? c.base != l.snaps[0]
					      : l.nsnaps > 0;
		rc = chain_replay(j, &c, &w, err);
	}
	if (rc == 0) {
		describe(j, &c, &w);
		if (j->fell_back) {
			size_t n = strlen(j->loaded);

			snprintf(j->loaded + n, sizeof(j->loaded) - n,
				 "; fell back, %s", why);
		}
	}
	chain_free(&c);
	free(l.snaps);
	return rc;
}
