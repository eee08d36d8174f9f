// SPDX-License-Identifier: MIT
/*
 * The controller's durability (issue: never lose a job).  At start the
 * snapshot and journal are replayed into the core and compacted; after
 * every event, before anything is answered, sent or acknowledged, the jobs
 * the event changed are written and fsync'd (state_commit: one fsync for
 * all of them, a group commit).  The journal is compacted into a snapshot
 * at start and whenever it grows past COMPACT_BYTES.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "ctld/core/core.h"
#include "ctld/ctld.h"
#include "ctld/idem.h"
#include "ctld/job_record.h"
#include "ctld/jobcomp.h"
#include "ctld/journal.h"
#include "ctld/resv_record.h"

/* Compact once the journal holds this much. */
#define COMPACT_BYTES (64u << 20)

struct replay_ctx {
	struct ctld *ctld;
	size_t records;
};

static int replay_cb(const char *rec, size_t len, void *arg,
		     struct rota_error *err)
{
	struct replay_ctx *rc = arg;
	int r;

	rc->records++;
	/* a request's answer (idem.h), else a job, usage or reservation */
	r = idem_record_apply(rc->ctld->idem, idem_keep_since(rc->ctld), rec,
			      len, err);
	if (r != 0)
		return r < 0 ? r : 0;
	return job_record_apply(rc->ctld->core, ctld_now(rc->ctld), rec, len,
				err);
}

struct emit_ctx {
	struct ctld *ctld;
	struct journal_snapshot *snap;
	int rc;
};

static void emit_job(const struct core_job *job, void *arg)
{
	struct emit_ctx *ec = arg;
	size_t len;
	char *rec;

	if (ec->rc < 0)
		return;
	rec = job_record_encode(ec->ctld->core, job, &len);
	ec->rc = journal_snapshot_add(ec->snap, rec, len);
	free(rec);
}

/* The usage record, if it changed (or 'all', for a snapshot). */
static char *usage_record(struct ctld *ctld, bool all, size_t *len)
{
	int64_t now = ctld_now(ctld);
	struct core_usage *u;
	size_t n = core_usage_take(ctld->core, now, all, &u);
	/* the meters with the usage they are in: one record, both or none */
	char *rec = u ? job_record_usage(ctld->core, u, n, now, len) : NULL;

	free(u);
	return rec;
}

static int emit_all(struct journal_snapshot *snap, void *arg)
{
	struct emit_ctx ec = { .ctld = arg, .snap = snap };
	size_t len;
	char *rec = job_record_next_id(core_next_id(ec.ctld->core), &len);

	ec.rc = journal_snapshot_add(snap, rec, len);
	free(rec);
	/* reservations before jobs: a running job counts in its own again */
	for (size_t i = 0; i < core_resv_count(ec.ctld->core) && !ec.rc; i++) {
		rec = resv_record_encode(ec.ctld->core,
					 core_resv_get(ec.ctld->core, i), &len);
		ec.rc = journal_snapshot_add(snap, rec, len);
		free(rec);
	}
	core_job_foreach(ec.ctld->core, emit_job, &ec);
	/* the recent requests' answers, as the jobs they made */
	if (ec.rc == 0)
		ec.rc = idem_snapshot(ec.ctld->idem,
				      idem_keep_since(ec.ctld), snap);
	rec = usage_record(ec.ctld, true, &len);
	if (ec.rc == 0)
		ec.rc = journal_snapshot_add(snap, rec, len);
	free(rec);
	return ec.rc;
}

int state_compact(struct ctld *ctld)
{
	struct rota_error err;
	int rc = journal_sync(ctld->journal, &err);

	/* changes not taken yet are in the snapshot, and journaled after */
	if (rc == 0)
		rc = journal_compact(ctld->journal, emit_all, ctld, &err);
	if (rc < 0)
		rota_err("%s", err.text);
	return rc;
}

int state_load(struct ctld *ctld)
{
	struct replay_ctx rc = { .ctld = ctld };
	struct rota_error err;
	bool fell_back;
	const char *what;
	int r = journal_open(ctld->conf->state_dir, replay_cb, &rc,
			     &ctld->journal, &err);

	if (r < 0) {
		rota_err("state: %s", err.text);
		return r;
	}
	core_restore_finish(ctld->core);
	what = journal_loaded(ctld->journal, &fell_back);
	rota_log(fell_back ? ROTA_LOG_WARN : ROTA_LOG_INFO, __func__,
		 "state: %s; %zu jobs, next job id %u", what,
		 core_job_count(ctld->core), core_next_id(ctld->core));
	/* replay marked nothing dirty: compacting writes it all once */
	r = state_compact(ctld);
	/* ends journaled before a crash whose records may not be out */
	if (r == 0)
		jobcomp_hand_over(ctld);
	return r;
}

int state_salvage(struct ctld *ctld)
{
	struct replay_ctx rc = { .ctld = ctld };
	struct rota_error err;
	bool fell_back;
	int r = journal_salvage(ctld->conf->state_dir, replay_cb, &rc,
				&ctld->journal, &err);

	if (r < 0) {
		rota_err("salvage: %s", err.text);
		return r;
	}
	core_restore_finish(ctld->core);
	rota_info("salvage: %s; %zu jobs, next job id %u",
		  journal_loaded(ctld->journal, &fell_back),
		  core_job_count(ctld->core), core_next_id(ctld->core));
	/* twice: the repaired generation, then a clean previous one */
	r = state_compact(ctld);
	if (r == 0)
		r = state_compact(ctld);
	if (r == 0)
		rota_info("salvage: repaired state written to '%s'",
			  ctld->conf->state_dir);
	journal_close(ctld->journal);
	ctld->journal = NULL;
	return r;
}

int state_commit(struct ctld *ctld)
{
	struct rota_error err;
	uint32_t *ids;
	size_t n = core_take_dirty(ctld->core, &ids);
	size_t len;
	char *rec;
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		const struct core_job *job = core_job_find(ctld->core, ids[i]);

		if (!job)
			continue;
		rec = job_record_encode(ctld->core, job, &len);
		journal_append(ctld->journal, rec, len);
		free(rec);
	}
	free(ids);
	/* after the jobs: an ended job's last charge is in it */
	rec = usage_record(ctld, false, &len);
	if (rec)
		journal_append(ctld->journal, rec, len);
	free(rec);
	/* last: the answers of the requests whose changes precede them */
	idem_flush(ctld->idem, ctld->journal);
	rc = journal_sync(ctld->journal, &err);
	if (rc < 0) {
		rota_err("journal: %s", err.text);
		return rc;
	}
	/* only now, with the ends on disk, may anyone hear of them */
	jobcomp_hand_over(ctld);
	if (journal_size(ctld->journal) > COMPACT_BYTES)
		return state_compact(ctld);
	return 0;
}
