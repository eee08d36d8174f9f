// SPDX-License-Identifier: MIT
/*
 * The controller's side of jobcomp plugins (jobcomp.h): loading one per
 * JobComp line, the event-loop members of struct rota_host that they do
 * their I/O through, and building each finished job's record from the
 * core.  The plugins never see the core or the loop: a watcher or a timer
 * is a small wrapper here, so the ABI does not change with evloop.h.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/evloop.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/strbuf.h"
#include "common/units.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "ctld/core/plugin_host.h"
#include "ctld/ctld.h"
#include "ctld/jobcomp.h"
#include "ctld/step.h"

struct jobcomp {
	struct plugin **plugins;
	size_t n;
	struct rota_host io;	/* the loop members given to each plugin */
	char *state_dir;
};

struct rota_host_watch {
	struct rota_evloop *loop;
	struct rota_watch *w;
	rota_host_fd_fn cb;
	void *arg;
};

struct rota_host_timer {
	struct rota_timer *t;
	rota_host_timer_fn cb;
	void *arg;
};

/* ---- the event loop, as plugins see it ---------------------------------- */

static void watch_cb(struct rota_evloop *loop, int fd, unsigned events,
		     void *arg)
{
	struct rota_host_watch *hw = arg;

	(void)loop;
	hw->cb(fd, events, hw->arg);
}

static struct rota_host_watch *watch_fd(const struct rota_host *host, int fd,
					unsigned events, rota_host_fd_fn cb,
					void *arg)
{
	struct rota_host_watch *hw = rota_xcalloc(1, sizeof(*hw));

	hw->loop = host->loop_priv;
	hw->cb = cb;
	hw->arg = arg;
	hw->w = rota_evloop_add_fd(hw->loop, fd, events, watch_cb, hw);
	if (!hw->w) {
		free(hw);
		return NULL;
	}
	return hw;
}

static void watch_set(struct rota_host_watch *hw, unsigned events)
{
	rota_watch_set_events(hw->w, events);
}

static void free_cb(struct rota_evloop *loop, void *arg)
{
	(void)loop;
	free(arg);
}

static void watch_remove(struct rota_host_watch *hw)
{
	if (!hw)
		return;
	rota_watch_remove(hw->w);
	/* it may be our caller's own callback: free after the pass */
	rota_evloop_defer(hw->loop, free_cb, hw);
}

static void timer_cb(struct rota_evloop *loop, void *arg)
{
	struct rota_host_timer *ht = arg;
	rota_host_timer_fn cb = ht->cb;
	void *cb_arg = ht->arg;

	(void)loop;
	/* one-shot: gone once it fired, like the loop's own */
	free(ht);
	cb(cb_arg);
}

static struct rota_host_timer *timer_add(const struct rota_host *host,
					 int64_t ms, rota_host_timer_fn cb,
					 void *arg)
{
	struct rota_host_timer *ht = rota_xcalloc(1, sizeof(*ht));

	ht->cb = cb;
	ht->arg = arg;
	ht->t = rota_evloop_add_timer(host->loop_priv, ms < 0 ? 0 : ms, false,
				      timer_cb, ht);
	return ht;
}

static void timer_cancel(struct rota_host_timer *ht)
{
	if (!ht)
		return;
	rota_timer_cancel(ht->t);
	free(ht);
}

/* ---- the set -------------------------------------------------------------- */

int jobcomp_create(const struct rota_conf *conf, struct rota_evloop *loop,
		   struct jobcomp **out, struct rota_error *err)
{
	struct jobcomp *jc = rota_xcalloc(1, sizeof(*jc));
	int rc = 0;

	*out = NULL;
	/* plugins may keep host->state_dir: ours, not the conf's */
	jc->state_dir = rota_xstrdup(conf->state_dir);
	jc->io = (struct rota_host){
		.watch_fd = loop ? watch_fd : NULL,
		.watch_set = loop ? watch_set : NULL,
		.watch_remove = loop ? watch_remove : NULL,
		.timer_add = loop ? timer_add : NULL,
		.timer_cancel = loop ? timer_cancel : NULL,
		.state_dir = jc->state_dir,
		.check_only = !loop,
		.loop_priv = loop,
	};
	jc->plugins = rota_xcalloc(conf->nsections + 1, sizeof(*jc->plugins));
	for (size_t i = 0; i < conf->nsections && rc == 0; i++) {
		const struct rota_conf_section *s = &conf->sections[i];

		if (strcasecmp(s->kind, "JobComp") != 0)
			continue;
		rc = plugin_load_section(conf, s, ROTA_PLUGIN_JOBCOMP, NULL,
					 NULL, &jc->io, &jc->plugins[jc->n],
					 err);
		if (rc == 0)
			jc->n++;
	}
	if (rc < 0) {
		jobcomp_destroy(jc);
		return rc;
	}
	*out = jc;
	return 0;
}

