// SPDX-License-Identifier: MIT
/*
 * Grid Engine's override and functional tickets and policy_hierarchy
 * (ctld/core/ftickets.h) on bench/oracle's functional scenario, first
 * with its departments left out, then (dept_*) with them as Grid Engine
 * ran it.  The override numbers are capture 2's of a real Grid Engine
 * 8.1.9 (bench/oracle/out-functional, FINDINGS.md rule 7); the
 * functional ones are worked by hand from rules 8-11 (weights 0.4 / 0.3
 * / 0.1 with no department weigh 0.5 / 0.375 / 0.125), and
 * bench/oracle/model_policies.py, which gives every captured ticket
 * within 1, gives them too; with departments (weight_department 0.2)
 * they are the captures' own, to Grid Engine's truncation.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctld/core/ftickets.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * entities: users, then accounts (Grid Engine's projects), then
 * departments: deptA (oracle1, oracle2), deptB (oracle3), and
 * defaultdepartment (rotatest1, in none)
 */
enum { O1, O2, O3, RT, PA, PB, DA, DB, DD, NENTS };

static struct ticket_entity ents[NENTS];
static struct ticket_job jobs[9];

/*
 * The scenario: 103 and 104 run, the rest pend (FINDINGS.md rule 7);
 * 'depts': in their departments (else in none, as before Rota had them).
 */
static void scenario_of(bool depts)
{
	static const uint32_t dept_of[NENTS] = { [O1] = DA, [O2] = DA,
						 [O3] = DB, [RT] = DD };
	static const struct {
		uint32_t id, user, project, js, ot;
		bool running;
	} s[] = {
		{ 103, O1, PA, 0, 0, true },
		{ 104, O3, TICKET_NONE, 5, 0, true },
		{ 105, O1, TICKET_NONE, 10, 1000, false },
		{ 106, O2, PB, 0, 0, false },
		{ 107, O2, PA, 50, 0, false },
		{ 108, O3, PB, 0, 0, false },
		{ 109, O1, PA, 0, 0, false },
		{ 110, RT, TICKET_NONE, 20, 0, false },
		{ 111, O3, TICKET_NONE, 5, 0, false },
	};
	static const struct ticket_entity e[NENTS] = {
		[O1] = { 10, 0, 0 },  [O2] = { 30, 400, 0 },
		[O3] = { 60, 300, 0 }, [RT] = { 0, 0, 0 },
		[PA] = { 25, 0, 0 },  [PB] = { 75, 600, 0 },
		[DA] = { 30, 0, 0 },  [DB] = { 70, 0, 0 },
		[DD] = { 0, 0, 0 },
	};

	memcpy(ents, e, sizeof(ents));
	for (size_t i = 0; i < N(s); i++)
		jobs[i] = (struct ticket_job){
			.id = s[i].id,
			.node = TICKET_NONE,
			.slots = 1,
			.running = s[i].running,
			.submit = (int64_t)i,
			.user = s[i].user,
			.project = s[i].project,
			.dept = depts ? dept_of[s[i].user] : TICKET_NONE,
			.jobshare = s[i].js,
			.oticket = s[i].ot,
		};
}

static void scenario(void)
{
	scenario_of(false);
}

static struct rota_ticket_policy policy(const char *hierarchy)
{
	struct rota_ticket_policy p = {
		.functional = 10000,
		.weight_user = 0.4,
		.weight_project = 0.3,
		.weight_job = 0.1,
		.max_functional = 200,
		.share_functional = true,
		.share_override = true,
	};

	snprintf(p.hierarchy, sizeof(p.hierarchy), "%s", hierarchy);
	return p;
}

static const struct ticket_job *job(uint32_t id)
{
	for (size_t i = 0; i < N(jobs); i++)
		if (jobs[i].id == id)
			return &jobs[i];
	ck_abort_msg("no job %u", id);
	return NULL;
}

