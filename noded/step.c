// SPDX-License-Identifier: MIT
/*
 * A job step's supervisor on one node (see step.h): its event loop.  One
 * process, one loop: the client's connection, each task's stdout and
 * stderr, the wire-up server's sockets, SIGCHLD and the daemon's SIGTERM.
 * Starting the tasks is step_start.c's; the step's files, step_paths.c's.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/conn.h"
#include "common/evloop.h"
#include "common/log.h"
#include "common/proto.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "noded/cgroup.h"
#include "noded/lease.h"
#include "noded/step.h"
#include "noded/step_internal.h"
#include "noded/supervise.h"
#include "noded/textfile.h"
#include "noded/wireup.h"

#define IO_CHUNK 65536
#define OUT_PAUSE (4u << 20)	/* stop reading the tasks above this queued */
#define OUT_RESUME (1u << 20)

static void send_sealed(struct stepsup *s, uint16_t type, const char *body,
			size_t len)
{
	char mac[ROTA_AUTH_MAC_TEXT];

	if (!s->conn)
		return;
	rota_auth_mac(&s->sess, type, body, len, mac);
	rota_conn_send(s->conn, type, mac, strlen(mac), body, len);
}

static void send_ints(struct stepsup *s, uint16_t type,
		      const char *const *keys, const int64_t *v, size_t n)
{
	size_t len;
	char *body = rota_msg_ints_encode(keys, v, n, &len);

	send_sealed(s, type, body, len);
	free(body);
}

static void send_error(struct stepsup *s, int code, const char *text)
{
	size_t len;
	char *body = rota_msg_error_encode(code, text, &len);

	send_sealed(s, ROTA_MSG_ERROR, body, len);
	free(body);
}

/* Every live task's process group, and what left it in the cgroup. */
static void kill_tasks(struct stepsup *s, int sig)
{
	for (uint32_t i = 0; i < s->ntasks; i++)
		if (s->tasks[i].pid > 0)
			killpg(s->tasks[i].pid, sig);
	if (sig == SIGKILL)
		cgroup_job_kill(s->cg);
}

static void kill_timer_cb(struct rota_evloop *loop, void *arg)
{
	struct stepsup *s = arg;

	s->kill_timer = NULL;
	kill_tasks(s, SIGKILL);
}

/* End the step: SIGTERM (with SIGCONT for stopped ones), KillWait, SIGKILL. */
static void terminate(struct stepsup *s, bool at_once)
{
	if (at_once) {
		kill_tasks(s, SIGKILL);
		return;
	}
	if (s->killing)
		return;
	s->killing = true;
	kill_tasks(s, SIGCONT);
	kill_tasks(s, SIGTERM);
	s->kill_timer = rota_evloop_add_timer(
		s->loop, s->a->kill_wait > 0 ? s->a->kill_wait * 1000 : 1,
		false, kill_timer_cb, s);
}

static void finish(struct stepsup *s)
{
	static const char *const keys[] = { "cpu_usec", "mem_peak" };
	struct cgroup_usage u = { 0 };
	int64_t v[2];

	if (s->done || s->live || s->streams)
		return;
	s->done = true;
	if (s->cg) {
		cgroup_job_end(s->cg, &u);
		s->cg = NULL;
	}
	if (!u.cpu_usec) {
		struct rusage ru;

		getrusage(RUSAGE_CHILDREN, &ru);
		u.cpu_usec = (uint64_t)ru.ru_utime.tv_sec * 1000000 +
			     (uint64_t)ru.ru_utime.tv_usec +
			     (uint64_t)ru.ru_stime.tv_sec * 1000000 +
			     (uint64_t)ru.ru_stime.tv_usec;
	}
	v[0] = (int64_t)u.cpu_usec;
	v[1] = (int64_t)u.mem_peak;
	send_ints(s, ROTA_MSG_STEP_DONE, keys, v, 2);
	if (s->conn)
		rota_conn_close_after_flush(s->conn);
	else
		rota_evloop_stop(s->loop);
}

