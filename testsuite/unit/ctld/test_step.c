// SPDX-License-Identifier: MIT
/*
 * Job steps in the controller (ctld/step.c), through steps_create(),
 * steps_complete() and steps_sweep() on a real core: a job on n1 (4
 * cores), n2 (4) and n3 (2) lays its steps out by Slurm's arithmetic,
 * holds the cores each step takes until it completes, and tells its nodes
 * when it is over.
 *
 * step.c is linked alone, with the four things it needs from the daemon
 * around it faked here: the clock (ctld_now), the node links (peer_send
 * records what the controller sends, rota_conn_peer_addr names an
 * address) and munge (rota_auth_seal "seals" by copying, so each node's
 * credential is decoded back and checked: its counts, its cores).
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/conn.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "ctld/ctld.h"
#include "ctld/step.h"
#include "testsuite/unit/ctld/fixture.h"

#define N(a) ((int)(sizeof(a) / sizeof(*(a))))
#define T0 ((int64_t)1700000000)
#define ANA 1000
#define BOB 1001
#define NNODES 3

static struct core *core;
static struct rota_conf *conf;
static struct ctld ctld;
static struct peer links[NNODES];
static struct peer *link_table[NNODES];
static uint32_t job;

/* ---- the daemon's side, faked ---- */

static int sends[NNODES];	/* STEPS_KILL per node link */
static bool seal_fails;

int64_t ctld_now(const struct ctld *c)
{
	(void)c;
	return T0;
}

void peer_send(struct peer *p, uint16_t type, const char *body, size_t len)
{
	uint32_t id = 0, run = 0;
	struct rota_error err;

	ck_assert_uint_eq(type, ROTA_MSG_STEPS_KILL);
	ck_assert_int_eq(rota_msg_job_run_decode(body, len, &id, &run, &err),
			 0);
	ck_assert_uint_eq(id, job);
	sends[p - links]++;
}

const char *rota_conn_peer_addr(const struct rota_conn *c)
{
	(void)c;
	return "127.0.0.9";
}

int rota_auth_seal(struct rota_auth *auth, uid_t peer_uid, const void *payload,
		   size_t len, char **cred, struct rota_error *err)
{
	(void)auth;
	*cred = NULL;
	ck_assert_uint_eq(peer_uid, 77);
	if (seal_fails)
		return rota_errorf(err, -ECONNREFUSED, "munge: no daemon");
	*cred = rota_xstrndup(payload, len);
	return 0;
}

/* ---- a running job on all three nodes ---- */

#define CONF                                                                   \
	"NodeName=n1 CPUs=4 RealMemory=8G\n"                                  \
	"NodeName=n2 CPUs=4 RealMemory=8G\n"                                  \
	"NodeName=n3 CPUs=2 RealMemory=8G\n"                                  \
	"QueueName=batch Default=yes\n"

/* n1 and n2 of 8 cores: a node of the job may hold none of a step's. */
#define CONF_BIG                                                               \
	"NodeName=n1 CPUs=8 RealMemory=8G\n"                                  \
	"NodeName=n2 CPUs=8 RealMemory=8G\n"                                  \
	"NodeName=n3 CPUs=2 RealMemory=8G\n"                                  \
	"QueueName=batch Default=yes\n"

