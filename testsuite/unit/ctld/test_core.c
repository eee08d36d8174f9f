// SPDX-License-Identifier: MIT
/*
 * ctld/core, through core.h: submit checks and their messages, placement,
 * strict order per queue, job ends, cancel, node liveness and registration,
 * and 50,000 pending jobs.  The core is a pure library: every event carries
 * 'now', so time moves by passing a larger number, never by sleeping.
 * One file past 800 lines: it is one contract (core.h), mostly tables.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/msg.h"
#include "ctld/core/core.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define GB 1024
#define TB (1024 * 1024)

/* Indexes follow the declaration order: n1..n4 are 0..3, big is 4. */
static const char base_conf[] =
	"NodeTimeout=60s\n"
	"HeartbeatInterval=10s\n"
	"MinJobAge=100s\n"
	"NodeName=n[1-4] CPUs=8 RealMemory=16G\n"
	"NodeName=big CPUs=32 RealMemory=1T Features=largemem\n"
	"QueueName=batch Nodes=ALL Default=yes MaxTime=1-00:00:00 "
	"DefaultTime=1:00:00\n"
	"QueueName=short Nodes=n[1-2] MaxTime=30\n"
	"QueueName=long Nodes=n[3-4]\n";

static struct core *core;

static void setup(void)
{
	struct rota_conf *conf = NULL;
	struct rota_error err = { { 0 } };
	int rc = rota_conf_load_buffer("test.conf", base_conf,
				       strlen(base_conf), &conf, &err);

	ck_assert_msg(rc == 0, "config: %s", err.text);
	rc = core_create(conf, &core, &err);
	ck_assert_msg(rc == 0, "core: %s", err.text);
	rota_conf_destroy(conf);
}

static void teardown(void)
{
	core_destroy(core);
	core = NULL;
}

/* ---- helpers ---------------------------------------------------------- */

static uint32_t idx(const char *name)
{
	uint32_t i = UINT32_MAX;

	ck_assert_msg(core_node_find(core, name, &i), "no node '%s'", name);
	return i;
}

static const struct core_node *node(const char *name)
{
	return core_node_get(core, idx(name));
}

/* What a node daemon says when it registers. */
struct node_reg {
	const char *name;
	uint32_t cores;
	uint64_t mem_mb;
	char **features;	/* NULL-terminated or NULL */
	uint32_t *jobs;		/* jobs it still runs */
	uint32_t *runs;		/* which run of each, or NULL */
	size_t njobs;
};

/* A node_reg literal: REG("n1", 8, 16 * GB, .features = ...) */
#define REG(n, c, m, ...)                                                  \
	(&(struct node_reg){                                               \
		.name = (n), .cores = (c), .mem_mb = (m), __VA_ARGS__ })

static int reg_node(int64_t now, const struct node_reg *r,
		    struct rota_error *err)
{
	struct rota_node_info info = {
		.name = (char *)r->name,
		.state = "UP",
		.reason = "",
		.features = r->features,
		.sockets = 1,
		.cores = r->cores,
		.pus = r->cores,
		.memory_mb = r->mem_mb,
		.jobs = r->jobs,
		.runs = r->runs,
		.njobs = r->njobs,
	};

	return core_node_register(core, now, &info, err);
}

static void up(int64_t now, const struct node_reg *r)
{
	struct rota_error err = { { 0 } };
	int rc = reg_node(now, r, &err);

	ck_assert_msg(rc == 0, "register %s: %s", r->name, err.text);
	ck_assert_int_eq(node(r->name)->state, NODE_UP);
}

/* Every node at its rota.conf size; n3 and n4 report ib, n4 also fast. */
static void up_all(int64_t now)
{
	up(now, REG("n1", 8, 16 * GB));
	up(now, REG("n2", 8, 16 * GB));
	up(now, REG("n3", 8, 16 * GB, .features = (char *[]){ "ib", NULL }));
	up(now, REG("n4", 8, 16 * GB,
		    .features = (char *[]){ "ib", "fast", NULL }));
	up(now, REG("big", 32, 1 * TB));
}

/* A job request; zeros are the defaults of rota submit. */
struct req {
	const char *queue;
	uint32_t ntasks;	/* 0: 1 */
	uint32_t cpt;		/* 0: 1 */
	uint32_t nodes;
	uint64_t mem_mb;
	int64_t time;
	const char *constraint;
	uid_t uid;
	bool no_requeue;
};

static char *dup_or_null(const char *s)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	ck_assert_ptr_nonnull(d);
	return d;
}

static void desc_fill(struct rota_job_desc *d, const struct req *r)
{
	*d = (struct rota_job_desc){
		.name = dup_or_null("job"),
		.script = dup_or_null("#!/bin/sh\ntrue\n"),
		.workdir = dup_or_null("/tmp"),
		.queue = dup_or_null(r->queue),
		.constraint = dup_or_null(r->constraint),
		.ntasks = r->ntasks ? r->ntasks : 1,
		.cpus_per_task = r->cpt ? r->cpt : 1,
		.nodes = r->nodes,
		.mem_mb = r->mem_mb,
		.time_limit = r->time,
		.no_requeue = r->no_requeue,
	};
}

/* A refused desc is the caller's, every field as it was. */
static void check_untouched(const struct rota_job_desc *d,
			    const struct rota_job_desc *was)
{
	ck_assert_ptr_eq(d->name, was->name);
	ck_assert_ptr_eq(d->script, was->script);
	ck_assert_ptr_eq(d->workdir, was->workdir);
	ck_assert_ptr_eq(d->queue, was->queue);
	ck_assert_ptr_eq(d->constraint, was->constraint);
	ck_assert_uint_eq(d->ntasks, was->ntasks);
	ck_assert_uint_eq(d->cpus_per_task, was->cpus_per_task);
	ck_assert_uint_eq(d->nodes, was->nodes);
	ck_assert_uint_eq(d->mem_mb, was->mem_mb);
	ck_assert_int_eq(d->time_limit, was->time_limit);
	/* read them: ASan catches a core that freed what it refused */
	ck_assert_str_eq(d->script, "#!/bin/sh\ntrue\n");
	ck_assert_str_eq(d->workdir, "/tmp");
}

static int submit_rc(int64_t now, const struct req *r, uint32_t *id,
		     struct rota_error *err)
{
	struct rota_job_desc d, was;
	struct core_submit s = { .desc = &d, .uid = r->uid, .gid = r->uid,
				 .user = r->uid ? "ana" : "root" };
	size_t before = core_job_count(core);
	int rc;

	desc_fill(&d, r);
	was = d;
	*id = 12345;
	rc = core_submit(core, now, &s, id, err);
	if (rc == 0) {
		/* taken over: the caller's desc is left empty */
		ck_assert_ptr_null(d.name);
		ck_assert_ptr_null(d.script);
		ck_assert_ptr_null(d.queue);
		ck_assert_ptr_null(d.constraint);
		ck_assert_uint_ne(*id, 0);
		ck_assert_uint_eq(core_job_count(core), before + 1);
		return 0;
	}
	check_untouched(&d, &was);
	ck_assert_uint_eq(*id, 0);
	ck_assert_uint_eq(core_job_count(core), before);
	rota_job_desc_clear(&d);
	return rc;
}

