// SPDX-License-Identifier: MIT
/*
 * Connection admission: how many connections the controller keeps, in
 * total and per peer address, decided at accept before a byte is read.
 *
 * Each connection costs a file descriptor, a few KiB of buffers and a
 * place in the event loop, so a peer that opens thousands of them (a
 * runaway script, a port scanner, a hostile user) must be turned away
 * before it exhausts the descriptors or memory that everyone else needs.
 * nginx's limit_conn and OpenSSH's MaxStartups/PerSourceMaxStartups do the
 * same: a cap per source address, so that one host cannot take everything,
 * and a cap in total, so that many cannot either.
 *
 * Node daemons must never be starved by a client flood: a node that cannot
 * get its link back would be marked down and its jobs requeued.  Their
 * addresses are known from the config (NodeName's Addr=, else the name,
 * resolved once here when the config is loaded, never at accept), so a
 * connection from a node's address is counted apart: MaxConnections
 * bounds the clients from elsewhere (login nodes, workstations) and, in a
 * pool of its own, the connections from nodes' addresses, so that no
 * number of clients can take the room a node's link needs.  Jobs on a node
 * can still run rota commands from there; what they open is held to the
 * per-address cap, so they can crowd out at most their own node's daemon,
 * and only for as long as they keep it up (a stranger lasts AuthTimeout).
 */
#include "config.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/admit.h"

#define ADMIT_BUCKETS 1021

/* One peer address and how many connections it holds. */
struct addr_count {
	struct addr_count *next;
	size_t count;
	char addr[48];
};

struct admit {
	size_t max_total;	/* MaxConnections: client connections */
	size_t max_per_addr;	/* MaxConnectionsPerAddr */
	size_t clients;		/* open, from addresses that are not nodes' */
	size_t nodes;		/* open, from nodes' addresses */
	size_t open;		/* open, all of them */
	char **node_addrs;	/* sorted, for bsearch */
	size_t nnode_addrs;
	struct addr_count *buckets[ADMIT_BUCKETS];
};

static size_t hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h % ADMIT_BUCKETS;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_node_addrs(struct admit *a)
{
	for (size_t i = 0; i < a->nnode_addrs; i++)
		free(a->node_addrs[i]);
	free(a->node_addrs);
	a->node_addrs = NULL;
	a->nnode_addrs = 0;
}

/* Every address 'host' resolves to, appended to the node address list. */
static void add_node_host(struct admit *a, const char *host, size_t *cap)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	char text[INET6_ADDRSTRLEN];
	int rc;

	hints.ai_flags = AI_NUMERICHOST;
	rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc != 0) {
		hints.ai_flags = 0;
		rc = getaddrinfo(host, NULL, &hints, &res);
	}
	if (rc != 0) {
		rota_warn("node address '%s': %s: its connections count as "
			  "clients'", host, gai_strerror(rc));
		return;
	}
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		const void *p;

		if (ai->ai_family == AF_INET)
			p = &((struct sockaddr_in *)ai->ai_addr)->sin_addr;
		else if (ai->ai_family == AF_INET6)
			p = &((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr;
		else
			continue;
		if (!inet_ntop(ai->ai_family, p, text, sizeof(text)))
			continue;
		if (a->nnode_addrs == *cap) {
			*cap = *cap ? 2 * *cap : 64;
			a->node_addrs = rota_xrealloc(
				a->node_addrs, *cap * sizeof(char *));
		}
		a->node_addrs[a->nnode_addrs++] = rota_xstrdup(text);
	}
	freeaddrinfo(res);
}

void admit_reconfigure(struct admit *a, const struct rota_conf *conf)
{
	size_t cap = 0;

	a->max_total = conf->max_connections;
	a->max_per_addr = conf->max_connections_per_addr;
	free_node_addrs(a);
	for (size_t i = 0; i < conf->nnodes; i++) {
		const struct rota_conf_node *n = &conf->nodes[i];

		add_node_host(a, n->addr ? n->addr : n->name, &cap);
	}
	if (a->nnode_addrs)
		qsort(a->node_addrs, a->nnode_addrs, sizeof(char *), cmp_str);
}

struct admit *admit_create(const struct rota_conf *conf)
{
	struct admit *a = rota_xcalloc(1, sizeof(*a));

	admit_reconfigure(a, conf);
	return a;
}

void admit_destroy(struct admit *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < ADMIT_BUCKETS; i++) {
		while (a->buckets[i]) {
			struct addr_count *e = a->buckets[i];

			a->buckets[i] = e->next;
			free(e);
		}
	}
	free_node_addrs(a);
	free(a);
}

static bool is_node_addr(const struct admit *a, const char *addr)
{
	return a->nnode_addrs &&
	       bsearch(&addr, a->node_addrs, a->nnode_addrs, sizeof(char *),
		       cmp_str);
}

static struct addr_count **find(struct admit *a, const char *addr)
{
	struct addr_count **pp = &a->buckets[hash(addr)];

	while (*pp && strcmp((*pp)->addr, addr) != 0)
		pp = &(*pp)->next;
	return pp;
}

enum admit_verdict admit_take(struct admit *a, const char *addr,
			      bool *is_node)
{
	struct addr_count **pp = find(a, addr);
	struct addr_count *e = *pp;

	*is_node = is_node_addr(a, addr);
	if ((*is_node ? a->nodes : a->clients) >= a->max_total)
		return ADMIT_OVER_TOTAL;
	if (e && e->count >= a->max_per_addr)
		return ADMIT_OVER_ADDR;
	if (!e) {
		e = rota_xcalloc(1, sizeof(*e));
		snprintf(e->addr, sizeof(e->addr), "%s", addr);
		*pp = e;
	}
	e->count++;
	a->open++;
	if (*is_node)
		a->nodes++;
	else
		a->clients++;
	return ADMIT_OK;
}

void admit_release(struct admit *a, const char *addr, bool is_node)
{
	struct addr_count **pp = find(a, addr);
	struct addr_count *e = *pp;

	if (!e)
		return; /* never counted: a bug, but not worth a crash */
	if (--e->count == 0) {
		*pp = e->next;
		free(e);
	}
	a->open--;
	if (is_node)
		a->nodes--;
	else
		a->clients--;
}

size_t admit_clients(const struct admit *a)
{
	return a->clients;
}

size_t admit_open(const struct admit *a)
{
	return a->open;
}
