// SPDX-License-Identifier: MIT
/*
 * A step task's environment (noded/step_env.c): our variables are right
 * for every rank of a three-node step, the wire-up server's extras beat
 * the client's variables of the same name, and nothing the client or the
 * wire-up server sends replaces ours (ROTA_PROCID above all: MPI ranks
 * come from it).
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "noded/step.h"

#define N(a) ((int)(sizeof(a) / sizeof(*(a))))

static char *nodes[] = { "n01", "n02", "n03", NULL };
static uint32_t counts[] = { 3, 2, 2 };
static uint32_t cred_cores[] = { 4, 5, 6, 7 };

/* Node 'node_id' of job 42's step 7: 3, 2 and 2 tasks of 2 cpus. */
static struct rota_step_cred cred_for(uint32_t node_id)
{
	return (struct rota_step_cred){
		.job_id = 42,
		.run = 1,
		.step_id = 7,
		.uid = 1000,
		.gid = 1000,
		.node = nodes[node_id],
		.node_id = node_id,
		.nodes = nodes,
		.counts = counts,
		.nnodes = 3,
		.cores = cred_cores,
		.ncores = 4,
		.cpus_per_task = 2,
	};
}

/* The value of 'name' in 'env', or NULL; fails on a second one. */
static const char *get(char *const *env, const char *name)
{
	size_t len = strlen(name);
	const char *found = NULL;

	for (size_t i = 0; env[i]; i++) {
		if (strncmp(env[i], name, len) != 0 || env[i][len] != '=')
			continue;
		ck_assert_msg(!found, "%s set twice", name);
		found = env[i] + len + 1;
	}
	return found;
}

static void is(char *const *env, const char *name, const char *want)
{
	const char *v = get(env, name);

	ck_assert_msg(v, "%s: not set", name);
	ck_assert_str_eq(v, want);
}

static void env_free(char **env)
{
	for (size_t i = 0; env[i]; i++)
		free(env[i]);
	free(env);
}

struct task {
	uint32_t node_id;
	uint32_t rank;
	uint32_t local;
	const char *cores;	/* ROTA_TASK_CORES */
};

static const struct task tasks[] = {
	{ 0, 0, 0, "4,5" },
	{ 0, 2, 2, "6,7" },
	{ 1, 3, 0, "0,1" },
	{ 2, 6, 1, "2" },
};

START_TEST(test_ours)
{
	const struct task *t = &tasks[_i];
	struct rota_step_cred c = cred_for(t->node_id);
	uint32_t cores[2];
	uint32_t ncores = (uint32_t)strlen(t->cores) / 2 + 1;
	char want[32];
	char **env;

	for (uint32_t k = 0; k < ncores; k++)
		cores[k] = (uint32_t)(t->cores[2 * k] - '0');
	env = step_task_env(&c, t->rank, t->local, cores, ncores, NULL, NULL,
			    NULL);
	is(env, "ROTA_STEP_ID", "7");
	snprintf(want, sizeof(want), "%u", t->rank);
	is(env, "ROTA_PROCID", want);
	snprintf(want, sizeof(want), "%u", t->local);
	is(env, "ROTA_LOCALID", want);
	snprintf(want, sizeof(want), "%u", t->node_id);
	is(env, "ROTA_NODEID", want);
	is(env, "ROTA_NTASKS", "7");
	is(env, "ROTA_STEP_NUM_TASKS", "7");
	is(env, "ROTA_STEP_NUM_NODES", "3");
	is(env, "ROTA_STEP_NODELIST", "n[01-03]");
	is(env, "ROTA_STEP_TASKS_ON_NODE", t->node_id ? "2" : "3");
	is(env, "ROTA_NODENAME", nodes[t->node_id]);
	is(env, "ROTA_JOB_ID", "42");
	is(env, "ROTA_CPUS_PER_TASK", "2");
	is(env, "ROTA_TASK_CORES", t->cores);
	env_free(env);
}
END_TEST

/* The wire-up server's variables beat the client's; ours beat both. */
START_TEST(test_precedence)
{
	struct rota_step_cred c = cred_for(1);
	uint32_t core = 3;
	char *client[] = {
		"PATH=/usr/bin",   "PMI_RANK=99",	  "ROTA_PROCID=0",
		"ROTA_NTASKS=1",   "ROTA_PROCIDX=kept", "EMPTY=",
		"PMI_FD=client",   NULL,
	};
	char *extra[] = { "PMI_RANK=3", "PMI_FD=9", "ROTA_PROCID=5",
			  "PMIX_RANK=3", NULL };
	char **env = step_task_env(&c, 3, 0, &core, 1, NULL, client, extra);
	size_t n = 0;

	is(env, "ROTA_PROCID", "3");
	is(env, "ROTA_NTASKS", "7");
	is(env, "PMI_RANK", "3");
	is(env, "PMI_FD", "9");
	is(env, "PMIX_RANK", "3");
	is(env, "PATH", "/usr/bin");
	is(env, "ROTA_PROCIDX", "kept");
	is(env, "EMPTY", "");
	is(env, "ROTA_TASK_CORES", "3");
	while (env[n])
		n++;
	/* 13 of ours, 3 of the extras, 3 of the client's */
	ck_assert_uint_eq(n, 13 + 3 + 3);
	env_free(env);
}
END_TEST

/* Odd client entries: one without '=' does not hide ours (it goes). */
START_TEST(test_odd_client)
{
	struct rota_step_cred c = cred_for(0);
	uint32_t core = 0;
	char *client[] = { "ROTA_PROCID", "=x", "A=1", "A=2", NULL };
	char **env = step_task_env(&c, 1, 1, &core, 1, NULL, client, NULL);
	size_t n = 0;

	is(env, "ROTA_PROCID", "1");
	while (env[n])
		n++;
	ck_assert_uint_eq(n, 13 + 3);
	for (size_t i = 0; env[i]; i++)
		ck_assert_str_ne(env[i], "ROTA_PROCID");
	ck_assert_str_eq(env[13], "=x");
	ck_assert_str_eq(env[14], "A=1");
	ck_assert_str_eq(env[15], "A=2");
	env_free(env);
}
END_TEST

static Suite *step_env_suite(void)
{
	Suite *s = suite_create("step_env");
	TCase *tc = tcase_create("env");

	tcase_add_loop_test(tc, test_ours, 0, N(tasks));
	tcase_add_test(tc, test_precedence);
	tcase_add_test(tc, test_odd_client);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(step_env_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