static void setup_with(const char *text, uint32_t big)
{
	struct rota_job_desc d = {
		.name = rota_xstrdup("job"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		/* the big one's n3 is too small for an even share: the
		   job takes whole nodes */
		.ntasks = big == 4 ? 10 : 3,
		.exclusive = big != 4,
		.nodes = 3,
		.cpus_per_task = 1,
		.time_limit = 600,
	};
	struct core_submit req = { .desc = &d, .uid = ANA, .gid = ANA,
				   .user = "ana" };
	struct rota_error err = { "" };
	const struct core_job *j;

	fixture_start(text, T0, &core, &conf);
	ck_assert_int_eq(core_submit(core, T0, &req, &job, &err), 0);
	rota_job_desc_clear(&d);
	core_schedule(core, T0);
	fixture_drop_actions(core);
	j = core_job_find(core, job);
	ck_assert_int_eq(j->state, ROTA_JOB_RUNNING);
	ck_assert_uint_eq(j->nalloc, NNODES);
	for (uint32_t i = 0; i < NNODES; i++) {
		/* the alloc in node order, every core of each */
		ck_assert_uint_eq(j->alloc[i].node, i);
		ck_assert_uint_eq(j->alloc[i].ncores, i < 2 ? big : 2);
	}
	memset(&ctld, 0, sizeof(ctld));
	memset(links, 0, sizeof(links));
	memset(sends, 0, sizeof(sends));
	seal_fails = false;
	ctld.core = core;
	ctld.node_links = link_table;
	for (uint32_t i = 0; i < NNODES; i++) {
		links[i].node = (int)i;
		links[i].step_port = 6820;
		links[i].step_uid = 77;
		link_table[i] = &links[i];
	}
}

static void setup(void)
{
	setup_with(CONF, 4);
}

static void setup_big(void)
{
	setup_with(CONF_BIG, 8);
}

static void teardown(void)
{
	steps_destroy(&ctld);
	fixture_stop(&core, &conf);
}

/* ---- asking for steps ---- */

struct ask {
	uint32_t n, N, c, tpn;
	bool overlap;
	const char *nodelist;
};

/* What a step got: its nodes (by index), tasks and cores on each. */
struct got {
	int rc;
	char text[160];
	uint32_t step_id;
	uint32_t ntasks;
	uint32_t nnodes;
	uint32_t node[NNODES * 2];
	uint32_t count[NNODES * 2];
	uint32_t ncores[NNODES * 2];
	uint32_t cores[NNODES * 2][8];
};

static uint32_t node_index(const char *name)
{
	ck_assert_msg(name[0] == 'n' && name[1] >= '1' && name[1] <= '3' &&
			      !name[2],
		      "node '%s'", name);
	return (uint32_t)(name[1] - '1');
}

/* Check one node's credential against the reply and note what it gives. */
static void check_cred(const struct rota_msg_step_create_reply *r,
		       uint32_t c, const struct ask *a, struct got *g)
{
	const struct rota_step_node *n = &r->nodes[c];
	const struct core_job *j = core_job_find(core, job);
	struct rota_step_cred cred;
	struct rota_error err = { "" };
	int rc = rota_step_cred_decode(n->cred, strlen(n->cred), &cred, &err);

	ck_assert_msg(rc == 0, "credential of %s: %s", n->name, err.text);
	ck_assert_uint_eq(cred.job_id, job);
	ck_assert_uint_eq(cred.run, j->run);
	ck_assert_uint_eq(cred.step_id, r->step_id);
	ck_assert_uint_eq(cred.uid, ANA);
	ck_assert_uint_eq(cred.gid, ANA);
	ck_assert_str_eq(cred.node, n->name);
	ck_assert_uint_eq(cred.node_id, c);
	ck_assert_uint_eq(cred.nnodes, r->nnodes);
	for (uint32_t k = 0; k < r->nnodes; k++) {
		ck_assert_str_eq(cred.nodes[k], r->nodes[k].name);
		ck_assert_uint_eq(cred.counts[k], r->nodes[k].ntasks);
	}
	ck_assert_int_eq(cred.overlap, a->overlap);
	ck_assert_uint_eq(cred.cpus_per_task,
			  a->overlap ? 1 : (a->c ? a->c : 1));
	if (!a->overlap)
		ck_assert_uint_eq(cred.ncores, n->ntasks * cred.cpus_per_task);
	ck_assert_int_eq(cred.end_time, j->start_time + 600);
	ck_assert_str_eq(n->addr, "127.0.0.9");
	ck_assert_uint_eq(n->port, 6820);
	ck_assert_uint_eq(n->uid, 77);
	g->ncores[c] = (uint32_t)cred.ncores;
	ck_assert_uint_le(cred.ncores, 8);
	for (size_t k = 0; k < cred.ncores; k++)
		g->cores[c][k] = cred.cores[k];
	rota_step_cred_clear(&cred);
}

static struct got ask_as(uid_t uid, const struct ask *a)
{
	struct rota_msg_step_create req = {
		.job_id = job,
		.ntasks = a->n,
		.nnodes = a->N,
		.cpus_per_task = a->c,
		.ntasks_per_node = a->tpn,
		.overlap = a->overlap,
		.nodelist = (char *)a->nodelist,
		.name = "a.out",
	};
	struct rota_msg_step_create_reply r;
	struct rota_error err = { "" };
	struct got g = { 0 };
	uint32_t sum = 0;

	g.rc = steps_create(&ctld, uid, &req, &r, &err);
	if (g.rc < 0) {
		ck_assert_msg(!r.nodes && !r.nnodes, "a refusal with nodes");
		snprintf(g.text, sizeof(g.text), "%s", err.text);
		return g;
	}
	ck_assert_uint_eq(r.job_id, job);
	ck_assert_uint_le(r.nnodes, NNODES);
	g.step_id = r.step_id;
	g.ntasks = r.ntasks;
	g.nnodes = (uint32_t)r.nnodes;
	for (uint32_t c = 0; c < r.nnodes; c++) {
		g.node[c] = node_index(r.nodes[c].name);
		g.count[c] = r.nodes[c].ntasks;
		sum += g.count[c];
		check_cred(&r, c, a, &g);
	}
	ck_assert_uint_eq(sum, r.ntasks);
	rota_msg_step_reply_clear(&r);
	return g;
}

static struct got ask(const struct ask *a)
{
	return ask_as(ANA, a);
}

static int complete(uint32_t step, int exit_code)
{
	struct rota_msg_step_complete m = {
		.job_id = job,
		.step_id = step,
		.exit_code = exit_code,
		.failed_rank = exit_code ? 0 : -1,
	};
	struct rota_error err = { "" };

	return steps_complete(&ctld, ANA, &m, &err);
}

static const struct ctld_step *step_of(uint32_t id)
{
	const struct ctld_step *s = steps_of_job(&ctld, job);

	while (s && s->id != id)
		s = s->next;
	ck_assert_ptr_nonnull(s);
	return s;
}

/* ---- the arithmetic, one step in an idle job ---- */

struct layout_case {
	const char *what;
	struct ask a;
	/* the nodes (1-based, in rank order) and tasks on each; 0 ends */
	uint32_t node[NNODES + 1];
	uint32_t count[NNODES + 1];
};

static const struct layout_case layouts[] = {
	{ "nothing: a task per core", { 0 }, { 1, 2, 3 }, { 4, 4, 2 } },
	{ "-n 5: even, remainder first", { .n = 5 }, { 1, 2, 3 }, { 2, 2, 1 } },
	{ "-n 2: as many nodes as tasks", { .n = 2 }, { 1, 2 }, { 1, 1 } },
	{ "-n 1", { .n = 1 }, { 1 }, { 1 } },
	{ "-n 10", { .n = 10 }, { 1, 2, 3 }, { 4, 4, 2 } },
	{ "-N 2: a task per core of 2", { .N = 2 }, { 1, 2 }, { 4, 4 } },
	{ "-N 3 -n 3", { .n = 3, .N = 3 }, { 1, 2, 3 }, { 1, 1, 1 } },
	{ "-N 1 -n 3", { .n = 3, .N = 1 }, { 1 }, { 3 } },
	{ "-N 2 --ntasks-per-node 3", { .N = 2, .tpn = 3 }, { 1, 2 },
	  { 3, 3 } },
	{ "-N 3 --ntasks-per-node 2", { .N = 3, .tpn = 2 }, { 1, 2, 3 },
	  { 2, 2, 2 } },
	{ "--ntasks-per-node 2", { .tpn = 2 }, { 1, 2, 3 }, { 2, 2, 2 } },
	{ "-n 5 --ntasks-per-node 2", { .n = 5, .tpn = 2 }, { 1, 2, 3 },
	  { 2, 2, 1 } },
	{ "-n 8 --ntasks-per-node 3", { .n = 8, .tpn = 3 }, { 1, 2, 3 },
	  { 3, 3, 2 } },
	/* a node for every task-per-node's worth: never a node with none */
	{ "-N 2 -n 4 --ntasks-per-node 4", { .n = 4, .N = 2, .tpn = 4 },
	  { 1, 2 }, { 3, 1 } },
	{ "-N 3 -n 4 --ntasks-per-node 2", { .n = 4, .N = 3, .tpn = 2 },
	  { 1, 2, 3 }, { 2, 1, 1 } },
	{ "-c 2", { .c = 2 }, { 1, 2, 3 }, { 2, 2, 1 } },
	{ "-c 3: n3 cannot hold one", { .c = 3 }, { 1, 2 }, { 1, 1 } },
	{ "-c 4 -n 2", { .n = 2, .c = 4 }, { 1, 2 }, { 1, 1 } },
	{ "-c 3 -n 1 -N 1", { .n = 1, .N = 1, .c = 3 }, { 1 }, { 1 } },
	{ "--nodelist n3", { .nodelist = "n3" }, { 3 }, { 2 } },
	{ "--nodelist n[2-3] -n 3", { .n = 3, .nodelist = "n[2-3]" },
	  { 2, 3 }, { 2, 1 } },
	{ "--nodelist n3,n1: in its order", { .n = 3, .nodelist = "n3,n1" },
	  { 3, 1 }, { 2, 1 } },
	{ "--nodelist n1,n1,n1,n1: n1 once", { .nodelist = "n1,n1,n1,n1" },
	  { 1 }, { 4 } },
	{ "--nodelist n[1-3] -N 1", { .N = 1, .nodelist = "n[1-3]" }, { 1 },
	  { 4 } },
	{ "--overlap: one task per node", { .overlap = true }, { 1, 2, 3 },
	  { 1, 1, 1 } },
	{ "--overlap -n 7", { .n = 7, .overlap = true }, { 1, 2, 3 },
	  { 3, 2, 2 } },
	{ "--overlap --nodelist n2", { .overlap = true, .nodelist = "n2" },
	  { 2 }, { 1 } },
};

START_TEST(test_layout)
{
	const struct layout_case *t = &layouts[_i];
	struct got g = ask(&t->a);
	uint32_t n = 0;

	ck_assert_msg(g.rc == 0, "%s: %s", t->what, g.text);
	while (n < NNODES && t->node[n])
		n++;
	ck_assert_msg(g.nnodes == n, "%s: %u nodes, not %u", t->what,
		      g.nnodes, n);
	for (uint32_t c = 0; c < n; c++) {
		ck_assert_msg(g.node[c] + 1 == t->node[c] &&
				      g.count[c] == t->count[c],
			      "%s: node %u: n%u with %u tasks, not n%u with %u",
			      t->what, c, g.node[c] + 1, g.count[c],
			      t->node[c], t->count[c]);
		if (t->a.overlap) /* all the job's cores there */
			ck_assert_uint_eq(g.ncores[c], g.node[c] < 2 ? 4 : 2);
	}
	ck_assert_uint_eq(g.step_id, 0);
}
END_TEST

struct refusal {
	struct ask a;
	int rc;
	const char *text;
};

static const struct refusal refusals[] = {
	{ { .n = 11 }, -EINVAL,
	  "11 tasks of 1 cpus do not fit job 1's 10 on 3 nodes" },
	{ { .n = 6, .c = 2 }, -EINVAL,
	  "6 tasks of 2 cpus do not fit job 1's 10 on 3 nodes" },
	{ { .N = 4 }, -EINVAL, "4 nodes asked for: job 1 has 3" },
	{ { .n = 2, .N = 3 }, -EINVAL, "2 tasks cannot cover 3 nodes" },
	{ { .c = 5 }, -EINVAL, "0 tasks cannot cover" },
	{ { .n = 1, .c = 5 }, -EINVAL,
	  "node 'n1' of job 1 has 4 cores: not one task of 5 cpus" },
	{ { .nodelist = "n4" }, -EINVAL, "node 'n4' is not one of job 1's" },
	{ { .nodelist = "n[" }, -EINVAL, "" },
	{ { .N = 2, .nodelist = "n1" }, -EINVAL,
	  "2 nodes asked for: job 1 has 1" },
	{ { .n = 5, .nodelist = "n1" }, -EINVAL,
	  "5 tasks of 1 cpus do not fit" },
	/* more tasks than their nodes take per node: never, not later */
	{ { .n = 10, .tpn = 2 }, -EINVAL,
	  "10 tasks at most 2 per node do not fit 3 nodes" },
	{ { .n = 5, .N = 2, .tpn = 2 }, -EINVAL,
	  "5 tasks at most 2 per node do not fit 2 nodes" },
	{ { .n = 9, .tpn = 3 }, -EINVAL,
	  "9 tasks of 1 cpus do not fit job 1's 8 on 3 nodes" },
	{ { .N = 3, .tpn = 3 }, -EINVAL,
	  "9 tasks of 1 cpus do not fit job 1's 8 on 3 nodes" },
};

START_TEST(test_refused)
{
	const struct refusal *t = &refusals[_i];
	struct got g = ask(&t->a);

	ck_assert_msg(g.rc == t->rc, "case %d: %d (%s), not %d", _i, g.rc,
		      g.text, t->rc);
	ck_assert_msg(strstr(g.text, t->text), "'%s' does not say '%s'",
		      g.text, t->text);
	/* nothing held: the whole job still fits */
	g = ask(&(struct ask){ 0 });
	ck_assert_int_eq(g.rc, 0);
	ck_assert_uint_eq(g.ntasks, 10);
}
END_TEST

START_TEST(test_not_runnable)
{
	struct rota_msg_step_create req = { .job_id = job + 1 };
	struct rota_msg_step_create_reply r;
	struct rota_error err = { "" };

	ck_assert_int_eq(steps_create(&ctld, ANA, &req, &r, &err), -ENOENT);
	ck_assert_str_eq(err.text, "job 2: not running");
	ck_assert_int_eq(ask_as(BOB, &(struct ask){ 0 }).rc, -EPERM);
	ck_assert_int_eq(ask_as(0, &(struct ask){ .n = 1 }).rc, 0);
}
END_TEST

/* ---- steps side by side ---- */

/* No core of one step's is another's. */
static void disjoint(const struct got *x, const struct got *y)
{
	for (uint32_t c = 0; c < x->nnodes; c++)
		for (uint32_t d = 0; d < y->nnodes; d++) {
			if (x->node[c] != y->node[d])
				continue;
			for (uint32_t i = 0; i < x->ncores[c]; i++)
				for (uint32_t k = 0; k < y->ncores[d]; k++)
					ck_assert_uint_ne(x->cores[c][i],
							  y->cores[d][k]);
		}
}

START_TEST(test_side_by_side)
{
	struct got a = ask(&(struct ask){ .n = 3, .nodelist = "n1" });
	struct got b, c, d;

	ck_assert_int_eq(a.rc, 0);
	/* n1 has one core left: it passes the rest of its share on */
	b = ask(&(struct ask){ .n = 6 });
	ck_assert_msg(b.rc == 0, "%s", b.text);
	ck_assert_uint_eq(b.step_id, 1);
	ck_assert_uint_eq(b.nnodes, 3);
	ck_assert_uint_eq(b.count[0], 1);
	ck_assert_uint_eq(b.count[1], 3);
	ck_assert_uint_eq(b.count[2], 2);
	disjoint(&a, &b);
	/* one core left, on n2 */
	c = ask(&(struct ask){ .n = 2 });
	ck_assert_int_eq(c.rc, -EBUSY);
	ck_assert_str_eq(c.text, "job 1's other steps hold its cores: 1 of "
				 "2 tasks fit now");
	c = ask(&(struct ask){ .n = 1 });
	ck_assert_msg(c.rc == 0, "%s", c.text);
	ck_assert_uint_eq(c.node[0], 1);
	disjoint(&a, &c);
	disjoint(&b, &c);
	d = ask(&(struct ask){ .n = 1 });
	ck_assert_int_eq(d.rc, -EBUSY);
	/* an overlapping step needs no free core */
	d = ask(&(struct ask){ .overlap = true });
	ck_assert_msg(d.rc == 0, "%s", d.text);
	ck_assert_uint_eq(d.nnodes, 3);
	/* b's end frees its cores: 5 fit again, not 7 */
	ck_assert_int_eq(complete(b.step_id, 0), 0);
	ck_assert_int_eq(step_of(b.step_id)->state, ROTA_JOB_COMPLETED);
	ck_assert_int_eq(ask(&(struct ask){ .n = 7 }).rc, -EBUSY);
	d = ask(&(struct ask){ .n = 6 });
	ck_assert_msg(d.rc == 0, "%s", d.text);
	disjoint(&a, &d);
	disjoint(&c, &d);
}
END_TEST

/* A node with nothing free gives its place to one of the job's idle. */
START_TEST(test_idle_node_first)
{
	struct got a = ask(&(struct ask){ .N = 1 });
	struct got b;

	ck_assert_int_eq(a.rc, 0);
	ck_assert_uint_eq(a.node[0], 0);
	b = ask(&(struct ask){ .N = 1 });
	ck_assert_msg(b.rc == 0, "%s", b.text);
	ck_assert_uint_eq(b.node[0], 1);
	ck_assert_uint_eq(b.count[0], 4);
	b = ask(&(struct ask){ .n = 1 });
	ck_assert_msg(b.rc == 0, "%s", b.text);
	ck_assert_uint_eq(b.node[0], 2);
	b = ask(&(struct ask){ .n = 2 });
	ck_assert_int_eq(b.rc, -EBUSY);
	/* -c 2 wants a node with two free cores: n3 has one */
	ck_assert_int_eq(complete(a.step_id, 0), 0);
	b = ask(&(struct ask){ .n = 1, .c = 2 });
	ck_assert_msg(b.rc == 0, "%s", b.text);
	ck_assert_uint_eq(b.node[0], 0);
}
END_TEST

START_TEST(test_whole_job_busy)
{
	struct got a = ask(&(struct ask){ 0 });
	struct got b;

	ck_assert_uint_eq(a.ntasks, 10);
	b = ask(&(struct ask){ .n = 1 });
	ck_assert_int_eq(b.rc, -EBUSY);
	ck_assert_str_eq(b.text, "job 1's other steps hold its cores: 0 of 1 "
				 "tasks fit now");
	/* a failed step frees its cores as well */
	ck_assert_int_eq(complete(a.step_id, 3), 0);
	ck_assert_int_eq(step_of(a.step_id)->state, ROTA_JOB_FAILED);
	ck_assert_int_eq(step_of(a.step_id)->exit_code, 3);
	/* a repeat changes nothing */
	ck_assert_int_eq(complete(a.step_id, 0), 0);
	ck_assert_int_eq(step_of(a.step_id)->state, ROTA_JOB_FAILED);
	b = ask(&(struct ask){ 0 });
	ck_assert_int_eq(b.rc, 0);
	ck_assert_uint_eq(b.ntasks, 10);
	ck_assert_uint_eq(b.step_id, 1);
}
END_TEST

START_TEST(test_complete_refused)
{
	struct rota_msg_step_complete m = { .job_id = job, .step_id = 5 };
	struct rota_error err = { "" };

	ck_assert_int_eq(ask(&(struct ask){ .n = 1 }).rc, 0);
	ck_assert_int_eq(steps_complete(&ctld, ANA, &m, &err), -ENOENT);
	ck_assert_str_eq(err.text, "step 1.5: not found");
	m.step_id = 0;
	ck_assert_int_eq(steps_complete(&ctld, BOB, &m, &err), -EPERM);
	ck_assert_int_eq(step_of(0)->state, ROTA_JOB_RUNNING);
	/* rota alloc's end names no step */
	m.step_id = ROTA_STEP_NONE;
	m.end_job = true;
	ck_assert_int_eq(steps_complete(&ctld, ANA, &m, &err), 0);
	ck_assert_int_eq(steps_complete(&ctld, 0, &m, &err), 0);
	/* an earlier run's late report does not end this run's step 0 */
	m = (struct rota_msg_step_complete){ .job_id = job, .step_id = 0,
					     .run = 99, .failed_rank = -1 };
	ck_assert_int_eq(steps_complete(&ctld, ANA, &m, &err), 0);
	ck_assert_int_eq(step_of(0)->state, ROTA_JOB_RUNNING);
	m.run = 0; /* a client that does not say: the current run */
	ck_assert_int_eq(steps_complete(&ctld, ANA, &m, &err), 0);
	ck_assert_int_eq(step_of(0)->state, ROTA_JOB_COMPLETED);
}
END_TEST

/* A step that cannot be sealed or sent holds nothing afterwards. */
START_TEST(test_seal_fails)
{
	struct got g;

	seal_fails = true;
	g = ask(&(struct ask){ 0 });
	ck_assert_int_eq(g.rc, -ECONNREFUSED);
	ck_assert_str_eq(g.text, "munge: no daemon");
	seal_fails = false;
	link_table[2] = NULL;
	g = ask(&(struct ask){ 0 });
	ck_assert_int_eq(g.rc, -EBUSY);
	ck_assert_str_eq(g.text, "node 'n3' is not connected");
	links[2].step_port = 0;
	link_table[2] = &links[2];
	g = ask(&(struct ask){ 0 });
	ck_assert_int_eq(g.rc, -EBUSY);
	ck_assert_str_eq(g.text, "node 'n3' takes no job steps (an older "
				 "rota-noded)");
	/* steps away from n3 go on */
	g = ask(&(struct ask){ .N = 2 });
	ck_assert_msg(g.rc == 0, "%s", g.text);
	ck_assert_uint_eq(g.step_id, 0);
	ck_assert_int_eq(complete(0, 0), 0);
	links[2].step_port = 6820;
	g = ask(&(struct ask){ 0 });
	ck_assert_msg(g.rc == 0, "%s", g.text);
	ck_assert_uint_eq(g.ntasks, 10);
	ck_assert_ptr_null(step_of(0)->next->next);
}
END_TEST

START_TEST(test_sweep)
{
	struct got a = ask(&(struct ask){ .n = 4, .N = 1 });
	struct got b = ask(&(struct ask){ .n = 2, .N = 2 });

	ck_assert_int_eq(a.rc, 0);
	ck_assert_int_eq(b.rc, 0);
	ck_assert_int_eq(complete(b.step_id, 0), 0);
	steps_sweep(&ctld);
	ck_assert_int_eq(sends[0] + sends[1] + sends[2], 0);
	/* the job ends: every node of it hears, once */
	fixture_end_job(core, T0 + 10, job);
	links[1].step_port = 0; /* an older daemon: nothing to tell */
	steps_sweep(&ctld);
	steps_sweep(&ctld);
	ck_assert_int_eq(sends[0], 1);
	ck_assert_int_eq(sends[1], 0);
	ck_assert_int_eq(sends[2], 1);
	ck_assert_int_eq(step_of(a.step_id)->state, ROTA_JOB_CANCELLED);
	ck_assert_int_eq(step_of(b.step_id)->state, ROTA_JOB_COMPLETED);
	ck_assert_int_eq(ask(&(struct ask){ .n = 1 }).rc, -ENOENT);
	ck_assert_int_eq(complete(a.step_id, 0), 0);
	ck_assert_int_eq(step_of(a.step_id)->state, ROTA_JOB_CANCELLED);
}
END_TEST

/*
 * Every request of a grid, in the idle job: laid out (and its
 * credentials right), or -EINVAL; never -EBUSY, which rota run would
 * wait out forever.
 */
static const char *const grid_lists[] = { NULL, "n1", "n[2-3]", "n3,n1" };

START_TEST(test_idle_never_busy)
{
	unsigned ok = 0, no = 0;

	for (uint32_t n = 0; n <= 12; n++)
		for (uint32_t nn = 0; nn <= 4; nn++)
			for (uint32_t i = 0; i < 6 * 6 * 2 * 4; i++) {
				struct ask a = {
					.n = n,
					.N = nn,
					.c = i % 6,
					.tpn = i / 6 % 6,
					.overlap = i / 36 % 2,
					.nodelist = grid_lists[i / 72],
				};
				struct got g = ask(&a);

				ck_assert_msg(g.rc == 0 || g.rc == -EINVAL,
					      "-n %u -N %u -c %u "
					      "--ntasks-per-node %u%s %s: %s",
					      n, nn, a.c, a.tpn,
					      a.overlap ? " --overlap" : "",
					      a.nodelist ? a.nodelist : "",
					      g.text);
				if (g.rc < 0) {
					no++;
					continue;
				}
				ok++;
				ck_assert_int_eq(complete(g.step_id, 0), 0);
			}
	ck_assert_uint_gt(ok, 1000);
	ck_assert_uint_gt(no, 1000);
}
END_TEST

START_TEST(test_node_never_holds_one)
{
	struct got g = ask(&(struct ask){ .n = 3, .N = 3, .c = 3 });

	ck_assert_int_eq(g.rc, -EINVAL);
	ck_assert_str_eq(g.text, "node 'n3' of job 1 has 2 cores: not one "
				 "task of 3 cpus");
	g = ask(&(struct ask){ .n = 3, .c = 3 });
	ck_assert_msg(g.rc == 0, "%s", g.text);
	ck_assert_uint_eq(g.nnodes, 2);
	ck_assert_uint_eq(g.count[0], 2);
	ck_assert_uint_eq(g.count[1], 1);
}
END_TEST

static Suite *step_suite(void)
{
	Suite *s = suite_create("step");
	TCase *tc = tcase_create("steps");
	TCase *big = tcase_create("big");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_layout, 0, N(layouts));
	tcase_add_loop_test(tc, test_refused, 0, N(refusals));
	tcase_add_test(tc, test_not_runnable);
	tcase_add_test(tc, test_side_by_side);
	tcase_add_test(tc, test_idle_node_first);
	tcase_add_test(tc, test_whole_job_busy);
	tcase_add_test(tc, test_complete_refused);
	tcase_add_test(tc, test_seal_fails);
	tcase_add_test(tc, test_sweep);
	tcase_add_test(tc, test_idle_never_busy);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(big, setup_big, teardown);
	tcase_add_test(big, test_node_never_holds_one);
	tcase_add_test(big, test_idle_never_busy);
	suite_add_tcase(s, big);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(step_suite());
	int failed;

	rota_log_set_level(ROTA_LOG_WARN);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
