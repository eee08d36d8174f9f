// SPDX-License-Identifier: MIT
/*
 * The host side of backfill (core.h, "Backfill"): the sched plugin
 * decides which jobs to try and which get reservations; this file keeps
 * the availability profile those decisions run against, starts jobs and
 * places reservations in it.
 *
 * Earliest start: for a job that fits on one node, each candidate node's
 * own earliest time (one walk of its few steps) and the earliest of all;
 * for a job that needs several nodes, the candidate times are now and
 * every time a node of its queue gains cores, in order, rounded up to
 * a multiple of the pass's resolution, and the first at which the
 * placement fits over the whole span wins.
 *
 * Licenses are planned with the rest: a job starts now only if no
 * reserved job is kept its licenses over its limit, and a job's
 * reservation waits for its licenses as for its nodes (profile.c).
 *
 * A job of an advance reservation is placed on its reservation's cores by
 * what is free now (the profile holds those cores as a block against the
 * other jobs) and gets no backfill reservation: it waits for its own.
 *
 * A pass that started nothing is not run again until something changes
 * (core_mark_changed()), unless its answer could change with time alone.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/core/constraint.h"
#include "ctld/core/core_internal.h"
#include "ctld/core/plugin_host.h"
#include "ctld/core/profile.h"
#include "ctld/core/resv.h"
#include "ctld/core/shapes.h"

#define MULTI_TIMES_MAX 16 /* candidate times tried for a wide job */

struct rota_sched_pass {
	struct core *core;
	int64_t now;
	struct profile *prof;
	struct core_job **jobs;	/* the pending jobs, as the plugin's view */
	struct placement pl;
	int64_t start_us;
	size_t idle;		/* idle jobs not yet started, for limits */
	/*
	 * Upper bounds of what is free now, kept as jobs start: most tries
	 * in a full machine fail on these without looking at a node.
	 */
	uint64_t free_total;	/* cores on usable nodes */
	uint32_t free_max;	/* on the freest node: exact, from... */
	uint32_t *free_count;	/* ...nodes by their free cores now */
	uint64_t gpus_free;	/* GPUs free now on usable nodes with a free
				   core, any type: what a GPU job may get */
	/*
	 * Each node's share of the bounds above: its free cores and GPUs,
	 * less what a reservation holds from now to the end of the
	 * shortest pending job's limit ('shortest', 0: none).  Cores free
	 * now but reserved sooner than any job could end are no use to
	 * this pass; left in, they kept an EASY pass from seeing that
	 * nothing more can start (none_can_start in sched/backfill).
	 */
	uint32_t *node_cores;
	uint32_t *node_gpus;
	int64_t shortest;
	/*
	 * The nodes by their bounds, GPUs and cores together, when any has
	 * GPUs: a job of G GPUs and C cores a node fits now only if some
	 * node has both, and once GPU nodes' cores are taken, most GPU jobs
	 * fail on this without a walk over every node.
	 */
	uint32_t gpus_most;	/* the most GPUs of any node, 0: none */
	uint32_t cores_most;	/* the most cores of any node */
	uint32_t *by_gpus;	/* [g * (cores_most + 1) + c]: nodes */
	uint32_t *by_gpus_max;	/* [g]: most cores of a node of g GPUs */
	struct shapes *no_fit;	/* what failed to fit now */
	const struct core_job *nofit; /* the last job found to fit nowhere now */
	struct shapes *no_resv;	/* what found no start within the window */
	/*
	 * The pass's answer may change with time alone (core_internal.h,
	 * bf_settled): a limit refused a start, a reservation fell outside
	 * the window or at 'now' itself, a job ran past its limit.
	 * Otherwise, with nothing changed, a later pass starts nothing
	 * either: the profile's steps are the same absolute times, and a
	 * window that opens later only meets more of them.
	 */
	bool timed;
};

/*
 * Up to a multiple of 'res' on the clock, not from 'now': a later pass
 * then finds the same candidate times (see 'timed').
 */
static int64_t round_up(int64_t t, int64_t res)
{
	int64_t r;

	if (res <= 1)
		return t;
	r = t % res;
	return r ? t + (r > 0 ? res - r : -r) : t;
}

/*
 * Take the placement's nodes in the profile over [t, t + d).  A job of an
 * open reservation runs on cores the profile already holds for it until
 * the reservation ends: only its memory counts before then.
 */
