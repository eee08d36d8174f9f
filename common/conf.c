// SPDX-License-Identifier: MIT
/*
 * rota.conf: read the file and its Includes line by line into a fresh
 * struct rota_conf, then check what only the whole can tell (nodes declared
 * twice, queues naming unknown nodes).  Keys live in tables of
 * {name, setter, offset, min, max, default} as nginx's directives do: one
 * table for global keys, one per kind of line (NodeName, QueueName), and a
 * setter per value type.  Setters say only why a value is wrong; the caller
 * adds "file:line: Key: ".
 *
 * Every byte is hostile (the fuzzer feeds this file): lines, files, nesting,
 * node and queue counts are bounded before anything is allocated, and on
 * failure the half-built object is destroyed whole.  Node features and
 * queue node names are shared with the nodes, so the public object does not
 * grow with (nodes x features) or (queues x nodes) strings; struct conf_impl
 * wraps the public struct to own the shared pieces.
 *
 * The value setters live in conf_value.c, the account tree in
 * conf_account.c and plugin lines in conf_section.c (conf_internal.h).
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/conf_internal.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/units.h"
#include "common/xalloc.h"

#ifndef ROTA_PLUGINDIR
#define ROTA_PLUGINDIR "/usr/local/lib/rota"
#endif

#define GLOBAL(n, s, f, lo, hi, d)                                             \
	{                                                                      \
		.name = n, .set = s, .offset = offsetof(struct rota_conf, f),  \
		.min = lo, .max = hi, .def = d,                                \
	}

/* UsageDecay: "exponential" (continuous) or "halving" (periodic). */
static int set_decay(const struct conf_key *key, const char *value,
		     void *base, struct rota_error *err)
{
	enum rota_usage_decay *field = FIELD(base, key, enum rota_usage_decay);

	if (strcasecmp(value, "exponential") == 0)
		*field = ROTA_DECAY_EXPONENTIAL;
	else if (strcasecmp(value, "halving") == 0)
		*field = ROTA_DECAY_HALVING;
	else
		return rota_errorf(err, -EINVAL,
				   "'%.40s' is not exponential or halving",
				   value);
	return 0;
}

/* NodeLease: "auto" (-1, resolved by lease_check), "off" (0), a duration */
static int set_lease(const struct conf_key *key, const char *value,
		     void *base, struct rota_error *err)
{
	int64_t *field = FIELD(base, key, int64_t);

	if (strcasecmp(value, "auto") == 0)
		*field = -1;
	else if (strcasecmp(value, "off") == 0)
		*field = 0;
	else
		return conf_set_duration(key, value, base, err);
	return 0;
}

/* CgroupVersion: "auto", "v1" or "v2". */
static int set_cgroup_version(const struct conf_key *key, const char *value,
			      void *base, struct rota_error *err)
{
	enum rota_cgroup_version *field =
		FIELD(base, key, enum rota_cgroup_version);

	if (strcasecmp(value, "auto") == 0)
		*field = ROTA_CGROUP_AUTO;
	else if (strcasecmp(value, "v1") == 0)
		*field = ROTA_CGROUP_V1;
	else if (strcasecmp(value, "v2") == 0)
		*field = ROTA_CGROUP_V2;
	else
		return rota_errorf(err, -EINVAL,
				   "'%.40s' is not auto, v1 or v2", value);
	return 0;
}