static uint32_t submit(int64_t now, const struct req *r)
{
	struct rota_error err = { { 0 } };
	uint32_t id;
	int rc = submit_rc(now, r, &id, &err);

	ck_assert_msg(rc == 0, "submit: %d %s", rc, err.text);
	return id;
}

static const struct core_job *job(uint32_t id)
{
	const struct core_job *j = core_job_find(core, id);

	ck_assert_msg(j, "job %u: not found", id);
	return j;
}

static const char *reason(uint32_t id)
{
	return core_job_reason(core, job(id));
}

static int end_rc(int64_t now, const char *node_name,
		  const struct rota_msg_job_end *end, struct rota_error *err)
{
	return core_job_end(core, now, node_name, end, err);
}

/* The job's first node reports a clean exit. */
static void finish(int64_t now, uint32_t id)
{
	struct rota_error err = { { 0 } };
	const struct core_job *j = job(id);
	const char *name = core_node_get(core, j->alloc[0].node)->name;
	int rc = end_rc(now, name,
			&(struct rota_msg_job_end){
				.job_id = id,
				.run = j->run,
				.state = ROTA_JOB_COMPLETED,
			},
			&err);

	ck_assert_msg(rc == 0, "end %u: %s", id, err.text);
}

/* Exactly 'n' actions queued; caller frees '*out'. */
static struct core_action *take(size_t n)
{
	struct core_action *a = NULL;
	size_t got = core_take_actions(core, &a);

	ck_assert_uint_eq(got, n);
	return a;
}

static void check_launch(const struct core_action *a, uint32_t id)
{
	ck_assert_int_eq(a->type, CORE_ACTION_LAUNCH);
	ck_assert_uint_eq(a->job_id, id);
	ck_assert_uint_eq(a->alloc_index, 0);
	ck_assert_uint_eq(a->node, job(id)->alloc[0].node);
}

/* Each allocated core exists, is marked busy and is held once. */
static void check_cores(uint32_t id)
{
	const struct core_job *j = job(id);

	for (uint32_t i = 0; i < j->nalloc; i++) {
		const struct core_alloc *a = &j->alloc[i];
		const struct core_node *n = core_node_get(core, a->node);

		for (uint32_t c = 0; c < a->ncores; c++) {
			ck_assert_uint_lt(a->cores[c], n->cores);
			ck_assert_uint_eq(n->core_busy[a->cores[c]], 1);
			for (uint32_t k = 0; k < c; k++)
				ck_assert_uint_ne(a->cores[k], a->cores[c]);
		}
	}
}

static void check_node_idle(const char *name)
{
	const struct core_node *n = node(name);

	ck_assert_uint_eq(n->cores_used, 0);
	ck_assert_uint_eq(n->mem_used_mb, 0);
	for (uint32_t c = 0; c < n->cores; c++)
		ck_assert_uint_eq(n->core_busy[c], 0);
}

/* ---- submit ----------------------------------------------------------- */

static const struct bad_case {
	struct req req;
	int rc;
	const char *text;
} bad_cases[] = {
	{ { .queue = "x" }, -ENOENT, "queue 'x' does not exist" },
	{ { .queue = "short", .time = 1801 },
	  -EINVAL,
	  "--time=00:30:01 exceeds the maximum of queue 'short' (00:30:00)" },
	{ { .time = 86401 },
	  -EINVAL,
	  "--time=1-00:00:01 exceeds the maximum of queue 'batch' "
	  "(1-00:00:00)" },
	{ { .cpt = 33 },
	  -EINVAL,
	  "1 tasks x 33 cpus: more cores than the nodes of queue 'batch' "
	  "have (largest node: 32 cores)" },
	{ { .ntasks = 65 },
	  -EINVAL,
	  "65 tasks x 1 cpus: more cores than the nodes of queue 'batch' "
	  "have (largest node: 32 cores)" },
	{ { .nodes = 1, .ntasks = 33 },
	  -EINVAL,
	  "33 tasks x 1 cpus: more cores than the nodes of queue 'batch' "
	  "have (largest node: 32 cores)" },
	{ { .queue = "short", .ntasks = 17 },
	  -EINVAL,
	  "17 tasks x 1 cpus: more cores than the nodes of queue 'short' "
	  "have (largest node: 8 cores)" },
	{ { .mem_mb = 2 * TB },
	  -EINVAL,
	  "--mem=2097152M: no node of queue 'batch' has that much memory "
	  "(largest: 1T)" },
	{ { .queue = "short", .mem_mb = 16 * GB + 1 },
	  -EINVAL,
	  "--mem=16385M: no node of queue 'short' has that much memory "
	  "(largest: 16G)" },
	{ { .mem_mb = 17 * GB, .constraint = "ib" },
	  -EINVAL,
	  "--mem=17408M: no node of queue 'batch' has that much memory "
	  "(largest: 16G)" },
	{ { .constraint = "gpu" },
	  -EINVAL,
	  "--constraint=gpu: no node of queue 'batch' has these features" },
	{ { .constraint = "ib&largemem" },
	  -EINVAL,
	  "--constraint=ib&largemem: no node of queue 'batch' has these "
	  "features" },
	{ { .queue = "short", .constraint = "largemem" },
	  -EINVAL,
	  "--constraint=largemem: no node of queue 'short' has these "
	  "features" },
	{ { .nodes = 6, .ntasks = 6 },
	  -EINVAL,
	  "--nodes=6: queue 'batch' has 5 such nodes" },
	{ { .queue = "short", .nodes = 3, .ntasks = 3 },
	  -EINVAL,
	  "--nodes=3: queue 'short' has 2 such nodes" },
	{ { .nodes = 3, .ntasks = 3, .constraint = "ib" },
	  -EINVAL,
	  "--nodes=3: queue 'batch' has 2 such nodes" },
	{ { .nodes = 3, .ntasks = 2 },
	  -EINVAL,
	  "--nodes=3: more nodes than the 2 tasks" },
	{ { .constraint = "ib&&fast" },
	  -EINVAL,
	  "constraint 'ib&&fast': expected a feature name at '&fast'" },
	{ { .constraint = "ib,fast" },
	  -EINVAL,
	  "constraint 'ib,fast': unexpected ','" },
	{ { .constraint = "|ib" },
	  -EINVAL,
	  "constraint '|ib': expected a feature name at '|ib'" },
	{ { .constraint = "ib|" },
	  -EINVAL,
	  "constraint 'ib|': expected a feature name at ''" },
	{ { .constraint = "" },
	  -EINVAL,
	  "constraint '': expected a feature name at ''" },
};

START_TEST(test_submit_refused)
{
	const struct bad_case *c = &bad_cases[_i];
	struct rota_error err = { { 0 } };
	uint32_t id;

	up_all(0);
	ck_assert_int_eq(submit_rc(10, &c->req, &id, &err), c->rc);
	ck_assert_str_eq(err.text, c->text);
	/* nothing was created: the next job still gets id 1 */
	ck_assert_uint_eq(core_job_count(core), 0);
	ck_assert_uint_eq(submit(10, &(struct req){ 0 }), 1);
}
END_TEST

