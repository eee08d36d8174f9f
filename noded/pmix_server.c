// SPDX-License-Identifier: MIT
/*
 * The PMIx server of one job step on one node (wireup.h): what Open MPI
 * and other PMIx clients started directly by rota run --mpi=pmix connect
 * to.  libpmix runs its own progress thread and calls our upcalls from it;
 * each upcall only copies what it was given into a work item and writes the
 * item's address into a pipe watched by the step supervisor's loop, which
 * does the rest (allgather, complaints).  Calls into libpmix are made from
 * the loop: libpmix moves them onto its own thread itself.
 *
 * A PMIx server is per process (libpmix keeps it in globals and cannot be
 * initialised twice), hence the one file-scope pointer 'active': the
 * upcalls, which get no context of ours, find the pipe through it.
 *
 * What is registered is what Open MPI 4.1 reads at MPI_Init (docs/mpi.md
 * lists it): job-level sizes, the node and proc maps, each node's peers and
 * each rank's local and node rank.  Where each rank runs is said twice, by
 * the maps and by the per-rank arrays (as Slurm and Open MPI's own daemon
 * do): libpmix 4.2 needs one of them (with neither, each task's PMIx_Init
 * fails), and either alone sufficed for Open MPI 4.1.
 *
 * A fence is one allgather between the nodes: libpmix has already gathered
 * this node's clients' data into one blob, and wants back the
 * concatenation of every node's blob.
 *
 * create() and task_env() wait for libpmix's thread to register the step
 * and each task (a few milliseconds, no I/O): the one wait in the loop,
 * since a task must not be forked before its registration is complete.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/error.h"
#include "common/evloop.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "noded/pmix_layout.h"
#include "noded/wireup.h"

/* Handed from libpmix's thread to the loop. */
struct pmix_work {
	bool is_fence;	/* else an abort: 'data' is the line to show */
	char *data;	/* fence: this node's blob */
	size_t len;
	pmix_modex_cbfunc_t cbfunc;
	void *cbdata;
	struct pmix_work *next; /* in the queue of started allgathers */
};

