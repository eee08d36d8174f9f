// SPDX-License-Identifier: MIT
/* Job steps in the controller (see step.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/auth.h"
#include "common/conn.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "ctld/ctld.h"
#include "ctld/step.h"

/* The steps of one run of one job, and which of its cores they hold. */
struct jobsteps {
	uint32_t job_id;
	uint32_t run;
	uint32_t next_id;
	bool over;		/* its run ended: its nodes were told */
	uint32_t nalloc;
	uint32_t *node;		/* the job's alloc[i].node */
	uint8_t **held;		/* held[i][k]: alloc[i].cores[k] is a step's */
	struct ctld_step *steps;
	struct ctld_step *last;
	struct jobsteps *next;
};

static void step_free(struct ctld_step *s)
{
	for (uint32_t i = 0; i < s->nnodes; i++)
		free(s->cores[i]);
	free(s->cores);
	free(s->ncores);
	free(s->count);
	free(s->alloc_index);
	free(s->nodelist);
	free(s->name);
	free(s->text);
	free(s);
}

static void jobsteps_free(struct jobsteps *js)
{
	while (js->steps) {
		struct ctld_step *s = js->steps;

		js->steps = s->next;
		step_free(s);
	}
	for (uint32_t i = 0; i < js->nalloc; i++)
		free(js->held[i]);
	free(js->held);
	free(js->node);
	free(js);
}

static struct jobsteps *jobsteps_find(const struct ctld *ctld, uint32_t id)
{
	for (struct jobsteps *js = ctld->steps; js; js = js->next)
		if (js->job_id == id)
			return js;
	return NULL;
}

/* The job's entry for its current run, made (or made anew) as needed. */
static struct jobsteps *jobsteps_get(struct ctld *ctld,
				     const struct core_job *job)
{
	struct jobsteps *js = jobsteps_find(ctld, job->id);

	if (js && js->run == job->run)
		return js;
	if (js) {
		/* an earlier run's, already told to end: forget it */
		struct jobsteps **pp = &ctld->steps;

		while (*pp != js)
			pp = &(*pp)->next;
		*pp = js->next;
		jobsteps_free(js);
	}
	js = rota_xcalloc(1, sizeof(*js));
	js->job_id = job->id;
	js->run = job->run;
	js->nalloc = job->nalloc;
	js->node = rota_xcalloc(job->nalloc, sizeof(*js->node));
	js->held = rota_xcalloc(job->nalloc, sizeof(*js->held));
	for (uint32_t i = 0; i < job->nalloc; i++) {
		js->node[i] = job->alloc[i].node;
		js->held[i] = rota_xcalloc(job->alloc[i].ncores, 1);
	}
	js->next = ctld->steps;
	ctld->steps = js;
	return js;
}

/* The layout a request asks for, before cores are picked. */
struct layout {
	uint32_t ncand;
	uint32_t *cand;		/* alloc indexes the step may use */
	uint32_t *count;	/* tasks on each candidate */
	uint32_t ntasks;
	uint32_t cpt;
	uint32_t tpn;		/* at most this many per node; 0: no bound */
	bool overlap;
};

static uint32_t free_cores(const struct core_job *job,
			   const struct jobsteps *js, uint32_t i)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < job->alloc[i].ncores; k++)
		n += !js->held[i][k];
	return n;
}

/* How many tasks candidate c could take: of all its cores, or free ones. */
static uint32_t room(const struct core_job *job, const struct jobsteps *js,
		     const struct layout *l, uint32_t c, bool now)
{
	uint32_t i = l->cand[c];
	uint32_t n = l->overlap ? ROTA_STEP_TASKS_MAX
		     : now	? free_cores(job, js, i) / l->cpt
				: job->alloc[i].ncores / l->cpt;

	return l->tpn && l->tpn < n ? l->tpn : n;
}

static const char *alloc_name(const struct ctld *ctld,
			      const struct core_job *job, uint32_t i)
{
	return core_node_get(ctld->core, job->alloc[i].node)->name;
}

