// SPDX-License-Identifier: MIT
/*
 * The jobs of emulated nodes: each run is a timer.  It lasts the runtime
 * its script names on a line "#ROTA-EMU runtime=SECONDS [exit=CODE]"
 * (seconds may have a fraction), else $ROTA_EMU_RUNTIME from the job's
 * environment, else its time limit; past the time limit it ends TIMEOUT.
 * Its end is reported as a real node daemon reports one (JOB_END, sent
 * again at each registration until acknowledged), a cancel ends it at
 * once, and a lease that runs out ends it NODE_FAIL "LeaseExpired", as a
 * supervisor does.  Every start and end goes to the run log, from which
 * bench/scale checks that no run of a job ever overlaps another.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/evloop.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "noded/emu.h"

void emu_runlog(struct emu *emu, const char *what, uint32_t id, uint32_t run,
		const char *node)
{
	if (!emu->runlog)
		return;
	fprintf(emu->runlog, "%lld %s %u %u %s\n",
		(long long)(rota_evloop_now_ms(emu->loop) - emu->t0), what, id,
		run, node);
}

static struct ejob *find_job(struct enode *n, uint32_t id, uint32_t run)
{
	for (struct ejob *j = n->jobs; j; j = j->next) {
		if (j->id == id && j->run == run)
			return j;
	}
	return NULL;
}

static void send_end(struct enode *n, const struct ejob *j)
{
	size_t len;
	char *body = rota_msg_job_end_encode(&j->end, &len);

	emu_link_send(n, ROTA_MSG_JOB_END, body, len);
	free(body);
}

/* The run is over, as 'state' says: record it, log it, report it. */
static void job_over(struct ejob *j, enum rota_job_state state, int code,
		     int sig, const char *text)
{
	struct enode *n = j->node;

	if (j->ended)
		return;
	rota_timer_cancel(j->timer);
	j->timer = NULL;
	j->ended = true;
	j->end.state = state;
	j->end.exit_code = code;
	j->end.term_signal = sig;
	j->end.end_time = (int64_t)time(NULL);
	j->end.text = text ? rota_xstrdup(text) : NULL;
	n->emu->ended++;
	emu_runlog(n->emu, rota_job_state_name(state), j->id, j->run, n->name);
	rota_debug("%s: job %u: %s", n->name, j->id,
		   rota_job_state_name(state));
	send_end(n, j);
}

static void timer_cb(struct rota_evloop *loop, void *arg)
{
	struct ejob *j = arg;
	int code = j->end.exit_code;

	j->timer = NULL; /* a one-shot timer is gone once it fired */
	if (j->end.state == ROTA_JOB_TIMEOUT)
		job_over(j, ROTA_JOB_TIMEOUT, -1, SIGTERM, NULL);
	else
		job_over(j, code ? ROTA_JOB_FAILED : ROTA_JOB_COMPLETED, code,
			 0, NULL);
}

/* "#ROTA-EMU runtime=S [exit=N]" in the script, or ROTA_EMU_RUNTIME. */
static double job_runtime(const struct rota_msg_launch *m, int *code)
{
	const char *line = m->script ? strstr(m->script, "#ROTA-EMU ") : NULL;
	const char *p;
	double s = -1;

	*code = 0;
	if (line) {
		if ((p = strstr(line, "runtime=")) && p - line < 80)
			s = strtod(p + 8, NULL);
		if ((p = strstr(line, "exit=")) && p - line < 80)
			*code = atoi(p + 5);
	}
	for (char **e = m->env; s < 0 && *e; e++)
		if (strncmp(*e, "ROTA_EMU_RUNTIME=", 17) == 0)
			s = strtod(*e + 17, NULL);
	return s;
}

void emu_jobs_launch(struct enode *n, const struct rota_msg_launch *m)
{
	struct ejob *j;
	double runtime;
	int64_t ms;
	int code;

	if (find_job(n, m->job_id, m->run)) {
		rota_warn("%s: job %u: run %u already here, launch ignored",
			  n->name, m->job_id, m->run);
		return;
	}
	j = rota_xcalloc(1, sizeof(*j));
	j->id = m->job_id;
	j->run = m->run;
	j->node = n;
	j->time_limit = m->time_limit;
	j->next = n->jobs;
	n->jobs = j;
	j->end = (struct rota_msg_job_end){
		.job_id = m->job_id,
		.run = m->run,
		.start_time = (int64_t)time(NULL),
	};
	runtime = job_runtime(m, &code);
	j->end.exit_code = code;
	if (runtime < 0 || (m->time_limit && runtime > m->time_limit)) {
		/* runs until its time limit stops it (none: until cancelled) */
		j->end.state = ROTA_JOB_TIMEOUT;
		ms = m->time_limit ? m->time_limit * 1000 : -1;
	} else {
		ms = (int64_t)(runtime * 1000);
	}
	if (ms >= 0)
		j->timer = rota_evloop_add_timer(n->emu->loop, ms, false,
						 timer_cb, j);
	n->emu->started++;
	emu_runlog(n->emu, "start", j->id, j->run, n->name);
	rota_debug("%s: job %u: started (%lld ms)", n->name, j->id,
		   (long long)ms);
}

/* Signals whose default action leaves a process running. */
static bool is_harmless(int signo)
{
	return signo == 0 || signo == SIGCONT || signo == SIGSTOP ||
	       signo == SIGTSTP || signo == SIGCHLD || signo == SIGURG ||
	       signo == SIGWINCH;
}

void emu_jobs_signal(struct enode *n, const struct rota_msg_job_signal *m)
{
	struct ejob *j = find_job(n, m->job_id, m->run);

	if (!j || j->ended)
		return;
	if (m->cancel)
		job_over(j, ROTA_JOB_CANCELLED, -1, SIGTERM, NULL);
	else if (!is_harmless(m->signo))
		job_over(j, ROTA_JOB_FAILED, -1, m->signo, NULL);
}

static void job_free(struct ejob *j)
{
	rota_timer_cancel(j->timer);
	rota_msg_job_end_clear(&j->end);
	free(j);
}

void emu_jobs_acked(struct enode *n, uint32_t job_id, uint32_t run)
{
	for (struct ejob **p = &n->jobs; *p; p = &(*p)->next) {
		struct ejob *j = *p;

		if (j->id != job_id || j->run != run || !j->ended)
			continue;
		*p = j->next;
		job_free(j);
		return;
	}
}

void emu_jobs_resend_ends(struct enode *n)
{
	for (struct ejob *j = n->jobs; j; j = j->next) {
		if (j->ended)
			send_end(n, j);
	}
}

void emu_jobs_lease_lost(struct enode *n)
{
	unsigned k = 0;

	for (struct ejob *j = n->jobs; j; j = j->next) {
		if (j->ended)
			continue;
		job_over(j, ROTA_JOB_NODE_FAIL, -1, SIGKILL, "LeaseExpired");
		n->emu->killed++;
		k++;
	}
	if (k)
		rota_warn("%s: the lease has run out: %u jobs killed", n->name,
			  k);
}

void emu_jobs_fini(struct enode *n)
{
	while (n->jobs) {
		struct ejob *j = n->jobs;

		n->jobs = j->next;
		job_free(j);
	}
}
