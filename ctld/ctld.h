/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_CTLD_H
#define ROTA_CTLD_CTLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/auth.h"
#include "common/frame.h"

/*
 * The controller daemon's context: one per process, passed to every
 * handler (flux-core's job-manager style), never a global.
 */
struct rota_auth;
struct rota_conf;
struct rota_conn;
struct rota_evloop;
struct rota_timer;
struct core;
struct idem;
struct journal;
struct user_cache;
struct admit;
struct jobsteps;

#define CTLD_RPC_MAX 48

struct ctld_rpc_stat {
	uint64_t count;
	uint64_t us_total;	/* handling time, work clock */
	uint64_t us_max;
};

struct ctld_stats {
	uint64_t requests;
	uint64_t auth_refused;	 /* missing, forged, expired, replayed */
	uint64_t denied;	 /* authenticated but not allowed */
	uint64_t requests_repeated; /* answered again by request id (idem.c) */
	uint64_t bad_frames;
	uint64_t unknown_types;
	uint64_t conns_accepted;
	uint64_t refused_max_conns;	 /* over MaxConnections, at accept */
	uint64_t refused_per_addr;	 /* over MaxConnectionsPerAddr */
	uint64_t preauth_too_large;	 /* frame too large, no credential */
	uint64_t preauth_timeouts;	 /* no credential within AuthTimeout */
	uint64_t sched_passes;
	uint64_t sched_last_us;	 /* the last scheduling pass */
	uint64_t sched_max_us;
	uint64_t sched_total_us;
	uint64_t sched_deferred; /* passes put off by SchedulerMaxRPC */
	int64_t started;	 /* Unix time the controller started */
	struct ctld_rpc_stat rpc[CTLD_RPC_MAX]; /* by dispatch table entry */
};

struct ctld {
	struct rota_evloop *loop;
	struct rota_conf *conf;
	struct core *core;
	struct rota_auth *auth;
	struct user_cache *users;
	struct journal *journal;
	struct idem *idem;		/* recent request ids (idem.h) */
	int listen_fd;
	struct rota_timer *tick;
	struct rota_timer *kick;	/* a scheduling pass soon */
	int64_t last_pass;		/* Unix time of the last periodic pass */
	struct peer **node_links;	/* per core node index, or NULL */
	struct peer *peers;		/* every open connection */
	uid_t self_uid;
	const struct rota_clock *clock; /* the real one; injected for tests */
	struct ctld_stats stats;
	struct jobcomp *jobcomp;	/* JobComp plugins (jobcomp.h) */
	struct admit *admit;		/* connection caps (admit.h) */
	struct jobsteps *steps;		/* jobs with steps (step.h) */
	int spare_fd;			/* given up to shed a peer on EMFILE */
	int64_t refusal_logged;		/* when a refusal was last logged */
	uint64_t refusals_quiet;	/* refusals since, not logged */
};

/* A connected peer: a client for one request, or a node daemon's link. */
struct peer {
	struct ctld *ctld;
	struct rota_conn *conn;
	int node;	/* index of the node this link belongs to, or -1 */
	struct peer *prev;	/* in ctld.peers, to close them at shutdown */
	struct peer *next;
	struct rota_session sess; /* opened by the peer's munge credential */
	uid_t uid;	/* who: from the session */
	gid_t gid;
	/* a credential opened before its body came (conn.h's cred_cb) */
	struct rota_auth_pending pre;
	bool from_node;	/* admitted from a node's address (admit.h) */
	unsigned step_port;	/* a node link: where it takes steps; 0 none */
	uid_t step_uid;		/* and the uid that daemon runs as */
	uint64_t steps_refused;	/* step launches it refused (heartbeats) */
	struct reply_stream *stream; /* a long reply being written
					(stream.h); NULL: none */
	char addr[48];	/* the peer's address, as admitted */
};

/* server.c */
/* The dispatch table's entries: how many, and each one's message type. */
size_t ctld_rpc_types(void);
uint16_t ctld_rpc_type(size_t i);
int server_start(struct ctld *ctld, unsigned *port);
/* Close every connection (shutdown). */
void server_close_all(struct ctld *ctld);
/* Sign and queue a reply or order on 'p'. */
void peer_send(struct peer *p, uint16_t type, const char *body, size_t len);
/*
 * As peer_send, for a long reply (stream.c): its MAC begun with
 * rota_auth_mac_begin, and 'body' (malloc'ed) taken, not copied.
 */
struct rota_auth_mac_stream;
void peer_send_mac(struct peer *p, uint16_t type, char *body, size_t len,
		   struct rota_auth_mac_stream *mac);
/* Reply ERROR with the user's line. */
void peer_send_error(struct peer *p, int code, const char *text);
bool ctld_is_operator(struct ctld *ctld, uid_t uid);

/*
 * Ask for a scheduling pass at the end of this loop iteration (timers run
 * once every ready connection of the turn was served).
 */
