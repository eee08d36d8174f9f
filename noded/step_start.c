// SPDX-License-Identifier: MIT
/*
 * Starting a step's tasks on this node, before the supervisor's loop runs
 * (step.c): the owner's groups, the step's cgroup and private directory,
 * the wire-up server, each task's standard streams (pipes, or a terminal
 * for rank 0 with --pty), its environment and its launch (launch.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/evloop.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "noded/cgroup.h"
#include "noded/gpu_find.h"
#include "noded/launch.h"
#include "noded/step.h"
#include "noded/step_internal.h"
#include "noded/topology.h"
#include "noded/wireup.h"

static void layout_make(const struct rota_step_cred *c, struct layout *l)
{
	l->ntasks = 0;
	l->first = rota_xcalloc(c->nnodes, sizeof(uint32_t));
	for (size_t n = 0; n < c->nnodes; n++) {
		l->first[n] = l->ntasks;
		l->ntasks += c->counts[n];
	}
	l->ranks = rota_xcalloc(l->ntasks, sizeof(uint32_t));
	for (uint32_t r = 0; r < l->ntasks; r++)
		l->ranks[r] = r;
}

/*
 * The step's directory on this node: root's, that the wire-up servers'
 * files (sockets, libpmix's store) are out of the tasks' reach; "user" in
 * it, the tasks' own TMPDIR (wireup.h), private to the step and this node
 * (several node daemons of one host would otherwise share /tmp, and Open
 * MPI's daemons race for the same session directory there), removed
 * with the step, as PBS's per-job TMPDIR.
 */
static int make_tmpdir(struct stepsup *s, char *err, size_t errlen)
{
	int rc = 0;

	s->tmpdir = step_tmpdir_path(s->a->spool, s->c, getpid());
	s->user_tmp = rota_xasprintf("%s/user", s->tmpdir);
	if (mkdir(s->tmpdir, 0755) < 0 || mkdir(s->user_tmp, 0700) < 0 ||
	    chown(s->user_tmp, s->c->uid, s->c->gid) < 0)
		rc = -errno;
	if (rc < 0)
		snprintf(err, errlen, "%s: %s", s->user_tmp, strerror(-rc));
	return rc;
}

static int wireup_start(struct stepsup *s, const struct layout *l,
			struct wireup_step *ws, char *err, size_t errlen)
{
	static struct wireup_ops ops = { .allgather = step_wireup_allgather,
					 .complain = step_wireup_complain };
	const char *mpi = s->a->launch->mpi;

	if (strcmp(mpi, "none") == 0)
		return 0;
	s->wimpl = strcmp(mpi, "pmix") == 0 ? &wireup_pmix : &wireup_pmi;
	*ws = (struct wireup_step){
		.job_id = s->c->job_id,
		.step_id = s->c->step_id,
		.ntasks = l->ntasks,
		.nnodes = (uint32_t)s->c->nnodes,
		.node_id = s->c->node_id,
		.nodes = (const char *const *)s->c->nodes,
		.count = s->c->counts,
		.first = l->first,
		.ranks = l->ranks,
		.ncpus_per_task = s->c->cpus_per_task,
		.tmpdir = s->tmpdir,
		.uid = s->c->uid,
		.gid = s->c->gid,
	};
	ops.ctx = s;
	return s->wimpl->create(s->loop, ws, &ops, &s->wu, err, errlen);
}

