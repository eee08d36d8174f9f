// SPDX-License-Identifier: MIT
/*
 * The priority plugins formula, sge and maui on the seed sites' worked
 * examples, called through their descriptors as the host calls them,
 * without the loader, with a small fake host (settings from a table,
 * log lines captured).  Expected numbers are worked out by hand in the
 * comments next to them.  The expression language (expr.h) is tested
 * here too, through its own API, since the formula plugin is its only
 * user.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "plugins/priority/expr.h"
#include "plugins/rota_plugin.h"
#include "testsuite/unit/plugins/fake_host.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

extern const struct rota_plugin rota_plugin_priority_formula;
extern const struct rota_plugin rota_plugin_priority_sge;
extern const struct rota_plugin rota_plugin_priority_multifactor;
extern const struct rota_plugin rota_plugin_priority_maui;

#define IT4I "1000*queue_priority + fairshare_priority/1000 + " \
	     "eligible_time/864000"

/* ---- a fake host --------------------------------------------------------- */

static char logbuf[4096];
static int nlogs;

static void fake_log(const struct rota_host *host, enum rota_plugin_log level,
		     const char *fmt, ...)
{
	size_t used = strlen(logbuf);
	va_list ap;

	(void)host;
	(void)level;
	va_start(ap, fmt);
	vsnprintf(logbuf + used, sizeof(logbuf) - used, fmt, ap);
	va_end(ap);
	used = strlen(logbuf);
	snprintf(logbuf + used, sizeof(logbuf) - used, "\n");
	nlogs++;
}

static void log_reset(void)
{
	logbuf[0] = '\0';
	nlogs = 0;
}

static struct rota_host host;

/* init through the descriptor; the state, or NULL with 'err' filled. */
static void *plugin_start(const struct rota_plugin *p,
			  const struct setting *s, int n, int want_rc,
			  char *err, size_t errlen)
{
	struct rota_plugin_conf conf = { s, n };
	void *state = (void *)&conf;
	int rc;

	ck_assert_uint_eq(p->abi, ROTA_PLUGIN_ABI);
	ck_assert_int_eq(p->kind, ROTA_PLUGIN_PRIORITY);
	ck_assert_uint_eq(((const struct rota_priority_ops *)p->ops)->size,
			  sizeof(struct rota_priority_ops));
	err[0] = '\0';
	rc = p->init(&host, &conf, &state, err, errlen);
	ck_assert_msg(rc == want_rc, "%s: init %d, want %d: %s", p->name, rc,
		      want_rc, err);
	if (rc)
		ck_assert_ptr_null(state);
	return state;
}

static void compute(const struct rota_plugin *p, void *state,
		    struct rota_prio_job *jobs, size_t n)
{
	const struct rota_priority_ops *ops = p->ops;
	struct rota_prio_context ctx = { .now = 1700000000 };

	for (size_t i = 0; i < n; i++)
		jobs[i].priority = NAN;
	ck_assert_int_eq(ops->compute(state, &ctx, jobs, n), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(isfinite(jobs[i].priority), "job %u: %f",
			      jobs[i].id, jobs[i].priority);
}

static size_t explain(const struct rota_plugin *p, void *state,
		      const struct rota_prio_job *job,
		      struct rota_prio_factor *f)
{
	const struct rota_priority_ops *ops = p->ops;
	struct rota_prio_context ctx = { .now = 1700000000 };

