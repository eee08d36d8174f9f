// SPDX-License-Identifier: MIT
/*
 * sched/backfill: EASY and conservative backfill over the host's
 * availability profile (Slurm's sched/backfill, Maui's BACKFILLPOLICY).
 *
 * Jobs are taken in scheduling order.  A job that fits now without
 * delaying any reservation starts (the host's profile guarantees the
 * "without delaying": a job started against it ends before, or beside,
 * every reserved span).  A job that does not fit gets a reservation at
 * its earliest start within the window: in EASY mode only the first
 * ReservationDepth such jobs (1: the classic EASY, reserving for the top
 * job), in conservative mode every job considered.  Later jobs may then
 * backfill only around those reservations.
 *
 * Caps, Slurm's: MaxJobTest jobs tried (bf_max_job_test), MaxJobUser per
 * user (bf_max_job_user), MaxJobPart per queue (bf_max_job_part), MaxTime
 * of work (bf_max_time, on the host's work clock); 0 means no cap, and
 * NoCaps=yes lifts them all for a pass that sees every job.  Window
 * (bf_window, 1 day) bounds how far ahead a reservation may lie and
 * Resolution (bf_resolution, 60 s) rounds its candidate times.
 *
 * Each job a backfilled one passed over has its bypass count raised by
 * one per such job (Maui's BYPASS factor): counted lazily, one addition
 * per waiting job at the end of the pass, not one per pair.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/rota_plugin.h"

enum bf_mode { BF_EASY, BF_CONSERVATIVE };

struct bf_state {
	unsigned mode;
	int64_t interval;
	int64_t window;
	int64_t resolution;
	double max_job_test;	/* 0: none */
	double max_job_user;
	double max_job_part;
	int64_t max_time;	/* seconds; 0: none */
	double depth;		/* EASY's ReservationDepth */
	bool no_caps;
};

/* Per-pass counters, by user and queue: small open hash tables. */
struct bf_count {
	const char *key;
	uint32_t n;
};

struct bf_pass {
	const struct bf_state *st;
	const struct rota_sched_host *h;
	uint32_t *waiting_since; /* per job: starts before it was passed */
	bool *waiting;
	struct bf_count *users;
	size_t nusers;
	uint32_t *per_queue;
	size_t nqueues;
	uint32_t starts;
};

static uint64_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3u;
	return h;
}

static uint32_t *user_count(struct bf_pass *p, const char *user)
{
	size_t i = hash(user) & (p->nusers - 1);

	while (p->users[i].key && strcmp(p->users[i].key, user) != 0)
		i = (i + 1) & (p->nusers - 1);
	p->users[i].key = user;
	return &p->users[i].n;
}

/* Has a cap been reached for job j?  'stop' says: for the whole pass. */
static bool capped(struct bf_pass *p, const struct rota_sched_job *j,
		   const struct rota_sched_stats *stats, bool *stop)
{
	const struct bf_state *st = p->st;

	*stop = false;
	if (st->no_caps)
		return false;
	if ((st->max_job_test && stats->tested >= st->max_job_test) ||
	    (st->max_time && p->h->elapsed_us(p->h->pass) >
				     st->max_time * 1000000)) {
		*stop = true;
		return true;
	}
	if (st->max_job_user && *user_count(p, j->user) >= st->max_job_user)
		return true;
	return st->max_job_part && j->queue_index < p->nqueues &&
	       p->per_queue[j->queue_index] >= st->max_job_part;
}

static void count(struct bf_pass *p, const struct rota_sched_job *j)
{
	(*user_count(p, j->user))++;
	if (j->queue_index < p->nqueues)
		p->per_queue[j->queue_index]++;
}

static void try_job(struct bf_pass *p, size_t i,
		    struct rota_sched_stats *stats)
{
	const struct bf_state *st = p->st;
	const struct rota_sched_host *h = p->h;
	int64_t when;

	stats->tested++;
	count(p, &h->jobs[i]);
	if (h->start(h->pass, i) == 1) {
		stats->started++;
		p->starts++;
		return;
	}
	p->waiting[i] = true;
	p->waiting_since[i] = p->starts;
	if (st->mode == BF_EASY && stats->reserved >= st->depth)
		return;
	if (h->reserve(h->pass, i, st->window, st->resolution, &when) == 0)
		stats->reserved++;
}

static int bf_backfill(void *state, const struct rota_sched_host *h,
		       struct rota_sched_stats *stats)
{
	struct bf_pass p = { .st = state, .h = h };
	size_t i;
	bool stop = false;
	uint32_t maxq = 0;