static const struct conf_key global_keys[] = {
	GLOBAL("ClusterName", conf_set_name, cluster_name, 0, 0, "rota"),
	GLOBAL("CtldAddr", conf_set_string, ctld_addr, 0, 0, "127.0.0.1"),
	GLOBAL("CtldPort", conf_set_uint, ctld_port, 0, 65535, "6817"),
	GLOBAL("CtldUser", conf_set_name, ctld_user, 0, 0, "root"),
	GLOBAL("ClientRetry", conf_set_duration, client_retry, 0, 86400, "60s"),
	GLOBAL("NodedPort", conf_set_uint, noded_port, 0, 65535, "0"),
	GLOBAL("StateDir", conf_set_path, state_dir, 0, 0, "/var/spool/rota/ctld"),
	GLOBAL("SpoolDir", conf_set_path, spool_dir, 0, 0, "/var/spool/rota/noded"),
	GLOBAL("LogFile", conf_set_path, log_file, 0, 0, NULL),
	GLOBAL("LogLevel", conf_set_log_level, log_level, 0, 0, "info"),
	GLOBAL("HeartbeatInterval", conf_set_duration, heartbeat_interval, 1, 3600,
	       "30s"),
	GLOBAL("NodeTimeout", conf_set_duration, node_timeout, 1, 7 * 86400,
	       "300s"),
	GLOBAL("KillWait", conf_set_duration, kill_wait, 0, 3600, "30s"),
	GLOBAL("NodeLease", set_lease, node_lease, 1, 7 * 86400, "auto"),
	GLOBAL("MinJobAge", conf_set_duration, min_job_age, 0, 30 * 86400, "300s"),
	GLOBAL("SchedulerInterval", conf_set_duration, sched_interval, 1, 3600,
	       "60s"),
	GLOBAL("LargeMemory", conf_set_size_mb, largemem_mb, 1, INT64_C(1) << 40,
	       "256G"),
	GLOBAL("MaxMessageSize", conf_set_size_bytes, max_frame, 64 << 10, 1 << 30,
	       "16M"),
	GLOBAL("MaxConnections", conf_set_uint, max_connections, 1, 1000000,
	       "4096"),
	GLOBAL("MaxConnectionsPerAddr", conf_set_uint, max_connections_per_addr,
	       1, 1000000, "512"),
	GLOBAL("AuthTimeout", conf_set_duration, auth_timeout, 1, 300, "5s"),
	GLOBAL("Operators", conf_set_names, operators, 0, 0, NULL),
	GLOBAL("PluginDir", conf_set_path, plugin_dir, 0, 0, ROTA_PLUGINDIR),
	GLOBAL("SchedulerDepth", conf_set_uint, sched_depth, 1, 100000000,
	       "10000"),
	GLOBAL("SchedulerMaxTime", conf_set_duration, sched_max_time, 0, 60,
	       "2s"),
	GLOBAL("UsageHalfLife", conf_set_duration, usage_half_life, 1,
	       INT64_C(3650) * 86400, "7d"),
	GLOBAL("UsageDecay", set_decay, usage_decay, 0, 0, "exponential"),
	GLOBAL("UsageMemWeight", conf_set_double, usage_mem_weight, 0,
	       1000000, NULL),
	GLOBAL("PriorityCalcPeriod", conf_set_duration, priority_calc_period,
	       1, 86400, "5m"),
	GLOBAL("EnforceAccounts", conf_set_bool, enforce_accounts, 0, 0, NULL),
	GLOBAL("ConstrainRAMSpace", conf_set_bool, constrain_ram, 0, 0, "yes"),
	GLOBAL("MaxTasksPerJob", conf_set_uint, max_tasks_per_job, 0, 4194304,
	       "0"),
	GLOBAL("CgroupVersion", set_cgroup_version, cgroup_version, 0, 0,
	       "auto"),
};

/* A NodeName line before it is expanded into nodes. */
struct node_line {
	struct rota_hostlist *names;
	struct rota_hostlist *addrs;
	char **features;
	unsigned cpus;
	uint64_t memory_mb;
};

#define NODE(n, s, f, lo, hi)                                                  \
	{                                                                      \
		.name = n, .set = s, .offset = offsetof(struct node_line, f),  \
		.min = lo, .max = hi,                                          \
	}

static const struct conf_key node_keys[] = {
	NODE("NodeName", conf_set_hostlist, names, 0, 0),
	NODE("Addr", conf_set_hostlist, addrs, 0, 0),
	NODE("Features", conf_set_names, features, 0, 0),
	NODE("CPUs", conf_set_uint, cpus, 1, 65536),
	NODE("RealMemory", conf_set_size_mb, memory_mb, 1, INT64_C(1) << 40),
};

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
	QUEUE("QueueName", conf_set_name, name, 0, 0, NULL),
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