	return ops->explain(state, &ctx, job, f, ROTA_PRIO_FACTORS_MAX);
}

static void check_factor(const struct rota_prio_factor *f, const char *name,
			 double raw, double norm, double weight, double value)
{
	ck_assert_str_eq(f->name, name);
	ck_assert_msg(fabs(f->raw - raw) <= 1e-9 * fmax(1, fabs(raw)),
		      "%s raw %.12g want %.12g", name, f->raw, raw);
	ck_assert_msg(fabs(f->norm - norm) <= 1e-9 * fmax(1, fabs(norm)),
		      "%s norm %.12g want %.12g", name, f->norm, norm);
	ck_assert_msg(fabs(f->weight - weight) <= 1e-12 * fmax(1, weight),
		      "%s weight %.12g want %.12g", name, f->weight, weight);
	ck_assert_msg(fabs(f->value - value) <= 1e-9 * fmax(1, fabs(value)),
		      "%s value %.12g want %.12g", name, f->value, value);
}

static struct rota_prio_job job_base(uint32_t id)
{
	return (struct rota_prio_job){
		.id = id, .user = "ana", .account = "p1", .queue = "s",
		.qos = "normal", .submit_time = 1700000000, .cores = 1,
		.nodes = 1, .urgency = 16,
	};
}

/* ---- the expression language --------------------------------------------- */

static const struct rota_expr_name xnames[] = {
	{ "a", 0 }, { "b", 1 }, { "c_2", 2 },
};

static double xeval(const char *text, int want_rc)
{
	static const double values[] = { 2, 10, -3 };
	struct rota_expr *e = NULL;
	char err[160] = "";
	double v = -1;

	ck_assert_msg(rota_expr_parse(text, xnames, N(xnames), 3, &e, err,
				      sizeof(err)) == 0,
		      "'%s': %s", text, err);
	ck_assert_int_eq(rota_expr_eval(e, values, &v), want_rc);
	rota_expr_destroy(e);
	return v;
}

static const struct {
	const char *text;
	double value;
} expr_cases[] = {
	{ "1 - 2 - 3", -4 },		/* left to right */
	{ "2*3+4", 10 },		{ "2+3*4", 14 },
	{ "8/4/2", 1 },			{ "-2*-3", 6 },
	{ "--a", 2 },			{ "- - -a", -2 },
	{ "(a + b) * c_2", -36 },	{ "a + b * c_2", -28 },
	{ ".5e1 + 1. + 2.5E-1", 6.25 }, { "1e+2", 100 },
	{ "min(a, b, c_2)", -3 },	{ "max(a, b, c_2)", 10 },
	{ "max(a)", 2 },		{ "min(max(a, 3), b) * -1", -3 },
	{ "\ta\t*\tb ", 20 },		{ "0.1 + 0.2", 0.1 + 0.2 },
};

START_TEST(test_expr_values)
{
	ck_assert(xeval(expr_cases[_i].text, 0) == expr_cases[_i].value);
}
END_TEST

START_TEST(test_expr_arith_errors)
{
	struct rota_expr *e;
	char err[160];
	double v = 5;

	ck_assert(xeval("a / (b - 10)", -EDOM) == 0);
	ck_assert(xeval("1e308 * b", -ERANGE) == 0);
	ck_assert(xeval("1e308 * b - 1e308 * b", -ERANGE) == 0);
	/* an intermediate overflow is caught even if min() would hide it */
	ck_assert(xeval("min(1e308 * b, 1)", -ERANGE) == 0);
	ck_assert(xeval("0 / a", 0) == 0);
	/* a value that is not finite is refused, not propagated */
	ck_assert_int_eq(rota_expr_parse("a + 1", xnames, N(xnames), 3, &e,
					 err, sizeof(err)),
			 0);
	ck_assert_int_eq(rota_expr_eval(e, (double[]){ NAN, 0, 0 }, &v),
			 -ERANGE);
	ck_assert(v == 0);
	ck_assert(rota_expr_uses(e, 0));
	ck_assert(!rota_expr_uses(e, 1));
	rota_expr_destroy(e);
	rota_expr_destroy(NULL);
}
END_TEST

START_TEST(test_expr_limits)
{
	char text[ROTA_EXPR_MAX_LEN + 2];
	struct rota_expr *e = (struct rota_expr *)text;
	char err[160];
	int depth = ROTA_EXPR_MAX_DEPTH;

	/* 64 levels are fine, 65 are not (the 65th '(' is column 65) */
	memset(text, '(', depth);
	text[depth] = 'a';
	memset(text + depth + 1, ')', depth);
	text[2 * depth + 1] = '\0';
	ck_assert_int_eq(rota_expr_parse(text, xnames, 3, 3, &e, err,
					 sizeof(err)),
			 0);
	rota_expr_destroy(e);
	memset(text, '(', ROTA_EXPR_MAX_LEN);
	text[ROTA_EXPR_MAX_LEN] = '\0';
	ck_assert_int_eq(rota_expr_parse(text, xnames, 3, 3, &e, err,
					 sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_null(e);
	ck_assert_str_eq(err, "more than 64 nested levels at column 65");
	/* min( nests too */
	for (int i = 0; i < 65; i++)
		memcpy(text + 4 * i, "min(", 4);
	text[260] = '\0';
	ck_assert_int_eq(rota_expr_parse(text, xnames, 3, 3, &e, err,
					 sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "more than 64 nested levels at column 260");
	/* a long run of unary minuses is a loop, not a deep recursion */
	memset(text, '-', ROTA_EXPR_MAX_LEN - 1);
	strcpy(text + ROTA_EXPR_MAX_LEN - 1, "a");
	ck_assert_int_eq(rota_expr_parse(text, xnames, 3, 3, &e, err,
					 sizeof(err)),
			 0);
	rota_expr_destroy(e);
	memset(text, ' ', ROTA_EXPR_MAX_LEN);
	strcpy(text + ROTA_EXPR_MAX_LEN, "a");
	ck_assert_int_eq(rota_expr_parse(text, xnames, 3, 3, &e, err,
					 sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "formula longer than 4096 characters");
}
END_TEST

/* ---- formula ------------------------------------------------------------- */

/* Formula= on line 7 of test.conf, as in the example */
static void *formula_start(const char *text, int want_rc, char *err,
			   size_t errlen)
{
	const struct setting s[] = {
		{ "a", "" }, { "b", "" }, { "c", "" }, { "d", "" },
		{ "e", "" }, { "f", "" }, { "Formula", text },
	};

	return plugin_start(&rota_plugin_priority_formula, s, N(s), want_rc,
			    err, errlen);
}

static const struct {
	const char *formula;
	const char *error;	/* after "test.conf:7: Formula: " */
} formula_errors[] = {
	{ "1000*queue_priority + fairshare_prio/1000",
	  "unknown name 'fairshare_prio' at column 23" },
	{ "x", "unknown name 'x' at column 1" },
	{ "Queue_priority", "unknown name 'Queue_priority' at column 1" },
	{ "1000*(queue_priority + ncpus", "expected ')' at column 29" },
	{ "", "empty formula" },
	{ " \t ", "empty formula" },
	{ "ncpus nodes", "trailing text at column 7" },
	{ "ncpus)", "unmatched ')' at column 6" },
	{ "ncpus +", "expected a number, a name or '(' at column 8" },
	{ "ncpus * ()", "expected a number, a name or '(' at column 10" },
	{ "+ncpus", "expected a number, a name or '(' at column 1" },
	{ "min(ncpus, nodes", "expected ',' or ')' at column 17" },
	{ "min(ncpus nodes)", "expected ',' or ')' at column 11" },
	{ "max ncpus", "expected '(' after 'max' at column 5" },
	{ "min()", "expected a number, a name or '(' at column 5" },
	{ "2e", "malformed number at column 1" },
	{ "2e+", "malformed number at column 1" },
	{ "1.2.3", "malformed number at column 1" },
	{ ".", "malformed number at column 1" },
	{ "1000queue_priority", "malformed number at column 1" },
	{ "ncpus * 1e999", "number out of range at column 9" },
	{ "ncpus # 2", "trailing text at column 7" },
	{ "# 2", "unexpected character '#' at column 1" },
	{ "ncpus * \x01", "unexpected byte 0x01 at column 9" },
	{ "ncpus ^ 2", "trailing text at column 7" },
};

START_TEST(test_formula_errors)
{
	char err[160];
	char want[160];

	snprintf(want, sizeof(want), "test.conf:7: Formula: %s",
		 formula_errors[_i].error);
	formula_start(formula_errors[_i].formula, -EINVAL, err, sizeof(err));
	ck_assert_str_eq(err, want);
}
END_TEST

START_TEST(test_formula_required)
{
	char err[160];

	plugin_start(&rota_plugin_priority_formula, NULL, 0, -EINVAL, err,
		     sizeof(err));
	ck_assert_str_eq(err, "priority/formula: Formula is required, e.g. "
			      "Formula=\"1000*queue_priority + "
			      "fairshare_priority/1000\"");
}
END_TEST

/*
 * IT4I: 1000 * queue priority + fairshare (0..1e6) / 1000 + eligible
 * time / 864000.  The last two add at most 1000 + 10 (100 days), so one
 * queue outranks another whatever the rest when their priorities differ
 * by more than 1.01: IT4I's do (qfree -1024, qprod and qlong 0, qexp
 * 150, qnvidia 200).
 */
START_TEST(test_formula_it4i_tiers)
{
	static const double tiers[] = { -1024, 0, 150, 200 };
	const struct rota_plugin *p = &rota_plugin_priority_formula;
	struct rota_prio_job jobs[2 * N(tiers)];
	char err[160];
	void *st = formula_start(IT4I, 0, err, sizeof(err));

	for (int t = 0; t < N(tiers); t++) {
		/* the worst job of the tier and the best */
		jobs[2 * t] = job_base(2 * t);
		jobs[2 * t].queue_priority = tiers[t];
		jobs[2 * t].fs_value = 0;
		jobs[2 * t].eligible_time = 0;
		jobs[2 * t + 1] = job_base(2 * t + 1);
		jobs[2 * t + 1].queue_priority = tiers[t];
		jobs[2 * t + 1].fs_value = 1e6;
		jobs[2 * t + 1].eligible_time = 100 * 86400;
	}
	compute(p, st, jobs, N(jobs));
	for (int t = 1; t < N(tiers); t++)
		ck_assert_msg(jobs[2 * t].priority > jobs[2 * t - 1].priority,
			      "tier %g: %f <= %f", tiers[t],
			      jobs[2 * t].priority, jobs[2 * t - 1].priority);
	/* by hand: 1000 * 150 + 1e6 / 1000 + 8640000 / 864000 */
	ck_assert(jobs[5].priority == 150000 + 1000 + 10);
	ck_assert(jobs[0].priority == -1024000);
	ck_assert_int_eq(nlogs, 0);
	p->fini(st);
}
END_TEST

START_TEST(test_formula_explain)
{
	const struct rota_plugin *p = &rota_plugin_priority_formula;
	const struct rota_priority_ops *ops = p->ops;
	struct rota_prio_factor f[ROTA_PRIO_FACTORS_MAX];
	struct rota_prio_job job = job_base(42);
	char err[160];
	char buf[256];
	void *st = formula_start(IT4I, 0, err, sizeof(err));

	job.queue_priority = 150;
	job.fs_value = 250000;
	job.eligible_time = 86400;
	compute(p, st, &job, 1);
	/* 150000 + 250 + 0.1 */
	ck_assert_double_eq_tol(job.priority, 150250.1, 1e-9);
	ck_assert_uint_eq(explain(p, st, &job, f), 3);
	check_factor(&f[0], "queue_priority", 150, 150, 1, 150);
	check_factor(&f[1], "fairshare_priority", 250000, 250000, 1, 250000);
	check_factor(&f[2], "eligible_time", 86400, 86400, 1, 86400);
	ck_assert_uint_eq(ops->explain(st, NULL, &job, f, 2), 2);
	ops->describe(st, buf, sizeof(buf));
	ck_assert_str_eq(buf, IT4I);
	p->fini(st);
}
END_TEST

/* Every name reads the job field it documents. */
START_TEST(test_formula_names)
{
	static const struct {
		const char *formula;
		double want;
	} cases[] = {
		{ "queue_priority", 1 },  { "qos_priority", 2 },
		{ "assoc_priority", 3 },  { "fairshare_priority", 4 },
		{ "fairshare_factor", 0.5 }, { "fairshare_perc", 25 },
		{ "tickets", 7 },	  { "eligible_time", 8 },
		{ "wait_time", 9 },	  { "ncpus", 10 },
		{ "nodes", 11 },	  { "walltime", 12 },
		{ "mem", 13 },		  { "nice", -14 },
		{ "urgency", 15 },	  { "bypass", 16 },
	};
	const struct rota_plugin *p = &rota_plugin_priority_formula;
	struct rota_prio_job job = {
		.queue_priority = 1, .qos_priority = 2, .assoc_priority = 3,
		.fs_value = 4, .fs_factor = 0.5, .fs_shares_norm = 0.25,
		.tickets = 7, .eligible_time = 8, .wait_time = 9,
		.cores = 10, .nodes = 11, .time_limit = 12, .mem_mb = 13,
		.nice = -14, .urgency = 15, .bypass = 16,
	};
	char err[160];

	for (int i = 0; i < N(cases); i++) {
		void *st = formula_start(cases[i].formula, 0, err,
					 sizeof(err));

		compute(p, st, &job, 1);
		ck_assert_msg(job.priority == cases[i].want, "%s: %f",
			      cases[i].formula, job.priority);
		p->fini(st);
	}
}
END_TEST

/* Division by zero and overflow: priority 0, one log line per job. */
START_TEST(test_formula_div_zero)
{
	const struct rota_plugin *p = &rota_plugin_priority_formula;
	struct rota_prio_job jobs[3] = { job_base(7), job_base(8),
					 job_base(9) };
	char err[160];
	void *st = formula_start("1000/nice + mem*1e306", 0, err, sizeof(err));

	log_reset();
	jobs[0].nice = 0;		/* 1000 / 0 */
	jobs[1].nice = 10;		/* 100 + 0 */
	jobs[2].nice = 1;
	jobs[2].mem_mb = 1000;		/* 1e309: overflow */
	compute(p, st, jobs, 3);
	ck_assert(jobs[0].priority == 0);
	ck_assert(jobs[1].priority == 100);
	ck_assert(jobs[2].priority == 0);
	ck_assert_str_eq(logbuf, "job 7: formula divides by zero, priority 0\n"
				 "job 9: formula is not finite, priority 0\n");
	/* the next pass logs nothing new */
	log_reset();
	compute(p, st, jobs, 3);
	ck_assert(jobs[0].priority == 0 && jobs[2].priority == 0);
	ck_assert_int_eq(nlogs, 0);
	/* job 7 recovers, then fails again: logged again */
	jobs[0].nice = 5;
	compute(p, st, jobs, 3);
	ck_assert(jobs[0].priority == 200);
	ck_assert_int_eq(nlogs, 0);
	jobs[0].nice = 0;
	compute(p, st, jobs, 3);
	ck_assert_str_eq(logbuf,
			 "job 7: formula divides by zero, priority 0\n");
	p->fini(st);
}
END_TEST

/* Many jobs failing at once: five lines and a count, not one per job. */
START_TEST(test_formula_many_failing)
{
	const struct rota_plugin *p = &rota_plugin_priority_formula;
	struct rota_prio_job jobs[20];
	char err[160];
	void *st = formula_start("1/nice", 0, err, sizeof(err));

	for (int i = 0; i < N(jobs); i++)
		jobs[i] = job_base(100 + i);
	log_reset();
	compute(p, st, jobs, N(jobs));
	ck_assert_int_eq(nlogs, 6);
	ck_assert_ptr_nonnull(strstr(logbuf, "job 104: formula divides"));
	ck_assert_ptr_nonnull(strstr(logbuf, "15 more jobs: formula cannot "
					     "rate them, priority 0\n"));
	log_reset();
	compute(p, st, jobs, N(jobs));
	ck_assert_int_eq(nlogs, 0);
	compute(p, st, jobs, 0);
	p->fini(st);
}
END_TEST

/* ---- sge ----------------------------------------------------------------- */

static const struct setting maxwell[] = {
	{ "QueueUrgency", "t:40000, u:80000" },
};

/* A 'cores'-slot job in 'queue' that has waited 'wait' seconds. */
static struct rota_prio_job sge_job(uint32_t id, const char *queue,
				    uint32_t cores, int64_t wait)
{
	struct rota_prio_job job = job_base(id);

	job.queue = queue;
	job.cores = cores;
	job.wait_time = wait;
	job.eligible_time = wait;
	job.tickets = 100;
	return job;
}

/*
 * The example: a 64-slot job in s (no queue urgency) has
 * 6400 + 0.278 w; a fresh 2-slot t job 40200, a u job 80200.  It passes
 * t when 0.278 w > 33800, w > 121582.73 s (33.8 h), and u when 0.278 w >
 * 73800, w > 265467.63 s (73.7 h).  Tickets and POSIX priorities are
 * equal, so the order is the urgencies'.
 */
START_TEST(test_sge_crossings)
{
	static const struct {
		int64_t wait;
		bool before_t;	/* s job behind the t job */
		bool before_u;
	} cases[] = {
		{ 0, true, true },
		{ 121582, true, true },
		{ 121583, false, true },
		{ 265467, false, true },
		{ 265468, false, false },
	};
	const struct rota_plugin *p = &rota_plugin_priority_sge;
	char err[160];
	void *st = plugin_start(p, maxwell, N(maxwell), 0, err, sizeof(err));

	ck_assert(121583 / 3600.0 > 33.77 && 121583 / 3600.0 < 33.78);
	ck_assert(265468 / 3600.0 > 73.74 && 265468 / 3600.0 < 73.75);
	for (int i = 0; i < N(cases); i++) {
		struct rota_prio_job jobs[] = {
			sge_job(1, "s", 64, cases[i].wait),
			sge_job(2, "t", 2, 0),
			sge_job(3, "u", 2, 0),
		};

		compute(p, st, jobs, N(jobs));
		ck_assert_msg((jobs[0].priority < jobs[1].priority) ==
				      cases[i].before_t,
			      "wait %lld: s %.12f t %.12f",
			      (long long)cases[i].wait, jobs[0].priority,
			      jobs[1].priority);
		ck_assert_msg((jobs[0].priority < jobs[2].priority) ==
				      cases[i].before_u,
			      "wait %lld: s %.12f u %.12f",
			      (long long)cases[i].wait, jobs[0].priority,
			      jobs[2].priority);
	}
	p->fini(st);
}
END_TEST

/*
 * The s job at w = 121583 s, by hand: urgency 6400 + 0.278 * 121583 =
 * 40200.074; over the three jobs min 40200 (t), max 80200 (u), so nurg
 * = 0.074 / 40000.  Tickets 100 of max 100: 1.  POSIX priority 0:
 * (0 + 1024) / 2048, Grid Engine's 0.5.
 */
START_TEST(test_sge_explain)
{
	const struct rota_plugin *p = &rota_plugin_priority_sge;
	const struct rota_priority_ops *ops = p->ops;
	struct rota_prio_factor f[ROTA_PRIO_FACTORS_MAX];
	struct rota_prio_job jobs[] = {
		sge_job(1, "s", 64, 121583),
		sge_job(2, "t", 2, 0),
		sge_job(3, "u", 2, 0),
	};
	double urg = 6400 + 0.278 * 121583;
	double nurg = (urg - 40200) / 40000;
	double npp = 0.5;
	/* job 1's 100 tickets: 30 override, 20 functional (ABI 1.10) */
	const double otix = 30, ftix = 20;
	const struct rota_prio_context parts = { .now = 1700000000,
						 .job_otickets = &otix,
						 .job_ftickets = &ftix };
	char err[160];
	char buf[256];
	void *st = plugin_start(p, maxwell, N(maxwell), 0, err, sizeof(err));

	compute(p, st, jobs, N(jobs));
	ck_assert_double_eq_tol(jobs[0].priority,
				0.1 * nurg + 0.01 * 1 + 1.0 * npp, 1e-12);
	ck_assert_double_eq_tol(jobs[2].priority, 0.1 + 0.01 + npp, 1e-12);
	ck_assert_uint_eq(explain(p, st, &jobs[0], f), 10);
	check_factor(&f[0], "urgency", urg, nurg, 0.1, 0.1 * nurg);
	check_factor(&f[1], "urgency.slots", 64, 64, 100, 6400);
	check_factor(&f[2], "urgency.queue", 0, 0, 1, 0);
	check_factor(&f[3], "urgency.waiting", 121583, 121583, 0.278,
		     0.278 * 121583);
	check_factor(&f[4], "urgency.deadline", 0, 0, 3600000, 0);
	check_factor(&f[5], "tickets", 100, 1, 0.01, 0.01);
	check_factor(&f[6], "priority", 0, npp, 1, npp);
	/* its 100 tickets: none override or functional, all share-tree */
	check_factor(&f[7], "tickets.override", 0, 0, 1, 0);
	check_factor(&f[8], "tickets.functional", 0, 0, 1, 0);
	check_factor(&f[9], "tickets.share", 100, 100, 1, 100);
	ck_assert_double_eq_tol(f[0].value + f[5].value + f[6].value,
				jobs[0].priority, 1e-12);
	ck_assert_uint_eq(ops->explain(st, &parts, &jobs[0], f,
				       ROTA_PRIO_FACTORS_MAX), 10);
	check_factor(&f[7], "tickets.override", 30, 30, 1, 30);
	check_factor(&f[8], "tickets.functional", 20, 20, 1, 20);
	check_factor(&f[9], "tickets.share", 50, 50, 1, 50);
	ck_assert_uint_eq(explain(p, st, &jobs[1], f), 10);
	check_factor(&f[2], "urgency.queue", 40000, 40000, 1, 40000);
	ops->describe(st, buf, sizeof(buf));
	ck_assert_str_eq(buf, "WeightUrgency=0.1 WeightTicket=0.01 "
			      "WeightPriority=1 SlotUrgency=100 "
			      "WeightWaitingTime=0.278 "
			      "WeightDeadline=3600000 UrgencySlots=min "
			      "QueueUrgency=t:40000,u:80000");
	p->fini(st);
}
END_TEST

/*
 * Grid Engine's ranges (sge_do_urgency()): urgency normalized over the
 * pending jobs not held and the running ones; a held job rated 0 and in
 * no range.  Maxwell's weights (0.5, 0.5, 0), slots x 100, no waiting:
 * pending 2 slots (200), held 64 (6400: out), running 8 (800): nurg of
 * the pending job (200 - 200) / (800 - 200) = 0, of the running 1.
 * Tickets: pending 50, held 1000 (out), running 100: 0.5 and 1.
 */
START_TEST(test_sge_held_and_running)
{
	static const struct setting s[] = {
		{ "WeightUrgency", "0.5" }, { "WeightTicket", "0.5" },
		{ "WeightPriority", "0" }, { "WeightWaitingTime", "0" },
	};
	static const uint8_t state[] = { ROTA_PRIO_JOB_PENDING,
					 ROTA_PRIO_JOB_HELD,
					 ROTA_PRIO_JOB_RUNNING };
	const struct rota_plugin *p = &rota_plugin_priority_sge;
	const struct rota_priority_ops *ops = p->ops;
	struct rota_prio_job jobs[3] = { sge_job(1, "s", 2, 0),
					 sge_job(2, "s", 64, 0),
					 sge_job(3, "s", 8, 0) };
	struct rota_prio_context ctx = { .now = 1700000000,
					 .job_state = state };
	struct rota_prio_factor f[ROTA_PRIO_FACTORS_MAX];
	char err[160];
	void *st = plugin_start(p, s, N(s), 0, err, sizeof(err));

	ck_assert(ops->rates_all);
	jobs[0].tickets = 50;
	jobs[1].tickets = 1000;
	jobs[2].tickets = 100;
	ck_assert_int_eq(ops->compute(st, &ctx, jobs, 3), 0);
	ck_assert_double_eq_tol(jobs[0].priority, 0.5 * 0 + 0.5 * 0.5, 1e-12);
	ck_assert(jobs[1].priority == 0);
	ck_assert_double_eq_tol(jobs[2].priority, 0.5 * 1 + 0.5 * 1, 1e-12);
	/* a held job has no terms to show */
	ctx.job_state = &state[1];
	ck_assert_uint_eq(ops->explain(st, &ctx, &jobs[1], f, N(f)), 0);
	ctx.job_state = &state[0];
	ck_assert_uint_eq(ops->explain(st, &ctx, &jobs[0], f, N(f)), 10);
	check_factor(&f[0], "urgency", 200, 0, 0.5, 0);
	p->fini(st);
}
END_TEST

/*
 * A consumable's urgency (Grid Engine's complex urgency column):
 * ResourceUrgency="gpu:1000,matlab:500".  A 2-slot job with 4 GPUs and
 * matlab:2,ansys:1 has rrcontr 2 x 100 + 4 x 1000 + 2 x 500 (ansys has
 * none) = 5200; one without them 200; normalized 1 and 0.  rota prio's
 * "urgency.resources" shows 5000, only when the setting is there.
 */
START_TEST(test_sge_resource_urgency)
{
	static const struct setting s[] = {
		{ "WeightUrgency", "1" }, { "WeightTicket", "0" },
		{ "WeightPriority", "0" }, { "WeightWaitingTime", "0" },
		{ "ResourceUrgency", "gpu:1000,matlab:500" },
	};
	static const uint32_t gpus[] = { 4, 0 };
	static const char *const lics[] = { "matlab:2,ansys:1", NULL };
	const struct rota_plugin *p = &rota_plugin_priority_sge;
	const struct rota_priority_ops *ops = p->ops;
	struct rota_prio_job jobs[2] = { sge_job(1, "s", 2, 0),
					 sge_job(2, "s", 2, 0) };
	struct rota_prio_context ctx = { .now = 1700000000,
					 .job_gpus = gpus,
					 .job_licenses = lics };
	struct rota_prio_factor f[ROTA_PRIO_FACTORS_MAX];
	char err[160], buf[512];
	void *st = plugin_start(p, s, N(s), 0, err, sizeof(err));

	ck_assert_msg(st, "%s", err);
	ck_assert_int_eq(ops->compute(st, &ctx, jobs, 2), 0);
	ck_assert_double_eq_tol(jobs[0].priority, 1, 1e-12);
	ck_assert_double_eq_tol(jobs[1].priority, 0, 1e-12);
	ck_assert_uint_eq(ops->explain(st, &ctx, &jobs[0], f, N(f)), 11);
	check_factor(&f[0], "urgency", 5200, 1, 1, 1);
	check_factor(&f[4], "urgency.resources", 5000, 5000, 1, 5000);
	ops->describe(st, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, " ResourceUrgency=gpu:1000,"
					  "matlab:500"));
	p->fini(st);
}
END_TEST

/*
 * A consumable JOB (bench/oracle/out-consumable, FINDINGS.md rule 14):
 * Grid Engine's urgency is request x urgency x slots whatever the
 * consumable column, so -pe mpi 2 -l ljob=1 (urgency 300) has rrcontr
 * 2 x 100 + 1 x 300 x 2 = 800, and -pe mpi 2 -l lic=1 (per slot,
 * urgency 1000, Rota's count in all lic:2) 2 x 100 + 2 x 1000 = 2200.
 * Under avg, a 2-4 range counts 3 slots: ljob 3 x 100 + 1 x 300 x 3.
 */
START_TEST(test_sge_resource_per_job)
{
	static const struct setting s[] = {
		{ "WeightUrgency", "1" }, { "WeightTicket", "0" },
		{ "WeightPriority", "0" }, { "WeightWaitingTime", "0" },
		{ "UrgencySlots", "avg" },
		{ "ResourceUrgency", "lic:1000, ljob:300:job " },
	};
	static const char *const lics[] = { "ljob:1", "lic:2", "ljob:1",
					    NULL };
	static const uint32_t lo[] = { 0, 0, 2, 0 };
	static const uint32_t hi[] = { 0, 0, 4, 0 };
	const struct rota_plugin *p = &rota_plugin_priority_sge;
	const struct rota_priority_ops *ops = p->ops;
	struct rota_prio_job jobs[4] = { sge_job(1, "s", 2, 0),
					 sge_job(2, "s", 2, 0),
					 sge_job(3, "s", 2, 0),
					 sge_job(4, "s", 1, 0) };
	struct rota_prio_context ctx = { .now = 1700000000,
					 .job_licenses = lics,
					 .job_cores_min = lo,
					 .job_cores_max = hi };
	struct rota_prio_factor f[ROTA_PRIO_FACTORS_MAX];
	char err[160], buf[512];
	void *st = plugin_start(p, s, N(s), 0, err, sizeof(err));

	ck_assert_msg(st, "%s", err);
	ck_assert_int_eq(ops->compute(st, &ctx, jobs, 4), 0);
	/* urgencies 800, 2200, 1200, 100: normalized over 100..2200 */
	ck_assert_double_eq_tol(jobs[0].priority, 700.0 / 2100, 1e-12);
	ck_assert_double_eq_tol(jobs[1].priority, 1, 1e-12);
	ck_assert_double_eq_tol(jobs[2].priority, 1100.0 / 2100, 1e-12);
	ck_assert_double_eq_tol(jobs[3].priority, 0, 1e-12);
	ck_assert_uint_eq(ops->explain(st, &ctx, &jobs[0], f, N(f)), 11);
	check_factor(&f[0], "urgency", 800, 700.0 / 2100, 1, 700.0 / 2100);
	check_factor(&f[4], "urgency.resources", 600, 600, 1, 600);
	ops->describe(st, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, " ResourceUrgency=lic:1000,"
					  "ljob:300:job"));
	p->fini(st);
}
END_TEST

/*
 * Slurm's PriorityWeightTRES, against a real slurmctld 22.05 with
 * slurmdbd (PriorityWeightTRES=CPU=1000,Mem=2000,GRES/gpu=3000, every
 * other weight 0; partition batch of cpu=32,mem=64000M,gres/gpu=8,
 * partition gpu of cpu=16,mem=32000M,gres/gpu=8):
 *
 *   job  partition  -n  --mem  GPUs  sprio TRES                    PRIORITY
 *   1    batch       4  4000   0     cpu=125,mem=125               250
 *   2    gpu         2  2000   2     cpu=125,mem=125,gres/gpu=750  1000
 *   3    batch       8  8000   1     cpu=250,mem=250,gres/gpu=375  875
 *   4    gpu         1  100    3     cpu=62,mem=6,gres/gpu=1125    1193
 *
 * and, without the GPU weight, batch jobs of 3 CPUs and 1000M
 * (cpu=94,mem=31: 125) and 5 CPUs and 1100M (cpu=156,mem=34: 190).  A
 * job's share is of its partition (job 2's 2 CPUs of 16), sprio rounds
 * each term, and PRIORITY truncates their sum (190.625: 190; 1193.75:
 * 1193); Rota keeps the fraction.
 */
START_TEST(test_multifactor_tres)
{
	static const struct setting s[] = {
		{ "WeightTRES", "CPU=1000,Mem=2000,GRES/gpu=3000" },
	};
	static const uint32_t gpus[] = { 0, 2, 1, 3, 0, 0 };
	static const uint32_t qcores[] = { 32, 16, 32, 16, 32, 32 };
	static const uint64_t qmem[] = { 64000, 32000, 64000, 32000, 64000,
					 64000 };
	static const uint32_t qnodes[] = { 3, 2, 3, 2, 3, 3 };
	static const uint32_t qgpus[] = { 8, 8, 8, 8, 8, 8 };
	const struct rota_plugin *p = &rota_plugin_priority_multifactor;
	const struct rota_priority_ops *ops = p->ops;
	struct rota_prio_job jobs[6];
	struct rota_prio_context ctx = {
		.now = 1700000000, .job_gpus = gpus,
		.job_queue_cores = qcores, .job_queue_mem_mb = qmem,
		.job_queue_nodes = qnodes, .job_queue_gpus = qgpus,
	};
	struct rota_prio_context one = ctx;
	struct rota_prio_factor f[ROTA_PRIO_FACTORS_MAX];
	static const uint32_t cores[] = { 4, 2, 8, 1, 3, 5 };
	static const uint64_t mem[] = { 4000, 2000, 8000, 100, 1000, 1100 };
	static const double want[] = { 250, 1000, 875, 1193.75, 125, 190.625 };
	char err[160], buf[512];
	void *st = plugin_start(p, s, N(s), 0, err, sizeof(err));

	ck_assert_msg(st, "%s", err);
	for (size_t i = 0; i < N(jobs); i++) {
		jobs[i] = job_base((uint32_t)i + 1);
		jobs[i].cores = cores[i];
		jobs[i].mem_mb = mem[i];
	}
	ck_assert_int_eq(ops->compute(st, &ctx, jobs, N(jobs)), 0);
	for (size_t i = 0; i < N(jobs); i++)
		ck_assert_msg(fabs(jobs[i].priority - want[i]) < 1e-9,
			      "job %zu: %.6f, want %.6f", i + 1,
			      jobs[i].priority, want[i]);
	/* rota prio's terms of the 5-CPU job: no GPU, no GPU term */
	one.job_gpus = &gpus[5];
	one.job_queue_cores = &qcores[5];
	one.job_queue_mem_mb = &qmem[5];
	one.job_queue_nodes = &qnodes[5];
	one.job_queue_gpus = &qgpus[5];
	ck_assert_uint_eq(ops->explain(st, &one, &jobs[5], f, N(f)), 2);
	check_factor(&f[0], "tres/cpu", 5, 5.0 / 32, 1000, 156.25);
	check_factor(&f[1], "tres/mem", 1100, 1100.0 / 64000, 2000, 34.375);
	/* job 4: 3 GPUs of its partition's 8, 3000 x 3 / 8 (sprio 1125) */
	one.job_gpus = &gpus[3];
	one.job_queue_cores = &qcores[3];
	one.job_queue_mem_mb = &qmem[3];
	one.job_queue_nodes = &qnodes[3];
	one.job_queue_gpus = &qgpus[3];
	ck_assert_uint_eq(ops->explain(st, &one, &jobs[3], f, N(f)), 3);
	check_factor(&f[0], "tres/cpu", 1, 1.0 / 16, 1000, 62.5);
	check_factor(&f[1], "tres/mem", 100, 100.0 / 32000, 2000, 6.25);
	check_factor(&f[2], "tres/gres/gpu", 3, 3.0 / 8, 3000, 1125);
	ops->describe(st, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, " WeightTRES=CPU=1000,Mem=2000,"
					  "GRES/gpu=3000"));
	p->fini(st);
}
END_TEST

START_TEST(test_multifactor_tres_errors)
{
	static const struct setting bad[][1] = {
		{ { "WeightTRES", "CPU=1000,license/matlab=5" } },
		{ { "WeightTRES", "CPU" } },
		{ { "WeightTRES", "Mem=-1" } },
	};
	static const char *const want[] = {
		"test.conf:1: WeightTRES: unknown resource 'license/matlab' "
		"(CPU, Mem, Node, GRES/gpu)",
		"test.conf:1: WeightTRES: 'CPU' is not resource=weight",
		"test.conf:1: WeightTRES: Mem: '-1' is not a weight from 0",
	};
	char err[160];

	for (size_t i = 0; i < N(bad); i++) {
		plugin_start(&rota_plugin_priority_multifactor, bad[i], 1,
			     -EINVAL, err, sizeof(err));
		ck_assert_str_eq(err, want[i]);
	}
}
END_TEST

/* Grid Engine's normalization at its edges, and the weights as set. */
START_TEST(test_sge_normalize)
{
	static const struct setting s[] = {
		{ "WeightUrgency", "2" }, { "WeightTicket", "3" },
		{ "WeightPriority", "5" }, { "SlotUrgency", "10" },
		{ "WeightWaitingTime", "0" },
	};
	const struct rota_plugin *p = &rota_plugin_priority_sge;
	struct rota_prio_job jobs[3] = { sge_job(1, "s", 4, 0),
					 sge_job(2, "s", 4, 99),
					 sge_job(3, "s", 4, 0) };
	char err[160];
	void *st = plugin_start(p, s, N(s), 0, err, sizeof(err));

	/* equal urgencies: 0.5 each; no tickets anywhere: 0.5 each too */
	jobs[0].tickets = jobs[1].tickets = jobs[2].tickets = 0;
	jobs[0].nice = 5000;	/* ppri -5000, clamped to -1023: 1 / 2048 */
	jobs[1].nice = -2000;	/* 2000, clamped to 1024: 1 */
	jobs[2].nice = 23;	/* -23: (1024 - 23) / 2048 */
	compute(p, st, jobs, 3);
	ck_assert_double_eq_tol(jobs[0].priority,
				2 * 0.5 + 3 * 0.5 + 5.0 / 2048, 1e-12);
	ck_assert_double_eq_tol(jobs[1].priority, 2 * 0.5 + 3 * 0.5 + 5,
				1e-12);
	ck_assert_double_eq_tol(jobs[2].priority,
				1 + 1.5 + 5 * 1001.0 / 2048, 1e-12);
	/* tickets 0, 50, 200 of max 200 */
	jobs[1].tickets = 50;
	jobs[2].tickets = 200;
	jobs[1].nice = jobs[2].nice = 5000;
	jobs[0].cores = 2;	/* urgency 20 vs 40: 0, 1, 1 */
	compute(p, st, jobs, 3);	/* and npprior 1 / 2048 each */
	ck_assert_double_eq_tol(jobs[0].priority, 5.0 / 2048, 1e-12);
	ck_assert_double_eq_tol(jobs[1].priority, 2 + 3 * 0.25 + 5.0 / 2048,
				1e-12);
	ck_assert_double_eq_tol(jobs[2].priority, 2 + 3 + 5.0 / 2048, 1e-12);
	compute(p, st, jobs, 0);
	p->fini(st);
}
END_TEST

/*
 * Grid Engine's empty range is narrower than SGE_EPSILON (1e-5), not
 * DBL_EPSILON: urgencies 100.000001 and 100.000006 are "all equal", so
 * nurg 0.5 for both; 100.00002 is a range again.
 */
START_TEST(test_sge_epsilon)
{
	static const struct setting s[] = {
		{ "WeightUrgency", "1" }, { "WeightTicket", "0" },
		{ "WeightPriority", "0" }, { "SlotUrgency", "100" },
		{ "WeightWaitingTime", "0.000001" },
	};
	const struct rota_plugin *p = &rota_plugin_priority_sge;
	struct rota_prio_job jobs[2] = { sge_job(1, "s", 1, 1),
					 sge_job(2, "s", 1, 6) };
	char err[160];
	void *st = plugin_start(p, s, N(s), 0, err, sizeof(err));

	compute(p, st, jobs, 2);
	ck_assert(jobs[0].priority == 0.5 && jobs[1].priority == 0.5);
	jobs[1].wait_time = 21;
	compute(p, st, jobs, 2);
	ck_assert_double_eq_tol(jobs[0].priority, 0, 1e-12);
	ck_assert_double_eq_tol(jobs[1].priority, 1, 1e-12);
	p->fini(st);
}
END_TEST

/*
 * The deadline contribution, sge_urgency.c's: WeightDeadline / max(time
 * left, 1).  Job 1's deadline is 100 s away: 3600000 / 100 = 36000; job
 * 2's passed an hour ago: counted 1 s away, 3600000; job 3 has none.
 * Slots 100 each, no waiting time: urgencies 36100, 3600100, 100, so
 * nurg (36100 - 100) / 3600000 = 0.01, 1 and 0.  A held job's deadline
 * does not count: it is rated 0 and out of the range.
 */
START_TEST(test_sge_deadline)
{
	static const struct setting s[] = {
		{ "WeightUrgency", "1" }, { "WeightTicket", "0" },
		{ "WeightPriority", "0" }, { "WeightWaitingTime", "0" },
	};
	const struct rota_plugin *p = &rota_plugin_priority_sge;
	const struct rota_priority_ops *ops = p->ops;
	struct rota_prio_job jobs[4] = { sge_job(1, "s", 1, 0),
					 sge_job(2, "s", 1, 0),
					 sge_job(3, "s", 1, 0),
					 sge_job(4, "s", 1, 0) };
	int64_t now = 1700000000;
	int64_t dl[4] = { now + 100, now - 3600, 0, now + 1 };
	uint8_t state[4] = { ROTA_PRIO_JOB_PENDING, ROTA_PRIO_JOB_PENDING,
			     ROTA_PRIO_JOB_PENDING, ROTA_PRIO_JOB_HELD };
	struct rota_prio_context ctx = { .now = now, .job_state = state,
					 .job_deadline = dl };
	struct rota_prio_factor f[ROTA_PRIO_FACTORS_MAX];
	char err[160];
	void *st = plugin_start(p, s, N(s), 0, err, sizeof(err));

	ck_assert_int_eq(ops->compute(st, &ctx, jobs, 4), 0);
	ck_assert_double_eq_tol(jobs[0].priority, 36000.0 / 3600000, 1e-12);
	ck_assert_double_eq_tol(jobs[1].priority, 1, 1e-12);
	ck_assert_double_eq_tol(jobs[2].priority, 0, 1e-12);
	ck_assert(jobs[3].priority == 0);
	ctx.job_deadline = &dl[0];
	ctx.job_state = &state[0];
	ck_assert_uint_eq(ops->explain(st, &ctx, &jobs[0], f, N(f)), 10);
	check_factor(&f[4], "urgency.deadline", 100, 0.01, 3600000, 36000);
	check_factor(&f[0], "urgency", 36100, 0.01, 1, 0.01);
	ctx.job_deadline = &dl[1];
	ck_assert_uint_eq(ops->explain(st, &ctx, &jobs[1], f, N(f)), 10);
	check_factor(&f[4], "urgency.deadline", 1, 1, 3600000, 3600000);
	p->fini(st);
}
END_TEST

/*
 * Task ranges (Grid Engine's PE urgency_slots, sge_pe(5)), slots x 100,
 * urgency weight 1, nothing else.  Jobs: 2-6 pending (cores 2), 2-5
 * pending (cores 2), 1-4 running on 3 (cores 3: rated by its range as
 * Grid Engine rates it, bench/oracle/out-pe), 4 fixed (no range), and
 * 2-6 of 2 cores per task (4-12 as cores, cores 4).  By hand:
 *   min   200  200  100  400   400
 *   max   600  500  400  400  1200
 *   avg   400  300  200  400   800  (avg of 2..5 is 3.5 and of 1..4
 *                                    2.5: Grid Engine's int, 3 and 2)
 *   7     700  700  700  400   700  (a number: every range, never a
 *                                    fixed request)
 */
static const struct {
	const char *setting;
	double urg[5];
} slot_cases[] = {
	{ "min", { 200, 200, 100, 400, 400 } },
	{ "MAX", { 600, 500, 400, 400, 1200 } },
	{ "avg", { 400, 300, 200, 400, 800 } },
	{ "7", { 700, 700, 700, 400, 700 } },
	{ NULL, { 200, 200, 100, 400, 400 } }, /* unset: min */
};

START_TEST(test_sge_urgency_slots)
{
	const struct setting s[] = {
		{ "WeightUrgency", "1" },     { "WeightTicket", "0" },
		{ "WeightPriority", "0" },    { "WeightWaitingTime", "0" },
		{ "UrgencySlots", slot_cases[_i].setting },
	};
	const struct rota_plugin *p = &rota_plugin_priority_sge;
	const struct rota_priority_ops *ops = p->ops;
	struct rota_prio_job jobs[5] = {
		sge_job(1, "s", 2, 0), sge_job(2, "s", 2, 0),
		sge_job(3, "s", 3, 0), sge_job(4, "s", 4, 0),
		sge_job(5, "s", 4, 0),
	};
	const uint32_t cmin[5] = { 2, 2, 1, 0, 4 };
	const uint32_t cmax[5] = { 6, 5, 4, 0, 12 };
	uint8_t state[5] = { ROTA_PRIO_JOB_PENDING, ROTA_PRIO_JOB_PENDING,
			     ROTA_PRIO_JOB_RUNNING, ROTA_PRIO_JOB_PENDING,
			     ROTA_PRIO_JOB_PENDING };
	struct rota_prio_context ctx = { .now = 1700000000,
					 .job_state = state,
					 .job_cores_min = cmin,
					 .job_cores_max = cmax };
	const double *urg = slot_cases[_i].urg;
	double lo = urg[0], hi = urg[0];
	struct rota_prio_factor f[ROTA_PRIO_FACTORS_MAX];
	char err[160];
	void *st = plugin_start(p, s, slot_cases[_i].setting ? N(s) : 4, 0,
				err, sizeof(err));

	ck_assert_msg(st, "%s", err);
	for (int i = 1; i < 5; i++) {
		lo = fmin(lo, urg[i]);
		hi = fmax(hi, urg[i]);
	}
	ck_assert_int_eq(ops->compute(st, &ctx, jobs, 5), 0);
	for (size_t i = 0; i < 5; i++) {
		struct rota_prio_context one = ctx;

		ck_assert_double_eq_tol(jobs[i].priority,
					(urg[i] - lo) / (hi - lo), 1e-12);
		one.job_state = &state[i];
		one.job_cores_min = &cmin[i];
		one.job_cores_max = &cmax[i];
		ck_assert_uint_eq(ops->explain(st, &one, &jobs[i], f, N(f)),
				  10);
		check_factor(&f[1], "urgency.slots", urg[i] / 100,
			     urg[i] / 100, 100, urg[i]);
		check_factor(&f[0], "urgency", urg[i],
			     (urg[i] - lo) / (hi - lo), 1,
			     (urg[i] - lo) / (hi - lo));
	}
	p->fini(st);
}
END_TEST

/* An older host passes no ranges: every job's slots are its cores. */
START_TEST(test_sge_urgency_slots_none)
{
	static const struct setting s[] = { { "UrgencySlots", "max" } };
	const struct rota_plugin *p = &rota_plugin_priority_sge;
	struct rota_prio_factor f[ROTA_PRIO_FACTORS_MAX];
	struct rota_prio_job job = sge_job(1, "s", 3, 0);
	char err[160];
	char buf[256];
	void *st = plugin_start(p, s, N(s), 0, err, sizeof(err));

	compute(p, st, &job, 1);
	ck_assert_uint_eq(explain(p, st, &job, f), 10);
	check_factor(&f[1], "urgency.slots", 3, 3, 100, 300);
	((const struct rota_priority_ops *)p->ops)->describe(st, buf,
							      sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, " UrgencySlots=max"));
	p->fini(st);
}
END_TEST

/* A queue named as GWDG names them: the last colon starts the urgency. */
START_TEST(test_sge_queue_with_colon)
{
	static const struct setting s[] = {
		{ "QueueUrgency", "medium40:test:40000, t:5" },
	};
	const struct rota_plugin *p = &rota_plugin_priority_sge;
	struct rota_prio_factor f[ROTA_PRIO_FACTORS_MAX];
	struct rota_prio_job job = sge_job(1, "medium40:test", 1, 0);
	char err[160];
	char buf[256];
	void *st = plugin_start(p, s, N(s), 0, err, sizeof(err));

	((const struct rota_priority_ops *)p->ops)->describe(st, buf,
							      sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "QueueUrgency=medium40:test:40000,"
					  "t:5"));
	compute(p, st, &job, 1);
	ck_assert_uint_eq(explain(p, st, &job, f), 10);
	check_factor(&f[2], "urgency.queue", 40000, 40000, 1, 40000);
	p->fini(st);
}
END_TEST

