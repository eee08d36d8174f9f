/* SPDX-License-Identifier: MIT */
#ifndef ROTA_NODED_WIREUP_H
#define ROTA_NODED_WIREUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * MPI wire-up for one job step on one node: the contract between the step
 * supervisor (noded/step.c, one process per step per node) and the servers
 * MPI libraries talk to, PMI-1/PMI-2 (pmi_wire.c) and PMIx (pmix_server.c).
 *
 * The one exchange they need between nodes is an allgather: each node's
 * server hands the step supervisor one blob, the step supervisor sends it
 * over its authenticated connection to `rota run`, which waits for every
 * node's blob and sends the concatenation back to every node (Rota's own
 * fence, over Rota's own links: no shared file, no ssh).  Allgathers of a
 * step are numbered from 0 and complete in order.
 *
 * Layout of the concatenation handed to wireup_ops.done(): for each node of
 * the step in node order (node id 0 first), a 4-byte big-endian length and
 * that many bytes of the node's blob.  A node with nothing to say gives an
 * empty blob, never none.
 */

/* What a wire-up server knows of the step, borrowed for its lifetime. */
struct wireup_step {
	uint32_t job_id;
	uint32_t step_id;
	uint32_t ntasks;	/* in the whole step */
	uint32_t nnodes;
	uint32_t node_id;	/* this node, 0 .. nnodes-1 */
	const char *const *nodes; /* node names, in node id order */
	/*
	 * Tasks per node in node id order, and their global ranks: the tasks
	 * of node n are ranks[first[n]] .. ranks[first[n] + count[n] - 1]
	 * (ranks are block-distributed today, but do not assume it).
	 */
	const uint32_t *count;
	const uint32_t *first;
	const uint32_t *ranks;
	uint32_t ncpus_per_task;
	const char *tmpdir;	/* private to this step on this node (made
				 * and removed by the caller): PMIx servers of
				 * several nodes on one host must not share one.
				 * Root's: the servers' files.  "<tmpdir>/user"
				 * is the tasks' (theirs to write) */
	uid_t uid;		/* the tasks' owner */
	gid_t gid;
};

struct rota_evloop;

/* What the step supervisor provides to a wire-up server. */
struct wireup_ops {
	/*
	 * Start the next allgather with this node's blob (copied).  The
	 * server's done() is called from the step supervisor's loop when all
	 * nodes' blobs are in; -errno if the step is gone (the server then
	 * fails its clients' fence).
	 */
	int (*allgather)(void *ctx, const void *blob, size_t len);
	/* A line for the step's stderr stream (a client broke the protocol). */
	void (*complain)(void *ctx, const char *line);
	void *ctx;
};

/*
 * The interface each server implements; the step supervisor holds one of
 * them (--mpi=pmix: PMIx, --mpi=pmi2 or none: the PMI wire protocol, which
 * costs nothing until a task speaks it).
 */
struct wireup_server;

struct wireup_impl {
	const char *name;	/* "pmi", "pmix" */
	/*
	 * Set up for the step on this node, on the step supervisor's loop
	 * (servers with threads of their own hand their work to it).
	 * -errno with a one-line 'err'.
	 */
	int (*create)(struct rota_evloop *loop, const struct wireup_step *st,
		      const struct wireup_ops *ops, struct wireup_server **out,
		      char *err, size_t errlen);
	/*
	 * Before task 'rank' (global) is forked: the variables to add to its
	 * environment ("NAME=value" strings, NULL-terminated, owned by the
	 * server until destroy) and an fd the child keeps open (-1: none;
	 * the server closes its own end's copy in the parent after fork via
	 * task_started).
	 */
	int (*task_env)(struct wireup_server *s, uint32_t rank,
			char ***env, int *child_fd, char *err, size_t errlen);
	/* The task was forked (pid) or failed to (pid -1). */
	void (*task_started)(struct wireup_server *s, uint32_t rank, pid_t pid);
	/* An allgather started with ops->allgather() is complete. */
	void (*done)(struct wireup_server *s, const void *all, size_t len);
	/* The step is over: close every client, free everything. */
	void (*destroy)(struct wireup_server *s);
};

extern const struct wireup_impl wireup_pmi;	/* pmi_wire.c */
extern const struct wireup_impl wireup_pmix;	/* pmix_server.c */

#endif