/* The time limit a job gets: asked, else DefaultTime, else MaxTime. */
static const struct limit_case {
	struct req req;
	int64_t limit;
} limit_cases[] = {
	{ { 0 }, 3600 },			/* batch: DefaultTime */
	{ { .time = 86400 }, 86400 },		/* batch: MaxTime exactly */
	{ { .queue = "short" }, 1800 },		/* no DefaultTime: MaxTime */
	{ { .queue = "short", .time = 60 }, 60 },
	{ { .queue = "short", .time = 1800 }, 1800 },
	{ { .queue = "long" }, 0 },		/* neither: unlimited */
	{ { .queue = "long", .time = 864000 }, 864000 },
};

START_TEST(test_submit_limit)
{
	const struct limit_case *c = &limit_cases[_i];
	uint32_t id = submit(10, &c->req);
	const struct core_job *j = job(id);

	ck_assert_int_eq(j->time_limit, c->limit);
	ck_assert_int_eq(j->state, ROTA_JOB_PENDING);
	ck_assert_int_eq(j->submit_time, 10);
	ck_assert_str_eq(core_queue_get(core, j->queue)->name,
			 c->req.queue ? c->req.queue : "batch");
}
END_TEST

/* Before any registration, nodes of known size (CPUs=) are judged by it. */
START_TEST(test_submit_before_register)
{
	struct rota_error err = { { 0 } };
	uint32_t id;

	ck_assert_uint_eq(submit(0, &(struct req){ .ntasks = 32 }), 1);
	ck_assert_int_eq(submit_rc(0, &(struct req){ .cpt = 33 }, &id, &err),
			 -EINVAL);
	/* ib comes from the node daemons: unknown until they register */
	ck_assert_int_eq(submit_rc(0, &(struct req){ .constraint = "ib" }, &id,
				   &err),
			 -EINVAL);
	ck_assert_str_eq(err.text, "--constraint=ib: no node of queue 'batch' "
				   "has these features");
	up_all(5);
	ck_assert_uint_eq(submit(6, &(struct req){ .constraint = "ib" }), 2);
}
END_TEST

/* ---- scheduling ------------------------------------------------------- */

START_TEST(test_up_only)
{
	struct rota_error err = { { 0 } };
	struct core_action *a;
	uint32_t id = submit(0, &(struct req){ .queue = "short" });

	/* declared but not registered: nothing runs */
	ck_assert_int_eq(node("n1")->state, NODE_UNKNOWN);
	ck_assert_uint_eq(core_schedule(core, 1), 0);
	ck_assert_str_eq(reason(id), "Resources");
	free(take(0));
	/* registered too small: down, still nothing */
	ck_assert_int_eq(reg_node(2, REG("n1", 4, 16 * GB),
				  &err),
			 -EINVAL);
	ck_assert_uint_eq(core_schedule(core, 3), 0);
	ck_assert_int_eq(job(id)->state, ROTA_JOB_PENDING);
	/* n2 comes up: the job runs there */
	up(4, REG("n2", 8, 16 * GB));
	ck_assert_uint_eq(core_schedule(core, 5), 1);
	a = take(1);
	check_launch(&a[0], id);
	ck_assert_uint_eq(a[0].node, idx("n2"));
	free(a);
	ck_assert_int_eq(job(id)->state, ROTA_JOB_RUNNING);
	ck_assert_int_eq(job(id)->start_time, 5);
	ck_assert_ptr_null(reason(id));
}
END_TEST

/* FIFO on one node; cores come back when a job ends. */
START_TEST(test_fifo_cores)
{
	struct core_action *a;
	uint32_t x, b, c;

	up(0, REG("n1", 8, 16 * GB));
	x = submit(1, &(struct req){ .ntasks = 8 });
	b = submit(2, &(struct req){ .ntasks = 4 });
	c = submit(3, &(struct req){ .ntasks = 4 });
	ck_assert_uint_eq(core_schedule(core, 10), 1);
	a = take(1);
	check_launch(&a[0], x);
	ck_assert_uint_eq(a[0].node, idx("n1"));
	free(a);
	ck_assert_uint_eq(job(x)->nalloc, 1);
	ck_assert_uint_eq(job(x)->alloc[0].ncores, 8);
	check_cores(x);
	ck_assert_uint_eq(node("n1")->cores_used, 8);
	ck_assert_str_eq(reason(b), "Resources");
	ck_assert_str_eq(reason(c), "Priority");

	finish(20, x);
	ck_assert_int_eq(job(x)->state, ROTA_JOB_COMPLETED);
	check_node_idle("n1");
	ck_assert_uint_eq(core_schedule(core, 21), 2);
	a = take(2);
	check_launch(&a[0], b);
	check_launch(&a[1], c);
	free(a);
	check_cores(b);
	check_cores(c);
	for (uint32_t i = 0; i < 4; i++) {
		ck_assert_uint_eq(job(b)->alloc[0].cores[i], i);
		ck_assert_uint_eq(job(c)->alloc[0].cores[i], 4 + i);
	}
	ck_assert_uint_eq(node("n1")->cores_used, 8);

	/* c ends first: its cores, and only those, are free again */
	finish(30, c);
	ck_assert_uint_eq(node("n1")->cores_used, 4);
	for (uint32_t i = 0; i < 8; i++)
		ck_assert_uint_eq(node("n1")->core_busy[i], i < 4);
	finish(31, b);
	check_node_idle("n1");
	ck_assert_uint_eq(core_schedule(core, 32), 0);
	free(take(0));
}
END_TEST

struct want {
	const char *node;
	uint32_t ncores;
};

static const struct place_case {
	struct req req;
	struct want want[6]; /* ends at a NULL node */
} place_cases[] = {
	/* one node when one holds it all, first in queue order */
	{ { .ntasks = 4 }, { { "n1", 4 } } },
	{ { .ntasks = 8 }, { { "n1", 8 } } },
	{ { .ntasks = 4, .cpt = 4 }, { { "big", 16 } } },
	{ { .ntasks = 2, .cpt = 5 }, { { "big", 10 } } },
	{ { .nodes = 1, .ntasks = 9 }, { { "big", 9 } } },
	{ { .queue = "long" }, { { "n3", 1 } } },
	/* no single node: spread greedily, whole tasks only */
	{ { .ntasks = 40 },
	  { { "n1", 8 }, { "n2", 8 }, { "n3", 8 }, { "n4", 8 },
	    { "big", 8 } } },
	{ { .queue = "short", .ntasks = 12 }, { { "n1", 8 }, { "n2", 4 } } },
	{ { .queue = "short", .ntasks = 3, .cpt = 3 },
	  { { "n1", 6 }, { "n2", 3 } } },
	/* --nodes=N: exactly N nodes, ceil(tasks / N) tasks at most */
	{ { .nodes = 2, .ntasks = 4 }, { { "n1", 2 }, { "n2", 2 } } },
	{ { .nodes = 2, .ntasks = 2, .cpt = 8 }, { { "n1", 8 }, { "n2", 8 } } },
	{ { .nodes = 3, .ntasks = 5 },
	  { { "n1", 2 }, { "n2", 2 }, { "n3", 1 } } },
	{ { .nodes = 3, .ntasks = 4 },
	  { { "n1", 2 }, { "n2", 1 }, { "n3", 1 } } },
	{ { .nodes = 5, .ntasks = 5 },
	  { { "n1", 1 }, { "n2", 1 }, { "n3", 1 }, { "n4", 1 },
	    { "big", 1 } } },
	/* memory is per node */
	{ { .mem_mb = 20 * GB }, { { "big", 1 } } },
	{ { .ntasks = 20, .mem_mb = 17 * GB }, { { "big", 20 } } },
	{ { .nodes = 2, .ntasks = 2, .mem_mb = 16 * GB },
	  { { "n1", 1 }, { "n2", 1 } } },
	/* constraints */
	{ { .constraint = "ib" }, { { "n3", 1 } } },
	{ { .constraint = "ib&fast" }, { { "n4", 1 } } },
	{ { .constraint = "fast|largemem" }, { { "n4", 1 } } },
	{ { .constraint = "nosuch|largemem" }, { { "big", 1 } } },
	{ { .constraint = "largemem" }, { { "big", 1 } } },
	{ { .ntasks = 12, .constraint = "ib" }, { { "n3", 8 }, { "n4", 4 } } },
	{ { .nodes = 2, .ntasks = 2, .constraint = "ib|largemem" },
	  { { "n3", 1 }, { "n4", 1 } } },
};

