// SPDX-License-Identifier: MIT
/*
 * The replay (sim.h, sim_run): the scheduling core of rota-ctld, its
 * plugins as the config names them, and an event loop on a virtual clock.
 *
 * The next event is the earliest of: the next submit, the next job end
 * (a heap), the next periodic tick and, with --dependencies, the next
 * release of a job that waited for its preceding job (deps.h).
 * rota-ctld ticks every second and the core acts only when a period is
 * due (priority re-rating and usage every PriorityCalcPeriod, a backfill
 * pass every backfill Interval, a main pass every SchedulerInterval), so
 * the loop visits exactly those grid points, counted from the trace's
 * start.  At each time: ends, then submits, then a main pass
 * (core_schedule) if anything happened, then core_tick if a period is
 * due; LAUNCH actions say which jobs started.  --semantics=pyss instead
 * takes a second's submits, then its ends, and runs a main and a
 * backfill pass after each one (sim.h, enum sim_semantics).
 *
 * Ticks that cannot change a decision are not visited: with nothing
 * pending no pass runs (it would find nothing to start; the core's own
 * "is it due" then fires at the next grid point, as in the daemon), and
 * with nothing running either and exponential decay no re-rating (decay
 * over one long span equals decay over many short ones; the last
 * re-rating before the span ends is done, as jobs submitted then are
 * rated with its factors: catch_up()).  --every-pass
 * visits them all and has the core run every pass, also those it skips
 * when nothing changed since one that started nothing (sched.c); the
 * tests check both give the same bytes.
 * No wall clock is read and no work clock is set (core_set_work_clock):
 * passes are bounded by their job counts only, so results are the same
 * on any machine.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/units.h"
#include "common/msg.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "plugins/rota_plugin.h"
#include "sim/deps.h"
#include "sim/pairs.h"
#include "sim/sim.h"

#define NEVER INT64_MAX
/* Unix time of the trace's second 0 when its header does not say */
#define DEFAULT_EPOCH ((int64_t)1000000000)

struct end_event {
	int64_t time;
	uint64_t seq;	/* pyss: ends at one time in start order */
	uint32_t id;	/* core job id */
	bool at_limit;	/* runs to its time limit: pyss frees it early */
	bool ended;	/* pyss: already ended by free_at_limit() */
};

struct engine {
	const struct sim_options *opt;
	const struct swf_trace *t;
	struct sim_result *r;
	struct rota_conf *conf;
	struct core *core;
	int64_t epoch;		/* Unix time of trace second 0 */
	uint32_t first_id;	/* the core's id of the first submit */
	uint32_t *rec;		/* core id - first_id -> index in r->jobs */
	int64_t *run;		/* per record: seconds it will run */
	size_t cap;		/* of r->jobs, rec and run */
	struct end_event *heap;
	size_t nheap;
	int64_t calc_period;
	int64_t bf_interval;	/* 0: the sched plugin has no passes */
	int64_t pass_interval;
	bool idle_decay_ok;	/* exponential decay: idle ticks skippable */
	int64_t last_calc;	/* the last re-rating tick visited */
	uint32_t busy;		/* cores in use */
	uint64_t starts;	/* jobs started, for end_event.seq */
	bool each;		/* SIM_SEMANTICS_PYSS: a pass per event */
	size_t steps_cap;
	struct sim_deps *deps;	/* --dependencies; NULL without */
};

/* ---- the end heap ------------------------------------------------------ */

/* 'seq' is 0 under Rota's semantics: ends at one time in id order */
static bool ev_less(const struct end_event *a, const struct end_event *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	return a->seq != b->seq ? a->seq < b->seq : a->id < b->id;
}

static void heap_push(struct engine *e, struct end_event ev)
{
	size_t i = e->nheap++;

	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (!ev_less(&ev, &e->heap[p]))
			break;
		e->heap[i] = e->heap[p];
		i = p;
	}
	e->heap[i] = ev;
}

static struct end_event heap_pop(struct engine *e)
{
	struct end_event top = e->heap[0];
	struct end_event last = e->heap[--e->nheap];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= e->nheap)
			break;
		if (c + 1 < e->nheap && ev_less(&e->heap[c + 1], &e->heap[c]))
			c++;
		if (!ev_less(&e->heap[c], &last))
			break;
		e->heap[i] = e->heap[c];
		i = c;
	}
	if (e->nheap)
		e->heap[i] = last;
	return top;
}

