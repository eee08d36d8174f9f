// SPDX-License-Identifier: MIT
/* rota diag: the controller's counters, one "name value" per line. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/msg.h"
#include "common/proto.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota diag [--json]\n"
	"\n"
	"Print the controller's counters, one 'name value' per line:\n"
	"  uptime_s       seconds since rota-ctld started\n"
	"  requests       frames received\n"
	"  auth_refused   refused: missing, forged, expired, replayed or\n"
	"                 wrongly sealed munge credentials, or bad MACs\n"
	"  denied         authenticated, but not allowed that request\n"
	"  bad_frames     connections cut for a malformed or oversized frame\n"
	"  unknown_types  frames of a type the controller does not know\n"
	"  jobs_pending, jobs_running, jobs_ended, nodes_up\n"
	"  sched_passes, sched_last_us, sched_mean_us, sched_max_us,\n"
	"  sched_depth, sched_started   the main scheduling pass: how many,\n"
	"                 how long, how far down the queue, jobs started\n"
	"  bf_passes, bf_last_us, bf_mean_us, bf_max_us, bf_depth,\n"
	"  bf_reserved, bf_started      the same for backfill passes\n"
	"  sched_skipped, bf_skipped    passes not run: nothing had changed\n"
	"                 since one that started nothing (sched_passes\n"
	"                 counts them too)\n"
	"  rpc_<type>_count, rpc_<type>_mean_us, rpc_<type>_max_us\n"
	"                 each request type: how many, how long handled\n"
	"  journal_bytes  the journal since its last snapshot\n"
	"  request_ids    request ids remembered with their first answers\n"
	"  requests_repeated  retried requests given their first answer\n"
	"                 again instead of being done twice\n"
	"\n"
	"      --json   one JSON object of name: value (docs/json.md)\n";

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
		printf("%-14s %" PRId64 "\n", m.names[i], m.values[i]);
	rota_msg_counters_clear(&m);
	return 0;
}

const struct cmd cmd_diag = {
	.name = "diag",
	.summary = "the controller's counters",
	.help = help,
	.run = diag_run,
};
