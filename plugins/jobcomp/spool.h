/* SPDX-License-Identifier: MIT */
#ifndef ROTA_PLUGINS_JOBCOMP_SPOOL_H
#define ROTA_PLUGINS_JOBCOMP_SPOOL_H

#include <stddef.h>
#include <stdint.h>

/*
 * A jobcomp plugin's records on their way out, on disk: a FIFO in one
 * append-only file of lines "<jobid> <document>\n".  Records are pushed,
 * made durable by spool_sync(), and popped once delivered, in order; the
 * file is emptied when all are delivered and rewritten when delivered
 * lines fill most of it.  Reopened after a crash it queues again every
 * whole line still in it: a record is delivered at least once (the last
 * ones maybe twice).  No globals, no loop: plain calls.
 */
struct spool;

/*
 * Open or create 'path' (mode 0600) and queue the records in it; a torn
 * last line is cut off.  Caller frees with spool_close().  -errno with
 * 'err' ("'path': reason").
 */
int spool_open(const char *path, struct spool **out, char *err,
	       size_t errlen);
void spool_close(struct spool *s);	/* accepts NULL */

/* Append and queue one record; 'doc' holds no newline.  0 or -errno. */
int spool_push(struct spool *s, uint32_t id, const char *doc);
/* fdatasync: what was pushed survives a crash.  0 or -errno. */
int spool_sync(struct spool *s);

/* The oldest record not delivered, or NULL; borrowed until spool_pop(). */
const char *spool_head(const struct spool *s, uint32_t *id);
/* The head was delivered: drop it.  0 or -errno (the file stays right). */
int spool_pop(struct spool *s);
size_t spool_count(const struct spool *s);

#endif
