// SPDX-License-Identifier: MIT
/*
 * DIAG: the controller's counters for rota diag (Slurm's sdiag): requests
 * and refusals, jobs and nodes, the main scheduling pass and backfill
 * (passes, last and mean and max time, depth reached, jobs started), and
 * for every request type its count and mean and max handling time,
 * connections and their refusals before authentication.
 * Counters go by name ([a-z_]+), so new ones need no protocol change.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/msg.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "ctld/admit.h"
#include "ctld/core/core.h"
#include "ctld/ctld.h"
#include "ctld/step.h"
#include "ctld/idem.h"
#include "ctld/journal.h"

#define DIAG_MAX (48 + 3 * CTLD_RPC_MAX)

struct diag {
	char *names[DIAG_MAX];
	int64_t values[DIAG_MAX];
	size_t n;
};

static void add(struct diag *d, const char *name, int64_t v)
{
	if (d->n == DIAG_MAX)
		return;
	d->names[d->n] = rota_xstrdup(name);
	d->values[d->n++] = v;
}

static int64_t mean(uint64_t total, uint64_t n)
{
	return n ? (int64_t)(total / n) : 0;
}

static void add_sched(struct diag *d, const struct ctld *ctld)
{
	const struct ctld_stats *s = &ctld->stats;
	const struct core_sched_stats *c = core_sched_stats(ctld->core);

	add(d, "sched_passes", (int64_t)s->sched_passes);
	add(d, "sched_last_us", (int64_t)s->sched_last_us);
	add(d, "sched_mean_us", mean(s->sched_total_us, s->sched_passes));
	add(d, "sched_max_us", (int64_t)s->sched_max_us);
	add(d, "sched_depth", (int64_t)c->main_depth);
	add(d, "sched_visited", (int64_t)c->main_visited);
	add(d, "sched_started", (int64_t)c->main_started);
	add(d, "sched_skipped", (int64_t)c->main_skipped);
	add(d, "sched_deferred", (int64_t)s->sched_deferred);
	add(d, "limits_judged", (int64_t)c->limits_judged);
	add(d, "bf_passes", (int64_t)c->bf_passes);
	add(d, "bf_last_us", (int64_t)c->bf_last_us);
	add(d, "bf_mean_us", mean(c->bf_total_us, c->bf_passes));
	add(d, "bf_max_us", (int64_t)c->bf_max_us);
	add(d, "bf_depth", (int64_t)c->bf_depth);
	add(d, "bf_reserved", (int64_t)c->bf_reserved);
	add(d, "bf_started", (int64_t)c->bf_started);
	add(d, "bf_skipped", (int64_t)c->bf_skipped);
}

/* rpc_<type>_count, _mean_us and _max_us for every type seen. */
static void add_rpcs(struct diag *d, const struct ctld *ctld)
{
	for (size_t i = 0; i < ctld_rpc_types(); i++) {
		const struct ctld_rpc_stat *st = &ctld->stats.rpc[i];
		char type[48], name[80];
		size_t k;

		if (!st->count)
			continue;
		snprintf(type, sizeof(type), "%s",
			 rota_msg_type_name(ctld_rpc_type(i)));
		for (k = 0; type[k]; k++)
			type[k] = (char)tolower((unsigned char)type[k]);
		snprintf(name, sizeof(name), "rpc_%s_count", type);
		add(d, name, (int64_t)st->count);
		snprintf(name, sizeof(name), "rpc_%s_mean_us", type);
		add(d, name, mean(st->us_total, st->count));
		snprintf(name, sizeof(name), "rpc_%s_max_us", type);
		add(d, name, (int64_t)st->us_max);
	}
}

/* Connections: open, accepted, and turned away before authentication. */
static void add_conns(struct diag *d, const struct ctld *ctld)
{
	const struct ctld_stats *s = &ctld->stats;

	add(d, "conns_open", (int64_t)admit_open(ctld->admit));
	add(d, "conns_clients", (int64_t)admit_clients(ctld->admit));
	add(d, "conns_accepted", (int64_t)s->conns_accepted);
	add(d, "refused_max_conns", (int64_t)s->refused_max_conns);
	add(d, "refused_per_addr", (int64_t)s->refused_per_addr);
	add(d, "preauth_too_large", (int64_t)s->preauth_too_large);
	add(d, "preauth_timeouts", (int64_t)s->preauth_timeouts);
}

/* Job steps: running now, and launches the node daemons refused. */
static void add_steps(struct diag *d, const struct ctld *ctld)
{
	struct rota_step_info *steps;
	size_t n = steps_list(ctld, 0, &steps), running = 0;
	uint64_t refused = 0;

	for (size_t i = 0; i < n; i++)
		running += steps[i].state == ROTA_JOB_RUNNING;
	free(steps);
	for (size_t i = 0; i < core_node_count(ctld->core); i++)
		if (ctld->node_links[i])
			refused += ctld->node_links[i]->steps_refused;
	add(d, "steps_running", (int64_t)running);
	add(d, "steps_refused", (int64_t)refused);
}

void rpc_diag(struct peer *p, const struct rota_frame *f)
{
	struct ctld *ctld = p->ctld;
	const struct ctld_stats *s = &ctld->stats;
	struct diag d = { .n = 0 };
	struct core_counts c;
	size_t len;
	char *body;

	core_counts(ctld->core, &c);
	/* counters live in memory: they count from this start (sdiag's
	   "Data since") */
	add(&d, "started_at", s->started);
	add(&d, "uptime_s", ctld_now(ctld) - s->started);
	add(&d, "requests", (int64_t)s->requests);
	add(&d, "auth_refused", (int64_t)s->auth_refused);
	add(&d, "denied", (int64_t)s->denied);
	add(&d, "bad_frames", (int64_t)s->bad_frames);
	add(&d, "unknown_types", (int64_t)s->unknown_types);
	add_conns(&d, ctld);
	add(&d, "jobs_pending", (int64_t)c.pending);
	add(&d, "jobs_running", (int64_t)c.running);
	add(&d, "jobs_ended", (int64_t)c.ended);
	add(&d, "nodes_up", (int64_t)c.nodes_up);
	add_sched(&d, ctld);
	add(&d, "journal_bytes", (int64_t)journal_size(ctld->journal));
	add(&d, "request_ids", (int64_t)idem_count(ctld->idem));
	add(&d, "requests_repeated", (int64_t)s->requests_repeated);
	add_steps(&d, ctld);
	add_rpcs(&d, ctld);
	body = rota_msg_counters_encode(d.names, d.values, d.n, &len);
	peer_send(p, ROTA_MSG_DIAG_REPLY, body, len);
	free(body);
	for (size_t i = 0; i < d.n; i++)
		free(d.names[i]);
}