/* ---- setup ------------------------------------------------------------- */

/* The backfill plugin's Interval (default 30 s, as plugins/sched says). */
static int64_t bf_interval(const struct rota_conf *conf,
			   const struct core *core)
{
	const struct rota_conf_section *s = rota_conf_section_find(conf,
								   "Sched");
	int64_t v = 30;

	if (strcmp(core_sched_plugin(core), "backfill") != 0)
		return 0;
	for (size_t i = 0; s && i < s->nsettings; i++) {
		struct rota_error err;

		/* the plugin refused a bad one at core_create */
		if (strcasecmp(s->settings[i].key, "Interval") == 0 &&
		    rota_duration_parse(s->settings[i].value,
					ROTA_DURATION_NEED_UNIT, &v,
					&err) < 0)
			v = 30;
	}
	return v > 0 ? v : 30;
}

static int register_nodes(struct engine *e, struct rota_error *err)
{
	const struct rota_conf *conf = e->conf;

	for (size_t i = 0; i < conf->nnodes; i++) {
		const struct rota_conf_node *n = &conf->nodes[i];
		struct rota_node_info info = {
			.name = n->name,
			.state = "UP",
			.reason = "",
			.sockets = 1,
			.cores = n->cpus,
			.pus = n->cpus,
			.memory_mb = n->memory_mb ? n->memory_mb : 1024,
		};
		int rc;

		if (!n->cpus)
			return rota_errorf(err, -EINVAL,
					   "%s:%u: node '%s': the simulator "
					   "needs its CPUs=",
					   n->file, n->line, n->name);
		rc = core_node_register(e->core, e->epoch, &info, err);
		if (rc < 0)
			return rc;
		e->r->total_cores += n->cpus;
	}
	e->r->nnodes = conf->nnodes;
	return 0;
}

static int setup(struct engine *e, struct rota_error *err)
{
	char *text = NULL;
	int rc = sim_config_text(e->opt, e->t, &text, err);
	const char *name = e->opt->config ? e->opt->config : "(defaults)";
	char prio[160];
	char sched[160];

	if (rc == 0)
		rc = rota_conf_load_buffer(name, text, strlen(text), &e->conf,
					   err);
	free(text);
	if (rc < 0)
		return rc;
	/* no node fails here: heartbeats are not simulated */
	e->conf->node_timeout = NEVER / 4;
	rc = core_create(e->conf, &e->core, err);
	if (rc < 0)
		return rc;
	core_set_every_pass(e->core, e->opt->every_pass);
	e->r->config_name = rota_xstrdup(name);
	e->epoch = e->t->unix_start > 0 ? e->t->unix_start : DEFAULT_EPOCH;
	e->first_id = core_next_id(e->core);
	e->calc_period = e->conf->priority_calc_period > 0
				 ? e->conf->priority_calc_period
				 : 300;
	e->pass_interval = e->conf->sched_interval > 0
				   ? e->conf->sched_interval
				   : 60;
	e->bf_interval = bf_interval(e->conf, e->core);
	e->idle_decay_ok = e->conf->usage_decay == ROTA_DECAY_EXPONENTIAL;
	core_prio_describe(e->core, prio, sizeof(prio));
	core_sched_describe(e->core, sched, sizeof(sched));
	e->r->policy = rota_xasprintf(
		"priority/%s%s%s%s fairshare/%s sched/%s%s%s%s%s",
		core_prio_plugin(e->core), prio[0] ? " (" : "", prio,
		prio[0] ? ")" : "", core_share_plugin(e->core),
		core_sched_plugin(e->core), sched[0] ? " (" : "", sched,
		sched[0] ? ")" : "",
		e->each ? ", passes after each event (pyss)" : "");
	return register_nodes(e, err);
}

/* ---- events ------------------------------------------------------------ */