static const struct {
	const char *key;
	const char *value;
	const char *error;
} sge_errors[] = {
	{ "QueueUrgency", "t:40000,,u:1",
	  "test.conf:1: QueueUrgency: expected 'queue:urgency' at column 9" },
	{ "QueueUrgency", "t:40000,",
	  "test.conf:1: QueueUrgency: expected 'queue:urgency' at column 9" },
	{ "QueueUrgency", "",
	  "test.conf:1: QueueUrgency: expected 'queue:urgency' at column 1" },
	{ "QueueUrgency", "t40000",
	  "test.conf:1: QueueUrgency: expected 'queue:urgency' at column 1" },
	{ "QueueUrgency", ":5",
	  "test.conf:1: QueueUrgency: expected 'queue:urgency' at column 1" },
	{ "QueueUrgency", "t:",
	  "test.conf:1: QueueUrgency: expected a number at column 3" },
	{ "QueueUrgency", "t: 4e4x",
	  "test.conf:1: QueueUrgency: expected a number at column 3" },
	{ "QueueUrgency", "t:1, u:2, t:3",
	  "test.conf:1: QueueUrgency: queue given twice at column 11" },
	{ "QueueUrgency", "t:-5",
	  "test.conf:1: QueueUrgency: urgency not within [0, 1e9] at "
	  "column 3" },
	{ "QueueUrgency", "big q:5",
	  "test.conf:1: QueueUrgency: blank in a queue name at column 4" },
	{ "WeightUrgency", "-1",
	  "test.conf:1: WeightUrgency: '-1' is not within [0, 1e+09]" },
	{ "UrgencySlots", "mean",
	  "test.conf:1: UrgencySlots: 'mean' is not min, max, avg or a "
	  "number from 0 to 1000000" },
	{ "UrgencySlots", "-2",
	  "test.conf:1: UrgencySlots: '-2' is not min, max, avg or a "
	  "number from 0 to 1000000" },
	{ "UrgencySlots", "4x",
	  "test.conf:1: UrgencySlots: '4x' is not min, max, avg or a "
	  "number from 0 to 1000000" },
	{ "UrgencySlots", "1000001",
	  "test.conf:1: UrgencySlots: '1000001' is not min, max, avg or a "
	  "number from 0 to 1000000" },
};

