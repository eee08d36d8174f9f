// SPDX-License-Identifier: MIT
/*
 * Starting a batch script as its user: the one privileged step of rota-noded
 * (STYLE 13), after OpenSSH's uidswap.c.
 *
 * The parent writes the script into the spool directory and starts the
 * child the way posix_spawn() does: clone(CLONE_VM | CLONE_VFORK), the
 * child on a stack of its own in the parent's memory and the parent
 * suspended until it has exec'd, so that no page of the parent is copied
 * or faulted for a child that is about to exec (a fork of the supervisor
 * was half the cost of starting a short job).  The child leaves the
 * daemon's session and signal state, drops to the user
 * (gid, supplementary groups, uid, then checks root cannot be regained),
 * opens the output files as the user, chdirs, binds and execs.  Whatever
 * fails before exec is written as one line "<errno> <text>" on a
 * close-on-exec pipe and the child exits 127; the parent reads the pipe to
 * EOF, which exec success causes at once, so the wait is short.
 *
 * The user's supplementary groups are looked up before (getgrouplist,
 * best by the daemon itself: launch_groups()) and only set in the child
 * (setgroups): a process that asked NSS itself would load its modules and
 * dial systemd's userdb for every job, which was most of the cost of
 * starting a short one.  The child allocates nothing (its memory is the
 * parent's): it sticks to system calls and snprintf into stack buffers,
 * and its core binding is computed by the parent.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/error.h"
#include "common/xalloc.h"
#include "noded/launch.h"
#include "noded/topology.h"

/* Longest line the child sends back: errno, a space, then the text. */
#define LAUNCH_MSG_MAX (sizeof(((struct rota_error *)0)->text) + 16)

/* The child's stack: snprintf and the system calls before exec. */
#define CHILD_STACK (256u << 10)

/*
 * Under AddressSanitizer a fresh mapping may reuse addresses whose shadow
 * still holds an earlier stack's poison (munmap does not clear it), and
 * the child, on a stack ASan does not know, cannot have it cleared: clear
 * it ourselves, or the child reports overflows that are not there.
 */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define STACK_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define STACK_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

static char *script_path(const char *spool_dir, uint32_t job_id)
{
	return rota_xasprintf("%s/job%u.script", spool_dir, job_id);
}

static int write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int open_script(const char *path)
{
	int flags = O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW;
	int fd;

	fd = open(path, flags, 0700);
	if (fd < 0 && errno == EEXIST) {
		/* Left over by a crash: this job id is ours again. */
		if (unlink(path) < 0 && errno != ENOENT)
			return -1;
		fd = open(path, flags, 0700);
	}
	return fd;
}

/* Write the script file, mode 0700 and owned by the job's user. */
static int write_script(const struct launch_spec *spec, const char *path,
			struct rota_error *err)
{
	int fd;
	int rc;

	fd = open_script(path);
	if (fd < 0)
		return rota_errorf(err, -errno, "job %u: create '%s': %s",
				   spec->job_id, path, strerror(errno));
	rc = write_all(fd, spec->script, strlen(spec->script));
	if (rc == 0 && fchmod(fd, 0700) < 0)
		rc = -errno;
	if (rc == 0 && geteuid() == 0 && fchown(fd, spec->uid, spec->gid) < 0)
		rc = -errno;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc < 0) {
		unlink(path);
		return rota_errorf(err, rc, "job %u: write '%s': %s",
				   spec->job_id, path, strerror(-rc));
	}
	return 0;
}

/* Child only: report "<errno> <text>" on the pipe and exit. */
__attribute__((format(printf, 3, 4), noreturn)) static void
child_fail(int fd, int errnum, const char *fmt, ...)
{
	char buf[LAUNCH_MSG_MAX];
	va_list ap;
	int len;

	len = snprintf(buf, sizeof(buf), "%d ", errnum);
	va_start(ap, fmt);
	vsnprintf(buf + len, sizeof(buf) - (size_t)len, fmt, ap);
	va_end(ap);
	write_all(fd, buf, strlen(buf));
	_exit(127);
}

/* Child only: move 'fd' off the standard descriptors, close-on-exec. */
static int above_stdio(int fd)
{
	int moved;

	if (fd < 0 || fd > STDERR_FILENO)
		return fd;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	if (moved < 0)
		return -1; /* errno from fcntl(); fd dies with the child */
	close(fd);
	return moved;
}

/* The kernel's struct sigaction, for the signals glibc keeps to itself. */
struct kernel_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};