const struct conf_key *conf_key_find(const struct conf_key *table,
				       size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++) {
		if (strcasecmp(table[i].name, name) == 0)
			return &table[i];
	}
	return NULL;
}

void conf_keys_default(const struct conf_key *table, size_t n, void *base)
{
	struct rota_error err;

	for (size_t i = 0; i < n; i++) {
		if (table[i].def && table[i].set(&table[i], table[i].def, base,
						 &err))
			rota_fatal("conf: default of %s: %s", table[i].name,
				   err.text);
	}
}

/* ---- the parser ---------------------------------------------------------- */

struct conf_parser {
	struct conf_impl *impl;
	struct rota_error *err;
	struct conf_where seen[ARRAY_SIZE(global_keys)]; /* first setting */
	struct {
		dev_t dev;
		ino_t ino;
	} open[CONF_DEPTH_MAX + 1];	/* files being read, for cycles */
	size_t nopen;
	unsigned depth;			/* Include nesting */
	struct rota_hostlist **queue_nodes; /* per queue; NULL: all */
	size_t members;			/* names in all of them */
};

int conf_errorf(struct rota_error *err, int code, const struct conf_where *at,
		const char *key, const char *fmt, ...)
{
	struct rota_error reason;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason.text, sizeof(reason.text), fmt, ap);
	va_end(ap);
	if (key)
		return rota_errorf(err, code, "%s:%u: %s: %s", at->file,
				   at->line, key, reason.text);
	return rota_errorf(err, code, "%s:%u: %s", at->file, at->line,
			   reason.text);
}

static int key_set(struct rota_error *err, const struct conf_where *at,
		   const struct conf_key *key, const char *value, void *base)
{
	struct rota_error reason;
	int rc = key->set(key, value, base, &reason);

	if (rc)
		return conf_errorf(err, rc, at, key->name, "%s", reason.text);
	return 0;
}

_Static_assert(ARRAY_SIZE(node_keys) <= CONF_LINE_KEYS_MAX &&
		       ARRAY_SIZE(queue_keys) <= CONF_LINE_KEYS_MAX,
	       "conf_line_apply() tracks CONF_LINE_KEYS_MAX keys");

int conf_line_apply(struct rota_error *err, const struct conf_where *at,
		    const struct conf_key *table, size_t n, void *base,
		    const struct conf_token *tok, size_t ntok)
{
	bool seen[CONF_LINE_KEYS_MAX] = { false };

	assert(n <= CONF_LINE_KEYS_MAX);
	for (size_t i = 0; i < ntok; i++) {
		const struct conf_key *key = conf_key_find(table, n, tok[i].key);
		int rc;

		if (!key)
			return conf_errorf(err, -EINVAL, at, tok[i].key,
					    "unknown key on a %s line",
					    table[0].name);
		if (seen[key - table])
			return conf_errorf(err, -EINVAL, at, key->name,
					    "given twice on this line");
		seen[key - table] = true;
		rc = key_set(err, at, key, tok[i].value, base);
		if (rc)
			return rc;
	}
	return 0;
}

static int global_apply(struct conf_parser *p, const struct conf_where *at,
			const struct conf_token *tok, size_t ntok)
{
	for (size_t i = 0; i < ntok; i++) {
		const struct conf_key *key = conf_key_find(
			global_keys, ARRAY_SIZE(global_keys), tok[i].key);
		struct conf_where *seen;
		int rc;

		if (!key && (!strcasecmp(tok[i].key, "NodeName") ||
			     !strcasecmp(tok[i].key, "QueueName") ||
			     !strcasecmp(tok[i].key, "AccountName") ||
			     !strcasecmp(tok[i].key, "UserName") ||
			     !strcasecmp(tok[i].key, "QOSName") ||
			     conf_is_section(tok[i].key)))
			return conf_errorf(p->err, -EINVAL, at, tok[i].key,
					    "must start its line");
		if (!key)
			return conf_errorf(p->err, -EINVAL, at, tok[i].key,
					    "unknown key");
		seen = &p->seen[key - global_keys];
		if (seen->file)
			return conf_errorf(p->err, -EINVAL, at, key->name,
					    "given twice (first at %s:%u)",
					    seen->file, seen->line);
		rc = key_set(p->err, at, key, tok[i].value, &p->impl->pub);
		if (rc)
			return rc;
		*seen = *at;
	}
	return 0;
}

