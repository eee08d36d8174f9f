// SPDX-License-Identifier: MIT
/*
 * rota sim, as the light rota knows it: its help, and the program that
 * runs it (rota-sim, ui/sim_cli.c), so that only that program carries
 * the scheduling core and zlib.
 */
#include "config.h"

#include "ui/cmd.h"

static const char help[] =
	"usage: rota sim --trace FILE [--config FILE] [OPTIONS]\n"
	"       rota sim --trace FILE --compare A.conf B.conf ...\n"
	"\n"
	"Replay a workload trace in the Standard Workload Format (.swf, or\n"
	".swf.gz) through the scheduling core and policy plugins of\n"
	"rota-ctld on a virtual clock, and print what the queue would have\n"
	"looked like: utilization, mean, median and 95th percentile wait,\n"
	"mean bounded slowdown (10 s threshold), makespan, jobs started by\n"
	"backfill, and each account's and user's share of the trace's\n"
	"core-seconds against its normalized share.\n"
	"\n"
	"Each job is submitted at its submit time asking its requested\n"
	"processors (its allocated ones where the request is -1), one core\n"
	"each, with its requested time as the limit, and runs for its\n"
	"recorded run time, cut at the limit (TIMEOUT).  Trace user N and\n"
	"group G become user uN in account gG: an AccountName line per group\n"
	"and a UserName line per user and group are added to the config\n"
	"unless it declares them.  Jobs wider than the machine, of run time\n"
	"0, cancelled before they started (status 5, run time 0 or -1), of\n"
	"unknown size or run time, or refused by the core are skipped and\n"
	"counted.  See docs/sim.md for what is modelled and what is not.\n"
	"\n"
	"  -t, --trace FILE         the trace (required)\n"
	"  -c, --config FILE        rota.conf: its NodeName, QueueName,\n"
	"                           accounts and Priority=, Fairshare=,\n"
	"                           Limits=, Sched= lines and PluginDir\n"
	"                           (default: none, the default policy)\n"
	"      --flat               the machine from the trace header: one\n"
	"                           node of MaxProcs cores\n"
	"      --nodes              MaxNodes nodes of MaxProcs/MaxNodes cores\n"
	"                           (with --flat or --nodes the config must\n"
	"                           not declare nodes)\n"
	"      --estimates WHICH    the limit: 'requested' time (default) or\n"
	"                           the 'actual' run time (perfect estimates)\n"
	"      --lenient            skip and count malformed trace lines\n"
	"                           (default: the first is an error)\n"
	"      --csv FILE           one line per job: id, submit, start, end,\n"
	"                           nodes, cores, wait, priority at start,\n"
	"                           backfilled, timeout (times in trace\n"
	"                           seconds; start -1: never started)\n"
	"      --svg FILE           utilization and queue length over time\n"
	"      --compare            run every config named after the options\n"
	"                           on the same trace; one table side by side\n"
	"      --every-pass         visit every periodic tick, also while the\n"
	"                           machine is idle, and run every pass, also\n"
	"                           when nothing changed (slower; the same\n"
	"                           results)\n"
	"  -q, --quiet              no progress bar (shown only when stderr\n"
	"                           is a terminal)\n"
	"\n"
	"The same trace and config always print the same bytes.  Exit 0, 1\n"
	"when the trace or a config cannot be read or is refused, 2 for a\n"
	"usage error.\n";

const struct cmd cmd_sim = {
	.name = "sim",
	.summary = "replay a workload trace through the scheduler (offline)",
	.help = help,
	.run = cmd_run_helper,
};
