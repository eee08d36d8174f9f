// SPDX-License-Identifier: MIT
/* The blocking request/reply client that all commands share (client.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/client.h"
#include "common/frame.h"
#include "common/msg.h"
#include "common/net.h"
#include "common/proto.h"
#include "common/xalloc.h"

struct rota_client {
	int fd;
	uid_t ctld_uid;
	struct rota_auth *auth;
	struct rota_session sess;
};

int rota_client_connect(const char *addr, unsigned port, uid_t ctld_uid,
			int timeout_ms, struct rota_client **out,
			struct rota_error *err)
{
	struct timeval tv = { .tv_sec = timeout_ms / 1000,
			      .tv_usec = (timeout_ms % 1000) * 1000 };
	struct rota_client *c;
	int fd;

	*out = NULL;
	fd = rota_net_connect(addr, port, NULL, timeout_ms, err);
	if (fd < 0)
		return fd;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	c = rota_xcalloc(1, sizeof(*c));
	c->fd = fd;
	c->ctld_uid = ctld_uid;
	c->auth = rota_auth_create(NULL);
	*out = c;
	return 0;
}

void rota_client_destroy(struct rota_client *c)
{
	if (!c)
		return;
	close(c->fd);
	rota_auth_destroy(c->auth);
	free(c);
}

void rota_reply_clear(struct rota_reply *r)
{
	free(r->body);
	*r = (struct rota_reply){ 0 };
}

/*
 * The whole frame in one call where the socket takes it: with TCP_NODELAY
 * each write is a segment, and the controller would wake for each.
 */
static int writev_all(int fd, struct iovec *iov, int n)
{
	while (n) {
		/* no SIGPIPE: a controller that refused us may have hung up */
		struct msghdr m = { .msg_iov = iov, .msg_iovlen = (size_t)n };
		ssize_t w = sendmsg(fd, &m, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		for (; n && (size_t)w >= iov->iov_len; iov++, n--)
			w -= (ssize_t)iov->iov_len;
		if (n) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

static int read_all(int fd, void *p, size_t n)
{
	char *s = p;

	while (n) {
		ssize_t r = read(fd, s, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (r == 0)
			return -ECONNRESET;
		s += r;
		n -= (size_t)r;
	}
	return 0;
}

static int send_frame(struct rota_client *c, uint16_t type, const char *body,
		      size_t len, struct rota_error *err)
{
	uint8_t hdr[ROTA_FRAME_HEADER_LEN];
	char *cred;
	size_t clen;
	int rc = rota_auth_open(c->auth, c->ctld_uid, type, body, len,
				&c->sess, &cred, err);

	if (rc < 0)
		return rc;
	clen = strlen(cred);
	rota_frame_header_encode(hdr, type, (uint32_t)clen, (uint32_t)len);
	rc = writev_all(c->fd,
			(struct iovec[]){ { hdr, sizeof(hdr) },
					  { cred, clen },
					  { (void *)body, len } },
			3);
	free(cred);
	if (rc < 0)
		return rota_errorf(err, rc, "sending to the controller: %s",
				   strerror(-rc));
	return 0;
}

static int recv_frame(struct rota_client *c, struct rota_reply *reply,
		      struct rota_error *err)
{
	uint8_t hdr[ROTA_FRAME_HEADER_LEN];
	struct rota_frame_header h;
	char *buf;
	int rc = read_all(c->fd, hdr, sizeof(hdr));

	if (rc < 0)
		return rota_errorf(err, rc, "no reply from the controller: %s",
				   strerror(-rc));
	rc = rota_frame_header_decode(hdr, sizeof(hdr), 1u << 30, &h, err);
	if (rc < 0)
		return rc;
	buf = rota_xmalloc((size_t)h.cred_len + h.body_len + 1);
	rc = read_all(c->fd, buf, (size_t)h.cred_len + h.body_len);
	if (rc < 0) {
		free(buf);
		return rota_errorf(err, rc, "reply cut short: %s",
				   strerror(-rc));
	}
	if (h.cred_len == 0 && h.type == ROTA_MSG_ERROR) {
		/* our credential was refused, so the reply cannot be sealed */
		reply->unsealed = true;
	} else {
		rc = rota_auth_check(c->auth, &c->sess, h.type,
				     buf + h.cred_len, h.body_len, buf,
				     h.cred_len, err);
		if (rc < 0) {
			free(buf);
			return rota_errorf(err, rc,
					   "reply is not the controller's: %s",
					   err->text);
		}
	}
	memmove(buf, buf + h.cred_len, h.body_len);
	buf[h.body_len] = '\0';
	reply->type = h.type;
	reply->body = buf;
	reply->len = h.body_len;
	return 0;
}

int rota_client_call(struct rota_client *c, uint16_t type, const char *body,
		     size_t len, struct rota_reply *reply,
		     struct rota_error *err)
{
	struct rota_msg_error e;
	int rc;

	*reply = (struct rota_reply){ 0 };
	rc = send_frame(c, type, body, len, err);
	if (rc == -EPIPE || rc == -ECONNRESET) {
		/*
		 * A controller at its connection caps answers before it
		 * reads: its one-line refusal may be waiting all the same.
		 */
		struct rota_error ignored;

		if (recv_frame(c, reply, &ignored) < 0)
			return rc;
		if (reply->type != ROTA_MSG_ERROR) {
			rota_reply_clear(reply);
			return rc;
		}
		rc = 0;
	} else if (rc == 0) {
		rc = recv_frame(c, reply, err);
	}
	if (rc < 0 || reply->type != ROTA_MSG_ERROR)
		return rc;
	rc = rota_msg_error_decode(reply->body, reply->len, &e, err);
	if (rc < 0) {
		rota_reply_clear(reply);
		return rc;
	}
	rc = rota_errorf(err, e.code, "%s%s", e.text,
			 reply->unsealed ? " (said by an unauthenticated peer)"
					 : "");
	rota_msg_error_clear(&e);
	rota_reply_clear(reply);
	return rc;
}
