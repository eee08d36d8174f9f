// SPDX-License-Identifier: MIT
/*
 * One job step, from `rota run`: the controller lays it out and seals a
 * credential per node; we then talk to each node daemon directly (one
 * munge-opened session per node, as DESIGN.md says: the controller stays
 * out of the data path), launch, and carry the tasks' streams, signals,
 * wait statuses and MPI wire-up allgathers until every node has said done.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/conn.h"
#include "common/evloop.h"
#include "common/msg.h"
#include "common/net.h"
#include "common/proto.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "ui/cmd.h"
#include "ui/run.h"
#include "ui/run_alloc.h"

extern char **environ;

struct rnode {
	struct run *r;
	const struct rota_step_node *info;
	uint32_t id;
	struct rota_conn *conn;
	struct rota_session sess;
	bool ok;		/* its supervisor answered the launch */
	bool done;		/* STEP_DONE, or lost */
	struct rota_strbuf blob; /* its part of the current allgather */
	bool has_blob;
	int pending_sig;	/* asked for before its supervisor was up */
};

struct run {
	const struct run_opts *o;
	struct rota_evloop *loop;
	struct rota_auth *auth;
	struct rota_msg_step_create_reply step;
	struct rnode *nodes;
	uint32_t ndone;
	int *status;		/* per rank: the exit status; -1 not yet */
	uint32_t *node_of;	/* per rank: its node id */
	int32_t failed_rank;
	int worst;
	uint64_t cpu_usec;
	char *lost;		/* the first node lost, if one was */
	struct rota_strbuf *lines; /* --label: per rank and stream */
	struct rota_watch *in_watch;
	bool in_eof;
	int64_t last_int;	/* when the last Ctrl-C came (ms) */
	bool tty_raw;
	struct termios tty_saved;
};

static void send_node(struct rnode *n, uint16_t type, const char *body,
		      size_t len)
{
	char mac[ROTA_AUTH_MAC_TEXT];

	if (!n->conn || !n->ok || n->done)
		return;
	rota_auth_mac(&n->sess, type, body, len, mac);
	rota_conn_send(n->conn, type, mac, strlen(mac), body, len);
}

static void send_signal(struct rnode *n, int sig)
{
	static const char *const keys[] = { "signal" };
	int64_t v = sig;
	size_t len;
	char *body = rota_msg_ints_encode(keys, &v, 1, &len);

	send_node(n, ROTA_MSG_STEP_SIGNAL, body, len);
	free(body);
}

static void signal_all(struct run *r, int sig)
{
	for (uint32_t i = 0; i < r->step.nnodes; i++) {
		if (!r->nodes[i].ok)
			r->nodes[i].pending_sig = sig; /* sent when it is up */
		else
			send_signal(&r->nodes[i], sig);
	}
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* a closed stdout: the output is dropped */
		p += w;
		n -= (size_t)w;
	}
}

/* --label: whole lines, each after "rank: ". */
static void labelled(struct run *r, uint32_t rank, unsigned fd,
		     const char *data, size_t n)
{
	struct rota_strbuf *b = &r->lines[(size_t)rank * 2 + (fd - 1)];
	char head[16];
	int h = snprintf(head, sizeof(head), "%u: ", rank);
	size_t start = 0;

	rota_strbuf_add(b, data, n);
	for (size_t i = 0; i < b->len; i++) {
		if (b->data[i] != '\n' && !(n == 0 && i + 1 == b->len))
			continue;
		write_all((int)fd, head, (size_t)h);
		write_all((int)fd, b->data + start, i + 1 - start);
		if (b->data[i] != '\n')
			write_all((int)fd, "\n", 1);
		start = i + 1;
	}
	memmove(b->data, b->data + start, b->len - start);
	b->len -= start;
}

static void on_io(struct run *r, const struct rota_frame *f)
{
	struct rota_error err;
	const char *data;
	uint32_t rank;
	unsigned fd;
	size_t n;

	if (rota_step_io_decode(f->body, f->body_len, &rank, &fd, &data, &n,
				&err) < 0 ||
	    rank >= r->step.ntasks || fd == 0)
		return;
	if (r->o->label)
		labelled(r, rank, fd, data, n);
	else if (n)
		write_all((int)fd, data, n);
}

