// SPDX-License-Identifier: MIT
/* rota diag: the controller's counters, one "name value" per line. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/msg.h"
#include "common/proto.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota diag [--json]\n"
	"\n"
	"Print the controller's counters, one 'name value' per line:\n"
	"  started_at     when rota-ctld started (Unix time; the date\n"
	"                 follows): every counter counts from then, a restart\n"
	"                 sets them to zero\n"
	"  uptime_s       seconds since rota-ctld started\n"
	"  requests       frames received\n"
	"  auth_refused   refused: missing, forged, expired, replayed or\n"
	"                 wrongly sealed munge credentials, or bad MACs\n"
	"  denied         authenticated, but not allowed that request\n"
	"  bad_frames     connections cut for a malformed or oversized frame\n"
	"  unknown_types  frames of a type the controller does not know\n"
	"  conns_open     connections open now; conns_clients of them not\n"
	"                 from a node's address (MaxConnections counts those\n"
	"                 and, apart, the rest)\n"
	"  conns_accepted connections accepted\n"
	"  refused_max_conns  refused at accept: MaxConnections reached\n"
	"  refused_per_addr   refused at accept: MaxConnectionsPerAddr reached\n"
	"  preauth_too_large  cut: a frame without a credential larger than\n"
	"                 32 KiB before the connection authenticated\n"
	"  preauth_timeouts   cut: no whole credential within AuthTimeout\n"
	"  jobs_pending, jobs_running, jobs_ended, nodes_up\n"
	"  steps_running  job steps (rota run) running now\n"
	"  steps_refused  step launches the connected node daemons refused\n"
	"                 (a credential forged, replayed, for another node\n"
	"                 or another user's), as their heartbeats tell\n"
	"  sched_passes, sched_last_us, sched_mean_us, sched_max_us,\n"
	"  sched_depth, sched_started   the main scheduling pass: how many,\n"
	"                 how long, how far down the queue, jobs started\n"
	"  bf_passes, bf_last_us, bf_mean_us, bf_max_us, bf_depth,\n"
	"  bf_reserved, bf_started      the same for backfill passes\n"
	"  sched_visited  pending jobs the last main pass looked at: only\n"
	"                 those that could start (not held, waiting on a\n"
	"                 dependency or blocked by a limit)\n"
	"  sched_skipped, bf_skipped    passes not run: nothing had changed\n"
	"                 since one that started nothing (sched_passes\n"
	"                 counts them too)\n"
	"  sched_deferred passes put off to the end of a loop turn because\n"
	"                 SchedulerMaxRPC requests were waiting\n"
	"  limits_judged  pending jobs the limits judged before the last\n"
	"                 pass: those changed since the one before, or all\n"
	"                 not held when a holder reached or left a limit\n"
	"  rpc_<type>_count, rpc_<type>_mean_us, rpc_<type>_max_us\n"
	"                 each request type: how many, how long handled\n"
	"  journal_bytes  the journal since its last snapshot\n"
	"  request_ids    request ids remembered with their first answers\n"
	"  requests_repeated  retried requests given their first answer\n"
	"                 again instead of being done twice\n"
	"\n"
	"      --json   one JSON object of name: value (docs/json.md)\n";

/* "name value"; the start time also as a date, after the number. */
static void print_counter(const char *name, int64_t v)
{
	time_t t = (time_t)v;
	struct tm tm;
	char date[40];

	if (strcmp(name, "started_at") == 0 && gmtime_r(&t, &tm) &&
	    strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC", &tm)) {
		printf("%-14s %" PRId64 " (%s: counters since)\n", name, v,
		       date);
		return;
	}
	printf("%-14s %" PRId64 "\n", name, v);
}

static int diag_run(int argc, char **argv)
{
	struct rota_msg_counters m;
	struct rota_reply reply;
	struct rota_error err;
	bool json = argc == 2 && strcmp(argv[1], "--json") == 0;
	int rc;

	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 ||
			  strcmp(argv[1], "--help") == 0))
		return cmd_print_help(&cmd_diag);
	if (argc > 1 && !json) {
		cmd_error("diag", "unexpected argument '%s'", argv[1]);
		return 2;
	}
	if (cmd_call("diag", ROTA_MSG_DIAG, "{}", 2, &reply) < 0)
		return 1;
	rc = rota_msg_counters_decode(reply.body, reply.len, &m, &err);
	rota_reply_clear(&reply);
	if (rc < 0) {
		cmd_error("diag", "bad reply: %s", err.text);
		return 1;
	}
	/* names are [a-z_]+ (the codec checks): no escaping needed */
	for (size_t i = 0; json && i < m.n; i++)
		printf("%s\"%s\":%" PRId64, i ? "," : "{", m.names[i],
		       m.values[i]);
	if (json)
		printf(m.n ? "}\n" : "{}\n");
	for (size_t i = 0; !json && i < m.n; i++)
		print_counter(m.names[i], m.values[i]);
	rota_msg_counters_clear(&m);
	return 0;
}

const struct cmd cmd_diag = {
	.name = "diag",
	.summary = "the controller's counters",
	.help = help,
	.run = diag_run,
};
