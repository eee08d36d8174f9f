/* SPDX-License-Identifier: MIT */
#ifndef ROTA_NODED_STEP_INTERNAL_H
#define ROTA_NODED_STEP_INTERNAL_H

/*
 * Shared by the files of a step's supervisor only: step.c owns the event
 * loop and the client's connection, step_start.c starts the tasks.  Not
 * for use outside them (the daemon's side is step.h).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/auth.h"
#include "common/strbuf.h"
#include "noded/step.h"
#include "noded/wireup.h"

struct rota_conn;
struct rota_evloop;
struct rota_timer;
struct rota_watch;
struct cgroup_job;

struct stepsup;

struct task {
	struct stepsup *owner;
	uint32_t rank;
	pid_t pid;		/* 0: not started or reaped */
	int fd[3];		/* our ends: stdin (rank 0), stdout, stderr */
	bool pty;		/* fd[1] a terminal's master, fd[0] a dup */
	struct rota_watch *w[3];
};

/* Ranks in node order, as the credential lays them out. */
struct layout {
	uint32_t *first;
	uint32_t *ranks;
	uint32_t ntasks;
};

struct stepsup {
	const struct step_args *a;
	const struct rota_step_cred *c;
	struct rota_evloop *loop;
	struct rota_conn *conn;
	struct rota_session sess;
	struct task *tasks;
	uint32_t ntasks;
	uint32_t live;		/* tasks not yet reaped */
	uint32_t streams;	/* task output streams not yet at EOF */
	struct rota_strbuf in;	/* for rank 0's stdin, not yet written */
	size_t in_off;
	bool in_eof;
	struct cgroup_job *cg;
	const struct wireup_impl *wimpl;
	struct wireup_server *wu;
	char *tmpdir;		/* <mark>.d: root's */
	char *user_tmp;		/* <mark>.d/user: the tasks' TMPDIR */
	bool paused;
	bool killing;
	bool done;
	struct rota_timer *kill_timer;
	struct rota_timer *orphans;	/* no cgroup: streams close soon */
	struct rota_timer *tick;
	uint64_t cpu_usec;
	uint64_t mem_peak;
	gid_t *groups;		/* the owner's supplementary groups */
	size_t ngroups;
	/* what the wire-up server borrows for its lifetime (wireup.h) */
	struct layout lay;
	struct wireup_step ws;
};

/*
 * Start the node's tasks of the step (step_start.c): 0, or -errno with
 * the line for the client in 'err'.  What started is left to the caller
 * to end and reap.
 */
int step_start_tasks(struct stepsup *s, char *err, size_t errlen);

/* A task's stdout or stderr is readable (step.c); 'arg' is its task. */
void step_out_cb(struct rota_evloop *loop, int fd, unsigned events,
		 void *arg);

/* The wire-up server's wireup_ops (step.c): 'ctx' is the stepsup. */
int step_wireup_allgather(void *ctx, const void *blob, size_t len);
void step_wireup_complain(void *ctx, const char *line);

#endif
