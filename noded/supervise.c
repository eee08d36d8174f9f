// SPDX-License-Identifier: MIT
/*
 * Job supervisors (see supervise.h).  The supervisor is plain blocking
 * code: one job, one sigtimedwait loop.  It is the daemon's child, in a
 * session of its own: while the daemon lives it reaps the supervisor, and
 * once the daemon is gone init does, so no double fork is needed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/msg.h"
#include "common/xalloc.h"
#include "noded/lease.h"
#include "noded/supervise.h"
#include "noded/textfile.h"
#include "noded/topology.h"

struct sup {
	const struct supervise_spec *spec;
	pid_t job;
	int64_t start;		/* Unix seconds */
	bool cancelled;
	bool timed_out;
	struct cgroup_usage usage; /* read from its cgroup at its end */
	bool lease_lost;	/* killed: the node's lease ran out */
	struct cgroup_job *cg;	/* its cgroup; NULL: none */
	struct timespec kill_at; /* SIGKILL deadline once terminating */
	bool terminating;
};

static char *spool_file(const struct supervise_spec *s, const char *ext)
{
	return rota_xasprintf("%s/job%u.%u.%s", s->launch.spool_dir,
			      s->launch.job_id, s->run, ext);
}

/*
 * Write 'text' to '<spool>/job<id>.<run>.<ext>' whole: a temporary, then
 * rename.  No fsync: a .sup is worthless after a power loss (the job died
 * with the node), and for an .end the rename is what matters; ext4's
 * default data=ordered writes a file's data before the rename naming it is
 * committed.  It was two fsyncs per job that nothing needed.
 */
static int write_whole(const struct supervise_spec *s, const char *ext,
		       const char *text)
{
	char *path = spool_file(s, ext);
	char *tmp = rota_xasprintf("%s.tmp", path);
	int rc = textfile_write(tmp, O_CREAT | O_TRUNC, 0600, text);

	if (rc == 0 && rename(tmp, path) < 0)
		rc = -errno;
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	free(path);
	return rc;
}

static struct timespec mono_after(int64_t seconds)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += seconds;
	return t;
}

