// SPDX-License-Identifier: MIT
/*
 * The config a replay runs under (sim.h, sim_config_text): the site's
 * rota.conf as written, with lines appended for what the trace brings.
 *
 * - --flat / --nodes: NodeName lines from the header's MaxProcs and
 *   MaxNodes, and a default queue over them if the file has none; the
 *   file must then declare no nodes (they would be a second machine).
 * - Users and groups: each trace group becomes an account "g<N>" under
 *   the root, each (user, group) pair a "UserName=u<N> Account=g<N>" line,
 *   unless the file already declares them.  So Fair-Tree and the other
 *   fairshare plugins see the trace's real two-level tree (every account
 *   and user at Shares=1, i.e. equal shares: the trace records no
 *   shares), and a site that wants its own shares writes those lines.
 *
 * - --policy: Priority= and Sched= lines for the literature's algorithm.
 *
 * Appending rather than rewriting keeps every line of the site's file
 * where it was, so errors still name the site's file and line.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "sim/pairs.h"
#include "sim/sim.h"

/* 'prefix' and the decimal id; by hand, as every replayed job asks. */
static void id_name(char prefix, int64_t id, char *buf, size_t len)
{
	char digits[24];
	size_t n = 0, k = 0;
	uint64_t v = id < 0 ? 0 : (uint64_t)id;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (len < n + 2) {
		if (len)
			buf[0] = '\0';
		return;
	}
	buf[k++] = prefix;
	while (n)
		buf[k++] = digits[--n];
	buf[k] = '\0';
}

void sim_user_name(int64_t id, char *buf, size_t len)
{
	id_name('u', id, buf, len);
}

void sim_account_name(int64_t id, char *buf, size_t len)
{
	id_name('g', id, buf, len);
}