static void on_task_end(struct run *r, struct rnode *node,
			const struct rota_frame *f)
{
	static const char *const keys[] = { "rank", "status" };
	const int64_t max[] = { ROTA_STEP_TASKS_MAX, 0xffff };
	struct rota_error err;
	int64_t v[2];
	int code;

	if (rota_msg_ints_decode(f->body, f->body_len, keys, max, v, 2,
				 &err) < 0 ||
	    (uint32_t)v[0] >= r->step.ntasks)
		return;
	code = WIFEXITED((int)v[1]) ? WEXITSTATUS((int)v[1])
				    : 128 + WTERMSIG((int)v[1]);
	r->status[v[0]] = code;
	if (code > r->worst)
		r->worst = code;
	if (code && r->failed_rank < 0) {
		r->failed_rank = (int32_t)v[0];
		if (WIFEXITED((int)v[1]))
			fprintf(stderr, "rota run: task %u on %s failed "
					"first: exit code %d\n",
				(unsigned)v[0], node->info->name, code);
		else
			fprintf(stderr, "rota run: task %u on %s failed "
					"first: %s\n",
				(unsigned)v[0], node->info->name,
				strsignal(WTERMSIG((int)v[1])));
	}
}

/* Every node's blob is in: each gets the concatenation (wireup.h). */
static void allgather_done(struct run *r)
{
	struct rota_strbuf all = { 0 };
	size_t len;
	char *body;

	for (uint32_t i = 0; i < r->step.nnodes; i++)
		if (!r->nodes[i].has_blob && !r->nodes[i].done)
			return;
	for (uint32_t i = 0; i < r->step.nnodes; i++) {
		struct rnode *n = &r->nodes[i];
		uint32_t l = (uint32_t)n->blob.len;
		unsigned char be[4] = { (unsigned char)(l >> 24),
					(unsigned char)(l >> 16),
					(unsigned char)(l >> 8),
					(unsigned char)l };

		rota_strbuf_add(&all, (const char *)be, 4);
		rota_strbuf_add(&all, n->blob.data ? n->blob.data : "", l);
		n->blob.len = 0;
		n->has_blob = false;
	}
	body = rota_strbuf_take(&all, &len);
	for (uint32_t i = 0; i < r->step.nnodes; i++)
		send_node(&r->nodes[i], ROTA_MSG_STEP_WIREUP, body, len);
	free(body);
}

static void node_over(struct run *r, struct rnode *n)
{
	if (n->done)
		return;
	n->done = true;
	if (++r->ndone == r->step.nnodes)
		rota_evloop_stop(r->loop);
	else
		allgather_done(r); /* it may have been the one awaited */
}

static void stdin_start(struct run *r);

static void on_ok(struct run *r, struct rnode *n)
{
	static const char *const keys[] = { "rows", "cols" };

	n->ok = true;
	if (n->pending_sig) {
		send_signal(n, n->pending_sig);
		n->pending_sig = 0;
	}
	if (n->id == 0) {
		if (r->o->pty) {
			struct winsize ws;

			if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0) {
				int64_t v[2] = { ws.ws_row, ws.ws_col };
				size_t len;
				char *body = rota_msg_ints_encode(keys, v, 2,
								  &len);

				send_node(n, ROTA_MSG_STEP_WINSIZE, body, len);
				free(body);
			}
		}
		stdin_start(r);
	}
}

/* A node's refusal: its line, naming the node. */
static void print_error(const struct rnode *n, const struct rota_frame *f)
{
	struct rota_msg_error e;
	struct rota_error err;

	if (rota_msg_error_decode(f->body, f->body_len, &e, &err) < 0) {
		fprintf(stderr, "rota run: %s: a bad ERROR: %s\n",
			n->info->name, err.text);
		return;
	}
	fprintf(stderr, "rota run: %s: %s\n", n->info->name, e.text);
	rota_msg_error_clear(&e);
}

