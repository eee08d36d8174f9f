// SPDX-License-Identifier: MIT
/*
 * noded/launch: real fork-and-exec of small scripts as the current user
 * (and as 'nobody' when the test runs as root), each in a scratch folder.
 * Every job is waited for with waitpid(); nothing sleeps.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/error.h"
#include "noded/launch.h"
#include "noded/topology.h"

/* $ROTA_TOPOLOGY_DIR wins, so that a distcheck build finds the XML too. */
static const char *topo_dir(void)
{
	const char *d = getenv("ROTA_TOPOLOGY_DIR");

	return d && *d ? d : ROTA_TOPOLOGY_DIR;
}

#define NOBODY 65534

/*
 * Under LeakSanitizer: hwloc's PCI plugin (libpciaccess) leaks about 1 KB
 * each time the host is loaded with its I/O devices, as topology_load(NULL)
 * does.  Nothing of ours is allocated beneath hwloc_topology_load(); the
 * plugin has no frame pointers, hence the slow unwinder to see that frame.
 */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "fast_unwind_on_malloc=0:print_suppressions=0";
}

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:hwloc_topology_load\n";
}

static char *test_env[] = {
	"PATH=/usr/local/bin:/usr/bin:/bin",
	"ROTA_TEST=hello world",
	NULL,
};

/* A scratch folder, everyone may write (for the 'nobody' job). */
static char scratch[64];

