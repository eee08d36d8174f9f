// SPDX-License-Identifier: MIT
/*
 * The controller's side of node links: registration, heartbeats, job ends,
 * and the orders (launch, signal) that the core's actions turn into.  A
 * node daemon keeps one connection open; its address must be the node's
 * Addr in rota.conf, so one daemon cannot speak for another node.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/conn.h"
#include "common/gpu_env.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/proto.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "ctld/ctld.h"
#include "ctld/step.h"
#include "ctld/users.h"

static bool is_ip_literal(const char *s)
{
	unsigned char buf[16];

	return inet_pton(AF_INET, s, buf) == 1 ||
	       inet_pton(AF_INET6, s, buf) == 1;
}

/* The OK that grants (or renews) a node's lease: see proto.h. */
static void send_lease(struct peer *p)
{
	size_t len;
	char *body = rota_msg_lease_encode(p->ctld->conf->node_lease, &len);

	peer_send(p, ROTA_MSG_OK, body, len);
	free(body);
}

void rpc_node_register(struct peer *p, const struct rota_frame *f)
{
	struct ctld *ctld = p->ctld;
	struct rota_node_info info;
	const struct core_node *node;
	struct rota_error err;
	uint32_t idx;

	if (rota_msg_node_decode(f->body, f->body_len, &info, &err) < 0) {
		peer_send_error(p, -EPROTO, err.text);
		return;
	}
	node = core_node_find(ctld->core, info.name, &idx);
	if (node && is_ip_literal(node->addr) &&
	    strcmp(node->addr, rota_conn_peer_addr(p->conn)) != 0) {
		rota_warn("node '%s': registration from %s refused: rota.conf "
			  "says Addr=%s",
			  info.name, rota_conn_peer_addr(p->conn), node->addr);
		peer_send_error(p, -EPERM, "address does not match rota.conf");
		rota_conn_close_after_flush(p->conn);
		goto out;
	}
	if (core_node_register(ctld->core, ctld_now(ctld), &info, &err) < 0) {
		rota_warn("registration refused: %s", err.text);
		peer_send_error(p, -EINVAL, err.text);
		rota_conn_close_after_flush(p->conn);
		goto out;
	}
	if (ctld->node_links[idx] && ctld->node_links[idx] != p) {
		/* a restarted daemon: the old link is stale */
		struct peer *old = ctld->node_links[idx];

		old->node = -1;
		rota_conn_close(old->conn);
	}
	ctld->node_links[idx] = p;
	p->node = (int)idx;
	p->step_port = info.step_port;
	/* the uid munge vouches for, not the body's (DESIGN.md) */
	p->step_uid = p->uid;
	state_commit(ctld); /* jobs it no longer has have ended */
	rota_info("node '%s' up: %u cores, %llu MB", info.name, node->cores,
		  (unsigned long long)node->memory_mb);
	send_lease(p);
	ctld_run_actions(ctld);
	ctld_kick(ctld);
out:
	rota_node_info_clear(&info);
}

void rpc_heartbeat(struct peer *p, const struct rota_frame *f)
{
	struct ctld *ctld = p->ctld;
	struct rota_error err;
	uint64_t refused;
	char *name;

	if (rota_msg_heartbeat_decode(f->body, f->body_len, &name, &refused,
				      &err) < 0) {
		peer_send_error(p, -EPROTO, err.text);
		return;
	}
	p->steps_refused = refused;
	/* every heartbeat is answered, in order: the node counts on it */
	if (p->node < 0 ||
	    strcmp(core_node_get(ctld->core, (uint32_t)p->node)->name,
		   name) != 0)
		peer_send_error(p, -EPERM, "register first");
	else if (!core_node_seen(ctld->core, ctld_now(ctld), name))
		peer_send_error(p, -ESTALE,
				"this node was declared down: register again");
	else
		send_lease(p);
	free(name);
}