START_TEST(test_place)
{
	const struct place_case *c = &place_cases[_i];
	struct core_action *a;
	const struct core_job *j;
	uint32_t id, n = 0;

	up_all(0);
	id = submit(1, &c->req);
	ck_assert_uint_eq(core_schedule(core, 2), 1);
	a = take(1);
	check_launch(&a[0], id);
	ck_assert_uint_eq(a[0].node, idx(c->want[0].node));
	free(a);
	j = job(id);
	while (n < N(c->want) && c->want[n].node)
		n++;
	ck_assert_uint_eq(j->nalloc, n);
	for (uint32_t i = 0; i < n; i++) {
		const struct core_node *nd = node(c->want[i].node);

		ck_assert_uint_eq(j->alloc[i].node, idx(c->want[i].node));
		ck_assert_uint_eq(j->alloc[i].ncores, c->want[i].ncores);
		ck_assert_uint_eq(nd->cores_used, c->want[i].ncores);
		ck_assert_uint_eq(nd->mem_used_mb, c->req.mem_mb);
	}
	check_cores(id);
	finish(3, id);
	for (uint32_t i = 0; i < n; i++)
		check_node_idle(c->want[i].node);
}
END_TEST

START_TEST(test_nodelist)
{
	uint32_t id;
	char *text;

	up_all(0);
	id = submit(1, &(struct req){ .ntasks = 40 });
	ck_assert_uint_eq(core_schedule(core, 2), 1);
	free(take(1));
	text = core_job_nodelist(core, job(id));
	ck_assert_str_eq(text, "n[1-4],big");
	free(text);
}
END_TEST

/* --mem is per node: a node whose memory is taken takes no more jobs. */
START_TEST(test_memory)
{
	struct core_action *a;
	uint32_t x, y, z;

	up_all(0);
	x = submit(1, &(struct req){ .queue = "short", .mem_mb = 10 * GB });
	y = submit(1, &(struct req){ .queue = "short", .mem_mb = 10 * GB });
	z = submit(1, &(struct req){ .queue = "short", .mem_mb = 10 * GB });
	ck_assert_uint_eq(core_schedule(core, 2), 2);
	a = take(2);
	ck_assert_uint_eq(a[0].node, idx("n1"));
	ck_assert_uint_eq(a[1].node, idx("n2"));
	free(a);
	ck_assert_uint_eq(node("n1")->mem_used_mb, 10 * GB);
	ck_assert_uint_eq(node("n1")->cores_used, 1);
	ck_assert_int_eq(job(z)->state, ROTA_JOB_PENDING);
	ck_assert_str_eq(reason(z), "Resources");
	finish(3, y);
	ck_assert_uint_eq(node("n2")->mem_used_mb, 0);
	ck_assert_uint_eq(core_schedule(core, 4), 1);
	a = take(1);
	check_launch(&a[0], z);
	ck_assert_uint_eq(a[0].node, idx("n2"));
	free(a);
	ck_assert_int_eq(job(x)->state, ROTA_JOB_RUNNING);
}
END_TEST

/*
 * A wide job at the head of a queue that does not fit holds back the
 * narrow jobs behind it in that queue, not those of other queues.
 */
START_TEST(test_strict_order)
{
	struct core_action *a;
	uint32_t x, wide, narrow, other;

	up_all(0);
	x = submit(1, &(struct req){ .queue = "short", .ntasks = 8 });
	ck_assert_uint_eq(core_schedule(core, 2), 1);
	free(take(1));
	ck_assert_uint_eq(job(x)->alloc[0].node, idx("n1"));

	wide = submit(3, &(struct req){ .queue = "short", .ntasks = 16 });
	narrow = submit(4, &(struct req){ .queue = "short" });
	other = submit(5, &(struct req){ .queue = "long" });
	ck_assert_uint_eq(core_schedule(core, 6), 1);
	a = take(1);
	check_launch(&a[0], other);
	ck_assert_uint_eq(a[0].node, idx("n3"));
	free(a);
	ck_assert_int_eq(job(wide)->state, ROTA_JOB_PENDING);
	ck_assert_int_eq(job(narrow)->state, ROTA_JOB_PENDING);
	ck_assert_str_eq(reason(wide), "Resources");
	ck_assert_str_eq(reason(narrow), "Priority");
	/* n2 is idle, yet the narrow job may not pass the wide one */
	ck_assert_uint_eq(node("n2")->cores_used, 0);
	ck_assert_uint_eq(core_schedule(core, 7), 0);
	ck_assert_str_eq(reason(narrow), "Priority");

	finish(8, x);
	ck_assert_uint_eq(core_schedule(core, 9), 1);
	a = take(1);
	check_launch(&a[0], wide);
	free(a);
	ck_assert_uint_eq(job(wide)->nalloc, 2);
	ck_assert_uint_eq(job(wide)->alloc[0].ncores, 8);
	ck_assert_uint_eq(job(wide)->alloc[1].ncores, 8);
	ck_assert_str_eq(reason(narrow), "Resources");
	finish(10, wide);
	ck_assert_uint_eq(core_schedule(core, 11), 1);
	a = take(1);
	check_launch(&a[0], narrow);
	free(a);
}
END_TEST

/* ---- job end ---------------------------------------------------------- */

