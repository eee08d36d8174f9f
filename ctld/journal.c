// SPDX-License-Identifier: MIT
/*
 * The journal and snapshot files (see journal.h).  Blocking file I/O on
 * purpose: the fsync before an answer is the one wait the event loop
 * allows (STYLE 10).
 */
#include "config.h"

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

struct journal {
	char *dir;
	char *path;	/* the journal file */
	int fd;
	uint64_t size;	/* where the records end */
	uint64_t filled; /* the file's size: records, then zeros */
	struct rota_strbuf pending;
};

struct journal_snapshot {
	int fd;
	int error;	/* -errno of a failed write */
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

static int read_file(const char *path, char **data, size_t *len,
		     struct rota_error *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t got = 0;

	*data = NULL;
	*len = 0;
	if (fd < 0)
		return errno == ENOENT ? 0
				       : rota_errorf(err, -errno, "%s: %s", path,
						     strerror(errno));
	if (fstat(fd, &st) < 0 || st.st_size > (off_t)1 << 40) {
		close(fd);
		return rota_errorf(err, -EFBIG, "%s: cannot size it", path);
	}
	*data = rota_xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size &&
	       (n = read(fd, *data + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	close(fd);
	*len = got;
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

/*
 * Replay the records of one file; '*good' is where the last whole record
 * ends.  A damaged record is tolerated only at the very end of a journal
 * (only zeros after it), and the zeros that fill a journal ahead end it.
 */
static int replay(const char *path, const char *data, size_t len,
		  bool torn_ok, journal_record_fn fn, void *arg,
		  size_t *good, struct rota_error *err)
{
	size_t off = 0;
	int rc;

	for (*good = 0; off < len; *good = off) {
		const uint8_t *h = (const uint8_t *)data + off;
		uint32_t n, crc;
		bool whole;

		if (torn_ok && is_zero(data + off, len - off))
			return 0;
		if (len - off < 8)
			goto damaged;
		n = get32(h);
		crc = get32(h + 4);
		whole = n <= JOURNAL_RECORD_MAX && n <= len - off - 8;
		if (n == 0 && whole)
			goto damaged; /* no record is empty */
		if (!whole || rota_crc32c(0, data + off + 8, n) != crc) {
			/* records follow it: not a torn tail but damage */
			if (whole && !is_zero(data + off + 8 + n,
					      len - off - 8 - n))
				goto damaged;
			goto torn;
		}
		rc = fn(data + off + 8, n, arg, err);
		if (rc < 0)
			return rc;
		off += 8 + n;
	}
	return 0;
torn:
	if (torn_ok)
		return 0;
damaged:
	return rota_errorf(err, -EILSEQ,
			   "%s: damaged record at offset %zu of %zu; refusing "
			   "to start (move the file aside to start without it)",
			   path, off, len);
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

static int load(struct journal *j, journal_record_fn fn, void *arg,
		struct rota_error *err)
{
	char *snap_path = rota_xasprintf("%s/snapshot", j->dir);
	char *data;
	size_t len, good;
	int rc = read_file(snap_path, &data, &len, err);

	if (rc == 0)
		rc = replay(snap_path, data, len, false, fn, arg, &good, err);
	free(data);
	free(snap_path);
	if (rc < 0)
		return rc;
	rc = read_file(j->path, &data, &len, err);
	if (rc == 0)
		rc = replay(j->path, data, len, true, fn, arg, &good, err);
	if (rc < 0) {
		free(data);
		return rc;
	}
	if (good < len && !is_zero(data + good, len - good))
		rota_warn("%s: a torn record at offset %zu (a crash while "
			  "writing it) was cut off",
			  j->path, good);
	if (good < len && truncate(j->path, (off_t)good) < 0)
		rc = rota_errorf(err, -errno, "%s: %s", j->path,
				 strerror(errno));
	free(data);
	j->size = good;
	j->filled = good;
	return rc;
}

int journal_open(const char *dir, journal_record_fn fn, void *arg,
		 struct journal **out, struct rota_error *err)
{
	struct journal *j;
	int rc;

	*out = NULL;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return rota_errorf(err, -errno, "StateDir '%s': %s", dir,
				   strerror(errno));
	j = rota_xcalloc(1, sizeof(*j));
	j->dir = rota_xstrdup(dir);
	j->path = rota_xasprintf("%s/journal", dir);
	j->fd = -1;
	rc = load(j, fn, arg, err);
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
	rota_strbuf_fini(&j->pending);
	free(j->dir);
	free(j->path);
	free(j);
}

int journal_append(struct journal *j, const char *rec, size_t len)
{
	if (len > JOURNAL_RECORD_MAX)
		return -EFBIG;
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
	frame(&b, rec, len);
	s->error = write_all(s->fd, b.data, b.len);
	rota_strbuf_fini(&b);
	return s->error;
}

int journal_compact(struct journal *j,
		    int (*emit)(struct journal_snapshot *s, void *arg),
		    void *arg, struct rota_error *err)
{
	char *tmp = rota_xasprintf("%s/snapshot.new", j->dir);
	char *path = rota_xasprintf("%s/snapshot", j->dir);
	struct journal_snapshot s = { .fd = -1 };
	int rc;

	s.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	rc = s.fd < 0 ? -errno : 0;
	if (rc == 0)
		rc = emit(&s, arg);
	if (rc == 0 && fsync(s.fd) < 0)
		rc = -errno;
	if (s.fd >= 0)
		close(s.fd);
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -errno;
	if (rc == 0)
		rc = sync_dir(j->dir);
	/* the snapshot holds everything now: the journal may go */
	if (rc == 0 && (ftruncate(j->fd, 0) < 0 || fdatasync(j->fd) < 0))
		rc = -errno;
	if (rc == 0) {
		j->size = 0;
		j->filled = 0;
	}
	else
		rota_errorf(err, rc, "snapshot in '%s': %s", j->dir,
			    strerror(-rc));
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	free(path);
	return rc;
}