static void take(struct rota_sched_pass *bp, const struct core_job *job,
		 int64_t t)
{
	const struct core_resv *r =
		job->desc.reservation
			? core_resv_find(bp->core, job->desc.reservation)
			: NULL;
	int64_t held = r && r->active && r->end > t ? r->end : t;
	int64_t end = job->time_limit ? t + job->time_limit : NEVER;
	bool test = bp->core->queues[job->queue].reserved_cores > 0;

	/* a reservation's licenses are a block of the profile already */
	if (!r || !r->nlics)
		profile_lics_take(bp->prof, job, t, job->time_limit);
	for (uint32_t i = 0; i < bp->pl.n; i++) {
		uint32_t node = bp->pl.node[i];

		profile_gres_take(bp->prof, node, job, t, job->time_limit);
	}
	for (uint32_t i = 0; i < bp->pl.n; i++) {
		uint32_t node = bp->pl.node[i];
		uint32_t cores = place_alloc_cores(bp->core, job, node,
						   bp->pl.tasks[i]);
		uint64_t mem = core_job_node_mem(job, cores);
		uint32_t gpus = job_node_gpus(job, bp->pl.tasks[i]);

		if (held == t) {
			profile_take(bp->prof, node, t, job->time_limit, test,
				     cores, mem, gpus);
			continue;
		}
		profile_take(bp->prof, node, t, job->time_limit, test, 0, mem,
			     gpus);
		if (end > held)
			profile_take(bp->prof, node, held,
				     job->time_limit ? end - held : 0, test,
				     cores, 0, 0);
	}
}

/* Could the job fit now at all, by the pass's upper bounds? */
static bool may_fit_now(const struct rota_sched_pass *bp,
			const struct core_job *job)
{
	uint32_t cores = job->desc.ntasks * job->desc.cpus_per_task;
	uint32_t nodes = job->desc.nodes;
	uint32_t per_node = nodes ? (job->desc.ntasks + nodes - 1) / nodes *
					    job->desc.cpus_per_task
				  : job->desc.cpus_per_task;

	/* a node's or a task's GPUs at least, of any type */
	uint32_t gpus = job->desc.gpus_per_node ? job->desc.gpus_per_node
						: job->desc.gpus_per_task;

	if (cores > bp->free_total || per_node > bp->free_max ||
	    gpus > bp->gpus_free)
		return false;
	if (!gpus)
		return true;
	for (uint32_t g = gpus; g <= bp->gpus_most; g++)
		if (bp->by_gpus_max[g] >= per_node)
			return true;
	return false;
}

static uint32_t node_free(const struct core_node *n)
{
	return node_is_usable(n) ? node_cores_free(n) : 0;
}

/*
 * What any pending job could still get on node 'n' now: its free cores
 * and GPUs, but only what stays free for the shortest job's limit (a
 * reservation may hold them sooner); no GPUs where no core is free (a
 * machine whose GPU nodes' cores are taken fails GPU jobs at once).
 */
static void node_bound(const struct rota_sched_pass *bp, uint32_t n,
		       uint32_t *cores, uint32_t *gpus)
{
	const struct core_node *node = &bp->core->nodes[n];
	int32_t c = 0, g = 0;
	int64_t m;

	*cores = node_free(node);
	*gpus = *cores ? node->ngpus - node->gpus_used : 0;
	if (!*cores || !bp->node_cores) /* the pass's start: no profile yet */
		return;
	profile_min_free(bp->prof, n, bp->now, bp->shortest, true, &c, &m,
			 &g);
	if (c <= 0 || g < 0)
		c = g = 0;
	*cores = (uint32_t)c < *cores ? (uint32_t)c : *cores;
	*gpus = !*cores ? 0 : (uint32_t)g < *gpus ? (uint32_t)g : *gpus;
}

/* Node 'n' enters ('add') or leaves the index by GPUs and cores. */
static void by_gpus_count(struct rota_sched_pass *bp, uint32_t n, bool add)
{
	uint32_t g = bp->node_gpus[n], c = bp->node_cores[n];
	uint32_t *count = &bp->by_gpus[g * (bp->cores_most + 1)];

	if (!bp->gpus_most)
		return;
	if (add) {
		count[c]++;
		if (c > bp->by_gpus_max[g])
			bp->by_gpus_max[g] = c;
		return;
	}
	count[c]--;
	while (bp->by_gpus_max[g] && !count[bp->by_gpus_max[g]])
		bp->by_gpus_max[g]--;
}

