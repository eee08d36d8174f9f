// SPDX-License-Identifier: MIT
/*
 * The jobs of this node.  Each runs under its own supervisor (supervise.h),
 * which enforces its time limit and writes how it ended into SpoolDir; the
 * daemon watches SpoolDir (inotify) and reports each end to the controller
 * until it is acknowledged.  So jobs outlive the daemon, and a restarted
 * daemon finds them again from the files alone.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/evloop.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "noded/cgroup.h"
#include "noded/gpu_find.h"
#include "noded/noded.h"
#include "noded/supervise.h"
#include "noded/textfile.h"

static struct njob *find_job(struct noded *nd, uint32_t id, uint32_t run)
{
	for (struct njob *j = nd->jobs; j; j = j->next) {
		if (j->id == id && j->run == run)
			return j;
	}
	return NULL;
}

static struct njob *add_job(struct noded *nd, uint32_t id, uint32_t run)
{
	struct njob *j = rota_xcalloc(1, sizeof(*j));

	j->id = id;
	j->run = run;
	j->next = nd->jobs;
	nd->jobs = j;
	return j;
}

static void send_end(struct noded *nd, const struct njob *j)
{
	size_t len;
	char *body = rota_msg_job_end_encode(&j->end, &len);

	link_send(nd, ROTA_MSG_JOB_END, body, len);
	free(body);
}

static char *spool_path(struct noded *nd, uint32_t id, uint32_t run,
			const char *ext)
{
	return rota_xasprintf("%s/job%u.%u.%s", nd->spool, id, run, ext);
}

void jobs_report_usage(struct noded *nd)
{
	struct rota_msg_job_usage m = { 0 };
	/* a job takes at most 5 numbers of 20 digits: within a frame */
	size_t max = nd->conf->max_frame / 128;
	size_t n = 0, len;
	char *body;

	if (nd->conf->usage_charge != ROTA_CHARGE_MEASURED || !nd->cgroups)
		return;
	for (struct njob *j = nd->jobs; j; j = j->next)
		n++;
	if (!n)
		return;
	m.jobs = rota_xcalloc(n, sizeof(*m.jobs));
	for (struct njob *j = nd->jobs; j; j = j->next) {
		struct cgroup_sample s;

		/* an ended job's totals go with its end */
		if (j->ended || m.njobs == max ||
		    m.njobs == ROTA_MSG_JOB_USAGE_MAX ||
		    cgroup_job_sample(nd->cgroups, j->id, j->run, (int)j->sup,
				      &s) < 0)
			continue;
		m.jobs[m.njobs++] = (struct rota_job_sample){
			.job_id = j->id,
			.run = j->run,
			.cpu_usec = s.cpu_usec,
			.mem_bytes = s.mem_bytes,
			.io_bytes = s.io_bytes,
		};
	}
	if (m.njobs) {
		body = rota_msg_job_usage_encode(&m, &len);
		link_send(nd, ROTA_MSG_JOB_USAGE, body, len);
		free(body);
	}
	rota_msg_job_usage_clear(&m);
}

/* The supervisor of a run of job 'id' wrote its end: report it. */
static void end_arrived(struct noded *nd, uint32_t id, uint32_t run)
{
	char *path = spool_path(nd, id, run, "end");
	struct rota_error err;
	struct njob *j;
	size_t len;
	char *text = textfile_read(path, &len);

	free(path);
	if (!text)
		return;
	j = find_job(nd, id, run);
	if (!j)
		j = add_job(nd, id, run);
	if (j->ended) {
		free(text);
		return;
	}
	if (rota_msg_job_end_decode(text, len, &j->end, &err) < 0 ||
	    j->end.job_id != id || j->end.run != run) {
		rota_err("job %u: unreadable end file: %s", id, err.text);
		rota_msg_job_end_clear(&j->end);
		j->end = (struct rota_msg_job_end){
			.job_id = id, .run = run, .state = ROTA_JOB_FAILED,
			.exit_code = -1,
			.end_time = (int64_t)time(NULL),
			.text = rota_xstrdup("its end record was unreadable"),
		};
	}
	free(text);
	j->ended = true;
	rota_info("job %u: %s (exit %d, signal %d)", id,
		  rota_job_state_name(j->end.state), j->end.exit_code,
		  j->end.term_signal);
	send_end(nd, j);
}

