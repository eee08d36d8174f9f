// SPDX-License-Identifier: MIT
/*
 * rota-rsh: the rsh that mpirun and mpiexec call inside a Rota job to
 * start their daemons on the job's other nodes (Grid Engine's
 * `qrsh -inherit`, PBS's pbs_tmrsh): "rota-rsh [-l USER] [-n] HOST CMD
 * [ARGS...]" runs CMD through the shell on HOST as a one-task job step
 * overlapping the others (rota run --overlap): confined to the job's
 * cores and cgroup there, accounted, killed with the job; no ssh.  The
 * launch is checked like every step's: only the job's owner, only the
 * job's nodes.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/strbuf.h"
#include "common/xalloc.h"

static const char usage[] =
	"usage: rota-rsh [-l USER] [-n] HOST COMMAND [ARGS...]\n"
	"  inside a Rota job: run COMMAND on HOST, one of the job's nodes,\n"
	"  as a job step (for mpirun's plm_rsh_agent, mpiexec's\n"
	"  -launcher-exec; see docs/mpi.md)\n";

/* rsh -n: the remote command reads /dev/null, not our stdin. */
static void stdin_null(void)
{
	int null = open("/dev/null", O_RDONLY);

	if (null > STDIN_FILENO) {
		dup2(null, STDIN_FILENO);
		close(null);
	}
}

int main(int argc, char **argv)
{
	struct rota_strbuf cmd = { 0 };
	char *rota, *nodelist, self[4096];
	ssize_t n;
	int i = 1;

	/* rsh's options: -l is the job owner anyway; -n: no stdin */
	while (i < argc && argv[i][0] == '-') {
		if (strcmp(argv[i], "-l") == 0 && i + 1 < argc)
			i += 2;
		else if (strcmp(argv[i], "-n") == 0) {
			stdin_null();
			i++;
		} else if (strcmp(argv[i], "-x") == 0 ||
			 strcmp(argv[i], "-T") == 0)
			i++;
		else if (strcmp(argv[i], "-h") == 0 ||
			 strcmp(argv[i], "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		} else
			break;
	}
	if (argc - i < 2) {
		fputs(usage, stderr);
		return 2;
	}
	if (!getenv("ROTA_JOB_ID")) {
		fprintf(stderr, "rota-rsh: not inside a Rota job (no "
				"ROTA_JOB_ID)\n");
		return 255;
	}
	/* rsh hands the words to the remote shell joined by spaces */
	for (int k = i + 1; k < argc; k++) {
		if (k > i + 1)
			rota_strbuf_add(&cmd, " ", 1);
		rota_strbuf_adds(&cmd, argv[k]);
	}
	nodelist = rota_xasprintf("--nodelist=%s", argv[i]);
	/* the rota installed beside us first: the one of this Rota */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	if (strrchr(self, '/'))
		*strrchr(self, '/') = '\0';
	rota = rota_xasprintf("%s/rota", self);
	{
		char *args[] = { "rota", "run", "--overlap", "--quiet",
				 "--mpi=none", "-n", "1", nodelist, "--",
				 "/bin/sh", "-c", cmd.data ? cmd.data : "",
				 NULL };

		execv(rota, args);
		/* not installed there: the one on PATH */
		execvp("rota", args);
	}
	perror("rota-rsh: exec rota");
	return 255;
}
