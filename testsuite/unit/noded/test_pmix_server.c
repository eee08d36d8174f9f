// SPDX-License-Identifier: MIT
/*
 * noded/pmix_server: the PMIx server of node 1 of a 2-node, 5-task step,
 * each test in a process of its own (Check forks; libpmix's server starts
 * once per process) with its own scratch directory: what it registers
 * (read back through the server's own PMIx_Get), each task's environment,
 * the refusals, and fences: this program run again with "client" is a
 * PMIx client (a fresh process: libpmix's server state must not be
 * inherited) that puts a value, fences, and reads its peer's.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <signal.h>

#include "common/evloop.h"
#include "noded/wireup.h"

static const char *const names[] = { "n01", "n02" };
static const uint32_t count[] = { 2, 3 };
static const uint32_t first[] = { 0, 2 };
static uint32_t ranks[] = { 0, 1, 2, 3, 4 };

static char dir[] = "/tmp/test_pmix_server.XXXXXX";
static char complaint[256];
static int allgathers;

static int fake_allgather(void *ctx, const void *blob, size_t len)
{
	allgathers++;
	return 0;
}

static void fake_complain(void *ctx, const char *line)
{
	snprintf(complaint, sizeof(complaint), "%s", line);
}

static const struct wireup_ops ops = {
	.allgather = fake_allgather,
	.complain = fake_complain,
};

static struct wireup_step step = {
	.job_id = 42, .step_id = 7, .ntasks = 5, .nnodes = 2, .node_id = 1,
	.nodes = names, .count = count, .first = first, .ranks = ranks,
	.ncpus_per_task = 1,
};

static void setup(void)
{
	char user[sizeof(dir) + 8];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* as noded/step_start.c makes it: the tasks' part, "user" */
	snprintf(user, sizeof(user), "%s/user", dir);
	ck_assert_int_eq(mkdir(user, 0700), 0);
	step.tmpdir = dir;
	step.uid = getuid();
	step.gid = getgid();
}

static int remove_cb(const char *path, const struct stat *sb, int flag,
		     struct FTW *ftw)
{
	return remove(path);
}