/* "job<ID>.<RUN>.<ext>" */
static bool parse_name(const char *name, const char *ext, uint32_t *id,
		       uint32_t *run)
{
	unsigned long v, r;
	char *end, *end2;

	if (strncmp(name, "job", 3) != 0)
		return false;
	v = strtoul(name + 3, &end, 10);
	if (end == name + 3 || *end != '.' || v == 0 || v > UINT32_MAX)
		return false;
	r = strtoul(end + 1, &end2, 10);
	if (end2 == end + 1 || *end2 != '.' || strcmp(end2 + 1, ext) != 0 ||
	    r == 0 || r > UINT32_MAX)
		return false;
	*id = (uint32_t)v;
	*run = (uint32_t)r;
	return true;
}

static void inotify_cb(struct rota_evloop *loop, int fd, unsigned events,
		       void *arg)
{
	char buf[4096] __attribute__((aligned(8)));
	struct noded *nd = arg;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;
			uint32_t id, run;

			if (ev->len && parse_name(ev->name, "end", &id, &run))
				end_arrived(nd, id, run);
			p += sizeof(*ev) + ev->len;
		}
	}
}

/*
 * Its supervisor died without a word: end what is left of the job before
 * anyone hears it ended, or the controller would start it again beside
 * its remains, which no lease holds any more.  Its cgroup (named after
 * the supervisor) holds all of it; without cgroups, its process group.
 * Blocks while the cgroup empties (a few seconds at most), on this rare
 * path only.
 */
static void reap_vanished(struct noded *nd, uint32_t id, uint32_t run,
			  pid_t sup, pid_t job)
{
	unsigned left = 0;

	if (nd->cgroups)
		left = cgroup_job_reap(nd->cgroups, id, run, (int)sup);
	else if (job > 0 && killpg(job, SIGKILL) == 0)
		left = 1;
	if (left)
		rota_warn("job %u: killed what its vanished supervisor left "
			  "running", id);
}

/* The job's pid from its .sup file ("<sup> <start> <job> <sup start>"). */
static pid_t sup_job_pid(struct noded *nd, uint32_t id, uint32_t run)
{
	char *path = spool_path(nd, id, run, "sup");
	size_t len;
	char *text = textfile_read(path, &len);
	long pid = 0, job = 0;
	long long start = 0;

	if (text)
		sscanf(text, "%ld %lld %ld", &pid, &start, &job);
	free(text);
	free(path);
	return (pid_t)job;
}

/* A .sup file: the job runs on if its supervisor does. */
static void recover_running(struct noded *nd, uint32_t id, uint32_t run)
{
	char *path = spool_path(nd, id, run, "sup");
	char *end_path = spool_path(nd, id, run, "end");
	size_t len;
	char *text = textfile_read(path, &len);
	long pid = 0, job = 0;
	long long start = 0;
	unsigned long long st = 0;
	struct njob *j;

	if (text)
		sscanf(text, "%ld %lld %ld %llu", &pid, &start, &job, &st);
	free(text);
	if (supervise_alive((pid_t)pid, st)) {
		j = add_job(nd, id, run);
		j->sup = (pid_t)pid;
		j->sup_start = st;
		rota_info("job %u: still running under supervisor %ld", id,
			  pid);
	} else if (access(end_path, F_OK) != 0) {
		/* gone without a word: report it rather than lose it */
		reap_vanished(nd, id, run, (pid_t)pid, (pid_t)job);
		j = add_job(nd, id, run);
		j->ended = true;
		j->end = (struct rota_msg_job_end){
			.job_id = id, .run = run, .state = ROTA_JOB_FAILED,
			.exit_code = -1,
			.end_time = (int64_t)time(NULL),
			.text = rota_xstrdup("its supervisor vanished"),
		};
		unlink(path);
	}
	free(path);
	free(end_path);
}