struct wireup_server {
	struct rota_evloop *loop;
	const struct wireup_step *st;
	struct wireup_ops ops;
	char *user_dir;		/* "<tmpdir>/user", the tasks' (wireup.h) */
	struct pmix_place *places; /* by global rank */
	char nspace[PMIX_MAX_NSLEN + 1];
	char ***envs;	/* setup_fork's variables, by local index */
	int pipe[2];	/* work items: libpmix's thread -> loop */
	struct rota_watch *watch;
	struct pmix_work *fences; /* started allgathers, oldest first */
	struct pmix_work **fences_tail;
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static struct wireup_server *active;

/* Waiting for a libpmix call that completes on its own thread. */
struct pmix_sync {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	pmix_status_t status;
};

#define PMIX_SYNC_INIT \
	{ PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0 }

static void sync_cb(pmix_status_t status, void *cbdata)
{
	struct pmix_sync *y = cbdata;

	pthread_mutex_lock(&y->lock);
	y->status = status;
	y->done = true;
	pthread_cond_signal(&y->cond);
	pthread_mutex_unlock(&y->lock);
}

/* 'rc' is what the call returned; wait for its callback if one comes. */
static pmix_status_t sync_wait(struct pmix_sync *y, pmix_status_t rc)
{
	if (rc == PMIX_OPERATION_SUCCEEDED)
		return PMIX_SUCCESS;
	if (rc != PMIX_SUCCESS)
		return rc;
	pthread_mutex_lock(&y->lock);
	while (!y->done)
		pthread_cond_wait(&y->cond, &y->lock);
	pthread_mutex_unlock(&y->lock);
	return y->status;
}

static void noop_cb(pmix_status_t status, void *cbdata)
{
}

/* libpmix's thread: hand 'w' to the loop. */
static int post(struct pmix_work *w)
{
	ssize_t n;

	do
		n = write(active->pipe[1], &w, sizeof(w));
	while (n < 0 && errno == EINTR);
	return n == sizeof(w) ? 0 : -EPIPE;
}

static void work_free(struct pmix_work *w)
{
	free(w->data);
	free(w);
}

/* Is this fence over every rank of the step?  Nothing else is offered. */
static bool is_whole_step(const pmix_proc_t procs[], size_t nprocs)
{
	size_t i;

	for (i = 0; i < nprocs; i++)
		if (!PMIX_CHECK_NSPACE(procs[i].nspace, active->nspace))
			return false;
	if (nprocs == 1 && procs[0].rank == PMIX_RANK_WILDCARD)
		return true;
	return nprocs == active->st->ntasks;
}

/* libpmix's thread: every local client entered the fence. */
static pmix_status_t fence_upcall(const pmix_proc_t procs[], size_t nprocs,
				  const pmix_info_t info[], size_t ninfo,
				  char *data, size_t ndata,
				  pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
	struct pmix_work *w;

	if (!is_whole_step(procs, nprocs))
		return PMIX_ERR_NOT_SUPPORTED;
	if (ndata > UINT32_MAX)
		return PMIX_ERR_BAD_PARAM;
	w = rota_xcalloc(1, sizeof(*w));
	w->is_fence = true;
	if (ndata) {
		w->data = rota_xmalloc(ndata);
		memcpy(w->data, data, ndata);
	}
	w->len = ndata;
	w->cbfunc = cbfunc;
	w->cbdata = cbdata;
	if (post(w) < 0) {
		work_free(w);
		return PMIX_ERROR;
	}
	return PMIX_SUCCESS;
}

/* libpmix's thread: a client called PMIx_Abort (MPI_Abort). */
static pmix_status_t abort_upcall(const pmix_proc_t *proc, void *server_object,
				  int status, const char msg[],
				  pmix_proc_t procs[], size_t nprocs,
				  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	struct pmix_work *w = rota_xcalloc(1, sizeof(*w));

	w->data = rota_xasprintf("rank %u aborted the step (status %d): %.200s",
				 proc->rank, status, msg ? msg : "");
	if (post(w) < 0)
		work_free(w);
	return PMIX_OPERATION_SUCCEEDED;
}

static void fence_fail(struct pmix_work *w, pmix_status_t status)
{
	w->cbfunc(status, NULL, 0, w->cbdata, NULL, NULL);
	work_free(w);
}

/* Loop: start this node's part of an allgather. */
static void fence_start(struct wireup_server *s, struct pmix_work *w)
{
	struct pmix_work **p;
	char *blob = w->data;
	int rc;

	/*
	 * queued first: done() may come, and free 'w', before allgather()
	 * returns
	 */
	w->data = NULL;
	w->next = NULL;
	*s->fences_tail = w;
	s->fences_tail = &w->next;
	rc = s->ops.allgather(s->ops.ctx, blob, w->len);
	free(blob);
	if (rc >= 0)
		return;
	for (p = &s->fences; *p; p = &(*p)->next) {
		if (*p != w)
			continue;
		*p = w->next;
		if (s->fences_tail == &w->next)
			s->fences_tail = p;
		fence_fail(w, PMIX_ERR_UNREACH);
		return;
	}
}

static void work_cb(struct rota_evloop *loop, int fd, unsigned events,
		    void *arg)
{
	struct wireup_server *s = arg;
	struct pmix_work *w[64];
	ssize_t n;
	ssize_t i;

	n = read(fd, w, sizeof(w));
	for (i = 0; i < n / (ssize_t)sizeof(w[0]); i++) {
		if (w[i]->is_fence) {
			fence_start(s, w[i]);
			continue;
		}
		s->ops.complain(s->ops.ctx, w[i]->data);
		work_free(w[i]);
	}
}

static void release_cb(void *cbdata)
{
	free(cbdata);
}

static void pmix_done(struct wireup_server *s, const void *all, size_t len)
{
	struct pmix_work *w = s->fences;
	struct rota_error err = { "" };
	char *joined;
	size_t jlen;

	if (!w) {
		s->ops.complain(s->ops.ctx,
				"pmix: an allgather completed that no fence started");
		return;
	}
	s->fences = w->next;
	if (!s->fences)
		s->fences_tail = &s->fences;
	if (pmix_layout_join(all, len, s->st->nnodes, &joined, &jlen, &err)) {
		s->ops.complain(s->ops.ctx, err.text);
		fence_fail(w, PMIX_ERR_BAD_PARAM);
		return;
	}
	/* libpmix frees 'joined' through release_cb once it has used it */
	w->cbfunc(PMIX_SUCCESS, joined, jlen, w->cbdata, release_cb, joined);
	work_free(w);
}

/* 'list' gets 'key' of 'type'; values as PMIx_Info_list_add takes them. */
static void add(void *list, const char *key, const void *value,
		pmix_data_type_t type)
{
	if (PMIx_Info_list_add(list, key, value, type) != PMIX_SUCCESS)
		rota_fatal("pmix: cannot add '%s' to a list", key);
}

static void add_u32(void *list, const char *key, uint32_t v)
{
	add(list, key, &v, PMIX_UINT32);
}

static void add_rank(void *list, const char *key, pmix_rank_t v)
{
	add(list, key, &v, PMIX_PROC_RANK);
}

static void add_u16(void *list, const char *key, uint16_t v)
{
	add(list, key, &v, PMIX_UINT16);
}

/* 'sub' becomes 'list's array 'key', and is released. */
static void add_array(void *list, const char *key, void *sub)
{
	pmix_data_array_t arr;

	if (PMIx_Info_list_convert(sub, &arr) != PMIX_SUCCESS)
		rota_fatal("pmix: cannot convert '%s'", key);
	add(list, key, &arr, PMIX_DATA_ARRAY);
	PMIx_Data_array_destruct(&arr);
	PMIx_Info_list_release(sub);
}

/* Node 'n's peers, for its node array and (ours) at job level. */
static void add_node_keys(void *list, const struct wireup_step *st, uint32_t n)
{
	char *peers = pmix_layout_peers(st, n);

	add(list, PMIX_LOCAL_PEERS, peers, PMIX_STRING);
	add_u32(list, PMIX_LOCAL_SIZE, st->count[n]);
	add_u32(list, PMIX_NODE_SIZE, st->count[n]);
	add_rank(list, PMIX_LOCALLDR, pmix_layout_leader(st, n));
	free(peers);
}

static void add_nodes(void *list, const struct wireup_step *st)
{
	uint32_t n;

	for (n = 0; n < st->nnodes; n++) {
		void *sub = PMIx_Info_list_start();

		add_u32(sub, PMIX_NODEID, n);
		add(sub, PMIX_HOSTNAME, st->nodes[n], PMIX_STRING);
		add_node_keys(sub, st, n);
		add_array(list, PMIX_NODE_INFO_ARRAY, sub);
	}
}

static void add_procs(void *list, const struct wireup_server *s)
{
	const struct wireup_step *st = s->st;
	uint32_t r;

	for (r = 0; r < st->ntasks; r++) {
		const struct pmix_place *p = &s->places[r];
		void *sub = PMIx_Info_list_start();

		add_rank(sub, PMIX_RANK, r);
		add_u32(sub, PMIX_APPNUM, 0);
		add_rank(sub, PMIX_GLOBAL_RANK, r);
		add_rank(sub, PMIX_APP_RANK, r);
		add_u16(sub, PMIX_LOCAL_RANK, (uint16_t)p->local);
		add_u16(sub, PMIX_NODE_RANK, (uint16_t)p->local);
		add_u32(sub, PMIX_NODEID, p->node);
		add(sub, PMIX_HOSTNAME, st->nodes[p->node], PMIX_STRING);
		add_array(list, PMIX_PROC_INFO_ARRAY, sub);
	}
}

/* The maps, as regular expressions libpmix made; -EINVAL if it failed. */
static int add_maps(void *list, const struct wireup_step *st)
{
	char *in = pmix_layout_nodes(st);
	char *regex = NULL;
	pmix_status_t rc;

	rc = PMIx_generate_regex(in, &regex);
	free(in);
	if (rc != PMIX_SUCCESS)
		return -EINVAL;
	add(list, PMIX_NODE_MAP, regex, PMIX_REGEX);
	free(regex);
	regex = NULL;
	in = pmix_layout_ppn(st);
	rc = PMIx_generate_ppn(in, &regex);
	free(in);
	if (rc != PMIX_SUCCESS)
		return -EINVAL;
	add(list, PMIX_PROC_MAP, regex, PMIX_REGEX);
	free(regex);
	return 0;
}

static int register_nspace(struct wireup_server *s, char *err, size_t errlen)
{
	const struct wireup_step *st = s->st;
	struct pmix_sync y = PMIX_SYNC_INIT;
	void *list = PMIx_Info_list_start();
	pmix_data_array_t arr;
	char *jobid = rota_xasprintf("%u.%u", st->job_id, st->step_id);
	bool no = false;
	pmix_status_t rc;

	add(list, PMIX_JOBID, jobid, PMIX_STRING);
	free(jobid);
	add(list, PMIX_SPAWNED, &no, PMIX_BOOL);
	add_u32(list, PMIX_UNIV_SIZE, st->ntasks);
	add_u32(list, PMIX_JOB_SIZE, st->ntasks);
	add_u32(list, PMIX_MAX_PROCS, st->ntasks);
	add_u32(list, PMIX_JOB_NUM_APPS, 1);
	add_u32(list, PMIX_APP_SIZE, st->ntasks);
	add_u32(list, PMIX_APPNUM, 0);
	add_rank(list, PMIX_APPLDR, 0);
	add_u32(list, PMIX_NUM_NODES, st->nnodes);
	add(list, PMIX_TMPDIR, s->user_dir, PMIX_STRING);
	add(list, PMIX_NSDIR, s->user_dir, PMIX_STRING);
	/* whose job it is (libpmix's own checks; the store is server_init's) */
	add_u32(list, PMIX_USERID, (uint32_t)st->uid);
	add_u32(list, PMIX_GRPID, (uint32_t)st->gid);
	add_u32(list, PMIX_NODEID, st->node_id);
	add(list, PMIX_HOSTNAME, st->nodes[st->node_id], PMIX_STRING);
	add_node_keys(list, st, st->node_id);
	if (add_maps(list, st) < 0) {
		PMIx_Info_list_release(list);
		snprintf(err, errlen, "pmix: cannot make the node and proc maps");
		return -EINVAL;
	}
	add_nodes(list, st);
	add_procs(list, s);
	if (PMIx_Info_list_convert(list, &arr) != PMIX_SUCCESS)
		rota_fatal("pmix: cannot convert the job's info");
	PMIx_Info_list_release(list);
	rc = PMIx_server_register_nspace(s->nspace, (int)st->count[st->node_id],
					 arr.array, arr.size, sync_cb, &y);
	rc = sync_wait(&y, rc);
	PMIx_Data_array_destruct(&arr);
	if (rc != PMIX_SUCCESS) {
		snprintf(err, errlen, "pmix: cannot register the step: %s",
			 PMIx_Error_string(rc));
		return -EIO;
	}
	return 0;
}

static pmix_server_module_t upcalls = {
	.abort = abort_upcall,
	.fence_nb = fence_upcall,
};

/* Start libpmix's server, its files in the step's own tmpdir. */
static int server_init(struct wireup_server *s, char *err, size_t errlen)
{
	const struct wireup_step *st = s->st;
	void *list = PMIx_Info_list_start();
	pmix_data_array_t arr;
	bool no = false;
	sigset_t all;
	sigset_t old;
	pmix_status_t rc;

	/*
	 * libpmix's own files in root's tmpdir, out of the tasks' reach (a
	 * task could plant links there under the names it will create); the
	 * tasks' session directories in "user" (PMIX_TMPDIR, job_info)
	 */
	add(list, PMIX_SERVER_TMPDIR, st->tmpdir, PMIX_STRING);
	add(list, PMIX_SYSTEM_TMPDIR, st->tmpdir, PMIX_STRING);
	add(list, PMIX_HOSTNAME, st->nodes[st->node_id], PMIX_STRING);
	/*
	 * the tasks' owner: libpmix gives it the shared-memory store it makes
	 * at start (else each task fails to attach it, says so and falls
	 * back to asking the server)
	 */
	add_u32(list, PMIX_USERID, (uint32_t)st->uid);
	add_u32(list, PMIX_GRPID, (uint32_t)st->gid);
	add(list, PMIX_SERVER_TOOL_SUPPORT, &no, PMIX_BOOL);
	add(list, PMIX_SERVER_SYSTEM_SUPPORT, &no, PMIX_BOOL);
	add(list, PMIX_SERVER_SESSION_SUPPORT, &no, PMIX_BOOL);
	if (PMIx_Info_list_convert(list, &arr) != PMIX_SUCCESS)
		rota_fatal("pmix: cannot convert the server's info");
	PMIx_Info_list_release(list);
	/*
	 * libpmix's thread is born with every signal blocked, so that none
	 * meant for the loop's signalfd (added before or after) lands there
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = PMIx_server_init(&upcalls, arr.array, arr.size);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	PMIx_Data_array_destruct(&arr);
	if (rc != PMIX_SUCCESS) {
		snprintf(err, errlen, "pmix: cannot start the server in '%s': %s",
			 st->tmpdir, PMIx_Error_string(rc));
		return -EIO;
	}
	return 0;
}

static int check_step(const struct wireup_step *st, struct pmix_place *places,
		      char *err, size_t errlen)
{
	struct rota_error e = { "" };
	int rc;

	if (st->node_id >= st->nnodes) {
		snprintf(err, errlen, "pmix: node %u of %u", st->node_id,
			 st->nnodes);
		return -EINVAL;
	}
	/*
	 * libpmix calls a fence upcall once its local clients entered the
	 * fence: a node without any would never join the allgather
	 */
	if (!st->count[st->node_id] || st->count[st->node_id] > UINT16_MAX) {
		snprintf(err, errlen, "pmix: node %u: %u tasks (1 to %u)",
			 st->node_id, st->count[st->node_id], UINT16_MAX);
		return -EINVAL;
	}
	rc = pmix_layout_places(st, places, &e);
	if (rc < 0)
		snprintf(err, errlen, "pmix: %s", e.text);
	return rc;
}

static void server_free(struct wireup_server *s)
{
	uint32_t i;
	char **e;

	if (s->watch)
		rota_watch_remove(s->watch);
	if (s->pipe[0] >= 0)
		close(s->pipe[0]);
	if (s->pipe[1] >= 0)
		close(s->pipe[1]);
	for (i = 0; s->envs && i < s->st->count[s->st->node_id]; i++) {
		for (e = s->envs[i]; e && *e; e++)
			free(*e);
		free(s->envs[i]);
	}
	free(s->envs);
	free(s->places);
	free(s->user_dir);
	free(s);
}

static int pmix_create(struct rota_evloop *loop, const struct wireup_step *st,
		       const struct wireup_ops *ops,
		       struct wireup_server **out, char *err, size_t errlen)
{
	struct wireup_server *s;
	int rc;

