// SPDX-License-Identifier: MIT
/*
 * Usage and fairshare through core.h, on the virtual clock: time moves by
 * passing a larger 'now', never by sleeping.  Usage halves after one
 * half-life in both decay modes, running jobs are charged while they run,
 * a Charge=no queue charges nothing, accounts are checked at submit, usage
 * goes through the journal's export and back, and the fairshare plugins
 * (the built-in default and dlopen'ed ones) see the tree the core builds.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/msg.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "plugins/rota_plugin.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define HOUR 3600
/* a multiple of every half-life below: halvings fall on it */
#define T0 ((int64_t)1700000000 / (24 * HOUR) * (24 * HOUR))

static const char base_conf[] =
	"NodeName=n1 CPUs=8 RealMemory=16G\n"
	"QueueName=batch Default=yes\n"
	"QueueName=qexp Charge=no\n"
	"AccountName=physics Shares=40\n"
	"AccountName=chem Shares=60\n"
	"UserName=ana Account=physics\n"
	"UserName=bob Account=chem\n"
	"PriorityCalcPeriod=1m\n";

static struct core *core;
static struct rota_conf *conf;

static const char *builddir(void)
{
	const char *b = getenv("top_builddir");

	return b && *b ? b : ROTA_TOP_BUILDDIR;
}

/* A core from base_conf plus 'more' lines; the node registered at T0. */
static void start(const char *more)
{
	char *text = rota_xasprintf("%sPluginDir=%s/_plugins\n%s%s", base_conf,
				    builddir(), more,
				    strstr(more, "UsageHalfLife") ? ""
					: "UsageHalfLife=1h\n");
	struct rota_error err = { "" };
	struct rota_node_info info = {
		.name = "n1", .state = "UP", .reason = "",
		.sockets = 1, .cores = 8, .pus = 8, .memory_mb = 16 * 1024,
	};
	int rc = rota_conf_load_buffer("test.conf", text, strlen(text), &conf,
				       &err);

	free(text);
	ck_assert_msg(rc == 0, "config: %s", err.text);
	rc = core_create(conf, &core, &err);
	ck_assert_msg(rc == 0, "core: %s", err.text);
	ck_assert_int_eq(core_node_register(core, T0, &info, &err), 0);
}

static void teardown(void)
{
	core_destroy(core);
	rota_conf_destroy(conf);
	core = NULL;
	conf = NULL;
}