START_TEST(test_sge_errors)
{
	const struct setting s[] = {
		{ sge_errors[_i].key, sge_errors[_i].value },
	};
	char err[160];

	plugin_start(&rota_plugin_priority_sge, s, 1, -EINVAL, err,
		     sizeof(err));
	ck_assert_str_eq(err, sge_errors[_i].error);
}
END_TEST

/* ---- maui ---------------------------------------------------------------- */

/*
 * Defaults: every component weight 1, QueueTimeWeight 1, all else 0:
 * the priority is the minutes queued, at least 1.
 */
START_TEST(test_maui_defaults)
{
	const struct rota_plugin *p = &rota_plugin_priority_maui;
	struct rota_prio_factor f[ROTA_PRIO_FACTORS_MAX];
	struct rota_prio_job jobs[3] = { job_base(1), job_base(2),
					 job_base(3) };
	char err[160];
	void *st = plugin_start(p, NULL, 0, 0, err, sizeof(err));

	jobs[0].eligible_time = 5400;	/* 90 min */
	jobs[1].eligible_time = 30;	/* 0.5 min: floored at 1 */
	jobs[2].eligible_time = 7200;
	jobs[2].wait_time = 99999;	/* held: only eligible time counts */
	jobs[2].cores = 512;
	compute(p, st, jobs, 3);
	ck_assert(jobs[0].priority == 90);
	ck_assert(jobs[1].priority == 1);
	ck_assert(jobs[2].priority == 120);
	ck_assert_uint_eq(explain(p, st, &jobs[0], f), 1);
	check_factor(&f[0], "serv.queuetime", 5400, 90, 1, 90);
	p->fini(st);
}
END_TEST