static int candidates(struct ctld *ctld, const struct core_job *job,
		      const struct rota_msg_step_create *req, struct layout *l,
		      struct rota_error *err)
{
	l->cand = rota_xcalloc(job->nalloc, sizeof(*l->cand));
	l->count = rota_xcalloc(job->nalloc, sizeof(*l->count));
	if (!req->nodelist) {
		for (uint32_t i = 0; i < job->nalloc; i++)
			l->cand[l->ncand++] = i;
		return 0;
	}
	struct rota_hostlist *hl;
	int rc = rota_hostlist_parse(req->nodelist, &hl, err);
	uint32_t i = 0;

	if (rc < 0)
		return rc;
	for (size_t h = 0; rc == 0 && h < rota_hostlist_count(hl); h++) {
		const char *name = rota_hostlist_nth(hl, h);

		for (i = 0; i < job->nalloc; i++)
			if (strcmp(alloc_name(ctld, job, i), name) == 0)
				break;
		if (i == job->nalloc)
			rc = rota_errorf(err, -EINVAL,
					 "node '%s' is not one of job %u's",
					 name, job->id);
		/* a node named twice is one node, as Slurm has it */
		for (uint32_t c = 0; rc == 0 && c < l->ncand; c++)
			if (l->cand[c] == i)
				i = job->nalloc;
		if (rc == 0 && i < job->nalloc)
			l->cand[l->ncand++] = i;
	}
	rota_hostlist_destroy(hl);
	return rc;
}

/*
 * Keep 'nodes' of the candidates, in their order: those with room for a
 * task now first, then those that could ever hold one, then the rest.  A
 * step of fewer nodes than its job's goes where its cores are free.
 */
static void choose(const struct core_job *job, const struct jobsteps *js,
		   struct layout *l, uint32_t nodes)
{
	uint8_t *rank = rota_xcalloc(l->ncand, 1);
	uint32_t n = 0;

	for (uint32_t c = 0; c < l->ncand; c++)
		rank[c] = room(job, js, l, c, true) ? 0
			  : room(job, js, l, c, false) ? 1
						       : 2;
	for (uint8_t want = 0; want < 3; want++)
		for (uint32_t c = 0; n < nodes && c < l->ncand; c++)
			if (rank[c] == want) {
				rank[c] = 3; /* kept */
				n++;
			}
	n = 0;
	for (uint32_t c = 0; c < l->ncand; c++)
		if (rank[c] == 3)
			l->cand[n++] = l->cand[c];
	l->ncand = n;
	free(rank);
}

/* How many tasks, on how many nodes: -n, -N, --ntasks-per-node, -c. */
static int count_tasks(const struct core_job *job, const struct jobsteps *js,
		       const struct rota_msg_step_create *req,
		       struct layout *l, struct rota_error *err)
{
	uint32_t nodes = req->nnodes ? req->nnodes : l->ncand;
	uint64_t ntasks = req->ntasks;

	if (nodes > l->ncand)
		return rota_errorf(err, -EINVAL,
				   "%u nodes asked for: job %u has %u", nodes,
				   job->id, l->ncand);
	if (req->nnodes)
		choose(job, js, l, nodes);
	if (!ntasks && req->overlap)
		ntasks = nodes;
	if (!ntasks && req->ntasks_per_node)
		ntasks = (uint64_t)req->ntasks_per_node * nodes;
	if (!ntasks)
		for (uint32_t c = 0; c < nodes; c++)
			ntasks += job->alloc[l->cand[c]].ncores / l->cpt;
	if (ntasks > ROTA_STEP_TASKS_MAX)
		return rota_errorf(err, -EINVAL, "%llu tasks: more than %u",
				   (unsigned long long)ntasks,
				   ROTA_STEP_TASKS_MAX);
	if (!req->nnodes) {
		uint32_t able = 0;

		if (req->ntasks_per_node)
			nodes = (uint32_t)((ntasks + req->ntasks_per_node -
					    1) / req->ntasks_per_node);
		if (nodes > ntasks)
			nodes = (uint32_t)ntasks;
		/* not on nodes too small for one task (-c), if others are */
		for (uint32_t c = 0; c < l->ncand; c++)
			able += room(job, js, l, c, false) > 0;
		if (nodes > able && able)
			nodes = able;
		if (nodes > l->ncand)
			nodes = l->ncand;
		choose(job, js, l, nodes);
	}
	l->ntasks = (uint32_t)ntasks;
	if (l->ntasks == 0 || l->ntasks < nodes)
		return rota_errorf(err, -EINVAL,
				   "%u tasks cannot cover %u nodes", l->ntasks,
				   nodes);
	if (l->tpn && ntasks > (uint64_t)l->tpn * nodes)
		return rota_errorf(err, -EINVAL,
				   "%u tasks at most %u per node do not fit "
				   "%u nodes",
				   l->ntasks, l->tpn, nodes);
	return 0;
}

