/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_IDEM_H
#define ROTA_CTLD_IDEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "common/frame.h"
#include "common/msg.h"

/*
 * Idempotent requests (issue 18): the first answer of each recent request
 * id, per uid, so that a client retrying a request whose answer it never
 * heard (the controller killed after its commit, a connection reset) gets
 * that answer again instead of a second job.  The answers are journaled
 * with the change they answer, in the same fsync, as records
 *   {"kind":"request","uid":U,"rid":"<hex>","time":T,"type":N,
 *    "digest":"<sha256 of the body>","answer":"<reply body>"}
 * and kept in the snapshot while they are recent (see idem.c).
 */
struct idem;
struct peer;
struct journal;
struct journal_snapshot;

/* Caller frees with idem_destroy(). */
struct idem *idem_create(void);
void idem_destroy(struct idem *t);
/* Ids remembered now (rota diag). */
size_t idem_count(const struct idem *t);

/*
 * Replay: apply one journal record if it is a "request" record (1), or
 * say it is not one (0); -EINVAL with 'err' for a malformed one.  Answers
 * older than 'before' (Unix seconds) are let go.
 */
int idem_record_apply(struct idem *t, int64_t before, const char *rec,
		      size_t len, struct rota_error *err);
/*
 * Compaction: drop what is older than 'before', then add a record per
 * remembered answer to 's'.  0 or the first error of
 * journal_snapshot_add.
 */
int idem_snapshot(struct idem *t, int64_t before, struct journal_snapshot *s);

/*
 * Answers older than this (Unix seconds) are let go: ClientRetry plus a
 * margin before now (see idem.c).
 */
struct ctld;
int64_t idem_keep_since(const struct ctld *ctld);

/* One state-changing request, between idem_begin() and idem_end(). */
struct idem_req {
	struct peer *p;
	char rid[ROTA_RID_LEN + 1]; /* "" if the client sent none */
	struct rota_frame f;	    /* the request, its body without "rid" */
	char *body;		    /* owns f.body when it had a "rid" */
	uint8_t digest[32];	    /* of f.body: a reused id is refused */
	bool kept;		    /* idem_answer() added an answer */
	size_t pending_at;	    /* where its record waits (idem_flush) */
};

/*
 * Start handling 'f' from 'p': false with 'r' ready (handle r->f, then
 * idem_end), or true when the request was answered already here: a
 * repeat of a remembered id gets its first answer, a malformed id or an
 * id reused for another request an ERROR.  Event loop only.
 */
bool idem_begin(struct peer *p, const struct rota_frame *f, struct idem_req *r);
/*
 * The answer of an accepted change, given before state_commit(): it is
 * remembered, and its record waits for idem_flush().  Nothing without a
 * request id.
 */
void idem_answer(struct idem_req *r, uint16_t type, const char *body,
		 size_t len);
/*
 * state_commit(): append the waiting records to 'j', after the change's
 * own records and before the sync: a replay that finds an answer finds
 * what it answers (a torn tail loses the answer first).
 */
void idem_flush(struct idem *t, struct journal *j);
/* state_commit() failed: the answer was not made durable, forget it. */
void idem_forget(struct idem_req *r);
/* Free what idem_begin() made (idem_answer's answer stays). */
void idem_end(struct idem_req *r);

#endif
