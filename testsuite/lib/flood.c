// SPDX-License-Identifier: MIT
/*
 * flood: hold many hostile connections to the controller at once, for the
 * pre-authentication test.  Each connection sends a frame header that
 * announces a huge frame and then trickles a byte a second; when the
 * controller closes it, it is opened again (after 200 ms), until the time
 * is up.  In the modes that push, the rest of the announced frame is
 * written as fast as the socket takes it instead.  Then one line:
 *   connects N refused_addr N refused_total N cut N held_max N
 * refused_* are connections turned away at accept (their ERROR said which
 * cap), cut the ones closed later (deadline, refused credential, size),
 * held_max the most open at one time.  "held N" lines go to stdout each
 * second while it runs.
 *
 *   flood ADDR:PORT SECONDS MODE SRC:COUNT...
 *     MODE trickle  a 4 KiB credential announced, sent a byte a second
 *          push     a 4 KiB credential and 15 MiB announced, all pushed
 *          nocred   no credential and a 15 MiB body announced, pushed
 *          badcred  a bogus "MUNGE:" credential, then a 16 MiB body pushed
 *          mix      the four in turn
 *     SRC:COUNT  COUNT connections from source address SRC (127.0.1.1:100)
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/frame.h"
#include "common/net.h"
#include "common/proto.h"

enum mode { TRICKLE, PUSH, NOCRED, BADCRED };

struct flow {
	int fd;			/* -1: closed, waiting to reopen */
	struct in_addr src;
	enum mode mode;
	int connected;		/* the header went out */
	double next;		/* when to send the next byte, or reopen */
	char got[256];		/* what the controller said */
	size_t ngot;
};

static struct sockaddr_in ctld;
static long connects, refused_addr, refused_total, cut, held, held_max;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void flow_open(struct flow *f)
{
	struct sockaddr_in src = { .sin_family = AF_INET, .sin_addr = f->src };

	f->ngot = 0;
	f->connected = 0;
	f->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (f->fd < 0) {
		perror("flood: socket");
		exit(1);
	}
	if (bind(f->fd, (struct sockaddr *)&src, sizeof(src)) < 0) {
		perror("flood: bind");
		exit(1);
	}
	if (connect(f->fd, (struct sockaddr *)&ctld, sizeof(ctld)) < 0 &&
	    errno != EINPROGRESS) {
		close(f->fd);
		f->fd = -1;
		f->next = now() + 0.2;
		return;
	}
	connects++;
	held++;
	if (held > held_max)
		held_max = held;
}

static void flow_closed(struct flow *f)
{
	f->got[f->ngot < sizeof(f->got) ? f->ngot : sizeof(f->got) - 1] = 0;
	/* the ERROR body is JSON after the header: search past the NULs */
	if (memmem(f->got, f->ngot, "(MaxConnectionsPerAddr)", 23))
		refused_addr++;
	else if (memmem(f->got, f->ngot, "(MaxConnections)", 16))
		refused_total++;
	else
		cut++;
	close(f->fd);
	f->fd = -1;
	held--;
	f->next = now() + 0.2;
}

