/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_JOURNAL_H
#define ROTA_CTLD_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/*
 * The controller's durable state in StateDir: "snapshot", then "journal",
 * both a sequence of records (u32 length, u32 CRC-32C, payload), in
 * little-endian.  What a record says is the caller's business.
 *
 * Replay tolerates a torn last journal record (a crash mid-write: it is cut
 * off, with a warning) and refuses, naming file and offset, a damaged
 * record anywhere else or a damaged snapshot.  Appends are buffered until
 * journal_sync(), which writes and fdatasyncs them: callers sync before
 * they answer.  While open, the journal file is zero-filled ahead of its
 * records (a sync then writes data only, no metadata); replay ends at the
 * zeros, and a close cuts them off.  A snapshot is written beside,
 * synced, renamed into place, and only then is the journal emptied, so a
 * crash at any point leaves either the old snapshot and the whole journal
 * or the new snapshot.
 */
struct journal;

#define JOURNAL_RECORD_MAX (64u << 20)

typedef int (*journal_record_fn)(const char *rec, size_t len, void *arg,
				 struct rota_error *err);

/*
 * Open (creating) 'dir' and replay the snapshot then the journal through
 * 'fn'; an error from 'fn' stops the replay and is returned.  Caller frees
 * with journal_close().
 */
int journal_open(const char *dir, journal_record_fn fn, void *arg,
		 struct journal **out, struct rota_error *err);
void journal_close(struct journal *j);

/* Queue a record (copied); -EFBIG over JOURNAL_RECORD_MAX. */
int journal_append(struct journal *j, const char *rec, size_t len);
/* Write what is queued and fdatasync it.  -errno with 'err'. */
int journal_sync(struct journal *j, struct rota_error *err);
/* Bytes in the journal file (for deciding when to compact). */
uint64_t journal_size(const struct journal *j);

/*
 * Replace snapshot and journal by a snapshot of the records 'emit' gives
 * (it calls journal_snapshot_add for each).  Pending appends must have been
 * synced.
 */
struct journal_snapshot;
int journal_compact(struct journal *j,
		    int (*emit)(struct journal_snapshot *s, void *arg),
		    void *arg, struct rota_error *err);
int journal_snapshot_add(struct journal_snapshot *s, const char *rec,
			 size_t len);

#endif