void rpc_job_end(struct peer *p, const struct rota_frame *f)
{
	struct ctld *ctld = p->ctld;
	struct rota_msg_job_end end;
	struct rota_error err;
	const char *node;
	size_t len;
	char *body;

	if (p->node < 0) {
		peer_send_error(p, -EPERM, "register first");
		return;
	}
	if (rota_msg_job_end_decode(f->body, f->body_len, &end, &err) < 0) {
		peer_send_error(p, -EPROTO, err.text);
		return;
	}
	node = core_node_get(ctld->core, (uint32_t)p->node)->name;
	if (core_job_end(ctld->core, ctld_now(ctld), node, &end, &err) < 0)
		rota_warn("end report ignored: %s", err.text);
	else
		rota_info("job %u: %s on %s (exit %d, signal %d)", end.job_id,
			  rota_job_state_name(end.state), node, end.exit_code,
			  end.term_signal);
	ctld_schedule_now(ctld);
	/* acknowledged once on disk: the node keeps it until then */
	if (state_commit(ctld) < 0) {
		rota_msg_job_end_clear(&end);
		return;
	}
	body = rota_msg_job_run_encode(end.job_id, end.run, &len);
	peer_send(p, ROTA_MSG_JOB_END_ACK, body, len);
	free(body);
	rota_msg_job_end_clear(&end);
	ctld_run_actions(ctld);
}

/*
 * UsageCharge=measured: running jobs' cgroup totals, charged as they
 * grow.  No reply and no commit: the totals repeat in the next report,
 * and the journal's usage record keeps each job's meter with the usage
 * charged, so a restart charges what is new since that record only.
 */
void rpc_job_usage(struct peer *p, const struct rota_frame *f)
{
	struct ctld *ctld = p->ctld;
	struct rota_msg_job_usage m;
	struct rota_error err;
	const char *node;

	if (p->node < 0)
		return;
	if (rota_msg_job_usage_decode(f->body, f->body_len, &m, &err) < 0) {
		rota_warn("usage report refused: %s", err.text);
		return;
	}
	node = core_node_get(ctld->core, (uint32_t)p->node)->name;
	for (size_t i = 0; i < m.njobs; i++)
		if (core_job_measured(ctld->core, ctld_now(ctld), node,
				      &m.jobs[i], &err) < 0)
			rota_debug("usage report from '%s' ignored: %s", node,
				   err.text);
	rota_msg_job_usage_clear(&m);
}

void rpc_node_link_lost(struct peer *p, const char *why)
{
	struct ctld *ctld = p->ctld;
	const struct core_node *n = core_node_get(ctld->core, (uint32_t)p->node);
	char reason[160];

	if (ctld->node_links[p->node] != p)
		return;
	ctld->node_links[p->node] = NULL;
	snprintf(reason, sizeof(reason), "not responding (link lost: %s)",
		 why);
	rota_warn("node '%s' %s; its jobs run on until NodeTimeout", n->name,
		  reason);
	core_node_unreachable(ctld->core, ctld_now(ctld), n->name, reason);
}

/*
 * Expand %j (id), %A and %a (array job and task id; for a job of no array
 * its id and 0), %u (user), %x (name), %N (first node), %% in a path.
 */
static char *expand_path(const char *pattern, const char *workdir,
			 const struct core_job *job, const char *user,
			 const char *node)
{
	struct rota_strbuf b = { 0 };

	if (pattern[0] != '/') {
		rota_strbuf_adds(&b, workdir);
		rota_strbuf_adds(&b, "/");
	}
	for (const char *s = pattern; *s; s++) {
		if (*s != '%' || !s[1]) {
			rota_strbuf_add(&b, s, 1);
			continue;
		}
		switch (*++s) {
		case 'j': rota_strbuf_addf(&b, "%u", job->id); break;
		case 'A':
			rota_strbuf_addf(&b, "%u", job->array_id ? job->array_id
								 : job->id);
			break;
		case 'a':
			rota_strbuf_addf(&b, "%u",
					 job->array_id ? job->array_task : 0);
			break;
		case 'u': rota_strbuf_adds(&b, user); break;
		case 'x': rota_strbuf_adds(&b, job->desc.name); break;
		case 'N': rota_strbuf_adds(&b, node); break;
		case '%': rota_strbuf_add(&b, "%", 1); break;
		default: rota_strbuf_add(&b, s - 1, 2); break;
		}
	}
	return rota_strbuf_take(&b, NULL);
}