static void timeline_step(struct engine *e, int64_t now)
{
	struct sim_result *r = e->r;
	struct sim_step s = {
		.time = now - e->epoch,
		.busy = e->busy,
		.queued = (uint32_t)core_pending_count(e->core),
	};

	/* from the first submit: idle ticks before it are not the trace's */
	if (!e->opt->timeline || !r->njobs)
		return;
	if (r->nsteps && r->steps[r->nsteps - 1].time == s.time) {
		r->steps[r->nsteps - 1] = s;
		return;
	}
	if (r->nsteps && r->steps[r->nsteps - 1].busy == s.busy &&
	    r->steps[r->nsteps - 1].queued == s.queued)
		return;
	if (r->nsteps == e->steps_cap) {
		e->steps_cap = e->steps_cap ? 2 * e->steps_cap : 4096;
		r->steps = rota_xreallocarray(r->steps, e->steps_cap,
					      sizeof(*r->steps));
	}
	r->steps[r->nsteps++] = s;
}

/* Why a trace job is not replayed; NULL: it is. */
static size_t *skip_reason(struct engine *e, const struct swf_job *j,
			   int64_t procs)
{
	struct sim_skips *s = &e->r->skips;

	if (e->opt->filter == SIM_FILTER_STRICT) {
		if ((uint64_t)(j->req_procs > j->alloc_procs
				       ? j->req_procs
				       : j->alloc_procs) > e->r->total_cores)
			return &s->wide;
		if (j->run > 0 && procs > 0 && j->req_time <= 0)
			return &s->no_estimate;
		if (j->submit < 0)
			return &s->unknown;
	}
	if (j->status == 5 && j->run <= 0)
		return &s->cancelled;
	if (j->run < 0 || procs <= 0)
		return &s->unknown;
	if (j->run == 0)
		return &s->zero;
	if ((uint64_t)procs > e->r->total_cores)
		return &s->wide;
	return NULL;
}

/* A job not replayed: with --dependencies, its followers go free. */
static void not_replayed(struct engine *e, size_t i, int64_t now)
{
	if (e->deps)
		sim_deps_release(e->deps, i, now, false);
}

/* Replayed at 'now': where that falls against the recorded time. */
static void count_moved(struct engine *e, size_t i, int64_t now)
{
	struct sim_dep_counts *c = &e->r->deps;
	int64_t moved = now - e->epoch - e->t->jobs[i].submit;

	if (!e->deps || !sim_deps_is_held(e->deps, i))
		return;
	if (moved > 0)
		c->later++;
	else if (moved < 0)
		c->earlier++;
	else
		c->same++;
}

/* --queues: SWF field 15 N as the config's N-th queue (-1, 0: default). */
static int queue_of(const struct engine *e, const struct swf_job *j,
		    struct rota_job_desc *d, struct rota_error *err)
{
	if (!e->opt->queues || j->queue <= 0)
		return 0;
	if ((uint64_t)j->queue > e->conf->nqueues)
		return rota_errorf(err, -EINVAL,
				   "queue %lld: the config has %zu queues",
				   (long long)j->queue, e->conf->nqueues);
	d->queue = rota_xstrdup(e->conf->queues[j->queue - 1].name);
	return 0;
}

/* --size: a job's cores; -1 when the trace knows neither count. */
static int64_t job_procs(enum sim_size size, const struct swf_job *j)
{
	int64_t req = j->req_procs > 0 ? j->req_procs : -1;
	int64_t alloc = j->alloc_procs > 0 ? j->alloc_procs : -1;

	switch (size) {
	case SIM_SIZE_ALLOCATED:
		return alloc > 0 ? alloc : req;
	case SIM_SIZE_MAX:
		return req > alloc ? req : alloc;
	default:
		return req > 0 ? req : alloc;
	}
}

