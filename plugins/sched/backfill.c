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
 * of work (bf_max_time, on the host's work clock); 0 means no cap.
 * Window (bf_window, 1 day) bounds how far ahead a reservation may lie
 * and Resolution (bf_resolution, 60 s) rounds its candidate times.
 * NoCaps=yes lifts the caps and the window, for a pass that sees every
 * job and reserves however far ahead, as the literature's EASY does;
 * Resolution stays, a precision rather than a cap (1s for the textbook).
 *
 * Each job a backfilled one passed over has its bypass count raised by
 * one per such job (Maui's BYPASS factor): counted lazily, one addition
 * per waiting job at the end of the pass, not one per pair.
 *
 * An EASY pass that has made its reservations only tries to start the
 * jobs after them, so it ends as soon as every job left asks for more
 * cores than the host says are free: in a full machine, right after the
 * reservation.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/rota_plugin.h"

enum bf_mode { BF_EASY, BF_CONSERVATIVE };

/* NoCaps' window: any start at all (34,000 years; now + it fits int64) */
#define BF_NO_WINDOW ((int64_t)1 << 40)

/* A job tried and left waiting, with the starts made before it. */
struct bf_wait {
	size_t i;
	uint32_t since;
};

struct bf_state {
	struct bf_wait *waits;	/* the last pass's array, for reuse */
	size_t waits_cap;
	uint32_t *least;	/* per job i: the fewest cores an eligible job
				   from i on asks for; kept for reuse */
	size_t least_cap;
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
	unsigned order;		/* BF_ORDER_*: the jobs after the reserved */
	size_t *tail;		/* Order=shortest's, kept for reuse */
	size_t tail_cap;
};

enum bf_order { BF_ORDER_PRIORITY, BF_ORDER_SHORTEST };

/* Per-pass counters, by user and queue: small open hash tables. */
struct bf_count {
	const char *key;
	uint32_t n;
};

/*
 * One pass's work, sized by the jobs it tries, not by all pending jobs:
 * a pass that stops early or starts nothing costs little.  The arrays
 * live in the plugin's state from pass to pass.
 */
struct bf_pass {
	const struct bf_state *st;
	const struct rota_sched_host *h;
	struct bf_wait *waits;
	size_t nwaits;
	size_t waits_cap;
	struct bf_count *users;	/* only with MaxJobUser */
	size_t nusers;
	uint32_t *per_queue;	/* only with MaxJobPart */
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
	if (p->users && *user_count(p, j->user) >= st->max_job_user)
		return true;
	return p->per_queue && j->queue_index < p->nqueues &&
	       p->per_queue[j->queue_index] >= st->max_job_part;
}

static void count(struct bf_pass *p, const struct rota_sched_job *j)
{
	if (p->users)
		(*user_count(p, j->user))++;
	if (p->per_queue && j->queue_index < p->nqueues)
		p->per_queue[j->queue_index]++;
}

static int wait_add(struct bf_pass *p, size_t i)
{
	if (p->nwaits == p->waits_cap) {
		size_t cap = p->waits_cap ? 2 * p->waits_cap : 64;
		struct bf_wait *w = realloc(p->waits, cap * sizeof(*w));

		if (!w)
			return -ENOMEM;
		p->waits = w;
		p->waits_cap = cap;
	}
	p->waits[p->nwaits++] = (struct bf_wait){ i, p->starts };
	return 0;
}

static int try_job(struct bf_pass *p, size_t i,
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
		return 0;
	}
	if (wait_add(p, i) < 0)
		return -ENOMEM;
	if (st->mode == BF_EASY && stats->reserved >= st->depth)
		return 0;
	if (h->reserve(h->pass, i, st->no_caps ? BF_NO_WINDOW : st->window,
		       st->resolution, &when) == 0)
		stats->reserved++;
	return 0;
}

/* The per-user and per-queue tables, if a cap needs them. */
static int pass_tables(struct bf_pass *p, const struct rota_sched_host *h)
{
	const struct bf_state *st = p->st;
	size_t most = h->njobs;
	uint32_t maxq = 0;

	if (st->no_caps)
		return 0;
	if (st->max_job_test && st->max_job_test < (double)most)
		most = (size_t)st->max_job_test;
	if (st->max_job_user) {
		for (p->nusers = 64; p->nusers < 2 * most + 2; p->nusers *= 2)
			;
		p->users = calloc(p->nusers, sizeof(*p->users));
		if (!p->users)
			return -ENOMEM;
	}
	if (st->max_job_part) {
		for (size_t i = 0; i < h->njobs; i++)
			maxq = h->jobs[i].queue_index > maxq
				       ? h->jobs[i].queue_index
				       : maxq;
		p->nqueues = (size_t)maxq + 1;
		p->per_queue = calloc(p->nqueues, sizeof(*p->per_queue));
		if (!p->per_queue)
			return -ENOMEM;
	}
	return 0;
}

/* st->least for this pass's jobs. */
static int least_fill(struct bf_state *st, const struct rota_sched_host *h)
{
	uint32_t least = UINT32_MAX;

	if (h->njobs + 1 > st->least_cap) {
		uint32_t *l = realloc(st->least, (h->njobs + 1) * sizeof(*l));

		if (!l)
			return -ENOMEM;
		st->least = l;
		st->least_cap = h->njobs + 1;
	}
	for (size_t i = h->njobs; i-- > 0;) {
		if (h->jobs[i].eligible && h->jobs[i].cores < least)
			least = h->jobs[i].cores;
		st->least[i] = least;
	}
	return 0;
}

/* EASY, reservations made: can none of the jobs from i on start now? */
static bool none_can_start(const struct bf_pass *p, size_t i,
			   const struct rota_sched_stats *stats)
{
	const struct bf_state *st = p->st;
	const struct rota_sched_host *h = p->h;

	return st->mode == BF_EASY && stats->reserved >= st->depth &&
	       h->free_cores && h->free_cores(h->pass) < st->least[i];
}

/* Shortest limit first, no limit last; ties in scheduling order. */
static int by_limit(const void *a, const void *b, void *arg)
{
	const struct rota_sched_job *jobs = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	uint64_t li = (uint64_t)jobs[i].time_limit - 1;
	uint64_t lj = (uint64_t)jobs[j].time_limit - 1; /* 0: largest */

	if (li != lj)
		return li < lj ? -1 : 1;
	return i < j ? -1 : i > j;
}

/*
 * Order=shortest (EASY-SJBF, Tsafrir, Etzion and Feitelson): once the
 * reservations are made, the jobs after 'from' are tried shortest limit
 * first rather than in scheduling order.
 */
static int try_shortest(struct bf_pass *p, size_t from,
			struct rota_sched_stats *stats, bool *stop)
{
	struct bf_state *st = (struct bf_state *)p->st;
	const struct rota_sched_host *h = p->h;
	size_t n = 0;
	int rc = 0;

	if (h->njobs - from > st->tail_cap) {
		size_t *t = realloc(st->tail, (h->njobs - from) * sizeof(*t));

		if (!t)
			return -ENOMEM;
		st->tail = t;
		st->tail_cap = h->njobs - from;
	}
	for (size_t i = from; i < h->njobs; i++)
		if (h->jobs[i].eligible)
			st->tail[n++] = i;
	if (n > 1) /* st->tail is NULL while no pass had a job left */
		qsort_r(st->tail, n, sizeof(*st->tail), by_limit,
			(void *)h->jobs);
	for (size_t k = 0; k < n && !*stop && rc == 0; k++) {
		size_t i = st->tail[k];

		/* least[from] bounds every job left, whatever the order */
		if (none_can_start(p, from, stats))
			break;
		if (capped(p, &h->jobs[i], stats, stop)) {
			stats->capped = true;
			continue;
		}
		rc = try_job(p, i, stats);
	}
	stats->depth = (uint32_t)h->njobs;
	return rc;
}

static int bf_backfill(void *state, const struct rota_sched_host *h,
		       struct rota_sched_stats *stats)
{
	struct bf_state *st = state;
	struct bf_pass p = { .st = st, .h = h, .waits = st->waits,
			     .waits_cap = st->waits_cap };
	int rc = pass_tables(&p, h);
	bool stop = false;

	*stats = (struct rota_sched_stats){ 0 };
	if (rc == 0)
		rc = least_fill(st, h);
	for (size_t i = 0; i < h->njobs && !stop && rc == 0; i++) {
		if (!h->jobs[i].eligible)
			continue;
		if (none_can_start(&p, i, stats))
			break;
		if (capped(&p, &h->jobs[i], stats, &stop)) {
			stats->capped = true;
			continue;
		}
		rc = try_job(&p, i, stats);
		stats->depth = (uint32_t)i + 1;
		if (st->order == BF_ORDER_SHORTEST && st->mode == BF_EASY &&
		    stats->reserved >= st->depth && rc == 0) {
			rc = try_shortest(&p, i + 1, stats, &stop);
			break;
		}
	}
	/* each waiting job passed over by the starts made after it */
	for (size_t k = 0; k < p.nwaits && rc == 0; k++) {
		if (p.starts > p.waits[k].since)
			h->bypass(h->pass, p.waits[k].i,
				  p.starts - p.waits[k].since);
	}
	st->waits = p.waits;
	st->waits_cap = p.waits_cap;
	free(p.users);
	free(p.per_queue);
	return rc;
}

static int64_t bf_interval(void *state)
{
	return ((const struct bf_state *)state)->interval;
}

static void bf_describe(void *state, char *buf, size_t len)
{
	const struct bf_state *st = state;
	const char *mode = st->mode == BF_CONSERVATIVE ? "conservative"
			   : st->order == BF_ORDER_SHORTEST ? "easy-sjbf"
							     : "easy";

	if (st->no_caps)
		snprintf(buf, len, "%s, no caps", mode);
	else
		snprintf(buf, len,
			 "%s, depth %g, window %llds, max job test %g, "
			 "max time %llds",
			 mode, st->depth, (long long)st->window, st->max_job_test,
			 (long long)st->max_time);
}

static int bf_init(const struct rota_host *host,
		   const struct rota_plugin_conf *conf, void **state,
		   char *err, size_t errlen)
{
	static const char *const modes[] = { "easy", "conservative", NULL };
	static const char *const orders[] = { "priority", "shortest", NULL };
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
	if (!rc)
		rc = host->conf_choice(conf, "Order", orders, &st->order, err,
				       errlen);
	if (rc < 0) {
		free(st);
		return rc;
	}
	*state = st;
	return 0;
}

static void bf_fini(void *state)
{
	struct bf_state *st = state;

	if (st) {
		free(st->waits);
		free(st->least);
		free(st->tail);
	}
	free(st);
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