/* Could the chosen nodes hold the step once the job's other steps end? */
static int can_fit(const struct ctld *ctld, const struct core_job *job,
		   const struct jobsteps *js, const struct layout *l,
		   struct rota_error *err)
{
	uint64_t fit = 0;

	for (uint32_t c = 0; c < l->ncand; c++) {
		uint32_t i = l->cand[c];
		uint32_t r = room(job, js, l, c, false);

		/* every node of a step has a task: this one never could */
		if (!r)
			return rota_errorf(err, -EINVAL,
					   "node '%s' of job %u has %u cores: "
					   "not one task of %u cpus",
					   alloc_name(ctld, job, i), job->id,
					   job->alloc[i].ncores, l->cpt);
		fit += r;
	}
	if (fit < l->ntasks)
		return rota_errorf(err, -EINVAL,
				   "%u tasks of %u cpus do not fit job %u's "
				   "%llu on %u nodes",
				   l->ntasks, l->cpt, job->id,
				   (unsigned long long)fit * l->cpt, l->ncand);
	return 0;
}

/*
 * How many tasks on which nodes, Slurm's arithmetic: -N nodes, -n tasks
 * (default one per core of those nodes, or ntasks-per-node each), spread
 * evenly over the nodes (with --ntasks-per-node: that many on each, as
 * long as every node after gets one); a node short of free cores passes
 * its share on.  -EINVAL when the job can never hold the step, -EBUSY
 * while its other steps hold the cores.
 */
static int lay_out(struct ctld *ctld, const struct core_job *job,
		   const struct jobsteps *js,
		   const struct rota_msg_step_create *req, struct layout *l,
		   struct rota_error *err)
{
	uint32_t nodes, left;
	int rc = candidates(ctld, job, req, l, err);

	if (rc < 0)
		return rc;
	l->cpt = req->cpus_per_task ? req->cpus_per_task : 1;
	l->tpn = req->ntasks_per_node;
	l->overlap = req->overlap;
	rc = count_tasks(job, js, req, l, err);
	if (rc == 0)
		rc = can_fit(ctld, job, js, l, err);
	if (rc < 0)
		return rc;
	nodes = l->ncand;
	/* even shares, the first nodes taking the remainder */
	left = l->ntasks;
	for (uint32_t c = 0; c < nodes; c++) {
		uint32_t share = l->tpn ? left - (nodes - c - 1)
					: l->ntasks / nodes +
						  (c < l->ntasks % nodes);
		uint32_t cap = room(job, js, l, c, true);

		if (l->tpn && share > l->tpn)
			share = l->tpn;
		l->count[c] = share < cap ? share : cap;
		left -= l->count[c];
	}
	/* what a busy node could not take goes to nodes with room */
	for (uint32_t c = 0; left && c < nodes; c++) {
		uint32_t more = room(job, js, l, c, true) - l->count[c];

		more = more < left ? more : left;
		l->count[c] += more;
		left -= more;
	}
	for (uint32_t c = 0; c < nodes; c++)
		if (l->count[c] == 0)
			left = left ? left : 1;
	if (left)
		return rota_errorf(err, -EBUSY,
				   "job %u's other steps hold its cores: %u of "
				   "%u tasks fit now",
				   job->id, l->ntasks - left, l->ntasks);
	return 0;
}

/* Take the cores of a laid-out step (none held when it overlaps). */
static void take_cores(const struct core_job *job, struct jobsteps *js,
		       const struct layout *l, bool overlap,
		       struct ctld_step *s)
{
	for (uint32_t c = 0; c < l->ncand; c++) {
		uint32_t i = l->cand[c];
		const struct core_alloc *a = &job->alloc[i];
		uint32_t want = overlap ? a->ncores : l->count[c] * l->cpt;

		s->cores[c] = rota_xcalloc(want ? want : 1, sizeof(uint32_t));
		for (uint32_t k = 0; k < a->ncores && s->ncores[c] < want;
		     k++) {
			if (!overlap && js->held[i][k])
				continue;
			if (!overlap)
				js->held[i][k] = 1;
			s->cores[c][s->ncores[c]++] = a->cores[k];
		}
	}
}

