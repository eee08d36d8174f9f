// SPDX-License-Identifier: MIT
/*
 * rota.conf: the global keys and the machinery of key tables, then one
 * reading built into a fresh struct rota_conf and checked as a whole.
 * Keys live in tables of {name, setter, offset, min, max, default} as
 * nginx's directives do: one table for global keys, one per kind of line
 * (NodeName, QueueName, ...), and a setter per value type.  Setters say
 * only why a value is wrong; the caller adds "file:line: Key: ".
 *
 * Every byte is hostile (the fuzzer feeds this parser): lines, files,
 * nesting, node and queue counts are bounded before anything is allocated,
 * and on failure the half-built object is destroyed whole.  Node features
 * and queue node names are shared with the nodes, so the public object
 * does not grow with (nodes x features) or (queues x nodes) strings;
 * struct conf_impl wraps the public struct to own the shared pieces.
 *
 * Files, Includes and lines are read in conf_read.c, NodeName lines in
 * conf_node.c, QueueName lines in conf_queue.c, the value setters in
 * conf_value.c, the account tree in conf_account.c and plugin lines in
 * conf_section.c (conf_internal.h).
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/conf_internal.h"
#include "common/hostlist.h"
#include "common/log.h"
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

/* UsageCharge: "allocated" or "measured". */
static int set_usage_charge(const struct conf_key *key, const char *value,
			    void *base, struct rota_error *err)
{
	enum rota_usage_charge *field =
		FIELD(base, key, enum rota_usage_charge);

	if (strcasecmp(value, "allocated") == 0)
		*field = ROTA_CHARGE_ALLOCATED;
	else if (strcasecmp(value, "measured") == 0)
		*field = ROTA_CHARGE_MEASURED;
	else
		return rota_errorf(err, -EINVAL,
				   "'%.40s' is not allocated or measured",
				   value);
	return 0;
}

/* One "name=number" of UsageWeights into 'w'. */
static int usage_weight_one(const char *item, struct rota_usage_weights *w,
			    struct rota_error *err)
{
	static const struct {
		const char *name;
		size_t off;
	} names[] = {
		{ "cpu", offsetof(struct rota_usage_weights, cpu) },
		{ "mem", offsetof(struct rota_usage_weights, mem) },
		{ "io", offsetof(struct rota_usage_weights, io) },
	};
	const char *eq = strchr(item, '=');
	char *end;
	double v;

	for (size_t i = 0; eq && i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i].name) != (size_t)(eq - item) ||
		    strncasecmp(item, names[i].name, (size_t)(eq - item)))
			continue;
		errno = 0;
		v = strtod(eq + 1, &end);
		if (end == eq + 1 || *end || errno || !(v >= 0) || v > 1e6)
			return rota_errorf(err, -EINVAL,
					   "'%.40s': a weight is a number "
					   "from 0 to 1000000", item);
		*(double *)((char *)w + names[i].off) = v;
		return 0;
	}
	return rota_errorf(err, -EINVAL, "'%.40s' is not cpu=, mem= or io=",
			   item);
}