static void scratch_create(void)
{
	strcpy(scratch, "/tmp/rota-launch-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
	ck_assert_int_eq(chmod(scratch, 0777), 0);
	umask(022);
}

static int remove_cb(const char *path, const struct stat *st, int flag,
		     struct FTW *ftw)
{
	return remove(path);
}

static void scratch_remove(void)
{
	nftw(scratch, remove_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static char *in_scratch(const char *name)
{
	char *path;

	ck_assert_int_gt(asprintf(&path, "%s/%s", scratch, name), 0);
	return path;
}

/* Whole file as a string; caller frees. */
static char *slurp(const char *path)
{
	char *buf = calloc(1, 65536);
	ssize_t n;
	int fd;

	ck_assert_ptr_nonnull(buf);
	fd = open(path, O_RDONLY);
	ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
	n = read(fd, buf, 65535);
	ck_assert_int_ge(n, 0);
	close(fd);
	return buf;
}

/* A job description with everything in the scratch folder. */
static struct launch_spec spec_init(uint32_t id, const char *script)
{
	return (struct launch_spec){
		.job_id = id,
		.uid = getuid(),
		.gid = getgid(),
		.script = script,
		.spool_dir = scratch,
		.workdir = scratch,
		.stdout_path = in_scratch("out"),
		.env = test_env,
	};
}

static void spec_fini(struct launch_spec *spec)
{
	free((char *)spec->stdout_path);
	free((char *)spec->stderr_path);
}

/* Start, wait, expect exit status 0 and the job's pid as pgid and sid. */
static void run_ok(const struct launch_spec *spec)
{
	struct rota_error err = { "" };
	pid_t pid = -1;
	int status;

	ck_assert_msg(launch_start(spec, &pid, &err) == 0, "%s", err.text);
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "job status %#x", status);
	launch_cleanup(spec->spool_dir, spec->job_id);
}

/* A failed start: the code, the exact text, no child and no script left. */
static void run_fails(const struct launch_spec *spec, int code,
		      const char *text)
{
	struct rota_error err = { "" };
	char *script;
	pid_t pid = -1;

	ck_assert_int_eq(launch_start(spec, &pid, &err), code);
	ck_assert_int_eq(pid, 0);
	ck_assert_str_eq(err.text, text);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
	ck_assert_int_gt(asprintf(&script, "%s/job%u.script", spec->spool_dir,
				  (unsigned)spec->job_id), 0);
	ck_assert_int_eq(access(script, F_OK), -1);
	free(script);
}

static void check_output(const struct launch_spec *spec, const char *want)
{
	char *got = slurp(spec->stdout_path);

	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(test_stdout)
{
	struct launch_spec spec = spec_init(1, "#!/bin/sh\necho hello\n");
	struct stat st;
	int fd;

	/* An older, longer file is truncated. */
	fd = open(spec.stdout_path, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "old old old old\n", 16), 16);
	close(fd);
	run_ok(&spec);
	check_output(&spec, "hello\n");
	spec_fini(&spec);

	spec = spec_init(2, "#!/bin/sh\necho new\n");
	free((char *)spec.stdout_path);
	spec.stdout_path = in_scratch("out2");
	run_ok(&spec);
	ck_assert_int_eq(stat(spec.stdout_path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	ck_assert_uint_eq(st.st_uid, getuid());
	spec_fini(&spec);
}
END_TEST

START_TEST(test_stderr)
{
	struct launch_spec spec =
		spec_init(3, "#!/bin/sh\necho to-out\necho to-err >&2\n");
	char *err;

	spec.stderr_path = in_scratch("err");
	run_ok(&spec);
	check_output(&spec, "to-out\n");
	err = slurp(spec.stderr_path);
	ck_assert_str_eq(err, "to-err\n");
	free(err);
	spec_fini(&spec);

	/* No stderr path, or the same one: one file, nothing overwritten. */
	spec = spec_init(4, "#!/bin/sh\necho one\necho two >&2\necho three\n");
	run_ok(&spec);
	check_output(&spec, "one\ntwo\nthree\n");
	spec.stderr_path = in_scratch("out");
	run_ok(&spec);
	check_output(&spec, "one\ntwo\nthree\n");
	spec_fini(&spec);
}
END_TEST

START_TEST(test_workdir_env)
{
	struct launch_spec spec = spec_init(5, "#!/bin/sh\n"
					       "pwd\n"
					       "echo \"$ROTA_TEST\"\n"
					       "echo \"${ROTA_LEAK-unset}\"\n");
	char *sub = in_scratch("sub");
	char *want;

	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert_int_eq(setenv("ROTA_LEAK", "daemon", 1), 0);
	spec.workdir = sub;
	run_ok(&spec);
	ck_assert_int_gt(asprintf(&want, "%s\nhello world\nunset\n", sub), 0);
	check_output(&spec, want);
	free(want);
	free(sub);
	spec_fini(&spec);
}
END_TEST

START_TEST(test_no_shebang)
{
	struct launch_spec spec = spec_init(6, "echo plain \"$0\"\n");
	char *want;

	run_ok(&spec);
	ck_assert_int_gt(asprintf(&want, "plain %s/job6.script\n", scratch), 0);
	check_output(&spec, want);
	free(want);
	spec_fini(&spec);
}
END_TEST

/* The job leads its own session and process group. */
START_TEST(test_session_leader)
{
	struct launch_spec spec = spec_init(
		7, "#!/bin/sh\necho $$ $(cut -d' ' -f5,6 /proc/$$/stat)\n");
	struct rota_error err = { "" };
	char want[64];
	pid_t pid;

	ck_assert_int_eq(launch_start(&spec, &pid, &err), 0);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	snprintf(want, sizeof(want), "%d %d %d\n", (int)pid, (int)pid,
		 (int)pid);
	check_output(&spec, want);
	launch_cleanup(scratch, 7);
	spec_fini(&spec);
}
END_TEST

/*
 * The daemon's blocked and ignored signals do not reach the job.  The script
 * is cat, not a shell: dash would clear the mask itself and hide a bug.
 */
START_TEST(test_signals_reset)
{
	struct launch_spec spec =
		spec_init(8, "#!/bin/cat /proc/self/status\n");
	sigset_t set;
	char *got;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGHUP);
	ck_assert_int_eq(sigprocmask(SIG_BLOCK, &set, NULL), 0);
	signal(SIGINT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	run_ok(&spec);
	got = slurp(spec.stdout_path);
	ck_assert_msg(strstr(got, "\nSigBlk:\t0000000000000000\n"), "%s", got);
	ck_assert_msg(strstr(got, "\nSigIgn:\t0000000000000000\n"), "%s", got);
	free(got);
	spec_fini(&spec);
}
END_TEST

/* The script is 0700 and its user's; a stale one from a crash is replaced. */
START_TEST(test_script_file)
{
	struct launch_spec spec = spec_init(9, "#!/bin/sh\necho fresh\n");
	struct rota_error err = { "" };
	char *path = in_scratch("job9.script");
	struct stat st;
	pid_t pid;
	FILE *f;

	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("#!/bin/sh\necho stale\n", f);
	fclose(f);
	ck_assert_int_eq(launch_start(&spec, &pid, &err), 0);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	check_output(&spec, "fresh\n");
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
	ck_assert_uint_eq(st.st_uid, spec.uid);
	launch_cleanup(scratch, 9);
	ck_assert_int_eq(access(path, F_OK), -1);
	free(path);
	spec_fini(&spec);
}
END_TEST

START_TEST(test_chdir_fails)
{
	struct launch_spec spec = spec_init(12, "#!/bin/sh\necho never\n");

	spec.workdir = "/nonexistent-rota-dir";
	run_fails(&spec, -ENOENT,
		  "job 12: chdir '/nonexistent-rota-dir': "
		  "No such file or directory");
	spec_fini(&spec);
}
END_TEST

START_TEST(test_output_fails)
{
	struct launch_spec spec = spec_init(13, "#!/bin/sh\necho never\n");
	char want[256];

	free((char *)spec.stdout_path);
	spec.stdout_path = in_scratch("nodir/out");
	snprintf(want, sizeof(want),
		 "job 13: open '%s': No such file or directory",
		 spec.stdout_path);
	run_fails(&spec, -ENOENT, want);
	spec_fini(&spec);
}
END_TEST

START_TEST(test_spool_fails)
{
	struct launch_spec spec = spec_init(14, "#!/bin/sh\necho never\n");

	spec.spool_dir = "/nonexistent-rota-spool";
	run_fails(&spec, -ENOENT,
		  "job 14: create '/nonexistent-rota-spool/job14.script': "
		  "No such file or directory");
	spec.spool_dir = scratch;
	spec.workdir = "relative";
	run_fails(&spec, -EINVAL, "job 14: workdir is not absolute");
	spec_fini(&spec);
}
END_TEST

/* The job's affinity is the host CPU list of its cores. */
static const struct affinity_case {
	const char *xml; /* NULL: the host */
	unsigned cores[3];
	size_t ncores;
} affinity_cases[] = {
	{ NULL, { 0 }, 1 },
	{ "24em64t-2n6c2t-pci.xml", { 5 }, 1 },
	{ "24em64t-2n6c2t-pci.xml", { 6, 7 }, 2 },
	{ "192em64t-24n8c2t.xml", { 191, 0, 64 }, 3 },
};

START_TEST(test_affinity)
{
	const struct affinity_case *c = &affinity_cases[_i];
	struct launch_spec spec = spec_init(
		20, "#!/bin/sh\ngrep Cpus_allowed_list /proc/self/status\n");
	struct rota_error err = { "" };
	struct topology *topo;
	char *xml = NULL;
	char *list;
	char *want;

	if (c->xml)
		ck_assert_int_gt(asprintf(&xml, "%s/%s", topo_dir(),
					  c->xml), 0);
	ck_assert_msg(topology_load(xml, &topo, &err) == 0, "%s", err.text);
	spec.topo = topo;
	spec.cores = c->cores;
	spec.ncores = c->ncores;
	run_ok(&spec);
	list = topology_host_cpulist(topo, c->cores, c->ncores);
	ck_assert_ptr_nonnull(list);
	ck_assert_int_gt(asprintf(&want, "Cpus_allowed_list:\t%s\n", list), 0);
	check_output(&spec, want);
	free(want);
	free(list);
	free(xml);
	topology_destroy(topo);
	spec_fini(&spec);
}
END_TEST

START_TEST(test_bind_fails)
{
	struct launch_spec spec = spec_init(21, "#!/bin/sh\necho never\n");
	struct rota_error err = { "" };
	struct topology *topo;
	unsigned core = 4096;

	ck_assert_int_eq(topology_load(NULL, &topo, &err), 0);
	spec.topo = topo;
	spec.cores = &core;
	spec.ncores = 1;
	ck_assert_int_eq(launch_start(&spec, &(pid_t){ 0 }, &err), -EINVAL);
	ck_assert_msg(strncmp(err.text, "job 21: core 4096 out of range", 30) ==
			      0,
		      "%s", err.text);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	topology_destroy(topo);
	spec_fini(&spec);
}
END_TEST

static const char not_root_text[] =
	"job 22: cannot run as uid %u: rota-noded is not root";

/* Not root: only the daemon's own uid.  As root, checked in a child. */
START_TEST(test_not_root)
{
	struct launch_spec spec = spec_init(22, "#!/bin/sh\necho never\n");
	struct rota_error err = { "" };
	bool forked = geteuid() == 0;
	char want[128];
	pid_t child;
	int status;
	int rc;

	child = forked ? fork() : 0;
	ck_assert_int_ge(child, 0);
	if (child > 0) {
		ck_assert_int_eq(waitpid(child, &status, 0), child);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "unprivileged launch_start not refused");
		spec_fini(&spec);
		return;
	}
	if (forked && (setresgid(NOBODY, NOBODY, NOBODY) < 0 ||
		       setresuid(NOBODY, NOBODY, NOBODY) < 0))
		_exit(2);
	spec.uid = getuid() + 1;
	snprintf(want, sizeof(want), not_root_text, (unsigned)spec.uid);
	rc = launch_start(&spec, &(pid_t){ 0 }, &err);
	/* In the forked child a failed ck_assert would not be reported. */
	if (forked)
		_exit(rc == -EPERM && strcmp(err.text, want) == 0 ? 0 : 1);
	ck_assert_int_eq(rc, -EPERM);
	ck_assert_str_eq(err.text, want);
	spec_fini(&spec);
}
END_TEST

/* Root only: the job runs as 'nobody' and opens its files as nobody. */
START_TEST(test_as_nobody)
{
	struct launch_spec spec = spec_init(
		23, "#!/bin/sh\nid -u\nid -g\necho ok > mine\n");
	char *private = in_scratch("private");
	struct stat st;
	char *mine;

	if (geteuid() != 0) {
		spec_fini(&spec);
		free(private);
		return;
	}
	spec.uid = NOBODY;
	spec.gid = NOBODY;
	run_ok(&spec);
	check_output(&spec, "65534\n65534\n");
	ck_assert_int_eq(stat(spec.stdout_path, &st), 0);
	ck_assert_uint_eq(st.st_uid, NOBODY);
	mine = in_scratch("mine");
	ck_assert_int_eq(stat(mine, &st), 0);
	ck_assert_uint_eq(st.st_uid, NOBODY);
	free(mine);

	/* A root-only folder stays closed to the job. */
	ck_assert_int_eq(mkdir(private, 0700), 0);
	free((char *)spec.stdout_path);
	ck_assert_int_gt(asprintf((char **)&spec.stdout_path, "%s/out",
				  private), 0);
	{
		char want[256];

		snprintf(want, sizeof(want),
			 "job 23: open '%s': Permission denied",
			 spec.stdout_path);
		run_fails(&spec, -EACCES, want);
	}
	free(private);
	spec_fini(&spec);

	/* An unknown uid is refused before anything runs. */
	spec = spec_init(24, "#!/bin/sh\necho never\n");
	spec.uid = 4242424;
	run_fails(&spec, -ENOENT, "job 24: unknown uid 4242424");
	spec_fini(&spec);
}
END_TEST

static Suite *launch_suite(void)
{
	Suite *s = suite_create("launch");
	TCase *tc = tcase_create("launch");
	int naffinity = sizeof(affinity_cases) / sizeof(affinity_cases[0]);

	tcase_add_checked_fixture(tc, scratch_create, scratch_remove);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_stdout);
	tcase_add_test(tc, test_stderr);
	tcase_add_test(tc, test_workdir_env);
	tcase_add_test(tc, test_no_shebang);
	tcase_add_test(tc, test_session_leader);
	tcase_add_test(tc, test_signals_reset);
	tcase_add_test(tc, test_script_file);
	tcase_add_test(tc, test_chdir_fails);
	tcase_add_test(tc, test_output_fails);
	tcase_add_test(tc, test_spool_fails);
	tcase_add_loop_test(tc, test_affinity, 0, naffinity);
	tcase_add_test(tc, test_bind_fails);
	tcase_add_test(tc, test_not_root);
	tcase_add_test(tc, test_as_nobody);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(launch_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
