// SPDX-License-Identifier: MIT
/*
 * The journal and snapshot files (see journal.h).  Blocking file I/O on
 * purpose: the fsync before an answer is the one wait the event loop
 * allows (STYLE 10).
 *
 * Generations.  StateDir holds generation G as "snapshot.G" (the whole
 * state when it was written) and "journal.G" (every record after it, up to
 * snapshot.G+1); generation 0 is "snapshot" and "journal", the names of a
 * StateDir from before generations (or a fresh one, with no snapshot).
 * The state is snapshot.K, then journal.K, journal.K+1, ... journal.T (the
 * newest, the one appended to), for any K whose snapshot is intact and
 * whose journals are all there.  Compaction keeps the previous generation
 * and its journal, so a damaged newest snapshot falls back to the one
 * before plus the longer journal chain, and loses nothing.
 *
 * Compaction from generation T (its base snapshot B, T or older) to M:
 *   1. write snapshot.M.new and fsync it;
 *   2. create journal.M empty and fsync the directory;
 *   3. rename snapshot.M.new to snapshot.M and fsync the directory; only
 *      now are records appended to journal.M, never before;
 *   4. unlink the files of every generation below B, and stray .new files,
 *      and fsync the directory.
 * Why a kill -9 (or a power cut) at any point leaves a consistent chain:
 *   - until the rename of 3 is on disk, snapshot.M does not exist: B and
 *     journals B..T hold every record, journal.M is absent or empty (an
 *     empty journal adds nothing to the chain B..T, M), and a .new file is
 *     never read;
 *   - once it is, snapshot.M holds all that journal.T held (the journal is
 *     synced before 1) and journal.M exists (2 was synced before 3), so
 *     snapshot.M + journal.M is the state, and B with journals B..M the
 *     fallback;
 *   - 4 removes only what no chain from B or M needs; a partial 4 leaves
 *     older files that are never preferred and go at the next compaction.
 * Each step is one atomic rename, create or unlink; the only file ever
 * written in place is the newest journal, by appends, whose torn tail
 * replay cuts.
 *
 * Damage.  A record that is not whole (a bad length or CRC) is a torn tail
 * when no valid record follows it in the newest journal: a crash while
 * writing it, cut off at start.  Anywhere else it is damage: a damaged
 * snapshot makes the start fall back to an older chain; damage in a
 * journal every chain needs stops the start, naming file and offset.
 * Salvage keeps every valid record, finding the next one past damage by
 * scanning for a header whose length and CRC hold, and sets the damaged
 * files aside as NAME.damaged.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/crc32c.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "ctld/journal.h"

/*
 * The journal file is zero-filled ahead of its records, JOURNAL_AHEAD at a
 * time, and synced: a record then overwrites blocks that exist on disk
 * already, so its fdatasync writes that data and no metadata (appending
 * costs the inode's size and block maps on every sync; fallocate alone
 * would too, its extents being "unwritten").  Replay stops at the zeros.
 */
#define JOURNAL_AHEAD (1u << 20)

/* Generations above this are refused as names (no overflow of M = T + 1). */
#define GEN_MAX 2000000000u

struct journal {
	char *dir;
	char *path;	/* the journal file appended to */
	int fd;
	unsigned gen;	/* its generation, T */
	unsigned base;	/* the newest snapshot known intact, B */
	uint64_t size;	/* where the records end */
	uint64_t filled; /* the file's size: records, then zeros */
	struct rota_strbuf pending;
	char loaded[512]; /* what the start used, for its log line */
	bool fell_back;
	char **aside;	/* damaged files, set aside at the next compaction */
	size_t naside;
};

struct journal_snapshot {
	int fd;
	int error;	/* -errno of a failed write */
	uint32_t records;
};

/*
 * A snapshot ends in a record of its own: END_MAGIC and the number of
 * records before it (u32), so that one cut short at a record boundary is
 * damage too.  Records starting with a NUL byte are the journal's.
 */
#define END_MAGIC "\0END"
#define END_LEN 8

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

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void frame(struct rota_strbuf *b, const char *rec, size_t len)
{
	uint8_t h[8];

	put32(h, (uint32_t)len);
	put32(h + 4, rota_crc32c(0, rec, len));
	rota_strbuf_add(b, (const char *)h, sizeof(h));
	rota_strbuf_add(b, rec, len);
}

