// SPDX-License-Identifier: MIT
/*
 * The blocking request/reply client that all commands share (client.h),
 * and the request that retries (issue 18).  A controller being restarted
 * refuses connections for a moment, and one killed mid-request resets the
 * connection after it may have done the request; a user who then submits
 * again would get the job twice.  So every command retries, with the same
 * request id, until the controller answers or ClientRetry has passed, and
 * says once on stderr that it is waiting.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
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
	bool sent;	/* a whole request went out: it may have been done */
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
	c->sent = true;
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

#define RETRY_FIRST_MS 100
#define RETRY_MAX_MS 2000

/* How far one attempt got: a failure after SENT may have been applied. */
enum stage {
	STAGE_CONNECT = 0,
	STAGE_SENT,
	STAGE_ANSWERED,
};

static void sleep_ms(int64_t ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Between half of 'ms' and 'ms': clients restarted together spread out. */
static int64_t jitter(int64_t ms)
{
	uint32_t r = 0;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
		r = (uint32_t)rota_clock_mono_ms();
	return ms / 2 + (int64_t)(r % (uint32_t)(ms / 2 + 1));
}

/* The connection failing, as opposed to what was said on it. */
static bool is_transport(int rc)
{
	switch (-rc) {
	case ECONNREFUSED:
	case ECONNRESET:
	case ECONNABORTED:
	case EPIPE:
	case ENOTCONN:
	case ETIMEDOUT:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case ENETDOWN:
		return true;
	default:
		return false;
	}
}

static bool is_retriable(int rc, enum stage stage)
{
	/* -EAGAIN alone: -EBUSY also says "node in use" (rpc_resv.c) */
	if (stage == STAGE_ANSWERED)
		return rc == -EAGAIN;
	return is_transport(rc);
}

static int attempt(const struct rota_request *rq, uint16_t type,
		   const char *body, size_t len, struct rota_reply *reply,
		   enum stage *stage, struct rota_error *err)
{
	struct rota_client *c;
	int rc;

	*stage = STAGE_CONNECT;
	*reply = (struct rota_reply){ 0 };
	rc = rota_client_connect(rq->host, rq->port, rq->ctld_uid,
				 rq->timeout_ms, &c, err);
	if (rc < 0)
		return rc;
	rc = rota_client_call(c, type, body, len, reply, err);
	/* a reply, even an ERROR or an unreadable one, is no silence */
	if (rc == 0 || !is_transport(rc))
		*stage = STAGE_ANSWERED;
	else if (c->sent)
		*stage = STAGE_SENT;
	rota_client_destroy(c);
	return rc;
}

/* An older controller's strict decoder refusing the id by its name. */
static bool is_rid_refused(int rc, enum stage stage,
			   const struct rota_error *err)
{
	return stage == STAGE_ANSWERED && rc == -EPROTO &&
	       strstr(err->text, "unpacked: rid");
}

static void tell_waiting(const struct rota_request *rq, int rc,
			 enum stage stage, const struct rota_error *err)
{
	char line[sizeof(err->text) + 128];

	if (!rq->waiting_cb)
		return;
	snprintf(line, sizeof(line),
		 "controller at %s:%u %s (%s); retrying for up to %llds",
		 rq->host, rq->port,
		 stage == STAGE_ANSWERED ? "busy" : "not answering",
		 stage == STAGE_ANSWERED ? err->text : strerror(-rc),
		 (long long)(rq->retry_ms / 1000));
	rq->waiting_cb(line, rq->arg);
}

/* The one line on giving up: how long, why, and was it done. */
static void gave_up(const struct rota_request *rq, uint16_t type, int rc,
		    enum stage stage, bool maybe, int64_t ms,
		    struct rota_error *err)
{
	char why[sizeof(err->text)];
	const char *applied = "";

	snprintf(why, sizeof(why), "%s",
		 stage == STAGE_ANSWERED || !rq->retry_ms ? err->text
							  : strerror(-rc));
	if (rota_msg_type_has_rid(type))
		applied = maybe ? "; the request may have been applied: look "
				  "before repeating it"
				: "; the request was not applied";
	if (!rq->retry_ms) {
		/* no retrying asked: the reason as it was, and the verdict */
		rota_errorf(err, rc, "%s%s", why, applied);
		return;
	}
	rota_errorf(err, rc, "controller at %s:%u %s (%s) after %llds%s",
		    rq->host, rq->port,
		    stage == STAGE_ANSWERED ? "busy" : "not answering", why,
		    (long long)(ms / 1000), applied);
}

int rota_client_request(const struct rota_request *rq, uint16_t type,
			const char *body, size_t len, struct rota_reply *reply,
			struct rota_error *err)
{
	char rid[ROTA_RID_LEN + 1] = "";
	char *with_rid = NULL;
	size_t wlen = 0;
	int64_t start = rota_clock_mono_ms(), delay = RETRY_FIRST_MS, left, wait;
	bool told = false, maybe = false;
	enum stage stage;
	int rc;

	if (rota_msg_type_has_rid(type)) {
		if (rq->rid)
			snprintf(rid, sizeof(rid), "%s", rq->rid);
		else if (rota_rid_make(rid) < 0)
			rid[0] = '\0'; /* no entropy: as an older client */
		if (rid[0])
			with_rid = rota_msg_rid_add(body, len, rid, &wlen);
	}
	for (;;) {
		rc = attempt(rq, type, with_rid ? with_rid : body,
			     with_rid ? wlen : len, reply, &stage, err);
		if (with_rid && is_rid_refused(rc, stage, err)) {
			free(with_rid);
			with_rid = NULL;
			continue;
		}
		if (rc < 0 && stage == STAGE_SENT)
			maybe = true;
		if (rc == 0 || !is_retriable(rc, stage))
			break;
		left = rq->retry_ms - (rota_clock_mono_ms() - start);
		if (left <= 0) {
			gave_up(rq, type, rc, stage, maybe,
				rota_clock_mono_ms() - start, err);
			break;
		}
		if (!told)
			tell_waiting(rq, rc, stage, err);
		told = true;
		wait = jitter(delay);
		sleep_ms(wait < left ? wait : left);
		delay = delay * 2 < RETRY_MAX_MS ? delay * 2 : RETRY_MAX_MS;
	}
	free(with_rid);
	return rc;
}
