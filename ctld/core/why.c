// SPDX-License-Identifier: MIT
/*
 * rota why, the core's half (core.h, core_why): why a pending job waits,
 * from what the last passes left (its reason, the jobs ahead of it, their
 * backfill reservations), and a what-if that changes nothing: the longest
 * time limit, and the most tasks, with which the job would start now.
 *
 * The what-if rebuilds the availability profile a backfill pass starts
 * from (running jobs to their limits, advance reservations as blocks),
 * adds the reservations that the jobs ahead of it hold, on the nodes the
 * pass found (estimate.c), and asks the placement whether the job fits
 * now over a span.  Fitting is monotone in the span and in the tasks
 * (a shorter or smaller job fits wherever a longer or larger one does),
 * so a bisection finds each answer to the second and to the task, and a
 * job submitted with them starts at the next pass without delaying any
 * of those reservations: the pass runs the same placement on the same
 * profile.  The answer is as fresh as the last pass's reservations.
 *
 * Whatever the sched plugin, an ordinary job waiting for Resources that
 * does not fit now but would if the cores kept for test queues
 * (ReservedCores) were its own is told so: those cores, not the other
 * jobs, are what it waits for.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "ctld/core/core_internal.h"
#include "ctld/core/profile.h"

#define WHY_MIN_LIMIT 60		/* a shorter hint helps nobody */
#define WHY_UNLIMITED (366 * 86400)	/* the span bisected for no limit */

/* The pass's starting profile plus the reservations of the jobs ahead. */
static struct profile *why_profile(struct core *core, int64_t now,
				   const struct core_job *job)
{
	struct profile *p = profile_renew(NULL, core, now);

	for (const struct core_job *j = core->pending.head; j && j != job;
	     j = j->next) {
		for (uint32_t i = 0; j->est_start && i < j->nest; i++) {
			uint32_t c = place_alloc_cores(core, j, j->est_node[i],
						       j->est_tasks[i]);

			profile_take(p, j->est_node[i], j->est_start,
				     j->time_limit,
				     core->queues[j->queue].reserved_cores > 0,
				     c, core_job_node_mem(j, c),
				     job_node_gpus(j, j->est_tasks[i]));
		}
	}
	return p;
}

struct what_if {
	struct core *core;
	const struct profile *prof;
	int64_t now;
	struct placement pl;
};

/* Would 'job' start now with a limit of 'd' (0: unlimited)? */
static bool fits(struct what_if *w, const struct core_job *job, int64_t d)
{
	struct place_ctx c = {
		.core = w->core,
		.mode = PLACE_PROFILE,
		.prof = w->prof,
		.t = w->now,
		.d = d,
	};

	return place_job(&c, job, &w->pl);
}

/* The longest limit in [WHY_MIN_LIMIT, the job's) that fits; 0: none. */
static int64_t longest_limit(struct what_if *w, const struct core_job *job)
{
	int64_t lo = WHY_MIN_LIMIT;
	int64_t hi = job->time_limit ? job->time_limit : WHY_UNLIMITED;

	if (hi <= lo || !fits(w, job, lo))
		return 0;
	/* lo fits, hi does not */
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;

		if (fits(w, job, mid))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The most tasks, below the job's, that fit for its limit; 0: none. */
static uint32_t most_tasks(struct what_if *w, const struct core_job *job)
{
	struct core_job fewer = *job; /* read by the placement only */
	uint32_t lo = 0, hi = job->desc.ntasks; /* a range's minimum */

	fewer.desc.ntasks_max = 0; /* exactly 'mid' tasks each time */

	/* its --nodes must still hold a task each */
	if (job->desc.nodes > 1 || job->desc.exclusive)
		return 0;
	/* lo fits (none trivially), hi does not */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		fewer.desc.ntasks = mid;
		if (fits(w, &fewer, job->time_limit))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static void what_if(struct core *core, int64_t now, struct core_why *out)
{
	const struct core_job *job = out->job;
	struct what_if w = { .core = core, .now = now };
	struct profile *p = why_profile(core, now, job);

	w.prof = p;
	placement_init(core, &w.pl);
	out->fits_now = fits(&w, job, job->time_limit);
	if (!out->fits_now) {
		out->fit_limit = longest_limit(&w, job);
		out->fit_tasks = most_tasks(&w, job);
	}
	placement_fini(core, &w.pl);
	profile_destroy(p);
}

/*
 * Does the ordinary 'job' fit now only with the kept cores?  Then the
 * first node of that placement keeping some: how many, which queues.
 */
static void kept_cores(struct core *core, int64_t now, struct core_why *out)
{
	const struct core_job *job = out->job;
	struct place_ctx c = { .core = core, .mode = PLACE_NOW, .t = now };
	struct placement pl;

	if (core->queues[job->queue].reserved_cores)
		return; /* a test queue's job has them already */
	placement_init(core, &pl);
	if (!place_job(&c, job, &pl)) {
		c.kept = true;
		if (!place_job(&c, job, &pl))
			pl.n = 0;
		for (uint32_t i = 0; i < pl.n && !out->kept; i++) {
			const struct core_node *n = &core->nodes[pl.node[i]];

			if (n->test_reserved <= n->test_used)
				continue;
			out->kept = n->test_reserved - n->test_used;
			out->kept_node = n->name;
			node_kept_queues(core, pl.node[i], out->kept_queues,
					 sizeof(out->kept_queues));
		}
	}
	placement_fini(core, &pl);
}

/* Count and name what stands before the job in the pending order. */
static void ahead(const struct core *core, struct core_why *out)
{
	const struct core_job *job = out->job;

	for (const struct core_job *j = core->pending.head; j && j != job;
	     j = j->next) {
		if (j->est_start) {
			if (out->nresv < CORE_WHY_AHEAD_MAX)
				out->resv[out->nresv] = j;
			out->nresv++;
		}
		/* a reservation's job never holds up its queue */
		if (j->queue != job->queue || j->hold || j->dep_wait ||
		    j->limited || j->desc.reservation)
			continue;
		out->nahead++;
		if (!out->first)
			out->first = j;
	}
}

int core_why(struct core *core, int64_t now, uint32_t job_id, uid_t uid,
	     bool is_operator, struct core_why *out, struct rota_error *err)
{
	struct core_job *job;
	int rc = core_job_access(core, job_id, uid, is_operator, &job, err);

	memset(out, 0, sizeof(*out));
	if (rc < 0)
		return rc;
	out->job = job;
	out->reason = core_job_reason(core, job);
	out->sched = core_sched_plugin(core);
	if (job->state != ROTA_JOB_PENDING)
		return 0;
	core_job_dep_waits_for(core, job, &out->dep);
	ahead(core, out);
	if (job->limited && job->limit_detail && job->limit_detail[0] &&
	    out->reason) {
		/* "QOSMaxGRESPerUser (6 + 4 > 8): user 'ana' holds ..." */
		snprintf(out->limit_text, sizeof(out->limit_text), "%s: %s",
			 out->reason, job->limit_detail);
		out->reason = out->limit_text;
	}
	if (job->hold || job->dep_wait || job->limited || job->fence_node ||
	    job->desc.reservation)
		return 0;
	/* behind its queue's first job, the kept cores are not its reason */
	if (out->reason && !strcmp(out->reason, "Resources"))
		kept_cores(core, now, out);
	if (!strcmp(out->sched, "builtin"))
		return 0;
	what_if(core, now, out);
	return 0;
}
