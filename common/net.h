/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_NET_H
#define ROTA_COMMON_NET_H

#include <stdint.h>

#include "common/error.h"

/*
 * Listen on addr:port (IPv4 or IPv6 literal or host name; port 0: any).
 * Returns a non-blocking, close-on-exec listening fd, or -errno with 'err'.
 * '*bound_port' gets the port actually bound.
 */
int rota_net_listen(const char *addr, unsigned port, unsigned *bound_port,
		    struct rota_error *err);

/*
 * Connect to addr:port within 'timeout_ms', from 'src' (NULL: any local
 * address), as node daemons do so that several can share one host.
 * Returns a connected blocking fd or -errno with 'err'.
 */
int rota_net_connect(const char *addr, unsigned port, const char *src,
		     int timeout_ms, struct rota_error *err);

/* Accept one connection, non-blocking and close-on-exec; -errno. */
int rota_net_accept(int lfd);

/* Parse "host:port" (or "[v6]:port") into parts; -EINVAL. */
int rota_net_split(const char *text, char *host, size_t hostlen,
		   unsigned *port);

int rota_net_set_nonblock(int fd, int on);

#endif