START_TEST(test_job_end)
{
	struct rota_error err = { { 0 } };
	uint32_t x, y;

	up_all(0);
	x = submit(1, &(struct req){ .ntasks = 2 });
	y = submit(1, &(struct req){ .nodes = 2, .ntasks = 2 });
	ck_assert_uint_eq(core_schedule(core, 10), 2);
	free(take(2));

	ck_assert_int_eq(end_rc(20, "n2",
				&(struct rota_msg_job_end){ .job_id = x, .run = 1 },
				&err),
			 -ENOENT);
	ck_assert_str_eq(err.text, "job 1: not running on node 'n2'");
	ck_assert_int_eq(end_rc(20, "zz",
				&(struct rota_msg_job_end){ .job_id = x, .run = 1 },
				&err),
			 -ENOENT);
	ck_assert_str_eq(err.text, "job 1: not running on node 'zz'");
	ck_assert_int_eq(end_rc(20, "n1",
				&(struct rota_msg_job_end){ .job_id = 99, .run = 1 },
				&err),
			 -ENOENT);
	ck_assert_str_eq(err.text, "job 99: not running on node 'n1'");
	ck_assert_int_eq(job(x)->state, ROTA_JOB_RUNNING);

	ck_assert_int_eq(end_rc(500, "n1",
				&(struct rota_msg_job_end){
					.job_id = x,
					.run = 1,
					.state = ROTA_JOB_FAILED,
					.exit_code = 3,
				},
				&err),
			 0);
	ck_assert_int_eq(job(x)->state, ROTA_JOB_FAILED);
	ck_assert_int_eq(job(x)->exit_code, 3);
	ck_assert_int_eq(job(x)->term_signal, 0);
	ck_assert_int_eq(job(x)->start_time, 10);
	ck_assert_int_eq(job(x)->end_time, 500);
	ck_assert_ptr_null(reason(x));
	/* a second report of the same end is refused */
	ck_assert_int_eq(end_rc(501, "n1",
				&(struct rota_msg_job_end){ .job_id = x, .run = 1 },
				&err),
			 -ENOENT);
	ck_assert_int_eq(job(x)->end_time, 500);

	ck_assert_int_eq(end_rc(600, "n1",
				&(struct rota_msg_job_end){
					.job_id = y,
					.run = 1,
					.state = ROTA_JOB_FAILED,
					.term_signal = SIGKILL,
					.text = "out of memory",
				},
				&err),
			 0);
	ck_assert_int_eq(job(y)->state, ROTA_JOB_FAILED);
	ck_assert_int_eq(job(y)->term_signal, SIGKILL);
	ck_assert_int_eq(job(y)->end_time, 600);
	ck_assert_str_eq(reason(y), "out of memory");
	check_node_idle("n1");
	check_node_idle("n2");
}
END_TEST

/* What a host does after each event: take the changes to its journal. */
static void free_changes(void)
{
	uint32_t *ids;

	core_take_dirty(core, &ids);
	free(ids);
}

START_TEST(test_purge)
{
	uint32_t x, pend;

	up(0, REG("n1", 8, 16 * GB));
	x = submit(1, &(struct req){ 0 });
	ck_assert_uint_eq(core_schedule(core, 2), 1);
	free(take(1));
	pend = submit(3, &(struct req){ .ntasks = 9 });
	ck_assert_uint_eq(core_schedule(core, 4), 0);
	finish(50, x);
	ck_assert_uint_eq(core_job_count(core), 2);

	/* a change the host has not journaled yet is never forgotten */
	core_tick(core, 1000);
	ck_assert_ptr_nonnull(core_job_find(core, x));
	free_changes();
	/* MinJobAge=100s: kept until 150 */
	core_tick(core, 149);
	ck_assert_ptr_nonnull(core_job_find(core, x));
	ck_assert_uint_eq(core_job_count(core), 2);
	core_tick(core, 150);
	ck_assert_ptr_null(core_job_find(core, x));
	ck_assert_uint_eq(core_job_count(core), 1);
	/* pending jobs are never purged, however old */
	core_tick(core, 100000);
	ck_assert_int_eq(job(pend)->state, ROTA_JOB_PENDING);
}
END_TEST

/* Each user's jobs, from the index rota queue -u reads, in id order. */
static void collect(const struct core_job *j, void *arg)
{
	uint32_t *v = arg;

	v[++v[0]] = j->id;
}

START_TEST(test_user_jobs)
{
	uint32_t a1, b1, a2, a3, got[8] = { 0 };

	up(0, REG("n1", 8, 16 * GB));
	a1 = submit(1, &(struct req){ .uid = 1000 });
	b1 = submit(1, &(struct req){ .uid = 1001 });
	a2 = submit(2, &(struct req){ .uid = 1000, .ntasks = 9 });
	a3 = submit(2, &(struct req){ .uid = 1000 });
	ck_assert_uint_eq(core_user_job_count(core, 1000), 3);
	ck_assert_uint_eq(core_user_job_count(core, 1001), 1);
	ck_assert_uint_eq(core_user_job_count(core, 1002), 0);
	core_user_jobs_foreach(core, 1000, collect, got);
	ck_assert_uint_eq(got[0], 3);
	ck_assert_uint_eq(got[1], a1);
	ck_assert_uint_eq(got[2], a2);
	ck_assert_uint_eq(got[3], a3);
	/* a purged job leaves its user's list; the others stay in order */
	ck_assert_uint_eq(core_schedule(core, 3), 2); /* a1, b1; a2 waits */
	free(take(2));
	finish(4, a1);
	free_changes();
	core_tick(core, 200);
	ck_assert_ptr_null(core_job_find(core, a1));
	memset(got, 0, sizeof(got));
	core_user_jobs_foreach(core, 1000, collect, got);
	ck_assert_uint_eq(got[0], 2);
	ck_assert_uint_eq(got[1], a2);
	ck_assert_uint_eq(got[2], a3);
	ck_assert_uint_eq(core_user_job_count(core, 1001), 1);
	(void)b1;
}
END_TEST

/* ---- cancel ----------------------------------------------------------- */

START_TEST(test_cancel_pending)
{
	struct rota_error err = { { 0 } };
	uint32_t id = submit(1, &(struct req){ .uid = 1000 });

	ck_assert_int_eq(core_cancel(core, 5, id, 1000, false, &err), 0);
	ck_assert_int_eq(job(id)->state, ROTA_JOB_CANCELLED);
	ck_assert_int_eq(job(id)->end_time, 5);
	free(take(0));
	up_all(6);
	ck_assert_uint_eq(core_schedule(core, 7), 0);
	ck_assert_int_eq(core_cancel(core, 8, id, 1000, false, &err),
			 -EALREADY);
	ck_assert_str_eq(err.text, "job 1: already CANCELLED");
}
END_TEST

START_TEST(test_cancel_running)
{
	struct rota_error err = { { 0 } };
	struct core_action *a;
	uint32_t id;

	up_all(0);
	id = submit(1, &(struct req){ .nodes = 2, .ntasks = 2, .uid = 1000 });
	ck_assert_uint_eq(core_schedule(core, 2), 1);
	free(take(1));

	ck_assert_int_eq(core_cancel(core, 3, id, 1000, false, &err), 0);
	a = take(1);
	ck_assert_int_eq(a[0].type, CORE_ACTION_SIGNAL);
	ck_assert_uint_eq(a[0].job_id, id);
	ck_assert_uint_eq(a[0].node, idx("n1"));
	ck_assert_int_eq(a[0].signo, SIGTERM);
	ck_assert(a[0].cancel);
	free(a);
	ck_assert_int_eq(job(id)->state, ROTA_JOB_RUNNING);
	ck_assert_uint_eq(node("n1")->cores_used, 1);
	/* asked again: no second signal */
	ck_assert_int_eq(core_cancel(core, 4, id, 1000, false, &err), 0);
	free(take(0));
	/* the node comes back (the order may have found no link): again */
	up(5, REG("n1", 8, 16 * GB, .jobs = (uint32_t[]){ id },
		  .runs = (uint32_t[]){ 1 }, .njobs = 1));
	a = take(1);
	ck_assert_int_eq(a[0].type, CORE_ACTION_SIGNAL);
	ck_assert(a[0].cancel);
	free(a);

	ck_assert_int_eq(end_rc(9, "n1",
				&(struct rota_msg_job_end){
					.job_id = id,
					.run = 1,
					.state = ROTA_JOB_CANCELLED,
					.term_signal = SIGTERM,
				},
				&err),
			 0);
	ck_assert_int_eq(job(id)->state, ROTA_JOB_CANCELLED);
	ck_assert_int_eq(job(id)->end_time, 9);
	check_node_idle("n1");
	check_node_idle("n2");
	ck_assert_int_eq(core_cancel(core, 10, id, 1000, false, &err),
			 -EALREADY);
	ck_assert_str_eq(err.text, "job 1: already CANCELLED");
}
END_TEST