/* No share tree: the share-tree part deals nothing. */
static void deal(const struct rota_ticket_policy *p)
{
	struct rota_share_tree t = { 0 };

	ftickets_deal(p, ents, &t, jobs, N(jobs));
}

#define ck_tix(id, field, want)                                                \
	ck_assert_msg(fabs(job(id)->field - (want)) < 0.001,                   \
		      "job %u " #field " %.4f, want %.4f", (unsigned)(id),     \
		      job(id)->field, (double)(want))

/*
 * Rule 7, capture 2's numbers: 104 runs alone for oracle3: 300.  Pending:
 * 105 (-ot 1000) and 106 (oracle2 400 + pB 600) tie at 1000, 105 first
 * (lower id); then 108: oracle3 300 / (1 running + 1) + pB 600 / 2 = 450
 * (106 took pB's first share); 111: 300 / 3 = 100; 107: 400 / 2 = 200.
 */
START_TEST(override_shared)
{
	struct rota_ticket_policy p = policy("OFS");

	scenario();
	deal(&p);
	ck_tix(103, otickets, 0);
	ck_tix(104, otickets, 300);
	ck_tix(105, otickets, 1000);
	ck_tix(106, otickets, 1000);
	ck_tix(107, otickets, 200);
	ck_tix(108, otickets, 450);
	ck_tix(109, otickets, 0);
	ck_tix(110, otickets, 0);
	ck_tix(111, otickets, 100);
	/* the running counts are as they were */
	for (size_t i = 0; i < NENTS; i++)
		ck_assert_uint_eq(ents[i].count, 0);
}
END_TEST

/* share_override_tickets FALSE: every job its entities' whole. */
START_TEST(override_whole)
{
	struct rota_ticket_policy p = policy("OFS");

	p.share_override = false;
	scenario();
	deal(&p);
	ck_tix(104, otickets, 300);
	ck_tix(106, otickets, 1000);
	ck_tix(107, otickets, 400);
	ck_tix(108, otickets, 900);
	ck_tix(111, otickets, 300);
}
END_TEST

/*
 * Rule 8: the running jobs' sums are user 10 + 60 = 70, project 25 (pA),
 * job 0 + 5 = 5; all have a sum, so the weights are 0.4, 0.3, 0.1 / 0.8.
 * 103 = 10000 x (0.5 x 10/70 + 0.375 x 25/25) = 4464.2857;
 * 104 = 10000 x (0.5 x 60/70 + 0.125 x 5/5) = 5535.7143: 10000 in all.
 */
START_TEST(functional_running)
{
	struct rota_ticket_policy p = policy("OFS");

	scenario();
	deal(&p);
	ck_tix(103, ftickets, 4464.2857);
	ck_tix(104, ftickets, 5535.7143);
}
END_TEST

/*
 * Rule 9, OFS: the override tickets count.  Round 1: 106 = 10000 x (0.5
 * x 30/70.001 + 0.375 x 75/25.001) = 13392.4 + 1000 beats 108 (13392.4
 * + 450) and 105 (0.5 x 5/70.001 + 0.125 x 10/15.001 -> 1190.4 + 1000);
 * taken, oracle2 and pB enter the sums (user 100, project 100, job 5):
 * 106 = 10000 x (0.5 x 30/100 + 0.375 x 75/100) = 4312.5.  Round 2:
 * 108 = 0.5 x (60/2)/100.001 + 0.375 x (75/2)/100.001 -> 2906.2 + 450,
 * taken: 10000 x (0.5 x 30/100 + 0.375 x 37.5/100) = 2906.25.  The
 * rest as model_policies.py gives them.
 */