static char *gen_path(const char *dir, const char *kind, unsigned gen)
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
	*n = get32(h);
	if (*n == 0)
		return "length 0";
	if (*n > JOURNAL_RECORD_MAX)
		return "a length over the maximum";
	if (*n > len - off - 8)
		return "a length past the end";
	if (rota_crc32c(0, data + off + 8, *n) != get32(h + 4))
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
	if (get32((const uint8_t *)f->data + off + 12) != f->records)
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
	f->path = gen_path(dir, kind, gen);
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

	c->nfiles = (size_t)(top - c->base) + 1 + c->has_snapshot;
	c->files = rota_xcalloc(c->nfiles, sizeof(*c->files));
	why[0] = '\0';
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
static bool parse_name(const char *name, const char *kind, const char *tail,
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
		if (parse_name(e->d_name, "snapshot", "", &g)) {
			l->snaps = rota_xrealloc(l->snaps, (l->nsnaps + 1) *
							   sizeof(*l->snaps));
			l->snaps[l->nsnaps++] = g;
		} else if (parse_name(e->d_name, "journal", "", &g)) {
			l->journal0 |= g == 0;
		} else {
			continue;
		}
		l->top = !l->any || g > l->top ? g : l->top;
		l->any = true;
	}
	closedir(d);
	qsort(l->snaps, l->nsnaps, sizeof(*l->snaps), cmp_desc);
	return 0;
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

static void aside_clear(struct journal *j)
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
			 "; salvage dropped %zu bytes in %zu places (%zu "
			 "records known, %zu refused)",
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
		if (c->has_snapshot && c->files[0].damaged)
			set_aside_later(j, c->files[0].path);
		chain_free(c);
		if (rc != -EILSEQ)
			return rc;
	}
	return -EILSEQ;
}