void jobcomp_destroy(struct jobcomp *jc)
{
	if (!jc)
		return;
	for (size_t i = 0; i < jc->n; i++)
		plugin_unload(jc->plugins[i]);
	free(jc->plugins);
	free(jc->state_dir);
	free(jc);
}

size_t jobcomp_count(const struct jobcomp *jc)
{
	return jc ? jc->n : 0;
}

static bool section_equal(const struct rota_conf_section *a,
			  const struct rota_conf_section *b)
{
	if (strcasecmp(a->kind, b->kind) || strcmp(a->name, b->name) ||
	    a->nsettings != b->nsettings)
		return false;
	for (size_t i = 0; i < a->nsettings; i++) {
		if (strcasecmp(a->settings[i].key, b->settings[i].key) ||
		    strcmp(a->settings[i].value, b->settings[i].value))
			return false;
	}
	return true;
}

/* The i-th JobComp section of 'conf', or NULL. */
static const struct rota_conf_section *nth_jobcomp(const struct rota_conf *c,
						   size_t n)
{
	for (size_t i = 0; i < c->nsections; i++) {
		if (strcasecmp(c->sections[i].kind, "JobComp") == 0 && !n--)
			return &c->sections[i];
	}
	return NULL;
}

bool jobcomp_conf_equal(const struct rota_conf *a, const struct rota_conf *b)
{
	const struct rota_conf_section *sa, *sb;

	if (strcmp(a->state_dir, b->state_dir) != 0)
		return false;
	for (size_t i = 0;; i++) {
		sa = nth_jobcomp(a, i);
		sb = nth_jobcomp(b, i);
		if (!sa || !sb)
			return !sa && !sb;
		if (!section_equal(sa, sb))
			return false;
	}
}

/* ---- records --------------------------------------------------------------- */

static void record_fill(const struct core *core, const struct rota_conf *conf,
			const struct core_job *job, char *nodes,
			struct rota_jobcomp_record *r)
{
	uint32_t cores = 0;
	uint64_t mem = job->desc.mem_mb; /* never ran: as asked */

	for (uint32_t i = 0; i < job->nalloc; i++) {
		uint64_t m = core_job_node_mem(job, job->alloc[i].ncores);

		cores += job->alloc[i].ncores;
		if (m > mem) /* --mem-per-cpu: the most any one node held */
			mem = m;
	}
	*r = (struct rota_jobcomp_record){
		.id = job->id,
		.cluster = conf->cluster_name,
		.name = job->desc.name ? job->desc.name : "",
		.user = job->user,
		.uid = (uint32_t)job->uid,
		.gid = (uint32_t)job->gid,
		.account = job->desc.account ? job->desc.account : "",
		.queue = core_queue_get(core, job->queue)->name,
		.nodes = nodes,
		.cores = cores,
		.memory_mb = mem,
		.time_limit = job->time_limit,
		.submit = job->submit_time,
		/* no holds or dependencies yet: eligible once submitted */
		.eligible = job->submit_time,
		.start = job->start_time,
		.end = job->end_time,
		.exit_code = job->exit_code,
		.signal = job->term_signal,
		.state = rota_job_state_name(job->state),
		/* only pending jobs are rated: the last value is the one
		   it started with (not journaled: 0 after a restart) */
		.priority = job->priority,
		.usage = core_job_usage(core, job),
		.runs = job->run,
		.cpu_usec = job->cpu_usec,
		.mem_peak = job->mem_peak,
		.array_job_id = job->array_id,
		.array_task_id = job->array_task,
	};
}

/*
 * What the job held, as Slurm's AllocTRES: cores, memory in all, nodes,
 * GPUs (and of its type, when it named one); "" if it never ran.  Caller
 * frees.
 */
