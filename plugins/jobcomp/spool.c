// SPDX-License-Identifier: MIT
/*
 * The spool of jobcomp records not yet delivered (spool.h).  The file is
 * the truth and memory a copy: pushing appends a line, popping only moves
 * a cursor, so that a crash at any moment leaves every undelivered record
 * in the file.  Delivered lines are dropped by truncating the file once
 * all are delivered, or by rewriting the pending ones into a new file
 * (written, synced, renamed over) once delivered lines are most of it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugins/jobcomp/spool.h"

/* Rewrite once this much of the file was delivered, and half of it. */
#define SPOOL_REWRITE_BYTES (1u << 20)

struct spool_rec {
	uint32_t id;
	char *doc;
};

struct spool {
	char *path;
	int fd;
	struct spool_rec *recs;	/* recs[head..n) are pending */
	size_t head;
	size_t n;
	size_t cap;
	uint64_t bytes;		/* in the file */
	uint64_t sent_bytes;	/* of them, delivered */
};

static int queue(struct spool *s, uint32_t id, const char *doc, size_t len)
{
	char *copy;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct spool_rec *r = realloc(s->recs, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		s->recs = r;
		s->cap = cap;
	}
	copy = strndup(doc, len);
	if (!copy)
		return -ENOMEM;
	s->recs[s->n++] = (struct spool_rec){ .id = id, .doc = copy };
	return 0;
}

/* One line "<id> <doc>": queue it; -EPROTO if it is not one. */
static int parse_line(struct spool *s, const char *line, size_t len)
{
	char *end;
	unsigned long id;

	errno = 0;
	id = strtoul(line, &end, 10);
	if (errno || end == line || *end != ' ' || id == 0 || id > UINT32_MAX)
		return -EPROTO;
	end++;
	return queue(s, (uint32_t)id, end, len - (size_t)(end - line));
}

/* Queue every whole line of the file; cut a torn last one off. */
static int load(struct spool *s)
{
	FILE *f = fdopen(dup(s->fd), "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	off_t good = 0;
	int rc = 0;

	if (!f)
		return -errno;
	while (rc == 0 && (len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] != '\n')
			break;
		rc = parse_line(s, line, (size_t)len - 1);
		if (rc == -EPROTO)
			rc = 0; /* not ours: dropped with the rewrite */
		good += len;
	}
	free(line);
	fclose(f);
	if (rc == 0 && ftruncate(s->fd, good) < 0)
		rc = -errno;
	s->bytes = (uint64_t)good;
	return rc;
}

int spool_open(const char *path, struct spool **out, char *err,
	       size_t errlen)
{
	struct spool *s = calloc(1, sizeof(*s));
	int rc = 0;

	*out = NULL;
	if (!s || !(s->path = strdup(path))) {
		free(s);
		return -ENOMEM;
	}
	s->fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (s->fd < 0)
		rc = -errno;
	else
		rc = load(s);
	if (rc < 0) {
		snprintf(err, errlen, "'%s': %s", path, strerror(-rc));
		spool_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

void spool_close(struct spool *s)
{
	if (!s)
		return;
	for (size_t i = s->head; i < s->n; i++)
		free(s->recs[i].doc);
	free(s->recs);
	if (s->fd >= 0)
		close(s->fd);
	free(s->path);
	free(s);
}

static int write_line(int fd, uint32_t id, const char *doc, size_t *written)
{
	char *line;
	int len = asprintf(&line, "%u %s\n", id, doc);
	size_t off = 0;

	if (len < 0)
		return -ENOMEM;
	while (off < (size_t)len) {
		ssize_t w = write(fd, line + off, (size_t)len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			free(line);
			return -errno;
		}
		off += (size_t)w;
	}
	free(line);
	*written = off;
	return 0;
}

int spool_push(struct spool *s, uint32_t id, const char *doc)
{
	size_t written = 0;
	int rc = write_line(s->fd, id, doc, &written);

	if (rc == 0)
		rc = queue(s, id, doc, strlen(doc));
	s->bytes += written;
	return rc;
}

int spool_sync(struct spool *s)
{
	return fdatasync(s->fd) < 0 ? -errno : 0;
}

const char *spool_head(const struct spool *s, uint32_t *id)
{
	if (s->head == s->n)
		return NULL;
	*id = s->recs[s->head].id;
	return s->recs[s->head].doc;
}

size_t spool_count(const struct spool *s)
{
	return s->n - s->head;
}

/* Write the pending records to a new file and put it in place. */
static int rewrite(struct spool *s)
{
	char *tmp;
	size_t written;
	uint64_t bytes = 0;
	int fd, rc = 0;

	if (asprintf(&tmp, "%s.new", s->path) < 0)
		return -ENOMEM;
	fd = open(tmp, O_RDWR | O_APPEND | O_CREAT | O_TRUNC | O_CLOEXEC,
		  0600);
	if (fd < 0)
		rc = -errno;
	for (size_t i = s->head; rc == 0 && i < s->n; i++) {
		rc = write_line(fd, s->recs[i].id, s->recs[i].doc, &written);
		bytes += written;
	}
	if (rc == 0 && (fdatasync(fd) < 0 || rename(tmp, s->path) < 0))
		rc = -errno;
	if (rc < 0) {
		if (fd >= 0)
			close(fd);
		unlink(tmp);
	} else {
		close(s->fd);
		s->fd = fd;
		s->bytes = bytes;
		s->sent_bytes = 0;
	}
	free(tmp);
	return rc;
}

int spool_pop(struct spool *s)
{
	char idtext[16];

	if (s->head == s->n)
		return 0;
	s->sent_bytes += (uint64_t)snprintf(idtext, sizeof(idtext), "%u ",
					    s->recs[s->head].id) +
			 strlen(s->recs[s->head].doc) + 1;
	free(s->recs[s->head].doc);
	s->head++;
	if (s->head == s->n) {
		s->head = s->n = 0;
		s->sent_bytes = s->bytes = 0;
		/* all delivered: O_APPEND writes start at 0 again */
		return ftruncate(s->fd, 0) < 0 ? -errno : 0;
	}
	if (s->head > s->n / 2) {
		memmove(s->recs, s->recs + s->head,
			(s->n - s->head) * sizeof(*s->recs));
		s->n -= s->head;
		s->head = 0;
	}
	if (s->sent_bytes >= SPOOL_REWRITE_BYTES && 2 * s->sent_bytes > s->bytes)
		return rewrite(s);
	return 0;
}