static void node_line_clear(struct node_line *nl)
{
	rota_hostlist_destroy(nl->names);
	rota_hostlist_destroy(nl->addrs);
	conf_list_free(nl->features);
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

		node->name = rota_xstrdup(rota_hostlist_nth(nl->names, i));
		node->addr = nl->addrs ? rota_xstrdup(rota_hostlist_nth(
						 nl->addrs, i))
				       : NULL;
		node->features = nl->features;
		node->cpus = nl->cpus;
		node->memory_mb = nl->memory_mb;
		node->file = at->file;
		node->line = at->line;
	}
	nl->features = NULL;
}

static int node_line(struct conf_parser *p, const struct conf_where *at,
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

static int queue_line(struct conf_parser *p, const struct conf_where *at,
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

/*
 * A value at *pp, quoted or not; NUL-terminates it in place and leaves *pp
 * past it.  'key' names it in messages.
 */
static int value_read(struct conf_parser *p, const struct conf_where *at,
		      const char *key, char **pp, char **value)
{
	char *s = *pp;
	char *end;

	if (*s == '"') {
		end = strchr(s + 1, '"');
		if (!end)
			return conf_errorf(p->err, -EINVAL, at, key,
					    "unterminated quote");
		*end++ = '\0';
		*value = s + 1;
	} else {
		*value = s;
		end = s + strcspn(s, " \t#\"");
		if (*end == '"')
			return conf_errorf(p->err, -EINVAL, at, key,
					    "stray quote in value");
	}
	if (*end && !strchr(" \t#", *end))
		return conf_errorf(p->err, -EINVAL, at, key,
				    "text after closing quote");
	if (*end == '#')
		*end = '\0';
	else if (*end)
		*end++ = '\0';
	if (!**value)
		return conf_errorf(p->err, -EINVAL, at, key, "empty value");
	*pp = end;
	return 0;
}

/* A key as written, cut at its end, for messages. */
static char *key_text(char *key)
{
	key[strcspn(key, "= \t#")] = '\0';
	return key;
}

/* Split "Key=Value Key="Value" # comment" into tokens. */
static int line_tokens(struct conf_parser *p, const struct conf_where *at,
		       char *line, struct conf_token *tok, size_t *ntok)
{
	static const char letters[] = "abcdefghijklmnopqrstuvwxyz"
				      "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	bool has_eq = strchr(line, '=') != NULL;
	char *s = line;
	int rc;

	for (*ntok = 0;; (*ntok)++) {
		struct conf_token *t = &tok[*ntok];

		s += strspn(s, " \t");
		if (!*s || *s == '#')
			return 0;
		if (*ntok == CONF_TOKENS_MAX)
			return conf_errorf(p->err, -EINVAL, at, NULL,
					    "more than %d keys on one line",
					    CONF_TOKENS_MAX);
		t->key = s;
		s += strspn(s, letters);
		if (*s == '=' && s == t->key)
			return conf_errorf(p->err, -EINVAL, at, NULL,
					    "missing key before '='");
		if (!has_eq)
			return conf_errorf(p->err, -EINVAL, at, NULL,
					    "line has no '='");
		if (*s && !strchr("= \t#", *s))
			return conf_errorf(p->err, -EINVAL, at, NULL,
					    "bad character in key '%.40s'",
					    key_text(t->key));
		if (*s != '=') {
			*s = '\0';
			return conf_errorf(p->err, -EINVAL, at, t->key,
					    "missing '='");
		}
		*s++ = '\0';
		rc = value_read(p, at, t->key, &s, &t->value);
		if (rc)
			return rc;
	}
}

static int conf_file(struct conf_parser *p, const char *path,
		     const struct conf_where *from);

/* "Include FILE", relative to the including file's folder. */
static int include_line(struct conf_parser *p, const struct conf_where *at,
			char *s)
{
	const char *slash = strrchr(at->file, '/');
	char *file;
	char *path;
	int rc;

	s += strspn(s, " \t");
	if (!*s || *s == '#')
		return conf_errorf(p->err, -EINVAL, at, "Include",
				    "missing file name");
	rc = value_read(p, at, "Include", &s, &file);
	if (rc)
		return rc;
	s += strspn(s, " \t");
	if (*s && *s != '#')
		return conf_errorf(p->err, -EINVAL, at, "Include",
				    "text after the file name");
	if (p->depth == CONF_DEPTH_MAX)
		return conf_errorf(p->err, -ELOOP, at, "Include",
				    "nested deeper than %d levels",
				    CONF_DEPTH_MAX);
	if (file[0] != '/' && slash)
		path = rota_xasprintf("%.*s%s", (int)(slash + 1 - at->file),
				      at->file, file);
	else
		path = rota_xstrdup(file);
	p->depth++;
	rc = conf_file(p, path, at);
	p->depth--;
	free(path);
	return rc;
}

static bool is_include(const char *s)
{
	/* strchr() also finds the NUL: "Include" alone is an Include line. */
	return strncasecmp(s, "Include", 7) == 0 && strchr(" \t#", s[7]);
}

static int line_parse(struct conf_parser *p, const struct conf_where *at,
		      char *line)
{
	struct conf_token tok[CONF_TOKENS_MAX];
	size_t ntok;
	char *s = line + strspn(line, " \t");
	int rc;

	if (is_include(s))
		return include_line(p, at, s + 7);
	rc = line_tokens(p, at, s, tok, &ntok);
	if (rc || ntok == 0)
		return rc;
	if (!strcasecmp(tok[0].key, "NodeName"))
		return node_line(p, at, tok, ntok);
	if (!strcasecmp(tok[0].key, "QueueName"))
		return queue_line(p, at, tok, ntok);
	if (!strcasecmp(tok[0].key, "AccountName"))
		return conf_account_line(p->impl, p->err, at, tok, ntok);
	if (!strcasecmp(tok[0].key, "UserName"))
		return conf_user_line(p->impl, p->err, at, tok, ntok);
	if (!strcasecmp(tok[0].key, "QOSName"))
		return conf_qos_line(p->impl, p->err, at, tok, ntok);
	if (conf_is_section(tok[0].key))
		return conf_section_line(p->impl, p->err, at, tok, ntok);
	return global_apply(p, at, tok, ntok);
}

/* Refuse what no text file holds: NUL, control bytes, overlong lines. */
static int line_check(struct conf_parser *p, const struct conf_where *at,
		      const char *s, size_t len)
{
	if (len > CONF_LINE_MAX)
		return conf_errorf(p->err, -EINVAL, at, NULL,
				    "line longer than %d bytes",
				    CONF_LINE_MAX);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\0')
			return conf_errorf(p->err, -EINVAL, at, NULL,
					    "NUL byte in line");
		if ((c < 0x20 && c != '\t' && !(c == '\r' && i + 1 == len)) ||
		    c == 0x7f)
			return conf_errorf(p->err, -EINVAL, at, NULL,
					    "control character 0x%02x in line",
					    c);
	}
	return 0;
}

static int conf_text(struct conf_parser *p, const char *name,
		     const char *text, size_t len)
{
	struct conf_where at = { name, 0 };
	char line[CONF_LINE_MAX + 1];
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - text - pos) : len - pos;
		int rc;

		at.line++;
		rc = line_check(p, &at, text + pos, n);
		if (rc)
			return rc;
		memcpy(line, text + pos, n);
		line[n && line[n - 1] == '\r' ? n - 1 : n] = '\0';
		rc = line_parse(p, &at, line);
		if (rc)
			return rc;
		pos += n + 1;
	}
	return 0;
}

