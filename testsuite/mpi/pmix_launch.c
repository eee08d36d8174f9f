// SPDX-License-Identifier: MIT
/*
 * pmix_launch: plays a step of NODES nodes on one host, to test the PMIx
 * server (noded/pmix_server.c) without the step supervisor and rota run.
 *
 *   pmix_launch [-u USER] NODES TASKS TMPDIR PROGRAM [ARG...]
 *
 * Each fake node is a child process of its own (a PMIx server can be
 * initialised once per process) with its own loop, tmpdir (TMPDIR/nNN)
 * and server; it forks its ranks with the server's environment, as USER
 * if given.  The parent plays rota run: it reads each node's allgather
 * blob from its socketpair (4-byte big-endian length, then the bytes) and
 * sends every node the concatenation in wireup.h's layout, framed the
 * same way.  Exit 0 when every rank of every node exited 0.
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/evloop.h"
#include "common/xalloc.h"
#include "noded/wireup.h"

#define MAX_NODES 64

struct node {
	struct wireup_step st;
	struct wireup_server *srv;
	struct rota_evloop *loop;
	int fd;		/* to the parent */
	uint32_t running;
	int failed;
};

static int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void put_be32(unsigned char *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static int send_frame(int fd, const void *data, size_t len)
{
	unsigned char h[4];

	put_be32(h, (uint32_t)len);
	return write_full(fd, h, 4) || write_full(fd, data, len) ? -1 : 0;
}

/* A frame read whole (blocking: this is a test), NULL at EOF. */
static char *recv_frame(int fd, size_t *len)
{
	unsigned char h[4];
	char *buf;

	if (read_full(fd, h, 4) < 0)
		return NULL;
	*len = get_be32(h);
	buf = rota_xmalloc(*len + 1);
	if (read_full(fd, buf, *len) < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int node_allgather(void *ctx, const void *blob, size_t len)
{
	struct node *nd = ctx;

	return send_frame(nd->fd, blob, len) < 0 ? -EPIPE : 0;
}

static void node_complain(void *ctx, const char *line)
{
	fprintf(stderr, "pmix_launch: node %u: %s\n",
		((struct node *)ctx)->st.node_id, line);
}

static void parent_cb(struct rota_evloop *loop, int fd, unsigned events,
		      void *arg)
{
	struct node *nd = arg;
	size_t len;
	char *all = recv_frame(fd, &len);

	if (!all) {
		fprintf(stderr, "pmix_launch: node %u: launcher gone\n",
			nd->st.node_id);
		exit(1);
	}
	wireup_pmix.done(nd->srv, all, len);
	free(all);
}

static void child_cb(struct rota_evloop *loop, int signo, void *arg)
{
	struct node *nd = arg;
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "pmix_launch: node %u: pid %d: %s %d\n",
				nd->st.node_id, (int)pid,
				WIFEXITED(status) ? "exit" : "signal",
				WIFEXITED(status) ? WEXITSTATUS(status) :
						    WTERMSIG(status));
			nd->failed = 1;
		}
		if (--nd->running == 0)
			rota_evloop_stop(loop);
	}
}

static void exec_rank(struct node *nd, char **env, char **argv)
{
	sigset_t none;

	for (; *env; env++)
		putenv(*env);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (getuid() == 0 && nd->st.uid != 0 &&
	    (setgroups(0, NULL) || setgid(nd->st.gid) ||
	     setuid(nd->st.uid))) {
		perror("pmix_launch: setuid");
		_exit(126);
	}
	execvp(argv[0], argv);
	perror(argv[0]);
	_exit(127);
}

static int start_ranks(struct node *nd, char **argv)
{
	const struct wireup_step *st = &nd->st;
	uint32_t i;
	char err[160] = "";

	for (i = 0; i < st->count[st->node_id]; i++) {
		uint32_t rank = st->ranks[st->first[st->node_id] + i];
		char **env;
		int cfd;
		pid_t pid;

		if (wireup_pmix.task_env(nd->srv, rank, &env, &cfd, err,
					 sizeof(err)) < 0) {
			fprintf(stderr, "pmix_launch: %s\n", err);
			return -1;
		}
		pid = fork();
		if (pid == 0)
			exec_rank(nd, env, argv);
		wireup_pmix.task_started(nd->srv, rank, pid);
		if (pid < 0)
			return -1;
		nd->running++;
	}
	return 0;
}