static void stream_closed(struct stepsup *s, struct task *t, int i)
{
	size_t len;
	char *body;

	rota_watch_remove(t->w[i]);
	t->w[i] = NULL;
	if (t->pty && t->fd[0] >= 0) { /* a terminal: its input goes too */
		rota_watch_remove(t->w[0]);
		t->w[0] = NULL;
		close(t->fd[0]);
		t->fd[0] = -1;
	}
	close(t->fd[i]);
	t->fd[i] = -1;
	body = rota_step_io_encode(t->rank, (unsigned)i, NULL, 0, &len);
	send_sealed(s, ROTA_MSG_STEP_IO, body, len);
	free(body);
	s->streams--;
	finish(s);
}

static void set_paused(struct stepsup *s, bool paused)
{
	if (s->paused == paused)
		return;
	s->paused = paused;
	for (uint32_t k = 0; k < s->ntasks; k++)
		for (int i = 1; i < 3; i++)
			if (s->tasks[k].w[i])
				rota_watch_set_events(s->tasks[k].w[i],
						      paused ? 0
							     : ROTA_EV_READ);
}

void step_out_cb(struct rota_evloop *loop, int fd, unsigned events,
		 void *arg)
{
	struct task *t = arg;
	struct stepsup *s = t->owner;
	int i = fd == t->fd[1] ? 1 : 2;
	char buf[IO_CHUNK];
	ssize_t n = read(fd, buf, sizeof(buf));
	size_t len;
	char *body;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) { /* EOF; EIO: a terminal whose other side closed */
		stream_closed(s, t, i);
		return;
	}
	body = rota_step_io_encode(t->rank, (unsigned)i, buf, (size_t)n,
				   &len);
	send_sealed(s, ROTA_MSG_STEP_IO, body, len);
	free(body);
	if (s->conn && rota_conn_queued(s->conn) > OUT_PAUSE)
		set_paused(s, true);
}

static void in_flush(struct stepsup *s);

static void in_cb(struct rota_evloop *loop, int fd, unsigned events,
		  void *arg)
{
	in_flush(arg);
}

/* Write what the client sent for rank 0's stdin, as it takes it. */
static void in_flush(struct stepsup *s)
{
	struct task *t = &s->tasks[0];

	if (t->fd[0] < 0) {
		s->in.len = s->in_off = 0;
		return;
	}
	while (s->in_off < s->in.len) {
		ssize_t n = write(t->fd[0], s->in.data + s->in_off,
				  s->in.len - s->in_off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0) { /* the task closed its stdin: drop the rest */
			s->in_off = s->in.len;
			break;
		}
		s->in_off += (size_t)n;
	}
	if (s->in_off == s->in.len)
		s->in.len = s->in_off = 0;
	if (!t->w[0])
		t->w[0] = rota_evloop_add_fd(s->loop, t->fd[0], 0, in_cb, s);
	rota_watch_set_events(t->w[0], s->in.len ? ROTA_EV_WRITE : 0);
	if (!s->in.len && s->in_eof && !t->pty) {
		rota_watch_remove(t->w[0]);
		t->w[0] = NULL;
		close(t->fd[0]);
		t->fd[0] = -1;
	}
}

static void on_stdin(struct stepsup *s, const struct rota_frame *f)
{
	struct rota_error err;
	const char *data;
	unsigned fd;
	uint32_t rank;
	size_t n;

	if (rota_step_io_decode(f->body, f->body_len, &rank, &fd, &data, &n,
				&err) < 0 ||
	    rank != 0 || fd != 0 || s->c->node_id != 0)
		return; /* stdin goes to rank 0 only */
	if (n == 0) {
		s->in_eof = true;
		/* a terminal's end of input is its EOF character */
		if (s->tasks[0].pty)
			rota_strbuf_add(&s->in, "\x04", 1);
	} else if (s->in.len < (16u << 20)) {
		rota_strbuf_add(&s->in, data, n);
	}
	in_flush(s);
}