static int load(struct journal *j, journal_record_fn fn, void *arg,
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
		j->path = gen_path(j->dir, "journal", 0);
		snprintf(j->loaded, sizeof(j->loaded), "an empty StateDir");
		free(l.snaps);
		return 0;
	}
	rc = chain_find(j, &l, salvage ? ALLOW_JOURNAL : ALLOW_NONE, &c, why,
			sizeof(why), err);
	if (rc == -EILSEQ && salvage) {
		aside_clear(j);
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

static int open_dir(const char *dir, journal_record_fn fn, void *arg,
		    bool salvage, struct journal **out, struct rota_error *err)
{
	struct journal *j;
	int rc;

	*out = NULL;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return rota_errorf(err, -errno, "StateDir '%s': %s", dir,
				   strerror(errno));
	j = rota_xcalloc(1, sizeof(*j));
	j->dir = rota_xstrdup(dir);
	j->fd = -1;
	rc = load(j, fn, arg, salvage, err);
	if (rc == 0) {
		j->fd = open(j->path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (j->fd < 0)
			rc = rota_errorf(err, -errno, "%s: %s", j->path,
					 strerror(errno));
	}
	if (rc < 0) {
		journal_close(j);
		return rc;
	}
	*out = j;
	return 0;
}

int journal_open(const char *dir, journal_record_fn fn, void *arg,
		 struct journal **out, struct rota_error *err)
{
	return open_dir(dir, fn, arg, false, out, err);
}

int journal_salvage(const char *dir, journal_record_fn fn, void *arg,
		    struct journal **out, struct rota_error *err)
{
	return open_dir(dir, fn, arg, true, out, err);
}

const char *journal_loaded(const struct journal *j, bool *fell_back)
{
	*fell_back = j->fell_back;
	return j->loaded;
}

void journal_close(struct journal *j)
{
	if (!j)
		return;
	/* the zeros ahead go: a file closed in order holds records only */
	if (j->fd >= 0 && j->filled > j->size &&
	    ftruncate(j->fd, (off_t)j->size) < 0)
		rota_warn("%s: %s", j->path, strerror(errno));
	if (j->fd >= 0)
		close(j->fd);
	aside_clear(j);
	free(j->aside);
	rota_strbuf_fini(&j->pending);
	free(j->dir);
	free(j->path);
	free(j);
}

int journal_append(struct journal *j, const char *rec, size_t len)
{
	if (len > JOURNAL_RECORD_MAX)
		return -EFBIG;
	if (!len || !rec[0])
		return -EINVAL;
	frame(&j->pending, rec, len);
	return 0;
}

/* pwrite() it all at 'off'; off < 0: write() it at the file offset. */
static int write_at(int fd, const char *p, size_t n, off_t off)
{
	while (n) {
		ssize_t w = off < 0 ? write(fd, p, n) : pwrite(fd, p, n, off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
		if (off >= 0)
			off += w;
	}
	return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	return write_at(fd, p, n, -1);
}

/* Zeros from j->filled to past 'end', synced with the next record. */
static int fill_ahead(struct journal *j, uint64_t end)
{
	static const char zeros[64 << 10];
	uint64_t to = (end / JOURNAL_AHEAD + 1) * JOURNAL_AHEAD;

	while (j->filled < to) {
		size_t n = to - j->filled < sizeof(zeros)
				   ? (size_t)(to - j->filled)
				   : sizeof(zeros);
		int rc = write_at(j->fd, zeros, n, (off_t)j->filled);

		if (rc < 0)
			return rc;
		j->filled += n;
	}
	return 0;
}

int journal_sync(struct journal *j, struct rota_error *err)
{
	int rc = 0;

	if (!j->pending.len)
		return 0;
	if (j->size + j->pending.len > j->filled)
		rc = fill_ahead(j, j->size + j->pending.len);
	if (rc == 0)
		rc = write_at(j->fd, j->pending.data, j->pending.len,
			      (off_t)j->size);
	if (rc == 0 && fdatasync(j->fd) < 0)
		rc = -errno;
	if (rc < 0) {
		/* what was written may be torn: replay will cut it off */
		return rota_errorf(err, rc, "%s: %s", j->path, strerror(-rc));
	}
	j->size += j->pending.len;
	j->pending.len = 0;
	return 0;
}

uint64_t journal_size(const struct journal *j)
{
	return j->size;
}

int journal_snapshot_add(struct journal_snapshot *s, const char *rec,
			 size_t len)
{
	struct rota_strbuf b = { 0 };

	if (s->error)
		return s->error;
	if (len > JOURNAL_RECORD_MAX)
		return s->error = -EFBIG;
	if (!len || !rec[0])
		return s->error = -EINVAL;
	frame(&b, rec, len);
	s->error = write_all(s->fd, b.data, b.len);
	rota_strbuf_fini(&b);
	s->records++;
	return s->error;
}

/* Step 1: the new snapshot, whole and synced, as 'tmp'. */
static int write_snapshot(const char *tmp,
			  int (*emit)(struct journal_snapshot *s, void *arg),
			  void *arg)
{
	struct journal_snapshot s = { .fd = -1 };
	int rc;

	s.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	rc = s.fd < 0 ? -errno : 0;
	if (rc == 0)
		rc = emit(&s, arg);
	if (rc == 0) {
		struct rota_strbuf b = { 0 };
		char end[END_LEN] = END_MAGIC;

		put32((uint8_t *)end + 4, s.records);
		frame(&b, end, sizeof(end));
		rc = write_all(s.fd, b.data, b.len);
		rota_strbuf_fini(&b);
	}
	if (rc == 0 && fsync(s.fd) < 0)
		rc = -errno;
	if (s.fd >= 0)
		close(s.fd);
	return rc;
}

/* Step 4: the generations below 'base', and any stray .new file. */
static void remove_older(struct journal *j, unsigned base)
{
	DIR *d = opendir(j->dir);
	struct dirent *e;
	unsigned g;

	if (!d)
		return;
	while ((e = readdir(d))) {
		bool old = (parse_name(e->d_name, "snapshot", "", &g) ||
			    parse_name(e->d_name, "journal", "", &g)) &&
			   g < base;
		bool stray = parse_name(e->d_name, "snapshot", ".new", &g) ||
			     !strcmp(e->d_name, "snapshot.new");

		if ((old || stray) && unlinkat(dirfd(d), e->d_name, 0) < 0)
			rota_warn("%s/%s: %s", j->dir, e->d_name,
				  strerror(errno));
	}
	closedir(d);
	sync_dir(j->dir);
}

/* After step 3: damaged files the load met go aside, kept for a look. */
static void set_aside(struct journal *j)
{
	for (size_t i = 0; i < j->naside; i++) {
		char *to = rota_xasprintf("%s.damaged", j->aside[i]);

		if (rename(j->aside[i], to) < 0)
			rota_warn("%s: %s", j->aside[i], strerror(errno));
		else
			rota_warn("%s: damaged, set aside as %s", j->aside[i],
				  to);
		free(to);
		free(j->aside[i]);
	}
	j->naside = 0;
}

int journal_compact(struct journal *j,
		    int (*emit)(struct journal_snapshot *s, void *arg),
		    void *arg, struct rota_error *err)
{
	unsigned m = j->gen + 1;
	char *tmp = rota_xasprintf("%s/snapshot.%u.new", j->dir, m);
	char *snap = gen_path(j->dir, "snapshot", m);
	char *jpath = gen_path(j->dir, "journal", m);
	unsigned base = j->base;
	int fd = -1;
	int rc = m > GEN_MAX ? -EOVERFLOW : write_snapshot(tmp, emit, arg);

	if (rc == 0) {
		fd = open(jpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			  0600);
		rc = fd < 0 ? -errno : sync_dir(j->dir);
	}
	if (rc == 0 && rename(tmp, snap) < 0)
		rc = -errno;
	if (rc < 0) {
		if (fd >= 0) {
			close(fd);
			unlink(jpath);
		}
		unlink(tmp);
		free(tmp);
		free(snap);
		free(jpath);
		return rota_errorf(err, rc, "snapshot in '%s': %s", j->dir,
				   strerror(-rc));
	}
	/* renamed: from now on records go to journal.M, whatever follows */
	if (j->filled > j->size && ftruncate(j->fd, (off_t)j->size) < 0)
		rota_warn("%s: %s", j->path, strerror(errno));
	close(j->fd);
	j->fd = fd;
	free(j->path);
	j->path = jpath;
	j->gen = m;
	j->base = m;
	j->size = 0;
	j->filled = 0;
	rc = sync_dir(j->dir);
	set_aside(j);
	remove_older(j, base);
	free(tmp);
	free(snap);
	if (rc < 0)
		return rota_errorf(err, rc, "StateDir '%s': %s", j->dir,
				   strerror(-rc));
	return 0;
}