/* Trace job 'i' is submitted at 'now' (its time, or its release). */
static void submit_one(struct engine *e, size_t i, int64_t now)
{
	struct sim_result *r = e->r;
	const struct swf_job *j = &e->t->jobs[i];
	int64_t procs = job_procs(e->opt->size, j);
	size_t *skip = skip_reason(e, j, procs);
	char user[32];
	char account[32];
	int64_t limit = e->opt->estimates == SIM_ESTIMATES_ACTUAL
				? j->run
				: (j->req_time > 0 ? j->req_time : 0);
	struct rota_job_desc d = {
		.name = rota_xstrdup("swf"),
		.ntasks = (uint32_t)procs,
		.cpus_per_task = 1,
		.time_limit = limit,
	};
	struct core_submit req = {
		.desc = &d,
		.uid = 1000 + (uid_t)(j->user > 0 ? j->user : 0),
		.gid = 1000 + (gid_t)(j->group > 0 ? j->group : 0),
		.user = user,
	};
	struct rota_error err = { "" };
	const struct core_job *job;
	uint32_t id;

	if (skip) {
		(*skip)++;
		rota_job_desc_clear(&d);
		not_replayed(e, i, now);
		return;
	}
	sim_user_name(j->user, user, sizeof(user));
	sim_account_name(j->group, account, sizeof(account));
	d.account = rota_xstrdup(account);
	if (queue_of(e, j, &d, &err) < 0 ||
	    core_submit(e->core, now, &req, &id, &err) < 0) {
		if (!r->skips.refused++)
			snprintf(r->skips.first_refusal,
				 sizeof(r->skips.first_refusal),
				 "job %lld: %s", (long long)j->id, err.text);
		rota_job_desc_clear(&d);
		not_replayed(e, i, now);
		return;
	}
	rota_job_desc_clear(&d);
	job = core_job_find(e->core, id);
	if (id - e->first_id >= e->cap)
		rota_fatal("rota sim: job id %u out of order", id);
	e->rec[id - e->first_id] = (uint32_t)r->njobs;
	/* cut at the limit the core resolved (0: none), as noded would */
	e->run[r->njobs] = job->time_limit && j->run > job->time_limit
				   ? job->time_limit
				   : j->run;
	count_moved(e, i, now);
	r->jobs[r->njobs++] = (struct sim_job){
		.swf_id = j->id,
		.trace_index = i,
		.submit = now - e->epoch,
		.start = -1,
		.end = -1,
		.cores = (uint32_t)procs,
		.user = j->user > 0 ? (uint32_t)j->user : 0,
		.timeout = job->time_limit && j->run > job->time_limit,
	};
}

static void end_one(struct engine *e, uint32_t id, int64_t now)
{
	const struct core_job *job = core_job_find(e->core, id);
	struct sim_job *sj = &e->r->jobs[e->rec[id - e->first_id]];
	struct rota_msg_job_end end = {
		.job_id = id,
		.run = job->run,
		.state = sj->timeout ? ROTA_JOB_TIMEOUT : ROTA_JOB_COMPLETED,
		.start_time = job->start_time,
		.end_time = now,
	};
	struct rota_error err = { "" };
	const char *node = core_node_get(e->core, job->alloc[0].node)->name;

	if (core_job_end(e->core, now, node, &end, &err) < 0)
		rota_fatal("rota sim: job %u: %s", id, err.text);
	sj->end = now - e->epoch;
	e->busy -= sj->cores;
	if (e->deps)
		sim_deps_release(e->deps, sj->trace_index, now, true);
}

/* LAUNCH actions: record the starts and queue their ends. */
static void take_starts(struct engine *e, int64_t now, bool backfill)
{
	struct core_action *a = NULL;
	size_t n = core_take_actions(e->core, &a);

	for (size_t i = 0; i < n; i++) {
		const struct core_job *job;
		struct sim_job *sj;
		uint32_t k;

		if (a[i].type != CORE_ACTION_LAUNCH || a[i].alloc_index != 0)
			continue;
		job = core_job_find(e->core, a[i].job_id);
		k = e->rec[a[i].job_id - e->first_id];
		sj = &e->r->jobs[k];
		sj->start = now - e->epoch;
		sj->nodes = job->nalloc;
		sj->priority = job->priority;
		sj->backfilled = backfill;
		e->busy += sj->cores;
		e->starts++;
		heap_push(e, (struct end_event){
				     .time = now + e->run[k],
				     .seq = e->each ? e->starts : 0,
				     .id = a[i].job_id,
				     .at_limit = job->time_limit &&
						 e->run[k] >= job->time_limit,
			     });
	}
	free(a);
}

/* What the daemon journals and hands to jobcomp: taken and dropped. */
static void drop_records(struct engine *e)
{
	uint32_t *ids = NULL;

	core_take_dirty(e->core, &ids);
	free(ids);
	ids = NULL;
	core_take_ended(e->core, &ids);
	free(ids);
}

/* ---- the clock --------------------------------------------------------- */