static void on_frame(struct stepsup *s, const struct rota_frame *f)
{
	static const char *const sig_keys[] = { "signal" };
	static const int64_t sig_max[] = { 64 };
	static const char *const win_keys[] = { "rows", "cols" };
	static const int64_t win_max[] = { 65535, 65535 };
	struct rota_error err;
	int64_t v[2];

	switch (f->type) {
	case ROTA_MSG_STEP_IO:
		on_stdin(s, f);
		break;
	case ROTA_MSG_STEP_SIGNAL:
		if (rota_msg_ints_decode(f->body, f->body_len, sig_keys,
					 sig_max, v, 1, &err) == 0 &&
		    v[0] > 0)
			kill_tasks(s, (int)v[0]);
		break;
	case ROTA_MSG_STEP_WINSIZE:
		if (rota_msg_ints_decode(f->body, f->body_len, win_keys,
					 win_max, v, 2, &err) == 0 &&
		    s->tasks[0].fd[0] >= 0 && s->a->launch->pty) {
			struct winsize ws = { .ws_row = (unsigned short)v[0],
					      .ws_col = (unsigned short)v[1] };

			ioctl(s->tasks[0].fd[0], TIOCSWINSZ, &ws);
		}
		break;
	case ROTA_MSG_STEP_WIREUP:
		if (s->wu)
			s->wimpl->done(s->wu, f->body, f->body_len);
		break;
	default:
		break;
	}
}

static void frame_cb(struct rota_conn *c, const struct rota_frame *f,
		     void *arg)
{
	struct stepsup *s = arg;
	struct rota_error err;

	if (f->cred_len < 5 || memcmp(f->cred, "HMAC:", 5) != 0 ||
	    rota_auth_check(s->a->auth, &s->sess, f->type, f->body,
			    f->body_len, f->cred, f->cred_len, &err) < 0) {
		rota_warn("step %u.%u: a frame that is not the client's: "
			  "client dropped, tasks killed",
			  s->c->job_id, s->c->step_id);
		rota_conn_close(c);
		return;
	}
	on_frame(s, f);
}

static void close_cb(struct rota_conn *c, int code, const char *why,
		     void *arg)
{
	struct stepsup *s = arg;

	s->conn = NULL;
	if (s->done) {
		rota_evloop_stop(s->loop);
		return;
	}
	/* `rota run` is gone: nobody would see the tasks' output */
	rota_info("step %u.%u: client gone (%s): tasks killed",
		  s->c->job_id, s->c->step_id, why);
	terminate(s, true);
}

/* The tasks are reaped, yet something of theirs holds a stream open. */
static void orphans_cb(struct rota_evloop *loop, void *arg)
{
	struct stepsup *s = arg;

	s->orphans = NULL;
	for (uint32_t k = 0; k < s->ntasks; k++)
		for (int i = 1; i < 3; i++)
			if (s->tasks[k].w[i])
				stream_closed(s, &s->tasks[k], i);
}

static void reap(struct stepsup *s)
{
	static const char *const keys[] = { "rank", "status" };
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (uint32_t i = 0; i < s->ntasks; i++) {
			struct task *t = &s->tasks[i];
			int64_t v[2] = { t->rank, status };

			if (t->pid != pid)
				continue;
			t->pid = 0;
			s->live--;
			send_ints(s, ROTA_MSG_STEP_TASK_END, keys, v, 2);
		}
	}
	if (!s->live && s->streams) {
		/*
		 * The tasks are gone, not what they forked: anything still
		 * holding their streams goes with them, or the step would
		 * never end.  Without a cgroup nothing finds those: their
		 * streams are closed after a moment (their output lost).
		 */
		cgroup_job_kill(s->cg);
		if (!s->cg && !s->orphans)
			s->orphans = rota_evloop_add_timer(s->loop, 1000, false,
							   orphans_cb, s);
	}
	finish(s);
}

static void sigchld_cb(struct rota_evloop *loop, int signo, void *arg)
{
	reap(arg);
}

static void sigterm_cb(struct rota_evloop *loop, int signo, void *arg)
{
	struct stepsup *s = arg;

	rota_info("step %u.%u: its job is over: ending it", s->c->job_id,
		  s->c->step_id);
	terminate(s, false);
}

static void tick_cb(struct rota_evloop *loop, void *arg)
{
	struct stepsup *s = arg;

	if (s->paused && s->conn && rota_conn_queued(s->conn) < OUT_RESUME)
		set_paused(s, false);
	if (!s->killing && s->a->lease_path &&
	    lease_expired(s->a->lease_path)) {
		rota_warn("step %u.%u: the node's lease ran out: killed",
			  s->c->job_id, s->c->step_id);
		s->killing = true;
		terminate(s, true);
	}
}