START_TEST(functional_pending_ofs)
{
	struct rota_ticket_policy p = policy("OFS");

	scenario();
	deal(&p);
	ck_tix(106, ftickets, 4312.5);
	ck_tix(108, ftickets, 2906.25);
	ck_tix(105, ftickets, 442.3077);
	ck_tix(107, ftickets, 2355.1136);
	ck_tix(109, ftickets, 479.1667);
	ck_tix(110, ftickets, 277.7778);
	ck_tix(111, ftickets, 1089.2857);
}
END_TEST

/*
 * Rule 11: F alone (O, S after it, independent): the override tickets
 * do not count in the functional rounds, 105 is taken later and gets
 * less, 109 and 111 more.  NONE gives the same (F not dependent: no
 * tickets before it count either).
 */
START_TEST(functional_pending_f)
{
	const char *h[] = { "F", "" };

	for (size_t i = 0; i < N(h); i++) {
		struct rota_ticket_policy p = policy(h[i]);

		scenario();
		deal(&p);
		ck_tix(106, ftickets, 4312.5);
		ck_tix(105, ftickets, 345.2381);
		ck_tix(109, ftickets, 562.5);
		ck_tix(111, ftickets, 1104.1667);
		/* the override tickets are dealt all the same */
		ck_tix(108, otickets, 450);
	}
}
END_TEST

/*
 * share_functional_shares FALSE: a job's share of an entity is its whole
 * fshare, and the sums count it per job.  Round 1: 108 = 10000 x (0.5 x
 * 60 / (70.001 + 60) + 0.375 x 75 / (25.001 + 75)) = 5120.2, + 450 =
 * 5570, beats 106 (4312.5 + 1000 = 5312); taken: 10000 x (0.5 x 60/130
 * + 0.375 x 75/100) = 5120.19.  106 then gets 2544.64.
 */
START_TEST(functional_unshared)
{
	struct rota_ticket_policy p = policy("OFS");

	p.share_functional = false;
	scenario();
	deal(&p);
	ck_tix(103, ftickets, 4464.2857);
	ck_tix(108, ftickets, 5120.1923);
	ck_tix(106, ftickets, 2544.6429);
	ck_tix(107, ftickets, 2394.5873);
	ck_tix(111, ftickets, 1243.1319);
}
END_TEST

/*
 * Rule 10: 3 rounds (106, 108, 107 taken, as with 200); the first job
 * left in each category keeps its value of round 3, its own shares not
 * in the sums: 110 = 10000 x 0.125 x 20 / (5 + 0.001 + 20) = 999.96.
 */
START_TEST(functional_max_jobs)
{
	struct rota_ticket_policy p = policy("OFS");

	p.max_functional = 3;
	scenario();
	deal(&p);
	ck_tix(106, ftickets, 4312.5);
	ck_tix(108, ftickets, 2906.25);
	ck_tix(107, ftickets, 2355.1136);
	ck_tix(110, ftickets, 999.96);
	ck_tix(105, ftickets, 1083.2753);
	ck_tix(109, ftickets, 718.7428);
	ck_tix(111, ftickets, 1624.9275);
}
END_TEST

/* No functional pool: no functional tickets, override ones all the same. */
START_TEST(functional_off)
{
	struct rota_ticket_policy p = policy("OFS");

	p.functional = 0;
	scenario();
	deal(&p);
	for (size_t i = 0; i < N(jobs); i++)
		ck_assert(jobs[i].ftickets == 0);
	ck_tix(108, otickets, 450);
}
END_TEST

/* ---- departments: the functional scenario as Grid Engine ran it ---------- */

/* weight_department 0.2: the four weights add up to 1 */
static struct rota_ticket_policy dept_policy(const char *hierarchy)
{
	struct rota_ticket_policy p = policy(hierarchy);

	p.weight_department = 0.2;
	return p;
}

/*
 * Rule 8 with departments (capture 1 and 2: 4171, 5828): the sums are
 * user 70, project 25, department 30 + 70 = 100, job 5, every weight
 * as given: 103 = 10000 x (0.4 x 10/70 + 0.3 x 25/25 + 0.2 x 30/100) =
 * 4171.4286; 104 = 10000 x (0.4 x 60/70 + 0.2 x 70/100 + 0.1 x 5/5) =
 * 5828.5714.
 */
