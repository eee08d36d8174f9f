// SPDX-License-Identifier: MIT
/*
 * Jobs' cgroups (noded/cgroup.c) on the real kernel, each test once with
 * CgroupVersion=v1 and once with v2: the limits written, an escaped
 * daemon (setsid, double fork) killed at the end, a fork loop stopped by
 * MaxTasksPerJob, CPU time and memory peak read, a leftover cgroup of the
 * same name made anew.  A version or controller the host lacks (or not
 * being root) skips, saying so on stderr.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "noded/cgroup.h"

static struct cgroup_env *env_for(int version, unsigned max_tasks)
{
	struct rota_conf conf = {
		.constrain_ram = true,
		.max_tasks_per_job = max_tasks,
		.cgroup_version =
			version == 1 ? ROTA_CGROUP_V1 : ROTA_CGROUP_V2,
	};
	struct cgroup_env *env;
	char *summary;

	env = cgroup_env_create(&conf, &summary);
	ck_assert_ptr_nonnull(strstr(summary, "cgroups"));
	if (!env)
		fprintf(stderr, "test_cgroup: v%d skipped: %s\n", version,
			summary);
	else
		fprintf(stderr, "test_cgroup: %s\n", summary);
	free(summary);
	return env;
}

static struct cgroup_job *job_for(const struct cgroup_env *env, uint32_t id,
				  uint64_t mem_mb, const char *cpus)
{
	struct cgroup_limits lim = { .mem_mb = mem_mb, .cpus = cpus };
	struct rota_error err;
	struct cgroup_job *cg;

	ck_assert_msg(
		cgroup_job_create(env, id, 1, getpid(), &lim, &cg, &err) == 0,
		"%s", err.text);
	return cg;
}

/* '<dir of the procs file>/<name>' as text ("" when absent). */
static void read_next_to(const char *procs, const char *name, char *buf,
			 size_t size)
{
	char path[4096];
	const char *slash = strrchr(procs, '/');
	FILE *f;

	snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - procs), procs,
		 name);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(buf, (int)size, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* The procs file of the hierarchy holding 'file', or NULL. */
static const char *procs_with(const struct cgroup_job *cg, const char *file)
{
	char buf[256];

	for (const char *const *p = cgroup_job_procs(cg); *p; p++) {
		char path[4096];
		const char *slash = strrchr(*p, '/');

		snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - *p), *p,
			 file);
		if (access(path, F_OK) == 0) {
			read_next_to(*p, file, buf, sizeof(buf));
			return *p;
		}
	}
	return NULL;
}

/* The calling process into every one of the job's cgroups. */
static void join(const struct cgroup_job *cg)
{
	for (const char *const *p = cgroup_job_procs(cg); *p; p++) {
		FILE *f = fopen(*p, "w");

		if (!f || fprintf(f, "0\n") < 0 || fclose(f) != 0)
			_exit(99);
	}
}

static void spin(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 +
		       (t.tv_nsec - t0.tv_nsec) / 1000000 <
	       ms);
}

START_TEST(test_limits)
{
	struct cgroup_env *env = env_for(_i, 7);
	struct cgroup_job *cg;
	const char *p;
	char buf[256];

	if (!env)
		return;
	cg = job_for(env, 7, 300, "0");
	ck_assert_ptr_nonnull(cgroup_job_procs(cg)[0]);
	ck_assert_ptr_nonnull(strstr(cgroup_job_procs(cg)[0], "/rota/job7.1."));
	if ((p = procs_with(cg, _i == 1 ? "memory.limit_in_bytes"
					: "memory.max"))) {
		read_next_to(p,
			     _i == 1 ? "memory.limit_in_bytes" : "memory.max",
			     buf, sizeof(buf));
		ck_assert_str_eq(buf, "314572800");
	}
	if ((p = procs_with(cg, "pids.max"))) {
		read_next_to(p, "pids.max", buf, sizeof(buf));
		ck_assert_str_eq(buf, "7");
	}
	if ((p = procs_with(cg, "cpuset.cpus"))) {
		read_next_to(p, "cpuset.cpus", buf, sizeof(buf));
		ck_assert_str_eq(buf, "0");
	}
	p = cgroup_job_procs(cg)[0];
	snprintf(buf, sizeof(buf), "%s", p);
	cgroup_job_end(cg, NULL);
	ck_assert_int_ne(access(buf, F_OK), 0);
	cgroup_env_destroy(env);
}
END_TEST

/*
 * A job that double-forks a daemon in a session of its own, burns some
 * CPU and memory, and exits: the end kills the daemon (ours to reap, as
 * a subreaper), and reads CPU time and peak.
 */
START_TEST(test_end_kills_escapes)
{
	struct cgroup_env *env = env_for(_i, 0);
	struct cgroup_usage u;
	struct cgroup_job *cg;
	int fds[2], status;
	pid_t job, daemon = 0;

	if (!env)
		return;
	cg = job_for(env, 8, 0, NULL);
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	ck_assert_int_eq(pipe(fds), 0);
	job = fork();
	ck_assert_int_ge(job, 0);
	if (job == 0) {
		join(cg);
		if (fork() == 0) {
			setsid();
			if (fork() == 0) {
				char *m = malloc(32 << 20);
				pid_t me = getpid();

				memset(m, 1, 32 << 20);
				/* not optimized away: it is "used" */
				__asm__ volatile("" : : "r"(m) : "memory");
				spin(100);
				if (write(fds[1], &me, sizeof(me)) < 0)
					_exit(1);
				for (;;)
					pause();
			}
			_exit(0);
		}
		wait(NULL);
		_exit(0);
	}
	ck_assert_int_eq(read(fds[0], &daemon, sizeof(daemon)), sizeof(daemon));
	ck_assert_int_eq(waitpid(job, NULL, 0), job);
	ck_assert_int_eq(kill(daemon, 0), 0); /* escaped, alive */
	cgroup_job_end(cg, &u);
	ck_assert_int_eq(waitpid(daemon, &status, 0), daemon);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ck_assert_uint_eq(u.left, 1);
	ck_assert_uint_ge(u.cpu_usec, 50000);
	if (env->has[CGROUP_MEMORY])
		ck_assert_uint_ge(u.mem_peak, 32 << 20);
	ck_assert(!u.oom_killed);
	fprintf(stderr, "test_cgroup: v%d: cpu %llu us, peak %llu bytes\n", _i,
		(unsigned long long)u.cpu_usec, (unsigned long long)u.mem_peak);
	cgroup_env_destroy(env);
}
END_TEST