/* The first multiple of 'period' (from the epoch) after 'now'. */
static int64_t grid_after(const struct engine *e, int64_t now, int64_t period)
{
	return e->epoch + ((now - e->epoch) / period + 1) * period;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/*
 * The next periodic tick worth visiting after 'now'; NEVER if none.  With
 * nothing pending, passes find nothing to start; with nothing running
 * either and exponential decay, a re-rating only decays usage, which one
 * long span does as well as many short ones.
 */
static int64_t next_tick(const struct engine *e, int64_t now)
{
	bool pending = core_pending_count(e->core) > 0;
	bool every = e->opt->every_pass;
	/*
	 * A pass the core would skip need not be visited: until a change
	 * (an event, a re-rating) it would find what the last one found.
	 * Advance reservations start and end on ticks: visit them all.
	 */
	bool fixed = !every && !core_resv_count(e->core);
	int64_t t = NEVER;

	/* ratings that never move (fifo): a re-rating changes nothing */
	if ((pending || e->nheap || !e->idle_decay_ok || every) &&
	    !(fixed && core_prio_static(e->core)))
		t = grid_after(e, now, e->calc_period);
	if ((pending || every) && e->bf_interval &&
	    !(fixed && core_bf_settled(e->core)))
		t = min64(t, grid_after(e, now, e->bf_interval));
	if ((pending || every) && !(fixed && core_main_settled(e->core)))
		t = min64(t, grid_after(e, now, e->pass_interval));
	return t;
}

static bool on_grid(const struct engine *e, int64_t now, int64_t period)
{
	return period > 0 && (now - e->epoch) % period == 0;
}

/* pyss: after each event, a main pass and a backfill pass. */
static void event_passes(struct engine *e, int64_t now)
{
	struct rota_sched_stats st;

	core_schedule(e->core, now);
	take_starts(e, now, false);
	core_backfill(e->core, now, &st);
	take_starts(e, now, true);
}

/* A main pass after events, then the core's periodic work if due. */
static void tick(struct engine *e, int64_t now, bool event)
{
	if (event || on_grid(e, now, e->pass_interval)) {
		core_schedule(e->core, now);
		take_starts(e, now, false);
	}
	if (on_grid(e, now, e->calc_period))
		e->last_calc = now;
	if (on_grid(e, now, e->calc_period) || on_grid(e, now, e->bf_interval)) {
		core_tick(e->core, now);
		take_starts(e, now, true);
	}
}

/* ---- results ----------------------------------------------------------- */

struct usage_key {
	char key[64];	/* "user\taccount" or "\taccount" */
	double usage;
};

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct usage_key *)a)->key,
		      ((const struct usage_key *)b)->key);
}

/* Core-seconds per (user, account) from the replay, undecayed. */
static struct usage_key *usage_table(const struct engine *e, size_t *n)
{
	const struct swf_trace *t = e->t;
	struct sim_pairs pairs = { 0 };
	struct usage_key *u;
	size_t m = 0;

	/* in submit order, as the sums always were */
	for (size_t k = 0; k < e->r->njobs; k++) {
		const struct sim_job *sj = &e->r->jobs[k];
		const struct swf_job *j = &t->jobs[sj->trace_index];

		sim_pairs_add(&pairs, j->group, j->user,
			      sj->start < 0 ? 0
					    : (double)sj->cores *
						      (double)(sj->end -
							       sj->start));
	}
	u = rota_xcalloc(pairs.n + 1, sizeof(*u));
	for (size_t i = 0; i < pairs.n; i++) {
		char user[32];
		char account[32];

		sim_user_name(pairs.v[i].user, user, sizeof(user));
		sim_account_name(pairs.v[i].group, account, sizeof(account));
		snprintf(u[m].key, sizeof(u[m].key), "%s\t%s", user, account);
		u[m++].usage = pairs.v[i].sum;
	}
	sim_pairs_free(&pairs);
	/* names may coincide where numbers differ: summed as one */
	qsort(u, m, sizeof(*u), by_key);
	*n = 0;
	for (size_t i = 0; i < m; i++) {
		if (*n && strcmp(u[*n - 1].key, u[i].key) == 0)
			u[*n - 1].usage += u[i].usage;
		else
			u[(*n)++] = u[i];
	}
	return u;
}