static void free_bounds(struct rota_sched_pass *bp)
{
	size_t nn = bp->core->nnodes;
	uint32_t *cores = rota_xcalloc(nn + 1, sizeof(uint32_t));
	uint32_t *gpus = rota_xcalloc(nn + 1, sizeof(uint32_t));
	uint32_t most = 0;

	for (size_t i = 0; i < nn; i++)
		most = node_cores_total(&bp->core->nodes[i]) > most
			       ? node_cores_total(&bp->core->nodes[i])
			       : most;
	bp->free_count = rota_xcalloc((size_t)most + 2, sizeof(uint32_t));
	for (size_t i = 0; i < nn; i++) {
		node_bound(bp, (uint32_t)i, &cores[i], &gpus[i]);
		cores[i] = cores[i] > most ? most : cores[i];
		bp->free_total += cores[i];
		bp->gpus_free += gpus[i];
		bp->free_count[cores[i]]++;
		bp->free_max = cores[i] > bp->free_max ? cores[i]
						       : bp->free_max;
	}
	bp->node_cores = cores;
	bp->node_gpus = gpus;
	for (size_t i = 0; i < nn; i++)
		bp->gpus_most = gpus[i] > bp->gpus_most ? gpus[i]
							: bp->gpus_most;
	if (!bp->gpus_most)
		return;
	bp->cores_most = most;
	bp->by_gpus = rota_xcalloc(((size_t)bp->gpus_most + 1) * (most + 1),
				   sizeof(uint32_t));
	bp->by_gpus_max = rota_xcalloc((size_t)bp->gpus_most + 1,
				       sizeof(uint32_t));
	for (size_t i = 0; i < nn; i++)
		by_gpus_count(bp, (uint32_t)i, true);
}

/*
 * The placement's nodes changed (a start, a reservation): their new
 * bounds, which only ever shrink within a pass.
 */
static void free_update(struct rota_sched_pass *bp)
{
	for (uint32_t i = 0; i < bp->pl.n; i++) {
		uint32_t n = bp->pl.node[i];
		uint32_t c, g;

		node_bound(bp, n, &c, &g);
		c = c < bp->node_cores[n] ? c : bp->node_cores[n];
		g = g < bp->node_gpus[n] ? g : bp->node_gpus[n];
		bp->free_count[bp->node_cores[n]]--;
		bp->free_count[c]++;
		bp->free_total -= bp->node_cores[n] - c;
		bp->gpus_free -= bp->node_gpus[n] - g;
		by_gpus_count(bp, n, false);
		bp->node_cores[n] = c;
		bp->node_gpus[n] = g;
		by_gpus_count(bp, n, true);
	}
	while (bp->free_max && !bp->free_count[bp->free_max])
		bp->free_max--;
}

static int host_start(struct rota_sched_pass *bp, size_t i)
{
	struct core_job *job = bp->jobs[i];
	struct place_ctx c = {
		.core = bp->core,
		.mode = PLACE_PROFILE,
		.prof = bp->prof,
		.t = bp->now,
		.d = job->time_limit,
		.cores_bound = bp->node_cores,
		.gpus_bound = bp->node_gpus,
	};

	/* a plugin's choice never starts a held, limited or fenced job */
	if (job->state != ROTA_JOB_PENDING || !sched_eligible(bp->core, job) ||
	    !licenses_free(bp->core, job, bp->now))
		return 0;
	if (job->desc.reservation) {
		c.mode = PLACE_NOW; /* its reservation's cores, free now */
		c.cores_bound = c.gpus_bound = NULL; /* the profile holds them */
		if (resv_job_reason(bp->core, job) ||
		    !place_job(&c, job, &bp->pl))
			return 0;
	} else if (!may_fit_now(bp, job) || shapes_cover(bp->no_fit, job)) {
		bp->nofit = job;
		return 0;
	} else if (!place_job(&c, job, &bp->pl)) {
		shapes_add(bp->no_fit, job);
		bp->nofit = job;
		return 0;
	}
	/* nor one that would hold a license a reserved job is kept */
	if (!job->desc.reservation &&
	    !profile_lics_fit(bp->prof, job, bp->now, job->time_limit))
		return 0;
	if (!sched_may_start(bp->core, bp->now, job, bp->idle > 1, &c,
			     &bp->pl)) {
		bp->timed = true; /* its limit may ease with time */
		return 0;
	}
	take(bp, job, bp->now);
	sched_start(bp->core, job, bp->now, &bp->pl);
	free_update(bp);
	bp->idle--;
	return 1;
}

