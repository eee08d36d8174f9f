// SPDX-License-Identifier: MIT
/*
 * Job steps, the node daemon's side: it listens where it registered
 * (NodedPort on its address), takes one STEP_LAUNCH per connection, checks
 * the credential the controller sealed for this node, this job and the
 * client's uid, and forks the step's supervisor (step.h), which takes the
 * connection over.  Refusals are logged, counted and answered in one line.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/conn.h"
#include "common/evloop.h"
#include "common/log.h"
#include "common/net.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "noded/launch.h"
#include "noded/noded.h"
#include "noded/cgroup.h"
#include "noded/step.h"
#include "noded/supervise.h"
#include "noded/textfile.h"

/* A step supervisor this daemon started. */
struct nstep {
	uint32_t job_id;
	uint32_t run;
	uint32_t step_id;
	pid_t pid;
	uint64_t start;		/* its kernel start time: the pid is still it */
	struct nstep *next;
};

/* A client connection until its launch is taken or refused. */
struct sclient {
	struct noded *nd;
	struct rota_conn *conn;
	struct rota_session sess;
	struct rota_auth_pending pre;
};

static void refuse(struct sclient *sc, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void refuse(struct sclient *sc, int code, const char *fmt, ...)
{
	char text[256], mac[ROTA_AUTH_MAC_TEXT];
	va_list ap;
	size_t len;
	char *body;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	sc->nd->steps_refused++;
	rota_warn("step refused from %s: %s", rota_conn_peer(sc->conn), text);
	body = rota_msg_error_encode(code, text, &len);
	if (sc->sess.open) {
		rota_auth_mac(&sc->sess, ROTA_MSG_ERROR, body, len, mac);
		rota_conn_send(sc->conn, ROTA_MSG_ERROR, mac, strlen(mac), body,
			       len);
	} else {
		rota_conn_send(sc->conn, ROTA_MSG_ERROR, NULL, 0, body, len);
	}
	free(body);
	rota_conn_close_after_flush(sc->conn);
}

static int cred_cb(struct rota_conn *c, const struct rota_frame_header *h,
		   const char *cred, void *arg)
{
	struct sclient *sc = arg;
	struct rota_error err;

	if (h->type != ROTA_MSG_STEP_LAUNCH) {
		refuse(sc, -EPROTO, "%s: not a step launch",
		       rota_msg_type_name(h->type));
		return -EPROTO;
	}
	if (rota_auth_precheck(sc->nd->auth, cred, h->cred_len, &sc->pre,
			       &err) < 0) {
		refuse(sc, -EACCES, "%s", err.text);
		return -EACCES;
	}
	return 0;
}

/* The credential's word against the node, the client and the clock. */
static int check_cred(struct sclient *sc, const struct rota_msg_step_launch *m,
		      struct rota_step_cred *cred)
{
	struct noded *nd = sc->nd;
	struct rota_error err;
	char *payload;
	size_t len;
	uid_t uid;
	gid_t gid;

	if (rota_auth_unseal(nd->auth, m->cred, &payload, &len, &uid, &gid,
			     &err) < 0) {
		refuse(sc, -EACCES, "step credential: %s", err.text);
		return -EACCES;
	}
	if (uid != nd->ctld_uid) {
		free(payload);
		refuse(sc, -EACCES, "step credential: sealed by uid %u, not "
				    "the controller's",
		       (unsigned)uid);
		return -EACCES;
	}
	if (rota_step_cred_decode(payload, len, cred, &err) < 0) {
		free(payload);
		refuse(sc, -EPROTO, "step credential: %s", err.text);
		return -EPROTO;
	}
	free(payload);
	if (strcmp(cred->node, nd->name) != 0) {
		refuse(sc, -EACCES, "step credential for node '%s', not '%s'",
		       cred->node, nd->name);
		return -EACCES;
	}
	if (sc->sess.uid != cred->uid && sc->sess.uid != 0) {
		refuse(sc, -EPERM, "job %u: uid %u may not start tasks in "
				   "uid %u's job",
		       cred->job_id, (unsigned)sc->sess.uid, cred->uid);
		return -EPERM;
	}
	if (cred->expires && time(NULL) > cred->expires) {
		refuse(sc, -ETIME, "step %u.%u: credential expired",
		       cred->job_id, cred->step_id);
		return -ETIME;
	}
	if (steps_job_over(nd, cred->job_id, cred->run)) {
		refuse(sc, -ESRCH, "job %u: its run %u has ended", cred->job_id,
		       cred->run);
		return -ESRCH;
	}
	if (cred->end_time &&
	    time(NULL) > cred->end_time + nd->conf->kill_wait) {
		refuse(sc, -ETIME, "job %u: its time limit has passed",
		       cred->job_id);
		return -ETIME;
	}
	return 0;
}

static void track(struct noded *nd, uint32_t job, uint32_t run,
		  uint32_t step, pid_t pid, uint64_t start)
{
	struct nstep *st = rota_xcalloc(1, sizeof(*st));

	st->start = start;
	st->job_id = job;
	st->run = run;
	st->step_id = step;
	st->pid = pid;
	st->next = nd->steps;
	nd->steps = st;
}

static void start(struct sclient *sc, struct rota_msg_step_launch *m,
		  struct rota_step_cred *cred)
{
	struct noded *nd = sc->nd;
	pid_t pid;

	if (geteuid() != 0 && cred->uid != getuid()) {
		refuse(sc, -EPERM, "job %u: cannot run as uid %u: rota-noded "
				   "is not root",
		       cred->job_id, cred->uid);
		return;
	}
	pid = fork();
	if (pid == 0) {
		struct step_args a = {
			.fd = rota_conn_fd(sc->conn),
			.sess = sc->sess,
			.auth = nd->auth,
			.cred = cred,
			.launch = m,
			.topo = nd->topo,
			.cgroups = nd->cgroups,
			.lease_path = nd->lease_ms ? nd->lease_path : NULL,
			.spool = nd->spool,
			.node = nd->name,
			.log_file = nd->conf->log_file,
			.kill_wait = nd->conf->kill_wait,
		};

		step_main(&a);
	}
	if (pid < 0) {
		refuse(sc, -EAGAIN, "fork: %s", strerror(errno));
		return;
	}
	track(nd, cred->job_id, cred->run, cred->step_id, pid,
	      supervise_starttime(pid));
	rota_debug("step %u.%u: supervisor %d", cred->job_id, cred->step_id,
		   (int)pid);
	/* the supervisor has the connection now; ours goes quietly */
	rota_conn_close(sc->conn);
}

static void frame_cb(struct rota_conn *c, const struct rota_frame *f,
		     void *arg)
{
	struct sclient *sc = arg;
	struct rota_msg_step_launch m;
	struct rota_step_cred cred = { 0 };
	struct rota_error err;

	if (sc->sess.open) {
		/* one launch per connection: the rest is the supervisor's */
		refuse(sc, -EPROTO, "%s: one launch per connection",
		       rota_msg_type_name(f->type));
		return;
	}
	if (rota_auth_finish(&sc->pre, &sc->sess, f->type, f->body,
			     f->body_len, &err) < 0) {
		refuse(sc, -EACCES, "%s", err.text);
		return;
	}
	if (rota_msg_step_launch_decode(f->body, f->body_len, &m, &err) < 0) {
		refuse(sc, -EPROTO, "STEP_LAUNCH: %s", err.text);
		return;
	}
	if (check_cred(sc, &m, &cred) == 0)
		start(sc, &m, &cred);
	rota_step_cred_clear(&cred); /* refused after its decode too */
	rota_msg_step_launch_clear(&m);
}

static void close_cb(struct rota_conn *c, int code, const char *why,
		     void *arg)
{
	struct sclient *sc = arg;

	rota_auth_pending_clear(&sc->pre);
	free(sc);
}

static void accept_cb(struct rota_evloop *loop, int fd, unsigned events,
		      void *arg)
{
	static const struct rota_conn_limits lim = {
		.max_frame = 1u << 24,
		.out_high_water = 1u << 20,
		.idle_ms = 30000,
		.preauth_max = 1u << 16,
		.preauth_ms = 5000,
	};
	static const struct rota_conn_ops ops = { .frame_cb = frame_cb,
						  .close_cb = close_cb,
						  .cred_cb = cred_cb };
	struct noded *nd = arg;
	int cfd;

	while ((cfd = rota_net_accept(fd)) >= 0) {
		struct sclient *sc = rota_xcalloc(1, sizeof(*sc));

		sc->nd = nd;
		sc->conn = rota_conn_create(loop, cfd, &lim, &ops, sc);
	}
}

int steps_listen(struct noded *nd)
{
	const char *addr = nd->addr ? nd->addr : "0.0.0.0";
	struct rota_error err;
	int fd = rota_net_listen(addr, nd->conf->noded_port, &nd->step_port,
				 &err);

	if (fd < 0) {
		rota_err("job steps: %s", err.text);
		return fd;
	}
	nd->step_fd = fd;
	nd->step_watch = rota_evloop_add_fd(nd->loop, fd, ROTA_EV_READ,
					    accept_cb, nd);
	rota_info("job steps on %s:%u", addr, nd->step_port);
	return 0;
}

/*
 * The runs the controller said were over (STEPS_KILL), the last
 * STEPS_OVER_MAX of them: a credential of one of them, sealed before the
 * end and used after it, must not start tasks outside any job.  Their
 * credentials expire within STEP_CRED_TTL; the ring outlasts that.
 */
bool steps_job_over(const struct noded *nd, uint32_t job_id, uint32_t run)
{
	for (size_t i = 0; i < STEPS_OVER_MAX; i++)
		if (nd->steps_over[i].job_id == job_id &&
		    nd->steps_over[i].run >= run)
			return true;
	return false;
}

void steps_kill(struct noded *nd, uint32_t job_id, uint32_t run)
{
	nd->steps_over[nd->steps_over_next] =
		(struct steps_over){ .job_id = job_id, .run = run };
	nd->steps_over_next = (nd->steps_over_next + 1) % STEPS_OVER_MAX;
	for (struct nstep *st = nd->steps; st; st = st->next)
		if (st->job_id == job_id && st->run <= run &&
		    supervise_alive(st->pid, st->start))
			kill(st->pid, SIGTERM);
}

/*
 * A step supervisor is gone without ending its step (killed, crashed, or
 * with an earlier daemon): end what it left in its cgroup, remove its
 * mark and its wire-up directory.  'path' is its mark; a supervisor that
 * ended its step removed the mark itself, and then there is nothing to do.
 */
static void bury(struct noded *nd, const char *path, unsigned step, int pid)
{
	unsigned job = 0, run = 0, uid = 0, gid = 0;
	unsigned long long start = 0;
	size_t len;
	char *text = textfile_read(path, &len), *dir;
	int got = text ? sscanf(text, "%u %u %llu %u %u", &job, &run, &start,
				&uid, &gid)
		       : 0;

	free(text);
	if (got < 3)
		return;
	if (nd->cgroups) {
		unsigned left = cgroup_job_reap(nd->cgroups, job, run, pid);

		if (left)
			rota_warn("step %u.%u: its supervisor is gone: %u "
				  "processes of it killed",
				  job, step, left);
	}
	unlink(path);
	dir = rota_xasprintf("%s.d", path);
	if (got == 5)
		step_remove_tree(dir, (uid_t)uid, (gid_t)gid);
	free(dir);
}

bool steps_reaped(struct noded *nd, pid_t pid)
{
	for (struct nstep **pp = &nd->steps; *pp; pp = &(*pp)->next) {
		struct nstep *st = *pp;
		char *mark;

		if (st->pid != pid)
			continue;
		mark = rota_xasprintf("%s/step%u.%u.%d", nd->spool, st->job_id,
				      st->step_id, (int)pid);
		bury(nd, mark, st->step_id, (int)pid);
		free(mark);
		*pp = st->next;
		free(st);
		return true;
	}
	return false;
}

void steps_recover(struct noded *nd)
{
	DIR *d = opendir(nd->spool);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		unsigned job, step, run;
		unsigned long long start;
		int pid, n = 0;
		char *path, *text;
		size_t len;

		if (sscanf(e->d_name, "step%u.%u.%d%n", &job, &step, &pid,
			   &n) != 3 || e->d_name[n])
			continue;
		path = rota_xasprintf("%s/%s", nd->spool, e->d_name);
		text = textfile_read(path, &len);
		if (text && sscanf(text, "%u %u %llu", &job, &run, &start) == 3 &&
		    supervise_alive(pid, start))
			/* not our child any more: STEPS_KILL still reaches it */
			track(nd, job, run, step, pid, start);
		else if (text)
			bury(nd, path, step, pid);
		else
			unlink(path);
		free(text);
		free(path);
	}
	if (d)
		closedir(d);
}

void steps_fini(struct noded *nd)
{
	rota_watch_remove(nd->step_watch);
	nd->step_watch = NULL;
	if (nd->step_fd > 0)
		close(nd->step_fd);
	nd->step_fd = -1;
	/* the supervisors run on: their clients still want their tasks */
	while (nd->steps) {
		struct nstep *st = nd->steps;

		nd->steps = st->next;
		free(st);
	}
}
