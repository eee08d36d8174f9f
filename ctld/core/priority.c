// SPDX-License-Identifier: MIT
/*
 * Job priority and the order of the pending list (core.h, "Priorities").
 *
 * The order is the seed sites' (DESIGN.md): jobs of an advance
 * reservation first (resv.c), then queue priority tier, then the priority
 * plugin's value, then submit time, then job id.  The list is kept in
 * that order at all times: a full rating re-sorts it, and a job rated
 * alone at submit is inserted walking from the tail, where a new job
 * usually belongs, so a submit costs O(1) in the common case.
 *
 * A plugin that rates all (Grid Engine's) normalizes over every job, so a
 * job rated alone (a submit, a hold, a release, a nice) is only placed for
 * now: the whole queue is rated again before the next pass, as Grid
 * Engine rates every job at the start of each scheduling run.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/core/core_internal.h"
#include "ctld/core/plugin_host.h"
#include "ctld/core/share.h"
#include "ctld/core/ftickets.h"
#include "ctld/core/tickets.h"

#define URGENCY_DEFAULT 16

static void qos_table(struct core *core, const struct rota_conf *conf)
{
	const struct rota_conf_qos *normal = rota_conf_qos_find(conf, "normal");

	core->qos = rota_xcalloc(conf->nqos + 1, sizeof(*core->qos));
	core->qos[0] = (struct core_qos){
		.name = rota_xstrdup("normal"),
		.priority = normal ? normal->priority : 0,
		.target_wait = normal ? normal->target_wait : 0,
	};
	core->nqos = 1;
	for (size_t i = 0; i < conf->nqos; i++) {
		if (&conf->qos[i] == normal)
			continue;
		core->qos[core->nqos++] = (struct core_qos){
			.name = rota_xstrdup(conf->qos[i].name),
			.priority = conf->qos[i].priority,
			.target_wait = conf->qos[i].target_wait,
		};
	}
}

int prio_init(struct core *core, const struct rota_conf *conf,
	      struct rota_error *err)
{
	int rc = plugin_load(conf, ROTA_PLUGIN_PRIORITY, "fifo", NULL,
			     &core->priority, err);

	if (rc < 0)
		return rc;
	/* fs_factor_only came in ABI 1.4: an older table is shorter */
	core->prio_ops = plugin_ops(core->priority,
				    offsetof(struct rota_priority_ops,
					     fs_factor_only));
	core->prio_factor_only =
		PLUGIN_OPS_HAS(core->prio_ops, fs_factor_only) &&
		core->prio_ops->fs_factor_only;
	core->prio_rates_all = PLUGIN_OPS_HAS(core->prio_ops, rates_all) &&
			       core->prio_ops->rates_all;
	core->prio_hold_restarts =
		PLUGIN_OPS_HAS(core->prio_ops, hold_restarts_age) &&
		core->prio_ops->hold_restarts_age;
	core->prio_static = PLUGIN_OPS_HAS(core->prio_ops, time_invariant) &&
			    core->prio_ops->time_invariant;
	qos_table(core, conf);
	core->deadline_users = core_names_copy(conf->deadline_users);
	return 0;
}

void prio_fini(struct core *core)
{
	for (size_t i = 0; i < core->nqos; i++)
		free(core->qos[i].name);
	free(core->qos);
	core_names_free(core->deadline_users);
	plugin_unload(core->priority);
}

/* Grid Engine's deadlineusers: who may give a job a deadline. */
static bool deadline_user(const struct core *core, const char *user)
{
	for (char *const *u = core->deadline_users; user && u && *u; u++)
		if (strcmp(*u, user) == 0)
			return true;
	return false;
}

int prio_submit_check(struct core *core, struct core_job *job,
		      const char *user, bool operator, struct rota_error *err)
{
	const char *qos = job->desc.qos ? job->desc.qos : "normal";
	size_t i;

	for (i = 0; i < core->nqos && strcmp(core->qos[i].name, qos); i++)
		;
	if (i == core->nqos)
		return rota_errorf(err, -ENOENT, "qos '%s' does not exist",
				   qos);
	if (job->desc.nice < 0 && !operator)
		return rota_errorf(err, -EPERM, "--nice=%d: only operators "
				   "may raise a job's priority",
				   job->desc.nice);
	if (job->desc.urgency > URGENCY_DEFAULT && !operator)
		return rota_errorf(err, -EPERM, "--urgency=%u: users may only "
				   "lower it (at most %d)", job->desc.urgency,
				   URGENCY_DEFAULT);
	if (job->desc.deadline && !operator &&
	    !deadline_user(core, user))
		return rota_errorf(err, -EPERM, "--dl: user '%s' is not in "
				   "DeadlineUsers: only those users and "
				   "operators may set an initiation deadline",
				   user);
	if (job->desc.oticket && !operator) /* Grid Engine's qalter -ot */
		return rota_errorf(err, -EPERM, "override tickets: only "
				   "operators may give a job some");
	job->qos = (uint32_t)i;
	return 0;
}