/* Keep a copy of a file name for the nodes and queues it declares. */
static const char *file_name(struct conf_impl *impl, const char *path)
{
	impl->files = conf_grow(impl->files, &impl->file_slots, impl->nfiles + 1,
			   sizeof(*impl->files));
	impl->files[impl->nfiles] = rota_xstrdup(path);
	return impl->files[impl->nfiles++];
}

/* Read a whole regular file of at most CONF_FILE_MAX bytes. */
static int file_read(const char *path, char **text, size_t *len,
		     struct stat *st, struct rota_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	ssize_t n = 0;
	int rc = 0;
	int e = errno;

	*text = NULL;
	if (fd < 0)
		return rota_errorf(err, -e, "%s", strerror(e));
	if (fstat(fd, st) < 0)
		rc = -errno;
	if (rc)
		rota_errorf(err, rc, "%s", strerror(-rc));
	else if (!S_ISREG(st->st_mode))
		rc = rota_errorf(err, -EINVAL, "not a regular file");
	else if (st->st_size > CONF_FILE_MAX)
		rc = rota_errorf(err, -EFBIG, "larger than %d bytes",
				 CONF_FILE_MAX);
	if (rc)
		goto out;
	*text = rota_xmalloc((size_t)st->st_size + 1);
	for (*len = 0; *len < (size_t)st->st_size; *len += (size_t)n) {
		n = read(fd, *text + *len, (size_t)st->st_size - *len);
		if (n == 0)
			break;
		if (n < 0 && errno != EINTR) {
			e = errno;
			rc = rota_errorf(err, -e, "%s", strerror(e));
			break;
		}
		n = n < 0 ? 0 : n;
	}
out:
	close(fd);
	if (rc) {
		free(*text);
		*text = NULL;
	}
	return rc;
}