static void frame_cb(struct rota_conn *c, const struct rota_frame *f,
		     void *arg)
{
	struct rnode *n = arg;
	struct run *r = n->r;
	struct rota_error err;

	/* a refusal before any session is the node daemon's, unsealed */
	if (!n->ok && f->type == ROTA_MSG_ERROR && f->cred_len == 0) {
		print_error(n, f);
		goto lost;
	}
	if (f->cred_len < 5 || memcmp(f->cred, "HMAC:", 5) != 0 ||
	    rota_auth_check(r->auth, &n->sess, f->type, f->body, f->body_len,
			    f->cred, f->cred_len, &err) < 0) {
		fprintf(stderr, "rota run: %s: a reply that is not the node "
				"daemon's: %s\n",
			n->info->name, f->cred_len ? err.text : "unsealed");
		goto lost;
	}
	switch (f->type) {
	case ROTA_MSG_OK:
		on_ok(r, n);
		return;
	case ROTA_MSG_ERROR:
		print_error(n, f);
		goto lost;
	case ROTA_MSG_STEP_IO:
		on_io(r, f);
		return;
	case ROTA_MSG_STEP_TASK_END:
		on_task_end(r, n, f);
		return;
	case ROTA_MSG_STEP_WIREUP:
		if (n->has_blob)
			goto lost; /* a second blob before the answer */
		rota_strbuf_add(&n->blob, f->body, f->body_len);
		n->has_blob = true;
		allgather_done(r);
		return;
	case ROTA_MSG_STEP_DONE: {
		static const char *const keys[] = { "cpu_usec", "mem_peak" };
		const int64_t max[] = { INT64_MAX, INT64_MAX };
		int64_t v[2];

		if (rota_msg_ints_decode(f->body, f->body_len, keys, max, v, 2,
					 &err) == 0)
			r->cpu_usec += (uint64_t)v[0];
		node_over(r, n);
		return;
	}
	default:
		return;
	}
lost:
	if (!r->lost)
		r->lost = rota_xstrdup(n->info->name);
	rota_conn_close(c);
}

static void close_cb(struct rota_conn *c, int code, const char *why,
		     void *arg)
{
	struct rnode *n = arg;
	struct run *r = n->r;

	n->conn = NULL;
	if (n->done)
		return;
	if (!r->lost) {
		r->lost = rota_xstrdup(n->info->name);
		fprintf(stderr, "rota run: node %s: %s before its tasks "
				"ended: step failed, its other tasks killed\n",
			n->info->name, code ? why : "connection closed");
	}
	node_over(r, n);
	signal_all(r, SIGKILL);
}

static void stdin_send(struct run *r, const char *data, size_t n)
{
	size_t len;
	char *body = rota_step_io_encode(0, 0, data, n, &len);

	send_node(&r->nodes[0], ROTA_MSG_STEP_IO, body, len);
	free(body);
}

static void stdin_cb(struct rota_evloop *loop, int fd, unsigned events,
		     void *arg)
{
	struct run *r = arg;
	char buf[16384];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		rota_watch_remove(r->in_watch);
		r->in_watch = NULL;
		r->in_eof = true;
		stdin_send(r, NULL, 0);
		return;
	}
	stdin_send(r, buf, (size_t)n);
	/* the node reads as fast as its task does: don't queue for ever */
	if (r->nodes[0].conn &&
	    rota_conn_queued(r->nodes[0].conn) > (8u << 20))
		rota_watch_set_events(r->in_watch, 0);
}

/* Rank 0's stdin: ours, read as it comes (a file: all of it at once). */
static void stdin_start(struct run *r)
{
	struct stat st;
	char buf[65536];
	ssize_t n;

	if (fstat(STDIN_FILENO, &st) < 0) {
		stdin_send(r, NULL, 0);
		return;
	}
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ||
	    isatty(STDIN_FILENO)) {
		fcntl(STDIN_FILENO, F_SETFL,
		      fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);
		r->in_watch = rota_evloop_add_fd(r->loop, STDIN_FILENO,
						 ROTA_EV_READ, stdin_cb, r);
		if (r->in_watch)
			return;
	}
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0)
		stdin_send(r, buf, (size_t)n);
	stdin_send(r, NULL, 0);
}

static void sigint_cb(struct rota_evloop *loop, int signo, void *arg)
{
	struct run *r = arg;
	int64_t now = rota_evloop_now_ms(loop);

	if (signo == SIGINT && now - r->last_int > 1000) {
		r->last_int = now;
		fprintf(stderr, "rota run: interrupt sent to every task (again "
				"within a second: kill the step)\n");
		signal_all(r, SIGINT);
		return;
	}
	if (signo == SIGINT)
		fprintf(stderr, "rota run: killing the step\n");
	signal_all(r, signo == SIGINT ? SIGKILL : signo);
}

static void winch_cb(struct rota_evloop *loop, int signo, void *arg)
{
	struct run *r = arg;
	static const char *const keys[] = { "rows", "cols" };
	struct winsize ws;
	int64_t v[2];
	size_t len;
	char *body;

	if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) < 0)
		return;
	v[0] = ws.ws_row;
	v[1] = ws.ws_col;
	body = rota_msg_ints_encode(keys, v, 2, &len);
	send_node(&r->nodes[0], ROTA_MSG_STEP_WINSIZE, body, len);
	free(body);
}