/* what libpmix left in the directory too */
static void teardown(void)
{
	nftw(dir, remove_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static struct wireup_server *start(struct rota_evloop **loop)
{
	struct wireup_server *s = NULL;
	char err[160] = "";

	*loop = rota_evloop_create();
	ck_assert_int_eq(wireup_pmix.create(*loop, &step, &ops, &s, err,
					    sizeof(err)),
			 0);
	ck_assert_str_eq(err, "");
	return s;
}

static bool has(char **env, const char *var)
{
	for (; env && *env; env++)
		if (!strcmp(*env, var))
			return true;
	return false;
}

START_TEST(test_task_env)
{
	struct rota_evloop *loop;
	struct wireup_server *s = start(&loop);
	char err[160] = "";
	char **env = NULL;
	int fd = 99;

	ck_assert_int_eq(wireup_pmix.task_env(s, 3, &env, &fd, err,
					      sizeof(err)),
			 0);
	ck_assert_int_eq(fd, -1);
	ck_assert(has(env, "PMIX_NAMESPACE=rota.42.7"));
	ck_assert(has(env, "PMIX_RANK=3"));
	ck_assert(has(env, "PMIX_HOSTNAME=n02"));
	ck_assert(has(env, "OMPI_MCA_ess=pmi"));
	ck_assert(has(env, "OMPI_MCA_schizo=^orte"));
	wireup_pmix.task_started(s, 3, 1234);

	ck_assert_int_eq(wireup_pmix.task_env(s, 3, &env, &fd, err,
					      sizeof(err)),
			 -EEXIST);
	ck_assert_str_eq(err, "pmix: rank 3 started twice");
	ck_assert_int_eq(wireup_pmix.task_env(s, 1, &env, &fd, err,
					      sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "pmix: rank 1 does not run here");
	ck_assert_ptr_null(env);
	ck_assert_int_eq(wireup_pmix.task_env(s, 5, &env, &fd, err,
					      sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "pmix: rank 5 does not run here");
	/* a task that could not be forked is forgotten */
	ck_assert_int_eq(wireup_pmix.task_env(s, 4, &env, &fd, err,
					      sizeof(err)),
			 0);
	wireup_pmix.task_started(s, 4, -1);
	wireup_pmix.destroy(s);
	rota_evloop_destroy(loop);
}
END_TEST

/* 'key' of 'rank' (PMIX_RANK_WILDCARD: the job's) as libpmix stored it. */
static pmix_value_t *get(pmix_rank_t rank, const char *key)
{
	pmix_proc_t proc;
	pmix_value_t *v = NULL;
	pmix_info_t info;
	bool yes = true;

	PMIX_LOAD_PROCID(&proc, "rota.42.7", rank);
	PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &yes, PMIX_BOOL);
	ck_assert_msg(PMIx_Get(&proc, key, &info, 1, &v) == PMIX_SUCCESS,
		      "rank %u key %s", rank, key);
	PMIX_INFO_DESTRUCT(&info);
	return v;
}

static uint32_t get_u32(pmix_rank_t rank, const char *key)
{
	pmix_value_t *v = get(rank, key);
	uint32_t x;

	ck_assert_int_eq(v->type, PMIX_UINT32);
	x = v->data.uint32;
	PMIX_VALUE_RELEASE(v);
	return x;
}

static uint16_t get_u16(pmix_rank_t rank, const char *key)
{
	pmix_value_t *v = get(rank, key);
	uint16_t x;

	ck_assert_int_eq(v->type, PMIX_UINT16);
	x = v->data.uint16;
	PMIX_VALUE_RELEASE(v);
	return x;
}

static void check_str(pmix_rank_t rank, const char *key, const char *want)
{
	pmix_value_t *v = get(rank, key);

	ck_assert_int_eq(v->type, PMIX_STRING);
	ck_assert_str_eq(v->data.string, want);
	PMIX_VALUE_RELEASE(v);
}

START_TEST(test_registered)
{
	struct rota_evloop *loop;
	struct wireup_server *s = start(&loop);

	ck_assert_uint_eq(get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE), 5);
	ck_assert_uint_eq(get_u32(PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE), 5);
	ck_assert_uint_eq(get_u32(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE), 3);
	ck_assert_uint_eq(get_u32(PMIX_RANK_WILDCARD, PMIX_NUM_NODES), 2);
	check_str(PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, "2,3,4");
	check_str(PMIX_RANK_WILDCARD, PMIX_JOBID, "42.7");
	ck_assert_uint_eq(get_u16(4, PMIX_LOCAL_RANK), 2);
	ck_assert_uint_eq(get_u16(1, PMIX_LOCAL_RANK), 1);
	check_str(1, PMIX_HOSTNAME, "n01");
	check_str(4, PMIX_HOSTNAME, "n02");
	/*
	 * libpmix 4.2.2 answers a remote rank's PMIX_NODEID with NOT-FOUND
	 * whatever is registered (its node-level lookup); Open MPI's start
	 * does without it
	 */
	ck_assert_uint_eq(get_u32(4, PMIX_NODEID), 1);
	wireup_pmix.destroy(s);
	rota_evloop_destroy(loop);
}
END_TEST

START_TEST(test_stray_done)
{
	struct rota_evloop *loop;
	struct wireup_server *s = start(&loop);

	wireup_pmix.done(s, "\0\0\0\0\0\0\0\0", 8);
	ck_assert_str_eq(complaint,
			 "pmix: an allgather completed that no fence started");
	ck_assert_int_eq(allgathers, 0);
	wireup_pmix.destroy(s);
	rota_evloop_destroy(loop);
}
END_TEST

START_TEST(test_bad_step)
{
	struct rota_evloop *loop = rota_evloop_create();
	struct wireup_server *s = (struct wireup_server *)1;
	char err[160] = "";

	ranks[4] = 1;
	ck_assert_int_eq(wireup_pmix.create(loop, &step, &ops, &s, err,
					    sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "pmix: node 1: rank 1 given twice");
	ck_assert_ptr_null(s);
	ranks[4] = 4;
	rota_evloop_destroy(loop);
}
END_TEST

/*
 * libpmix's own files stay in root's directory, out of the tasks' reach:
 * the server does not give it away (the tasks get "user" in it)
 */
START_TEST(test_tmpdir_owner)
{
	struct rota_evloop *loop;
	struct wireup_server *s;
	struct stat sb;

	if (geteuid() != 0)
		return;
	step.uid = 65534;
	step.gid = 65534;
	s = start(&loop);
	ck_assert_int_eq(stat(dir, &sb), 0);
	ck_assert_uint_eq(sb.st_uid, 0);
	wireup_pmix.destroy(s);
	rota_evloop_destroy(loop);
}
END_TEST

/* a node without tasks would never join a fence: refused */
START_TEST(test_empty_node)
{
	static const uint32_t all_on_0[] = { 5, 0 };
	static const uint32_t first_0[] = { 0, 5 };
	struct rota_evloop *loop = rota_evloop_create();
	struct wireup_server *s = NULL;
	struct wireup_step st = step;
	char err[160] = "";

	st.count = all_on_0;
	st.first = first_0;
	ck_assert_int_eq(wireup_pmix.create(loop, &st, &ops, &s, err,
					    sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "pmix: node 1: 0 tasks (1 to 65535)");
	ck_assert_ptr_null(s);
	rota_evloop_destroy(loop);
}
END_TEST

/* The client: exit 0 when the fence and the peer's value came through. */
static int client_main(void)
{
	pmix_proc_t me;
	pmix_proc_t peer;
	pmix_value_t val;
	pmix_value_t *got = NULL;
	pmix_info_t info;
	bool yes = true;
	int rc = 1;

	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 3;
	PMIX_VALUE_LOAD(&val, &me.rank, PMIX_UINT32);
	PMIx_Put(PMIX_GLOBAL, "rota.test", &val);
	PMIx_Commit();
	PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
	if (PMIx_Fence(NULL, 0, &info, 1) != PMIX_SUCCESS) {
		rc = 2;
		goto out;
	}
	PMIX_LOAD_PROCID(&peer, me.nspace, 1 - me.rank); /* on this node */
	if (PMIx_Get(&peer, "rota.test", NULL, 0, &got) == PMIX_SUCCESS &&
	    got->type == PMIX_UINT32 && got->data.uint32 == peer.rank)
		rc = 0;
out:
	PMIx_Finalize(NULL, 0);
	return rc;
}

/*
 * Node 0 of a step of 3 tasks on 2 nodes (libpmix settles a fence of local
 * clients alone): the test plays node 1, whose blob is empty.
 */
static const uint32_t two_one[] = { 2, 1 };
static const uint32_t at0_2[] = { 0, 2 };

struct fence_run {
	struct wireup_server *s;
	bool bad;	/* answer with a broken concatenation */
	int running;
	pid_t pid[2];
	int status[2];
};

static struct fence_run run;

static int answer_allgather(void *ctx, const void *blob, size_t len)
{
	unsigned char *all = calloc(1, len + 8);

	allgathers++;
	all[0] = len >> 24;
	all[1] = len >> 16;
	all[2] = len >> 8;
	all[3] = len;
	memcpy(all + 4, blob, len);
	/* from inside allgather(), as a step supervisor may */
	wireup_pmix.done(run.s, all, run.bad ? 3 : len + 8);
	free(all);
	return 0;
}

static void reaped(struct rota_evloop *loop, int signo, void *arg)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		run.status[2 - run.running] = status;
		if (--run.running == 0)
			rota_evloop_stop(loop);
	}
}

static void too_long(struct rota_evloop *loop, void *arg)
{
	kill(run.pid[0], SIGKILL);
	kill(run.pid[1], SIGKILL);
	ck_abort_msg("clients still running after 20 s");
}

/* Start ranks 0 and 1 as clients, run the loop until both exited. */
static void fence_with_clients(bool bad)
{
	static const struct wireup_ops answer = {
		.allgather = answer_allgather,
		.complain = fake_complain,
	};
	struct rota_evloop *loop = rota_evloop_create();
	struct wireup_step st = step;
	char err[160] = "";
	uint32_t r;

	st.ntasks = 3;
	st.node_id = 0;
	st.count = two_one;
	st.first = at0_2;
	run = (struct fence_run){ .bad = bad };
	ck_assert_int_eq(rota_evloop_add_signal(loop, SIGCHLD, reaped, NULL),
			 0);
	rota_evloop_add_timer(loop, 20000, false, too_long, NULL);
	ck_assert_int_eq(wireup_pmix.create(loop, &st, &answer, &run.s, err,
					    sizeof(err)),
			 0);
	for (r = 0; r < 2; r++) {
		char **env;
		int fd;
		pid_t pid;

		ck_assert_int_eq(wireup_pmix.task_env(run.s, r, &env, &fd, err,
						      sizeof(err)),
				 0);
		pid = fork();
		if (pid == 0) {
			sigset_t none;

			sigemptyset(&none);
			sigprocmask(SIG_SETMASK, &none, NULL);
			for (; *env; env++)
				putenv(*env);
			execl("/proc/self/exe", "test_pmix_server", "client",
			      (char *)NULL);
			_exit(127);
		}
		wireup_pmix.task_started(run.s, r, pid);
		run.pid[r] = pid;
		run.running++;
	}
	rota_evloop_run(loop);
	wireup_pmix.destroy(run.s);
	rota_evloop_destroy(loop);
}

START_TEST(test_fence)
{
	fence_with_clients(false);
	ck_assert_int_eq(allgathers, 1);
	ck_assert(WIFEXITED(run.status[0]) && !WEXITSTATUS(run.status[0]));
	ck_assert(WIFEXITED(run.status[1]) && !WEXITSTATUS(run.status[1]));
}
END_TEST

START_TEST(test_fence_broken)
{
	fence_with_clients(true);
	ck_assert_int_eq(allgathers, 1);
	ck_assert_str_eq(complaint, "allgather: 0 of 2 blobs");
	ck_assert(WIFEXITED(run.status[0]) && WEXITSTATUS(run.status[0]) == 2);
	ck_assert(WIFEXITED(run.status[1]) && WEXITSTATUS(run.status[1]) == 2);
}
END_TEST

static Suite *server_suite(void)
{
	Suite *s = suite_create("pmix_server");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_task_env);
	tcase_add_test(tc, test_registered);
	tcase_add_test(tc, test_stray_done);
	tcase_add_test(tc, test_bad_step);
	tcase_add_test(tc, test_empty_node);
	tcase_add_test(tc, test_tmpdir_owner);
	tcase_add_test(tc, test_fence);
	tcase_add_test(tc, test_fence_broken);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	SRunner *sr;
	int failed;

	if (argc > 1 && !strcmp(argv[1], "client"))
		return client_main();
	sr = srunner_create(server_suite());

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