static void collect_shares(struct engine *e, int64_t now)
{
	const struct rota_share_tree *tree;
	struct sim_result *r = e->r;
	size_t nu = 0;
	struct usage_key *u;
	double total = 0;

	if (core_share_update(e->core, now) < 0)
		return;
	tree = core_share_tree(e->core);
	u = usage_table(e, &nu);
	r->shares = rota_xcalloc(tree->n + 1, sizeof(*r->shares));
	r->nshares = tree->n;
	for (size_t i = 0; i < tree->n; i++) {
		const struct rota_share_node *n = &tree->nodes[i];
		struct sim_share *s = &r->shares[i];
		struct usage_key k;
		struct usage_key *hit;

		s->name = rota_xstrdup(n->name);
		s->account = rota_xstrdup(n->account ? n->account : "");
		s->depth = n->depth;
		s->is_user = n->is_user;
		s->shares_norm = n->shares_norm;
		if (!n->is_user)
			continue;
		snprintf(k.key, sizeof(k.key), "%s\t%s", n->name, s->account);
		hit = bsearch(&k, u, nu, sizeof(*u), by_key);
		s->usage = hit ? hit->usage : 0;
		total += s->usage;
	}
	/* accounts: the sum of their subtrees, children after parents */
	for (size_t i = tree->n; i-- > 1;) {
		uint32_t p = tree->nodes[i].parent;

		if (p != ROTA_SHARE_NONE && p < tree->n)
			r->shares[p].usage += r->shares[i].usage;
	}
	for (size_t i = 0; i < tree->n; i++)
		r->shares[i].usage_share = total > 0 ? r->shares[i].usage /
							       total
						     : 0;
	free(u);
}

/* ---- the loop ---------------------------------------------------------- */

static int64_t next_event(const struct engine *e, size_t next, int64_t now)
{
	int64_t t = next < e->t->n ? e->epoch + e->t->jobs[next].submit
				   : NEVER;

	if (e->deps)
		t = min64(t, sim_deps_next(e->deps));

	/* the end: nothing left to submit, run or start */
	if (t == NEVER && !e->nheap && !core_pending_count(e->core))
		return NEVER;
	if (e->nheap)
		t = min64(t, e->heap[0].time);
	return min64(t, next_tick(e, now));
}

/*
 * Leaving an idle span whose re-ratings were not visited: the last one
 * before 'now', as the daemon did it.  A job submitted now is rated
 * alone with the fairshare factors of that re-rating; one decay over the
 * whole span gives the usage many would have.
 */
static void catch_up(struct engine *e, int64_t now)
{
	int64_t g = e->epoch + ((now - 1 - e->epoch) / e->calc_period -
				(now - 1 < e->epoch)) *
				       e->calc_period;

	/* static ratings (next_tick): no re-rating was left out */
	if (!e->opt->every_pass && !core_resv_count(e->core) &&
	    core_prio_static(e->core))
		return;
	if (g <= e->last_calc)
		return;
	e->last_calc = g;
	core_tick(e->core, g);
	take_starts(e, g, true);
}

/*
 * The next trace job submitted at its recorded time: held ones (waiting
 * for their preceding job) are passed over, so that their recorded time
 * is no event.
 */
static size_t skip_held(const struct engine *e, size_t next)
{
	while (e->deps && next < e->t->n && sim_deps_is_held(e->deps, next))
		next++;
	return next;
}

/*
 * The submits due at 'now': the trace's at their recorded time and, with
 * --dependencies, those released by the end of their preceding job, in
 * trace order; 'event' set if there was any.  Returns the next trace
 * job.
 */
static size_t submit_due(struct engine *e, size_t next, int64_t now,
			 bool *event)
{
	const struct swf_trace *t = e->t;
	size_t rel;

	for (;;) {
		bool from_trace = next < t->n &&
				  e->epoch + t->jobs[next].submit <= now;
		bool released = e->deps && sim_deps_peek(e->deps, now, &rel);

		if (released && (!from_trace || rel < next)) {
			sim_deps_pop(e->deps);
			submit_one(e, rel, now);
			*event = true;
			if (e->each)
				event_passes(e, now);
			continue;
		}
		if (!from_trace)
			return next;
		submit_one(e, next++, now);
		*event = true;
		if (e->each)
			event_passes(e, now);
		if (e->opt->progress && next % 4096 == 0)
			e->opt->progress(e->opt->progress_arg, next, t->n);
		next = skip_held(e, next);
	}
}

