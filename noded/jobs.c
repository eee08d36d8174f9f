// SPDX-License-Identifier: MIT
/*
 * The jobs of this node: start them (launch.c does the privileged part),
 * enforce the time limit (SIGTERM to the process group, KillWait grace,
 * then SIGKILL), cancel them the same way, reap them and report each end
 * until the controller acknowledges it.  When a job's script exits, what
 * is left of its process group is killed: a job's children do not outlive
 * it.
 */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "common/conf.h"
#include "common/evloop.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "noded/launch.h"
#include "noded/noded.h"

static struct njob *find_job(struct noded *nd, uint32_t id)
{
	for (struct njob *j = nd->jobs; j; j = j->next) {
		if (j->id == id)
			return j;
	}
	return NULL;
}

static void send_end(struct noded *nd, const struct njob *j)
{
	size_t len;
	char *body = rota_msg_job_end_encode(&j->end, &len);

	link_send(nd, ROTA_MSG_JOB_END, body, len);
	free(body);
}

/* Record how the job ended, and tell the controller. */
static void job_ended(struct noded *nd, struct njob *j,
		      enum rota_job_state state, int code, int sig,
		      const char *text)
{
	rota_timer_cancel(j->limit);
	j->limit = NULL;
	j->ended = true;
	j->pid = 0;
	j->end = (struct rota_msg_job_end){
		.job_id = j->id,
		.state = state,
		.exit_code = code,
		.term_signal = sig,
		.start_time = j->start_time,
		.end_time = (int64_t)time(NULL),
		.text = text ? rota_xstrdup(text) : NULL,
	};
	launch_cleanup(nd->conf->spool_dir, j->id);
	send_end(nd, j);
}

/* The environment: what the controller sent, plus the user's identity. */
static char **build_env(struct noded *nd, const struct rota_msg_launch *m)
{
	struct passwd *pw = getpwuid((uid_t)m->uid);
	size_t n = 0, i;
	char **env;

	while (m->env[n])
		n++;
	env = rota_xcalloc(n + 6, sizeof(char *));
	for (i = 0; i < n; i++)
		env[i] = m->env[i];
	env[i++] = rota_xasprintf("ROTA_NODENAME=%s", nd->name);
	if (pw) {
		env[i++] = rota_xasprintf("USER=%s", pw->pw_name);
		env[i++] = rota_xasprintf("LOGNAME=%s", pw->pw_name);
		env[i++] = rota_xasprintf("HOME=%s", pw->pw_dir);
		env[i++] = rota_xasprintf("SHELL=%s", pw->pw_shell);
	}
	env[i] = NULL;
	return env;
}

static void free_env(char **env, size_t keep)
{
	for (size_t i = keep; env[i]; i++)
		free(env[i]);
	free(env);
}

static void kill_cb(struct rota_evloop *loop, void *arg)
{
	struct njob *j = arg;

	j->limit = NULL;
	if (j->pid > 0) {
		rota_info("job %u: still there after KillWait, SIGKILL", j->id);
		killpg(j->pid, SIGKILL);
	}
}

/* SIGTERM the whole job now, SIGKILL after KillWait. */
static void terminate(struct noded *nd, struct njob *j)
{
	if (j->pid <= 0)
		return;
	killpg(j->pid, SIGCONT);
	killpg(j->pid, SIGTERM);
	rota_timer_cancel(j->limit);
	j->limit = rota_evloop_add_timer(nd->loop, nd->conf->kill_wait * 1000,
					 false, kill_cb, j);
}

static void limit_cb(struct rota_evloop *loop, void *arg)
{
	struct njob *j = arg;

	j->limit = NULL;
	rota_info("job %u: time limit reached", j->id);
	j->timed_out = true;
	terminate(j->nd, j);
}

