// SPDX-License-Identifier: MIT
/*
 * rota sim, as the light rota knows it: its name and summary, and the
 * program that runs it (rota-sim, sim/cli.c), so that only that program
 * carries the scheduling core and zlib.  The manual is that program's
 * too (rota-sim --help): the simulator's options and the text that
 * explains them live in one place, on the sim/ side of the arrows.
 */
#include "config.h"

#include "ui/cmd.h"

const struct cmd cmd_sim = {
	.name = "sim",
	.summary = "replay a workload trace through the scheduler (offline)",
	.help = NULL,
	.run = cmd_run_helper,
};
