// SPDX-License-Identifier: MIT
/*
 * QueueName lines, checked against the queues before them, then each
 * queue's Nodes= resolved to declared nodes once all files are read.
 *   QueueName=batch Nodes=n[001-128] Default=yes MaxTime=2d
 * Until then a queue's names wait in the parser (queue_nodes); a queue
 * without Nodes= has all nodes.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf_internal.h"
#include "common/hostlist.h"
#include "common/units.h"
#include "common/xalloc.h"

/* A QueueName line; 'nodes' NULL means all nodes. */
struct queue_line {
	char *name;
	struct rota_hostlist *nodes;
	bool is_default;
	int64_t default_time;
	int64_t max_time;
	unsigned priority_tier;
	int priority;
	bool charge;
	unsigned reserved_cores;
	char **allow_users;
	char **allow_accounts;
};

#define QUEUE(n, s, f, lo, hi, d)                                              \
	{                                                                      \
		.name = n, .set = s, .offset = offsetof(struct queue_line, f), \
		.min = lo, .max = hi, .def = d,                                \
	}

static const struct conf_key queue_keys[] = {
	QUEUE("QueueName", conf_set_queue_name, name, 0, 0, NULL),
	QUEUE("Nodes", conf_set_queue_nodes, nodes, 0, 0, NULL),
	QUEUE("Default", conf_set_bool, is_default, 0, 0, NULL),
	QUEUE("MaxTime", conf_set_time, max_time, 1, ROTA_DURATION_UNLIMITED,
	      "UNLIMITED"),
	QUEUE("DefaultTime", conf_set_time, default_time, 1,
	      ROTA_DURATION_UNLIMITED, NULL),
	QUEUE("PriorityTier", conf_set_uint, priority_tier, 0, 65535, NULL),
	QUEUE("Charge", conf_set_bool, charge, 0, 0, "yes"),
	QUEUE("Priority", conf_set_int, priority, -1000000000, 1000000000,
	      NULL),
	QUEUE("ReservedCores", conf_set_uint, reserved_cores, 0, 65536, NULL),
	QUEUE("AllowUsers", conf_set_names, allow_users, 0, 0, NULL),
	QUEUE("AllowAccounts", conf_set_names, allow_accounts, 0, 0, NULL),
};

_Static_assert(ARRAY_SIZE(queue_keys) <= CONF_LINE_KEYS_MAX,
	       "conf_line_apply() tracks CONF_LINE_KEYS_MAX keys");

static const struct rota_conf_queue *queue_default(const struct rota_conf *c)
{
	for (size_t i = 0; i < c->nqueues; i++) {
		if (c->queues[i].is_default)
			return &c->queues[i];
	}
	return NULL;
}

/* What a QueueName line may not say given the queues before it. */
static int queue_check(struct conf_parser *p, const struct conf_where *at,
		       const struct queue_line *ql)
{
	const struct rota_conf *conf = &p->impl->pub;
	const struct rota_conf_queue *q = rota_conf_queue_find(conf, ql->name);
	char dt[32];
	char mt[32];

	if (q)
		return conf_errorf(p->err, -EINVAL, at, "QueueName",
				    "'%s' already declared at %s:%u", q->name,
				    q->file, q->line);
	if (conf->nqueues == CONF_QUEUES_MAX)
		return conf_errorf(p->err, -EINVAL, at, "QueueName",
				    "more than %d queues", CONF_QUEUES_MAX);
	q = ql->is_default ? queue_default(conf) : NULL;
	if (q)
		return conf_errorf(
			p->err, -EINVAL, at, "Default",
			"queue '%s' at %s:%u is already the default", q->name,
			q->file, q->line);
	if (ql->default_time >= 0 && ql->default_time > ql->max_time) {
		rota_duration_format(ql->default_time, dt, sizeof(dt));
		rota_duration_format(ql->max_time, mt, sizeof(mt));
		return conf_errorf(p->err, -EINVAL, at, "DefaultTime",
				    "%s is above MaxTime %s", dt, mt);
	}
	if (ql->nodes && rota_hostlist_count(ql->nodes) >
				 CONF_MEMBERS_MAX - p->members)
		return conf_errorf(p->err, -EINVAL, at, "Nodes",
				    "more than %d queue nodes in all",
				    CONF_MEMBERS_MAX);
	return 0;
}

