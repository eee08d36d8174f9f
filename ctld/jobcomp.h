/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_JOBCOMP_H
#define ROTA_CTLD_JOBCOMP_H

#include <stdbool.h>

#include "common/error.h"

/*
 * The controller's jobcomp plugins: one per JobComp= line of rota.conf
 * (none: nothing is recorded), each given a struct rota_host with the
 * controller's event loop.  Records are handed over from state_commit(),
 * after the journal's fsync, so that a record never tells of an end the
 * journal could still lose.
 */
struct core;
struct rota_conf;
struct rota_evloop;
struct jobcomp;

/*
 * Load every JobComp plugin 'conf' names.  'loop' NULL: only check their
 * settings (rota-ctld -t).  'conf' is read during the call only (the
 * plugins read their settings in init()).  Caller frees
 * with jobcomp_destroy().  -EINVAL or -ENOENT with the line in 'err'.
 */
int jobcomp_create(const struct rota_conf *conf, struct rota_evloop *loop,
		   struct jobcomp **out, struct rota_error *err);
/* fini() each plugin (unsent records stay in their spools); accepts NULL. */
void jobcomp_destroy(struct jobcomp *jc);
/* How many plugins are loaded. */
size_t jobcomp_count(const struct jobcomp *jc);
/* Do 'a' and 'b' have the same JobComp lines, setting for setting? */
bool jobcomp_conf_equal(const struct rota_conf *a, const struct rota_conf *b);

/*
 * Take the core's newly ended jobs, hand each one's record to every
 * plugin, flush them, and mark the jobs recorded in the core.  A plugin's
 * failure is logged and leaves the job unmarked (offered again at the next
 * start).  With no plugins the ids are dropped.  Event loop only.
 */
struct ctld;
void jobcomp_hand_over(struct ctld *ctld);

#endif
