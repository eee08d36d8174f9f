// SPDX-License-Identifier: MIT
/*
 * pmi_launch NODES RANKS_PER_NODE PROGRAM [ARGS...]: a test launcher that
 * plays every node of a step in one process, so that a real MPI library
 * can be wired up through noded/pmi_wire.c without the step supervisor.
 *
 * It makes one PMI server per fake node (each with its own node_id), forks
 * the ranks of each with the environment task_env gives, and implements
 * the allgather the way `rota run` does: it waits for every node's blob
 * and hands the concatenation to every node's done() (from the loop, never
 * from inside allgather()).  Complaints go to stderr as "nodeN: line".
 * A rank that fails gets the others killed, as a step whose task fails
 * would (the other nodes would wait in the allgather for ever), unless
 * PMI_LAUNCH_KEEP=1 (to see what the servers make of it).
 * Exit 0 if every rank exited 0, 1 otherwise; 2 on usage.
 * PMI_LAUNCH_TIMEOUT (seconds, default 60) bounds the whole run.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/evloop.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "noded/wireup.h"

struct node {
	struct launch *l;
	uint32_t id;
	struct wireup_step st;
	struct wireup_ops ops;
	struct wireup_server *srv;
	char *blob; /* this node's part of the allgather under way */
	size_t len;
	bool in;
};

struct launch {
	struct rota_evloop *loop;
	uint32_t nnodes;
	uint32_t ntasks;
	struct node *nodes;
	pid_t *pids;
	uint32_t running;
	uint32_t nin; /* nodes in the allgather */
	int failed;
	unsigned gathers;
};

static void done_cb(struct rota_evloop *loop, void *arg)
{
	struct launch *l = arg;
	struct rota_strbuf all = { 0 };

	(void)loop;
	for (uint32_t n = 0; n < l->nnodes; n++) {
		uint32_t be = htonl((uint32_t)l->nodes[n].len);

		rota_strbuf_add(&all, (const char *)&be, 4);
		rota_strbuf_add(&all, l->nodes[n].blob, l->nodes[n].len);
		free(l->nodes[n].blob);
		l->nodes[n].blob = NULL;
		l->nodes[n].in = false;
	}
	l->nin = 0;
	l->gathers++;
	for (uint32_t n = 0; n < l->nnodes; n++)
		wireup_pmi.done(l->nodes[n].srv, all.data, all.len);
	rota_strbuf_fini(&all);
}

static int allgather(void *ctx, const void *blob, size_t len)
{
	struct node *nd = ctx;
	struct launch *l = nd->l;

	if (nd->in) {
		fprintf(stderr, "node%u: allgather while one is under way\n",
			nd->id);
		l->failed = 1;
		return -EBUSY;
	}
	nd->blob = rota_xmalloc(len ? len : 1);
	memcpy(nd->blob, blob, len);
	nd->len = len;
	nd->in = true;
	if (++l->nin == l->nnodes)
		rota_evloop_defer(l->loop, done_cb, l);
	return 0;
}

static void complain(void *ctx, const char *line)
{
	struct node *nd = ctx;

	fprintf(stderr, "node%u: %s\n", nd->id, line);
}

static void kill_all(struct launch *l)
{
	for (uint32_t r = 0; r < l->ntasks; r++)
		if (l->pids[r] > 0)
			kill(l->pids[r], SIGKILL);
}

static void child_cb(struct rota_evloop *loop, int signo, void *arg)
{
	struct launch *l = arg;
	int status;
	pid_t pid;

	(void)signo;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (uint32_t r = 0; r < l->ntasks; r++) {
			if (l->pids[r] != pid)
				continue;
			l->pids[r] = 0;
			l->running--;
			if (!WIFEXITED(status) || WEXITSTATUS(status)) {
				fprintf(stderr, "rank %u: status 0x%x\n", r,
					status);
				l->failed = 1;
			}
		}
	}
	if (l->failed && !getenv("PMI_LAUNCH_KEEP"))
		kill_all(l);
	if (!l->running)
		rota_evloop_stop(loop);
}

static void timeout_cb(struct rota_evloop *loop, void *arg)
{
	struct launch *l = arg;

	fprintf(stderr, "pmi_launch: timed out, killing the ranks\n");
	kill_all(l);
	l->failed = 1;
	(void)loop;
}