/*
 * pyss: a job that runs to its estimate leaves the processor-time
 * snapshot its scheduler reads at that second, before any event of the
 * second is handled (its slice ends there); only its end event comes in
 * event order.  So its cores are free to the passes after the second's
 * submits and after every end, however the ends are ordered.  End those
 * jobs now, without a pass; their end events still run their passes in
 * order.  The heap entries due 'now' are a subtree at its root.
 */
static void free_at_limit(struct engine *e, size_t i, int64_t now)
{
	struct end_event *ev;

	if (i >= e->nheap || e->heap[i].time != now)
		return;
	ev = &e->heap[i];
	if (ev->at_limit && !ev->ended) {
		end_one(e, ev->id, now);
		ev->ended = true;
	}
	free_at_limit(e, 2 * i + 1, now);
	free_at_limit(e, 2 * i + 2, now);
}

static void loop(struct engine *e)
{
	const struct swf_trace *t = e->t;
	size_t next = skip_held(e, 0);
	int64_t now = e->epoch - 1;

	for (;;) {
		bool event = false;

		now = next_event(e, next, now);
		if (now == NEVER)
			break;
		catch_up(e, now);
		if (e->each) {
			/* pyss: submits before ends, a pass after each */
			free_at_limit(e, 0, now);
			next = submit_due(e, next, now, &event);
			while (e->nheap && e->heap[0].time == now) {
				struct end_event ev = heap_pop(e);

				if (!ev.ended)
					end_one(e, ev.id, now);
				event_passes(e, now);
			}
			tick(e, now, false);
		} else {
			while (e->nheap && e->heap[0].time == now) {
				end_one(e, heap_pop(e).id, now);
				event = true;
			}
			next = submit_due(e, next, now, &event);
			tick(e, now, event);
		}
		drop_records(e);
		timeline_step(e, now);
	}
	if (e->opt->progress)
		e->opt->progress(e->opt->progress_arg, t->n, t->n);
	collect_shares(e, now == NEVER ? e->epoch : now);
}

int sim_run(const struct sim_options *opt, const struct swf_trace *trace,
	    struct sim_result *out, struct rota_error *err)
{
	struct engine e = { .opt = opt, .t = trace, .r = out,
			    .last_calc = INT64_MIN,
			    .each = opt->semantics == SIM_SEMANTICS_PYSS };
	const struct core_sched_stats *st;
	int rc;

	*out = (struct sim_result){ .trace_jobs = trace->n,
				    .malformed = trace->malformed };
	out->skips.strict = opt->filter == SIM_FILTER_STRICT;
	rc = setup(&e, err);
	if (rc == 0 && opt->dependencies) {
		out->deps.enabled = true;
		e.deps = sim_deps_create(trace, e.epoch, &out->deps);
	}
	if (rc == 0) {
		e.cap = trace->n + 1;
		e.rec = rota_xcalloc(e.cap, sizeof(*e.rec));
		e.run = rota_xcalloc(e.cap, sizeof(*e.run));
		e.heap = rota_xcalloc(e.cap, sizeof(*e.heap));
		out->jobs = rota_xcalloc(e.cap, sizeof(*out->jobs));
		loop(&e);
		st = core_sched_stats(e.core);
		out->bf_started = st->bf_started;
		out->bf_passes = st->bf_passes;
		out->main_passes = st->main_passes;
		out->main_skipped = st->main_skipped;
		out->bf_skipped = st->bf_skipped;
		out->deps.never = e.deps ? sim_deps_waiting(e.deps) : 0;
	}
	sim_deps_destroy(e.deps);
	free(e.rec);
	free(e.run);
	free(e.heap);
	core_destroy(e.core);
	rota_conf_destroy(e.conf);
	return rc;
}

int sim_check(const struct sim_options *opt, const struct swf_trace *trace,
	      struct rota_error *err)
{
	struct sim_result r = { 0 };
	struct engine e = { .opt = opt, .t = trace, .r = &r };
	int rc = setup(&e, err);

	core_destroy(e.core);
	rota_conf_destroy(e.conf);
	sim_result_fini(&r);
	return rc;
}

void sim_result_fini(struct sim_result *r)
{
	for (size_t i = 0; i < r->nshares; i++) {
		free(r->shares[i].name);
		free(r->shares[i].account);
	}
	free(r->shares);
	free(r->jobs);
	free(r->steps);
	free(r->config_name);
	free(r->policy);
	*r = (struct sim_result){ 0 };
}