/* Earliest start of a one-node job on node 'n' (a candidate), or NEVER. */
static int64_t node_earliest(struct rota_sched_pass *bp,
			     const struct core_job *job, uint32_t n,
			     int64_t until)
{
	const struct core_node *node = &bp->core->nodes[n];
	uint32_t need = job->desc.exclusive
				? node_cores_total(node)
				: job->desc.ntasks * job->desc.cpus_per_task;
	/* an ordinary job's count leaves the test queues' kept cores out;
	   an exclusive one waits for the idle node, kept cores and all */
	bool test = job->desc.exclusive ||
		    bp->core->queues[job->queue].reserved_cores > 0;
	uint32_t gpus = job_node_gpus(job, job->desc.ntasks);

	if (!node_is_usable(node))
		return NEVER;
	if (gpus > node_gpus_count(node, job->desc.gpu_type, false))
		return NEVER; /* not of its type, or too few ever */
	return profile_earliest(bp->prof, n, test, (int32_t)need,
				(int64_t)core_job_node_mem(job, need),
				(int32_t)gpus, job->time_limit, until);
}

/*
 * A one-node job's earliest start over all its queue's nodes (exact
 * times: one walk of each node's steps), the smallest node on a tie.
 */
static int64_t one_node(struct rota_sched_pass *bp, const struct core_job *job,
			int64_t until)
{
	const struct core_queue *q = &bp->core->queues[job->queue];
	struct place_ctx total = { .core = bp->core, .mode = PLACE_TOTAL };
	int64_t best = NEVER;
	uint32_t node = UINT32_MAX;

	/* fitting nowhere now, it starts on a node when that gains cores */
	bool later = bp->nofit == job;
	uint32_t cores = job->desc.exclusive
				 ? 0
				 : job->desc.ntasks * job->desc.cpus_per_task;

	for (size_t k = 0; k < q->nnodes && best > bp->now; k++) {
		int64_t t;

		/* cannot beat the best so far: no walk of its steps */
		if (later &&
		    profile_gain_bound(bp->prof, q->nodes[k], cores) >=
			    (best <= until ? best : until + 1))
			continue;
		/* a node too small even when idle is no candidate */
		if (!place_node_fits(&total, job, q->nodes[k]))
			continue;
		t = node_earliest(bp, job, q->nodes[k], best < until ? best
								     : until);
		if (t < best) {
			best = t;
			node = q->nodes[k];
		}
	}
	if (best == NEVER)
		return NEVER;
	bp->pl.n = 1;
	bp->pl.node[0] = node;
	bp->pl.tasks[0] = job->desc.ntasks;
	return best;
}

/* The first candidate time from 'from' at which the job's placement fits. */
static int64_t many_nodes(struct rota_sched_pass *bp,
			  const struct core_job *job, int64_t until,
			  int64_t res, int64_t from)
{
	const struct core_queue *q = &bp->core->queues[job->queue];
	struct place_ctx c = {
		.core = bp->core,
		.mode = PLACE_PROFILE,
		.prof = bp->prof,
		.d = job->time_limit,
	};
	size_t tried = 0;
	int64_t found = NEVER, t = from;

	/* the next time any node gains cores, each in turn: a sweep */
	while (t <= until && tried++ < MULTI_TIMES_MAX) {
		int64_t next = NEVER;

		c.t = t;
		if (place_job(&c, job, &bp->pl)) {
			found = t;
			break;
		}
		for (size_t k = 0; k < q->nnodes; k++) {
			int64_t g = profile_next_change(bp->prof, q->nodes[k],
							t);

			next = g < next ? g : next;
		}
		if (next == NEVER)
			break;
		t = round_up(next, res);
	}
	return found;
}