int conf_queue_line(struct conf_parser *p, const struct conf_where *at,
		    const struct conf_token *tok, size_t ntok)
{
	struct rota_conf *conf = &p->impl->pub;
	struct queue_line ql = { 0 };
	struct rota_conf_queue *q;
	size_t slots;
	int rc;

	conf_keys_default(queue_keys, ARRAY_SIZE(queue_keys), &ql);
	ql.default_time = -1; /* unset: no check against MaxTime */
	rc = conf_line_apply(p->err, at, queue_keys, ARRAY_SIZE(queue_keys), &ql, tok,
			ntok);
	if (!rc)
		rc = queue_check(p, at, &ql);
	if (ql.default_time < 0)
		ql.default_time = ROTA_DURATION_UNLIMITED;
	if (rc) {
		free(ql.name);
		rota_hostlist_destroy(ql.nodes);
		conf_list_free(ql.allow_users);
		conf_list_free(ql.allow_accounts);
		return rc;
	}
	slots = p->impl->queue_slots; /* queue_nodes grows in step */
	conf->queues = conf_grow(conf->queues, &p->impl->queue_slots,
			    conf->nqueues + 1, sizeof(*conf->queues));
	p->queue_nodes = conf_grow(p->queue_nodes, &slots, conf->nqueues + 1,
			      sizeof(*p->queue_nodes));
	p->queue_nodes[conf->nqueues] = ql.nodes;
	p->members += ql.nodes ? rota_hostlist_count(ql.nodes) : 0;
	q = &conf->queues[conf->nqueues++];
	*q = (struct rota_conf_queue){
		.name = ql.name,
		.is_default = ql.is_default,
		.default_time = ql.default_time,
		.max_time = ql.max_time,
		.priority_tier = ql.priority_tier,
		.charge = ql.charge,
		.priority = ql.priority,
		.reserved_cores = ql.reserved_cores,
		.allow_users = ql.allow_users,
		.allow_accounts = ql.allow_accounts,
		.file = at->file,
		.line = at->line,
	};
	return 0;
}

/* Point queue 'qi' at its nodes' names; 'mark' flags names already seen. */
int conf_queue_resolve(struct conf_parser *p, size_t qi, size_t *mark)
{
	struct conf_impl *impl = p->impl;
	struct rota_conf *conf = &impl->pub;
	struct rota_conf_queue *q = &conf->queues[qi];
	const struct rota_hostlist *hl = p->queue_nodes[qi];
	struct conf_where at = { q->file, q->line };
	size_t n = hl ? rota_hostlist_count(hl) : conf->nnodes;

	/* Nodes=ALL counts too: 4096 queues x 64K nodes is 2G of pointers. */
	if (!hl && n > CONF_MEMBERS_MAX - p->members)
		return conf_errorf(p->err, -EINVAL, &at, "Nodes",
				    "more than %d queue nodes in all",
				    CONF_MEMBERS_MAX);
	p->members += hl ? 0 : n;
	q->nodes = rota_xcalloc(n + 1, sizeof(*q->nodes));
	for (size_t i = 0; i < n; i++) {
		const char *name = hl ? rota_hostlist_nth(hl, i)
				      : conf->nodes[i].name;
		const struct rota_conf_node *const *found =
			bsearch(name, impl->node_order, conf->nnodes,
				sizeof(*impl->node_order), conf_node_key_cmp);
		size_t idx;

		if (!found)
			return conf_errorf(p->err, -EINVAL, &at, "Nodes",
					    "'%s' is not a declared node",
					    name);
		idx = (size_t)(*found - conf->nodes);
		if (mark[idx] == qi + 1)
			return conf_errorf(p->err, -EINVAL, &at, "Nodes",
					    "'%s' listed twice", name);
		mark[idx] = qi + 1;
		q->nodes[q->nnodes++] = (*found)->name;
	}
	return 0;
}

const struct rota_conf_queue *
rota_conf_queue_find(const struct rota_conf *conf, const char *name)
{
	for (size_t i = 0; i < conf->nqueues; i++) {
		if (strcmp(conf->queues[i].name, name) == 0)
			return &conf->queues[i];
	}
	return NULL;
}

const struct rota_conf_queue *
rota_conf_default_queue(const struct rota_conf *conf)
{
	const struct rota_conf_queue *q = queue_default(conf);

	return q ? q : (conf->nqueues ? &conf->queues[0] : NULL);
}