/* ---- the order ----------------------------------------------------------- */

/* <0 when a runs before b. */
static int order_cmp(const struct core *core, const struct core_job *a,
		     const struct core_job *b)
{
	unsigned ta = core->queues[a->queue].priority_tier;
	unsigned tb = core->queues[b->queue].priority_tier;

	/* jobs of a reservation first: they compete only among themselves */
	if (!a->desc.reservation != !b->desc.reservation)
		return a->desc.reservation ? -1 : 1;
	if (ta != tb)
		return ta > tb ? -1 : 1;
	if (a->priority != b->priority)
		return a->priority > b->priority ? -1 : 1;
	if (a->submit_time != b->submit_time)
		return a->submit_time < b->submit_time ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

int core_prio_order(const struct core *core, const struct core_job *a,
		    const struct core_job *b)
{
	return order_cmp(core, a, b);
}

/* qsort has no context argument: the core rides along in each entry. */
struct order_entry {
	const struct core *core;
	struct core_job *job;
};

static int entry_cmp(const void *x, const void *y)
{
	const struct order_entry *a = x;
	const struct order_entry *b = y;

	return order_cmp(a->core, a->job, b->job);
}

/* The whole list by qsort, for an order far from the last one. */
static void sort_all(struct core *core)
{
	size_t n = core->pending.n, i = 0;
	struct order_entry *v = rota_xcalloc(n + 1, sizeof(*v));

	for (struct core_job *j = core->pending.head; j; j = j->next)
		v[i++] = (struct order_entry){ core, j };
	qsort(v, n, sizeof(*v), entry_cmp);
	core->pending = (struct job_list){ 0 };
	for (i = 0; i < n; i++)
		job_list_append(&core->pending, v[i].job);
	free(v);
	core_walk_stale(core); /* a new order: the walk list's too */
}

/*
 * Re-rated jobs mostly keep their places (age grows alike for all), so
 * the list is sorted where it lies, each job moved back past those it
 * now outranks; if that takes more than a few moves a job, qsort.
 */
void prio_sort(struct core *core)
{
	struct job_list *l = &core->pending;
	size_t budget = 8 * l->n + 64;
	struct core_job *j, *next;
	bool moved = false;

	for (j = l->head ? l->head->next : NULL; j; j = next) {
		struct core_job *after = j->prev;

		next = j->next;
		if (order_cmp(core, j, after) >= 0)
			continue;
		while (after && order_cmp(core, j, after) < 0 && budget) {
			after = after->prev;
			budget--;
		}
		/* the order changes: listings under way keep the old one */
		if (l->cursors)
			cursor_detach(l);
		if (!budget) {
			sort_all(core);
			moved = true;
			break;
		}
		job_list_remove(l, j);
		j->prev = after;
		j->next = after ? after->next : l->head;
		j->next->prev = j;
		if (after)
			after->next = j;
		else
			l->head = j;
		l->n++;
		core_walk_moved(core, j);
		moved = true;
	}
	/* a new order is a new pass: new priorities in the same order not */
	if (moved)
		core_mark_changed(core);
}

/* Insert 'job' (in no list) where the order puts it, from the tail. */
static void insert_ordered(struct core *core, struct core_job *job)
{
	struct core_job *after = core->pending.tail;

	while (after && order_cmp(core, job, after) < 0)
		after = after->prev;
	core_pending_insert_after(core, after, job);
}

/* ---- rating -------------------------------------------------------------- */

/* The fairshare view a rating reads: the factors alone when that will do. */
static const struct rota_share_tree *rating_tree(struct core *core)
{
	return core->prio_factor_only ? share_factors(core->share)
				      : share_tree(core->share);
}

/* Each queue's cores, memory and GPUs in all (TRES weights). */
static void queue_totals(struct core *core)
{
	for (size_t q = 0; q < core->nqueues; q++) {
		struct core_queue *cq = &core->queues[q];

		cq->total_cores = 0;
		cq->total_mem_mb = 0;
		cq->total_gpus = 0;
		for (size_t k = 0; k < cq->nnodes; k++) {
			const struct core_node *n = &core->nodes[cq->nodes[k]];

			cq->total_cores += node_cores_total(n);
			cq->total_mem_mb += node_mem_total(n);
			cq->total_gpus += n->ngpus;
		}
	}
}

/*
 * The cluster's totals for normalizing.  Computed in full by a rating of
 * all jobs, or when a node registered another size (its GPUs too); a job
 * rated alone at submit reuses them, so that a submit does not walk
 * 10,000 nodes.
 */
static void context(struct core *core, int64_t now, bool full,
		    struct rota_prio_context *ctx)
{
	if (!full && core->prio_ctx.total_nodes == core->nnodes &&
	    core->prio_sizes == core->sizes_stamp) {
		*ctx = core->prio_ctx;
		ctx->now = now;
		return;
	}
	*ctx = (struct rota_prio_context){ .now = now };
	for (size_t i = 0; i < core->nnodes; i++) {
		ctx->total_nodes++;
		ctx->total_cores += node_cores_total(&core->nodes[i]);
	}
	queue_totals(core);
	for (size_t i = 0; i < core->nqueues; i++)
		ctx->max_queue_priority = fmax(ctx->max_queue_priority,
					       core->queues[i].priority);
	for (size_t i = 0; i < core->nqos; i++)
		ctx->max_qos_priority =
			fmax(ctx->max_qos_priority, core->qos[i].priority);
	ctx->max_assoc_priority = share_max_priority(core->share);
	core->prio_ctx = *ctx;
	core->prio_sizes = core->sizes_stamp;
}

/*
 * The plugin's view of one pending job; 't' is share_tree()'s, 'tickets'
 * from it.
 */
static void view(const struct core *core, const struct rota_share_tree *t,
		 const struct core_job *job, int64_t now, double tickets,
		 struct rota_prio_job *v)
{
	uint32_t k = share_view_index(core->share, job->assoc);
	const struct rota_share_node *sn = k < t->n ? &t->nodes[k] : NULL;
	const struct core_qos *q = &core->qos[job->qos];

	*v = (struct rota_prio_job){
		.id = job->id,
		.user = job->user,
		.account = job->desc.account,
		.queue = core->queues[job->queue].name,
		.qos = q->name,
		.submit_time = job->submit_time,
		.wait_time = now - job->submit_time,
		.eligible_time = core_job_eligible_time(job, now),
		.time_limit = job->time_limit,
		.nodes = job->desc.nodes,
		.cores = job->desc.ntasks * job->desc.cpus_per_task,
		.mem_mb = job_total_mem(job),
		.nice = job->desc.nice,
		.urgency = job->desc.urgency ? job->desc.urgency
					     : URGENCY_DEFAULT,
		.bypass = job->bypass,
		.queue_priority = core->queues[job->queue].priority,
		.qos_priority = q->priority,
		.assoc_priority = share_assoc_priority(core->share, job->assoc),
		.qos_target_wait = q->target_wait,
		.fs_factor = sn ? sn->factor : 0,
		.fs_value = sn ? sn->value : 0,
		.fs_shares_norm = sn ? sn->shares_norm : 0,
		.fs_usage_norm = sn ? sn->usage_norm : 0,
		.tickets = tickets,
	};
}

/* A finite value for every job: a plugin's NaN must not scramble order. */
static void store(struct core *core, struct core_job *job, double priority,
		  int64_t now)
{
	if (!isfinite(priority)) {
		rota_warn("job %u: priority plugin gave %g: using 0", job->id,
			  priority);
		priority = 0;
	}
	/* rota top shows thousandths: a change below them is none */
	if (core_priority_milli(priority) != core_priority_milli(job->priority))
		changes_mark(core, job);
	job->priority = priority;
	job->rated_at = now;
}

/* A job as the ticket dealing sees it (tickets.h, ftickets.h). */
static struct ticket_job ticket_job(const struct core *core,
				    const struct core_job *j, size_t ref)
{
	struct ticket_job tj = {
		.node = share_view_index(core->share, j->assoc),
		.slots = j->desc.ntasks * j->desc.cpus_per_task,
		.id = j->id,
		.running = j->state == ROTA_JOB_RUNNING,
		.ref = ref,
		.submit = j->submit_time,
		.jobshare = j->desc.jobshare,
		.oticket = j->desc.oticket,
	};

	share_ticket_entities(core->share, j->assoc, &tj.user, &tj.project,
			      &tj.dept);
	return tj;
}

/*
 * A rating's view of its jobs and the per-job arrays of its context, made
 * for it and freed after: kept, they would hold some 200 bytes a pending
 * job between ratings (issue 23: at most 1 KB a job all told).
 */
struct rating {
	struct rota_prio_job *v;
	uint8_t *state;		/* for a plugin that rates all */
	int64_t *deadline;
	double *otix;
	double *ftix;
	uint32_t *nmin;		/* its task range as cores (-n MIN-MAX) */
	uint32_t *nmax;
	uint32_t *gpus;
	const char **lics;
	/* its queue's totals */
	uint32_t *qcores;
	uint64_t *qmem;
	uint32_t *qnodes;
	uint32_t *qgpus;
};

static void rating_alloc(struct rating *r, size_t n, bool rates_all)
{
	r->v = rota_xcalloc(n + 1, sizeof(*r->v));
	r->state = rates_all ? rota_xcalloc(n + 1, sizeof(*r->state)) : NULL;
	r->deadline = rota_xcalloc(n + 1, sizeof(*r->deadline));
	r->otix = rota_xcalloc(n + 1, sizeof(*r->otix));
	r->ftix = rota_xcalloc(n + 1, sizeof(*r->ftix));
	r->nmin = rota_xcalloc(n + 1, sizeof(*r->nmin));
	r->nmax = rota_xcalloc(n + 1, sizeof(*r->nmax));
	r->gpus = rota_xcalloc(n + 1, sizeof(*r->gpus));
	r->lics = rota_xcalloc(n + 1, sizeof(*r->lics));
	r->qcores = rota_xcalloc(n + 1, sizeof(*r->qcores));
	r->qmem = rota_xcalloc(n + 1, sizeof(*r->qmem));
	r->qnodes = rota_xcalloc(n + 1, sizeof(*r->qnodes));
	r->qgpus = rota_xcalloc(n + 1, sizeof(*r->qgpus));
}

static void rating_free(struct rating *r)
{
	free(r->v);
	free(r->state);
	free(r->deadline);
	free(r->otix);
	free(r->ftix);
	free(r->nmin);
	free(r->nmax);
	free(r->gpus);
	free(r->lics);
	free(r->qcores);
	free(r->qmem);
	free(r->qnodes);
	free(r->qgpus);
}

/*
 * Each job's tickets (override, functional and share-tree: ftickets.h)
 * into the view 'v' (pending jobs in order, then the running ones for a
 * plugin that rates all).  Running jobs are dealt in any case: their
 * slots come first in Grid Engine's count.  Most fairshare plugins give
 * no tickets: nothing done.
 */
static void deal_tickets(struct core *core, const struct rota_share_tree *t,
			 struct rating *r)
{
	size_t need = core->pending.n + core->running.n, n = 0, i = 0;
	size_t nents = share_entities(core->share);
	struct ticket_entity *ents;
	struct ticket_job *tix;

	if (!t->targets || t->n == 0 || !(t->nodes[0].tickets > 0))
		return;
	tix = rota_xcalloc(need + 1, sizeof(*tix));
	for (const struct core_job *j = core->pending.head; j;
	     j = j->next, i++)
		if (!j->hold) /* Grid Engine deals a held job none */
			tix[n++] = ticket_job(core, j, i);
	for (const struct core_job *j = core->running.head; j;
	     j = j->next, i++)
		tix[n++] = ticket_job(core, j,
				      core->prio_rates_all ? i : SIZE_MAX);
	ents = rota_xcalloc(nents + 1, sizeof(*ents));
	share_entity_fill(core->share, ents);
	ftickets_deal(t->policy, ents, t, tix, n);
	free(ents);
	for (size_t k = 0; k < n; k++) {
		size_t ref = tix[k].ref;

		if (ref == SIZE_MAX)
			continue;
		r->otix[ref] = tix[k].otickets;
		r->ftix[ref] = tix[k].ftickets;
		/* what ntckts normalizes: Grid Engine's sum */
		r->v[ref].tickets = tix[k].tickets + tix[k].otickets +
				    tix[k].ftickets;
	}
	free(tix);
}

/* The totals of the job's queue, for the context's job_queue_ arrays. */
static void queue_of(const struct core *core, const struct core_job *job,
		     uint32_t *cores, uint64_t *mem, uint32_t *nodes,
		     uint32_t *gpus)
{
	const struct core_queue *q = &core->queues[job->queue];

	*cores = q->total_cores;
	*mem = q->total_mem_mb;
	*nodes = (uint32_t)q->nnodes;
	*gpus = q->total_gpus;
}

/* What a job is to a plugin that rates all (ROTA_PRIO_JOB_*). */
/* Its task range (-n MIN-MAX) as cores, or 0 and 0 without one. */
static void job_range(const struct core_job *job, uint32_t *cmin,
		      uint32_t *cmax)
{
	uint32_t cpt = job->desc.cpus_per_task;

	*cmin = job->desc.ntasks_max ? job->ntasks_min * cpt : 0;
	*cmax = job->desc.ntasks_max * cpt;
}

static uint8_t job_state(const struct core_job *job)
{
	if (job->state == ROTA_JOB_RUNNING)
		return ROTA_PRIO_JOB_RUNNING;
	return job->hold ? ROTA_PRIO_JOB_HELD : ROTA_PRIO_JOB_PENDING;
}

/*
 * The jobs a rating covers, in its view's order: every pending job, then
 * (for a plugin that rates all) every running one; NULL: the first.
 * Grid Engine normalizes urgency and tickets over both.
 */
static struct core_job *rated_next(const struct core *core,
				   const struct core_job *j)
{
	struct core_job *running = core->prio_rates_all ? core->running.head
						       : NULL;

	if (!j)
		return core->pending.head ? core->pending.head : running;
	if (j->next)
		return j->next;
	return j->state == ROTA_JOB_PENDING ? running : NULL;
}

int core_prio_update(struct core *core, int64_t now)
{
	struct rota_prio_context ctx;
	const struct rota_share_tree *t = NULL;
	struct rating r;
	size_t n = core->pending.n, i = 0;
	struct core_job *j;
	int rc;

	if (core->prio_rates_all)
		n += core->running.n;
	usage_rerate(core, now);
	/* every job rated when it came, and no rating moves since */
	if (core->prio_static && !core->prio_stale) {
		core->prio_rated_at = now;
		return 0;
	}
	context(core, now, true, &ctx);
	rating_alloc(&r, n, core->prio_rates_all);
	ctx.job_state = r.state;
	ctx.job_deadline = r.deadline;
	ctx.job_otickets = r.otix;
	ctx.job_ftickets = r.ftix;
	ctx.job_cores_min = r.nmin;
	ctx.job_cores_max = r.nmax;
	ctx.job_gpus = r.gpus;
	ctx.job_licenses = r.lics;
	ctx.job_queue_cores = r.qcores;
	ctx.job_queue_mem_mb = r.qmem;
	ctx.job_queue_nodes = r.qnodes;
	ctx.job_queue_gpus = r.qgpus;
	/* no job to rate: the fairshare plugin need not run (share.h) */
	if (n) {
		t = rating_tree(core);
		for (j = rated_next(core, NULL); j; j = rated_next(core, j)) {
			view(core, t, j, now, 0, &r.v[i]);
			if (r.state)
				r.state[i] = job_state(j);
			r.deadline[i] = j->desc.deadline;
			job_range(j, &r.nmin[i], &r.nmax[i]);
			r.gpus[i] = job_gpus_total(j);
			r.lics[i] = j->desc.licenses;
			queue_of(core, j, &r.qcores[i], &r.qmem[i],
				 &r.qnodes[i], &r.qgpus[i]);
			i++;
		}
		if (!core->prio_factor_only) /* tickets unread: none dealt */
			deal_tickets(core, t, &r);
	}
	rc = core->prio_ops->compute(plugin_state(core->priority), &ctx, r.v,
				     n);
	/* a running job's rating is shown, never used to order */
	for (j = rc ? NULL : rated_next(core, NULL), i = 0; j;
	     j = rated_next(core, j), i++) {
		store(core, j, r.v[i].priority, now);
		j->tickets = r.v[i].tickets; /* explain() shows these */
		j->otickets = r.otix[i];
		j->ftickets = r.ftix[i];
	}
	rating_free(&r);
	if (rc)
		rota_err("priority/%s: rating failed (%d): order kept",
			 plugin_name(core->priority), rc);
	prio_sort(core);
	core->prio_stale = false;
	core->prio_rated_at = now;
	return rc;
}

bool core_prio_static(const struct core *core)
{
	return core->prio_static;
}

int core_prio_refresh(struct core *core, int64_t now)
{
	return core->prio_stale ? core_prio_update(core, now) : 0;
}

int64_t core_prio_rated_at(const struct core *core)
{
	return core->prio_rated_at;
}

/* The one job's entries of the context's per-job arrays it has not. */
struct one_job {
	uint8_t state;
	uint32_t nmin;
	uint32_t nmax;
	uint32_t gpus;
	uint32_t qcores;
	uint64_t qmem;
	uint32_t qnodes;
	uint32_t qgpus;
};

/*
 * The context for rating or explaining 'job' alone: the cluster's totals
 * of the last full rating and its own entries of the per-job arrays
 * (those it has no field for in 'one').
 */
static void one_job_context(struct core *core, int64_t now,
			    const struct core_job *job, struct one_job *one,
			    struct rota_prio_context *ctx)
{
	context(core, now, false, ctx);
	one->state = job_state(job);
	if (core->prio_rates_all)
		ctx->job_state = &one->state;
	ctx->job_deadline = &job->desc.deadline;
	ctx->job_otickets = &job->otickets;
	ctx->job_ftickets = &job->ftickets;
	job_range(job, &one->nmin, &one->nmax);
	ctx->job_cores_min = &one->nmin;
	ctx->job_cores_max = &one->nmax;
	one->gpus = job_gpus_total(job);
	ctx->job_gpus = &one->gpus;
	ctx->job_licenses = (const char *const *)&job->desc.licenses;
	queue_of(core, job, &one->qcores, &one->qmem, &one->qnodes,
		 &one->qgpus);
	ctx->job_queue_cores = &one->qcores;
	ctx->job_queue_mem_mb = &one->qmem;
	ctx->job_queue_nodes = &one->qnodes;
	ctx->job_queue_gpus = &one->qgpus;
}

void prio_enqueue(struct core *core, struct core_job *job, int64_t now)
{
	struct rota_prio_context ctx;
	struct rota_prio_job v;
	struct one_job one;

	job->otickets = job->ftickets = 0; /* none dealt until the next rating */
	one_job_context(core, now, job, &one, &ctx);
	view(core, rating_tree(core), job, now, 0, &v);
	if (core->prio_ops->compute(plugin_state(core->priority), &ctx, &v,
				    1) == 0) {
		store(core, job, v.priority, now);
		job->tickets = 0;
	}
	insert_ordered(core, job);
	if (core->prio_rates_all)
		core->prio_stale = true;
}

const char *core_prio_plugin(const struct core *core)
{
	return plugin_name(core->priority);
}

void core_prio_describe(const struct core *core, char *buf, size_t len)
{
	buf[0] = '\0';
	if (core->prio_ops->describe)
		core->prio_ops->describe(plugin_state(core->priority), buf,
					 len);
}

size_t core_prio_explain(struct core *core, const struct core_job *job,
			 struct rota_prio_factor *factors, size_t max)
{
	int64_t now = job->rated_at;
	struct rota_prio_context ctx;
	struct rota_prio_job v;
	struct one_job one;

	if (!core->prio_ops->explain ||
	    !(job->state == ROTA_JOB_PENDING ||
	      (core->prio_rates_all && job->state == ROTA_JOB_RUNNING)))
		return 0;
	one_job_context(core, now, job, &one, &ctx);
	/*
	 * The tickets of the rating that made its priority, not dealt
	 * afresh in today's order: the terms add up to the priority shown.
	 */
	view(core, share_tree(core->share), job, now, job->tickets, &v);
	v.priority = job->priority;
	return core->prio_ops->explain(plugin_state(core->priority), &ctx, &v,
				       factors, max);
}

const struct core_qos *core_qos_get(const struct core *core, uint32_t i)
{
	return i < core->nqos ? &core->qos[i] : NULL;
}
