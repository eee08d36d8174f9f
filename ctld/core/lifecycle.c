// SPDX-License-Identifier: MIT
/*
 * The core's lifecycle (core.h, "Layers": top): its tables built from
 * rota.conf (nodes, queues and the cores test queues keep), its plugins
 * loaded, and all of it freed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/conf.h"
#include "common/xalloc.h"
#include "ctld/core/core_internal.h"
#include "ctld/core/plugin_host.h"
#include "ctld/core/profile.h"
#include "ctld/core/resv.h"
#include "ctld/core/share.h"

static void init_nodes(struct core *core, const struct rota_conf *conf)
{
	core->nnodes = conf->nnodes;
	core->nodes = rota_xcalloc(conf->nnodes ? conf->nnodes : 1,
				   sizeof(*core->nodes));
	for (size_t i = 0; i < conf->nnodes; i++) {
		const struct rota_conf_node *c = &conf->nodes[i];
		struct core_node *n = &core->nodes[i];
		size_t nf = 0;

		n->name = rota_xstrdup(c->name);
		n->addr = rota_xstrdup(c->addr ? c->addr : c->name);
		while (c->features[nf])
			nf++;
		n->features = rota_xcalloc(nf + 1, sizeof(char *));
		for (size_t f = 0; f < nf; f++)
			n->features[f] = rota_xstrdup(c->features[f]);
		n->cfg_cores = c->cpus;
		n->cfg_memory_mb = c->memory_mb;
		node_gres_init(n, c);
		n->cores = c->cpus;
		n->memory_mb = c->memory_mb;
		if (n->cores)
			n->core_busy = rota_xcalloc(n->cores, 1);
		snprintf(n->reason, sizeof(n->reason), "not registered");
	}
}

/*
 * ReservedCores: on every node a test queue shares with an ordinary
 * queue, that many cores are kept for test jobs (Grid Engine's Maxwell
 * keeps cores free for quick test jobs).  The kept cores are one pool per
 * node, shared by all the test queues on it, as a Grid Engine site does
 * it with slots (host 40, s.q 38, t.q and u.q 40 each: 2 stay for t and
 * u together); when they give different counts the largest is kept.  A
 * node only test queues use keeps nothing: all its cores are theirs.
 */
static void reserve_test_cores(struct core *core)
{
	bool *shared = rota_xcalloc(core->nnodes + 1, sizeof(bool));

	for (size_t q = 0; q < core->nqueues; q++) {
		if (core->queues[q].reserved_cores)
			continue;
		for (size_t k = 0; k < core->queues[q].nnodes; k++)
			shared[core->queues[q].nodes[k]] = true;
	}
	for (size_t q = 0; q < core->nqueues; q++) {
		const struct core_queue *tq = &core->queues[q];

		for (size_t k = 0; k < tq->nnodes && tq->reserved_cores; k++) {
			struct core_node *n = &core->nodes[tq->nodes[k]];

			if (shared[tq->nodes[k]] &&
			    tq->reserved_cores > n->test_reserved)
				n->test_reserved = tq->reserved_cores;
		}
	}
	free(shared);
}

static void init_queues(struct core *core, const struct rota_conf *conf)
{
	const struct rota_conf_queue *def = rota_conf_default_queue(conf);

	core->nqueues = conf->nqueues;
	core->queues = rota_xcalloc(conf->nqueues ? conf->nqueues : 1,
				    sizeof(*core->queues));
	core->queue_blocked = rota_xcalloc(conf->nqueues ? conf->nqueues : 1,
					   sizeof(bool));
	core->blocked_before = rota_xcalloc(conf->nqueues ? conf->nqueues : 1,
					    sizeof(bool));
	core->queue_pending = rota_xcalloc(conf->nqueues ? conf->nqueues : 1,
					   sizeof(uint32_t));
	core->queue_tried = rota_xcalloc(conf->nqueues ? conf->nqueues : 1,
					 sizeof(uint32_t));
	for (size_t i = 0; i < conf->nqueues; i++) {
		const struct rota_conf_queue *c = &conf->queues[i];
		struct core_queue *q = &core->queues[i];

		q->name = rota_xstrdup(c->name);
		q->default_time = c->default_time;
		q->max_time = c->max_time;
		q->priority_tier = c->priority_tier;
		q->charge = c->charge;
		q->priority = c->priority;
		q->reserved_cores = c->reserved_cores;
		q->allow_users = core_names_copy(c->allow_users);
		q->allow_accounts = core_names_copy(c->allow_accounts);
		q->is_default = c == def;
		if (q->is_default)
			core->default_queue = (uint32_t)i;
		q->nodes = rota_xcalloc(c->nnodes ? c->nnodes : 1,
					sizeof(uint32_t));
		for (size_t k = 0; k < c->nnodes; k++) {
			uint32_t idx = 0;

			/* conf.c has checked every queue node is declared */
			core_node_find(core, c->nodes[k], &idx);
			q->nodes[q->nnodes++] = idx;
		}
	}
	reserve_test_cores(core);
}

