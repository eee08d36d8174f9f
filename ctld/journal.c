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

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/crc32c.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "ctld/journal_internal.h"

/*
 * The journal file is zero-filled ahead of its records, JOURNAL_AHEAD at a
 * time, and synced: a record then overwrites blocks that exist on disk
 * already, so its fdatasync writes that data and no metadata (appending
 * costs the inode's size and block maps on every sync; fallocate alone
 * would too, its extents being "unwritten").  Replay stops at the zeros.
 */
#define JOURNAL_AHEAD (1u << 20)

struct journal_snapshot {
	int fd;
	int error;	/* -errno of a failed write */
	uint32_t records;
};

static void frame(struct rota_strbuf *b, const char *rec, size_t len)
{
	uint8_t h[8];

	journal_put32(h, (uint32_t)len);
	journal_put32(h + 4, rota_crc32c(0, rec, len));
	rota_strbuf_add(b, (const char *)h, sizeof(h));
	rota_strbuf_add(b, rec, len);
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

/*
 * One process at a time in StateDir (a second controller, or a salvage
 * while it runs, would interleave generations): an flock on "lock", which
 * a kill -9 releases with the process.
 */
static int lock_dir(struct journal *j, struct rota_error *err)
{
	char *path = rota_xasprintf("%s/lock", j->dir);
	int rc = 0;

	j->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (j->lock_fd < 0)
		rc = rota_errorf(err, -errno, "%s: %s", path, strerror(errno));
	else if (flock(j->lock_fd, LOCK_EX | LOCK_NB) < 0)
		rc = rota_errorf(err, errno == EWOULDBLOCK ? -EBUSY : -errno,
				 "StateDir '%s' is in use by another rota-ctld "
				 "(%s is locked)",
				 j->dir, path);
	free(path);
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
	j->lock_fd = -1;
	rc = lock_dir(j, err);
	if (rc == 0)
		rc = journal_load(j, fn, arg, salvage, err);
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
	if (j->lock_fd >= 0)
		close(j->lock_fd);
	journal_aside_clear(j);
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

		journal_put32((uint8_t *)end + 4, s.records);
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
		bool old = (journal_parse_name(e->d_name, "snapshot", "", &g) ||
			    journal_parse_name(e->d_name, "journal", "", &g)) &&
			   g < base;
		bool stray =
			journal_parse_name(e->d_name, "snapshot", ".new", &g) ||
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
	char *snap = journal_gen_path(j->dir, "snapshot", m);
	char *jpath = journal_gen_path(j->dir, "journal", m);
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