static void recover(struct noded *nd)
{
	DIR *d = opendir(nd->spool);
	struct dirent *e;
	uint32_t id, run;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (parse_name(e->d_name, "sup", &id, &run))
			recover_running(nd, id, run);
	}
	rewinddir(d);
	while ((e = readdir(d))) {
		if (parse_name(e->d_name, "end", &id, &run))
			end_arrived(nd, id, run);
	}
	closedir(d);
}

/*
 * A supervisor that died without writing its end (killed by someone, out
 * of memory) would leave its job running forever in the controller's
 * eyes: look every few seconds, and report it.
 */
static void check_cb(struct rota_evloop *loop, void *arg)
{
	struct noded *nd = arg;

	for (struct njob *j = nd->jobs; j; j = j->next) {
		char *end_path;

		if (j->ended || supervise_alive(j->sup, j->sup_start))
			continue;
		end_path = spool_path(nd, j->id, j->run, "end");
		if (access(end_path, F_OK) == 0) {
			end_arrived(nd, j->id, j->run);
		} else {
			rota_err("job %u: its supervisor %d vanished", j->id,
				 (int)j->sup);
			reap_vanished(nd, j->id, j->run, j->sup,
				      sup_job_pid(nd, j->id, j->run));
			j->ended = true;
			j->end = (struct rota_msg_job_end){
				.job_id = j->id, .run = j->run,
				.state = ROTA_JOB_FAILED, .exit_code = -1,
				.end_time = (int64_t)time(NULL),
				.text = rota_xstrdup("its supervisor vanished"),
			};
			send_end(nd, j);
		}
		free(end_path);
	}
}

int jobs_start(struct noded *nd)
{
	nd->spool_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (nd->spool_fd < 0 ||
	    inotify_add_watch(nd->spool_fd, nd->spool,
			      IN_MOVED_TO) < 0)
		return -errno;
	nd->spool_watch = rota_evloop_add_fd(nd->loop, nd->spool_fd,
					     ROTA_EV_READ, inotify_cb, nd);
	/* after the watch: an end written meanwhile is seen either way */
	recover(nd);
	nd->check = rota_evloop_add_timer(nd->loop, 5000, true, check_cb, nd);
	return 0;
}

