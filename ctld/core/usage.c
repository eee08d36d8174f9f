// SPDX-License-Identifier: MIT
/*
 * Where jobs meet the account tree: which association a job charges, what
 * a running job costs, and when usage is charged, decayed and handed to
 * the journal (core.h, "Usage and fairshare").
 *
 * A running job is charged while it runs, not only at its end, as Slurm
 * and Grid Engine do: every PriorityCalcPeriod, at its end, and whenever
 * the host takes the usage for its journal.  Its charged_until mark makes
 * each second count once.  After a restart the journal's last usage record
 * (time T) already holds every charge up to T, so restored running jobs
 * are charged from max(T, start) on.
 *
 * Charging every running job is charging every association with running
 * jobs: each keeps the sum of their rates, so a re-rating makes one
 * charge per association, not per job.  A charge of all (at charged_all)
 * moves every running job's mark there; a job's own mark is the later of
 * that and its charged_until, and 'owed' sums rate x (mark - charged_all)
 * over the association's jobs: the part of the time since charged_all
 * that they were not running or were charged already.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/xalloc.h"
#include "ctld/core/core_internal.h"
#include "ctld/core/share.h"

/* TRESBillingWeights' weight of one GPU of 'type'. */
static double gpu_weight(const struct rota_billing *b, const char *type)
{
	for (size_t i = 0; i < b->ntyped; i++)
		if (!strcmp(b->typed[i].type, type))
			return b->typed[i].weight;
	return b->gpu;
}

/* Core-seconds per second of this job; 0 when usage is measured. */
static double job_rate(const struct core *core, const struct core_job *job)
{
	const struct rota_billing *b = &core->billing;
	double cores = 0, gpus = 0;

	if (!core->queues[job->queue].charge || core->measured)
		return 0;
	for (uint32_t i = 0; i < job->nalloc; i++) {
		const struct core_alloc *a = &job->alloc[i];
		const struct core_node *n = &core->nodes[a->node];

		cores += a->ncores;
		for (uint32_t g = 0; b->set && g < a->ngpus; g++)
			gpus += gpu_weight(b, a->gpus[g] < n->ngpus
						      ? n->gpus[a->gpus[g]].type
						      : "");
	}
	if (b->set) /* Slurm's sum: only the resources it names */
		return b->cpu * cores +
		       b->mem_gb * (double)job_total_mem(job) / 1024.0 + gpus;
	return cores + core->mem_weight * (double)job_total_mem(job) / 1024.0;
}

/* Up to where a running job is charged. */
static int64_t job_mark(const struct core *core, const struct core_job *job)
{
	return job->charged_until > core->charged_all ? job->charged_until
						      : core->charged_all;
}

double core_job_usage(const struct core *core, const struct core_job *job)
{
	int64_t end = job->end_time ? job->end_time : job_mark(core, job);

	if (core->measured)
		return job->meter.charged;
	if (!job->start_time || end <= job->start_time)
		return 0;
	return job_rate(core, job) * (double)(end - job->start_time);
}

void usage_charge_job(struct core *core, struct core_job *job, int64_t now)
{
	int64_t mark = job_mark(core, job);
	double rate = job_rate(core, job);

	if (now <= mark)
		return;
	share_charge(core->share, job->assoc, rate * (double)(now - mark), now);
	if (rate > 0)
		core->run[job->assoc].owed += rate * (double)(now - mark);
	job->charged_until = now;
	if (now > core->latest_mark)
		core->latest_mark = now;
}

#define GB (1024.0 * 1024.0 * 1024.0)

double core_meter_advance(struct core_meter *m,
			  const struct rota_usage_weights *w,
			  uint64_t cpu_usec, uint64_t mem_bytes,
			  uint64_t io_bytes)
{
	/* totals only grow: one below the mark is late, and adds nothing */
	double cpu = cpu_usec > m->cpu_usec
			     ? (double)(cpu_usec - m->cpu_usec) / 1e6
			     : 0;
	double io = io_bytes > m->io_bytes
			    ? (double)(io_bytes - m->io_bytes) / GB
			    : 0;
	/* Grid Engine's mem: GB in use x CPU seconds */
	double mem = (double)mem_bytes / GB * cpu;
	double sum = w->cpu + w->mem + w->io;
	double v = sum > 0 && !m->baseline
			   ? (w->cpu * cpu + w->mem * mem + w->io * io) / sum
			   : 0;

	if (cpu_usec > m->cpu_usec)
		m->cpu_usec = cpu_usec;
	if (io_bytes > m->io_bytes)
		m->io_bytes = io_bytes;
	if (mem_bytes)
		m->mem_bytes = mem_bytes;
	m->baseline = false;
	m->charged += v;
	return v;
}