/* One node's process: never returns. */
static void run_node(struct node *nd, const char *tmpbase, char **argv)
{
	struct wireup_ops ops = {
		.allgather = node_allgather,
		.complain = node_complain,
		.ctx = nd,
	};
	char err[160] = "";
	char *dir = rota_xasprintf("%s/n%02u", tmpbase, nd->st.node_id + 1);
	char *user = rota_xasprintf("%s/user", dir);

	/* as noded/step_start.c makes them: root's, the tasks' "user" in it */
	if (mkdir(dir, 0755) < 0 || mkdir(user, 0700) < 0 ||
	    chown(user, nd->st.uid, nd->st.gid) < 0) {
		perror(dir);
		exit(1);
	}
	free(user);
	nd->st.tmpdir = dir;
	nd->loop = rota_evloop_create();
	/* before libpmix's thread exists, so that it inherits the mask */
	if (rota_evloop_add_signal(nd->loop, SIGCHLD, child_cb, nd) < 0)
		exit(1);
	if (wireup_pmix.create(nd->loop, &nd->st, &ops, &nd->srv, err,
			       sizeof(err)) < 0) {
		fprintf(stderr, "pmix_launch: node %u: %s\n", nd->st.node_id,
			err);
		exit(1);
	}
	rota_evloop_add_fd(nd->loop, nd->fd, ROTA_EV_READ, parent_cb, nd);
	if (start_ranks(nd, argv) < 0)
		nd->failed = 1;
	if (nd->running)
		rota_evloop_run(nd->loop);
	wireup_pmix.destroy(nd->srv);
	rota_evloop_destroy(nd->loop);
	free(dir);
	/*
	 * _exit, as a step supervisor does: what libpmix keeps for the life
	 * of the process, and the parent's tables this fork shares, are not
	 * leaks to report (LeakSanitizer runs at exit()).
	 */
	fflush(NULL);
	_exit(nd->failed);
}

/*
 * Play rota run: one allgather per round until every node hangs up (a
 * round some nodes hang up in and others do not cannot complete: return).
 */
static void serve(const int *fds, uint32_t nnodes)
{
	for (;;) {
		char *all = NULL;
		size_t len = 0;
		uint32_t gone = 0;
		uint32_t n;

		for (n = 0; n < nnodes; n++) {
			size_t blen;
			char *blob = recv_frame(fds[n], &blen);

			if (!blob) {
				gone++;
				continue;
			}
			all = rota_xrealloc(all, len + 4 + blen);
			put_be32((unsigned char *)all + len, (uint32_t)blen);
			memcpy(all + len + 4, blob, blen);
			len += 4 + blen;
			free(blob);
		}
		if (gone) {
			if (gone < nnodes)
				fprintf(stderr, "pmix_launch: %u of %u nodes "
						"left an allgather\n",
					gone, nnodes);
			free(all);
			return;
		}
		for (n = 0; n < nnodes; n++)
			send_frame(fds[n], all, len);
		free(all);
	}
}

int main(int argc, char **argv)
{
	static uint32_t count[MAX_NODES];
	static uint32_t first[MAX_NODES];
	static char *names[MAX_NODES];
	static int fds[MAX_NODES];
	struct node nd = { .fd = -1 };
	struct passwd *pw = NULL;
	uint32_t *ranks;
	uint32_t nnodes;
	uint32_t ntasks;
	uint32_t n;
	int failed = 0;
	int opt;

	while ((opt = getopt(argc, argv, "+u:")) != -1) {
		if (opt != 'u' || !(pw = getpwnam(optarg))) {
			fprintf(stderr, "pmix_launch: bad option or user\n");
			return 2;
		}
	}
	if (argc - optind < 4)
		return fprintf(stderr, "usage: pmix_launch [-u USER] NODES "
				       "TASKS TMPDIR PROGRAM [ARG...]\n"), 2;
	nnodes = (uint32_t)atoi(argv[optind]);
	ntasks = (uint32_t)atoi(argv[optind + 1]);
	if (nnodes < 1 || nnodes > MAX_NODES || ntasks < nnodes)
		return fprintf(stderr, "pmix_launch: bad sizes\n"), 2;
	ranks = rota_xcalloc(ntasks, sizeof(*ranks));
	for (n = 0; n < ntasks; n++)
		ranks[n] = n;
	for (n = 0; n < nnodes; n++) {
		count[n] = ntasks / nnodes + (n < ntasks % nnodes);
		first[n] = n ? first[n - 1] + count[n - 1] : 0;
		names[n] = rota_xasprintf("n%02u", n + 1);
	}
	nd.st = (struct wireup_step){
		.job_id = 42, .step_id = 0, .ntasks = ntasks,
		.nnodes = nnodes, .nodes = (const char *const *)names,
		.count = count, .first = first, .ranks = ranks,
		.ncpus_per_task = 1, .uid = pw ? pw->pw_uid : getuid(),
		.gid = pw ? pw->pw_gid : getgid(),
	};
	fflush(stdout);
	for (n = 0; n < nnodes; n++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
			return perror("socketpair"), 1;
		if (fork() == 0) {
			uint32_t i;

			for (i = 0; i < n; i++)
				close(fds[i]);
			close(sv[0]);
			nd.fd = sv[1];
			nd.st.node_id = n;
			run_node(&nd, argv[optind + 2], argv + optind + 3);
		}
		close(sv[1]);
		fds[n] = sv[0];
	}
	serve(fds, nnodes);
	for (n = 0; n < nnodes; n++) {
		int status;

		close(fds[n]);
		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed = 1;
	}
	for (n = 0; n < nnodes; n++)
		free(names[n]);
	free(ranks);
	return failed;
}