int step_wireup_allgather(void *ctx, const void *blob, size_t len)
{
	struct stepsup *s = ctx;

	if (!s->conn)
		return -EPIPE;
	send_sealed(s, ROTA_MSG_STEP_WIREUP, blob, len);
	return 0;
}

void step_wireup_complain(void *ctx, const char *line)
{
	struct stepsup *s = ctx;
	char *text = rota_xasprintf("rota: %s: %s\n", s->a->node, line);
	size_t len;
	char *body = rota_step_io_encode(s->tasks[0].rank, 2, text,
					 strlen(text), &len);

	send_sealed(s, ROTA_MSG_STEP_IO, body, len);
	free(body);
	free(text);
}

static void close_inherited(int keep)
{
	/* the daemon's listener and other clients' sockets are not ours */
	if (keep > STDERR_FILENO + 1)
		close_range(STDERR_FILENO + 1, (unsigned)keep - 1, 0);
	close_range((unsigned)keep + 1, ~0U, 0);
}

void step_main(const struct step_args *a)
{
	static const struct rota_conn_limits lim = {
		.max_frame = 1u << 24,
		.out_high_water = 64u << 20,
	};
	static const struct rota_conn_ops ops = { .frame_cb = frame_cb,
						  .close_cb = close_cb };
	struct stepsup s = { .a = a, .c = a->cred, .sess = a->sess };
	char ident[96], err[256] = "", *mark;
	sigset_t none;

	setsid();
	close_inherited(a->fd);
	snprintf(ident, sizeof(ident), "rotastep:%u.%u", a->cred->job_id,
		 a->cred->step_id);
	prctl(PR_SET_NAME, ident, 0, 0, 0); /* for ps; cut at 15 characters */
	snprintf(ident, sizeof(ident), "rota-step(%s %u.%u)", a->node,
		 a->cred->job_id, a->cred->step_id);
	rota_log_init(ident, ROTA_LOG_INFO, a->log_file);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	s.loop = rota_evloop_create();
	if (!s.loop)
		_exit(1);
	rota_evloop_add_signal(s.loop, SIGCHLD, sigchld_cb, &s);
	rota_evloop_add_signal(s.loop, SIGTERM, sigterm_cb, &s);
	s.conn = rota_conn_create(s.loop, a->fd, &lim, &ops, &s);
	mark = step_mark_path(a->spool, a->cred, getpid());
	{
		char *text = rota_xasprintf("%u %u %llu %u %u\n",
					    a->cred->job_id, a->cred->run,
					    (unsigned long long)
						    supervise_starttime(getpid()),
					    a->cred->uid, a->cred->gid);

		if (textfile_write(mark, O_CREAT | O_TRUNC, 0600, text) < 0)
			rota_warn("'%s': %s", mark, strerror(errno));
		free(text);
	}
	if (step_start_tasks(&s, err, sizeof(err)) < 0) {
		rota_warn("step %u.%u: %s", s.c->job_id, s.c->step_id, err);
		send_error(&s, -EINVAL, err);
		terminate(&s, true);
		/* what started is reaped; the client has its answer */
		s.done = true;
		while (waitpid(-1, NULL, 0) > 0)
			;
		cgroup_job_end(s.cg, NULL);
		s.cg = NULL; /* freed: a later SIGTERM's timer must not use it */
		rota_conn_close_after_flush(s.conn);
	} else {
		send_sealed(&s, ROTA_MSG_OK, "{}", 2);
		s.tick = rota_evloop_add_timer(s.loop, 50, true, tick_cb, &s);
	}
	rota_evloop_run(s.loop);
	if (s.wu)
		s.wimpl->destroy(s.wu);
	free(s.lay.first);
	free(s.lay.ranks);
	free(s.user_tmp);
	free(s.groups);
	if (s.tmpdir) /* and what a wire-up server left in it */
		step_remove_tree(s.tmpdir, s.c->uid, s.c->gid);
	unlink(mark);
	_exit(0);
}