void usage_charge_measured(struct core *core, struct core_job *job,
			   int64_t now, uint64_t cpu_usec, uint64_t mem_bytes,
			   uint64_t io_bytes)
{
	double v = core_meter_advance(&job->meter, &core->weights, cpu_usec,
				      mem_bytes, io_bytes);

	if (!core->queues[job->queue].charge) {
		job->meter.charged = 0;
		return;
	}
	share_charge(core->share, job->assoc, v, now);
}

int core_job_measured(struct core *core, int64_t now, const char *node,
		      const struct rota_job_sample *s, struct rota_error *err)
{
	struct core_job *job = jobtab_find(core, s->job_id);
	uint32_t idx;

	if (!core->measured)
		return rota_errorf(err, -EPERM,
				   "job %u: usage is not measured here "
				   "(UsageCharge=allocated)", s->job_id);
	if (!job || job->state != ROTA_JOB_RUNNING || s->run != job->run ||
	    !core_node_find(core, node, &idx) || job->alloc[0].node != idx)
		return rota_errorf(err, -ENOENT,
				   "job %u: run %u is not running on node '%s'",
				   s->job_id, s->run, node);
	usage_charge_measured(core, job, now, s->cpu_usec, s->mem_bytes,
			      s->io_bytes);
	return 0;
}

size_t core_usage_marks(const struct core *core,
			struct core_usage_mark **out)
{
	size_t n = 0;

	*out = NULL;
	if (!core->measured || !core->running.n)
		return 0;
	for (const struct core_job *j = core->running.head; j; j = j->next) {
		if (!j->meter.cpu_usec && !j->meter.io_bytes &&
		    !j->meter.baseline)
			continue;
		if (!*out)
			*out = rota_xcalloc(core->running.n, sizeof(**out));
		(*out)[n++] = (struct core_usage_mark){
			.job_id = j->id,
			.run = j->run,
			.cpu_usec = j->meter.cpu_usec,
			.io_bytes = j->meter.io_bytes,
			.charged = j->meter.charged,
			.baseline = j->meter.baseline,
		};
	}
	return n;
}

bool core_usage_is_measured(const struct core *core)
{
	return core->measured;
}

void core_usage_restore_marks(struct core *core,
			      const struct core_usage_mark *m, size_t n,
			      bool measured)
{
	free(core->marks);
	core->marks = NULL;
	core->nmarks = n;
	core->marks_measured = measured;
	if (!n)
		return;
	core->marks = rota_xcalloc(n, sizeof(*m));
	memcpy(core->marks, m, n * sizeof(*m));
}

void usage_marks_apply(struct core *core)
{
	/* allocated before: charged up to the record by the core-second */
	if (core->measured && !core->marks_measured)
		for (struct core_job *j = core->running.head; j; j = j->next)
			j->meter.baseline =
				j->start_time < core->usage_restored_at;
	for (size_t i = 0; i < core->nmarks; i++) {
		const struct core_usage_mark *m = &core->marks[i];
		struct core_job *j = jobtab_find(core, m->job_id);

		/* a run that ended or was requeued since starts afresh */
		if (!j || j->state != ROTA_JOB_RUNNING || j->run != m->run)
			continue;
		j->meter = (struct core_meter){
			.cpu_usec = m->cpu_usec,
			.io_bytes = m->io_bytes,
			.charged = m->charged,
			.baseline = m->baseline,
		};
	}
	free(core->marks);
	core->marks = NULL;
	core->nmarks = 0;
	core->marks_measured = core->measured;
}

void usage_run_add(struct core *core, const struct core_job *job)
{
	double rate = job_rate(core, job);
	struct usage_run *u;

	if (!(rate > 0))
		return;
	if (job->assoc >= core->run_cap) {
		size_t cap = share_assoc_count(core->share) + 16;

		core->run = rota_xreallocarray(core->run, cap,
					       sizeof(*core->run));
		core->run_ids = rota_xreallocarray(core->run_ids, cap,
						   sizeof(*core->run_ids));
		memset(core->run + core->run_cap, 0,
		       (cap - core->run_cap) * sizeof(*core->run));
		core->run_cap = cap;
	}
	u = &core->run[job->assoc];
	if (!u->jobs++) {
		u->pos = (uint32_t)core->nrun_ids;
		core->run_ids[core->nrun_ids++] = job->assoc;
	}
	u->rate += rate;
	u->owed += rate * (double)(job_mark(core, job) - core->charged_all);
	if (job_mark(core, job) > core->latest_mark)
		core->latest_mark = job_mark(core, job);
}

