// SPDX-License-Identifier: MIT
/*
 * rawsend: send the controller frames a well-behaved client never would,
 * for the tests that try to break it.  Prints the reply ("ERROR: text",
 * "OK" or "CLOSED") and exits 0 when a reply or a close came back.
 *
 *   rawsend ADDR:PORT MODE
 *     nocred   a PING with no credential
 *     forged   a credential made for another body
 *     replay   the same signed PING sent on two connections (second told)
 *     badtype  a signed frame of an unknown type
 *     garbage  bytes that are not a frame
 *     cut      half a frame, then hang up
 *     huge     a header announcing a 1 GiB body
 *     ping     a proper PING
 *     nosession  an HMAC on a connection that opened no session
 *     badmac   a proper PING, then a second one with a wrong HMAC
 *     otheruid a credential only uid 4242 may open
 *     trickle  a proper PING, one byte every half second
 *     noread   up to 5000 signed JOB_ROWS requests, as many as the socket
 *              takes, then never read; sleeps
 *     top      a proper TOP_ROWS request (the reply's type is printed)
 *     twice    a PRIO of the whole queue, then at once a TOP_ROWS on the
 *              same connection (a long reply may still be being written):
 *              both replies printed
 *     leave    a PRIO of the whole queue, then hang up before the reply
 */
#include "config.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/frame.h"
#include "common/msg.h"
#include "common/net.h"
#include "common/proto.h"

static int dial(const char *hostport)
{
	struct rota_error err;
	char host[256];
	unsigned port;
	int fd;

	if (rota_net_split(hostport, host, sizeof(host), &port) < 0) {
		fprintf(stderr, "rawsend: bad address '%s'\n", hostport);
		exit(2);
	}
	fd = rota_net_connect(host, port, NULL, 5000, &err);
	if (fd < 0) {
		fprintf(stderr, "rawsend: %s\n", err.text);
		exit(1);
	}
	return fd;
}

static void send_frame(int fd, uint16_t type, const char *cred,
		       const char *body, uint32_t body_len_claim)
{
	uint8_t hdr[ROTA_FRAME_HEADER_LEN];
	size_t clen = cred ? strlen(cred) : 0;

	rota_frame_header_encode(hdr, type, (uint32_t)clen, body_len_claim);
	if (write(fd, hdr, sizeof(hdr)) < 0 ||
	    (clen && write(fd, cred, clen) < 0) ||
	    (body && write(fd, body, strlen(body)) < 0))
		perror("rawsend: write");
}

/* One frame in one write, or false when the socket would block. */
static bool send_whole(int fd, uint16_t type, const char *cred)
{
	uint8_t buf[ROTA_FRAME_HEADER_LEN + ROTA_FRAME_CRED_MAX + 2];
	size_t clen = strlen(cred);
	size_t n = ROTA_FRAME_HEADER_LEN + clen + 2;

	rota_frame_header_encode(buf, type, (uint32_t)clen, 2);
	memcpy(buf + ROTA_FRAME_HEADER_LEN, cred, clen);
	memcpy(buf + ROTA_FRAME_HEADER_LEN + clen, "{}", 2);
	return write(fd, buf, n) == (ssize_t)n;
}

/* Read one reply frame and print it; the reply's credential is not checked. */
static void print_reply(int fd)
{
	uint8_t hdr[ROTA_FRAME_HEADER_LEN];
	struct rota_frame_header h;
	struct rota_msg_error e;
	struct rota_error err;
	size_t got = 0;
	char *buf;
	ssize_t n;

	while (got < sizeof(hdr) &&
	       (n = read(fd, hdr + got, sizeof(hdr) - got)) > 0)
		got += (size_t)n;
	if (got < sizeof(hdr) ||
	    rota_frame_header_decode(hdr, got, 1 << 20, &h, &err) < 0) {
		printf("CLOSED\n");
		return;
	}
	buf = calloc(1, (size_t)h.cred_len + h.body_len + 1);
	got = 0;
	while (got < h.cred_len + h.body_len &&
	       (n = read(fd, buf + got, h.cred_len + h.body_len - got)) > 0)
		got += (size_t)n;
	if (h.type == ROTA_MSG_ERROR &&
	    rota_msg_error_decode(buf + h.cred_len, h.body_len, &e, &err) == 0) {
		printf("ERROR: %s\n", e.text);
		rota_msg_error_clear(&e);
	} else {
		printf("%s\n", rota_msg_type_name(h.type));
	}
	free(buf);
}

static char *sign(uint16_t type, const char *body);

/* A whole PING, a byte at a time, until the controller hangs up. */
static void trickle(int fd)
{
	uint8_t hdr[ROTA_FRAME_HEADER_LEN];
	char *cred = sign(ROTA_MSG_PING, "{}");
	size_t clen = strlen(cred);
	char *all = malloc(sizeof(hdr) + clen + 2);

	rota_frame_header_encode(hdr, ROTA_MSG_PING, (uint32_t)clen, 2);
	memcpy(all, hdr, sizeof(hdr));
	memcpy(all + sizeof(hdr), cred, clen);
	memcpy(all + sizeof(hdr) + clen, "{}", 2);
	for (size_t i = 0; i < sizeof(hdr) + clen + 2; i++) {
		if (write(fd, all + i, 1) != 1)
			break;
		usleep(500000);
	}
	free(all);
	free(cred);
}