void ctld_kick(struct ctld *ctld);
/*
 * The pass now, instead of any asked for: an event that always wants one
 * (a submit, an end) runs it before its own commit, so that the jobs it
 * starts are journaled by the same fsync.  ctld_run_actions() after the
 * commit sends their launches.  With SchedulerMaxRPC=N and N requests or
 * more waiting in this loop turn, the pass is put off to the turn's end
 * (ctld_kick) instead, as Slurm's max_rpc_cnt defers its scheduler.
 */
void ctld_schedule_now(struct ctld *ctld);
/* Turn the core's queued actions into messages to node daemons. */
void ctld_run_actions(struct ctld *ctld);
/* Monotonic microseconds: the core's work clock for its time budgets. */
int64_t ctld_work_clock(void);
/* Unix seconds now, from the daemon's clock, fed to the core. */
int64_t ctld_now(const struct ctld *ctld);

/*
 * state.c: replay StateDir at start; write what changed before answering,
 * sending or acknowledging anything (0, or -errno already logged).
 */
int state_load(struct ctld *ctld);
/*
 * rota-ctld --salvage: replay what is intact around damage, write it as a
 * new generation and close the journal (0, or -errno already logged).
 */
int state_salvage(struct ctld *ctld);
int state_commit(struct ctld *ctld);
int state_compact(struct ctld *ctld);

/* rpc_client.c and rpc_node.c: handlers, body already authenticated. */
typedef void (*rpc_handler_fn)(struct peer *p, const struct rota_frame *f);
void rpc_submit(struct peer *p, const struct rota_frame *f);
void rpc_job_list(struct peer *p, const struct rota_frame *f);
void rpc_job_rows(struct peer *p, const struct rota_frame *f);
/*
 * A job's "where" column: its nodes while it holds some (made in
 * keep[*nkeep], which the caller frees once the reply is sent), else why
 * it waits (borrowed).
 */
struct core;
struct core_job;
const char *rpc_job_where(const struct core *core, const struct core_job *job,
			  char **keep, size_t *nkeep);
void rpc_cancel(struct peer *p, const struct rota_frame *f);
void rpc_node_list(struct peer *p, const struct rota_frame *f);
/* LICENSES: the cluster's licenses, one "NAME TOTAL USED" line each. */
void rpc_licenses(struct peer *p, const struct rota_frame *f);
void rpc_ping(struct peer *p, const struct rota_frame *f);
void rpc_diag(struct peer *p, const struct rota_frame *f);
void rpc_node_admin(struct peer *p, const struct rota_frame *f);
void rpc_share(struct peer *p, const struct rota_frame *f);
void rpc_prio(struct peer *p, const struct rota_frame *f);
void rpc_node_register(struct peer *p, const struct rota_frame *f);
void rpc_heartbeat(struct peer *p, const struct rota_frame *f);
void rpc_job_end(struct peer *p, const struct rota_frame *f);
/* JOB_USAGE: no reply; what is not running there is ignored (debug). */
void rpc_job_usage(struct peer *p, const struct rota_frame *f);
/* A node link closed. */
void rpc_node_link_lost(struct peer *p, const char *why);

/*
 * reconfig.c: read rota.conf again and swap to it, jobs and usage moved
 * over, node daemons told to follow; on failure nothing changed and 'err'
 * holds the reason.  SIGHUP and RECONFIGURE (operators).
 */
int ctld_reconfigure(struct ctld *ctld, struct rota_error *err);
void rpc_reconfigure(struct peer *p, const struct rota_frame *f);

/* A reply's lines, one per job refused (a NULL-ended vector). */
struct rpc_lines {
	char **v;
	size_t n;
};
void rpc_lines_add(struct rpc_lines *l, const char *text);
void rpc_lines_fini(struct rpc_lines *l);
typedef int (*rpc_job_fn)(void *arg, uint32_t id, struct rota_error *err);
/*
 * 'fn' on every job a request names: each id, or with tasks[i] those
 * tasks of array ids[i] (core_array_select; 'running': an array's running
 * tasks too, not only its pending ones); one line in 'out' per job
 * refused or task not found.
 */
void rpc_each_job(struct ctld *ctld, const uint32_t *ids, char *const *tasks,
		  size_t n, bool running, rpc_job_fn fn, void *arg,
		  struct rpc_lines *out);

/* rpc_control.c: HOLD, RELEASE, NICE, UPDATE, REQUEUE; rpc_top.c. */
void rpc_hold(struct peer *p, const struct rota_frame *f);
void rpc_release(struct peer *p, const struct rota_frame *f);
void rpc_nice(struct peer *p, const struct rota_frame *f);
void rpc_update(struct peer *p, const struct rota_frame *f);
void rpc_requeue(struct peer *p, const struct rota_frame *f);
void rpc_top_rows(struct peer *p, const struct rota_frame *f);

/* rpc_resv.c: RESV_CREATE, RESV_DELETE (operators), RESV_LIST. */
void rpc_resv_create(struct peer *p, const struct rota_frame *f);
void rpc_resv_delete(struct peer *p, const struct rota_frame *f);
void rpc_resv_list(struct peer *p, const struct rota_frame *f);

/* rpc_why.c: WHY, for a job's owner or an operator. */
void rpc_why(struct peer *p, const struct rota_frame *f);

#endif