static void give_back(struct jobsteps *js, const struct core_job *job,
		      const struct ctld_step *s)
{
	if (s->overlap || !job || job->run != js->run)
		return;
	for (uint32_t c = 0; c < s->nnodes; c++) {
		uint32_t i = s->alloc_index[c];

		for (uint32_t m = 0; m < s->ncores[c]; m++)
			for (uint32_t k = 0; k < job->alloc[i].ncores; k++)
				if (job->alloc[i].cores[k] == s->cores[c][m])
					js->held[i][k] = 0;
	}
}

/* The step's node names in its order, NULL-terminated (borrowed). */
static char **step_names(struct ctld *ctld, const struct core_job *job,
			 const struct ctld_step *s)
{
	char **names = rota_xcalloc(s->nnodes + 1, sizeof(char *));

	for (uint32_t c = 0; c < s->nnodes; c++)
		names[c] = core_node_get(ctld->core,
					 job->alloc[s->alloc_index[c]].node)
				   ->name;
	return names;
}

static char *step_nodelist(struct ctld *ctld, const struct core_job *job,
			   const struct ctld_step *s)
{
	char **names = step_names(ctld, job, s);
	char *text = rota_hostlist_format((const char *const *)names,
					  s->nnodes);

	free(names);
	return text;
}

static int seal_creds(struct ctld *ctld, const struct core_job *job,
		      const struct ctld_step *s,
		      struct rota_msg_step_create_reply *reply,
		      struct rota_error *err)
{
	char **names = step_names(ctld, job, s);
	int rc = 0;

	reply->nodes = rota_xcalloc(s->nnodes, sizeof(*reply->nodes));
	for (uint32_t c = 0; rc == 0 && c < s->nnodes; c++) {
		uint32_t idx = job->alloc[s->alloc_index[c]].node;
		struct peer *link = ctld->node_links[idx];
		struct rota_step_node *n = &reply->nodes[c];
		struct rota_step_cred cred = {
			.job_id = job->id,
			.run = job->run,
			.step_id = s->id,
			.uid = (uint32_t)job->uid,
			.gid = (uint32_t)job->gid,
			.node = names[c],
			.node_id = c,
			.nodes = names,
			.counts = s->count,
			.nnodes = s->nnodes,
			.cores = s->cores[c],
			.ncores = s->ncores[c],
			.cpus_per_task = s->cpus_per_task,
			.overlap = s->overlap,
			.mem_mb = core_job_node_mem(
				job, job->alloc[s->alloc_index[c]].ncores),
			.end_time = job->time_limit
					    ? job->start_time + job->time_limit
					    : 0,
			/* for a launch now, not after the job has ended */
			.expires = ctld_now(ctld) + STEP_CRED_TTL,
			.gpus = job->alloc[s->alloc_index[c]].gpus,
			.ngpus = job->alloc[s->alloc_index[c]].ngpus,
		};
		size_t len;
		char *body;

		reply->nnodes = c + 1;
		n->name = rota_xstrdup(names[c]);
		if (!link || !link->step_port) {
			rc = rota_errorf(err, -EBUSY,
					 "node '%s' %s", names[c],
					 link ? "takes no job steps (an older "
						"rota-noded)"
					      : "is not connected");
			break;
		}
		n->addr = rota_xstrdup(rota_conn_peer_addr(link->conn));
		n->port = link->step_port;
		n->uid = link->step_uid;
		n->ntasks = s->count[c];
		body = rota_step_cred_encode(&cred, &len);
		rc = rota_auth_seal(ctld->auth, link->step_uid, body, len,
				    &n->cred, err);
		free(body);
	}
	free(names);
	return rc;
}

/*
 * A loop of `rota run` must not grow the controller: past STEP_KEEP ended
 * steps, the oldest ended ones go (running ones stay, whatever their age).
 */