/* UsageWeights: "cpu=1,mem=0,io=0"; a name left out weighs 0. */
static int set_usage_weights(const struct conf_key *key, const char *value,
			     void *base, struct rota_error *err)
{
	struct rota_usage_weights w = { 0 };
	char *copy = rota_xstrdup(value);
	char *save = NULL;
	int rc = 0;

	for (char *item = strtok_r(copy, ",", &save); item && !rc;
	     item = strtok_r(NULL, ",", &save))
		rc = usage_weight_one(item, &w, err);
	free(copy);
	if (rc == 0 && !(w.cpu + w.mem + w.io > 0))
		rc = rota_errorf(err, -EINVAL,
				 "'%.40s': the weights add up to 0", value);
	if (rc == 0)
		*FIELD(base, key, struct rota_usage_weights) = w;
	return rc;
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
	GLOBAL("GresTypes", conf_set_names, gres_types, 0, 0, NULL),
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
	GLOBAL("DeadlineUsers", conf_set_names, deadline_users, 0, 0, NULL),
	GLOBAL("PluginDir", conf_set_path, plugin_dir, 0, 0, ROTA_PLUGINDIR),
	GLOBAL("SchedulerDepth", conf_set_uint, sched_depth, 1, 100000000,
	       "10000"),
	GLOBAL("MaxArraySize", conf_set_uint, max_array_size, 1, 4000001,
	       "1001"),
	GLOBAL("SchedulerMaxTime", conf_set_duration, sched_max_time, 0, 60,
	       "2s"),
	GLOBAL("SchedulerQueueDepth", conf_set_uint, sched_queue_depth, 0,
	       100000000, "0"),
	GLOBAL("SchedulerMaxRPC", conf_set_uint, sched_max_rpc, 0, 1000000,
	       "0"),
	GLOBAL("SchedulerHoldNodes", conf_set_bool, sched_hold_nodes, 0, 0,
	       NULL),
	GLOBAL("UsageHalfLife", conf_set_duration, usage_half_life, 1,
	       INT64_C(3650) * 86400, "7d"),
	GLOBAL("UsageDecay", set_decay, usage_decay, 0, 0, "exponential"),
	GLOBAL("UsageMemWeight", conf_set_double, usage_mem_weight, 0,
	       1000000, NULL),
	GLOBAL("TRESBillingWeights", conf_set_billing, billing, 0, 0, NULL),
	GLOBAL("Licenses", conf_set_licenses, licenses, 0, 0, NULL),
	GLOBAL("UsageCharge", set_usage_charge, usage_charge, 0, 0,
	       "allocated"),
	GLOBAL("UsageWeights", set_usage_weights, usage_weights, 0, 0,
	       "cpu=1,mem=0,io=0"),
	GLOBAL("PriorityCalcPeriod", conf_set_duration, priority_calc_period,
	       1, 86400, "5m"),
	GLOBAL("EnforceAccounts", conf_set_bool, enforce_accounts, 0, 0, NULL),
	GLOBAL("ConstrainRAMSpace", conf_set_bool, constrain_ram, 0, 0, "yes"),
	GLOBAL("MaxTasksPerJob", conf_set_uint, max_tasks_per_job, 0, 4194304,
	       "0"),
	GLOBAL("CgroupVersion", set_cgroup_version, cgroup_version, 0, 0,
	       "auto"),
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

int conf_global_apply(struct conf_parser *p, const struct conf_where *at,
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
			     !strcasecmp(tok[i].key, "DepartmentName") ||
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

/* ---- checks of the whole ------------------------------------------------- */

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
	int rc = conf_nodes_index(p);

	if (!rc)
		rc = conf_nodes_gres_check(p);
	if (rc)
		return rc;
	mark = rota_xcalloc(p->impl->pub.nnodes + 1, sizeof(*mark));
	for (size_t i = 0; i < p->impl->pub.nqueues && !rc; i++)
		rc = conf_queue_resolve(p, i, mark);
	free(mark);
	if (!rc)
		rc = conf_accounts_finish(p->impl, p->err);
	if (!rc)
		rc = conf_depts_finish(p->impl, p->err);
	if (!rc && p->impl->pub.billing.set && p->impl->pub.usage_mem_weight)
		rc = rota_errorf(p->err, -EINVAL,
				 "UsageMemWeight and TRESBillingWeights: give "
				 "one of them (TRESBillingWeights' Mem=)");
	if (!rc)
		rc = timeouts_check(p);
	return rc ? rc : lease_check(p);
}

/* ---- the API ------------------------------------------------------------- */

typedef int (*conf_read_fn)(struct conf_parser *p, const void *arg);

/* Build a conf with defaults, let 'read' fill it, check the whole. */
static int conf_build(const char *path, conf_read_fn read_fn, const void *arg,
		      struct rota_conf **out, struct rota_error *err)
{
	struct conf_where seen[ARRAY_SIZE(global_keys)] = { { 0 } };
	struct conf_parser p = { .err = err, .seen = seen };
	int rc;

	*out = NULL;
	rota_error_clear(err);
	p.impl = rota_xcalloc(1, sizeof(*p.impl));
	p.impl->pub.path = rota_xstrdup(path);
	conf_keys_default(global_keys, ARRAY_SIZE(global_keys), &p.impl->pub);
	p.impl->pub.operators = rota_xcalloc(1, sizeof(char *));
	p.impl->pub.deadline_users = rota_xcalloc(1, sizeof(char *));
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
	return conf_build(path, conf_read_path, path, out, err);
}

int rota_conf_load_buffer(const char *name, const char *text, size_t len,
			  struct rota_conf **out, struct rota_error *err)
{
	struct conf_buffer b = { name, text, len };

	return conf_build(name, conf_read_buffer, &b, out, err);
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
	conf_list_free(conf->deadline_users);
	for (size_t i = 0; i < conf->nnodes; i++) {
		free(conf->nodes[i].name);
		free(conf->nodes[i].addr);
		free(conf->nodes[i].gres);
	}
	conf_list_free(conf->gres_types);
	free(conf->licenses);
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
	conf_depts_free(impl);
	free(impl->featsets);
	for (size_t i = 0; i < impl->nfiles; i++)
		free(impl->files[i]);
	free(impl->files);
	free(impl->node_order);
	free(impl);
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