static void child_reset_signals(void)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	struct kernel_sigaction ksa = { .handler = SIG_DFL };
	sigset_t none;

	sigemptyset(&sa.sa_mask);
	/* SIGKILL and SIGSTOP refuse: fine. */
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);
	/*
	 * glibc refuses its internal signals (32, 33: thread cancellation and
	 * setxid), yet an ignored one inherited from whoever started the
	 * daemon would break pthread_cancel in the job: ask the kernel.
	 */
	for (int sig = 32; sig < SIGRTMIN; sig++)
		syscall(SYS_rt_sigaction, sig, &ksa, NULL, sizeof(ksa.mask));
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Child only, as root: become the user for good (uidswap.c). */
/* Who the job runs as, resolved by the parent before the clone. */
struct identity {
	gid_t *groups;	/* borrowed from the spec, unless 'owned' */
	size_t ngroups;
	bool owned;
};

int launch_groups(const struct launch_spec *spec, gid_t **groups,
		  size_t *ngroups, struct rota_error *err)
{
	struct passwd *pw = getpwuid(spec->uid);
	int n = 64;

	*groups = NULL;
	*ngroups = 0;
	if (!pw)
		return rota_errorf(err, -ENOENT, "job %u: unknown uid %u",
				   spec->job_id, (unsigned)spec->uid);
	for (;;) {
		int want = n;

		*groups = rota_xreallocarray(*groups, (size_t)n, sizeof(gid_t));
		if (getgrouplist(pw->pw_name, spec->gid, *groups, &want) >= 0) {
			*ngroups = (size_t)want;
			return 0;
		}
		if (want <= n || want > 65536) {
			free(*groups);
			*groups = NULL;
			return rota_errorf(err, -EINVAL,
					   "job %u: groups of '%s': cannot "
					   "list them",
					   spec->job_id, pw->pw_name);
		}
		n = want;
	}
}

/* Parent, as root: the user's groups.  -errno with 'err' on failure. */
static int identity_resolve(const struct launch_spec *spec,
			    struct identity *who, struct rota_error *err)
{
	if (spec->groups && spec->ngroups) {
		*who = (struct identity){ .groups = (gid_t *)spec->groups,
					  .ngroups = spec->ngroups };
		return 0;
	}
	who->owned = true;
	return launch_groups(spec, &who->groups, &who->ngroups, err);
}

static void child_become_user(const struct launch_spec *spec,
			      const struct identity *who, int fd)
{
	uint32_t id = spec->job_id;

	/*
	 * System calls, not glibc's wrappers: those would change the ids of
	 * every thread of the process whose memory this child shares.
	 */
	if (syscall(SYS_setgroups, who->ngroups, who->groups) < 0)
		child_fail(fd, errno, "job %u: setgroups: %s", id,
			   strerror(errno));
	if (syscall(SYS_setresgid, spec->gid, spec->gid, spec->gid) < 0)
		child_fail(fd, errno, "job %u: setresgid %u: %s", id,
			   (unsigned)spec->gid, strerror(errno));
	if (syscall(SYS_setresuid, spec->uid, spec->uid, spec->uid) < 0)
		child_fail(fd, errno, "job %u: setresuid %u: %s", id,
			   (unsigned)spec->uid, strerror(errno));
	if (getuid() != spec->uid || geteuid() != spec->uid ||
	    getgid() != spec->gid || getegid() != spec->gid)
		child_fail(fd, EPERM, "job %u: ids did not change", id);
	if (spec->uid != 0 && syscall(SYS_setuid, 0) != -1)
		child_fail(fd, EPERM, "job %u: could regain root", id);
}

/* Child only, still root: into the job's cgroups ("0": this task). */
static void child_join_cgroup(const struct launch_spec *spec, int fd)
{
	for (const char *const *p = spec->cgroup_procs; *p; p++) {
		int cg = open(*p, O_WRONLY | O_CLOEXEC);

		if (cg < 0 || write(cg, "0", 1) != 1)
			child_fail(fd, errno, "job %u: join '%s': %s",
				   spec->job_id, *p, strerror(errno));
		close(cg);
	}
}

static int open_output(const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC,
		    0644);
}

/* Child only: a step task's streams, given by its supervisor. */
static void child_task_stdio(const struct launch_spec *spec, int fd)
{
	for (int i = 0; i < 3; i++)
		if (dup2(spec->stdio[i], i) < 0)
			child_fail(fd, errno, "job %u: dup2: %s",
				   spec->job_id, strerror(errno));
	if (spec->ctty && ioctl(STDIN_FILENO, TIOCSCTTY, 0) < 0)
		child_fail(fd, errno, "job %u: terminal: %s", spec->job_id,
			   strerror(errno));
}