START_TEST(dept_functional_running)
{
	struct rota_ticket_policy p = dept_policy("OFS");

	scenario_of(true);
	deal(&p);
	ck_tix(103, ftickets, 4171.4286);
	ck_tix(104, ftickets, 5828.5714);
	/* a department of 0 fshare is no category: as without */
	ck_tix(110, ftickets, 222.2222);
}
END_TEST

/*
 * Rule 9, capture 2 (OFS; Grid Engine shows them truncated: 503, 3749,
 * 2084, 3024, 503, 222, 1338).  Round 1: 106 = 10000 x (0.4 x
 * 30/70.001 + 0.3 x 75/25.001 + 0.2 x (30/2)/100.001) = 11014 + 1000
 * beats 108 = 0.4 x (60/2)/70.001 + 0.3 x 75/25.001 + 0.2 x
 * (70/2)/100.001 -> 11414 + 450; taken, oracle2 and pB enter the sums
 * (user 100, project 100, department 100, job 5): 106 = 10000 x (0.4 x
 * 30/100 + 0.3 x 75/100 + 0.2 x 15/100) = 3750.  110 last, the job sum
 * 5 + 10 + 50 + 5 + 20 = 90: 10000 x 0.1 x 20/90 = 222.22.
 */
START_TEST(dept_functional_pending_ofs)
{
	struct rota_ticket_policy p = dept_policy("OFS");

	scenario_of(true);
	deal(&p);
	ck_tix(105, ftickets, 503.8462);
	ck_tix(106, ftickets, 3750);
	ck_tix(107, ftickets, 2084.0909);
	ck_tix(108, ftickets, 3025);
	ck_tix(109, ftickets, 503.3333);
	ck_tix(110, ftickets, 222.2222);
	ck_tix(111, ftickets, 1338.0952);
}
END_TEST

/*
 * Capture 5 (F): 108 (11414) beats 106 (11014) without the override
 * tickets, takes pB's first share: 10000 x (0.4 x 30/100 + 0.3 x 75/100
 * + 0.2 x 35/100) = 4664.29; 106 then 10000 x (0.4 x 30/130 + 0.3 x
 * 37.5/150 + 0.2 x 15/100) = 1925 (Grid Engine 4664, 1924).
 */
START_TEST(dept_functional_pending_f)
{
	struct rota_ticket_policy p = dept_policy("F");

	scenario_of(true);
	deal(&p);
	ck_tix(108, ftickets, 4664.2857);
	ck_tix(106, ftickets, 1925);
	ck_tix(105, ftickets, 396.1905);
	ck_tix(107, ftickets, 2784.0909);
	ck_tix(109, ftickets, 600);
	ck_tix(111, ftickets, 1350);
}
END_TEST

/* Capture 3 (share_functional_shares FALSE): 4919, 2335, 478, 2176. */
START_TEST(dept_functional_unshared)
{
	struct rota_ticket_policy p = dept_policy("OFS");

	p.share_functional = false;
	scenario_of(true);
	deal(&p);
	ck_tix(103, ftickets, 4171.4286);
	ck_tix(108, ftickets, 4919.6833);
	ck_tix(106, ftickets, 2335.7143);
	ck_tix(105, ftickets, 478.5215);
	ck_tix(107, ftickets, 2176.5394);
	ck_tix(109, ftickets, 648.1481);
	ck_tix(111, ftickets, 1510);
}
END_TEST

/*
 * Capture 7 (3 rounds): the first job left in each category keeps its
 * round-3 value: 110 = 10000 x 0.1 x 20 / (5 + 0.001 + 20) = 799.97
 * (Grid Engine 799), 109 775, 105 1066, 111 1766.
 */
