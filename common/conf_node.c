// SPDX-License-Identifier: MIT
/*
 * NodeName lines, expanded into nodes, then the nodes' index by name.
 *   NodeName=n[001-128] Addr=10.0.0.[1-128] CPUs=64 RealMemory=256G
 * A line's nodes share one features list (struct conf_impl owns it); a
 * name declared twice is an error found once all files are read.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf_internal.h"
#include "common/gres.h"
#include "common/hostlist.h"
#include "common/xalloc.h"

/* A NodeName line before it is expanded into nodes. */
struct node_line {
	struct rota_hostlist *names;
	struct rota_hostlist *addrs;
	char **features;
	unsigned cpus;
	uint64_t memory_mb;
	struct rota_gres *gres;
	size_t ngres;
};

/* Gres=gpu:v100:16,nvme:2 (names checked against GresTypes at the end) */
static int set_gres(const struct conf_key *key, const char *value, void *base,
		    struct rota_error *err)
{
	struct node_line *nl = base;

	(void)key;
	free(nl->gres);
	return rota_gres_parse(value, &nl->gres, &nl->ngres, err);
}

#define NODE(n, s, f, lo, hi)                                                  \
	{                                                                      \
		.name = n, .set = s, .offset = offsetof(struct node_line, f),  \
		.min = lo, .max = hi,                                          \
	}

static const struct conf_key node_keys[] = {
	NODE("NodeName", conf_set_hostlist, names, 0, 0),
	NODE("Addr", conf_set_hostlist, addrs, 0, 0),
	NODE("Features", conf_set_names, features, 0, 0),
	NODE("CPUs", conf_set_uint, cpus, 1, ROTA_NODE_CPUS_MAX),
	NODE("RealMemory", conf_set_size_mb, memory_mb, 1, INT64_C(1) << 40),
	NODE("Gres", set_gres, gres, 0, 0),
};

_Static_assert(ARRAY_SIZE(node_keys) <= CONF_LINE_KEYS_MAX,
	       "conf_line_apply() tracks CONF_LINE_KEYS_MAX keys");

static void node_line_clear(struct node_line *nl)
{
	rota_hostlist_destroy(nl->names);
	rota_hostlist_destroy(nl->addrs);
	conf_list_free(nl->features);
	free(nl->gres);
}

/* Expand a checked NodeName line into nodes sharing one features list. */
static void nodes_add(struct conf_parser *p, const struct conf_where *at,
		      struct node_line *nl)
{
	struct conf_impl *impl = p->impl;
	struct rota_conf *conf = &impl->pub;
	size_t n = rota_hostlist_count(nl->names);

	impl->featsets = conf_grow(impl->featsets, &impl->featset_slots,
			      impl->nfeatsets + 1, sizeof(*impl->featsets));
	impl->featsets[impl->nfeatsets++] = nl->features;
	conf->nodes = conf_grow(conf->nodes, &impl->node_slots, conf->nnodes + n,
			   sizeof(*conf->nodes));
	for (size_t i = 0; i < n; i++) {
		struct rota_conf_node *node = &conf->nodes[conf->nnodes++];

		*node = (struct rota_conf_node){ 0 }; /* the slots are not */
		node->name = rota_xstrdup(rota_hostlist_nth(nl->names, i));
		node->addr = nl->addrs ? rota_xstrdup(rota_hostlist_nth(
						 nl->addrs, i))
				       : NULL;
		node->features = nl->features;
		node->cpus = nl->cpus;
		node->memory_mb = nl->memory_mb;
		if (nl->ngres) {
			node->gres = rota_xcalloc(nl->ngres, sizeof(*nl->gres));
			memcpy(node->gres, nl->gres,
			       nl->ngres * sizeof(*nl->gres));
		}
		node->ngres = nl->ngres;
		node->file = at->file;
		node->line = at->line;
	}
	nl->features = NULL;
}

