/* SPDX-License-Identifier: MIT */
#ifndef ROTA_SIM_DEPS_H
#define ROTA_SIM_DEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/sim.h"
#include "sim/swf.h"

/*
 * rota sim --dependencies (deps.c): SWF fields 17 (preceding job) and 18
 * (think time).  A job whose field 17 names an earlier job of the trace
 * is held: it is not submitted at its recorded time but released when
 * its preceding job ends, at that end plus its think time (or, when the
 * preceding job was not replayed, at its recorded time).  The table is
 * keyed by the preceding job's index in the trace, so a release costs
 * O(its dependents); released jobs wait in a heap by time.  Indices are
 * the trace's (swf_trace.jobs, submit order).  Engine only.
 */
struct sim_deps;

/*
 * Resolve every job's field 17 against 'trace' (borrowed; it must
 * outlive the table).  'epoch' is the Unix time of trace second 0.  Jobs
 * naming no job of the trace, or naming themselves or a later job, are
 * counted in 'counts' (which the table keeps and updates; borrowed) and
 * stay unheld.  Caller frees with sim_deps_destroy().
 */
struct sim_deps *sim_deps_create(const struct swf_trace *trace, int64_t epoch,
				 struct sim_dep_counts *counts);
void sim_deps_destroy(struct sim_deps *d);

/* Job 'i' waits for its preceding job: it is submitted only as released. */
bool sim_deps_is_held(const struct sim_deps *d, size_t i);

/*
 * Job 'p' ended at 'now' (replayed = true), or was not replayed (found
 * skipped or refused at 'now'): its dependents are released, at 'now'
 * plus their think time, or at their recorded time but not before
 * 'now'.  O(its dependents).
 */
void sim_deps_release(struct sim_deps *d, size_t p, int64_t now,
		      bool replayed);

/* The earliest release time waiting; INT64_MAX if none. */
int64_t sim_deps_next(const struct sim_deps *d);

/*
 * The released job due at or before 'now' with the lowest release time,
 * then trace index: peek (sim_deps_peek) and take (sim_deps_pop).
 * Peek returns false when none is due.
 */
bool sim_deps_peek(const struct sim_deps *d, int64_t now, size_t *i);
void sim_deps_pop(struct sim_deps *d);

/* Jobs held and not yet released (a preceding job that never ended). */
size_t sim_deps_waiting(const struct sim_deps *d);

#endif
