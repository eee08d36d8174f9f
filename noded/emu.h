/* SPDX-License-Identifier: MIT */
#ifndef ROTA_NODED_EMU_H
#define ROTA_NODED_EMU_H

/*
 * rota-noded-emu: one process speaking for many nodes (docs/emulate.md).
 * Each emulated node has its own name, source address, topology, link,
 * munge session and lease, as a real rota-noded has; its jobs "run" as
 * timers.  Shared by emu_main.c (the process), emu_link.c (each node's
 * link to the controller) and emu_jobs.c (the jobs).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/auth.h"
#include "common/msg.h"

/* Heartbeats in flight at most per node, as rota-noded's LINK_UNANSWERED */
#define EMU_UNANSWERED 16

struct rota_auth;
struct rota_conf;
struct rota_conn;
struct rota_evloop;
struct rota_timer;
struct topology_summary;

/* A run of a job on its first node (the one the controller launches on). */
struct ejob {
	uint32_t id;
	uint32_t run;
	struct enode *node;
	struct rota_timer *timer; /* its end; NULL once ended */
	int64_t time_limit;	  /* seconds; 0: none */
	bool ended;		  /* 'end' is valid, waiting for the ack */
	struct rota_msg_job_end end;
	struct ejob *next;
};

struct enode {
	struct emu *emu;
	const char *name;	/* borrowed from the config */
	const char *addr;	/* its source address; NULL: any */
	char **features;
	const struct topology_summary *topo; /* shared, cycled */
	struct rota_conn *link;
	struct rota_session sess;
	bool registered;
	bool lost;		/* cut off on request: silent both ways */
	struct rota_timer *heartbeat;
	struct rota_timer *reconnect;
	int64_t backoff_ms;
	int64_t sent[EMU_UNANSWERED]; /* unanswered REGISTER/HEARTBEAT */
	unsigned nsent;
	int64_t lease_ms;	/* 0: no lease */
	int64_t lease_end;	/* loop ms; 0: never had one */
	struct ejob *jobs;
};

struct emu {
	struct rota_evloop *loop;
	struct rota_conf *conf;
	struct rota_auth *auth;
	char *ctld_host;
	unsigned ctld_port;
	uid_t ctld_uid;
	struct enode *nodes;
	size_t nnodes;
	const char *control;	/* file naming the lost nodes (SIGUSR1) */
	FILE *runlog;		/* starts and ends, for "nothing runs twice" */
	int64_t t0;		/* loop ms at start: the run log's zero */
	uint64_t registered;	/* nodes registered at least once */
	uint64_t started, ended, killed;
};

/* emu_link.c */
/* Open the node's link after 'delay_ms', and start its heartbeats. */
void emu_link_start(struct enode *n, int64_t delay_ms);
/*
 * Has the node's lease run out?  Then its jobs end (as a real node's
 * supervisors end theirs) and the link is reset.  Called at each
 * heartbeat and from emu_main.c's tick (every 500 ms: a real supervisor
 * reads the lease every second).
 */
void emu_link_check_lease(struct enode *n);
/* Sign and send to the controller (dropped if not connected or lost). */
void emu_link_send(struct enode *n, uint16_t type, const char *body,
		   size_t len);
/* The node is cut off (true) or back (false). */
void emu_link_set_lost(struct enode *n, bool lost);
/* Close the link for good (shutdown). */
void emu_link_stop(struct enode *n);

/* emu_jobs.c */
void emu_jobs_launch(struct enode *n, const struct rota_msg_launch *m);
void emu_jobs_signal(struct enode *n, const struct rota_msg_job_signal *m);
void emu_jobs_acked(struct enode *n, uint32_t job_id, uint32_t run);
void emu_jobs_resend_ends(struct enode *n);
/* The node's lease ran out: its jobs end NODE_FAIL (LeaseExpired). */
void emu_jobs_lease_lost(struct enode *n);
void emu_jobs_fini(struct enode *n);
/* A line of the run log: "<ms> <what> <job> <run> <node>" */
void emu_runlog(struct emu *emu, const char *what, uint32_t id, uint32_t run,
		const char *node);

#endif