START_TEST(test_cancel_perm)
{
	struct rota_error err = { { 0 } };
	uint32_t id = submit(1, &(struct req){ .uid = 1000 });

	ck_assert_int_eq(core_cancel(core, 2, id, 1001, false, &err), -EPERM);
	ck_assert_str_eq(err.text, "job 1: not yours to cancel");
	ck_assert_int_eq(job(id)->state, ROTA_JOB_PENDING);
	ck_assert_int_eq(core_cancel(core, 2, 99, 1000, false, &err),
			 -ENOENT);
	ck_assert_str_eq(err.text, "job 99: not found");
	ck_assert_int_eq(core_cancel(core, 3, id, 0, true, &err), 0);
	ck_assert_int_eq(job(id)->state, ROTA_JOB_CANCELLED);
}
END_TEST

/* ---- nodes ------------------------------------------------------------ */

START_TEST(test_node_timeout)
{
	uint32_t x, y;

	up_all(0);
	x = submit(1, &(struct req){ .ntasks = 8, .no_requeue = true });
	y = submit(1, &(struct req){ .ntasks = 8, .no_requeue = true });
	ck_assert_uint_eq(core_schedule(core, 2), 2);
	free(take(2));
	ck_assert_uint_eq(job(y)->alloc[0].node, idx("n2"));

	/* NodeTimeout=60s: n2 says hello at 50, n1 stays silent */
	core_node_seen(core, 50, "n2");
	core_tick(core, 60);
	ck_assert_int_eq(node("n1")->state, NODE_UP);
	core_tick(core, 61);
	ck_assert_int_eq(node("n1")->state, NODE_DOWN);
	ck_assert_str_eq(node("n1")->reason, "not responding");
	ck_assert_int_eq(job(x)->state, ROTA_JOB_NODE_FAIL);
	ck_assert_int_eq(job(x)->end_time, 61);
	check_node_idle("n1");
	ck_assert_int_eq(node("n2")->state, NODE_UP);
	ck_assert_int_eq(job(y)->state, ROTA_JOB_RUNNING);
	core_tick(core, 111);
	ck_assert_int_eq(node("n2")->state, NODE_DOWN);
	ck_assert_int_eq(job(y)->state, ROTA_JOB_NODE_FAIL);
}
END_TEST

/*
 * A node that goes down requeues its jobs and is told to kill them; when
 * it comes back still holding the first run, the job waits for that run's
 * end (a fence) before its second run starts, and only the second run's
 * end is taken.
 */
START_TEST(test_requeue_runs)
{
	struct rota_error err = { { 0 } };
	struct core_action *a;
	uint32_t x;

	up(0, REG("n1", 8, 16 * GB));
	x = submit(1, &(struct req){ .ntasks = 8 });
	ck_assert_uint_eq(core_schedule(core, 2), 1);
	a = take(1);
	ck_assert_uint_eq(a[0].run, 1);
	free(a);
	core_tick(core, 100); /* NodeTimeout=60s */
	ck_assert_int_eq(node("n1")->state, NODE_DOWN);
	ck_assert_int_eq(job(x)->state, ROTA_JOB_PENDING);
	ck_assert_uint_eq(job(x)->run, 1);
	ck_assert_uint_eq(job(x)->fence_node, 0); /* silent past its lease */
	check_node_idle("n1");
	a = take(1);
	ck_assert_int_eq(a[0].type, CORE_ACTION_SIGNAL);
	ck_assert_int_eq(a[0].signo, SIGKILL);
	free(a);
	/* back, still holding run 1: kill it, and wait for its end */
	up(110, REG("n1", 8, 16 * GB, .jobs = (uint32_t[]){ x },
		    .runs = (uint32_t[]){ 1 }, .njobs = 1));
	ck_assert_uint_eq(job(x)->fence_node, idx("n1") + 1);
	ck_assert_str_eq(reason(x), "PreviousRunNotEnded");
	ck_assert_uint_eq(core_schedule(core, 111), 0);
	a = take(1);
	ck_assert_int_eq(a[0].type, CORE_ACTION_SIGNAL);
	ck_assert_uint_eq(a[0].job_id, x);
	ck_assert_uint_eq(a[0].run, 1);
	ck_assert(a[0].cancel);
	free(a);
	/* run 1's end lifts the fence; then run 2 starts */
	ck_assert_int_eq(end_rc(112, "n1",
				&(struct rota_msg_job_end){
					.job_id = x, .run = 1,
					.state = ROTA_JOB_CANCELLED,
				},
				&err),
			 0);
	ck_assert_uint_eq(job(x)->fence_node, 0);
	ck_assert_uint_eq(core_schedule(core, 113), 1);
	a = take(1);
	ck_assert_int_eq(a[0].type, CORE_ACTION_LAUNCH);
	ck_assert_uint_eq(a[0].run, 2);
	free(a);
	/* the first run's end, again, is not the second's */
	ck_assert_int_eq(end_rc(114, "n1",
				&(struct rota_msg_job_end){
					.job_id = x, .run = 1,
					.state = ROTA_JOB_CANCELLED,
				},
				&err),
			 -ENOENT);
	ck_assert_str_eq(err.text, "job 1: the end of run 1, not of run 2");
	ck_assert_int_eq(job(x)->state, ROTA_JOB_RUNNING);
	finish(120, x);
	ck_assert_int_eq(job(x)->state, ROTA_JOB_COMPLETED);
}
END_TEST

/*
 * A requeue while the node is linked: the run is told to end, and the job
 * waits for that end; a node that keeps renewing its lease keeps the job
 * waiting however long it takes, one silent past NodeTimeout frees it.
 */