static int read_file(const char *path, char **text, size_t *len,
		     struct rota_error *err)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0;
	size_t cap = 0;
	size_t got;

	if (!f)
		return rota_errorf(err, -errno, "%s: %s", path,
				   strerror(errno));
	do {
		if (cap - n < 4096) {
			cap = cap ? 2 * cap : 8192;
			buf = rota_xrealloc(buf, cap + 1);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return rota_errorf(err, -EIO, "%s: read error", path);
	}
	fclose(f);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

static bool user_declared(const struct rota_conf *conf, const char *user,
			  const char *account)
{
	for (size_t i = 0; i < conf->nusers; i++)
		if (strcmp(conf->users[i].name, user) == 0 &&
		    strcmp(conf->users[i].account, account) == 0)
			return true;
	return false;
}

/* AccountName and UserName lines for the trace's groups and users. */
static void add_accounts(struct rota_strbuf *sb, const struct rota_conf *conf,
			 const struct swf_trace *t)
{
	/* (group, user) pairs, sorted and unique: accounts in order */
	struct sim_pairs pairs = { 0 };
	char user[32];
	char account[32];

	for (size_t i = 0; i < t->n; i++)
		sim_pairs_add(&pairs,
			      t->jobs[i].group < 0 ? 0 : t->jobs[i].group,
			      t->jobs[i].user < 0 ? 0 : t->jobs[i].user, 0);
	sim_pairs_sort(&pairs);
	rota_strbuf_addf(sb, "\n# rota sim: the trace's groups and users\n");
	for (size_t i = 0; i < pairs.n; i++) {
		const struct sim_pair *p = &pairs.v[i];

		sim_account_name(p->group, account, sizeof(account));
		sim_user_name(p->user, user, sizeof(user));
		if ((i == 0 || p->group != p[-1].group) &&
		    !rota_conf_account_find(conf, account))
			rota_strbuf_addf(sb, "AccountName=%s\n", account);
		if (!user_declared(conf, user, account))
			rota_strbuf_addf(sb, "UserName=%s Account=%s\n",
					    user, account);
	}
	sim_pairs_free(&pairs);
}

static int add_nodes(struct rota_strbuf *sb, const struct sim_options *opt,
		     const struct rota_conf *conf, const struct swf_trace *t,
		     struct rota_error *err)
{
	int64_t procs = t->max_procs;
	int64_t nodes = opt->cluster == SIM_CLUSTER_FLAT ? 1 : t->max_nodes;
	const char *flag = opt->cluster == SIM_CLUSTER_FLAT ? "--flat"
							    : "--nodes";

	if (conf->nnodes)
		return rota_errorf(err, -EINVAL,
				   "%s: %s:%u: the config declares nodes; "
				   "%s builds them from the trace",
				   flag, conf->nodes[0].file,
				   conf->nodes[0].line, flag);
	if (procs <= 0 || nodes <= 0)
		return rota_errorf(err, -EINVAL,
				   "%s: the trace's header has no %s", flag,
				   procs <= 0 ? "MaxProcs" : "MaxNodes");
	if (procs % nodes || nodes > 1 << 24)
		return rota_errorf(err, -EINVAL,
				   "%s: MaxProcs %lld is not a whole number "
				   "of cores on each of MaxNodes %lld nodes",
				   flag, (long long)procs, (long long)nodes);
	if (procs / nodes > ROTA_NODE_CPUS_MAX)
		return rota_errorf(err, -EINVAL,
				   "%s: MaxProcs %lld: more than %u cores on "
				   "one node%s", flag, (long long)procs,
				   ROTA_NODE_CPUS_MAX,
				   nodes == 1 ? "; --nodes spreads them over "
						"MaxNodes nodes"
					      : "");
	rota_strbuf_addf(sb, "\n# rota sim %s: from the trace's header\n",
			    flag);
	if (nodes == 1)
		rota_strbuf_addf(sb, "NodeName=sim1 CPUs=%lld\n",
				    (long long)procs);
	else
		rota_strbuf_addf(sb, "NodeName=sim[1-%lld] CPUs=%lld\n",
				    (long long)nodes,
				    (long long)(procs / nodes));
	if (!conf->nqueues)
		rota_strbuf_addf(sb,
				    "QueueName=sim Nodes=ALL Default=yes\n");
	return 0;
}

/*
 * --policy: the literature's algorithm as Priority= and Sched= lines, in
 * place of the config's own (which are then an error: two policies).
 * First come first served order; no caps, no window, 1 s resolution.
 */
static int add_policy(struct rota_strbuf *sb, const struct sim_options *opt,
		      const struct rota_conf *conf, struct rota_error *err)
{
	static const char *const sched[] = {
		[SIM_POLICY_FCFS] = "Sched=builtin",
		[SIM_POLICY_EASY] = "Sched=backfill Mode=easy",
		[SIM_POLICY_EASY_SJBF] = "Sched=backfill Mode=easy "
					 "Order=shortest",
		[SIM_POLICY_CONSERVATIVE] = "Sched=backfill Mode=conservative",
	};
	static const char *const kinds[] = { "Priority", "Sched" };

	for (size_t i = 0; i < 2; i++) {
		const struct rota_conf_section *s =
			rota_conf_section_find(conf, kinds[i]);

		if (s)
			return rota_errorf(err, -EINVAL,
					   "--policy: %s:%u: the config has a "
					   "%s= line; --policy sets it",
					   s->file, s->line, kinds[i]);
	}
	rota_strbuf_addf(sb, "\n# rota sim --policy: the literature's "
			     "algorithm\nPriority=fifo\n%s%s\n",
			 sched[opt->policy],
			 opt->policy == SIM_POLICY_FCFS
				 ? ""
				 : " NoCaps=yes Resolution=1s Interval=1s");
	return 0;
}

int sim_config_text(const struct sim_options *opt,
		    const struct swf_trace *trace, char **text,
		    struct rota_error *err)
{
	const char *name = opt->config ? opt->config : "(defaults)";
	struct rota_strbuf sb;
	struct rota_conf *conf = NULL;
	char *file = NULL;
	size_t len = 0;
	int rc = 0;

	*text = NULL;
	if (opt->config)
		rc = read_file(opt->config, &file, &len, err);
	if (rc == 0)
		rc = rota_conf_load_buffer(name, file ? file : "", len, &conf,
					   err);
	if (rc < 0) {
		free(file);
		return rc;
	}
	sb = (struct rota_strbuf){ 0 };
	if (file)
		rota_strbuf_add(&sb, file, len);
	if (opt->cluster != SIM_CLUSTER_CONFIG)
		rc = add_nodes(&sb, opt, conf, trace, err);
	if (rc == 0 && opt->policy != SIM_POLICY_CONFIG)
		rc = add_policy(&sb, opt, conf, err);
	if (rc == 0)
		add_accounts(&sb, conf, trace);
	rota_conf_destroy(conf);
	free(file);
	if (rc < 0) {
		rota_strbuf_fini(&sb);
		return rc;
	}
	*text = rota_strbuf_take(&sb, &len);
	return 0;
}