static char *record_tres(const struct core_job *job, uint32_t cores,
			 uint32_t gpus)
{
	struct rota_strbuf b = { 0 };
	uint64_t mem = 0;
	char text[32];
	size_t len;

	if (!job->nalloc)
		return rota_xstrdup("");
	for (uint32_t i = 0; i < job->nalloc; i++)
		mem += core_job_node_mem(job, job->alloc[i].ncores);
	rota_strbuf_addf(&b, "cpu=%u", cores);
	if (mem) {
		rota_size_format_mb(mem, text, sizeof(text));
		rota_strbuf_addf(&b, ",mem=%s", text);
	}
	rota_strbuf_addf(&b, ",node=%u", job->nalloc);
	if (gpus)
		rota_strbuf_addf(&b, ",gres/gpu=%u", gpus);
	if (gpus && job->desc.gpu_type)
		rota_strbuf_addf(&b, ",gres/gpu:%s=%u", job->desc.gpu_type,
				 gpus);
	return rota_strbuf_take(&b, &len);
}

/* The job's steps as its record lists them (caller frees the array). */
static struct rota_jobcomp_step *steps_fill(const struct ctld *ctld,
					    uint32_t id, uint32_t *n)
{
	const struct core_job *job = core_job_find(ctld->core, id);
	const struct ctld_step *s, *first =
		job ? steps_of_run(ctld, id, job->run) : NULL;
	struct rota_jobcomp_step *v;

	*n = 0;
	for (s = first; s; s = s->next)
		(*n)++;
	v = rota_xcalloc(*n ? *n : 1, sizeof(*v));
	*n = 0;
	for (s = first; s; s = s->next)
		v[(*n)++] = (struct rota_jobcomp_step){
			.id = s->id,
			.name = s->name,
			.ntasks = s->ntasks,
			.nodes = s->nodelist,
			.state = rota_job_state_name(s->state),
			.exit_code = s->exit_code,
			.failed_rank = s->failed_rank,
			.cpu_usec = s->cpu_usec,
			.start = s->start,
			.end = s->end,
		};
	return v;
}

/* 0 if every plugin took it. */
static int record_one(struct jobcomp *jc, const struct ctld *ctld,
		      const struct core_job *job)
{
	const struct core *core = ctld->core;
	struct rota_jobcomp_record r;
	char *nodes = job->nalloc ? core_job_nodelist(core, job)
				  : rota_xstrdup("");
	struct rota_jobcomp_step *steps;
	uint32_t nsteps;
	char *rest = NULL;
	char *tres, *gpu_idx;
	int failed = 0;

	record_fill(core, ctld->conf, job, nodes, &r);
	for (uint32_t i = 0; i < job->nalloc; i++)
		r.gpus += job->alloc[i].ngpus;
	r.tres = tres = record_tres(job, r.cores, r.gpus);
	r.gpu_idx = gpu_idx = core_job_gpu_idx(core, job);
	if (job->array)
		r.array_tasks = rest = rota_taskset_text(&job->array->tasks);
	steps = steps_fill(ctld, job->id, &nsteps);
	r.steps = steps;
	r.nsteps = nsteps;
	for (size_t i = 0; i < jc->n; i++) {
		const struct rota_jobcomp_ops *ops = plugin_ops(
			jc->plugins[i], offsetof(struct rota_jobcomp_ops, flush));
		int rc = ops->record(plugin_state(jc->plugins[i]), &r);

		if (rc < 0) {
			rota_err("job %u: jobcomp/%s: record not taken: %s",
				 job->id, plugin_name(jc->plugins[i]),
				 strerror(-rc));
			failed = rc;
		}
	}
	free(nodes);
	free(steps);
	free(rest);
	free(tres);
	free(gpu_idx);
	return failed;
}

void jobcomp_hand_over(struct ctld *ctld)
{
	struct jobcomp *jc = ctld->jobcomp;
	struct core *core = ctld->core;
	uint32_t *ids;
	size_t n = core_take_ended(core, &ids);
	size_t k = 0;

	if (n)
		steps_sweep(ctld); /* steps still running end with their job */
	for (size_t i = 0; jc && jc->n && i < n; i++) {
		const struct core_job *job = core_job_find(core, ids[i]);

		if (!job || job->recorded || record_one(jc, ctld, job))
			continue;
		ids[k++] = ids[i];
	}
	for (size_t i = 0; jc && i < jc->n && k; i++) {
		const struct rota_jobcomp_ops *ops = plugin_ops(
			jc->plugins[i], offsetof(struct rota_jobcomp_ops, flush));
		int rc = PLUGIN_OPS_HAS(ops, flush) && ops->flush
				 ? ops->flush(plugin_state(jc->plugins[i]))
				 : 0;

		if (rc < 0) {
			rota_err("jobcomp/%s: flush: %s",
				 plugin_name(jc->plugins[i]), strerror(-rc));
			k = 0; /* not safe: offered again at the next start */
		}
	}
	for (size_t i = 0; i < k; i++)
		core_job_recorded(core, ids[i]);
	free(ids);
}