START_TEST(test_fence_requeue)
{
	struct core_action *a;
	uint32_t x, y;

	up(0, REG("n1", 8, 16 * GB));
	x = submit(1, &(struct req){ .ntasks = 4 });
	y = submit(1, &(struct req){ .ntasks = 4 });
	ck_assert_uint_eq(core_schedule(core, 2), 2);
	free(take(2));
	ck_assert_int_eq(core_requeue_job(core, 3, x, 0, true, NULL), 0);
	ck_assert_int_eq(core_requeue_job(core, 3, y, 0, true, NULL), 0);
	a = take(2);
	ck_assert_int_eq(a[0].type, CORE_ACTION_SIGNAL);
	ck_assert(a[0].cancel);
	free(a);
	ck_assert_str_eq(reason(x), "PreviousRunNotEnded");
	for (int64_t t = 10; t <= 200; t += 10) {
		ck_assert(core_node_seen(core, t, "n1"));
		core_tick(core, t);
		ck_assert_uint_eq(core_schedule(core, t), 0);
	}
	/* x's run ends: x starts again; y's node falls silent */
	ck_assert_int_eq(end_rc(201, "n1",
				&(struct rota_msg_job_end){
					.job_id = x, .run = 1,
					.state = ROTA_JOB_CANCELLED,
				},
				NULL),
			 0);
	ck_assert_int_eq(job(x)->state, ROTA_JOB_PENDING);
	ck_assert_uint_eq(core_schedule(core, 202), 1);
	ck_assert_int_eq(job(x)->state, ROTA_JOB_RUNNING);
	ck_assert_uint_eq(job(x)->run, 2);
	free(take(1));
	core_tick(core, 260);
	ck_assert_uint_eq(job(y)->fence_node, idx("n1") + 1);
	core_tick(core, 261); /* 61 s since the lease was last renewed */
	ck_assert_uint_eq(job(y)->fence_node, 0);
	/* a cancelled fenced job leaves no count behind */
	ck_assert_int_eq(core_cancel(core, 262, y, 0, true, NULL), 0);
}
END_TEST

/* A run its node killed at the end of its lease: requeued, not ended. */
START_TEST(test_lease_node_fail)
{
	uint32_t x, nr;

	up(0, REG("n1", 8, 16 * GB));
	x = submit(1, &(struct req){ .ntasks = 4 });
	nr = submit(1, &(struct req){ .ntasks = 4, .no_requeue = true });
	ck_assert_uint_eq(core_schedule(core, 2), 2);
	free(take(2));
	ck_assert_int_eq(end_rc(30, "n1",
				&(struct rota_msg_job_end){
					.job_id = x, .run = 1,
					.state = ROTA_JOB_NODE_FAIL,
					.text = (char *)"LeaseExpired",
				},
				NULL),
			 0);
	ck_assert_int_eq(job(x)->state, ROTA_JOB_PENDING);
	ck_assert_uint_eq(job(x)->fence_node, 0);
	ck_assert_int_eq(end_rc(30, "n1",
				&(struct rota_msg_job_end){
					.job_id = nr, .run = 1,
					.state = ROTA_JOB_NODE_FAIL,
				},
				NULL),
			 0);
	ck_assert_int_eq(job(nr)->state, ROTA_JOB_NODE_FAIL);
	/* a node the core declared down renews no lease: register again */
	core_tick(core, 100);
	ck_assert(!core_node_seen(core, 101, "n1"));
	ck_assert_int_eq(node("n1")->last_seen, 0);
}
END_TEST

/*
 * A lease granted before a reconfigure that lowered NodeTimeout (here
 * kept by hand, as reconfig.c does) holds the fence past NodeTimeout; a
 * job being cancelled on a node that goes down ends CANCELLED, never
 * requeued.
 */
START_TEST(test_fence_kept_lease)
{
	uint32_t x, c;

	up(0, REG("n1", 8, 16 * GB));
	x = submit(1, &(struct req){ .ntasks = 4 });
	c = submit(1, &(struct req){ .ntasks = 4 });
	ck_assert_uint_eq(core_schedule(core, 2), 2);
	free(take(2));
	ck_assert_int_eq(core_cancel(core, 3, c, 0, true, NULL), 0);
	core_node_keep_lease(core, "n1", 1000);
	core_tick(core, 61); /* NodeTimeout=60s: down */
	ck_assert_int_eq(node("n1")->state, NODE_DOWN);
	ck_assert_int_eq(job(c)->state, ROTA_JOB_CANCELLED);
	ck_assert_int_eq(job(x)->state, ROTA_JOB_PENDING);
	core_tick(core, 1000);
	ck_assert_uint_eq(job(x)->fence_node, idx("n1") + 1);
	core_tick(core, 1001);
	ck_assert_uint_eq(job(x)->fence_node, 0);
}
END_TEST

START_TEST(test_reregister)
{
	uint32_t x, y, kept, lost;

	up_all(0);
	x = submit(1, &(struct req){ .ntasks = 4, .no_requeue = true });
	kept = submit(1, &(struct req){ .ntasks = 2 });
	lost = submit(1, &(struct req){ .ntasks = 2 });
	y = submit(1, &(struct req){ .ntasks = 8 });
	ck_assert_uint_eq(core_schedule(core, 2), 4);
	free(take(4));
	ck_assert_uint_eq(job(x)->alloc[0].node, idx("n1"));
	ck_assert_uint_eq(job(kept)->alloc[0].node, idx("n1"));
	ck_assert_uint_eq(job(lost)->alloc[0].node, idx("n1"));
	ck_assert_uint_eq(job(y)->alloc[0].node, idx("n2"));

	/* n1's daemon restarted and only knows 'kept' */
	up(10, REG("n1", 8, 16 * GB, .jobs = &kept, .njobs = 1));
	ck_assert_int_eq(job(x)->state, ROTA_JOB_NODE_FAIL);
	ck_assert_int_eq(job(x)->end_time, 10);
	/* a launch lost on the way, or a run the node lost: run it again */
	ck_assert_int_eq(job(lost)->state, ROTA_JOB_PENDING);
	ck_assert_uint_eq(job(lost)->fence_node, 0);
	ck_assert_int_eq(job(kept)->state, ROTA_JOB_RUNNING);
	ck_assert_int_eq(job(y)->state, ROTA_JOB_RUNNING);
	ck_assert_uint_eq(node("n1")->cores_used, 2);
	check_cores(kept);
}
END_TEST

static const struct small_case {
	struct node_reg reg;	/* what the daemon says first */
	struct node_reg full;	/* then, at the size rota.conf gives */
	const char *reason;
} small_cases[] = {
	{ { .name = "n1", .cores = 4, .mem_mb = 16 * GB },
	  { .name = "n1", .cores = 8, .mem_mb = 16 * GB },
	  "node 'n1' has 4 cores, rota.conf says 8" },
	{ { .name = "n1", .cores = 8, .mem_mb = 8 * GB },
	  { .name = "n1", .cores = 8, .mem_mb = 16 * GB },
	  "node 'n1' has 8192 MB, rota.conf says 16384" },
	{ { .name = "big", .cores = 32, .mem_mb = 512 * GB },
	  { .name = "big", .cores = 64, .mem_mb = 2 * TB },
	  "node 'big' has 524288 MB, rota.conf says 1048576" },
};

START_TEST(test_register_small)
{
	const struct small_case *c = &small_cases[_i];
	struct rota_error err = { { 0 } };
	uint32_t id;

	ck_assert_int_eq(reg_node(0, &c->reg, &err), -EINVAL);
	ck_assert_str_eq(err.text, c->reason);
	ck_assert_int_eq(node(c->reg.name)->state, NODE_DOWN);
	ck_assert_str_eq(node(c->reg.name)->reason, c->reason);
	/* nothing is placed on it */
	id = submit(1, &(struct req){ 0 });
	ck_assert_uint_eq(core_schedule(core, 2), 0);
	ck_assert_str_eq(reason(id), "Resources");
	/* at its full size it comes up */
	up(3, &c->full);
	ck_assert_str_eq(node(c->reg.name)->reason, "");
	ck_assert_uint_eq(core_schedule(core, 4), 1);
	free(take(1));
}
END_TEST