/* Child only: stdin from /dev/null, stdout and stderr to the job's files. */
static void child_stdio(const struct launch_spec *spec, int fd)
{
	const char *errpath = spec->stderr_path;
	int in, out, errfd;

	if (spec->stdio) {
		child_task_stdio(spec, fd);
		return;
	}
	out = above_stdio(open_output(spec->stdout_path));
	if (out < 0)
		child_fail(fd, errno, "job %u: open '%s': %s",
			   spec->job_id, spec->stdout_path, strerror(errno));
	errfd = out;
	if (errpath && strcmp(errpath, spec->stdout_path) != 0) {
		errfd = above_stdio(open_output(errpath));
		if (errfd < 0)
			child_fail(fd, errno, "job %u: open '%s': %s",
				   spec->job_id, errpath, strerror(errno));
	}
	in = above_stdio(open("/dev/null", O_RDONLY | O_CLOEXEC));
	if (in < 0)
		child_fail(fd, errno, "job %u: open '/dev/null': %s",
			   spec->job_id, strerror(errno));
	if (dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
	    dup2(errfd, STDERR_FILENO) < 0)
		child_fail(fd, errno, "job %u: dup2: %s",
			   spec->job_id, strerror(errno));
	/* The originals are close-on-exec: exec leaves only 0, 1 and 2. */
}

/* The value of 'name' in a NULL-terminated environment, or NULL. */
static const char *env_get(char *const *env, const char *name)
{
	size_t n = strlen(name);

	for (; *env; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

/*
 * Child only: exec a task's argv, looking argv[0] up in the PATH of the
 * task's own environment (execvpe would search the daemon's), in stack
 * buffers: the child allocates nothing.
 */
static void child_exec_argv(const struct launch_spec *spec, int fd)
{
	const char *name = spec->argv[0];
	const char *path = env_get(spec->env, "PATH");
	int first = ENOENT;
	char buf[4096];

	if (strchr(name, '/')) {
		execve(name, spec->argv, spec->env);
		child_fail(fd, errno, "exec '%s': %s", name, strerror(errno));
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchr(path, ':');
		size_t len = end ? (size_t)(end - path) : strlen(path);
		int n = snprintf(buf, sizeof(buf), "%.*s%s%s", (int)len, path,
				 len ? "/" : "", name);

		if (n > 0 && (size_t)n < sizeof(buf)) {
			struct stat st;

			execve(buf, spec->argv, spec->env);
			/* a directory we may not search is not "found" */
			if (errno != ENOENT && errno != ENOTDIR &&
			    (errno != EACCES || stat(buf, &st) == 0))
				first = first == ENOENT ? errno : first;
		}
		path += len + (end != NULL);
	}
	child_fail(fd, first, "exec '%s': %s", name,
		   first == ENOENT ? "command not found" : strerror(first));
}

static void child_exec(const struct launch_spec *spec, const char *path,
		       int fd)
{
	if (spec->argv)
		child_exec_argv(spec, fd);
	char *argv[] = { (char *)path, NULL };
	char *sh_argv[] = { "sh", (char *)path, NULL };

	execve(path, argv, spec->env);
	if (errno == ENOEXEC)
		execve("/bin/sh", sh_argv, spec->env);
	child_fail(fd, errno, "job %u: exec '%s': %s", spec->job_id,
		   path, strerror(errno));
}

/* What the child needs, all computed by the parent: it allocates nothing. */
struct child_arg {
	const struct launch_spec *spec;
	const struct identity *who;
	const char *path;	/* the script file */
	int fd;			/* the report pipe's write end */
	const cpu_set_t *mask;	/* NULL: no binding */
	size_t mask_size;
};

/* The child, on its own stack in its parent's memory until it execs. */
static int child_run(void *arg)
{
	const struct child_arg *c = arg;
	const struct launch_spec *spec = c->spec;
	int fd = above_stdio(c->fd);

	if (fd < 0)
		_exit(127);
	child_reset_signals();
	if (setsid() < 0)
		child_fail(fd, errno, "job %u: setsid: %s", spec->job_id,
			   strerror(errno));
	if (spec->cgroup_procs)
		child_join_cgroup(spec, fd);
	if (geteuid() == 0)
		child_become_user(spec, c->who, fd);
	child_stdio(spec, fd);
	if (chdir(spec->workdir) < 0)
		child_fail(fd, errno, "job %u: chdir '%s': %s",
			   spec->job_id, spec->workdir, strerror(errno));
	if (c->mask && sched_setaffinity(0, c->mask_size, c->mask) < 0)
		child_fail(fd, errno, "job %u: bind to cores: %s",
			   spec->job_id, strerror(errno));
	/* Descriptors the daemon forgot to mark must not reach the job. */
	close_range(STDERR_FILENO + 1, ~0U, CLOSE_RANGE_CLOEXEC);
	if (spec->keep_fd > STDERR_FILENO && spec->keep_fd != fd &&
	    fcntl(spec->keep_fd, F_SETFD, 0) < 0)
		child_fail(fd, errno, "job %u: keep fd %d: %s", spec->job_id,
			   spec->keep_fd, strerror(errno));
	child_exec(spec, c->path, fd);
	_exit(127); /* not reached: child_exec() execs or fails */
}

/*
 * Start child_run() as posix_spawn() does: a clone sharing our memory,
 * with us suspended until it has exec'd or exited, so that nothing of ours
 * is copied for a child that is about to exec.  Every signal is blocked
 * meanwhile: no handler of ours may run on the child's stack.  The child
 * or -errno.
 */
static pid_t child_spawn(struct child_arg *c)
{
	size_t size = CHILD_STACK;
	char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	sigset_t all, old;
	pid_t child;

	if (stack == MAP_FAILED)
		return -errno;
	STACK_UNPOISON(stack, size);
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	child = clone(child_run, stack + size, CLONE_VM | CLONE_VFORK | SIGCHLD,
		      c);
	if (child < 0)
		child = -errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	STACK_UNPOISON(stack, size);
	munmap(stack, size);
	return child;
}

/* Read the child's report to EOF; returns its length (0: exec done). */
static size_t read_report(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || len + (size_t)n >= size - 1) {
			len += n > 0 ? (size_t)n : 0;
			break;
		}
		len += (size_t)n;
	}
	buf[len] = '\0';
	return len;
}