	*stats = (struct rota_sched_stats){ 0 };
	for (i = 0; i < h->njobs; i++)
		maxq = h->jobs[i].queue_index > maxq ? h->jobs[i].queue_index
						     : maxq;
	for (p.nusers = 64; p.nusers < 2 * h->njobs + 2; p.nusers *= 2)
		;
	p.nqueues = (size_t)maxq + 1;
	p.waiting = calloc(h->njobs + 1, sizeof(*p.waiting));
	p.waiting_since = calloc(h->njobs + 1, sizeof(*p.waiting_since));
	p.users = calloc(p.nusers, sizeof(*p.users));
	p.per_queue = calloc(p.nqueues, sizeof(*p.per_queue));
	if (!p.waiting || !p.waiting_since || !p.users || !p.per_queue) {
		free(p.waiting);
		free(p.waiting_since);
		free(p.users);
		free(p.per_queue);
		return -ENOMEM;
	}
	for (i = 0; i < h->njobs && !stop; i++) {
		if (!h->jobs[i].eligible)
			continue;
		if (capped(&p, &h->jobs[i], stats, &stop)) {
			stats->capped = true;
			continue;
		}
		try_job(&p, i, stats);
		stats->depth = (uint32_t)i + 1;
	}
	for (i = 0; i < h->njobs; i++) {
		if (p.waiting[i] && p.starts > p.waiting_since[i])
			h->bypass(h->pass, i, p.starts - p.waiting_since[i]);
	}
	free(p.waiting);
	free(p.waiting_since);
	free(p.users);
	free(p.per_queue);
	return 0;
}

static int64_t bf_interval(void *state)
{
	return ((const struct bf_state *)state)->interval;
}

static void bf_describe(void *state, char *buf, size_t len)
{
	const struct bf_state *st = state;

	if (st->no_caps)
		snprintf(buf, len, "%s, no caps",
			 st->mode == BF_EASY ? "easy" : "conservative");
	else
		snprintf(buf, len,
			 "%s, depth %g, window %llds, max job test %g, "
			 "max time %llds",
			 st->mode == BF_EASY ? "easy" : "conservative",
			 st->depth, (long long)st->window, st->max_job_test,
			 (long long)st->max_time);
}

static int bf_init(const struct rota_host *host,
		   const struct rota_plugin_conf *conf, void **state,
		   char *err, size_t errlen)
{
	static const char *const modes[] = { "easy", "conservative", NULL };
	struct bf_state *st = calloc(1, sizeof(*st));
	int rc = 0;

	if (!st)
		return -ENOMEM;
	*st = (struct bf_state){
		.interval = 30,
		.window = 86400,
		.resolution = 60,
		.max_job_test = 500,
		.depth = 1,
	};
	rc = host->conf_choice(conf, "Mode", modes, &st->mode, err, errlen);
	if (!rc)
		rc = host->conf_duration(conf, "Interval", 1, 86400,
					 &st->interval, err, errlen);
	if (!rc)
		rc = host->conf_duration(conf, "Window", 60, 366 * 86400,
					 &st->window, err, errlen);
	if (!rc)
		rc = host->conf_duration(conf, "Resolution", 1, 3600,
					 &st->resolution, err, errlen);
	if (!rc)
		rc = host->conf_double(conf, "MaxJobTest", 0, 1e9,
				       &st->max_job_test, err, errlen);
	if (!rc)
		rc = host->conf_double(conf, "MaxJobUser", 0, 1e9,
				       &st->max_job_user, err, errlen);
	if (!rc)
		rc = host->conf_double(conf, "MaxJobPart", 0, 1e9,
				       &st->max_job_part, err, errlen);
	st->max_time = st->interval; /* Slurm's bf_max_time default */
	if (!rc)
		rc = host->conf_duration(conf, "MaxTime", 0, 86400,
					 &st->max_time, err, errlen);
	if (!rc)
		rc = host->conf_double(conf, "ReservationDepth", 1, 1e9,
				       &st->depth, err, errlen);
	if (!rc)
		rc = host->conf_bool(conf, "NoCaps", &st->no_caps, err, errlen);
	if (rc < 0) {
		free(st);
		return rc;
	}
	*state = st;
	return 0;
}

static void bf_fini(void *state)
{
	free(state);
}

static const struct rota_sched_ops bf_ops = {
	.size = sizeof(bf_ops),
	.backfill = bf_backfill,
	.interval = bf_interval,
	.describe = bf_describe,
};

extern const struct rota_plugin ROTA_PLUGIN_EXPORT(sched, backfill);
const struct rota_plugin ROTA_PLUGIN_EXPORT(sched, backfill) = {
	.abi = ROTA_PLUGIN_ABI,
	.kind = ROTA_PLUGIN_SCHED,
	.name = "backfill",
	.init = bf_init,
	.fini = bf_fini,
	.ops = &bf_ops,
};