START_TEST(test_register_unknown)
{
	struct rota_error err = { { 0 } };

	ck_assert_int_eq(reg_node(0, REG("zz", 8, 16 * GB),
				  &err),
			 -ENOENT);
	ck_assert_str_eq(err.text, "node 'zz' is not declared in rota.conf");
	ck_assert_ptr_null(core_node_find(core, "zz", NULL));
	ck_assert_uint_eq(core_node_count(core), 5);
}
END_TEST

/* ---- scale ------------------------------------------------------------ */

#define MANY 50000

struct visit {
	uint32_t last;
	size_t n;
	size_t states[ROTA_JOB_STATE_COUNT];
};

static void visit_cb(const struct core_job *j, void *arg)
{
	struct visit *v = arg;

	ck_assert_uint_gt(j->id, v->last);
	v->last = j->id;
	v->n++;
	v->states[j->state]++;
}

START_TEST(test_many_pending)
{
	struct rota_error err = { { 0 } };
	struct visit v = { 0 };
	struct core_action *a;
	uint32_t blocker, last = 0, other, early;

	/* only n1 is up: a 9-task job must wait for n2 */
	up(0, REG("n1", 8, 16 * GB));
	early = submit(1, &(struct req){ 0 });
	ck_assert_uint_eq(core_schedule(core, 1), 1);
	free(take(1));
	blocker = submit(2, &(struct req){ .ntasks = 9 });
	for (uint32_t i = 0; i < MANY; i++)
		last = submit(3, &(struct req){ 0 });
	other = submit(4, &(struct req){ .queue = "short" });
	ck_assert_uint_eq(core_job_count(core), MANY + 3);

	ck_assert_uint_eq(core_schedule(core, 5), 1);
	a = take(1);
	check_launch(&a[0], other);
	free(a);
	ck_assert_str_eq(reason(blocker), "Resources");
	ck_assert_str_eq(reason(blocker + 1), "Priority");
	ck_assert_str_eq(reason(blocker + MANY / 2), "Priority");
	ck_assert_str_eq(reason(last), "Priority");
	ck_assert_int_eq(job(last)->state, ROTA_JOB_PENDING);
	ck_assert_uint_eq(core_schedule(core, 6), 0);
	ck_assert_str_eq(reason(last), "Priority");

	/* ids spread over the ended, running and pending jobs */
	ck_assert_int_eq(core_cancel(core, 7, blocker + 7, 0, true, &err), 0);
	ck_assert_int_eq(core_cancel(core, 7, blocker + 3, 0, true, &err), 0);
	finish(8, early);
	core_job_foreach(core, visit_cb, &v);
	ck_assert_uint_eq(v.n, MANY + 3);
	ck_assert_uint_eq(v.last, other);
	ck_assert_uint_eq(v.states[ROTA_JOB_PENDING], MANY - 1);
	ck_assert_uint_eq(v.states[ROTA_JOB_RUNNING], 1);
	ck_assert_uint_eq(v.states[ROTA_JOB_CANCELLED], 2);
	ck_assert_uint_eq(v.states[ROTA_JOB_COMPLETED], 1);

	/* the blocker goes: the next in line, and those behind, start */
	ck_assert_int_eq(core_cancel(core, 9, blocker, 0, true, &err), 0);
	ck_assert_uint_eq(core_schedule(core, 10), 7);
	free(take(7));
	ck_assert_int_eq(job(blocker + 1)->state, ROTA_JOB_RUNNING);
	ck_assert_int_eq(job(blocker + 9)->state, ROTA_JOB_RUNNING);
	ck_assert_str_eq(reason(blocker + 10), "Resources");
	ck_assert_str_eq(reason(last), "Priority");
}
END_TEST

/*
 * Ids go far past the job table's size while few jobs live: every lookup
 * must still find exactly the jobs that are there after the removals.
 */
#define CHURN 5000

static bool churn_alive(uint32_t id, bool late_cancel)
{
	if (id % 7)
		return false;	/* cancelled at once, purged since */
	return !late_cancel || (id / 7) % 3 != 0;
}

static void churn_check(bool late_cancel)
{
	size_t n = 0;

	for (uint32_t id = 1; id <= CHURN + 1; id++) {
		bool want = churn_alive(id, late_cancel) && id <= CHURN;

		ck_assert_msg((core_job_find(core, id) != NULL) == want,
			      "job %u: found %d", id, !want);
		n += want;
	}
	ck_assert_uint_eq(core_job_count(core), n);
}

START_TEST(test_jobtab_churn)
{
	struct rota_error err = { { 0 } };
	struct visit v = { 0 };
	int64_t now = 0;

	for (uint32_t i = 1; i <= CHURN; i++, now++) {
		ck_assert_uint_eq(submit(now, &(struct req){ .uid = 7 }), i);
		if (i % 7)
			ck_assert_int_eq(core_cancel(core, now, i, 7, false,
						     &err),
					 0);
		free_changes();
		core_tick(core, now);
	}
	free_changes();
	core_tick(core, now + 100);
	churn_check(false);
	for (uint32_t i = 7; i <= CHURN; i += 7) {
		if ((i / 7) % 3 == 0)
			ck_assert_int_eq(core_cancel(core, now, i, 7, false,
						     &err),
					 0);
	}
	free_changes();
	core_tick(core, now + 100);
	churn_check(true);
	core_job_foreach(core, visit_cb, &v);
	ck_assert_uint_eq(v.n, core_job_count(core));
}
END_TEST

static Suite *core_suite(void)
{
	Suite *s = suite_create("core");
	TCase *tc;

	tc = tcase_create("submit");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_submit_refused, 0, N(bad_cases));
	tcase_add_loop_test(tc, test_submit_limit, 0, N(limit_cases));
	tcase_add_test(tc, test_submit_before_register);
	suite_add_tcase(s, tc);

	tc = tcase_create("schedule");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_up_only);
	tcase_add_test(tc, test_fifo_cores);
	tcase_add_loop_test(tc, test_place, 0, N(place_cases));
	tcase_add_test(tc, test_nodelist);
	tcase_add_test(tc, test_memory);
	tcase_add_test(tc, test_strict_order);
	suite_add_tcase(s, tc);

	tc = tcase_create("end");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_job_end);
	tcase_add_test(tc, test_purge);
	tcase_add_test(tc, test_user_jobs);
	tcase_add_test(tc, test_cancel_pending);
	tcase_add_test(tc, test_cancel_running);
	tcase_add_test(tc, test_cancel_perm);
	suite_add_tcase(s, tc);

	tc = tcase_create("nodes");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_node_timeout);
	tcase_add_test(tc, test_requeue_runs);
	tcase_add_test(tc, test_fence_requeue);
	tcase_add_test(tc, test_lease_node_fail);
	tcase_add_test(tc, test_fence_kept_lease);
	tcase_add_test(tc, test_reregister);
	tcase_add_loop_test(tc, test_register_small, 0, N(small_cases));
	tcase_add_test(tc, test_register_unknown);
	suite_add_tcase(s, tc);

	tc = tcase_create("scale");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_many_pending);
	tcase_add_test(tc, test_jobtab_churn);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(core_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