int conf_node_line(struct conf_parser *p, const struct conf_where *at,
		   const struct conf_token *tok, size_t ntok)
{
	struct node_line nl = { 0 };
	size_t n;
	int rc;

	rc = conf_line_apply(p->err, at, node_keys, ARRAY_SIZE(node_keys), &nl, tok,
			ntok);
	if (rc)
		goto out;
	n = rota_hostlist_count(nl.names);
	if (nl.addrs && rota_hostlist_count(nl.addrs) != n) {
		rc = conf_errorf(p->err, -EINVAL, at, "Addr",
				  "%zu addresses for %zu nodes",
				  rota_hostlist_count(nl.addrs), n);
		goto out;
	}
	if (n > ROTA_HOSTLIST_MAX - p->impl->pub.nnodes) {
		rc = conf_errorf(p->err, -EINVAL, at, "NodeName",
				  "more than %d nodes in all",
				  ROTA_HOSTLIST_MAX);
		goto out;
	}
	if (!nl.features)
		nl.features = rota_xcalloc(1, sizeof(*nl.features));
	nodes_add(p, at, &nl);
out:
	node_line_clear(&nl);
	return rc;
}

static int node_cmp(const void *a, const void *b)
{
	const struct rota_conf_node *const *x = a;
	const struct rota_conf_node *const *y = b;
	int c = strcmp((*x)->name, (*y)->name);

	/* Ties in declaration order: the array is contiguous. */
	return c ? c : (*x > *y) - (*x < *y);
}

int conf_node_key_cmp(const void *key, const void *elem)
{
	const struct rota_conf_node *node =
		*(const struct rota_conf_node *const *)elem;

	return strcmp(key, node->name);
}

/* Sort nodes by name; a name declared twice is reported at its 2nd line. */
int conf_nodes_index(struct conf_parser *p)
{
	struct conf_impl *impl = p->impl;
	const struct rota_conf *conf = &impl->pub;
	const struct rota_conf_node *dup = NULL;
	const struct rota_conf_node *first = NULL;
	struct conf_where at;

	impl->node_order = rota_xreallocarray(NULL, conf->nnodes + 1,
					      sizeof(*impl->node_order));
	for (size_t i = 0; i < conf->nnodes; i++)
		impl->node_order[i] = &conf->nodes[i];
	qsort(impl->node_order, conf->nnodes, sizeof(*impl->node_order),
	      node_cmp);
	for (size_t i = 1; i < conf->nnodes; i++) {
		const struct rota_conf_node *a = impl->node_order[i - 1];
		const struct rota_conf_node *b = impl->node_order[i];

		if (strcmp(a->name, b->name) == 0 && (!dup || b < dup)) {
			dup = b;
			first = a;
		}
	}
	if (!dup)
		return 0;
	at = (struct conf_where){ dup->file, dup->line };
	return conf_errorf(p->err, -EINVAL, &at, "NodeName",
			    "'%s' already declared at %s:%u", dup->name,
			    first->file, first->line);
}

const struct rota_conf_node *rota_conf_node_find(const struct rota_conf *conf,
						 const char *name)
{
	const struct conf_impl *impl = (const struct conf_impl *)conf;
	const struct rota_conf_node *const *found;

	if (!impl->node_order)
		return NULL;
	found = bsearch(name, impl->node_order, conf->nnodes,
			sizeof(*impl->node_order), conf_node_key_cmp);
	return found ? *found : NULL;
}

/* Every Gres= name is "gpu" or one of GresTypes. */
int conf_nodes_gres_check(struct conf_parser *p)
{
	const struct rota_conf *conf = &p->impl->pub;

	for (size_t i = 0; i < conf->nnodes; i++) {
		const struct rota_conf_node *n = &conf->nodes[i];
		struct conf_where at = { n->file, n->line };

		for (size_t k = 0; k < n->ngres; k++) {
			const char *name = n->gres[k].name;
			bool known = !strcmp(name, "gpu");

			for (char **t = conf->gres_types; t && *t && !known; t++)
				known = !strcasecmp(*t, name);
			if (!known)
				return conf_errorf(p->err, -EINVAL, &at, "Gres",
						   "'%s' is not in GresTypes",
						   name);
		}
	}
	return 0;
}
