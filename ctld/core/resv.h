/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_CORE_RESV_H
#define ROTA_CTLD_CORE_RESV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/*
 * Advance reservations inside the core (resv.c, the table; resv_admin.c,
 * create, delete, restore and the checks at submit; the public side is in
 * core.h).  Shared by the files of ctld/core only.
 */
struct core;
struct core_job;
struct core_resv;

/*
 * Every change of the reservations goes through here: a create, a delete,
 * a start or an end crossed.  It bumps core_resv_stamp(); a pass that is
 * skipped when nothing changed must not be skipped after it.
 */
void resv_changed(struct core *core);
/* Starts and ends that 'now' has crossed (core_tick and both passes). */
void resv_update(struct core *core, int64_t now);
void resv_fini(struct core *core);
/* Reservation 'i' leaves the table (freed; the others keep their order). */
void resv_remove(struct core *core, size_t i);
/* Its part on node 'node', or NULL. */
struct core_resv_part *resv_part_on(const struct core_resv *r, uint32_t node);

/*
 * The cores of node 'node' that 'job' may count on, of the 'cores' the
 * placement found there.  'now': at time 't' for the job's whole limit (a
 * job of a reservation gets what is left of its reservation's cores, if it
 * is active; any other job loses the cores reservations hold while it would
 * run); otherwise "could it ever" (a job of a reservation gets at most its
 * reservation's cores; any other job all).
 */
uint32_t resv_node_cores(const struct core *core, const struct core_job *job,
			 uint32_t node, bool now, int64_t t, uint32_t cores);

/*
 * The same for GPUs: of the 'gpus' free (or, not 'now', in all) on node
 * 'node', those 'job' may count on.  A job of a reservation gets those
 * its reservation holds there (less its other jobs', 'now'), any other
 * job, 'now', loses those reservations hold while it would run.
 */
uint32_t resv_node_gpus(const struct core *core, const struct core_job *job,
			uint32_t node, bool now, int64_t t, uint32_t gpus);

/*
 * resv_admin.c.  At submit: the job's reservation exists and could ever hold it
 * (-ENOENT, -EINVAL), then, once its account is known, that it allows the
 * job's user and account (-EPERM); the user's line in 'err'.
 */
int resv_submit_check(struct core *core, const struct core_job *job,
		      struct rota_error *err);
int resv_submit_allows(const struct core *core, const struct core_job *job,
		       const char *user, struct rota_error *err);

/*
 * Why a job of a reservation cannot start now ("Reservation": not started
 * yet; "ReservationDeleted": ended or deleted), or NULL if it may.  Static.
 */
const char *resv_job_reason(const struct core *core,
			    const struct core_job *job);
/* A job of a reservation starts or stops holding its cores. */
void resv_job_take(struct core *core, struct core_job *job);
void resv_job_release(struct core *core, struct core_job *job);
/*
 * When a running job's cores go back to everyone: its 'end', or its
 * reservation's end if that is later (until then they stay reserved).
 */
int64_t resv_job_holds_until(const struct core *core,
			     const struct core_job *job, int64_t end);

#endif