static int task_stdio(struct stepsup *s, struct task *t, bool first_node,
		      int child[3], char *err, size_t errlen)
{
	int p[2];

	if (s->a->launch->pty && first_node && t->rank == 0) {
		struct winsize ws = { .ws_row = (unsigned short)s->a->launch->rows,
				      .ws_col = (unsigned short)s->a->launch->cols };
		int master, slave;

		if (openpty(&master, &slave, NULL, NULL,
			    ws.ws_row ? &ws : NULL) < 0) {
			snprintf(err, errlen, "openpty: %s", strerror(errno));
			return -errno;
		}
		fcntl(master, F_SETFD, FD_CLOEXEC);
		fcntl(master, F_SETFL, O_NONBLOCK);
		t->pty = true;
		t->fd[1] = master;
		/* a watcher each for reading and writing: two descriptors */
		t->fd[0] = fcntl(master, F_DUPFD_CLOEXEC, 0);
		child[0] = child[1] = child[2] = slave;
		return 0;
	}
	for (int i = 1; i < 3; i++) {
		if (pipe2(p, O_CLOEXEC) < 0) {
			snprintf(err, errlen, "pipe: %s", strerror(errno));
			return -errno;
		}
		fcntl(p[0], F_SETFL, O_NONBLOCK);
		t->fd[i] = p[0];
		child[i] = p[1];
	}
	if (first_node && t->rank == 0) {
		if (pipe2(p, O_CLOEXEC) < 0) {
			snprintf(err, errlen, "pipe: %s", strerror(errno));
			return -errno;
		}
		fcntl(p[1], F_SETFL, O_NONBLOCK);
		t->fd[0] = p[1];
		child[0] = p[0];
	} else {
		child[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	return 0;
}

static void close_child_ends(int child[3])
{
	close(child[0]);
	if (child[1] != child[0])
		close(child[1]);
	if (child[2] != child[1])
		close(child[2]);
}

static int start_task(struct stepsup *s, uint32_t local,
		      const struct layout *l, char *err, size_t errlen)
{
	const struct rota_step_cred *c = s->c;
	struct task *t = &s->tasks[local];
	uint32_t cpt = c->overlap ? (uint32_t)c->ncores : c->cpus_per_task;
	const uint32_t *cores = c->overlap ? c->cores
					   : c->cores + (size_t)local * cpt;
	char **extra = NULL, **env;
	int child[3] = { -1, -1, -1 }, keep = -1, rc;
	struct rota_error e;
	unsigned *ucores = rota_xcalloc(cpt, sizeof(unsigned));

	t->rank = l->first[c->node_id] + local;
	for (uint32_t k = 0; k < cpt; k++)
		ucores[k] = cores[k];
	rc = task_stdio(s, t, c->node_id == 0, child, err, errlen);
	if (rc == 0 && s->wu)
		rc = s->wimpl->task_env(s->wu, t->rank, &extra, &keep, err,
					errlen);
	if (rc < 0) {
		free(ucores);
		return rc;
	}
	env = step_task_env(c, t->rank, local, cores, cpt, s->user_tmp,
			    s->a->launch->env, extra);
	{
		struct launch_spec spec = {
			.job_id = c->job_id,
			.uid = c->uid,
			.gid = c->gid,
			.spool_dir = s->a->spool,
			.workdir = s->a->launch->cwd,
			.env = env,
			.topo = s->a->topo,
			.cores = ucores,
			.ncores = cpt,
			.groups = s->groups,
			.ngroups = s->ngroups,
			.cgroup_procs = s->cg ? cgroup_job_procs(s->cg) : NULL,
			.argv = s->a->launch->argv,
			.stdio = child,
			.ctty = s->a->launch->pty && c->node_id == 0 &&
				t->rank == 0,
			.keep_fd = keep,
		};

		rc = launch_start(&spec, &t->pid, &e);
	}
	if (s->wu)
		s->wimpl->task_started(s->wu, t->rank, rc == 0 ? t->pid : -1);
	close_child_ends(child);
	for (char **p = env; *p; p++)
		free(*p);
	free(env);
	free(ucores);
	if (rc < 0) {
		snprintf(err, errlen, "task %u: %s", t->rank, e.text);
		return rc;
	}
	s->live++;
	for (int i = 1; i < 3; i++) {
		if (t->fd[i] < 0 || (i == 2 && t->fd[2] == t->fd[1]))
			continue;
		t->w[i] = rota_evloop_add_fd(s->loop, t->fd[i], ROTA_EV_READ,
					     step_out_cb, t);
		s->streams++;
	}
	return 0;
}

int step_start_tasks(struct stepsup *s, char *err, size_t errlen)
{
	const struct rota_step_cred *c = s->c;
	struct cgroup_limits lim = { .mem_mb = c->mem_mb };
	struct rota_error e;
	unsigned *ucores = rota_xcalloc(c->ncores, sizeof(unsigned));
	char *cpus, **deny;
	int rc = 0;

	/* here, not in the daemon's loop: NSS may be slow (LDAP) */
	if (geteuid() == 0) {
		struct launch_spec who = { .job_id = c->job_id, .uid = c->uid,
					   .gid = c->gid };

		rc = launch_groups(&who, &s->groups, &s->ngroups, &e);
		if (rc < 0) {
			snprintf(err, errlen, "%s", e.text);
			free(ucores);
			return rc;
		}
	}
	for (size_t k = 0; k < c->ncores; k++)
		ucores[k] = c->cores[k];
	cpus = topology_host_cpulist(s->a->topo, ucores, c->ncores);
	lim.cpus = cpus;
	/* the node's other GPUs closed, as for the batch script (jobs.c) */
	deny = gpus_deny_rules(topology_summary(s->a->topo), c->gpus,
			       c->ngpus);
	lim.deny = deny;
	if (s->a->cgroups &&
	    cgroup_job_create(s->a->cgroups, c->job_id, c->run, getpid(),
			      &lim, &s->cg, &e) < 0)
		rota_warn("step %u.%u: %s: tasks run without a cgroup",
			  c->job_id, c->step_id, e.text);
	gpus_deny_free(deny);
	free(cpus);
	free(ucores);
	layout_make(c, &s->lay);
	rc = make_tmpdir(s, err, errlen);
	if (rc < 0)
		return rc;
	if (wireup_start(s, &s->lay, &s->ws, err, errlen) < 0) {
		/* PMI costs nothing until spoken: a step without it runs */
		if (strcmp(s->a->launch->mpi, "pmix") == 0)
			rc = -ENOTSUP;
		else
			rota_debug("step %u.%u: no PMI: %s", c->job_id,
				   c->step_id, err);
		s->wu = NULL;
	}
	s->ntasks = c->counts[c->node_id];
	s->tasks = rota_xcalloc(s->ntasks, sizeof(*s->tasks));
	for (uint32_t i = 0; i < s->ntasks; i++) {
		s->tasks[i].owner = s;
		s->tasks[i].fd[0] = s->tasks[i].fd[1] = s->tasks[i].fd[2] = -1;
	}
	for (uint32_t i = 0; rc == 0 && i < s->ntasks; i++)
		rc = start_task(s, i, &s->lay, err, errlen);
	return rc;
}
