/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_JOURNAL_H
#define ROTA_CTLD_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/*
 * The controller's durable state in StateDir: generations of a snapshot
 * and the journal after it ("snapshot.G", "journal.G"; generation 0 is
 * "snapshot" and "journal"), each file a sequence of records (u32 length,
 * u32 CRC-32C, payload), in little-endian.  What a record says is the
 * caller's business.  journal.c says how generations follow each other
 * and why a crash at any point leaves a state to start from.
 *
 * Replay takes the newest intact snapshot and every journal since, so a
 * damaged newest snapshot falls back to the previous one (kept until the
 * next compaction) and loses nothing.  It cuts a torn last record of the
 * newest journal (a crash mid-write) and refuses, naming file and offset,
 * damage that valid records follow.  Appends are buffered until
 * journal_sync(), which writes and fdatasyncs them: callers sync before
 * they answer.  While open, the journal file is zero-filled ahead of its
 * records (a sync then writes data only, no metadata); replay ends at the
 * zeros, and a close cuts them off.
 */
struct journal;

#define JOURNAL_RECORD_MAX (64u << 20)

typedef int (*journal_record_fn)(const char *rec, size_t len, void *arg,
				 struct rota_error *err);

/*
 * Open (creating) 'dir' and replay the snapshot then the journal through
 * 'fn'; an error from 'fn' stops the replay and is returned.  -EBUSY when
 * another process has the directory open.  Caller frees with
 * journal_close().
 */
int journal_open(const char *dir, journal_record_fn fn, void *arg,
		 struct journal **out, struct rota_error *err);
void journal_close(struct journal *j);

/*
 * As journal_open, for rota-ctld --salvage: damage does not stop the
 * replay; every valid record before and after it is given to 'fn' (one
 * 'fn' refuses is dropped too), and what was dropped (file, offset, bytes,
 * records) is logged as a warning per place.  The damaged files are set
 * aside as NAME.damaged at the next journal_compact(), which the caller
 * runs to write the repaired state.  -EILSEQ only when no chain of files
 * is whole enough to start from (a journal missing in every one).
 */
int journal_salvage(const char *dir, journal_record_fn fn, void *arg,
		    struct journal **out, struct rota_error *err);

/*
 * What the last open replayed, for the start's log line: the snapshot,
 * how many records of which journals, and, when it fell back to an older
 * snapshot ('*fell_back' true), why (file, offset, what was wrong).
 * Borrowed, valid until journal_close().
 */
const char *journal_loaded(const struct journal *j, bool *fell_back);

/*
 * Queue a record (copied); -EFBIG over JOURNAL_RECORD_MAX, -EINVAL if
 * empty or starting with a NUL byte (those are the journal's own).
 */
int journal_append(struct journal *j, const char *rec, size_t len);
/* Write what is queued and fdatasync it.  -errno with 'err'. */
int journal_sync(struct journal *j, struct rota_error *err);
/* Bytes in the journal file (for deciding when to compact). */
uint64_t journal_size(const struct journal *j);

/*
 * Start a new generation: a snapshot of the records 'emit' gives (it calls
 * journal_snapshot_add for each) and an empty journal after it; the
 * previous generation stays, older ones go, and damaged files the open met
 * are set aside.  Pending appends must have been synced.
 */
struct journal_snapshot;
int journal_compact(struct journal *j,
		    int (*emit)(struct journal_snapshot *s, void *arg),
		    void *arg, struct rota_error *err);
int journal_snapshot_add(struct journal_snapshot *s, const char *rec,
			 size_t len);

#endif
