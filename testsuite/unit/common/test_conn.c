// SPDX-License-Identifier: MIT
/*
 * Framed connections' pre-authentication limits (conn.h), through a real
 * event loop on a socketpair: a stranger's large frame is cut at its
 * header, a credential is seen before any of its body is read, a refused
 * one gets nothing more read, the deadline cuts a trickler, and what a
 * stranger can make us hold stays under the limit.  And sending: a body
 * taken rather than copied (rota_conn_send_take) goes out in order with
 * the frames around it, a quarter megabyte a write call at most.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/conn.h"
#include "common/evloop.h"
#include "common/frame.h"
#include "common/net.h"

#define PREAUTH 4200 /* a header and the longest credential, and a bit */

struct run {
	struct rota_evloop *loop;
	int peer;		/* our end of the socketpair */
	int frames;		/* frame_cb calls */
	size_t body_len;	/* of the last frame */
	int creds;		/* cred_cb calls */
	size_t cap_at_cred;	/* input buffer when cred_cb ran */
	int cred_verdict;	/* what cred_cb answers */
	int closed;
	int close_code;
	bool authed_at_close;
	size_t cap_at_close;
	const char *out;	/* what is left to write to the connection */
	size_t out_len;
	struct rota_watch *feeder;
};

static void frame_cb(struct rota_conn *c, const struct rota_frame *f,
		     void *arg)
{
	struct run *r = arg;

	r->frames++;
	r->body_len = f->body_len;
	rota_conn_close(c);
}

static void close_cb(struct rota_conn *c, int code, const char *why,
		     void *arg)
{
	struct run *r = arg;

	r->closed++;
	r->close_code = code;
	r->authed_at_close = rota_conn_is_authenticated(c);
	r->cap_at_close = rota_conn_in_capacity(c);
	rota_evloop_stop(r->loop);
}

static int cred_cb(struct rota_conn *c, const struct rota_frame_header *h,
		   const char *cred, void *arg)
{
	struct run *r = arg;

	r->creds++;
	r->cap_at_cred = rota_conn_in_capacity(c);
	ck_assert_int_eq(memcmp(cred, "MUNGE:", 6), 0);
	if (r->cred_verdict < 0)
		rota_conn_close(c);
	return r->cred_verdict;
}

static const struct rota_conn_ops ops = {
	.frame_cb = frame_cb,
	.close_cb = close_cb,
	.cred_cb = cred_cb,
};

/* Write what is left as the connection drains the socket. */
static void feed_cb(struct rota_evloop *loop, int fd, unsigned events,
		    void *arg)
{
	struct run *r = arg;
	ssize_t n = write(fd, r->out, r->out_len);

	if (n > 0) {
		r->out += n;
		r->out_len -= (size_t)n;
	}
	if (n < 0 || r->out_len == 0) {
		rota_watch_remove(r->feeder);
		r->feeder = NULL;
	}
}

static void give_up_cb(struct rota_evloop *loop, void *arg)
{
	rota_evloop_stop(loop);
}

/* Run a connection over the bytes 'out' (any size) until it closes. */
static void run_conn(struct run *r, const void *out, size_t len,
		     int64_t preauth_ms)
{
	const struct rota_conn_limits lim = {
		.max_frame = 1u << 20,
		.out_high_water = 1u << 20,
		.preauth_max = PREAUTH,
		.preauth_ms = preauth_ms,
	};
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	r->loop = rota_evloop_create();
	r->peer = sv[1];
	rota_net_set_nonblock(sv[0], 1);
	rota_net_set_nonblock(sv[1], 1);
	ck_assert_ptr_nonnull(rota_conn_create(r->loop, sv[0], &lim, &ops, r));
	rota_evloop_add_timer(r->loop, 5000, false, give_up_cb, NULL);
	r->out = out;
	r->out_len = len;
	r->feeder = rota_evloop_add_fd(r->loop, sv[1], ROTA_EV_WRITE, feed_cb,
				       r);
	rota_evloop_run(r->loop);
	rota_watch_remove(r->feeder);
	rota_evloop_destroy(r->loop);
	close(sv[1]);
}

