// SPDX-License-Identifier: MIT
/*
 * main() of rota-top and rota-sim (ui/cmd_helper.c): rota execs them with
 * the subcommand's own arguments, argv[0] being its name.
 */
#include "config.h"

#include "ui/cmd.h"

int main(int argc, char **argv)
{
	return ROTA_HELPER_RUN(argc, argv);
}
