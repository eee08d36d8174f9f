// SPDX-License-Identifier: MIT
/* Sockets: listening, connecting with a deadline from a chosen address. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/net.h"

int rota_net_set_nonblock(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	fl = on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK;
	return fcntl(fd, F_SETFL, fl) < 0 ? -errno : 0;
}

static int resolve(const char *addr, unsigned port, int passive,
		   struct addrinfo **res, struct rota_error *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = passive ? AI_PASSIVE : 0 };
	char ports[8];
	int rc;

	snprintf(ports, sizeof(ports), "%u", port);
	rc = getaddrinfo(addr, ports, &hints, res);
	if (rc != 0)
		return rota_errorf(err, -EHOSTUNREACH, "address '%s': %s",
				   addr ? addr : "*", gai_strerror(rc));
	return 0;
}

int rota_net_listen(const char *addr, unsigned port, unsigned *bound_port,
		    struct rota_error *err)
{
	struct addrinfo *res;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int one = 1;
	int fd, rc;

	rc = resolve(addr, port, 1, &res, err);
	if (rc < 0)
		return rc;
	fd = socket(res->ai_family, res->ai_socktype | SOCK_NONBLOCK |
					    SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, res->ai_addr, res->ai_addrlen) < 0 ||
	    listen(fd, 1024) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		rc = -errno;
		close(fd);
		goto out;
	}
	*bound_port = ntohs(ss.ss_family == AF_INET6
				    ? ((struct sockaddr_in6 *)&ss)->sin6_port
				    : ((struct sockaddr_in *)&ss)->sin_port);
	rc = fd;
out:
	freeaddrinfo(res);
	if (rc < 0)
		rota_errorf(err, rc, "listen on %s:%u: %s", addr ? addr : "*",
			    port, strerror(-rc));
	return rc;
}

static int bind_source(int fd, const char *src, struct rota_error *err)
{
	struct addrinfo *res;
	int rc = resolve(src, 0, 1, &res, err);

	if (rc < 0)
		return rc;
	if (bind(fd, res->ai_addr, res->ai_addrlen) < 0)
		rc = rota_errorf(err, -errno, "bind to %s: %s", src,
				 strerror(errno));
	freeaddrinfo(res);
	return rc;
}

static int wait_connected(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	int soerr = 0;
	socklen_t len = sizeof(soerr);
	int n;

	do
		n = poll(&p, 1, timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return -ETIMEDOUT;
	if (n < 0)
		return -errno;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
		return -errno;
	return soerr ? -soerr : 0;
}

int rota_net_connect(const char *addr, unsigned port, const char *src,
		     int timeout_ms, struct rota_error *err)
{
	struct addrinfo *res;
	int one = 1;
	int fd, rc;

	rc = resolve(addr, port, 0, &res, err);
	if (rc < 0)
		return rc;
	fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = rota_errorf(err, -errno, "socket: %s", strerror(errno));
		goto out;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (src && (rc = bind_source(fd, src, err)) < 0)
		goto out_close;
	rota_net_set_nonblock(fd, 1);
	rc = connect(fd, res->ai_addr, res->ai_addrlen) < 0 ? -errno : 0;
	if (rc == -EINPROGRESS)
		rc = wait_connected(fd, timeout_ms);
	if (rc < 0) {
		rota_errorf(err, rc, "connect to %s:%u: %s", addr, port,
			    strerror(-rc));
		goto out_close;
	}
	rota_net_set_nonblock(fd, 0);
	rc = fd;
	goto out;
out_close:
	close(fd);
out:
	freeaddrinfo(res);
	return rc;
}

int rota_net_accept(int lfd)
{
	int one = 1;
	int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return -errno;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

int rota_net_split(const char *text, char *host, size_t hostlen,
		   unsigned *port)
{
	const char *colon = strrchr(text, ':');
	const char *h = text;
	size_t n;
	char *end;
	unsigned long p;

	if (!colon)
		return -EINVAL;
	n = (size_t)(colon - text);
	if (text[0] == '[' && n >= 2 && text[n - 1] == ']') {
		h = text + 1;
		n -= 2;
	}
	if (n == 0 || n >= hostlen)
		return -EINVAL;
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (errno || *end || end == colon + 1 || p > 65535)
		return -EINVAL;
	memcpy(host, h, n);
	host[n] = '\0';
	*port = (unsigned)p;
	return 0;
}