/* A frame: header, credential 'cred' (or none), 'body_len' bytes of 'x'. */
static uint8_t *frame(const char *cred, size_t body_len, size_t *len)
{
	size_t clen = cred ? strlen(cred) : 0;
	uint8_t *f = malloc(ROTA_FRAME_HEADER_LEN + clen + body_len);

	rota_frame_header_encode(f, 7, (uint32_t)clen, (uint32_t)body_len);
	if (clen) /* memcpy takes no NULL, even for 0 bytes */
		memcpy(f + ROTA_FRAME_HEADER_LEN, cred, clen);
	memset(f + ROTA_FRAME_HEADER_LEN + clen, 'x', body_len);
	*len = ROTA_FRAME_HEADER_LEN + clen + body_len;
	return f;
}

START_TEST(test_small_frame_without_credential)
{
	struct run r = { 0 };
	size_t len;
	uint8_t *f = frame(NULL, 100, &len);

	run_conn(&r, f, len, 0);
	ck_assert_int_eq(r.frames, 1); /* the owner refuses it with a reason */
	ck_assert_int_eq(r.body_len, 100);
	ck_assert_int_eq(r.creds, 0);
	free(f);
}
END_TEST

START_TEST(test_large_frame_without_credential)
{
	struct run r = { 0 };
	size_t len;
	uint8_t *f = frame(NULL, 200000, &len);

	run_conn(&r, f, len, 0);
	ck_assert_int_eq(r.frames, 0);
	ck_assert_int_eq(r.closed, 1);
	ck_assert_int_eq(r.close_code, -EMSGSIZE);
	ck_assert_uint_le(r.cap_at_close, PREAUTH);
	free(f);
}
END_TEST

START_TEST(test_credential_before_body)
{
	struct run r = { .cred_verdict = 0 };
	size_t len;
	uint8_t *f = frame("MUNGE:abc", 300000, &len);

	run_conn(&r, f, len, 0);
	ck_assert_int_eq(r.creds, 1);
	/* nothing like the body was held when the credential was judged */
	ck_assert_uint_le(r.cap_at_cred, PREAUTH);
	ck_assert_int_eq(r.frames, 1);
	ck_assert_int_eq(r.body_len, 300000);
	ck_assert(r.authed_at_close);
	free(f);
}
END_TEST

START_TEST(test_credential_refused)
{
	struct run r = { .cred_verdict = -EACCES };
	size_t len;
	uint8_t *f = frame("MUNGE:bogus", 300000, &len);

	run_conn(&r, f, len, 0);
	ck_assert_int_eq(r.creds, 1);
	ck_assert_int_eq(r.frames, 0);
	ck_assert_int_eq(r.closed, 1);
	ck_assert(!r.authed_at_close);
	ck_assert_uint_le(r.cap_at_close, PREAUTH);
	free(f);
}
END_TEST

START_TEST(test_deadline)
{
	struct run r = { 0 };
	size_t len;
	uint8_t *f = frame("MUNGE:slow", 10, &len);

	/* the header and half the credential, then silence */
	run_conn(&r, f, ROTA_FRAME_HEADER_LEN + 5, 50);
	ck_assert_int_eq(r.closed, 1);
	ck_assert_int_eq(r.close_code, -ETIMEDOUT);
	ck_assert(!r.authed_at_close);
	ck_assert_int_eq(r.creds, 0);
	free(f);
}
END_TEST

START_TEST(test_deadline_met)
{
	struct run r = { .cred_verdict = 0 };
	size_t len;
	uint8_t *f = frame("MUNGE:quick", 10, &len);

	/* the credential in time: the deadline no longer applies */
	run_conn(&r, f, len, 50);
	ck_assert_int_eq(r.frames, 1);
	ck_assert_int_eq(r.close_code, 0);
	free(f);
}
END_TEST

/* A credential longer than the limit allows cannot be announced. */
START_TEST(test_header_limits_credential)
{
	struct run r = { 0 };
	uint8_t h[ROTA_FRAME_HEADER_LEN];

	rota_frame_header_encode(h, 7, ROTA_FRAME_CRED_MAX + 1, 0);
	run_conn(&r, h, sizeof(h), 0);
	ck_assert_int_eq(r.close_code, -EPROTO);
	ck_assert_int_eq(r.creds, 0);
}
END_TEST

/* ---- sending: a taken body, in order, a quarter megabyte a call ---- */

