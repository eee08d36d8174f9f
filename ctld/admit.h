/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_ADMIT_H
#define ROTA_CTLD_ADMIT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Who may hold a connection to the controller (see admit.c): the count of
 * connections in total and per peer address, checked at accept.
 */
struct admit;
struct rota_conf;

enum admit_verdict {
	ADMIT_OK = 1,
	ADMIT_OVER_TOTAL,	/* MaxConnections reached (in its pool) */
	ADMIT_OVER_ADDR,	/* MaxConnectionsPerAddr reached */
};

/*
 * Caller frees with admit_destroy(); caps and node addresses from 'conf'
 * (node names are resolved here: the one place that may wait on DNS).
 */
struct admit *admit_create(const struct rota_conf *conf);
void admit_destroy(struct admit *a);

/*
 * The configuration changed: new caps and node addresses.  Connections
 * already counted stay counted (each one is released with the node flag
 * it was admitted with).
 */
void admit_reconfigure(struct admit *a, const struct rota_conf *conf);

/*
 * May a new connection from 'addr' (inet_ntop text) be kept?  On ADMIT_OK
 * it is counted, '*is_node' says whether it came from a node's address,
 * and admit_release() with the same address and flag must follow when it
 * closes.  Otherwise nothing is counted.
 */
enum admit_verdict admit_take(struct admit *a, const char *addr,
			      bool *is_node);
void admit_release(struct admit *a, const char *addr, bool is_node);

/* Connections counted now: in all, and those not from nodes' addresses. */
size_t admit_open(const struct admit *a);
size_t admit_clients(const struct admit *a);

#endif
