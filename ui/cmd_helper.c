// SPDX-License-Identifier: MIT
/*
 * The heavy subcommands (rota top, rota sim) are programs of their own,
 * rota-top and rota-sim: every other command, run thousands of times
 * from job scripts and shell loops, then loads only libc, not curses,
 * zlib and the scheduling core (about a third of a submit's time on a
 * small machine).  They are found next to rota itself (the build tree,
 * where ui/rota-sim is a link to sim/rota-sim) or in the package's
 * libexec folder (an installed rota).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ui/cmd.h"

#ifndef ROTA_LIBEXECDIR
#define ROTA_LIBEXECDIR "/usr/local/libexec/rota"
#endif

/* dir/rota-<name> of the folder this program runs from, if it is there. */
static bool beside_self(const char *name, char *path, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return false;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return false;
	*slash = '\0';
	if ((size_t)snprintf(path, len, "%s/rota-%s", self, name) >= len)
		return false;
	return access(path, X_OK) == 0;
}

int cmd_run_helper(int argc, char **argv)
{
	char path[PATH_MAX];

	(void)argc;
	if (!beside_self(argv[0], path, sizeof(path)))
		snprintf(path, sizeof(path), "%s/rota-%s", ROTA_LIBEXECDIR,
			 argv[0]);
	execv(path, argv);
	cmd_error(argv[0], "cannot run %s: %s", path, strerror(errno));
	return 1;
}