static void exec_rank(char **env, int fd, char **argv)
{
	sigset_t all;

	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	for (int i = 0; env[i]; i++)
		putenv(env[i]);
	/* the one fd the task keeps across exec */
	if (fd >= 0)
		fcntl(fd, F_SETFD, 0);
	execvp(argv[0], argv);
	fprintf(stderr, "pmi_launch: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static int start_node(struct launch *l, struct node *nd, char **argv)
{
	char err[160];

	for (uint32_t i = 0; i < nd->st.count[nd->id]; i++) {
		uint32_t rank = nd->st.ranks[nd->st.first[nd->id] + i];
		char **env;
		int fd;
		pid_t pid;

		if (wireup_pmi.task_env(nd->srv, rank, &env, &fd, err,
					sizeof(err))) {
			fprintf(stderr, "pmi_launch: %s\n", err);
			return -1;
		}
		pid = fork();
		if (pid == 0)
			exec_rank(env, fd, argv);
		wireup_pmi.task_started(nd->srv, rank, pid);
		if (pid < 0)
			return -1;
		l->pids[rank] = pid;
		l->running++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct launch l = { 0 };
	uint32_t ppn;
	uint32_t *count, *first, *ranks;
	const char *t = getenv("PMI_LAUNCH_TIMEOUT");
	char err[160];

	if (argc < 4 || atoi(argv[1]) < 1 || atoi(argv[2]) < 1) {
		fprintf(stderr, "usage: pmi_launch NODES RANKS_PER_NODE "
				"PROGRAM [ARGS...]\n");
		return 2;
	}
	l.nnodes = (uint32_t)atoi(argv[1]);
	ppn = (uint32_t)atoi(argv[2]);
	l.ntasks = l.nnodes * ppn;
	l.loop = rota_evloop_create();
	l.nodes = rota_xcalloc(l.nnodes, sizeof(*l.nodes));
	l.pids = rota_xcalloc(l.ntasks, sizeof(*l.pids));
	count = rota_xcalloc(l.nnodes, sizeof(*count));
	first = rota_xcalloc(l.nnodes, sizeof(*first));
	ranks = rota_xcalloc(l.ntasks, sizeof(*ranks));
	for (uint32_t n = 0; n < l.nnodes; n++) {
		count[n] = ppn;
		first[n] = n * ppn;
	}
	for (uint32_t r = 0; r < l.ntasks; r++)
		ranks[r] = r;
	if (rota_evloop_add_signal(l.loop, SIGCHLD, child_cb, &l) < 0)
		return 1;
	rota_evloop_add_timer(l.loop, (t ? atoi(t) : 60) * 1000, false,
			      timeout_cb, &l);
	for (uint32_t n = 0; n < l.nnodes; n++) {
		struct node *nd = &l.nodes[n];

		nd->l = &l;
		nd->id = n;
		nd->st = (struct wireup_step){
			.job_id = 1, .step_id = 0, .ntasks = l.ntasks,
			.nnodes = l.nnodes, .node_id = n, .count = count,
			.first = first, .ranks = ranks, .ncpus_per_task = 1,
			.tmpdir = "/tmp", .uid = getuid(), .gid = getgid(),
		};
		nd->ops = (struct wireup_ops){ .allgather = allgather,
					       .complain = complain,
					       .ctx = nd };
		if (wireup_pmi.create(l.loop, &nd->st, &nd->ops, &nd->srv, err,
				      sizeof(err))) {
			fprintf(stderr, "pmi_launch: %s\n", err);
			return 1;
		}
	}
	for (uint32_t n = 0; n < l.nnodes; n++)
		if (start_node(&l, &l.nodes[n], argv + 3) < 0)
			l.failed = 1;
	if (l.running)
		rota_evloop_run(l.loop);
	for (uint32_t n = 0; n < l.nnodes; n++) {
		wireup_pmi.destroy(l.nodes[n].srv);
		free(l.nodes[n].blob);
	}
	fprintf(stderr, "pmi_launch: %u allgathers\n", l.gathers);
	rota_evloop_destroy(l.loop);
	free(count);
	free(first);
	free(ranks);
	free(l.pids);
	free(l.nodes);
	return l.failed;
}
