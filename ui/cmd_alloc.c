// SPDX-License-Identifier: MIT
/*
 * rota alloc: an allocation and a shell on this host that uses it (Slurm's
 * salloc): rota run inside the shell starts steps in the job.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/msg.h"
#include "common/xalloc.h"
#include "ui/cmd.h"
#include "ui/run_alloc.h"

static const char help[] =
	"usage: rota alloc [OPTIONS] [COMMAND [ARGS...]]\n"
	"\n"
	"Queue a job, wait until it starts (saying why it waits after a few\n"
	"seconds; Ctrl-C meanwhile cancels it), then run COMMAND (default:\n"
	"your $SHELL) here, on the submitting host, with ROTA_JOB_ID,\n"
	"ROTA_NODELIST and ROTA_NTASKS set, so that rota run inside it\n"
	"starts job steps on the job's nodes, as Slurm's salloc does.  When\n"
	"COMMAND exits the job ends: COMPLETED, or FAILED if COMMAND failed.\n"
	"The job's own time limit, rota cancel and a node failure end it\n"
	"too; COMMAND then runs on without an allocation.\n"
	"\n"
	"Options (as rota submit's):\n"
	"  -n, --ntasks N          tasks (default: Slurm's arithmetic: nodes\n"
	"                          times --ntasks-per-node, or one per node)\n"
	"  -N, --nodes N           nodes\n"
	"  -c, --cpus-per-task N   cores per task\n"
	"      --ntasks-per-node K\n"
	"  -t, --time LIMIT        time limit (minutes, or [D-]H:M:S)\n"
	"  -p, --queue NAME  -A, --account NAME  -C, --constraint EXPR\n"
	"      --mem SIZE  -J, --job-name NAME  --exclusive\n"
	"  -v, --verbose           say when the job starts\n"
	"\n"
	"Example:\n"
	"  rota alloc -n 16 -t 1h        then: rota run -n 16 ./hello\n";

static const struct option longopts[] = {
	ALLOC_LONGOPTS
	{ 0 },
};

static void export_job(uint32_t id)
{
	struct rota_msg_job_list list;
	char buf[32];

	snprintf(buf, sizeof(buf), "%u", id);
	setenv("ROTA_JOB_ID", buf, 1);
	if (cmd_fetch_jobs("alloc", id, &list) < 0)
		return;
	if (list.njobs == 1) {
		setenv("ROTA_NODELIST", list.jobs[0].nodelist, 1);
		snprintf(buf, sizeof(buf), "%u", list.jobs[0].ntasks);
		setenv("ROTA_NTASKS", buf, 1);
	}
	rota_msg_job_list_clear(&list);
}

static volatile pid_t shell_pid;

static void pass_on(int sig)
{
	if (shell_pid > 0)
		kill(shell_pid, sig);
}

static int alloc_run(int argc, char **argv)
{
	struct alloc_req a = { .name = "alloc" };
	const char *shell = getenv("SHELL");
	char *sh_argv[] = { (char *)(shell && *shell ? shell : "/bin/sh"),
			    NULL };
	char **cmd = sh_argv;
	uint32_t id;
	int c, status = 0;
	pid_t pid;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+n:N:c:t:p:A:C:J:vh", longopts,
				NULL)) != -1) {
		if (c == 'h')
			return cmd_print_help(&cmd_alloc);
		if (c == '?' || c == ':') {
			cmd_error("alloc", "unknown option or missing value: "
					   "'%s'",
				  argv[optind - 1]);
			return 2;
		}
		if (alloc_option("alloc", c, optarg, &a, NULL) != 0)
			return 2;
	}
	if (optind < argc)
		cmd = argv + optind;
	if (getenv("ROTA_JOB_ID") && *getenv("ROTA_JOB_ID"))
		fprintf(stderr, "rota alloc: already in job %s: queueing "
				"another\n",
			getenv("ROTA_JOB_ID"));
	a.verbose = true;
	if (alloc_start("alloc", &a, &id) < 0)
		return 1;
	export_job(id);
	pid = fork();
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execvp(cmd[0], cmd);
		fprintf(stderr, "rota alloc: %s: %s\n", cmd[0],
			strerror(errno));
		_exit(127);
	}
	/*
	 * The shell takes Ctrl-C; we wait for it.  A closed terminal or a
	 * kill goes to the shell too, and we still end the job after it.
	 */
	shell_pid = pid;
	{
		struct sigaction sa = { .sa_handler = pass_on };
		sigset_t ends;

		sigemptyset(&sa.sa_mask);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		sigemptyset(&ends);
		sigaddset(&ends, SIGINT);
		sigaddset(&ends, SIGTERM);
		sigaddset(&ends, SIGHUP);
		sigprocmask(SIG_UNBLOCK, &ends, NULL);
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	alloc_end("alloc", id, pid < 0 || status != 0);
	fprintf(stderr, "rota alloc: job %u ended\n", id);
	if (pid < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status)
				 : 128 + WTERMSIG(status);
}

const struct cmd cmd_alloc = {
	.name = "alloc",
	.summary = "queue a job and run a shell that uses it (salloc)",
	.help = help,
	.run = alloc_run,
};
