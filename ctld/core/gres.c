// SPDX-License-Identifier: MIT
/*
 * Generic resources other than GPUs (core_internal.h, "gres.c"): the
 * names rota.conf's GresTypes= declares (nvme, fpga), counted on the
 * nodes whose lines say how many (Gres=nvme:2), and asked for per node
 * with Slurm's --gres=nvme:1 (desc.gres).  They are counts only, as
 * Slurm's GRES without a device file: no device is named, no variable
 * set; a node's count is taken while a job holds it and given back at
 * its end.  A request is refused at submit for a name GresTypes does not
 * declare; placement (place.c, which also asks the profile of them),
 * backfill's profile (profile.c) and the
 * "could it ever fit" check count them wherever they count cores.  GPUs
 * keep their own path (gpus.c): they have devices.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/gres.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "ctld/core/core_internal.h"

void gres_init(struct core *core, const struct rota_conf *conf)
{
	size_t n = 0;

	while (conf->gres_types && conf->gres_types[n])
		n++;
	core->gres_types = core_names_copy(conf->gres_types);
	core->ngres_types = n;
}

void gres_fini(struct core *core)
{
	core_names_free(core->gres_types);
	core->gres_types = NULL;
	core->ngres_types = 0;
}

static int type_index(const struct core *core, const char *name)
{
	for (size_t i = 0; i < core->ngres_types; i++)
		if (!strcmp(core->gres_types[i], name))
			return (int)i;
	return -1;
}

int gres_job_parse(const struct core *core, struct core_job *job,
		   struct rota_error *err)
{
	struct rota_gres *v;
	size_t n;
	int rc;

	job->ngres = 0;
	if (!job->desc.gres)
		return 0;
	rc = rota_gres_parse(job->desc.gres, &v, &n, err);
	if (rc < 0)
		return rota_errorf(err, -EINVAL, "--gres: %s", err->text);
	job->gres = rota_xcalloc(n + 1, sizeof(*job->gres));
	for (size_t i = 0; i < n && rc == 0; i++) {
		int k = type_index(core, v[i].name);

		if (k < 0 || !strcmp(v[i].name, "gpu")) {
			rc = rota_errorf(err, -EINVAL,
					 "--gres=%s: '%s' is not a generic "
					 "resource of this cluster "
					 "(GresTypes=)",
					 job->desc.gres, v[i].name);
			break;
		}
		job->gres[job->ngres] = (struct core_gres){
			.idx = (uint32_t)k, .count = v[i].count };
		memcpy(job->gres[job->ngres++].type, v[i].type,
		       sizeof(v[i].type));
	}
	free(v);
	if (rc < 0) {
		free(job->gres);
		job->gres = NULL;
		job->ngres = 0;
	}
	return rc;
}

static bool entry_matches(const struct core *core, const struct rota_gres *e,
			  uint32_t idx, const char *type)
{
	return !strcmp(e->name, core->gres_types[idx]) &&
	       (!type || !type[0] || !strcmp(e->type, type));
}

uint32_t node_gres_count(const struct core *core, const struct core_node *n,
			 uint32_t idx, const char *type, bool free_only)
{
	uint32_t c = 0;

	for (size_t i = 0; i < n->ngres; i++) {
		uint32_t used = n->gres_used ? n->gres_used[i] : 0;

		if (!entry_matches(core, &n->gres[i], idx, type))
			continue;
		c += free_only ? (n->gres[i].count > used
					  ? n->gres[i].count - used
					  : 0)
			       : n->gres[i].count;
	}
	return c;
}

/*
 * 'g' taken from node 'n''s matching entries, in order ('take'), or given
 * back to them: no entry ever holds more than it has, nor less than 0.
 */