/*
 * UsageCharge=measured: a running job's CPU time and memory so far, read
 * by name as the node daemon does; a cgroup that is not there is -ENOENT.
 */
START_TEST(test_sample)
{
	struct cgroup_env *env = env_for(_i, 0);
	struct cgroup_sample smp;
	struct cgroup_job *cg;
	int fds[2];
	pid_t job;
	char c;

	if (!env)
		return;
	cg = job_for(env, 11, 0, NULL);
	ck_assert_int_eq(pipe(fds), 0);
	job = fork();
	ck_assert_int_ge(job, 0);
	if (job == 0) {
		char *m = malloc(32 << 20);

		join(cg);
		memset(m, 1, 32 << 20);
		__asm__ volatile("" : : "r"(m) : "memory");
		spin(100);
		if (write(fds[1], "x", 1) < 0)
			_exit(1);
		for (;;)
			pause();
	}
	ck_assert_int_eq(read(fds[0], &c, 1), 1);
	ck_assert_int_eq(cgroup_job_sample(env, 11, 1, getpid(), &smp), 0);
	ck_assert_uint_ge(smp.cpu_usec, 50000);
	if (env->has[CGROUP_MEMORY])
		ck_assert_uint_ge(smp.mem_bytes, 32 << 20);
	fprintf(stderr, "test_cgroup: v%d: running: cpu %llu us, mem %llu "
			"bytes, io %llu bytes\n", _i,
		(unsigned long long)smp.cpu_usec,
		(unsigned long long)smp.mem_bytes,
		(unsigned long long)smp.io_bytes);
	ck_assert_int_eq(cgroup_job_sample(env, 12, 1, getpid(), &smp),
			 -ENOENT);
	ck_assert_uint_eq(smp.cpu_usec, 0);
	cgroup_job_end(cg, NULL);
	ck_assert_int_eq(waitpid(job, NULL, 0), job);
	close(fds[0]);
	close(fds[1]);
	cgroup_env_destroy(env);
}
END_TEST

/* MaxTasksPerJob=5: the sixth task of a fork loop is refused. */
START_TEST(test_max_tasks)
{
	struct cgroup_env *env = env_for(_i, 5);
	struct cgroup_job *cg;
	int status;
	pid_t job;

	if (!env)
		return;
	if (!env->has[CGROUP_PIDS]) {
		fprintf(stderr,
			"test_cgroup: v%d: no pids controller, "
			"max tasks not tested\n",
			_i);
		cgroup_env_destroy(env);
		return;
	}
	cg = job_for(env, 9, 0, NULL);
	job = fork();
	ck_assert_int_ge(job, 0);
	if (job == 0) {
		int n = 1;

		join(cg);
		for (int i = 0; i < 20; i++) {
			pid_t c = fork();

			if (c == 0) {
				pause();
				_exit(0);
			}
			if (c < 0)
				_exit(errno == EAGAIN ? n : 100);
			n++;
		}
		_exit(100);
	}
	ck_assert_int_eq(waitpid(job, &status, 0), job);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 5);
	cgroup_job_end(cg, NULL); /* and its 4 children */
	cgroup_env_destroy(env);
}
END_TEST

/* A supervisor killed with -9 leaves its cgroup, tasks and all. */
START_TEST(test_leftover_made_anew)
{
	struct cgroup_env *env = env_for(_i, 0);
	struct cgroup_job *cg, *again;
	pid_t child;

	if (!env)
		return;
	cg = job_for(env, 10, 100, NULL);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		join(cg);
		for (;;)
			pause();
	}
	/* the child joined before it paused: wait for it to be listed */
	for (int i = 0; i < 500; i++) {
		char buf[32];

		read_next_to(cgroup_job_procs(cg)[0], "cgroup.procs", buf,
			     sizeof(buf));
		if (buf[0])
			break;
		spin(2);
	}
	again = job_for(env, 10, 200, NULL);
	ck_assert_str_eq(cgroup_job_procs(again)[0], cgroup_job_procs(cg)[0]);
	/* its task was killed on the way */
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	cgroup_job_end(again, NULL);
	/* the same directory, gone already: this only frees it */
	cgroup_job_end(cg, NULL);
	cgroup_env_destroy(env);
}
END_TEST

static Suite *cgroup_suite(void)
{
	Suite *s = suite_create("cgroup");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_limits, 1, 3);
	tcase_add_loop_test(tc, test_end_kills_escapes, 1, 3);
	tcase_add_loop_test(tc, test_max_tasks, 1, 3);
	tcase_add_loop_test(tc, test_leftover_made_anew, 1, 3);
	tcase_add_loop_test(tc, test_sample, 1, 3);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	if (geteuid() != 0) {
		fprintf(stderr, "test_cgroup: skipped: not root\n");
		return 77;
	}
	sr = srunner_create(cgroup_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
