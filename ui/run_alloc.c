// SPDX-License-Identifier: MIT
/*
 * The interactive job of `rota run` outside a job and of `rota alloc`
 * (srun's and salloc's habit): a job whose batch script only holds the
 * allocation until its client ends it, queued, waited for (saying why it
 * waits once a few seconds have passed), and ended COMPLETED by the
 * client's STEP_COMPLETE (or FAILED when the step failed), or cancelled
 * when the client is interrupted before it starts.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/msg.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "ui/cmd.h"
#include "ui/run_alloc.h"

extern char **environ;

/* Exits 0 on SIGTERM (the client's "done"), 1 on SIGUSR1 ("failed"). */
static const char holder[] =
	"#!/bin/sh\n"
	"# rota run / rota alloc: holds the allocation until its client\n"
	"# ends it\n"
	"trap 'exit 0' TERM\n"
	"trap 'exit 1' USR1\n"
	"while :; do sleep 3600 & wait $!; done\n";

static volatile sig_atomic_t interrupted;

static void on_int(int sig)
{
	interrupted = sig;
}

static int submit(const char *name, const struct alloc_req *a, uint32_t *id)
{
	char cwd[PATH_MAX];
	struct rota_job_desc d = {
		.name = (char *)a->name,
		.script = (char *)holder,
		.workdir = cwd,
		.output = (char *)"/dev/null",
		.queue = (char *)a->queue,
		.account = (char *)a->account,
		.constraint = (char *)a->constraint,
		.env = environ,
		.ntasks = a->ntasks,
		.cpus_per_task = a->cpus_per_task ? a->cpus_per_task : 1,
		.nodes = a->nodes,
		.mem_mb = a->mem_mb,
		.time_limit = a->time_limit,
		.ntasks_per_node = a->ntasks_per_node,
		.exclusive = a->exclusive,
	};
	struct rota_reply reply;
	struct rota_error err;
	size_t len;
	char *body;
	int rc;

	if (!getcwd(cwd, sizeof(cwd))) {
		cmd_error(name, "current directory: %s", strerror(errno));
		return -errno;
	}
	if (!d.ntasks)
		d.ntasks = d.ntasks_per_node ? d.ntasks_per_node *
						       (d.nodes ? d.nodes : 1)
					     : (d.nodes ? d.nodes : 1);
	body = rota_msg_submit_encode(&d, &len);
	rc = cmd_call(name, ROTA_MSG_SUBMIT, body, len, &reply);
	free(body);
	if (rc < 0)
		return rc;
	rc = rota_msg_submit_reply_decode(reply.body, reply.len, id, &err);
	rota_reply_clear(&reply);
	if (rc < 0)
		cmd_error(name, "bad reply: %s", err.text);
	return rc;
}

static void cancel(const char *name, uint32_t id)
{
	struct rota_msg_job_ids m = { .job_ids = &id, .n = 1 };
	struct rota_reply reply;
	size_t len;
	char *body = rota_msg_job_ids_encode(&m, &len);

	if (cmd_call(name, ROTA_MSG_CANCEL, body, len, &reply) == 0)
		rota_reply_clear(&reply);
	free(body);
}

int alloc_start(const char *name, const struct alloc_req *a, uint32_t *id)
{
	struct sigaction sa = { .sa_handler = on_int }, old_int, old_term,
			 old_hup;
	sigset_t ends;
	int64_t start = rota_clock_mono_ms(), wait_ms = 10;
	bool said = false;
	int rc;

	rc = submit(name, a, id);
	if (rc < 0)
		return rc;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	for (;;) {
		struct rota_msg_job_list list;
		enum rota_job_state state;
		char *reason;

		if (interrupted) {
			fprintf(stderr, "rota %s: job %u cancelled\n", name,
				*id);
			cancel(name, *id);
			rc = -EINTR;
			break;
		}
		if (cmd_fetch_jobs(name, *id, &list) < 0 || list.njobs != 1) {
			rc = -EIO;
			break;
		}
		state = list.jobs[0].state;
		reason = rota_xstrdup(list.jobs[0].reason ? list.jobs[0].reason
							  : "");
		rota_msg_job_list_clear(&list);
		if (state == ROTA_JOB_RUNNING) {
			free(reason);
			if (said || a->verbose)
				fprintf(stderr, "rota %s: job %u started\n",
					name, *id);
			rc = 0;
			break;
		}
		if (state != ROTA_JOB_PENDING) {
			cmd_error(name, "job %u %s before it started%s%s", *id,
				  rota_job_state_name(state),
				  *reason ? ": " : "", reason);
			free(reason);
			rc = -ECANCELED;
			break;
		}
		if (!said && rota_clock_mono_ms() - start >= 3000) {
			fprintf(stderr, "rota %s: job %u waiting: %s (rota why "
					"%u)\n",
				name, *id, *reason ? reason : "queued", *id);
			said = true;
		}
		free(reason);
		usleep((useconds_t)wait_ms * 1000);
		wait_ms = wait_ms * 2 > 250 ? 250 : wait_ms * 2;
	}
	/*
	 * Started: from here a Ctrl-C (or a closed terminal) must reach the
	 * caller's handling, which ends the job, not kill us with the job
	 * left holding its nodes: held pending until the caller takes them
	 * (rota run's loop, rota alloc's handlers).
	 */
	sigemptyset(&ends);
	sigaddset(&ends, SIGINT);
	sigaddset(&ends, SIGTERM);
	sigaddset(&ends, SIGHUP);
	if (rc == 0)
		sigprocmask(SIG_BLOCK, &ends, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	return rc;
}

/*
 * Until the job has ended (its holder script exits at once), so that the
 * next command of a script sees it ended; at most a few seconds.
 */
void alloc_wait_end(const char *name, uint32_t id)
{
	int64_t until = rota_clock_mono_ms() + 5000, wait_ms = 5;

	while (rota_clock_mono_ms() < until) {
		struct rota_msg_job_list list;
		bool running;

		if (cmd_fetch_jobs(name, id, &list) < 0)
			return;
		running = list.njobs == 1 &&
			  !rota_job_state_is_final(list.jobs[0].state);
		rota_msg_job_list_clear(&list);
		if (!running)
			return;
		usleep((useconds_t)wait_ms * 1000);
		wait_ms = wait_ms * 2 > 100 ? 100 : wait_ms * 2;
	}
}

void alloc_end(const char *name, uint32_t id, bool failed)
{
	struct rota_msg_step_complete m = {
		.job_id = id,
		.step_id = ROTA_STEP_NONE,
		.exit_code = failed,
		.failed_rank = -1,
		.end_job = true,
	};
	struct rota_reply reply;
	size_t len;
	char *body = rota_msg_step_complete_encode(&m, &len);

	if (cmd_call(name, ROTA_MSG_STEP_COMPLETE, body, len, &reply) == 0)
		rota_reply_clear(&reply);
	free(body);
	alloc_wait_end(name, id);
}