START_TEST(dept_functional_max_jobs)
{
	struct rota_ticket_policy p = dept_policy("OFS");

	p.max_functional = 3;
	scenario_of(true);
	deal(&p);
	ck_tix(110, ftickets, 799.968);
	ck_tix(109, ftickets, 774.9923);
	ck_tix(105, ftickets, 1066.6182);
	ck_tix(111, ftickets, 1766.604);
}
END_TEST

/*
 * Without weight_department the departments count for nothing: the
 * numbers of the scenario without departments (0.4 / 0.3 / 0.1 weigh
 * 0.5 / 0.375 / 0.125).
 */
START_TEST(dept_weight_zero)
{
	struct rota_ticket_policy p = policy("OFS");

	scenario_of(true);
	deal(&p);
	ck_tix(103, ftickets, 4464.2857);
	ck_tix(106, ftickets, 4312.5);
	ck_tix(111, ftickets, 1089.2857);
}
END_TEST

/*
 * Rule 7 with department override tickets (by hand: Grid Engine's
 * capture has none), deptB (oracle3) given 200.  Running 104, deptB's
 * only running job: 300 (oracle3) + 200 = 500.  Pending, greedy:
 * round 1 105 (-ot 1000) and 106 (400 + 600) tie at 1000, 105 first;
 * round 2 106 1000; round 3 108 = 300/2 + 600/2 + 200/2 = 550 beats
 * 107 (400/2 = 200) and 111 (300/2 + 200/2 = 250); round 4 107 200;
 * round 5 111 = 300/3 + 200/3 = 166.67.  Unshared: each job the whole,
 * 108 300 + 600 + 200 = 1100.
 */
START_TEST(dept_override)
{
	struct rota_ticket_policy p = dept_policy("OFS");

	scenario_of(true);
	ents[DB].otickets = 200;
	deal(&p);
	ck_tix(104, otickets, 500);
	ck_tix(105, otickets, 1000);
	ck_tix(106, otickets, 1000);
	ck_tix(107, otickets, 200);
	ck_tix(108, otickets, 550);
	ck_tix(109, otickets, 0);
	ck_tix(110, otickets, 0);
	ck_tix(111, otickets, 166.6667);
	for (size_t i = 0; i < NENTS; i++)
		ck_assert_uint_eq(ents[i].count, 0);

	p.share_override = false;
	scenario_of(true);
	ents[DB].otickets = 200;
	deal(&p);
	ck_tix(104, otickets, 500);
	ck_tix(108, otickets, 1100);
	ck_tix(111, otickets, 500);
}
END_TEST

/*
 * A share tree of two users under the root, each with half of it
 * (ostt 0.5, 5000 tickets), the first one's running jobs alone among
 * running jobs (ostt_running 1).
 */
static struct rota_share_node tnodes[3];
static struct rota_share_target ttargets[3];

static struct rota_share_tree two_users(uint32_t running)
{
	static const char *names[] = { "root", "u1", "u2" };

	for (uint32_t i = 0; i < 3; i++) {
		tnodes[i] = (struct rota_share_node){
			.name = names[i],
			.parent = i ? 0 : ROTA_SHARE_NONE,
			.first_child = i ? ROTA_SHARE_NONE : 1,
			.next_sibling = i == 1 ? 2 : ROTA_SHARE_NONE,
			.depth = i ? 1 : 0,
			.is_user = i > 0,
			.running = i == 1 ? running : 0,
			.pending = 1,
			.tickets = i ? 5000 : 10000,
		};
		ttargets[i] = (struct rota_share_target){
			.oltt = i ? 0.5 : 1,
			.ostt = i ? 0.5 : 1,
			.ostt_running = i == 2 ? 0 : 1,
		};
	}
	return (struct rota_share_tree){ .nodes = tnodes, .n = 3,
					 .targets = ttargets };
}

