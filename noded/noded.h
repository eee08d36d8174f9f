/* SPDX-License-Identifier: MIT */
#ifndef ROTA_NODED_NODED_H
#define ROTA_NODED_NODED_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/auth.h"
#include "common/msg.h"

/* Ended runs a node daemon remembers, to refuse their late launches. */
#define STEPS_OVER_MAX 1024

/* Heartbeats in flight at most; past that the link is stuck: reopen it. */
#define LINK_UNANSWERED 16

/* The node daemon's context, one per process, passed everywhere. */
struct rota_auth;
struct rota_conf;
struct rota_conn;
struct rota_evloop;
struct rota_timer;
struct topology;
struct cgroup_env;

/*
 * A job this node runs (under its supervisor), or has ended and not yet
 * heard acknowledged.  Rebuilt from SpoolDir when the daemon restarts.
 */
struct njob {
	uint32_t id;
	uint32_t run;		/* which run of the job (requeues) */
	pid_t sup;		/* its supervisor (supervise.h) */
	uint64_t sup_start;	/* and the kernel's start time of it */
	bool ended;		/* 'end' is valid, waiting for the ack */
	struct rota_msg_job_end end;
	struct njob *next;
};

struct noded {
	struct rota_evloop *loop;
	struct rota_conf *conf;
	struct rota_auth *auth;
	struct topology *topo;
	char *name;
	char *spool;		/* SpoolDir/<name>: this node's, even when
				 * several daemons share one host */
	char *addr;		/* the source address of the link */
	char *ctld_host;
	unsigned ctld_port;
	struct rota_conn *link;
	struct rota_session sess;	/* of the current link */
	uid_t ctld_uid;			/* CtldUser's */
	bool registered;
	struct rota_timer *heartbeat;
	struct rota_timer *reconnect;
	int64_t backoff_ms;
	struct njob *jobs;
	struct rota_watch *spool_watch;	/* inotify: job ends */
	struct rota_timer *check;	/* supervisors still alive? */
	int spool_fd;
	char **features;	/* found (ib, largemem) plus rota.conf's */
	struct cgroup_env *cgroups; /* jobs' cgroups; NULL: none */
	/* the lease (lease.h), renewed by the answers to what the link sent */
	char *lease_path;	/* <spool>/lease */
	int64_t lease_ms;	/* the controller's NodeLease; 0: none */
	int64_t lease_end;	/* lease clock, ms; 0: never had one */
	bool lease_lost;	/* said so once, until renewed */
	int64_t sent[LINK_UNANSWERED]; /* when each unanswered REGISTER or
					  HEARTBEAT left, oldest first */
	unsigned nsent;
	char refused[160];	/* the controller's last refusal */
	/* job steps (steps.c) */
	int step_fd;		/* listening; -1: none */
	unsigned step_port;
	struct rota_watch *step_watch;
	struct nstep *steps;	/* the step supervisors started */
	uint64_t steps_refused;	/* launches refused (logged, counted) */
	struct steps_over {
		uint32_t job_id;
		uint32_t run;
	} steps_over[STEPS_OVER_MAX]; /* runs ended here (steps.c) */
	size_t steps_over_next;
	int64_t refused_at;	/* when it was last logged (loop ms) */
};

/* link.c: the connection to the controller */
void link_start(struct noded *nd);
/* Sign and send a message to the controller (dropped if not connected). */
void link_send(struct noded *nd, uint16_t type, const char *body, size_t len);

/*
 * Start the heartbeat timer (HeartbeatInterval) again and register anew:
 * the link is closed and opened at once (after a reconfigure).
 */
void link_restart(struct noded *nd);

/* reconfig.c: re-read rota.conf (RECONFIGURE_NODE, SIGHUP); logs failures. */
void noded_reconfigure(struct noded *nd);
/* main.c: ib and largemem as found, then rota.conf's; NULL-terminated. */
struct rota_conf;
struct rota_conf_node;
struct topology_summary;
char **noded_features(const struct topology_summary *t,
		      const struct rota_conf *conf,
		      const struct rota_conf_node *cn);

/* steps.c: job steps' launches (step.h) */
struct nstep;
/* Listen for `rota run` on the node's address, NodedPort; -errno. */
int steps_listen(struct noded *nd);
/* The job's run is over (STEPS_KILL): end its steps here. */
void steps_kill(struct noded *nd, uint32_t job_id, uint32_t run);
/* Did the controller say this run of the job was over? */
bool steps_job_over(const struct noded *nd, uint32_t job_id, uint32_t run);
/* A child was reaped: true if it was a step supervisor. */
bool steps_reaped(struct noded *nd, pid_t pid);
void steps_fini(struct noded *nd);
/* At start: find the step supervisors still running (step.h's marks), and
 * empty the cgroups of those that died with an earlier daemon. */
void steps_recover(struct noded *nd);

/* jobs.c */
void jobs_launch(struct noded *nd, const struct rota_msg_launch *m);
void jobs_signal(struct noded *nd, const struct rota_msg_job_signal *m);
void jobs_acked(struct noded *nd, uint32_t job_id, uint32_t run);
/* Re-send the ends the controller has not acknowledged. */
void jobs_resend_ends(struct noded *nd);
/*
 * UsageCharge=measured: send the controller what each running job's
 * cgroup has used so far (JOB_USAGE); nothing without cgroups.
 */
void jobs_report_usage(struct noded *nd);
/*
 * Find this node's jobs again in SpoolDir (supervisors still running, ends
 * not yet acknowledged) and watch it for ends.  -errno when SpoolDir
 * cannot be watched.
 */
int jobs_start(struct noded *nd);
/* SIGCHLD: reap what is left of supervisor starts. */
void jobs_reap(struct noded *nd);
/* Forget the jobs (shutdown): they run on under their supervisors. */
void jobs_fini(struct noded *nd);

#endif