/*
 * One job by hand.  Eligible 3600 s (60 min), limit 7200 s: XFactor
 * (3600 + 7200) / 7200 = 1.5; bypassed 3 times; QOS target 3700 s: 100
 * s left, 100^-2 = 1e-4; 16 cores, 32000 MB; QOS priority 500; share
 * 25% of the machine, usage 10%: 15.
 *   Serv 1 x (1 x 60 + 100 x 1.5 + 10 x 3)        =   240
 *   Targ 1 x (1e8 x 1e-4)                          = 10000
 *   Res  2 x (3 x 16 + 0.001 x 32000)              =   160
 *   Cred 10 x (1 x 500)                            =  5000
 *   FS   5 x (2 x 15)                              =   150
 *                                                    15550
 */
static const struct setting maui_set[] = {
	{ "XFactorWeight", "100" },	{ "BypassWeight", "10" },
	{ "TargetQueueTimeWeight", "1e8" }, { "ResWeight", "2" },
	{ "ProcWeight", "3" },		{ "MemWeight", "0.001" },
	{ "CredWeight", "10" },		{ "QOSWeight", "1" },
	{ "FSWeight", "5" },		{ "FSUserWeight", "2" },
};

static struct rota_prio_job maui_job(void)
{
	struct rota_prio_job job = job_base(5);