static void forget_old(struct jobsteps *js)
{
	size_t ended = 0;
	struct ctld_step **pp = &js->steps, *prev = NULL;

	for (const struct ctld_step *s = js->steps; s; s = s->next)
		ended += s->state != ROTA_JOB_RUNNING;
	while (*pp && ended > STEP_KEEP) {
		struct ctld_step *s = *pp;

		if (s->state == ROTA_JOB_RUNNING) {
			prev = s;
			pp = &s->next;
			continue;
		}
		*pp = s->next;
		if (js->last == s)
			js->last = prev;
		step_free(s);
		ended--;
	}
}

int steps_create(struct ctld *ctld, uid_t uid,
		 const struct rota_msg_step_create *req,
		 struct rota_msg_step_create_reply *reply,
		 struct rota_error *err)
{
	const struct core_job *job = core_job_find(ctld->core, req->job_id);
	struct layout l = { 0 };
	struct jobsteps *js;
	struct ctld_step *s;
	int rc;

	*reply = (struct rota_msg_step_create_reply){ 0 };
	if (!job || job->state != ROTA_JOB_RUNNING || !job->nalloc)
		return rota_errorf(err, -ENOENT, "job %u: not running",
				   req->job_id);
	if (uid != job->uid && uid != 0)
		return rota_errorf(err, -EPERM,
				   "job %u: not yours to run steps in",
				   job->id);
	js = jobsteps_get(ctld, job);
	rc = lay_out(ctld, job, js, req, &l, err);
	if (rc < 0)
		goto out;
	s = rota_xcalloc(1, sizeof(*s));
	s->job_id = job->id;
	s->id = js->next_id;
	s->ntasks = l.ntasks;
	/* an overlapping task may use every core of its node, held by none */
	s->cpus_per_task = req->overlap ? 1 : l.cpt;
	s->nnodes = l.ncand;
	s->overlap = req->overlap;
	s->state = ROTA_JOB_RUNNING;
	s->failed_rank = -1;
	s->start = ctld_now(ctld);
	s->name = rota_xstrdup(req->name ? req->name : "");
	s->alloc_index = rota_xcalloc(l.ncand, sizeof(uint32_t));
	s->count = rota_xcalloc(l.ncand, sizeof(uint32_t));
	s->cores = rota_xcalloc(l.ncand, sizeof(uint32_t *));
	s->ncores = rota_xcalloc(l.ncand, sizeof(uint32_t));
	memcpy(s->alloc_index, l.cand, l.ncand * sizeof(uint32_t));
	memcpy(s->count, l.count, l.ncand * sizeof(uint32_t));
	take_cores(job, js, &l, req->overlap, s);
	s->nodelist = step_nodelist(ctld, job, s);
	rc = seal_creds(ctld, job, s, reply, err);
	if (rc < 0) {
		give_back(js, job, s);
		step_free(s);
		rota_msg_step_reply_clear(reply);
		goto out;
	}
	js->next_id++;
	if (js->last)
		js->last->next = s;
	else
		js->steps = s;
	js->last = s;
	forget_old(js);
	reply->job_id = job->id;
	reply->run = job->run;
	reply->step_id = s->id;
	reply->ntasks = s->ntasks;
	rota_info("job %u: step %u of %u tasks on %s", job->id, s->id,
		  s->ntasks, s->nodelist);
out:
	free(l.cand);
	free(l.count);
	return rc;
}

static void step_end(struct ctld *ctld, struct jobsteps *js,
		     struct ctld_step *s, enum rota_job_state state)
{
	give_back(js, core_job_find(ctld->core, js->job_id), s);
	s->state = state;
	s->end = ctld_now(ctld);
}

int steps_complete(struct ctld *ctld, uid_t uid,
		   const struct rota_msg_step_complete *m,
		   struct rota_error *err)
{
	struct jobsteps *js = jobsteps_find(ctld, m->job_id);
	const struct core_job *job = core_job_find(ctld->core, m->job_id);
	struct ctld_step *s = js ? js->steps : NULL;