/*
 * A range job (-n MIN-MAX) reserved at 't', the earliest its minimum
 * fits: the most tasks that fit then, as Grid Engine's reservation of a
 * PE range job takes the earliest start and, at it, the most slots
 * (bench/oracle/out-pe: -pe mpi 2-6 reserves 3 slots of a 3-slot
 * queue).  NEVER if they do not (one_node()'s minimum fits there, so
 * only a placement rule the profile check does not share could say no).
 */
static int64_t range_at(struct rota_sched_pass *bp, const struct core_job *job,
			int64_t t)
{
	struct place_ctx c = {
		.core = bp->core,
		.mode = PLACE_PROFILE,
		.prof = bp->prof,
		.t = t,
		.d = job->time_limit,
	};

	return place_job(&c, job, &bp->pl) ? t : NEVER;
}

/*
 * The start 't' found for the job's nodes, or a later one at which its
 * licenses are free for its whole limit too (the nodes placed again
 * from the licenses' time, in turns), NEVER past 'until'.
 */
static int64_t with_licenses(struct rota_sched_pass *bp,
			     const struct core_job *job, int64_t t,
			     int64_t until, int64_t res)
{
	for (size_t k = 0; k < MULTI_TIMES_MAX && t != NEVER; k++) {
		int64_t lt = profile_lics_earliest(bp->prof, job, t,
						   job->time_limit);

		if (lt == t)
			return t;
		if (lt == NEVER || lt > until)
			return NEVER;
		t = many_nodes(bp, job, until, res, lt);
	}
	return NEVER;
}

static int host_reserve(struct rota_sched_pass *bp, size_t i, int64_t window,
			int64_t resolution, int64_t *when)
{
	struct core_job *job = bp->jobs[i];
	int64_t until = bp->now + window;
	int64_t t;

	if (job->state != ROTA_JOB_PENDING || job->desc.reservation)
		return -ENOSPC;
	if (shapes_cover(bp->no_resv, job)) {
		t = NEVER;
	} else {
		/* one node's walk counts no GresTypes: placement does */
		t = job->ngres ? NEVER : one_node(bp, job, until);
		if (t == NEVER && (job->desc.nodes != 1 || job->ngres))
			t = many_nodes(bp, job, until, resolution, bp->now);
		t = with_licenses(bp, job, t, until, resolution);
		if (t != NEVER && job->desc.ntasks_max)
			t = range_at(bp, job, t);
	}
	if (t == NEVER || t > until || t == bp->now) {
		bp->timed = true;
		if (t != bp->now) {
			shapes_add(bp->no_resv, job);
			est_forget(job);
			return -ENOSPC;
		}
	}
	take(bp, job, t);
	free_update(bp);
	/* the same start as the last pass: shown.c finds the row the same */
	changes_mark(bp->core, job);
	est_set(job, t, &bp->pl);
	*when = t;
	return 0;
}

static void host_bypass(struct rota_sched_pass *bp, size_t i, uint32_t n)
{
	bp->jobs[i]->bypass += n;
}

static uint64_t host_free_cores(struct rota_sched_pass *bp)
{
	return bp->free_total;
}

static int64_t host_elapsed(struct rota_sched_pass *bp)
{
	return bp->core->work_clock ? bp->core->work_clock() - bp->start_us
				    : 0;
}

int sched_init(struct core *core, const struct rota_conf *conf,
	       struct rota_error *err)
{
	return plugin_load(conf, ROTA_PLUGIN_SCHED, "builtin", NULL,
			   &core->sched, err);
}

void sched_fini(struct core *core)
{
	plugin_unload(core->sched);
	profile_destroy(core->bf_prof);
	free(core->bf_jobs);
	free(core->bf_view);
}

static const struct rota_sched_ops *sched_ops(const struct core *core)
{
	return plugin_ops(core->sched, sizeof(struct rota_sched_ops));
}

void sched_tick(struct core *core, int64_t now)
{
	const struct rota_sched_ops *ops = sched_ops(core);
	struct rota_sched_stats stats;
	int64_t every = ops->interval ? ops->interval(
						plugin_state(core->sched))
				      : 0;

	if (every > 0 && now - core->last_backfill >= every)
		core_backfill(core, now, &stats);
}

const struct core_sched_stats *core_sched_stats(const struct core *core)
{
	return &core->sched_stats;
}

bool core_main_settled(const struct core *core)
{
	return core->main_settled && !core->every_pass;
}