	job.eligible_time = 3600;
	job.wait_time = 4000;
	job.time_limit = 7200;
	job.bypass = 3;
	job.qos_target_wait = 3700;
	job.cores = 16;
	job.mem_mb = 32000;
	job.qos_priority = 500;
	job.fs_shares_norm = 0.25;
	job.fs_usage_norm = 0.1;
	return job;
}

START_TEST(test_maui_by_hand)
{
	const struct rota_plugin *p = &rota_plugin_priority_maui;
	const struct rota_priority_ops *ops = p->ops;
	struct rota_prio_factor f[ROTA_PRIO_FACTORS_MAX];
	struct rota_prio_job job = maui_job();
	char err[160];
	char buf[512];
	double sum = 0;
	void *st = plugin_start(p, maui_set, N(maui_set), 0, err, sizeof(err));

	compute(p, st, &job, 1);
	ck_assert_double_eq_tol(job.priority, 15550, 1e-6);
	ck_assert_uint_eq(explain(p, st, &job, f), 8);
	check_factor(&f[0], "serv.queuetime", 3600, 60, 1, 60);
	check_factor(&f[1], "serv.xfactor", 1.5, 1.5, 100, 150);
	check_factor(&f[2], "serv.bypass", 3, 3, 10, 30);
	check_factor(&f[3], "targ.queuetime", 100, 1e-4, 1e8, 10000);
	check_factor(&f[4], "res.proc", 16, 16, 6, 96);
	check_factor(&f[5], "res.mem", 32000, 32000, 0.002, 64);
	check_factor(&f[6], "cred.qos", 500, 500, 10, 5000);
	check_factor(&f[7], "fs.user", 10, 15, 10, 150);
	for (int i = 0; i < 8; i++)
		sum += f[i].value;
	ck_assert_double_eq_tol(sum, job.priority, 1e-6);
	ops->describe(st, buf, sizeof(buf));
	ck_assert_str_eq(buf, "serv.queuetime=1(1) serv.xfactor=1(100) "
			      "serv.bypass=1(10) targ.queuetime=1(1e+08) "
			      "res.proc=2(3) res.mem=2(0.001) cred.qos=10(1) "
			      "fs.user=5(2)");
	p->fini(st);
}
END_TEST

