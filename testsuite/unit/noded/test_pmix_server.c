// SPDX-License-Identifier: MIT
/*
 * noded/pmix_server: the PMIx server of node 1 of a 2-node, 5-task step,
 * each test in a process of its own (Check forks; libpmix's server starts
 * once per process) with its own scratch directory: what it registers
 * (read back through the server's own PMIx_Get), each task's environment,
 * and the refusals.  Fences need clients: t0042-pmix.sh runs them.
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
#include <unistd.h>

#include <pmix.h>

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
	ck_assert_ptr_nonnull(mkdtemp(dir));
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
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(server_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
