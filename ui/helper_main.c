// SPDX-License-Identifier: MIT
/*
 * main() of rota-top (ui/cmd_helper.c): rota execs it with the
 * subcommand's own arguments, argv[0] being its name.  (rota-sim, the
 * other such program, is sim/'s and has a main() of its own, sim/cli.c.)
 */
#include "config.h"

#include "ui/cmd.h"

int main(int argc, char **argv)
{
	return ROTA_HELPER_RUN(argc, argv);
}
