// SPDX-License-Identifier: MIT
/*
 * rota top's worker: a child process that makes the blocking controller
 * calls (connect, munge, send, wait) one after another, so that the
 * screen's loop never waits on the network (STYLE 12).  Parent and child
 * talk over a socketpair in tiny frames:
 *
 *   to the child:   u16 type, u32 len, body
 *   to the parent:  u16 request type, u16 reply type, i32 rc, u32 len,
 *                   body (the reply, or the error line when rc < 0)
 *
 * The parent's end is non-blocking and read into a growing buffer; the
 * child exits when the parent's end closes (quit, or the parent died).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/client.h"
#include "common/xalloc.h"
#include "ui/cmd.h"
#include "ui/top/top.h"

#define REQ_HEAD 6
#define REP_HEAD 12
#define REQ_MAX (1u << 20)

struct top_worker {
	pid_t pid;
	int fd;
	char *buf;
	size_t len;
	size_t cap;
};

static int read_full(int fd, void *p, size_t n)
{
	char *c = p;

	while (n) {
		ssize_t r = read(fd, c, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

static int write_full(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t r = write(fd, c, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN) {
			usleep(1000); /* the parent's requests are tiny */
			continue;
		}
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

static void put_u16(char *p, uint16_t v) { memcpy(p, &v, 2); }
static void put_u32(char *p, uint32_t v) { memcpy(p, &v, 4); }

static void child_loop(int fd)
{
	char head[REQ_HEAD];

	while (read_full(fd, head, sizeof(head)) == 0) {
		uint16_t type;
		uint32_t len;
		struct rota_reply reply;
		struct rota_error err = { "" };
		char rep[REP_HEAD];
		char *body;
		int rc;

		memcpy(&type, head, 2);
		memcpy(&len, head + 2, 4);
		if (len > REQ_MAX)
			break;
		body = rota_xmalloc(len + 1);
		if (read_full(fd, body, len) < 0) {
			free(body);
			break;
		}
		rc = cmd_call_quiet(type, body, len, 10000, &reply, &err);
		free(body);
		put_u16(rep, type);
		put_u16(rep + 2, rc < 0 ? 0 : reply.type);
		put_u32(rep + 4, (uint32_t)rc);
		put_u32(rep + 8, (uint32_t)(rc < 0 ? strlen(err.text)
						   : reply.len));
		rc = write_full(fd, rep, sizeof(rep)) == 0 &&
		     write_full(fd, rc < 0 ? err.text : reply.body,
				rc < 0 ? strlen(err.text) : reply.len) == 0;
		rota_reply_clear(&reply);
		if (!rc)
			break;
	}
}

int top_worker_start(struct top_worker **out, struct rota_error *err)
{
	int sv[2];
	pid_t pid;

	*out = NULL;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return rota_errorf(err, -errno, "socketpair: %s",
				   strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return rota_errorf(err, -errno, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(sv[0]);
		/* Ctrl-C is the screen's to handle: it ends us through EOF */
		signal(SIGINT, SIG_IGN);
		child_loop(sv[1]);
		_exit(0);
	}
	close(sv[1]);
	fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
	*out = rota_xcalloc(1, sizeof(**out));
	(*out)->pid = pid;
	(*out)->fd = sv[0];
	return 0;
}

int top_worker_fd(const struct top_worker *w)
{
	return w->fd;
}

int top_worker_send(struct top_worker *w, uint16_t type, const char *body,
		    size_t len)
{
	char head[REQ_HEAD];

	put_u16(head, type);
	put_u32(head + 2, (uint32_t)len);
	if (write_full(w->fd, head, sizeof(head)) < 0 ||
	    write_full(w->fd, body, len) < 0)
		return -EPIPE;
	return 0;
}

/* Hand every whole reply in the buffer over; keep the rest. */
static void dispatch(struct top_worker *w, struct top *t)
{
	size_t off = 0;

	while (w->len - off >= REP_HEAD) {
		uint16_t req, type;
		int32_t rc;
		uint32_t len;

		memcpy(&req, w->buf + off, 2);
		memcpy(&type, w->buf + off + 2, 2);
		memcpy(&rc, w->buf + off + 4, 4);
		memcpy(&len, w->buf + off + 8, 4);
		if (w->len - off - REP_HEAD < len)
			break;
		top_reply(t, req, type, rc, w->buf + off + REP_HEAD, len);
		off += REP_HEAD + len;
	}
	memmove(w->buf, w->buf + off, w->len - off);
	w->len -= off;
}

int top_worker_read(struct top_worker *w, struct top *t)
{
	for (;;) {
		ssize_t r;

		if (w->cap - w->len < 65536) {
			w->cap = w->cap ? 2 * w->cap : 1u << 20;
			w->buf = rota_xrealloc(w->buf, w->cap);
		}
		r = read(w->fd, w->buf + w->len, w->cap - w->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			break;
		if (r <= 0)
			return -EPIPE;
		w->len += (size_t)r;
	}
	dispatch(w, t);
	return 0;
}

void top_worker_stop(struct top_worker *w)
{
	if (!w)
		return;
	close(w->fd);
	/* it sees EOF at once, or is stuck in a call: do not wait for that */
	if (waitpid(w->pid, NULL, WNOHANG) == 0) {
		kill(w->pid, SIGTERM);
		waitpid(w->pid, NULL, 0);
	}
	free(w->buf);
	free(w);
}