/* Ask for the step; while other steps hold the cores, wait (unless -I). */
static int create_step(struct run *r, uint32_t job_id)
{
	const struct run_opts *o = r->o;
	struct rota_msg_step_create req = {
		.job_id = job_id,
		.ntasks = o->ntasks,
		.nnodes = o->nnodes,
		.cpus_per_task = o->cpus_per_task,
		.ntasks_per_node = o->ntasks_per_node,
		.overlap = o->overlap,
		.nodelist = (char *)o->nodelist,
		.name = o->argv[0],
	};
	struct rota_reply reply;
	struct rota_error err;
	size_t len;
	char *body = rota_msg_step_create_encode(&req, &len);
	int64_t wait_ms = 20;
	bool said = false;
	int rc;

	for (;;) {
		rc = cmd_call_quiet(ROTA_MSG_STEP_CREATE, body, len, 30000,
				    &reply, &err);
		if (rc != -EBUSY || o->immediate)
			break;
		if (!said && !o->quiet)
			fprintf(stderr, "rota run: step waiting: %s\n",
				err.text);
		said = true;
		usleep((useconds_t)wait_ms * 1000);
		wait_ms = wait_ms * 2 > 500 ? 500 : wait_ms * 2;
	}
	free(body);
	if (rc < 0) {
		fprintf(stderr, "rota run: %s\n", err.text);
		return rc;
	}
	rc = rota_msg_step_reply_decode(reply.body, reply.len, &r->step, &err);
	rota_reply_clear(&reply);
	if (rc < 0)
		fprintf(stderr, "rota run: bad reply: %s\n", err.text);
	return rc;
}

static char *cwd_now(void)
{
	char buf[4096];

	if (!getcwd(buf, sizeof(buf)))
		return rota_xstrdup("/");
	return rota_xstrdup(buf);
}

static int launch_node(struct run *r, struct rnode *n, const char *cwd)
{
	static const struct rota_conn_limits lim = {
		.max_frame = 1u << 24,
		.out_high_water = 64u << 20,
	};
	static const struct rota_conn_ops ops = { .frame_cb = frame_cb,
						  .close_cb = close_cb };
	struct winsize ws = { 0 };
	struct rota_msg_step_launch m = {
		.cred = n->info->cred,
		.argv = r->o->argv,
		.env = environ,
		.cwd = (char *)cwd,
		.mpi = (char *)r->o->mpi,
		.pty = r->o->pty && n->id == 0,
	};
	struct rota_error err;
	char *body, *cred = NULL;
	size_t len;
	int fd;

	if (m.pty && ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0) {
		m.rows = ws.ws_row;
		m.cols = ws.ws_col;
	}
	fd = rota_net_connect(n->info->addr, n->info->port, NULL, 10000, &err);
	if (fd < 0) {
		fprintf(stderr, "rota run: node %s: %s\n", n->info->name,
			err.text);
		return fd;
	}
	rota_net_set_nonblock(fd, 1);
	body = rota_msg_step_launch_encode(&m, &len);
	if (rota_auth_open(r->auth, n->info->uid, ROTA_MSG_STEP_LAUNCH, body,
			   len, &n->sess, &cred, &err) < 0) {
		fprintf(stderr, "rota run: %s\n", err.text);
		close(fd);
		free(body);
		return -ECONNREFUSED;
	}
	n->conn = rota_conn_create(r->loop, fd, &lim, &ops, n);
	rota_conn_send(n->conn, ROTA_MSG_STEP_LAUNCH, cred, strlen(cred), body,
		       len);
	free(cred);
	free(body);
	return 0;
}

static void tty_raw(struct run *r)
{
	struct termios t;

	if (!r->o->pty || !isatty(STDIN_FILENO) ||
	    tcgetattr(STDIN_FILENO, &r->tty_saved) < 0)
		return;
	t = r->tty_saved;
	cfmakeraw(&t);
	if (tcsetattr(STDIN_FILENO, TCSADRAIN, &t) == 0)
		r->tty_raw = true;
}

static void report(struct run *r, uint32_t job_id, bool end_job)
{
	struct rota_msg_step_complete m = {
		.job_id = job_id,
		.run = r->step.run,
		.step_id = r->step.step_id,
		.exit_code = r->worst > 255 ? 255 : r->worst,
		.failed_rank = r->failed_rank,
		.cpu_usec = r->cpu_usec,
		.end_job = end_job,
	};
	struct rota_reply reply;
	struct rota_error err;
	size_t len;
	char *body;

	if (r->lost)
		m.text = rota_xasprintf("node %s lost", r->lost);
	body = rota_msg_step_complete_encode(&m, &len);
	if (cmd_call_quiet(ROTA_MSG_STEP_COMPLETE, body, len, 10000, &reply,
			   &err) == 0)
		rota_reply_clear(&reply);
	else if (!r->o->quiet)
		fprintf(stderr, "rota run: step %u.%u's end not recorded: %s\n",
			job_id, r->step.step_id, err.text);
	free(body);
	free(m.text);
	if (end_job)
		alloc_wait_end("run", job_id);
}