/*
 * sgeee.c calc_job_share_tree_tickets_pass2(): a user's running jobs
 * with job shares split its running-pass tickets by job share,
 * truncated: 10000 x 1/3 -> 3333, 10000 x 2/3 -> 6666.
 */
START_TEST(share_running_by_jobshare)
{
	struct rota_share_tree t = two_users(2);
	struct ticket_job j[2] = {
		{ .id = 1, .node = 1, .slots = 1, .running = true,
		  .jobshare = 1, .user = TICKET_NONE,
		  .project = TICKET_NONE, .dept = TICKET_NONE },
		{ .id = 2, .node = 1, .slots = 1, .running = true,
		  .jobshare = 2, .user = TICKET_NONE,
		  .project = TICKET_NONE, .dept = TICKET_NONE },
	};

	tickets_deal(&t, j, 2, false);
	ck_assert(j[0].id == 1 ? j[0].tickets == 3333 : j[0].tickets == 6666);
	ck_assert(j[1].id == 2 ? j[1].tickets == 6666 : j[1].tickets == 3333);
}
END_TEST

static double share_of(const struct ticket_job *j, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (j[i].id == id)
			return j[i].tickets;
	ck_abort_msg("no job %u", id);
	return 0;
}

/*
 * Rule 11: u1's pending jobs 10 and 11 (u2 has 12).  By themselves the
 * share tree orders them by id: 10 gets 5000 / 1, 11 5000 / 2.  With
 * OFS, 11's 100 override tickets come first and order it ahead: 11
 * 5000, 10 2500.  With F, the share tree is not dependent: by id again.
 */
START_TEST(share_order_by_prior_policies)
{
	static const char *h[] = { "OFS", "F" };
	static const double want10[] = { 2500, 5000 };

	for (size_t k = 0; k < N(h); k++) {
		struct rota_share_tree t = two_users(0);
		struct rota_ticket_policy p = policy(h[k]);
		struct ticket_entity e[1] = { { 0 } };
		struct ticket_job j[3] = {
			{ .id = 10, .node = 1, .slots = 1, .submit = 1,
			  .user = TICKET_NONE, .project = TICKET_NONE,
			  .dept = TICKET_NONE },
			{ .id = 11, .node = 1, .slots = 1, .submit = 2,
			  .oticket = 100, .user = TICKET_NONE,
			  .project = TICKET_NONE, .dept = TICKET_NONE },
			{ .id = 12, .node = 2, .slots = 1, .submit = 3,
			  .user = TICKET_NONE, .project = TICKET_NONE,
			  .dept = TICKET_NONE },
		};

		p.functional = 0;
		ftickets_deal(&p, e, &t, j, N(j));
		ck_assert_double_eq_tol(share_of(j, 3, 10), want10[k], 1e-9);
		ck_assert_double_eq_tol(share_of(j, 3, 11),
					want10[k] == 2500 ? 5000 : 2500, 1e-9);
		ck_assert_double_eq_tol(share_of(j, 3, 12), 5000, 1e-9);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("ftickets");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, override_shared);
	tcase_add_test(tc, override_whole);
	tcase_add_test(tc, functional_running);
	tcase_add_test(tc, functional_pending_ofs);
	tcase_add_test(tc, functional_pending_f);
	tcase_add_test(tc, functional_unshared);
	tcase_add_test(tc, functional_max_jobs);
	tcase_add_test(tc, functional_off);
	tcase_add_test(tc, dept_functional_running);
	tcase_add_test(tc, dept_functional_pending_ofs);
	tcase_add_test(tc, dept_functional_pending_f);
	tcase_add_test(tc, dept_functional_unshared);
	tcase_add_test(tc, dept_functional_max_jobs);
	tcase_add_test(tc, dept_weight_zero);
	tcase_add_test(tc, dept_override);
	tcase_add_test(tc, share_running_by_jobshare);
	tcase_add_test(tc, share_order_by_prior_policies);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