void usage_run_remove(struct core *core, const struct core_job *job)
{
	double rate = job_rate(core, job);
	struct usage_run *u;

	if (!(rate > 0))
		return;
	u = &core->run[job->assoc];
	u->rate -= rate;
	u->owed -= rate * (double)(job_mark(core, job) - core->charged_all);
	if (--u->jobs)
		return;
	/* no rounding left behind for the next job */
	u->rate = u->owed = 0;
	core->run_ids[u->pos] = core->run_ids[--core->nrun_ids];
	core->run[core->run_ids[u->pos]].pos = u->pos;
}

void usage_run_rebuild(struct core *core)
{
	if (core->run)
		memset(core->run, 0, core->run_cap * sizeof(*core->run));
	core->nrun_ids = 0;
	for (struct core_job *job = core->running.head; job; job = job->next)
		usage_run_add(core, job);
}

int usage_submit_assoc(struct core *core, struct core_job *job,
		       const char *user, struct rota_error *err)
{
	return share_assoc(core->share, user, job->desc.account, false,
			   &job->assoc, err);
}

void usage_submit_account(struct core *core, struct core_job *job)
{
	free(job->desc.account);
	job->desc.account =
		rota_xstrdup(share_assoc_account(core->share, job->assoc));
}

static void charge_running(struct core *core, int64_t now)
{
	if (now <= core->charged_all)
		return;
	if (now < core->latest_mark) {
		/* the clock went back below some job's mark: one by one */
		for (struct core_job *j = core->running.head; j; j = j->next)
			usage_charge_job(core, j, now);
		core->charged_all = now;
		usage_run_rebuild(core);
		return;
	}
	for (size_t k = 0; k < core->nrun_ids; k++) {
		uint32_t id = core->run_ids[k];
		struct usage_run *u = &core->run[id];

		share_charge(core->share, id,
			     u->rate * (double)(now - core->charged_all) -
				     u->owed,
			     now);
		u->owed = 0;
	}
	core->charged_all = now;
}

/* Charge, count and decay up to 'now'; the plugin runs when read. */
void usage_rerate(struct core *core, int64_t now)
{
	charge_running(core, now);
	core->last_calc = now;
	share_prepare(core->share, now);
}

int core_share_update(struct core *core, int64_t now)
{
	usage_rerate(core, now);
	return share_compute(core->share);
}

const struct rota_share_tree *core_share_tree(const struct core *core)
{
	return share_tree(core->share);
}

const char *core_share_plugin(const struct core *core)
{
	return share_plugin_name(core->share);
}

bool core_share_flux(const struct core *core)
{
	return share_flux_convention(core->share);
}

uint32_t core_job_share_index(const struct core *core,
			      const struct core_job *job)
{
	return share_view_index(core->share, job->assoc);
}

const char *core_job_department(const struct core *core,
				const struct core_job *job)
{
	return share_assoc_department(core->share, job->assoc);
}

size_t core_usage_take(struct core *core, int64_t now, bool all,
		       struct core_usage **out)
{
	size_t n = 0;

	*out = NULL;
	/* a record holds every charge up to its time: running jobs too */
	if (!share_is_dirty(core->share) && !all)
		return 0;
	charge_running(core, now);
	share_take_dirty(core->share);
	*out = rota_xcalloc(share_assoc_count(core->share) + 1,
			    sizeof(**out));
	for (uint32_t id = 0; id < share_assoc_count(core->share); id++) {
		double u = share_usage_at(core->share, id, now);

		if (!share_assoc_is_user(core->share, id) || u <= 0)
			continue;
		(*out)[n++] = (struct core_usage){
			.account = share_assoc_account(core->share, id),
			.user = share_assoc_name(core->share, id),
			.usage = u,
		};
	}
	return n;
}

void core_usage_restore(struct core *core, const struct core_usage *u,
			size_t n, int64_t at)
{
	share_usage_clear(core->share);
	for (size_t i = 0; i < n; i++)
		share_usage_set(core->share, u[i].account, u[i].user,
				u[i].usage, at);
	core->usage_restored_at = at;
}