static void node_move(const struct core *core, struct core_node *n,
		      const struct core_gres *g, bool take)
{
	uint32_t left = g->count;

	for (size_t k = 0; k < n->ngres && left; k++) {
		uint32_t *u = &n->gres_used[k];
		uint32_t c;

		if (!entry_matches(core, &n->gres[k], g->idx, g->type))
			continue;
		if (take)
			c = n->gres[k].count > *u ? n->gres[k].count - *u : 0;
		else
			c = *u;
		c = c < left ? c : left;
		*u = take ? *u + c : *u - c;
		left -= c;
	}
}

/* The job takes its counts on each of its nodes, or gives them back. */
static void move(struct core *core, const struct core_job *job, bool take)
{
	for (uint32_t a = 0; a < job->nalloc; a++) {
		struct core_node *n = &core->nodes[job->alloc[a].node];

		if (!n->ngres)
			continue;
		if (!n->gres_used)
			n->gres_used = rota_xcalloc(n->ngres + 1,
						    sizeof(*n->gres_used));
		for (uint32_t i = 0; i < job->ngres; i++)
			node_move(core, n, &job->gres[i], take);
	}
}

void gres_job_take(struct core *core, const struct core_job *job)
{
	if (job->ngres)
		move(core, job, true);
}

void gres_job_give(struct core *core, const struct core_job *job)
{
	if (job->ngres)
		move(core, job, false);
}

char *core_job_gres_text(const struct core *core, const struct core_job *job,
			 const char *prefix)
{
	struct rota_strbuf b = { 0 };
	size_t len;

	if (!job->ngres)
		return NULL;
	for (uint32_t i = 0; i < job->ngres; i++) {
		const struct core_gres *g = &job->gres[i];

		rota_strbuf_addf(&b, "%s%s%s%s%s:%u", i ? "," : "", prefix,
				 core->gres_types[g->idx],
				 g->type[0] ? ":" : "", g->type, g->count);
	}
	return rota_strbuf_take(&b, &len);
}

int gres_explain(const struct core *core, const struct core_job *job,
		 struct rota_error *err)
{
	const struct core_queue *q = &core->queues[job->queue];

	for (uint32_t i = 0; i < job->ngres; i++) {
		const struct core_gres *g = &job->gres[i];
		uint32_t most = 0;

		for (size_t k = 0; k < q->nnodes; k++) {
			uint32_t c = node_gres_count(core,
						     &core->nodes[q->nodes[k]],
						     g->idx, g->type, false);

			most = c > most ? c : most;
		}
		if (g->count > most)
			return rota_errorf(err, -EINVAL,
					   "--gres=%s%s%s:%u: more than any "
					   "node of queue '%s' has (most: %u)",
					   core->gres_types[g->idx],
					   g->type[0] ? ":" : "", g->type,
					   g->count, q->name, most);
	}
	return 0;
}

void core_queue_gres(const struct core *core, const struct core_job *job,
		     uint32_t i, uint32_t *free_now, uint32_t *total)
{
	const struct core_queue *q = &core->queues[job->queue];
	const struct core_gres *g = &job->gres[i];

	*free_now = *total = 0;
	for (size_t k = 0; k < q->nnodes; k++) {
		const struct core_node *n = &core->nodes[q->nodes[k]];

		if (!node_is_usable(n))
			continue;
		*free_now += node_gres_count(core, n, g->idx, g->type, true);
		*total += node_gres_count(core, n, g->idx, g->type, false);
	}
}

char *core_node_gres_used(const struct core_node *n)
{
	struct rota_strbuf b = { 0 };
	size_t len;

	for (size_t i = 0; n->gres_used && i < n->ngres; i++) {
		const struct rota_gres *g = &n->gres[i];

		if (!n->gres_used[i])
			continue;
		rota_strbuf_addf(&b, "%s%s%s%s:%u", b.len ? "," : "", g->name,
				 g->type[0] ? ":" : "", g->type,
				 n->gres_used[i]);
	}
	return b.len ? rota_strbuf_take(&b, &len) : NULL;
}
