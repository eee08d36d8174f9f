// SPDX-License-Identifier: MIT
/*
 * rota top, as the light rota knows it: its help, and the program that
 * runs it (rota-top, ui/top/), so that only that program loads curses.
 */
#include "config.h"

#include "ui/cmd.h"

static const char help[] =
	"usage: rota top [-d SECONDS] [--no-color]\n"
	"\n"
	"A live, full-screen view of the cluster, refreshed every second:\n"
	"\n"
	"  header     cores busy/total, GPUs busy/total (when any node has\n"
	"             GPUs), nodes up/down/drained, jobs running, idle,\n"
	"             blocked (by a limit) and held, the last scheduling\n"
	"             pass's time\n"
	"  nodes      a cell per node: name, state (U up, D down, X drained),\n"
	"             i for ib, L for largemem, k for cores kept for test\n"
	"             queues (K: some in use), cores used/total, then GPUs\n"
	"             used/total (g2/16) when any node has GPUs; one\n"
	"             summary line when the cells do not fit\n"
	"  jobs       JOBID USER ACCOUNT QUEUE ST PRIORITY CORES TIME/WAIT\n"
	"             NODES/REASON; unfinished jobs, highest priority first;\n"
	"             under a running job, an indented line per running\n"
	"             step (as 'rota queue --steps'): JOB.STEP and its\n"
	"             command, its tasks, how long it has run, its nodes\n"
	"  detail     the selected job; if running, how many steps it runs;\n"
	"             if pending, its priority terms (as\n"
	"             'rota prio -l') and why it waits\n"
	"\n"
	"Keys: Up/Down/PgUp/PgDn/Home/End select; s next sort key; P U Q W I\n"
	"sort by priority, user, queue, wait, id (again: reverse); / filter\n"
	"(user=NAME queue=Q state=PD|R|... and free text; steps follow their\n"
	"job); u only my jobs; t hide steps (again: show them);\n"
	"h hold, r release, n nice (asks for [+|-]N), c cancel (asks y/n)\n"
	"the selected job, within your rights; ? help; q quit.  Each action's\n"
	"result shows in the status line.\n"
	"\n"
	"  -d, --delay=SECONDS   refresh interval (default 1, at least 0.2)\n"
	"      --no-color        no colors (also when NO_COLOR is set)\n"
	"  -h, --help            this text\n"
	"\n"
	"The controller is asked by a helper process, so the screen never\n"
	"waits on the network; the terminal is restored on every exit.\n";

const struct cmd cmd_top = {
	.name = "top",
	.summary = "a live view of the queue and the nodes",
	.help = help,
	.run = cmd_run_helper,
};