static int submit_as(int64_t now, const char *user, const char *account,
		     const char *queue, uint32_t cores, uint64_t mem_mb,
		     uint32_t *id, struct rota_error *err)
{
	struct rota_job_desc d = {
		.name = rota_xstrdup("job"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		.queue = queue ? rota_xstrdup(queue) : NULL,
		.account = account ? rota_xstrdup(account) : NULL,
		.ntasks = cores,
		.cpus_per_task = 1,
		.mem_mb = mem_mb,
	};
	struct core_submit s = { .desc = &d, .uid = 1000, .gid = 1000,
				 .user = user };
	int rc = core_submit(core, now, &s, id, err);

	rota_job_desc_clear(&d);
	return rc;
}

/* Submit and start a job now; returns its id. */
static uint32_t run(int64_t now, const char *user, const char *queue,
		    uint32_t cores, uint64_t mem_mb)
{
	struct rota_error err = { "" };
	uint32_t id = 0;
	int rc = submit_as(now, user, NULL, queue, cores, mem_mb, &id, &err);

	ck_assert_msg(rc == 0, "submit: %s", err.text);
	core_schedule(core, now);
	ck_assert_int_eq(core_job_find(core, id)->state, ROTA_JOB_RUNNING);
	return id;
}

static void end(int64_t now, uint32_t id)
{
	struct rota_msg_job_end e = {
		.job_id = id,
		.run = core_job_find(core, id)->run,
		.state = ROTA_JOB_COMPLETED,
	};
	struct rota_error err = { "" };

	ck_assert_int_eq(core_job_end(core, now, "n1", &e, &err), 0);
}

/* A node of the tree by user (or account with user NULL). */
static const struct rota_share_node *node(const char *account,
					  const char *user)
{
	const struct rota_share_tree *t = core_share_tree(core);

	for (size_t i = 0; i < t->n; i++) {
		const struct rota_share_node *n = &t->nodes[i];

		if (strcmp(n->account, account) == 0 &&
		    (user ? n->is_user && !strcmp(n->name, user)
			  : !n->is_user))
			return n;
	}
	ck_abort_msg("no node %s/%s", account, user ? user : "");
	return NULL;
}

static double usage_at(int64_t now, const char *account, const char *user)
{
	ck_assert_int_eq(core_share_update(core, now), 0);
	return node(account, user)->usage;
}

/* ---- decay ---------------------------------------------------------------- */

static const char *const modes[] = { "UsageDecay=exponential\n",
				     "UsageDecay=halving\n" };

/* 2 cores for 100 s: 200 core-seconds, half of it one half-life later. */
START_TEST(test_half_life)
{
	uint32_t id;

	start(modes[_i]);
	id = run(T0 + 10, "ana", NULL, 2, 0);
	end(T0 + 110, id);
	ck_assert_double_eq_tol(usage_at(T0 + 110, "physics", "ana"), 200,
				1e-9);
	ck_assert_double_eq_tol(usage_at(T0 + 110 + HOUR, "physics", "ana"),
				100, 1e-9);
	ck_assert_double_eq_tol(usage_at(T0 + 110 + 2 * HOUR, "physics",
					 NULL), 50, 1e-9);
	ck_assert_double_eq_tol(node("root", NULL)->usage, 50, 1e-9);
	ck_assert_double_eq_tol(node("chem", NULL)->usage, 0, 1e-12);
}
END_TEST

/* Between two cuts, halving keeps usage whole; exponential does not. */
START_TEST(test_halving_steps)
{
	uint32_t id;

	start("UsageDecay=halving\n");
	id = run(T0, "ana", NULL, 1, 0);
	end(T0 + 100, id);
	ck_assert_double_eq_tol(usage_at(T0 + HOUR - 1, "physics", "ana"),
				100, 1e-9);
	ck_assert_double_eq_tol(usage_at(T0 + HOUR, "physics", "ana"), 50,
				1e-9);
	ck_assert_double_eq_tol(usage_at(T0 + 3 * HOUR + 5, "physics", "ana"),
				12.5, 1e-9);
}
END_TEST

/* Charged every PriorityCalcPeriod while it runs, not only at its end. */
START_TEST(test_charged_while_running)
{
	start("UsageHalfLife=3650d\n");
	run(T0, "ana", NULL, 4, 0);
	core_tick(core, T0 + 60);
	ck_assert_double_eq_tol(node("physics", "ana")->usage, 240, 1e-3);
	ck_assert_uint_eq(node("physics", "ana")->running, 1);
	core_tick(core, T0 + 120);
	ck_assert_double_eq_tol(node("physics", NULL)->usage, 480, 1e-3);
}
END_TEST

/*
 * An association's running jobs are charged together: each from its own
 * start, up to its own end, and a job in a Charge=no queue adds nothing.
 */
START_TEST(test_charged_together)
{
	uint32_t a, b;

	start("UsageHalfLife=3650d\n");
	a = run(T0, "ana", NULL, 2, 0);
	run(T0 + 10, "ana", "qexp", 1, 0);
	b = run(T0 + 30, "ana", NULL, 3, 0);
	core_tick(core, T0 + 60);
	ck_assert_double_eq_tol(node("physics", "ana")->usage, 2 * 60 + 3 * 30,
				1e-3);
	ck_assert_double_eq_tol(core_job_usage(core, core_job_find(core, b)),
				90, 1e-9);
	end(T0 + 90, a);
	ck_assert_double_eq_tol(core_job_usage(core, core_job_find(core, a)),
				180, 1e-9);
	core_tick(core, T0 + 120);
	ck_assert_double_eq_tol(node("physics", "ana")->usage,
				2 * 90 + 3 * 90, 1e-3);
	end(T0 + 150, b);
	core_tick(core, T0 + 180);
	ck_assert_double_eq_tol(node("physics", "ana")->usage,
				2 * 90 + 3 * 120, 1e-3);
}
END_TEST

/*
 * A re-rating's view is of its own time, however late it is first read:
 * a job ending after it, or a user first seen after it, shows only at
 * the next one.
 */
START_TEST(test_view_of_rerating_time)
{
	uint32_t a;

	start("UsageHalfLife=3650d\n");
	a = run(T0, "ana", NULL, 4, 0);
	core_tick(core, T0 + 60); /* nothing pending: nothing reads it */
	end(T0 + 90, a);
	run(T0 + 100, "eve", NULL, 1, 0);
	ck_assert_double_eq_tol(node("physics", "ana")->usage, 240, 1e-3);
	ck_assert_uint_eq(node("physics", "ana")->running, 1);
	ck_assert_uint_eq(core_share_tree(core)->n, 5); /* no eve yet */
	ck_assert_uint_eq(core_share_tree(core)->now, T0 + 60);
	core_tick(core, T0 + 120);
	ck_assert_double_eq_tol(node("physics", "ana")->usage, 360, 1e-3);
	ck_assert_uint_eq(node("physics", "ana")->running, 0);
	ck_assert_double_eq_tol(node("root", "eve")->usage, 20, 1e-3);
}
END_TEST

/* Charge=no (IT4I's qexp) charges nothing; memory has a billing weight. */
START_TEST(test_charge_no_and_memory)
{
	uint32_t a, b;

	start("UsageHalfLife=3650d UsageMemWeight=0.5\n");
	a = run(T0, "ana", "qexp", 4, 0);
	b = run(T0, "bob", NULL, 1, 4096); /* 1 core + 4G x 0.5 = 3 */
	end(T0 + 100, a);
	end(T0 + 100, b);
	ck_assert_double_eq_tol(usage_at(T0 + 100, "physics", "ana"), 0, 1e-12);
	ck_assert_double_eq_tol(node("chem", "bob")->usage, 300, 1e-3);
}
END_TEST

/*
 * Charges between a re-rating and its first read, far enough apart that
 * the decay takes their delta to 0 and the next charge lists it again:
 * the list of charged associations must not grow past their number (it
 * overflowed; ASan saw it).
 */
START_TEST(test_deltas_decayed_to_zero)
{
	struct core_usage *u;
	size_t n = 0;

	start("UsageHalfLife=1s\n");
	run(T0, "ana", NULL, 4, 0);
	core_tick(core, T0 + 60); /* nothing pending: prepared, not filled */
	for (int k = 1; k <= 40; k++) {
		n = core_usage_take(core, T0 + 60 + k * 2000, true, &u);
		free(u);
	}
	ck_assert_uint_le(n, 1);
}
END_TEST

/*
 * A journal take and a requeue between a re-rating and its first read:
 * the view is still the re-rating's, and later totals count each second
 * once.
 */
START_TEST(test_take_and_requeue_before_read)
{
	struct core_usage *u;
	struct rota_error err = { "" };
	uint32_t a, p, b;

	start("UsageHalfLife=3650d\n");
	a = run(T0, "ana", NULL, 4, 0);
	b = run(T0, "ana", NULL, 2, 0);
	core_tick(core, T0 + 60);
	core_usage_take(core, T0 + 90, true, &u);
	free(u);
	ck_assert_int_eq(core_requeue(core, T0 + 100, b, "test", false), 0);
	ck_assert_int_eq(submit_as(T0 + 110, "bob", NULL, NULL, 8, 0, &p,
				   &err), 0);
	ck_assert_double_eq_tol(node("physics", "ana")->usage, 360, 1e-3);
	ck_assert_uint_eq(node("physics", "ana")->running, 2);
	ck_assert_uint_eq(node("chem", "bob")->pending, 0);
	core_tick(core, T0 + 120);
	/* a: 4 x 120; b: 2 x 100, then requeued (pending: the node is full) */
	ck_assert_double_eq_tol(node("physics", "ana")->usage, 480 + 200,
				1e-3);
	ck_assert_double_eq_tol(core_job_usage(core, core_job_find(core, a)),
				480, 1e-9);
	end(T0 + 130, a);
	core_schedule(core, T0 + 130);
	core_tick(core, T0 + 200);
	ck_assert_double_eq_tol(node("physics", "ana")->usage, 520 + 200 + 140,
				1e-3);
	ck_assert_double_eq_tol(node("chem", "bob")->usage, 0, 1e-3);
}
END_TEST

/*
 * The clock stepping back below a job's start: that job is not charged
 * for the time before its start, nor twice for the time after.
 */
START_TEST(test_clock_back)
{
	struct core_usage *u;

	start("UsageHalfLife=3650d\n");
	run(T0, "ana", NULL, 1, 0);
	core_tick(core, T0 + 100);
	run(T0 + 150, "ana", NULL, 2, 0);
	/* back, below the second job's start: the journal takes usage */
	core_usage_take(core, T0 + 120, true, &u);
	free(u);
	core_tick(core, T0 + 200);
	/* first: 200 s x 1; second: 50 s x 2 */
	ck_assert_double_eq_tol(node("physics", "ana")->usage, 200 + 100,
				1e-3);
}
END_TEST

/* ---- accounts at submit ----------------------------------------------------- */

static const struct {
	const char *more;
	const char *user;
	const char *account;
	int rc;
	const char *error;
	const char *charged; /* account the job gets */
} submits[] = {
	{ "", "ana", NULL, 0, "", "physics" },
	{ "", "ana", "physics", 0, "", "physics" },
	{ "", "ana", "chem", -EPERM,
	  "user 'ana' is not in account 'chem' (physics)", NULL },
	{ "", "ana", "nope", -ENOENT, "account 'nope' does not exist", NULL },
	{ "", "eve", NULL, 0, "", "root" },
	{ "", "eve", "root", 0, "", "root" },
	{ "", "eve", "chem", -EPERM, "user 'eve' is not in account 'chem'",
	  NULL },
	{ "EnforceAccounts=yes\n", "eve", NULL, -EPERM,
	  "user 'eve' has no account in rota.conf (EnforceAccounts=yes)",
	  NULL },
	{ "EnforceAccounts=yes\n", "ana", NULL, 0, "", "physics" },
	{ "UserName=ana Account=chem Default=yes\n", "ana", NULL, 0, "",
	  "chem" },
	{ "UserName=ana Account=chem\n", "ana", "nope", -ENOENT,
	  "account 'nope' does not exist", NULL },
};

/*
 * The view's sums are kept as charges and jobs come, not summed again
 * from the leaves at each re-rating: after any mix of submits, starts and
 * ends, and half-lives passing (new units), every account holds what its
 * children hold, and each user's job counts are its jobs as of the
 * re-rating.  The re-rating itself asks for the factors alone (fifo reads
 * no more): the tree read after it has every output made again from
 * these inputs (Fair-Tree's usage_eff is usage_norm).
 */
START_TEST(test_sums_kept)
{
	static const char *const users[] = { "ana", "bob", "eve" };
	uint32_t ids[400];
	size_t n = 0;
	unsigned seed = 11;
	int64_t now = T0;

	start("UsageHalfLife=10m\n");
	for (int step = 0; step < 400; step++) {
		struct rota_error err = { "" };
		const struct rota_share_tree *t;
		uint32_t pend[N(users)] = { 0 }, runn[N(users)] = { 0 };

		now += 20;
		if (rand_r(&seed) % 3 && n < N(ids)) {
			ck_assert_int_eq(submit_as(now, users[rand_r(&seed) % 3],
						   NULL, NULL,
						   1 + rand_r(&seed) % 4, 0,
						   &ids[n], &err),
					 0);
			n++;
		} else if (n) {
			const struct core_job *j = core_job_find(
				core, ids[rand_r(&seed) % n]);

			if (j && j->state == ROTA_JOB_RUNNING)
				end(now, j->id);
		}
		core_schedule(core, now);
		if ((now - T0) % 60)
			continue;
		core_tick(core, now);
		for (size_t i = 0; i < n; i++) {
			const struct core_job *j = core_job_find(core, ids[i]);

			for (size_t u = 0; j && u < N(users); u++) {
				if (strcmp(j->user, users[u]))
					continue;
				pend[u] += j->state == ROTA_JOB_PENDING;
				runn[u] += j->state == ROTA_JOB_RUNNING;
			}
		}
		t = core_share_tree(core);
		for (size_t u = 0; u < N(users); u++) {
			const struct rota_share_node *x = node(
				u == 2 ? "root" : u ? "chem" : "physics",
				users[u]);

			ck_assert_uint_eq(x->pending, pend[u]);
			ck_assert_uint_eq(x->running, runn[u]);
		}
		for (size_t i = 0; i < t->n; i++) {
			double usage = 0;
			uint32_t p = 0, r = 0;

			ck_assert(t->nodes[i].usage_eff ==
				  t->nodes[i].usage_norm);
			if (t->nodes[i].is_user)
				continue;
			for (uint32_t c = t->nodes[i].first_child;
			     c != ROTA_SHARE_NONE; c = t->nodes[c].next_sibling) {
				usage += t->nodes[c].usage;
				p += t->nodes[c].pending;
				r += t->nodes[c].running;
			}
			ck_assert_double_eq_tol(t->nodes[i].usage, usage,
						1e-9 * (usage + 1));
			/* usage_ref exactly: the children last to first */
			usage = 0;
			for (size_t c = t->n; c-- > i + 1;)
				if (t->nodes[c].parent == i)
					usage += t->usage_ref[c];
			ck_assert(t->usage_ref[i] == usage);
			ck_assert_uint_eq(t->nodes[i].pending, p);
			ck_assert_uint_eq(t->nodes[i].running, r);
		}
	}
}
END_TEST

/*
 * Two accounts whose users are charged alike tie exactly, whatever order
 * the charges and job counts came in (here A's users first, then B's
 * the other way round): Fair-Tree with MergeTies=yes then merges their
 * children, and each user's factor equals its twin's.
 */
START_TEST(test_equal_subtrees_tie)
{
	static const char *const order[] = { "a1", "b2", "a2", "b1" };
	const struct rota_share_tree *t;
	int64_t now = T0;

	start("AccountName=A Shares=10\nAccountName=B Shares=10\n"
	      "UserName=a1 Account=A\nUserName=a2 Account=A\n"
	      "UserName=b1 Account=B\nUserName=b2 Account=B\n"
	      "UsageHalfLife=7d\nFairshare=fairtree MergeTies=yes\n");
	/* within the node's timeout: it registered once, at T0 */
	for (int step = 0; step < 25; step++) {
		uint32_t ids[N(order)];

		for (size_t k = 0; k < N(order); k++)
			ids[k] = run(now, order[k], NULL,
				     order[k][1] == '1' ? 2 : 1, 0);
		now += 10;
		for (size_t k = N(order); k-- > 0;)
			end(now, ids[k]);
		core_tick(core, now);
		t = core_share_tree(core);
		ck_assert(t->usage_ref[node("A", NULL) - t->nodes] ==
			  t->usage_ref[node("B", NULL) - t->nodes]);
		ck_assert(node("A", "a1")->factor == node("B", "b1")->factor);
		ck_assert(node("A", "a2")->factor == node("B", "b2")->factor);
	}
}
END_TEST

/*
 * Idle long enough for the decay to underflow: usage is gone, and so is
 * usage_ref (the plugin's keys), so everyone ties again, as with no usage.
 */
START_TEST(test_decayed_to_nothing_ties)
{
	const struct rota_share_tree *t;
	uint32_t a;

	start("UsageHalfLife=1s\n");
	a = run(T0, "ana", NULL, 4, 0);
	end(T0 + 100, a);
	core_tick(core, T0 + 120);
	ck_assert(node("physics", "ana")->factor <
		  node("chem", "bob")->factor);
	core_tick(core, T0 + 3000); /* 2880 half-lives later */
	t = core_share_tree(core);
	ck_assert(node("physics", "ana")->usage == 0);
	ck_assert(t->usage_ref[node("physics", "ana") - t->nodes] == 0);
	ck_assert(node("physics", "ana")->factor ==
		  node("chem", "bob")->factor);
}
END_TEST

START_TEST(test_submit_account)
{
	struct rota_error err = { "" };
	uint32_t id = 0;
	int rc;

	start(submits[_i].more);
	rc = submit_as(T0, submits[_i].user, submits[_i].account, NULL, 1, 0,
		       &id, &err);
	ck_assert_int_eq(rc, submits[_i].rc);
	ck_assert_str_eq(err.text, submits[_i].error);
	if (rc == 0)
		ck_assert_str_eq(core_job_find(core, id)->desc.account,
				 submits[_i].charged);
	else
		ck_assert_uint_eq(core_job_count(core), 0);
}
END_TEST

/* ---- durability --------------------------------------------------------- */

/* What the journal takes comes back, decaying on from its time. */
START_TEST(test_usage_export_restore)
{
	struct core_usage *u, copy[4];
	struct rota_error err = { "" };
	uint32_t id;
	size_t n;

	start("");
	id = run(T0, "ana", NULL, 2, 0);
	run(T0, "eve", NULL, 1, 0);
	end(T0 + 100, id);
	n = core_usage_take(core, T0 + 200, false, &u);
	ck_assert_uint_eq(n, 2); /* ana ended; eve's charged to the take */
	ck_assert_uint_le(n, N(copy));
	for (size_t i = 0; i < n; i++) {
		copy[i] = u[i];
		copy[i].account = rota_xstrdup(u[i].account);
		copy[i].user = rota_xstrdup(u[i].user);
	}
	free(u);
	ck_assert_uint_eq(core_usage_take(core, T0 + 200, false, &u), 0);
	ck_assert_ptr_null(u);
	core_destroy(core);
	ck_assert_int_eq(core_create(conf, &core, &err), 0);
	core_usage_restore(core, copy, n, T0 + 200);
	ck_assert_double_eq_tol(usage_at(T0 + 200 + HOUR, "physics", "ana"),
				100 * exp2(-100.0 / HOUR), 1e-9);
	ck_assert_double_eq_tol(node("root", "eve")->usage, 100, 1e-9);
	for (size_t i = 0; i < n; i++) {
		free((char *)copy[i].account);
		free((char *)copy[i].user);
	}
}
END_TEST

/*
 * A restore after a rating that asked for the factors alone (fifo): the
 * tree read next is the last re-rating's, whole.  ana (about 1000 + 480)
 * is below carl (2000) then, so she ranks first; a restore that folded the
 * charges into ana's leaf but not the account's sum, with the plugin run
 * only at the read, ranked her second.
 */
START_TEST(test_restore_after_factors)
{
	const struct core_usage u[] = {
		{ .account = "physics", .user = "ana", .usage = 1000 },
		{ .account = "physics", .user = "carl", .usage = 2000 },
	};
	struct rota_error err = { "" };
	uint32_t a, c;

	start("UserName=carl Account=physics\n");
	core_usage_restore(core, u, N(u), T0);
	a = run(T0, "ana", NULL, 8, 0);
	ck_assert_int_eq(submit_as(T0, "carl", NULL, NULL, 1, 0, &c, &err),
			 0);
	ck_assert_int_eq(core_prio_update(core, T0 + 60), 0);
	end(T0 + 600, a);
	core_usage_restore(core, u, N(u), T0 + 600);
	ck_assert(node("physics", "ana")->factor >
		  node("physics", "carl")->factor);
	/* 1000 decayed to the rating, and 8 cores for 60 s charged then */
	ck_assert_double_eq_tol(node("physics", "ana")->usage,
				1000 * exp2(-60.0 / HOUR) + 480, 1e-6);
}
END_TEST

/* ---- the plugins over the core's tree ------------------------------------- */

/* The default, Fair-Tree: the user with no usage ranks first. */
START_TEST(test_fairtree_default)
{
	uint32_t id;

	start("");
	ck_assert_str_eq(core_share_plugin(core), "fairtree");
	id = run(T0, "ana", NULL, 2, 0);
	end(T0 + 100, id);
	core_share_update(core, T0 + 100);
	ck_assert_double_eq_tol(node("chem", "bob")->factor, 1.0, 1e-12);
	ck_assert_double_eq_tol(node("physics", "ana")->factor, 0.5, 1e-12);
	ck_assert(isinf(node("chem", NULL)->level_fs));
}
END_TEST

/* Flux's reading: 2^(-U/S): 1 unused, 0.5 as entitled. */
START_TEST(test_flux_convention)
{
	uint32_t a, b;

	start("Fairshare=classic Convention=flux\n");
	a = run(T0, "ana", NULL, 2, 0);
	b = run(T0, "bob", NULL, 3, 0);
	end(T0 + 100, a);
	end(T0 + 100, b);
	core_share_update(core, T0 + 100);
	ck_assert_double_eq_tol(node("physics", "ana")->factor, 0.5, 1e-9);
	ck_assert_double_eq_tol(node("chem", NULL)->factor, 0.5, 1e-9);
}
END_TEST

/* Grid Engine's tickets: all dealt, more to the one who used less. */
START_TEST(test_sharetree_tickets)
{
	struct rota_error err = { "" };
	uint32_t id, tmp;
	double ana, bob;

	start("Fairshare=sharetree Tickets=10000\n");
	id = run(T0, "ana", NULL, 8, 0);
	end(T0 + 1000, id);
	ck_assert_int_eq(submit_as(T0 + 1000, "ana", NULL, NULL, 8, 0, &tmp,
				   &err), 0);
	ck_assert_int_eq(submit_as(T0 + 1000, "bob", NULL, NULL, 8, 0, &tmp,
				   &err), 0);
	core_share_update(core, T0 + 1000);
	ana = node("physics", "ana")->tickets;
	bob = node("chem", "bob")->tickets;
	ck_assert_double_eq_tol(ana + bob, 10000, 1e-6);
	ck_assert(bob > ana);
	ck_assert_uint_eq(node("chem", "bob")->pending, 1);
}
END_TEST

static void terms_add_up(const struct core_job *job, void *arg)
{
	struct rota_prio_factor f[ROTA_PRIO_FACTORS_MAX];
	size_t n = core_prio_explain(core, job, f, N(f));
	double sum = 0;

	for (size_t i = 0; i < n; i++) /* "urgency.*" are urgency's parts */
		sum += strchr(f[i].name, '.') ? 0 : f[i].value;
	ck_assert_msg(n > 0 && fabs(sum - job->priority) < 1e-9,
		      "job %u: terms %.12g, priority %.12g", job->id, sum,
		      job->priority);
}

/*
 * Every rating's printed terms add up to its priority, also right after
 * it reorders the queue: the tickets explained are the ones the rating
 * dealt (in the order it dealt them), not dealt again in the new order.
 * Here ana's second job, in a queue of high urgency, overtakes her first
 * once rated, so dealt again it would hold the first job's tickets.
 */
START_TEST(test_sge_terms_add_up)
{
	struct rota_error err = { "" };
	int64_t t = T0 + 1000;
	uint32_t a, b, id;

	start("Fairshare=sharetree Tickets=10000\n"
	      "Priority=sge WeightTicket=1 WeightUrgency=1 "
	      "QueueUrgency=\"qexp:100000\"\n");
	id = run(T0, "bob", NULL, 8, 0);
	ck_assert_int_eq(submit_as(t, "ana", NULL, NULL, 8, 0, &a, &err), 0);
	ck_assert_int_eq(submit_as(t, "ana", NULL, "qexp", 8, 0, &b, &err),
			 0);
	end(T0 + 1000, id);
	for (int k = 0; k < 3; k++, t += 60) {
		core_prio_update(core, t);
		core_pending_foreach(core, terms_add_up, &t);
	}
	ck_assert(core_job_find(core, b)->priority >
		  core_job_find(core, a)->priority);
	ck_assert(core_job_find(core, a)->tickets > 0);
}
END_TEST

/*
 * Grid Engine's ranges through the core: urgency normalized over the
 * pending jobs not held and the running ones, a held job rated 0.
 * Slots x 100: running R 8 (800), pending A 2 (200) and B 6 (600), held
 * H 1 (100, out of the range): A (200 - 200) / 600 = 0, B 400 / 600,
 * R 1, H 0.  A running job's rating is kept for rota prio.
 */
START_TEST(test_sge_ranges)
{
	struct rota_error err = { "" };
	uint32_t r, a, b, h;

	start("Priority=sge WeightUrgency=1 WeightTicket=0 WeightPriority=0 "
	      "WeightWaitingTime=0\n");
	r = run(T0, "bob", NULL, 8, 0);
	ck_assert_int_eq(submit_as(T0, "ana", NULL, NULL, 2, 0, &a, &err), 0);
	ck_assert_int_eq(submit_as(T0, "ana", NULL, NULL, 6, 0, &b, &err), 0);
	ck_assert_int_eq(submit_as(T0, "ana", NULL, NULL, 1, 0, &h, &err), 0);
	ck_assert_int_eq(core_hold(core, T0, h, 0, true, false, &err), 0);
	core_prio_update(core, T0 + 10);
	ck_assert_double_eq_tol(core_job_find(core, a)->priority, 0, 1e-12);
	ck_assert_double_eq_tol(core_job_find(core, b)->priority, 400.0 / 600,
				1e-12);
	ck_assert_double_eq_tol(core_job_find(core, r)->priority, 1, 1e-12);
	ck_assert(core_job_find(core, h)->priority == 0);
}
END_TEST

/*
 * Grid Engine's dealing through the core (ctld/core/tickets.h): bob's
 * running job R holds all 10000 (alone among running jobs); ana's pending
 * A (2 cores) and B get her node's tickets / 1 and / (1 + 2), in id
 * order; her held H none, and it does not count among her pending jobs
 * until released, when it goes between them by id: / (1 + 2), B then
 * / (1 + 2 + 1).  ntckts is over
 * the most any job holds, R's: A's priority is A's tickets / 10000.
 */
START_TEST(test_sge_tickets_dealt)
{
	struct rota_error err = { "" };
	uint32_t r, a, b, h;
	double ta;

	start("Fairshare=sharetree Tickets=10000\n"
	      "Priority=sge WeightUrgency=0 WeightTicket=1 "
	      "WeightPriority=0\n");
	r = run(T0, "bob", NULL, 8, 0);
	ck_assert_int_eq(submit_as(T0, "ana", NULL, NULL, 2, 0, &a, &err), 0);
	ck_assert_int_eq(submit_as(T0, "ana", NULL, NULL, 1, 0, &h, &err), 0);
	ck_assert_int_eq(submit_as(T0, "ana", NULL, NULL, 1, 0, &b, &err), 0);
	ck_assert_int_eq(core_hold(core, T0, h, 0, true, false, &err), 0);
	core_prio_update(core, T0 + 10);
	ck_assert_uint_eq(node("physics", "ana")->pending, 2);
	ck_assert_double_eq_tol(core_job_find(core, r)->tickets, 10000, 1e-6);
	ta = core_job_find(core, a)->tickets;
	ck_assert(ta > 0 && ta < 10000);
	ck_assert_double_eq_tol(core_job_find(core, b)->tickets, ta / 3, 1e-6);
	ck_assert(core_job_find(core, h)->tickets == 0);
	ck_assert_double_eq_tol(core_job_find(core, a)->priority, ta / 10000,
				1e-12);
	ck_assert_int_eq(core_release(core, T0 + 20, h, 0, true, &err), 0);
	core_prio_update(core, T0 + 30);
	ck_assert_uint_eq(node("physics", "ana")->pending, 3);
	ta = core_job_find(core, a)->tickets;
	ck_assert_double_eq_tol(core_job_find(core, h)->tickets, ta / 3,
				1e-6);
	ck_assert_double_eq_tol(core_job_find(core, b)->tickets, ta / 4,
				1e-6);
}
END_TEST

/*
 * Departments through the core: ana in d1 (FShares=1, OTickets=60), bob
 * (listed) and cid (a guest) in no department, so in
 * defaultdepartment, to which its line gives FShares=3; only the
 * department weighs.  Functional rounds (rule 9): cid (3 / 0.001) first,
 * the whole sum: 1000; bob, cid's category, then 3/2 / 3.001 beats ana's
 * 1 / 3.001 and gets 1000 x 1.5/3 = 500; ana last 1000 x 1/4 = 250.
 * Override: ana d1's 60, the others none.
 */
START_TEST(test_sge_departments)
{
	struct rota_error err = { "" };
	uint32_t a, b, c;

	start("Fairshare=sharetree Tickets=10000 "
	      "WeightTicketsFunctional=1000 WeightUser=0 WeightProject=0 "
	      "WeightDepartment=1 WeightJob=0\n"
	      "Priority=sge WeightUrgency=0 WeightTicket=1 WeightPriority=0\n"
	      "DepartmentName=d1 Users=ana FShares=1 OTickets=60\n"
	      "DepartmentName=defaultdepartment FShares=3\n");
	ck_assert_int_eq(submit_as(T0, "ana", NULL, NULL, 8, 0, &a, &err), 0);
	ck_assert_int_eq(submit_as(T0 + 1, "cid", NULL, NULL, 8, 0, &c, &err),
			 0);
	ck_assert_int_eq(submit_as(T0 + 2, "bob", NULL, NULL, 8, 0, &b, &err),
			 0);
	core_prio_update(core, T0 + 10);
	ck_assert_double_eq_tol(core_job_find(core, c)->ftickets, 1000, 1e-6);
	ck_assert_double_eq_tol(core_job_find(core, b)->ftickets, 500, 1e-6);
	ck_assert_double_eq_tol(core_job_find(core, a)->ftickets, 250, 1e-6);
	ck_assert_double_eq_tol(core_job_find(core, a)->otickets, 60, 1e-9);
	ck_assert(core_job_find(core, b)->otickets == 0);
	ck_assert(core_job_find(core, c)->otickets == 0);
}
END_TEST

/* A bad Convention stops the core with the line, like any setting. */
START_TEST(test_bad_convention)
{
	char *text = rota_xasprintf("PluginDir=%s/_plugins\n"
				    "Fairshare=classic Convention=odd\n",
				    builddir());
	struct rota_error err = { "" };
	struct core *c = NULL;

	ck_assert_int_eq(rota_conf_load_buffer("test.conf", text, strlen(text),
					       &conf, &err), 0);
	free(text);
	ck_assert_int_eq(core_create(conf, &c, &err), -EINVAL);
	ck_assert_ptr_null(c);
	ck_assert_str_eq(err.text, "test.conf:2: Convention: 'odd' is not "
				   "one of native, flux");
}
END_TEST

static Suite *share_suite(void)
{
	Suite *s = suite_create("share");
	TCase *tc = tcase_create("usage");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_loop_test(tc, test_half_life, 0, N(modes));
	tcase_add_test(tc, test_halving_steps);
	tcase_add_test(tc, test_charged_while_running);
	tcase_add_test(tc, test_view_of_rerating_time);
	tcase_add_test(tc, test_charged_together);
	tcase_add_test(tc, test_deltas_decayed_to_zero);
	tcase_add_test(tc, test_take_and_requeue_before_read);
	tcase_add_test(tc, test_clock_back);
	tcase_add_test(tc, test_sums_kept);
	tcase_add_test(tc, test_equal_subtrees_tie);
	tcase_add_test(tc, test_decayed_to_nothing_ties);
	tcase_add_test(tc, test_charge_no_and_memory);
	tcase_add_test(tc, test_sge_terms_add_up);
	tcase_add_test(tc, test_sge_ranges);
	tcase_add_test(tc, test_sge_tickets_dealt);
	tcase_add_test(tc, test_sge_departments);
	tcase_add_loop_test(tc, test_submit_account, 0, N(submits));
	tcase_add_test(tc, test_usage_export_restore);
	tcase_add_test(tc, test_restore_after_factors);
	tcase_add_test(tc, test_fairtree_default);
	tcase_add_test(tc, test_flux_convention);
	tcase_add_test(tc, test_sharetree_tickets);
	tcase_add_test(tc, test_bad_convention);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(share_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