/* The edges: past the target, no limit, no share, the 1e9 cap. */
START_TEST(test_maui_edges)
{
	static const struct setting xf[] = {
		{ "XFMinWCLimit", "4h" }, { "XFactorWeight", "1" },
	};
	const struct rota_plugin *p = &rota_plugin_priority_maui;
	struct rota_prio_factor f[ROTA_PRIO_FACTORS_MAX];
	struct rota_prio_job job = maui_job();
	char err[160];
	void *st = plugin_start(p, maui_set, N(maui_set), 0, err, sizeof(err));

	/* 100 s past the target: the difference floors at 1e-4: 1e8 */
	job.eligible_time = 3800;
	explain(p, st, &job, f);
	check_factor(&f[3], "targ.queuetime", -100, 1e8, 1e8, 1e16);
	compute(p, st, &job, 1);
	ck_assert(job.priority == 1e9);
	/* no target, no limit, no share */
	job.qos_target_wait = 0;
	job.time_limit = 0;
	job.fs_shares_norm = 0;
	explain(p, st, &job, f);
	check_factor(&f[1], "serv.xfactor", 1, 1, 100, 100);
	check_factor(&f[3], "targ.queuetime", -3800, 0, 1e8, 0);
	check_factor(&f[7], "fs.user", 10, 0, 10, 0);
	p->fini(st);
	/* XFMinWCLimit floors the divisor: (3600 + 7200) / 14400 */
	st = plugin_start(p, xf, N(xf), 0, err, sizeof(err));
	job = maui_job();
	ck_assert_uint_eq(explain(p, st, &job, f), 2);
	check_factor(&f[1], "serv.xfactor", 0.75, 0.75, 1, 0.75);
	p->fini(st);
}
END_TEST