void jobs_launch(struct noded *nd, const struct rota_msg_launch *m)
{
	struct njob *j;
	struct rota_error err;
	char **env;
	size_t nenv = 0;
	int rc;

	if (find_job(nd, m->job_id)) {
		rota_warn("job %u: already here, launch ignored", m->job_id);
		return;
	}
	j = rota_xcalloc(1, sizeof(*j));
	j->id = m->job_id;
	j->nd = nd;
	j->start_time = (int64_t)time(NULL);
	j->next = nd->jobs;
	nd->jobs = j;
	while (m->env[nenv])
		nenv++;
	env = build_env(nd, m);
	rc = launch_start(&(struct launch_spec){
				  .job_id = m->job_id,
				  .uid = (uid_t)m->uid,
				  .gid = (gid_t)m->gid,
				  .script = m->script,
				  .spool_dir = nd->conf->spool_dir,
				  .workdir = m->workdir,
				  .stdout_path = m->output,
				  .stderr_path = m->error,
				  .env = env,
				  .topo = nd->topo,
				  .cores = m->cores,
				  .ncores = m->ncores,
			  },
			  &j->pid, &err);
	free_env(env, nenv);
	if (rc < 0) {
		rota_warn("%s", err.text);
		job_ended(nd, j, ROTA_JOB_FAILED, -1, 0, err.text);
		return;
	}
	rota_info("job %u: running as pid %d for uid %u", j->id, (int)j->pid,
		  m->uid);
	if (m->time_limit > 0)
		j->limit = rota_evloop_add_timer(nd->loop,
						 m->time_limit * 1000, false,
						 limit_cb, j);
}

void jobs_signal(struct noded *nd, const struct rota_msg_job_signal *m)
{
	struct njob *j = find_job(nd, m->job_id);

	if (!j || j->ended) {
		rota_debug("job %u: signal for a job not running here",
			   m->job_id);
		return;
	}
	if (m->cancel) {
		rota_info("job %u: cancelled", j->id);
		j->cancelled = true;
		terminate(nd, j);
		return;
	}
	killpg(j->pid, m->signo);
}

static void job_free(struct njob *j)
{
	rota_timer_cancel(j->limit);
	rota_msg_job_end_clear(&j->end);
	free(j);
}

void jobs_acked(struct noded *nd, uint32_t job_id)
{
	for (struct njob **p = &nd->jobs; *p; p = &(*p)->next) {
		struct njob *j = *p;

		if (j->id == job_id && j->ended) {
			*p = j->next;
			job_free(j);
			return;
		}
	}
}

void jobs_resend_ends(struct noded *nd)
{
	for (struct njob *j = nd->jobs; j; j = j->next) {
		if (j->ended)
			send_end(nd, j);
	}
}

static void reaped(struct noded *nd, struct njob *j, int status)
{
	enum rota_job_state state;
	int code = -1, sig = 0;

	/* whatever the script left behind in its group goes with it */
	killpg(j->pid, SIGKILL);
	if (WIFEXITED(status))
		code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		sig = WTERMSIG(status);
	if (j->cancelled)
		state = ROTA_JOB_CANCELLED;
	else if (j->timed_out)
		state = ROTA_JOB_TIMEOUT;
	else if (code == 0)
		state = ROTA_JOB_COMPLETED;
	else
		state = ROTA_JOB_FAILED;
	rota_info("job %u: %s (exit %d, signal %d)", j->id,
		  rota_job_state_name(state), code, sig);
	job_ended(nd, j, state, code, sig, NULL);
}

void jobs_reap(struct noded *nd)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		struct njob *j;

		for (j = nd->jobs; j && j->pid != pid; j = j->next)
			;
		if (j)
			reaped(nd, j, status);
	}
}

void jobs_kill_all(struct noded *nd)
{
	for (struct njob *j = nd->jobs; j; j = j->next) {
		if (j->pid > 0)
			killpg(j->pid, SIGKILL);
	}
	while (nd->jobs) {
		struct njob *j = nd->jobs;

		nd->jobs = j->next;
		job_free(j);
	}
}