/*
 * Tests only: ROTA_TEST_STEP_CREDS=FILE writes each node's "name addr
 * port uid credential" there; with ROTA_TEST_STEP_HOLD=1 nothing is
 * launched (the credentials stay unused, for the refusal tests).
 */
static bool test_dump(const struct run *r)
{
	const char *path = getenv("ROTA_TEST_STEP_CREDS");
	FILE *f;

	if (!path || !*path || !(f = fopen(path, "w")))
		return false;
	for (size_t i = 0; i < r->step.nnodes; i++) {
		const struct rota_step_node *n = &r->step.nodes[i];

		fprintf(f, "%s %s %u %u %s\n", n->name, n->addr, n->port,
			n->uid, n->cred);
	}
	fclose(f);
	return getenv("ROTA_TEST_STEP_HOLD") != NULL;
}

int run_step(const struct run_opts *o, uint32_t job_id, bool end_job)
{
	struct run r = { .o = o, .failed_rank = -1 };
	char *cwd = cwd_now();
	int status = 1;

	signal(SIGPIPE, SIG_IGN);
	if (create_step(&r, job_id) < 0) {
		if (end_job)
			alloc_end("run", job_id, true);
		goto out;
	}
	if (test_dump(&r)) {
		rota_msg_step_reply_clear(&r.step);
		status = 0;
		goto out;
	}
	r.loop = rota_evloop_create();
	r.auth = rota_auth_create(NULL);
	r.nodes = rota_xcalloc(r.step.nnodes, sizeof(*r.nodes));
	r.status = rota_xcalloc(r.step.ntasks, sizeof(int));
	if (o->label)
		r.lines = rota_xcalloc((size_t)r.step.ntasks * 2,
				       sizeof(*r.lines));
	for (uint32_t i = 0; i < r.step.ntasks; i++)
		r.status[i] = -1;
	/* a shell starts background commands with SIGINT ignored: not ours */
	signal(SIGINT, SIG_DFL);
	rota_evloop_add_signal(r.loop, SIGINT, sigint_cb, &r);
	rota_evloop_add_signal(r.loop, SIGTERM, sigint_cb, &r);
	rota_evloop_add_signal(r.loop, SIGHUP, sigint_cb, &r);
	if (o->pty)
		rota_evloop_add_signal(r.loop, SIGWINCH, winch_cb, &r);
	for (uint32_t i = 0; i < r.step.nnodes; i++) {
		struct rnode *n = &r.nodes[i];

		n->r = &r;
		n->id = i;
		n->info = &r.step.nodes[i];
		if (launch_node(&r, n, cwd) < 0) {
			if (!r.lost)
				r.lost = rota_xstrdup(n->info->name);
			node_over(&r, n);
		}
	}
	if (r.lost)
		signal_all(&r, SIGKILL);
	tty_raw(&r);
	if (r.ndone < r.step.nnodes)
		rota_evloop_run(r.loop);
	if (r.tty_raw)
		tcsetattr(STDIN_FILENO, TCSADRAIN, &r.tty_saved);
	for (uint32_t i = 0; i < r.step.nnodes; i++) {
		if (r.nodes[i].conn)
			rota_conn_close(r.nodes[i].conn);
		rota_strbuf_fini(&r.nodes[i].blob);
	}
	/* ranks that never reported ended with their node */
	for (uint32_t i = 0; i < r.step.ntasks; i++)
		if (r.status[i] < 0 && r.worst < 1)
			r.worst = 1;
	if (r.lost && r.worst == 0)
		r.worst = 1;
	status = r.worst;
	report(&r, job_id, end_job);
	if (o->label)
		for (size_t i = 0; i < (size_t)r.step.ntasks * 2; i++) {
			if (r.lines[i].len)
				labelled(&r, (uint32_t)(i / 2),
					 (unsigned)(i % 2) + 1, NULL, 0);
			rota_strbuf_fini(&r.lines[i]);
		}
	free(r.lines);
	free(r.status);
	free(r.nodes);
	free(r.lost);
	rota_msg_step_reply_clear(&r.step);
	rota_auth_destroy(r.auth);
	rota_evloop_destroy(r.loop);
out:
	free(cwd);
	return status;
}