bool core_bf_settled(const struct core *core)
{
	return core->bf_settled && !core->every_pass;
}

const char *core_sched_plugin(const struct core *core)
{
	return plugin_name(core->sched);
}

void core_sched_describe(const struct core *core, char *buf, size_t len)
{
	buf[0] = '\0';
	if (sched_ops(core)->describe)
		sched_ops(core)->describe(plugin_state(core->sched), buf, len);
}

/* The pass's figures into the totals rota diag shows. */
static void account(struct core *core, const struct rota_sched_stats *st,
		    int64_t us)
{
	struct core_sched_stats *s = &core->sched_stats;

	s->bf_passes++;
	s->bf_started += st->started;
	s->bf_last_us = (uint64_t)us;
	s->bf_total_us += (uint64_t)us;
	s->bf_max_us = s->bf_last_us > s->bf_max_us ? s->bf_last_us
						    : s->bf_max_us;
	s->bf_depth = st->depth;
	s->bf_reserved = st->reserved;
}

int core_backfill(struct core *core, int64_t now,
		  struct rota_sched_stats *stats)
{
	const struct rota_sched_ops *ops = sched_ops(core);
	struct shapes no_fit, no_resv;
	struct rota_sched_pass bp = { .core = core, .now = now,
				      .no_fit = &no_fit, .no_resv = &no_resv };
	struct rota_sched_job *v;
	struct rota_sched_host h;
	size_t n = core->pending.n, i = 0;
	int rc;

	*stats = (struct rota_sched_stats){ 0 };
	resv_update(core, now);
	if (core->prio_stale)
		core_prio_update(core, now);
	limits_classify(core, now);
	core->last_backfill = now;
	shapes_init(&no_fit);
	shapes_init(&no_resv);
	if (core->bf_settled && !core->every_pass) {
		core->sched_stats.bf_skipped++;
		return 0;
	}
	core->bf_prof = bp.prof = profile_renew(core->bf_prof, core, now);
	bp.timed = profile_overdue(bp.prof);
	if (n + 1 > core->bf_cap) {
		core->bf_cap = 2 * n + 1;
		core->bf_jobs = rota_xreallocarray(core->bf_jobs, core->bf_cap,
						   sizeof(*core->bf_jobs));
		core->bf_view = rota_xreallocarray(core->bf_view, core->bf_cap,
						   sizeof(*core->bf_view));
	}
	bp.jobs = core->bf_jobs;
	v = core->bf_view;
	placement_init(core, &bp.pl);
	bp.start_us = core->work_clock ? core->work_clock() : 0;
	for (struct core_job *j = core->pending.head; j; j = j->next, i++) {
		bp.jobs[i] = j;
		if (j->est_start) /* set again below, or gone: rota top */
			changes_mark(core, j);
		est_forget(j);
		v[i] = (struct rota_sched_job){
			.id = j->id,
			.user = j->user,
			.queue = core->queues[j->queue].name,
			.queue_index = j->queue,
			.cores = j->desc.ntasks * j->desc.cpus_per_task,
			.time_limit = j->time_limit,
			/* one waiting for its reservation uses no budget */
			.eligible = sched_eligible(core, j),
		};
		bp.idle += v[i].eligible;
		if (j->time_limit && (!bp.shortest ||
				      j->time_limit < bp.shortest))
			bp.shortest = j->time_limit;
	}
	free_bounds(&bp);
	h = (struct rota_sched_host){
		.size = sizeof(h),
		.now = now,
		.jobs = v,
		.njobs = n,
		.pass = &bp,
		.start = host_start,
		.reserve = host_reserve,
		.bypass = host_bypass,
		.elapsed_us = host_elapsed,
		.free_cores = host_free_cores,
	};
	rc = ops->backfill(plugin_state(core->sched), &h, stats);
	if (rc < 0)
		rota_err("sched/%s: backfill pass failed (%d)",
			 plugin_name(core->sched), rc);
	account(core, stats, host_elapsed(&bp));
	/* a cap hit on the work clock may fall elsewhere next time */
	core->bf_settled = !stats->started && !bp.timed &&
			   !(stats->capped && core->work_clock);
	placement_fini(core, &bp.pl);
	free(bp.free_count);
	free(bp.node_cores);
	free(bp.node_gpus);
	free(bp.by_gpus);
	free(bp.by_gpus_max);
	return rc;
}