/*
 * ROTA_HOSTS=n01:4,n02:4: the job's nodes with the tasks each can hold,
 * in the form mpirun's --host and mpiexec's -hosts take (docs/mpi.md).
 */
static char *job_hosts(struct ctld *ctld, const struct core_job *job)
{
	struct rota_strbuf b = { 0 };
	uint32_t cpt = job->desc.cpus_per_task ? job->desc.cpus_per_task : 1;

	rota_strbuf_adds(&b, "ROTA_HOSTS=");
	for (uint32_t i = 0; i < job->nalloc; i++)
		rota_strbuf_addf(&b, "%s%s:%u", i ? "," : "",
				 core_node_get(ctld->core, job->alloc[i].node)
					 ->name,
				 job->alloc[i].ncores / cpt
					 ? job->alloc[i].ncores / cpt
					 : 1);
	return rota_strbuf_take(&b, NULL);
}

static char **job_env(struct ctld *ctld, const struct core_job *job,
		      const char *nodelist)
{
	const struct core_alloc *a = &job->alloc[0];
	size_t n = 0, i = 0;
	char **env;

	while (job->desc.env && job->desc.env[n])
		n++;
	env = rota_xcalloc(n + 24 + ROTA_GPU_ENV_MAX, sizeof(char *));
	for (size_t k = 0; k < n; k++)
		if (!a->ngpus || !rota_gpu_env_var(job->desc.env[k]))
			env[i++] = rota_xstrdup(job->desc.env[k]);
	i += rota_gpu_env(a->gpus, a->ngpus, env + i);
	env[i++] = rota_xasprintf("ROTA_JOB_ID=%u", job->id);
	env[i++] = rota_xasprintf("ROTA_JOB_NAME=%s", job->desc.name);
	env[i++] = rota_xasprintf("ROTA_NODELIST=%s", nodelist);
	env[i++] = rota_xasprintf("ROTA_JOB_NUM_NODES=%u", job->nalloc);
	env[i++] = rota_xasprintf("ROTA_NTASKS=%u", job->desc.ntasks);
	env[i++] = rota_xasprintf("ROTA_CPUS_PER_TASK=%u",
				  job->desc.cpus_per_task);
	env[i++] = rota_xasprintf("ROTA_CPUS_ON_NODE=%u", a->ncores);
	env[i++] = rota_xasprintf("ROTA_QUEUE=%s",
				  core_queue_get(ctld->core, job->queue)->name);
	env[i++] = rota_xasprintf("ROTA_SUBMIT_DIR=%s", job->desc.workdir);
	env[i++] = rota_xasprintf("ROTA_CLUSTER_NAME=%s",
				  ctld->conf->cluster_name);
	if (job->desc.account)
		env[i++] = rota_xasprintf("ROTA_JOB_ACCOUNT=%s",
					  job->desc.account);
	env[i++] = job_hosts(ctld, job);
	if (job->array_id) {
		env[i++] = rota_xasprintf("ROTA_ARRAY_JOB_ID=%u",
					  job->array_id);
		env[i++] = rota_xasprintf("ROTA_ARRAY_TASK_ID=%u",
					  job->array_task);
		env[i++] = rota_xasprintf("ROTA_ARRAY_TASK_COUNT=%u",
					  job->shape.count);
		env[i++] = rota_xasprintf("ROTA_ARRAY_TASK_MIN=%u",
					  job->shape.min);
		env[i++] = rota_xasprintf("ROTA_ARRAY_TASK_MAX=%u",
					  job->shape.max);
		env[i++] = rota_xasprintf("ROTA_ARRAY_TASK_STEP=%u",
					  job->shape.step);
	}
	env[i] = NULL;
	return env;
}