/* The environment: what the controller sent, plus the user's identity. */
static char **build_env(struct noded *nd, const struct rota_msg_launch *m)
{
	struct passwd *pw = getpwuid((uid_t)m->uid);
	size_t n = 0, i;
	char **env;

	while (m->env[n])
		n++;
	env = rota_xcalloc(n + 8, sizeof(char *));
	for (i = 0; i < n; i++)
		env[i] = m->env[i];
	env[i++] = rota_xasprintf("ROTA_NODENAME=%s", nd->name);
	/* where the job's own rota commands (rota run) find the controller */
	env[i++] = rota_xasprintf("ROTA_CTLD=%s:%u", nd->ctld_host,
				  nd->ctld_port);
	if (getenv("ROTA_MUNGE_SOCKET")) /* a private munged (tests) */
		env[i++] = rota_xasprintf("ROTA_MUNGE_SOCKET=%s",
					  getenv("ROTA_MUNGE_SOCKET"));
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

void jobs_launch(struct noded *nd, const struct rota_msg_launch *m)
{
	struct supervise_spec spec = { .run = m->run,
				       .time_limit = m->time_limit,
				       .kill_wait = nd->conf->kill_wait,
				       .mem_mb = m->mem_mb,
				       .cgroups = nd->cgroups,
				       .lease_path = nd->lease_path };
	gid_t *groups = NULL;
	struct rota_error err;
	struct njob *j;
	char **env, **deny;
	size_t nenv = 0;
	int rc;

	if (find_job(nd, m->job_id, m->run)) {
		rota_warn("job %u: run %u already here, launch ignored",
			  m->job_id, m->run);
		return;
	}
	while (m->env[nenv])
		nenv++;
	deny = gpus_deny_rules(topology_summary(nd->topo), m->gpus, m->ngpus);
	spec.deny_devices = deny;
	env = build_env(nd, m);
	j = add_job(nd, m->job_id, m->run);
	spec.launch = (struct launch_spec){
		.job_id = m->job_id,
		.uid = (uid_t)m->uid,
		.gid = (gid_t)m->gid,
		.script = m->script,
		.spool_dir = nd->spool,
		.workdir = m->workdir,
		.stdout_path = m->output,
		.stderr_path = m->error,
		.env = env,
		.topo = nd->topo,
		.cores = m->cores,
		.ncores = m->ncores,
	};
	/* here, where NSS is loaded once, not in every supervisor */
	if (geteuid() == 0 && launch_groups(&spec.launch, &groups,
					    &spec.launch.ngroups, &err) == 0)
		spec.launch.groups = groups;
	rc = supervise_start(&spec, &j->sup, &err);
	if (rc == 0)
		j->sup_start = supervise_starttime(j->sup);
	free(groups);
	gpus_deny_free(deny);
	free_env(env, nenv);
	if (rc < 0) {
		rota_warn("%s", err.text);
		j->ended = true;
		j->end = (struct rota_msg_job_end){
			.job_id = m->job_id, .run = m->run,
			.state = ROTA_JOB_FAILED,
			.exit_code = -1, .start_time = (int64_t)time(NULL),
			.end_time = (int64_t)time(NULL),
			.text = rota_xstrdup(err.text),
		};
		send_end(nd, j);
		return;
	}
	rota_info("job %u: running under supervisor %d for uid %u", j->id,
		  (int)j->sup, m->uid);
}

void jobs_signal(struct noded *nd, const struct rota_msg_job_signal *m)
{
	struct njob *j = find_job(nd, m->job_id, m->run);
	union sigval v = { .sival_int = m->signo };

	if (!j || j->ended || !supervise_alive(j->sup, j->sup_start)) {
		rota_debug("job %u: signal for a job not running here",
			   m->job_id);
		return;
	}
	if (m->cancel)
		rota_info("job %u: cancelled", j->id);
	sigqueue(j->sup, m->cancel ? SUPERVISE_SIG_CANCEL
				   : SUPERVISE_SIG_SIGNAL,
		 v);
}

static void job_free(struct njob *j)
{
	rota_msg_job_end_clear(&j->end);
	free(j);
}

void jobs_acked(struct noded *nd, uint32_t job_id, uint32_t run)
{
	for (struct njob **p = &nd->jobs; *p; p = &(*p)->next) {
		struct njob *j = *p;
		char *path;

		if (j->id != job_id || j->run != run || !j->ended)
			continue;
		path = spool_path(nd, job_id, run, "end");
		unlink(path); /* the controller has it on disk: done */
		free(path);
		*p = j->next;
		job_free(j);
		return;
	}
}

void jobs_resend_ends(struct noded *nd)
{
	for (struct njob *j = nd->jobs; j; j = j->next) {
		if (j->ended)
			send_end(nd, j);
	}
}

void jobs_reap(struct noded *nd)
{
	pid_t pid;

	/* supervisors: their jobs' ends come through their .end files */
	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
		steps_reaped(nd, pid);
}

void jobs_fini(struct noded *nd)
{
	rota_timer_cancel(nd->check);
	nd->check = NULL;
	rota_watch_remove(nd->spool_watch);
	if (nd->spool_fd > 0)
		close(nd->spool_fd);
	while (nd->jobs) {
		struct njob *j = nd->jobs;

		nd->jobs = j->next;
		job_free(j);
	}
}