	*out = NULL;
	if (active) {
		snprintf(err, errlen, "pmix: one server per process");
		return -EBUSY;
	}
	s = rota_xcalloc(1, sizeof(*s));
	s->loop = loop;
	s->st = st;
	s->user_dir = rota_xasprintf("%s/user", st->tmpdir);
	s->ops = *ops;
	s->fences_tail = &s->fences;
	s->pipe[0] = s->pipe[1] = -1;
	s->places = rota_xcalloc(st->ntasks ? st->ntasks : 1,
				 sizeof(*s->places));
	rc = check_step(st, s->places, err, errlen);
	if (rc < 0)
		goto out_free;
	s->envs = rota_xcalloc(st->count[st->node_id] + 1, sizeof(*s->envs));
	snprintf(s->nspace, sizeof(s->nspace), "rota.%u.%u", st->job_id,
		 st->step_id);
	if (pipe2(s->pipe, O_CLOEXEC) < 0 ||
	    fcntl(s->pipe[0], F_SETFL, O_NONBLOCK) < 0) {
		rc = -errno;
		snprintf(err, errlen, "pmix: pipe: %s", strerror(errno));
		goto out_free;
	}
	s->watch = rota_evloop_add_fd(loop, s->pipe[0], ROTA_EV_READ, work_cb,
				      s);
	active = s;
	rc = server_init(s, err, errlen);
	if (rc < 0) {
		active = NULL;
		goto out_free;
	}
	rc = register_nspace(s, err, errlen);
	if (rc < 0) {
		PMIx_server_finalize();
		active = NULL;
		goto out_free;
	}
	*out = s;
	return 0;
out_free:
	server_free(s);
	return rc;
}

/*
 * Open MPI 4.1 takes a process it did not start for a singleton unless a
 * component of its own recognises the launcher (Slurm, Flux, LSF): take
 * that component out and name the PMIx one.  Rota binds tasks itself.
 */
static const char *const ompi_env[] = {
	"OMPI_MCA_ess=pmi",
	"OMPI_MCA_schizo=^orte",
	"OMPI_MCA_orte_externally_bound=1",
	"OMPI_MCA_hwloc_base_binding_policy=none",
};

/* libpmix's variables (a malloc'd array) and ours, in one such array. */
static char **env_join(char **e)
{
	size_t n = 0;
	size_t i;

	while (e && e[n])
		n++;
	e = rota_xreallocarray(e, n + ARRAY_SIZE(ompi_env) + 1, sizeof(*e));
	for (i = 0; i < ARRAY_SIZE(ompi_env); i++)
		e[n++] = rota_xstrdup(ompi_env[i]);
	e[n] = NULL;
	return e;
}

static int pmix_task_env(struct wireup_server *s, uint32_t rank, char ***env,
			 int *child_fd, char *err, size_t errlen)
{
	const struct wireup_step *st = s->st;
	struct pmix_sync y = PMIX_SYNC_INIT;
	pmix_proc_t proc;
	pmix_status_t rc;
	char **e = NULL;
	uint32_t local;

	*env = NULL;
	*child_fd = -1;
	if (rank >= st->ntasks || s->places[rank].node != st->node_id) {
		snprintf(err, errlen, "pmix: rank %u does not run here", rank);
		return -EINVAL;
	}
	local = s->places[rank].local;
	if (s->envs[local]) {
		snprintf(err, errlen, "pmix: rank %u started twice", rank);
		return -EEXIST;
	}
	PMIX_LOAD_PROCID(&proc, s->nspace, rank);
	rc = PMIx_server_register_client(&proc, st->uid, st->gid, NULL,
					 sync_cb, &y);
	rc = sync_wait(&y, rc);
	if (rc == PMIX_SUCCESS)
		rc = PMIx_server_setup_fork(&proc, &e);
	if (rc != PMIX_SUCCESS) {
		snprintf(err, errlen, "pmix: rank %u: %s", rank,
			 PMIx_Error_string(rc));
		return -EIO;
	}
	e = env_join(e);
	s->envs[local] = e;
	*env = e;
	return 0;
}

static void pmix_task_started(struct wireup_server *s, uint32_t rank,
			      pid_t pid)
{
	pmix_proc_t proc;

	if (pid >= 0)
		return;
	PMIX_LOAD_PROCID(&proc, s->nspace, rank);
	PMIx_server_deregister_client(&proc, noop_cb, NULL);
}

static void pmix_destroy(struct wireup_server *s)
{
	struct pmix_work *w;
	ssize_t n;

	if (!s)
		return;
	/* clients still in a fence are told it failed */
	while ((w = s->fences)) {
		s->fences = w->next;
		fence_fail(w, PMIX_ERR_UNREACH);
	}
	PMIx_server_finalize();
	active = NULL;
	/* libpmix's thread is gone: what it posted last is ours to free */
	while ((n = read(s->pipe[0], &w, sizeof(w))) == sizeof(w))
		work_free(w);
	server_free(s);
}

const struct wireup_impl wireup_pmix = {
	.name = "pmix",
	.create = pmix_create,
	.task_env = pmix_task_env,
	.task_started = pmix_task_started,
	.done = pmix_done,
	.destroy = pmix_destroy,
};