static bool passed(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > t->tv_sec ||
	       (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

static void terminate(struct sup *s)
{
	if (s->terminating)
		return;
	s->terminating = true;
	killpg(s->job, SIGCONT);
	killpg(s->job, SIGTERM);
	s->kill_at = mono_after(s->spec->kill_wait);
}

/*
 * The node's lease has run out: the controller may soon start this job
 * elsewhere, so it ends now, at once, without KillWait's grace.
 */
static void check_lease(struct sup *s)
{
	if (s->lease_lost || !s->spec->lease_path ||
	    !lease_expired(s->spec->lease_path))
		return;
	s->lease_lost = true;
	killpg(s->job, SIGKILL);
	/* and at once what left its process group, stuck script or not */
	cgroup_job_kill(s->cg);
}

/* Until the job is reaped: its status. */
static int watch(struct sup *s, const sigset_t *set)
{
	struct timespec limit_at = mono_after(s->spec->time_limit);
	siginfo_t si;
	int status;

	for (;;) {
		struct timespec wait = { .tv_sec = 1 };
		int sig = sigtimedwait(set, &si, &wait);

		if (sig == SIGCHLD && waitpid(s->job, &status, WNOHANG) == s->job)
			return status;
		if (sig == SUPERVISE_SIG_CANCEL) {
			s->cancelled = true;
			terminate(s);
		} else if (sig == SUPERVISE_SIG_SIGNAL &&
			   si.si_value.sival_int > 0 &&
			   si.si_value.sival_int < NSIG) {
			killpg(s->job, si.si_value.sival_int);
		}
		if (s->spec->time_limit > 0 && !s->terminating &&
		    passed(&limit_at)) {
			s->timed_out = true;
			terminate(s);
		}
		if (s->terminating && passed(&s->kill_at))
			killpg(s->job, SIGKILL);
		check_lease(s);
		/* a SIGCHLD may have been merged with another signal */
		if (waitpid(s->job, &status, WNOHANG) == s->job)
			return status;
	}
}

static void write_end(struct sup *s, int status)
{
	struct rota_msg_job_end end = {
		.job_id = s->spec->launch.job_id,
		.run = s->spec->run,
		.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1,
		.term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0,
		.start_time = s->start,
		.end_time = (int64_t)time(NULL),
		.cpu_usec = s->usage.cpu_usec,
		.mem_peak = s->usage.mem_peak,
	};
	size_t len;
	char *body, *sup;

	/* ending already (cancel, time limit): that is how it ended */
	if (s->cancelled)
		end.state = ROTA_JOB_CANCELLED;
	else if (s->timed_out)
		end.state = ROTA_JOB_TIMEOUT;
	else if (s->lease_lost) {
		/* the controller requeues it, unless --no-requeue */
		end.state = ROTA_JOB_NODE_FAIL;
		end.text = (char *)"LeaseExpired";
	} else if (s->usage.oom_killed) {
		/*
		 * Even if the script itself carried on: the OOM killer's
		 * SIGKILL as its signal (ExitCode 0:9), not a clean 0
		 */
		end.state = ROTA_JOB_OUT_OF_MEMORY;
		end.text = (char *)"OutOfMemory";
		if (!end.term_signal)
			end.term_signal = SIGKILL;
	} else if (end.exit_code == 0)
		end.state = ROTA_JOB_COMPLETED;
	else
		end.state = ROTA_JOB_FAILED;
	body = rota_msg_job_end_encode(&end, &len);
	write_whole(s->spec, "end", body);
	free(body);
	sup = spool_file(s->spec, "sup");
	unlink(sup);
	free(sup);
}

/*
 * The job's cgroup, which its first process joins before it drops
 * privileges (launch.c).  One that cannot be made stops the start: the job
 * was promised its limits, and its end must end all of it.
 */
static int join_cgroup(const struct supervise_spec *spec,
		       struct launch_spec *launch, struct cgroup_job **cg,
		       struct rota_error *err)
{
	struct cgroup_limits lim = { .mem_mb = spec->mem_mb,
				     .deny = spec->deny_devices };
	char text[sizeof(err->text)];
	char *cpus;
	int rc;

	if (!spec->cgroups)
		return 0;
	cpus = launch->ncores ? topology_host_cpulist(launch->topo,
						       launch->cores,
						       launch->ncores)
			      : NULL;
	lim.cpus = cpus;
	rc = cgroup_job_create(spec->cgroups, launch->job_id, spec->run,
			       (int)getpid(), &lim, cg, err);
	free(cpus);
	if (rc < 0) {
		snprintf(text, sizeof(text), "%s", err->text);
		return rota_errorf(err, -EIO, "job %u: cgroup: %s",
				   launch->job_id, text);
	}
	launch->cgroup_procs = cgroup_job_procs(*cg);
	return 0;
}

/* The supervisor itself; 'report' takes "0 <pid>" or "<errno> <text>". */
__attribute__((noreturn)) static void supervisor(
	const struct supervise_spec *spec, int report)
{
	struct sup s = { .spec = spec, .start = (int64_t)time(NULL) };
	struct launch_spec launch = spec->launch;
	struct rota_error err = { "" };
	char line[256], name[16];
	sigset_t set;
	int rc, status;

	setsid();
	/*
	 * Keep nothing of the daemon's: a socket held here would keep its
	 * link to the controller open after the daemon is gone.
	 */
	if (report != 3) {
		dup2(report, 3);
		report = 3;
	}
	close_range(4, ~0U, 0);
	snprintf(name, sizeof(name), "rotasup:%u", spec->launch.job_id);
	prctl(PR_SET_NAME, name, 0, 0, 0); /* for ps; cut at 15 characters */
	/* the daemon may die while we report: that is no reason to stop */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SUPERVISE_SIG_SIGNAL);
	sigaddset(&set, SUPERVISE_SIG_CANCEL);
	sigprocmask(SIG_SETMASK, &set, NULL);
	rc = join_cgroup(spec, &launch, &s.cg, &err);
	if (rc == 0)
		rc = launch_start(&launch, &s.job, &err);
	if (rc == 0) {
		snprintf(line, sizeof(line), "%d %lld %d %llu", (int)getpid(),
			 (long long)s.start, (int)s.job,
			 (unsigned long long)supervise_starttime(getpid()));
		rc = write_whole(spec, "sup", line);
		if (rc < 0)
			snprintf(err.text, sizeof(err.text),
				 "job %u: cannot write its .sup file",
				 spec->launch.job_id);
	}
	if (rc == 0)
		snprintf(line, sizeof(line), "0 %d", (int)getpid());
	else
		snprintf(line, sizeof(line), "%d %s", -rc, err.text);
	/*
	 * A daemon that is gone cannot read this; its successor finds the job
	 * by its .sup file.  A job that did not start leaves nothing.
	 */
	if (write(report, line, strlen(line)) < 0) {
		/* nobody to tell */
	}
	close(report);
	if (rc < 0) {
		if (s.job > 0)
			killpg(s.job, SIGKILL);
		cgroup_job_end(s.cg, NULL);
		_exit(1);
	}
	status = watch(&s, &set);
	killpg(s.job, SIGKILL); /* what the script left behind goes too */
	cgroup_job_end(s.cg, &s.usage); /* and what left its process group */
	write_end(&s, status);
	launch_cleanup(spec->launch.spool_dir, spec->launch.job_id);
	_exit(0);
}

int supervise_start(const struct supervise_spec *spec, pid_t *sup,
		    struct rota_error *err)
{
	char line[256];
	int fds[2];
	ssize_t n;
	pid_t child;

	*sup = 0;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return rota_errorf(err, -errno, "job %u: pipe: %s",
				   spec->launch.job_id, strerror(errno));
	child = fork();
	if (child == 0) {
		close(fds[0]);
		supervisor(spec, fds[1]);
	}
	close(fds[1]);
	if (child < 0) {
		close(fds[0]);
		return rota_errorf(err, -errno, "job %u: fork: %s",
				   spec->launch.job_id, strerror(errno));
	}
	n = read(fds[0], line, sizeof(line) - 1);
	close(fds[0]);
	if (n <= 0)
		return rota_errorf(err, -EIO, "job %u: its supervisor died",
				   spec->launch.job_id);
	line[n] = '\0';
	if (line[0] != '0') {
		int e = atoi(line);
		const char *text = strchr(line, ' ');

		return rota_errorf(err, e > 0 ? -e : -EIO, "%s",
				   text ? text + 1 : line);
	}
	*sup = (pid_t)atoi(line + 2);
	return 0;
}

uint64_t supervise_starttime(pid_t pid)
{
	char path[64], buf[1024];
	unsigned long long t = 0;
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* after the name in parentheses: state is field 3, starttime 22 */
	p = strrchr(buf, ')');
	/* a zombie is gone: nothing of it runs, whoever has yet to reap it */
	if (!p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X' ||
	    sscanf(p + 1, " %*c %*s %*s %*s %*s %*s %*s %*s %*s %*s "
			  "%*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
		   &t) != 1)
		return 0;
	return t;
}

bool supervise_alive(pid_t pid, uint64_t starttime)
{
	return pid > 0 && starttime && supervise_starttime(pid) == starttime;
}