/* Read 'path', named from 'from' (an Include) or the top file (NULL). */
static int conf_file(struct conf_parser *p, const char *path,
		     const struct conf_where *from)
{
	const char *name = file_name(p->impl, path);
	struct rota_error reason;
	struct stat st;
	size_t len = 0;
	char *text;
	int rc = file_read(name, &text, &len, &st, &reason);

	if (rc && from)
		return conf_errorf(p->err, rc, from, "Include",
				    "cannot read '%s': %s", name, reason.text);
	if (rc)
		return rota_errorf(p->err, rc, "%s: %s", name, reason.text);
	for (size_t i = 0; i < p->nopen; i++) {
		if (p->open[i].dev == st.st_dev &&
		    p->open[i].ino == st.st_ino) {
			free(text);
			return conf_errorf(p->err, -ELOOP, from, "Include",
					    "cycle through '%s'", name);
		}
	}
	p->open[p->nopen].dev = st.st_dev;
	p->open[p->nopen++].ino = st.st_ino;
	rc = conf_text(p, name, text, len);
	p->nopen--;
	free(text);
	return rc;
}

/* ---- checks of the whole ------------------------------------------------- */

static int node_cmp(const void *a, const void *b)
{
	const struct rota_conf_node *const *x = a;
	const struct rota_conf_node *const *y = b;
	int c = strcmp((*x)->name, (*y)->name);

	/* Ties in declaration order: the array is contiguous. */
	return c ? c : (*x > *y) - (*x < *y);
}

static int node_key_cmp(const void *key, const void *elem)
{
	const struct rota_conf_node *node =
		*(const struct rota_conf_node *const *)elem;

	return strcmp(key, node->name);
}

/* Sort nodes by name; a name declared twice is reported at its 2nd line. */
static int nodes_index(struct conf_parser *p)
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

/* Point queue 'qi' at its nodes' names; 'mark' flags names already seen. */
static int queue_resolve(struct conf_parser *p, size_t qi, size_t *mark)
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
				sizeof(*impl->node_order), node_key_cmp);
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