/* A credential opening a session with a controller running as 'uid'. */
static char *sign_for(uid_t uid, uint16_t type, const char *body)
{
	struct rota_auth *auth = rota_auth_create(NULL);
	struct rota_session sess;
	struct rota_error err;
	char *cred;

	if (rota_auth_open(auth, uid, type, body, strlen(body), &sess, &cred,
			   &err) < 0) {
		fprintf(stderr, "rawsend: %s\n", err.text);
		exit(1);
	}
	rota_auth_destroy(auth);
	return cred;
}

static char *sign(uint16_t type, const char *body)
{
	return sign_for(0, type, body);
}

#define BAD_MAC "HMAC:00000000000000000000000000000000" \
		"00000000000000000000000000000000"


int main(int argc, char **argv)
{
	const char *mode;
	char *cred = NULL;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: rawsend ADDR:PORT MODE\n");
		return 2;
	}
	mode = argv[2];
	signal(SIGPIPE, SIG_IGN); /* a cut-off peer is what some modes test */
	fd = dial(argv[1]);
	if (strcmp(mode, "nocred") == 0) {
		send_frame(fd, ROTA_MSG_PING, NULL, "{}", 2);
	} else if (strcmp(mode, "forged") == 0) {
		cred = sign(ROTA_MSG_PING, "{\"other\":1}");
		send_frame(fd, ROTA_MSG_PING, cred, "{}", 2);
	} else if (strcmp(mode, "replay") == 0) {
		cred = sign(ROTA_MSG_PING, "{}");
		send_frame(fd, ROTA_MSG_PING, cred, "{}", 2);
		print_reply(fd);
		close(fd);
		fd = dial(argv[1]);
		send_frame(fd, ROTA_MSG_PING, cred, "{}", 2);
	} else if (strcmp(mode, "badtype") == 0) {
		cred = sign(999, "{}");
		send_frame(fd, 999, cred, "{}", 2);
	} else if (strcmp(mode, "garbage") == 0) {
		if (write(fd, "GET / HTTP/1.0\r\n\r\n", 18) < 0)
			return 1;
	} else if (strcmp(mode, "cut") == 0) {
		cred = sign(ROTA_MSG_PING, "{}");
		send_frame(fd, ROTA_MSG_PING, cred, NULL, 2);
		close(fd);
		free(cred);
		printf("CLOSED\n");
		return 0;
	} else if (strcmp(mode, "huge") == 0) {
		send_frame(fd, ROTA_MSG_PING, NULL, NULL, 1u << 30);
	} else if (strcmp(mode, "nosession") == 0) {
		send_frame(fd, ROTA_MSG_PING, BAD_MAC, "{}", 2);
	} else if (strcmp(mode, "badmac") == 0) {
		cred = sign(ROTA_MSG_PING, "{}");
		send_frame(fd, ROTA_MSG_PING, cred, "{}", 2);
		print_reply(fd);
		send_frame(fd, ROTA_MSG_PING, BAD_MAC, "{}", 2);
	} else if (strcmp(mode, "otheruid") == 0) {
		cred = sign_for(4242, ROTA_MSG_PING, "{}");
		send_frame(fd, ROTA_MSG_PING, cred, "{}", 2);
	} else if (strcmp(mode, "trickle") == 0) {
		trickle(fd);
	} else if (strcmp(mode, "noread") == 0) {
		int sent = 0;

		rota_net_set_nonblock(fd, 1);
		for (; sent < 5000; sent++) {
			cred = sign(ROTA_MSG_JOB_ROWS, "{}");
			if (!send_whole(fd, ROTA_MSG_JOB_ROWS, cred))
				break; /* the controller stopped reading us */
			free(cred);
			cred = NULL;
		}
		printf("SENT %d\n", sent);
		fflush(stdout);
		pause();
	} else if (strcmp(mode, "ping") == 0) {
		cred = sign(ROTA_MSG_PING, "{}");
		send_frame(fd, ROTA_MSG_PING, cred, "{}", 2);
	} else if (strcmp(mode, "top") == 0) {
		cred = sign(ROTA_MSG_TOP_ROWS, "{}");
		send_frame(fd, ROTA_MSG_TOP_ROWS, cred, "{}", 2);
	} else if (strcmp(mode, "twice") == 0 || strcmp(mode, "leave") == 0) {
		static const char all[] = "{\"job_ids\":[]}";

		cred = sign(ROTA_MSG_PRIO, all);
		send_frame(fd, ROTA_MSG_PRIO, cred, all, strlen(all));
		free(cred);
		cred = sign(ROTA_MSG_TOP_ROWS, "{}");
		if (strcmp(mode, "leave") == 0) {
			close(fd);
			free(cred);
			printf("LEFT\n");
			return 0;
		}
		send_frame(fd, ROTA_MSG_TOP_ROWS, cred, "{}", 2);
		print_reply(fd); /* and the second below */
	} else {
		fprintf(stderr, "rawsend: unknown mode '%s'\n", mode);
		return 2;
	}
	print_reply(fd);
	close(fd);
	free(cred);
	return 0;
}