/* Turn the child's "<errno> <text>" into -errno and 'err'. */
static int report_error(const char *msg, struct rota_error *err)
{
	char *end;
	long e;

	e = strtol(msg, &end, 10);
	if (end == msg || e <= 0 || e > 4095)
		e = EIO;
	if (*end == ' ')
		end++;
	return rota_errorf(err, (int)-e, "%s", end);
}

static void reap(pid_t pid)
{
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

static int check_spec(const struct launch_spec *spec, struct rota_error *err)
{
	uint32_t id = spec->job_id;

	if ((!spec->script && !spec->argv) || !spec->spool_dir || !spec->env ||
	    (spec->argv && (!spec->argv[0] || !spec->stdio)))
		return rota_errorf(err, -EINVAL,
				   "job %u: incomplete launch", id);
	if (!spec->workdir || spec->workdir[0] != '/')
		return rota_errorf(err, -EINVAL,
				   "job %u: workdir is not absolute", id);
	if (!spec->stdio && (!spec->stdout_path || spec->stdout_path[0] != '/' ||
	    (spec->stderr_path && spec->stderr_path[0] != '/')))
		return rota_errorf(err, -EINVAL,
				   "job %u: output path is not absolute", id);
	if (geteuid() != 0 && spec->uid != getuid())
		return rota_errorf(
			err, -EPERM,
			"job %u: cannot run as uid %u: rota-noded is not root",
			id, (unsigned)spec->uid);
	return 0;
}

int launch_start(const struct launch_spec *spec, pid_t *pid,
		 struct rota_error *err)
{
	char msg[LAUNCH_MSG_MAX];
	struct identity who = { 0 };
	struct child_arg c = { .spec = spec, .who = &who };
	struct rota_error e;
	cpu_set_t *mask = NULL;
	int fds[2];
	pid_t child;
	int rc;

	*pid = 0;
	rota_error_clear(err);
	rc = check_spec(spec, err);
	if (rc == 0 && geteuid() == 0)
		rc = identity_resolve(spec, &who, err);
	if (rc == 0 && spec->topo && spec->ncores > 0) {
		rc = topology_cpu_mask(spec->topo, spec->cores, spec->ncores,
				       &mask, &c.mask_size, &e);
		if (rc < 0)
			rc = rota_errorf(err, rc, "job %u: %s", spec->job_id,
					 e.text);
	}
	if (rc < 0)
		goto out_free;
	c.mask = mask;
	if (!spec->argv) {
		c.path = script_path(spec->spool_dir, spec->job_id);
		rc = write_script(spec, c.path, err);
		if (rc < 0)
			goto out_free;
	}
	if (pipe2(fds, O_CLOEXEC) < 0) {
		rc = rota_errorf(err, -errno, "job %u: pipe: %s",
				 spec->job_id, strerror(errno));
		goto out_unlink;
	}
	c.fd = fds[1];
	child = child_spawn(&c);
	close(fds[1]);
	if (child < 0) {
		rc = rota_errorf(err, child, "job %u: clone: %s",
				 spec->job_id, strerror(-child));
		close(fds[0]);
		goto out_unlink;
	}
	if (read_report(fds[0], msg, sizeof(msg)) > 0) {
		close(fds[0]);
		reap(child);
		rc = report_error(msg, err);
		goto out_unlink;
	}
	close(fds[0]);
	*pid = child;
	goto out_free;

out_unlink:
	if (c.path)
		unlink(c.path);
out_free:
	free((char *)c.path);
	if (who.owned)
		free(who.groups);
	CPU_FREE(mask);
	return rc;
}

void launch_cleanup(const char *spool_dir, uint32_t job_id)
{
	char *path = script_path(spool_dir, job_id);

	unlink(path);
	free(path);
}