static int timeouts_check(struct conf_parser *p)
{
	const struct rota_conf *conf = &p->impl->pub;
	const struct conf_key *hb = conf_key_find(
		global_keys, ARRAY_SIZE(global_keys), "HeartbeatInterval");
	const struct conf_key *nt = conf_key_find(
		global_keys, ARRAY_SIZE(global_keys), "NodeTimeout");
	const struct conf_where *at = &p->seen[nt - global_keys];
	char a[32];
	char b[32];

	if (conf->node_timeout > conf->heartbeat_interval)
		return 0;
	if (!at->file)
		at = &p->seen[hb - global_keys];
	conf_show_seconds(conf->node_timeout, a, sizeof(a));
	conf_show_seconds(conf->heartbeat_interval, b, sizeof(b));
	return conf_errorf(p->err, -EINVAL, at, "NodeTimeout",
			    "%s is not above HeartbeatInterval %s", a, b);
}

/*
 * A node's jobs die by the end of its lease, and the controller may start
 * them elsewhere NodeTimeout after it last renewed it: the lease and the
 * margin must fit in NodeTimeout, and outlast a heartbeat.
 */
static int lease_check(struct conf_parser *p)
{
	struct rota_conf *conf = &p->impl->pub;
	const struct conf_where *at = &p->seen[conf_key_find(
		global_keys, ARRAY_SIZE(global_keys), "NodeLease") - global_keys];
	const char *key = "NodeLease";
	int64_t margin = rota_conf_lease_margin(conf->node_timeout);
	char a[32], b[32];

	if (conf->node_lease < 0)
		conf->node_lease = conf->node_timeout - margin;
	if (conf->node_lease == 0)
		return 0;
	if (!at->file) { /* derived: NodeTimeout is what to change */
		key = "NodeTimeout";
		at = &p->seen[conf_key_find(global_keys,
					    ARRAY_SIZE(global_keys),
					    "NodeTimeout") - global_keys];
	}
	if (conf->node_lease + margin > conf->node_timeout) {
		conf_show_seconds(conf->node_lease, a, sizeof(a));
		conf_show_seconds(conf->node_timeout, b, sizeof(b));
		return conf_errorf(p->err, -EINVAL, at, key,
				   "a node lease of %s leaves less than %llds "
				   "of NodeTimeout %s for the kill and clock "
				   "drift", a, (long long)margin, b);
	}
	if (conf->node_lease > conf->heartbeat_interval)
		return 0;
	conf_show_seconds(conf->node_lease, a, sizeof(a));
	conf_show_seconds(conf->heartbeat_interval, b, sizeof(b));
	return conf_errorf(p->err, -EINVAL, at, key,
			   "a node lease of %s is not above HeartbeatInterval "
			   "%s (raise NodeTimeout, or set NodeLease=off)",
			   a, b);
}

static int conf_finish(struct conf_parser *p)
{
	size_t *mark;
	int rc = nodes_index(p);

	if (rc)
		return rc;
	mark = rota_xcalloc(p->impl->pub.nnodes + 1, sizeof(*mark));
	for (size_t i = 0; i < p->impl->pub.nqueues && !rc; i++)
		rc = queue_resolve(p, i, mark);
	free(mark);
	if (!rc)
		rc = conf_accounts_finish(p->impl, p->err);
	if (!rc)
		rc = timeouts_check(p);
	return rc ? rc : lease_check(p);
}

/* ---- the API ------------------------------------------------------------- */

typedef int (*conf_read_fn)(struct conf_parser *p, const void *arg);

struct conf_buffer {
	const char *name;
	const char *text;
	size_t len;
};

static int read_path(struct conf_parser *p, const void *arg)
{
	return conf_file(p, arg, NULL);
}

static int read_buffer(struct conf_parser *p, const void *arg)
{
	const struct conf_buffer *b = arg;
	const char *name = file_name(p->impl, b->name);
	struct stat st;

	/* A buffer copied from a real file must not Include that file. */
	if (stat(name, &st) == 0) {
		p->open[p->nopen].dev = st.st_dev;
		p->open[p->nopen++].ino = st.st_ino;
	}
	return conf_text(p, name, b->text, b->len);
}