struct sink {
	struct rota_evloop *loop;
	uint8_t *got;
	size_t len;
	size_t want;
};

static void sink_cb(struct rota_evloop *loop, int fd, unsigned events,
		    void *arg)
{
	struct sink *k = arg;
	ssize_t n = read(fd, k->got + k->len, k->want - k->len);

	if (n > 0)
		k->len += (size_t)n;
	if (n <= 0 || k->len == k->want)
		rota_evloop_stop(loop);
}

/* 'len' bytes of a pattern that shows a byte out of place. */
static uint8_t *pattern(size_t len, unsigned seed)
{
	uint8_t *b = malloc(len);

	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)((i * 31 + seed) % 251);
	return b;
}

/* What a frame of 'body' looks like on the wire, at 'p'. */
static size_t wire(uint8_t *p, uint16_t type, const char *cred,
		   const uint8_t *body, size_t len)
{
	size_t clen = cred ? strlen(cred) : 0;

	rota_frame_header_encode(p, type, (uint32_t)clen, (uint32_t)len);
	memcpy(p + ROTA_FRAME_HEADER_LEN, cred ? cred : "", clen);
	memcpy(p + ROTA_FRAME_HEADER_LEN + clen, body, len);
	return ROTA_FRAME_HEADER_LEN + clen + len;
}

START_TEST(test_send_take)
{
	const size_t big = 3u << 20, second = 1u << 20;
	const struct rota_conn_limits lim = { .max_frame = 1u << 20,
					      .out_high_water = 1u << 26 };
	uint8_t *a = pattern(big, 1), *b = pattern(second, 2);
	uint8_t *want = malloc(2 * ROTA_FRAME_HEADER_LEN * 3 + big + second +
			       64);
	struct sink k = { 0 };
	struct run r = { 0 };
	struct rota_conn *c;
	int sv[2];

	k.want = wire(want, 1, "CRED", a, big);
	k.want += wire(want + k.want, 2, NULL, (const uint8_t *)"small", 5);
	k.want += wire(want + k.want, 3, "C2", b, second);
	k.got = malloc(k.want);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	rota_net_set_nonblock(sv[0], 1);
	rota_net_set_nonblock(sv[1], 1);
	k.loop = r.loop = rota_evloop_create();
	c = rota_conn_create(r.loop, sv[0], &lim, &ops, &r);
	ck_assert_ptr_nonnull(c);
	/* taken: the caller's copy is gone; no more than 256 KiB written */
	ck_assert_int_eq(rota_conn_send_take(c, 1, "CRED", 4,
					     memcpy(malloc(big), a, big), big),
			 0);
	ck_assert_uint_ge(rota_conn_queued(c), big - (256u << 10));
	/* queued behind it, whether copied or taken */
	ck_assert_int_eq(rota_conn_send(c, 2, NULL, 0, "small", 5), 0);
	ck_assert_int_eq(rota_conn_send_take(c, 3, "C2", 2,
					     memcpy(malloc(second), b, second),
					     second),
			 0);
	rota_evloop_add_fd(r.loop, sv[1], ROTA_EV_READ, sink_cb, &k);
	rota_evloop_add_timer(r.loop, 5000, false, give_up_cb, NULL);
	rota_evloop_run(r.loop);
	ck_assert_uint_eq(k.len, k.want);
	ck_assert_int_eq(memcmp(k.got, want, k.want), 0);
	ck_assert_uint_eq(rota_conn_queued(c), 0);
	rota_conn_close(c);
	rota_evloop_destroy(r.loop);
	close(sv[1]);
	free(k.got);
	free(want);
	free(a);
	free(b);
}
END_TEST

static Suite *conn_suite(void)
{
	Suite *s = suite_create("conn");
	TCase *tc = tcase_create("preauth");

	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_small_frame_without_credential);
	tcase_add_test(tc, test_large_frame_without_credential);
	tcase_add_test(tc, test_credential_before_body);
	tcase_add_test(tc, test_credential_refused);
	tcase_add_test(tc, test_deadline);
	tcase_add_test(tc, test_deadline_met);
	tcase_add_test(tc, test_header_limits_credential);
	suite_add_tcase(s, tc);
	tc = tcase_create("send");
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_send_take);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(conn_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}