/* Settings of the Fairshare line that the core reads, not the plugin. */
static const char *const fairshare_host_keys[] = { "Convention", NULL };

/* FAIRSHARE_KEYS */
static int init_plugins(struct core *core, const struct rota_conf *conf,
			struct rota_error *err)
{
	static const char *const conventions[] = { "native", "flux", NULL };
	unsigned convention = 0;
	int rc = plugin_load(conf, ROTA_PLUGIN_FAIRSHARE, "fairtree",
			     fairshare_host_keys, &core->fairshare, err);

	if (rc == 0)
		rc = plugin_host(core->fairshare)
			     ->conf_choice(plugin_conf(core->fairshare),
					   "Convention", conventions,
					   &convention, err->text,
					   sizeof(err->text));
	if (rc < 0)
		return rc;
	core->share = share_create(conf, core->fairshare, convention == 1);
	return 0;
}

int core_create(const struct rota_conf *conf, struct core **out,
		struct rota_error *err)
{
	struct core *core = rota_xcalloc(1, sizeof(*core));
	int rc;

	*out = NULL;
	init_nodes(core, conf);
	node_index_build(core);
	init_queues(core, conf);
	core->next_id = 1;
	core->node_timeout = conf->node_timeout;
	core->node_lease = conf->node_lease;
	core->min_job_age = conf->min_job_age;
	core->mem_weight = conf->usage_mem_weight;
	licenses_init(core, conf);
	gres_init(core, conf);
	core->billing = conf->billing;
	core->measured = conf->usage_charge == ROTA_CHARGE_MEASURED;
	core->weights = conf->usage_weights;
	core->calc_period = conf->priority_calc_period;
	core->sched_depth = conf->sched_depth;
	core->queue_depth = conf->sched_queue_depth;
	core->hold_nodes = conf->sched_hold_nodes;
	core->node_held = rota_xcalloc(core->nnodes + 1, sizeof(bool));
	core->max_array_size = conf->max_array_size ? conf->max_array_size
						    : ROTA_ARRAY_SIZE_DEFAULT;
	core->sched_max_us = conf->sched_max_time * 1000000;
	rc = init_plugins(core, conf, err);
	if (rc == 0)
		rc = prio_init(core, conf, err);
	if (rc == 0)
		rc = limits_init(core, conf, err);
	if (rc == 0)
		rc = sched_init(core, conf, err);
	if (rc < 0) {
		core_destroy(core);
		return rc;
	}
	*out = core;
	return 0;
}

void core_set_work_clock(struct core *core, int64_t (*fn)(void))
{
	core->work_clock = fn;
}

void core_set_every_pass(struct core *core, bool every)
{
	core->every_pass = every;
}

static void free_list(struct job_list *l)
{
	struct core_job *job, *next;

	for (job = l->head; job; job = next) {
		next = job->next;
		core_job_free(job);
	}
}

void core_destroy(struct core *core)
{
	if (!core)
		return;
	cursor_orphan_all(core); /* before the lists go */
	free_list(&core->pending);
	free_list(&core->running);
	free_list(&core->done);
	profile_base_destroy(core);
	depend_fini(core);
	jobtab_fini(core);
	free(core->run);
	free(core->marks);
	free(core->run_ids);
	free(core->pl_node);
	free(core->pl_tasks);
	for (size_t i = 0; i < core->nnodes; i++) {
		struct core_node *n = &core->nodes[i];

		free(n->name);
		free(n->addr);
		for (char **f = n->features; *f; f++)
			free(*f);
		free(n->features);
		free(n->core_busy);
		node_gres_fini(n);
	}
	for (size_t i = 0; i < core->nqueues; i++) {
		free(core->queues[i].name);
		free(core->queues[i].nodes);
		core_names_free(core->queues[i].allow_users);
		core_names_free(core->queues[i].allow_accounts);
	}
	free(core->nodes);
	free(core->node_slots);
	free(core->queues);
	free(core->queue_blocked);
	free(core->blocked_before);
	free(core->node_held);
	free(core->queue_pending);
	free(core->queue_tried);
	free(core->actions);
	free(core->dirty);
	changes_fini(core);
	sched_fini(core);
	limits_fini(core);
	licenses_fini(core);
	gres_fini(core);
	prio_fini(core);
	free(core->ended);
	resv_fini(core);
	array_tally_fini(core);
	share_destroy(core->share);
	plugin_unload(core->fairshare);
	free(core);
}