/* Build a conf with defaults, let 'read' fill it, check the whole. */
static int conf_build(const char *path, conf_read_fn read_fn, const void *arg,
		      struct rota_conf **out, struct rota_error *err)
{
	struct conf_parser p = { .err = err };
	int rc;

	*out = NULL;
	rota_error_clear(err);
	p.impl = rota_xcalloc(1, sizeof(*p.impl));
	p.impl->pub.path = rota_xstrdup(path);
	conf_keys_default(global_keys, ARRAY_SIZE(global_keys), &p.impl->pub);
	p.impl->pub.operators = rota_xcalloc(1, sizeof(char *));
	rc = read_fn(&p, arg);
	if (!rc)
		rc = conf_finish(&p);
	for (size_t i = 0; i < p.impl->pub.nqueues; i++)
		rota_hostlist_destroy(p.queue_nodes[i]);
	free(p.queue_nodes);
	if (rc) {
		rota_conf_destroy(&p.impl->pub);
		return rc;
	}
	*out = &p.impl->pub;
	return 0;
}

int rota_conf_load(const char *path, struct rota_conf **out,
		   struct rota_error *err)
{
	return conf_build(path, read_path, path, out, err);
}

int rota_conf_load_buffer(const char *name, const char *text, size_t len,
			  struct rota_conf **out, struct rota_error *err)
{
	struct conf_buffer b = { name, text, len };

	return conf_build(name, read_buffer, &b, out, err);
}

void rota_conf_destroy(struct rota_conf *conf)
{
	struct conf_impl *impl = (struct conf_impl *)conf;

	if (!conf)
		return;
	free(conf->path);
	free(conf->cluster_name);
	free(conf->ctld_addr);
	free(conf->ctld_user);
	free(conf->state_dir);
	free(conf->spool_dir);
	free(conf->log_file);
	free(conf->log_level);
	free(conf->plugin_dir);
	conf_list_free(conf->operators);
	for (size_t i = 0; i < conf->nnodes; i++) {
		free(conf->nodes[i].name);
		free(conf->nodes[i].addr);
	}
	free(conf->nodes);
	for (size_t i = 0; i < conf->nqueues; i++) {
		free(conf->queues[i].name);
		free(conf->queues[i].nodes); /* names belong to the nodes */
		conf_list_free(conf->queues[i].allow_users);
		conf_list_free(conf->queues[i].allow_accounts);
	}
	free(conf->queues);
	for (size_t i = 0; i < impl->nfeatsets; i++)
		conf_list_free(impl->featsets[i]);
	conf_accounts_free(impl);
	conf_sections_free(impl);
	conf_qos_free(impl);
	free(impl->featsets);
	for (size_t i = 0; i < impl->nfiles; i++)
		free(impl->files[i]);
	free(impl->files);
	free(impl->node_order);
	free(impl);
}

const struct rota_conf_node *rota_conf_node_find(const struct rota_conf *conf,
						 const char *name)
{
	const struct conf_impl *impl = (const struct conf_impl *)conf;
	const struct rota_conf_node *const *found;

	if (!impl->node_order)
		return NULL;
	found = bsearch(name, impl->node_order, conf->nnodes,
			sizeof(*impl->node_order), node_key_cmp);
	return found ? *found : NULL;
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

bool rota_conf_is_operator(const struct rota_conf *conf, const char *user)
{
	if (!user)
		return false;
	if (strcmp(user, "root") == 0)
		return true;
	for (size_t i = 0; conf->operators[i]; i++) {
		if (strcmp(conf->operators[i], user) == 0)
			return true;
	}
	return false;
}

const char *rota_conf_default_path(void)
{
	const char *env = getenv("ROTA_CONF");

	return env && *env ? env : ROTA_SYSCONFDIR "/rota/rota.conf";
}