static void send_launch(struct ctld *ctld, struct peer *link,
			const struct core_job *job)
{
	const struct core_node *node = core_node_get(ctld->core,
						     job->alloc[0].node);
	const char *user = user_cache_name(ctld->users, job->uid);
	char *nodelist = core_job_nodelist(ctld->core, job);
	struct rota_msg_launch m = {
		.job_id = job->id,
		.run = job->run,
		.uid = (uint32_t)job->uid,
		.gid = (uint32_t)job->gid,
		.name = job->desc.name,
		.script = job->desc.script,
		.workdir = job->desc.workdir,
		.queue = core_queue_get(ctld->core, job->queue)->name,
		.nodelist = nodelist,
		.cores = job->alloc[0].cores,
		.ncores = job->alloc[0].ncores,
		.gpus = job->alloc[0].gpus,
		.ngpus = job->alloc[0].ngpus,
		.ntasks = job->desc.ntasks,
		.time_limit = job->time_limit,
		/* the batch script runs on the first node: its share there */
		.mem_mb = core_job_node_mem(job, job->alloc[0].ncores),
	};
	size_t len;
	char *body;

	/* as Slurm's slurm-%A_%a.out for a task of an array */
	m.output = expand_path(job->desc.output ? job->desc.output
			       : job->array_id ? "rota-%A_%a.out"
					       : "rota-%j.out",
			       job->desc.workdir, job, user, node->name);
	m.error = job->desc.error ? expand_path(job->desc.error,
						job->desc.workdir, job, user,
						node->name)
				  : NULL;
	m.env = job_env(ctld, job, nodelist);
	body = rota_msg_launch_encode(&m, &len);
	peer_send(link, ROTA_MSG_LAUNCH, body, len);
	rota_info("job %u: started on %s (%u cores)", job->id, nodelist,
		  job->alloc[0].ncores);
	free(body);
	free(m.output);
	free(m.error);
	for (char **e = m.env; *e; e++)
		free(*e);
	free(m.env);
	free(nodelist);
}

static void send_signal(struct peer *link, const struct core_action *a)
{
	struct rota_msg_job_signal m = { .job_id = a->job_id,
					 .run = a->run ? a->run : 1,
					 .signo = a->signo,
					 .cancel = a->cancel };
	size_t len;
	char *body = rota_msg_job_signal_encode(&m, &len);

	peer_send(link, ROTA_MSG_SIGNAL_JOB, body, len);
	free(body);
}

void ctld_run_actions(struct ctld *ctld)
{
	struct core_action *acts;
	size_t n;

	/* a job is on disk as started before any node is told to start it */
	if (state_commit(ctld) < 0)
		return; /* the actions wait for the journal */
	n = core_take_actions(ctld->core, &acts);
	steps_sweep(ctld);

	for (size_t i = 0; i < n; i++) {
		const struct core_job *job = core_job_find(ctld->core,
							   acts[i].job_id);
		struct peer *link = ctld->node_links[acts[i].node];

		if (!job && acts[i].type == CORE_ACTION_LAUNCH)
			continue;
		if (!link) {
			const char *name =
				core_node_get(ctld->core, acts[i].node)->name;

			if (acts[i].type == CORE_ACTION_LAUNCH) {
				rota_warn("job %u: node '%s' is not connected: "
					  "requeued",
					  acts[i].job_id, name);
				core_requeue(ctld->core, ctld_now(ctld),
					     acts[i].job_id, "NodeNotConnected",
					     false);
				ctld_kick(ctld);
			}
			continue;
		}
		if (acts[i].type == CORE_ACTION_LAUNCH)
			send_launch(ctld, link, job);
		else
			send_signal(link, &acts[i]);
	}
	free(acts);
}