START_TEST(test_maui_errors)
{
	static const struct setting neg[] = { { "ProcWeight", "-1" } };
	static const struct setting big[] = { { "FSWeight", "2e9" } };
	char err[160];

	plugin_start(&rota_plugin_priority_maui, neg, 1, -EINVAL, err,
		     sizeof(err));
	ck_assert_str_eq(err, "test.conf:1: ProcWeight: '-1' is not within "
			      "[0, 1e+09]");
	plugin_start(&rota_plugin_priority_maui, big, 1, -EINVAL, err,
		     sizeof(err));
	ck_assert_str_eq(err, "test.conf:1: FSWeight: '2e9' is not within "
			      "[0, 1e+09]");
}
END_TEST

static Suite *priority_suite(void)
{
	Suite *s = suite_create("priority");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_expr_values, 0, N(expr_cases));
	tcase_add_test(tc, test_expr_arith_errors);
	tcase_add_test(tc, test_expr_limits);
	tcase_add_loop_test(tc, test_formula_errors, 0, N(formula_errors));
	tcase_add_test(tc, test_formula_required);
	tcase_add_test(tc, test_formula_it4i_tiers);
	tcase_add_test(tc, test_formula_explain);
	tcase_add_test(tc, test_formula_names);
	tcase_add_test(tc, test_formula_div_zero);
	tcase_add_test(tc, test_formula_many_failing);
	tcase_add_test(tc, test_sge_crossings);
	tcase_add_test(tc, test_sge_explain);
	tcase_add_test(tc, test_sge_queue_with_colon);
	tcase_add_test(tc, test_sge_normalize);
	tcase_add_test(tc, test_sge_epsilon);
	tcase_add_test(tc, test_sge_deadline);
	tcase_add_test(tc, test_sge_held_and_running);
	tcase_add_test(tc, test_sge_resource_urgency);
	tcase_add_test(tc, test_sge_resource_per_job);
	tcase_add_test(tc, test_multifactor_tres);
	tcase_add_test(tc, test_multifactor_tres_errors);
	tcase_add_loop_test(tc, test_sge_urgency_slots, 0, N(slot_cases));
	tcase_add_test(tc, test_sge_urgency_slots_none);
	tcase_add_loop_test(tc, test_sge_errors, 0, N(sge_errors));
	tcase_add_test(tc, test_maui_defaults);
	tcase_add_test(tc, test_maui_by_hand);
	tcase_add_test(tc, test_maui_edges);
	tcase_add_test(tc, test_maui_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	fake_host_init(&host);
	host.log = fake_log;
	sr = srunner_create(priority_suite());

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}