static void send_header(struct flow *f)
{
	uint8_t buf[ROTA_FRAME_HEADER_LEN + 64];
	size_t n = ROTA_FRAME_HEADER_LEN;

	switch (f->mode) {
	case TRICKLE:
	case PUSH:
		rota_frame_header_encode(buf, ROTA_MSG_SUBMIT,
					 ROTA_FRAME_CRED_MAX, 15u << 20);
		break;
	case NOCRED:
		rota_frame_header_encode(buf, ROTA_MSG_SUBMIT, 0, 15u << 20);
		break;
	case BADCRED:
		rota_frame_header_encode(buf, ROTA_MSG_SUBMIT, 40, 16u << 20);
		memcpy(buf + n, "MUNGE:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 40);
		n += 40;
		break;
	}
	if (write(f->fd, buf, n) < 0 && errno != EAGAIN)
		return; /* the read side will see the close */
	f->connected = 1;
	f->next = now() + 1;
}

static void flow_poll(struct flow *f, short revents, double t)
{
	if (revents & (POLLIN | POLLHUP | POLLERR)) {
		char tmp[512];
		ssize_t n = read(f->fd, tmp, sizeof(tmp));

		if (n > 0) {
			size_t room = sizeof(f->got) - f->ngot;

			memcpy(f->got + f->ngot, tmp,
			       (size_t)n < room ? (size_t)n : room);
			f->ngot += (size_t)n < room ? (size_t)n : room;
			return;
		}
		if (n == 0 || errno != EAGAIN) {
			flow_closed(f);
			return;
		}
	}
	if ((revents & POLLOUT) && !f->connected) {
		send_header(f);
		return;
	}
	if (f->connected && f->mode != TRICKLE && (revents & POLLOUT)) {
		static const char junk[65536];

		if (write(f->fd, junk, sizeof(junk)) < 0 && errno != EAGAIN)
			return;
		return;
	}
	if (f->connected && t >= f->next) {
		if (write(f->fd, "A", 1) < 0 && errno != EAGAIN)
			return;
		f->next = t + 1;
	}
}

static enum mode parse_mode(const char *s, int i)
{
	if (strcmp(s, "trickle") == 0)
		return TRICKLE;
	if (strcmp(s, "push") == 0)
		return PUSH;
	if (strcmp(s, "nocred") == 0)
		return NOCRED;
	if (strcmp(s, "badcred") == 0)
		return BADCRED;
	if (strcmp(s, "mix") == 0)
		return (enum mode)(i % 4);
	fprintf(stderr, "flood: unknown mode '%s'\n", s);
	exit(2);
}

static void run(struct flow *flows, size_t n, double seconds)
{
	struct pollfd *pfd = calloc(n, sizeof(*pfd));
	double end = now() + seconds, report = now() + 1;

	for (double t = now(); t < end; t = now()) {
		for (size_t i = 0; i < n; i++) {
			if (flows[i].fd < 0 && t >= flows[i].next)
				flow_open(&flows[i]);
			pfd[i].fd = flows[i].fd;
			pfd[i].events = POLLIN;
			if (flows[i].fd >= 0 &&
			    (!flows[i].connected || flows[i].mode != TRICKLE))
				pfd[i].events |= POLLOUT;
			pfd[i].revents = 0;
		}
		poll(pfd, n, 100);
		t = now();
		for (size_t i = 0; i < n; i++) {
			if (flows[i].fd >= 0)
				flow_poll(&flows[i], pfd[i].revents, t);
		}
		if (t >= report) {
			printf("held %ld\n", held);
			fflush(stdout);
			report = t + 1;
		}
	}
	free(pfd);
}

int main(int argc, char **argv)
{
	char host[64];
	unsigned port;
	struct flow *flows = NULL;
	size_t n = 0;

	if (argc < 5) {
		fprintf(stderr, "usage: flood ADDR:PORT SECONDS MODE "
				"SRC:COUNT...\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (rota_net_split(argv[1], host, sizeof(host), &port) < 0 ||
	    inet_pton(AF_INET, host, &ctld.sin_addr) != 1) {
		fprintf(stderr, "flood: bad address '%s'\n", argv[1]);
		return 2;
	}
	ctld.sin_family = AF_INET;
	ctld.sin_port = htons((uint16_t)port);
	for (int a = 4; a < argc; a++) {
		char *colon = strrchr(argv[a], ':');
		struct in_addr src;
		long count;

		if (!colon)
			return 2;
		*colon = 0;
		count = strtol(colon + 1, NULL, 10);
		if (inet_pton(AF_INET, argv[a], &src) != 1 || count <= 0)
			return 2;
		flows = realloc(flows, (n + (size_t)count) * sizeof(*flows));
		for (long i = 0; i < count; i++, n++)
			flows[n] = (struct flow){ .fd = -1, .src = src,
						  .mode = parse_mode(argv[3],
								     (int)n) };
	}
	run(flows, n, atof(argv[2]));
	printf("connects %ld refused_addr %ld refused_total %ld cut %ld "
	       "held_max %ld\n",
	       connects, refused_addr, refused_total, cut, held_max);
	for (size_t i = 0; i < n; i++) {
		if (flows[i].fd >= 0)
			close(flows[i].fd);
	}
	free(flows);
	return 0;
}