	if (job && uid != job->uid && uid != 0)
		return rota_errorf(err, -EPERM, "job %u: not yours",
				   m->job_id);
	if (m->step_id == ROTA_STEP_NONE && m->end_job)
		return 0; /* rota alloc's end: no step of its own */
	while (s && s->id != m->step_id)
		s = s->next;
	if (!s)
		return rota_errorf(err, -ENOENT, "step %u.%u: not found",
				   m->job_id, m->step_id);
	if (s->state != ROTA_JOB_RUNNING || (m->run && m->run != js->run))
		return 0; /* a repeat, after its job's end, or an earlier run's */
	s->exit_code = m->exit_code;
	s->failed_rank = m->failed_rank;
	s->cpu_usec = m->cpu_usec;
	if (m->text)
		s->text = rota_xstrdup(m->text);
	step_end(ctld, js, s,
		 m->exit_code ? ROTA_JOB_FAILED : ROTA_JOB_COMPLETED);
	return 0;
}

static void tell_nodes(struct ctld *ctld, const struct jobsteps *js)
{
	size_t len;
	char *body = rota_msg_job_run_encode(js->job_id, js->run, &len);

	for (uint32_t i = 0; i < js->nalloc; i++) {
		struct peer *link = ctld->node_links[js->node[i]];

		if (link && link->step_port)
			peer_send(link, ROTA_MSG_STEPS_KILL, body, len);
	}
	free(body);
}

void steps_sweep(struct ctld *ctld)
{
	struct jobsteps **pp = &ctld->steps;

	while (*pp) {
		struct jobsteps *js = *pp;
		const struct core_job *job = core_job_find(ctld->core,
							   js->job_id);

		if (!js->over && (!job || job->run != js->run ||
				  job->state != ROTA_JOB_RUNNING)) {
			js->over = true;
			tell_nodes(ctld, js);
			for (struct ctld_step *s = js->steps; s; s = s->next)
				if (s->state == ROTA_JOB_RUNNING)
					step_end(ctld, js, s,
						 ROTA_JOB_CANCELLED);
		}
		if (!job) {
			*pp = js->next;
			jobsteps_free(js);
			continue;
		}
		pp = &js->next;
	}
}

const struct ctld_step *steps_of_run(const struct ctld *ctld, uint32_t id,
				     uint32_t run)
{
	const struct jobsteps *js = jobsteps_find(ctld, id);

	return js && js->run == run ? js->steps : NULL;
}

const struct ctld_step *steps_of_job(const struct ctld *ctld, uint32_t id)
{
	const struct jobsteps *js = jobsteps_find(ctld, id);

	return js ? js->steps : NULL;
}

void steps_foreach_running(const struct ctld *ctld,
			   void (*fn)(const struct ctld_step *s, void *arg),
			   void *arg)
{
	for (const struct jobsteps *js = ctld->steps; js; js = js->next) {
		if (js->over)
			continue; /* its steps were all ended */
		for (const struct ctld_step *s = js->steps; s; s = s->next)
			if (s->state == ROTA_JOB_RUNNING)
				fn(s, arg);
	}
}

size_t steps_list(const struct ctld *ctld, uint32_t job_id,
		  struct rota_step_info **out)
{
	size_t n = 0, cap = 16;

	*out = rota_xcalloc(cap, sizeof(**out));
	for (const struct jobsteps *js = ctld->steps; js; js = js->next) {
		const struct core_job *job = core_job_find(ctld->core,
							   js->job_id);

		if (job_id && js->job_id != job_id)
			continue;
		for (const struct ctld_step *s = js->steps; s; s = s->next) {
			if (n == cap) {
				cap *= 2;
				*out = rota_xreallocarray(*out, cap,
							  sizeof(**out));
			}
			(*out)[n++] = (struct rota_step_info){
				.job_id = s->job_id,
				.step_id = s->id,
				.name = s->name,
				.user = job && job->user ? job->user : "",
				.ntasks = s->ntasks,
				.nodelist = s->nodelist,
				.state = s->state,
				.exit_code = s->exit_code,
				.failed_rank = s->failed_rank,
				.cpu_usec = s->cpu_usec,
				.start = s->start,
				.end = s->end,
			};
		}
	}
	return n;
}

void steps_destroy(struct ctld *ctld)
{
	while (ctld->steps) {
		struct jobsteps *js = ctld->steps;

		ctld->steps = js->next;
		jobsteps_free(js);
	}
}
