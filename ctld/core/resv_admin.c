// SPDX-License-Identifier: MIT
/*
 * Advance reservations created, deleted and restored, and the checks a
 * job of one meets at submit (core.h, "Advance reservations"; "Layers":
 * top, for they place: a reservation's cores, a job in its reservation).
 * The table they change is resv.c's.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/xalloc.h"
#include "ctld/core/core_internal.h"
#include "ctld/core/resv.h"
#include "ctld/core/share.h"

#define RESV_NAME_MAX 64

/* ---- submit ------------------------------------------------------------ */

static bool listed(char *const *names, const char *name)
{
	for (size_t i = 0; names && names[i]; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

int resv_submit_check(struct core *core, const struct core_job *job,
		      struct rota_error *err)
{
	const struct core_resv *r;
	struct place_ctx total = { .core = core, .mode = PLACE_TOTAL };
	struct placement p;
	bool fits;

	if (!job->desc.reservation)
		return 0;
	r = core_resv_find(core, job->desc.reservation);
	if (!r)
		return rota_errorf(err, -ENOENT,
				   "--reservation=%s: no such reservation",
				   job->desc.reservation);
	/* a node of unknown size (not registered yet) may hold it */
	for (uint32_t i = 0; i < r->nparts; i++)
		if (!node_cores_total(&core->nodes[r->parts[i].node]))
			return 0;
	placement_init(core, &p);
	fits = place_job(&total, job, &p);
	placement_fini(core, &p);
	if (!fits)
		return rota_errorf(err, -EINVAL,
				   "--reservation=%s: the job does not fit in "
				   "the reservation's cores on the nodes of "
				   "queue '%s'",
				   r->name, core->queues[job->queue].name);
	return 0;
}

int resv_submit_allows(const struct core *core, const struct core_job *job,
		       const char *user, struct rota_error *err)
{
	const struct core_resv *r = core_resv_find(core, job->desc.reservation);
	const char *account;

	if (!r)
		return 0;
	if (r->users && !listed(r->users, user))
		return rota_errorf(err, -EPERM,
				   "--reservation=%s: not open to user '%s'",
				   r->name, user);
	account = share_assoc_account(core->share, job->assoc);
	if (r->accounts && !listed(r->accounts, account))
		return rota_errorf(err, -EPERM,
				   "--reservation=%s: not open to account "
				   "'%s'",
				   r->name, account);
	return 0;
}

/* ---- create, delete, restore ------------------------------------------- */

/*
 * Cores reservations hold on 'node' over [start, end); '*who' (if still
 * NULL) the first of them.
 */
static uint32_t reserved_over(const struct core *core, uint32_t node,
			      int64_t start, int64_t end,
			      const char **who)
{
	uint32_t sum = 0;

	for (size_t i = 0; i < core->nresv; i++) {
		const struct core_resv *r = &core->resv[i];
		const struct core_resv_part *p = resv_part_on(r, node);

		if (!p || r->end <= start || r->start >= end)
			continue;
		sum += core_resv_part_cores(core, r, (uint32_t)(p - r->parts));
		if (!*who)
			*who = r->name;
	}
	return sum;
}

/*
 * Cores of 'node' that running jobs will still hold at 't' (a job without
 * a limit, forever): as Slurm, a reservation is not laid over them.
 */
static uint32_t busy_at(const struct core *core, uint32_t node, int64_t t)
{
	uint32_t sum = 0;

	for (const struct core_job *j = core->running.head; j; j = j->next) {
		if (job_limit_end(j) <= t)
			continue;
		for (uint32_t k = 0; k < j->nalloc; k++)
			if (j->alloc[k].node == node)
				sum += j->alloc[k].ncores;
	}
	return sum;
}

/* The same two for GPUs: reserved over [start, end), busy at 'start'. */
static uint32_t gpus_held(const struct core *core, uint32_t node,
			  int64_t start, int64_t end)
{
	uint32_t sum = 0;

	for (size_t i = 0; i < core->nresv; i++) {
		const struct core_resv *r = &core->resv[i];
		const struct core_resv_part *p = resv_part_on(r, node);

		if (p && r->end > start && r->start < end)
			sum += core_resv_part_gpus(core, r,
						   (uint32_t)(p - r->parts));
	}
	for (const struct core_job *j = core->running.head; j; j = j->next) {
		if (job_limit_end(j) <= start)
			continue;
		for (uint32_t k = 0; k < j->nalloc; k++)
			if (j->alloc[k].node == node)
				sum += j->alloc[k].ngpus;
	}
	return sum;
}

static int check_name(const struct core *core, const char *name,
		      struct rota_error *err)
{
	size_t n = strlen(name);

	if (!n || n > RESV_NAME_MAX ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_.-") != n)
		return rota_errorf(err, -EINVAL,
				   "ReservationName=%s: 1 to %d letters, "
				   "digits, '_', '.' or '-'",
				   name, RESV_NAME_MAX);
	if (core_resv_find(core, name))
		return rota_errorf(err, -EEXIST,
				   "reservation '%s' already exists", name);
	return 0;
}

static bool account_known(const struct core *core, const char *name)
{
	for (uint32_t id = 0; id < share_assoc_count(core->share); id++)
		if (!share_assoc_is_user(core->share, id) &&
		    strcmp(share_assoc_name(core->share, id), name) == 0)
			return true;
	return false;
}

static int check_req(const struct core *core, int64_t now,
		     const struct core_resv_req *req, struct rota_error *err)
{
	int rc = req->name ? check_name(core, req->name, err) : 0;

	if (rc < 0)
		return rc;
	if (req->end <= req->start)
		return rota_errorf(err, -EINVAL,
				   "EndTime: not after StartTime");
	if (req->start < now)
		return rota_errorf(err, -EINVAL, "StartTime: in the past");
	if (!req->nodes && !req->core_count)
		return rota_errorf(err, -EINVAL,
				   "give Nodes=HOSTLIST or CoreCount=N: "
				   "what to reserve");
	/* whole nodes hold their GPUs; a count needs cores to run on */
	if (req->gpu_count && !req->core_count)
		return rota_errorf(err, -EINVAL,
				   "GpuCount=%u: give CoreCount=N too, the "
				   "cores its jobs run on (Nodes= alone "
				   "holds the nodes' GPUs)",
				   req->gpu_count);
	if (!req->users && !req->accounts)
		return rota_errorf(err, -EINVAL,
				   "give Users= or Accounts=: who may use it");
	for (char *const *a = req->accounts; a && *a; a++)
		if (!account_known(core, *a))
			return rota_errorf(err, -ENOENT,
					   "Accounts=%s: unknown account", *a);
	return 0;
}

/* The nodes asked, as indexes (all nodes without Nodes=). */
static int candidates(const struct core *core, const char *nodes,
		      uint32_t **out, size_t *n, struct rota_error *err)
{
	struct rota_hostlist *hl = NULL;
	struct rota_error why;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (!nodes) {
		*out = rota_xcalloc(core->nnodes + 1, sizeof(uint32_t));
		for (size_t i = 0; i < core->nnodes; i++)
			(*out)[(*n)++] = (uint32_t)i;
		return 0;
	}
	if (rota_hostlist_parse(nodes, &hl, &why) < 0)
		return rota_errorf(err, -EINVAL, "Nodes=%s: %s", nodes,
				   why.text);
	*out = rota_xcalloc(rota_hostlist_count(hl) + 1, sizeof(uint32_t));
	for (size_t i = 0; i < rota_hostlist_count(hl) && rc == 0; i++) {
		const char *name = rota_hostlist_nth(hl, i);
		uint32_t idx;

		if (!core_node_find(core, name, &idx))
			rc = rota_errorf(err, -ENOENT,
					 "Nodes=%s: unknown node '%s'", nodes,
					 name);
		for (size_t k = 0; rc == 0 && k < *n; k++)
			if ((*out)[k] == idx)
				rc = rota_errorf(err, -EINVAL,
						 "Nodes=%s: node '%s' twice",
						 nodes, name);
		if (rc == 0)
			(*out)[(*n)++] = idx;
	}
	rota_hostlist_destroy(hl);
	if (rc < 0) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

/*
 * Whole nodes: none may be in a reservation over the same span, nor run
 * a job then.
 */
static int take_nodes(const struct core *core, const struct core_resv_req *req,
		      const uint32_t *v, size_t n, struct core_resv *r,
		      struct rota_error *err)
{
	for (size_t i = 0; i < n; i++) {
		const char *who = NULL;

		reserved_over(core, v[i], req->start, req->end, &who);
		if (who)
			return rota_errorf(err, -EBUSY,
					   "Nodes=%s: node '%s' is in "
					   "reservation '%s' over that time",
					   req->nodes, core->nodes[v[i]].name,
					   who);
		if (busy_at(core, v[i], req->start))
			return rota_errorf(err, -EBUSY,
					   "Nodes=%s: node '%s' runs jobs that "
					   "will still run at StartTime",
					   req->nodes, core->nodes[v[i]].name);
		r->parts[r->nparts++] = (struct core_resv_part){
			.node = v[i], .whole = true };
	}
	return 0;
}

/* Cores of node 'v' free of reservations and jobs over the request. */
static uint32_t cores_left(const struct core *core,
			   const struct core_resv_req *req, uint32_t v)
{
	const char *who = NULL;
	uint32_t total = node_cores_total(&core->nodes[v]);
	uint32_t held = reserved_over(core, v, req->start, req->end, &who) +
			busy_at(core, v, req->start);

	return total > held ? total - held : 0;
}

/*
 * GpuCount=M: M GPUs, and cores beside them, on the candidates that
 * have free GPUs, in order; '*cores' is what is left to place.  A node's
 * share of the cores is its share of the GPUs (at least one: its GPUs'
 * jobs need a core there).
 */
static int take_gpus(const struct core *core,
		     const struct core_resv_req *req, const uint32_t *v,
		     size_t n, struct core_resv *r, uint32_t *cores,
		     struct rota_error *err)
{
	uint32_t left = req->gpu_count;

	for (size_t i = 0; i < n && left; i++) {
		uint32_t all = core->nodes[v[i]].ngpus;
		uint32_t held = gpus_held(core, v[i], req->start, req->end);
		uint32_t g = all > held ? all - held : 0;
		uint32_t c = cores_left(core, req, v[i]);
		uint32_t share;

		if (!g || !c || !*cores)
			continue;
		g = g < left ? g : left;
		share = (uint32_t)(((uint64_t)req->core_count * g +
				    req->gpu_count - 1) / req->gpu_count);
		c = c < share ? c : share;
		c = c < *cores ? c : *cores;
		r->parts[r->nparts++] = (struct core_resv_part){
			.node = v[i], .cores = c, .gpus = g };
		left -= g;
		*cores -= c;
	}
	if (left)
		return rota_errorf(err, -EBUSY,
				   "GpuCount=%u: only %u GPUs of %s, with "
				   "cores beside them, are free of other "
				   "reservations and of running jobs over "
				   "that time",
				   req->gpu_count, req->gpu_count - left,
				   req->nodes ? req->nodes : "the nodes");
	return 0;
}

/*
 * CoreCount=N over the candidates, in order, around other reservations
 * and the jobs that will still run at the start (GpuCount='s first).
 */
static int take_cores(const struct core *core,
		      const struct core_resv_req *req, const uint32_t *v,
		      size_t n, struct core_resv *r, struct rota_error *err)
{
	uint32_t left = req->core_count;
	int rc = take_gpus(core, req, v, n, r, &left, err);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n && left; i++) {
		struct core_resv_part *p = resv_part_on(r, v[i]);
		uint32_t c = cores_left(core, req, v[i]);

		if (p) /* its GPUs' cores are taken there already */
			c = c > p->cores ? c - p->cores : 0;
		if (!c)
			continue;
		c = c < left ? c : left;
		if (p)
			p->cores += c;
		else
			r->parts[r->nparts++] = (struct core_resv_part){
				.node = v[i], .cores = c };
		left -= c;
	}
	if (left)
		return rota_errorf(err, -EBUSY,
				   "CoreCount=%u: only %u cores of %s are "
				   "free of other reservations and of running "
				   "jobs over that time",
				   req->core_count, req->core_count - left,
				   req->nodes ? req->nodes : "the nodes");
	return 0;
}

/* The first "resvN" not taken, N from the new reservation's id. */
static char *new_name(const struct core *core, uint32_t id)
{
	char buf[32];

	for (;; id++) {
		snprintf(buf, sizeof(buf), "resv%u", id);
		if (!core_resv_find(core, buf))
			return rota_xstrdup(buf);
	}
}

static struct core_resv *append(struct core *core)
{
	core->resv = rota_xreallocarray(core->resv, core->nresv + 1,
					sizeof(*core->resv));
	core->resv[core->nresv] = (struct core_resv){ 0 };
	return &core->resv[core->nresv++];
}

int core_resv_create(struct core *core, int64_t now,
		     const struct core_resv_req *req,
		     const struct core_resv **out, struct rota_error *err)
{
	struct core_resv r = { .start = req->start, .end = req->end };
	uint32_t *v = NULL;
	size_t n = 0;
	int rc;

	if (out)
		*out = NULL;
	rc = check_req(core, now, req, err);
	if (rc == 0)
		rc = candidates(core, req->nodes, &v, &n, err);
	if (rc < 0)
		return rc;
	r.parts = rota_xcalloc(n + 1, sizeof(*r.parts));
	rc = req->core_count ? take_cores(core, req, v, n, &r, err)
			     : take_nodes(core, req, v, n, &r, err);
	free(v);
	if (rc == 0 && req->licenses)
		rc = licenses_resv_parse(core, req->licenses, &r, err);
	if (rc < 0) {
		free(r.parts);
		return rc;
	}
	r.id = ++core->resv_last_id;
	r.name = req->name ? rota_xstrdup(req->name) : new_name(core, r.id);
	r.core_count = req->core_count;
	r.gpu_count = req->gpu_count;
	r.users = core_names_copy(req->users);
	r.accounts = core_names_copy(req->accounts);
	*append(core) = r;
	resv_changed(core);
	resv_update(core, now);
	if (out)
		*out = core_resv_find(core, r.name);
	return 0;
}

int core_resv_delete(struct core *core, int64_t now, const char *name,
		     struct rota_error *err)
{
	(void)now;
	for (size_t i = 0; i < core->nresv; i++) {
		if (strcmp(core->resv[i].name, name) != 0)
			continue;
		resv_remove(core, i);
		resv_changed(core);
		return 0;
	}
	return rota_errorf(err, -ENOENT, "reservation '%s': not found", name);
}

int core_resv_restore(struct core *core, const struct core_resv_state *st,
		      struct rota_error *err)
{
	struct core_resv r = { 0 };
	const struct core_resv *old;

	if (!st->id || !st->name[0] || st->end <= st->start)
		return rota_errorf(err, -EINVAL,
				   "reservation '%s': inconsistent record",
				   st->name);
	r.parts = rota_xcalloc(st->nparts + 1, sizeof(*r.parts));
	for (uint32_t i = 0; i < st->nparts; i++) {
		struct core_resv_part *p = &r.parts[i];

		if (!core_node_find(core, st->nodes[i], &p->node)) {
			free(r.parts);
			return rota_errorf(err, -ENOENT,
					   "reservation '%s' holds node '%s', "
					   "which rota.conf no longer has",
					   st->name, st->nodes[i]);
		}
		p->cores = st->cores[i];
		p->whole = st->cores[i] == 0;
		p->gpus = st->gpus && !p->whole ? st->gpus[i] : 0;
	}
	/* one of that name that ended unrecorded: the last record wins */
	old = core_resv_find(core, st->name);
	if (old)
		resv_remove(core, (size_t)(old - core->resv));
	r.nparts = st->nparts;
	r.id = st->id;
	r.name = rota_xstrdup(st->name);
	r.start = st->start;
	r.end = st->end;
	r.core_count = st->core_count;
	r.gpu_count = st->gpu_count;
	/* as it was: licenses rota.conf no longer counts are none */
	if (st->licenses)
		licenses_resv_parse(core, st->licenses, &r,
				    &(struct rota_error){ { 0 } });
	r.users = core_names_copy(st->users);
	r.accounts = core_names_copy(st->accounts);
	*append(core) = r;
	if (st->id > core->resv_last_id)
		core->resv_last_id = st->id;
	resv_changed(core);
	return 0;
}
