// SPDX-License-Identifier: MIT
/*
 * What a replay shows (sim.h): the figures of the scheduling literature
 * (utilization, wait, bounded slowdown with the usual 10 s threshold,
 * makespan), what backfill did, fairness as each user's and account's
 * share of the trace's core-seconds against its normalized share, a
 * side-by-side table for --compare and the per-job CSV (the SVG is
 * svg.c's).  Every number is printed with a
 * fixed format from integers or sums in a fixed order: the same result
 * gives the same bytes.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "sim/sim.h"

#define BSLD_THRESHOLD 10.0

static int by_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a;
	int64_t y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static double job_bsld(const struct sim_job *j)
{
	return fmax(1.0, (double)(j->end - j->submit) /
				 fmax((double)(j->end - j->start),
				      BSLD_THRESHOLD));
}

struct user_bsld {
	uint32_t user;
	uint32_t job;		/* sums in job order: the same bytes */
	double bsld;
};

static int by_user(const void *a, const void *b)
{
	const struct user_bsld *x = a, *y = b;

	if (x->user != y->user)
		return x->user < y->user ? -1 : 1;
	return (x->job > y->job) - (x->job < y->job);
}

/* sim_stats' fairness figures: users' mean bounded slowdowns. */
static void user_fairness(const struct sim_result *r, struct sim_stats *s)
{
	struct user_bsld *u = rota_xcalloc(r->njobs + 1, sizeof(*u));
	double sum = 0, sq = 0;
	size_t n = 0;

	for (size_t i = 0; i < r->njobs; i++)
		if (r->jobs[i].start >= 0 && r->jobs[i].end >= 0)
			u[n++] = (struct user_bsld){ r->jobs[i].user,
						     (uint32_t)i,
						     job_bsld(&r->jobs[i]) };
	qsort(u, n, sizeof(*u), by_user);
	for (size_t i = 0; i < n;) {
		size_t k = i;
		double t = 0, mean;

		for (; k < n && u[k].user == u[i].user; k++)
			t += u[k].bsld;
		mean = t / (double)(k - i);
		sum += mean;
		sq += mean * mean;
		if (!s->users || mean > s->worst_bsld) {
			s->worst_bsld = mean;
			s->worst_user = u[i].user;
		}
		s->users++;
		i = k;
	}
	s->fair_jain = sq > 0 ? sum * sum / ((double)s->users * sq) : 1.0;
	free(u);
}

void sim_stats_compute(const struct sim_result *r, struct sim_stats *s)
{
	int64_t *waits = rota_xcalloc(r->njobs + 1, sizeof(*waits));
	int64_t first = INT64_MAX;
	int64_t last = INT64_MIN;
	double used = 0;
	double bsld = 0;
	double wsum = 0;
	size_t n = 0;

	*s = (struct sim_stats){ .backfilled = r->bf_started };
	for (size_t i = 0; i < r->njobs; i++) {
		const struct sim_job *j = &r->jobs[i];
		int64_t run = j->end - j->start;

		if (j->submit < first)
			first = j->submit;
		if (j->start < 0 || j->end < 0)
			continue;
		waits[n++] = j->start - j->submit;
		wsum += (double)(j->start - j->submit);
		used += (double)j->cores * (double)run;
		bsld += job_bsld(j);
		s->timeouts += j->timeout;
		if (j->end > last)
			last = j->end;
	}
	s->jobs = n;
	if (n) {
		qsort(waits, n, sizeof(*waits), by_i64);
		s->wait_mean = wsum / (double)n;
		s->wait_median = n % 2 ? (double)waits[n / 2]
				       : ((double)waits[n / 2 - 1] +
					  (double)waits[n / 2]) / 2;
		/* nearest rank */
		s->wait_p95 = (double)waits[(size_t)ceil(0.95 * (double)n) - 1];
		s->bsld_mean = bsld / (double)n;
		s->makespan = last - first;
		if (s->makespan > 0 && r->total_cores)
			s->utilization = used / ((double)r->total_cores *
						 (double)s->makespan);
	}
	user_fairness(r, s);
	free(waits);
}

static void duration(int64_t s, char *buf, size_t len)
{
	snprintf(buf, len, "%lld-%02lld:%02lld:%02lld", (long long)(s / 86400),
		 (long long)(s / 3600 % 24), (long long)(s / 60 % 60),
		 (long long)(s % 60));
}

static void print_skips(FILE *f, const struct sim_result *r)
{
	const struct sim_skips *k = &r->skips;

	fprintf(f, "jobs          %zu in the trace, %zu replayed, %zu skipped\n",
		r->trace_jobs, r->njobs,
		k->wide + k->zero + k->cancelled + k->unknown + k->refused +
			k->no_estimate);
	fprintf(f, "  skipped     %zu wider than the machine, %zu zero-length, "
		   "%zu cancelled before start, %zu unknown size or run time, "
		   "%zu refused by the core",
		k->wide, k->zero, k->cancelled, k->unknown, k->refused);
	if (k->strict)
		fprintf(f, ", %zu without a requested time (--filter strict)",
			k->no_estimate);
	fputc('\n', f);
	if (k->refused)
		fprintf(f, "  first refused: %s\n", k->first_refusal);
	if (r->malformed)
		fprintf(f, "  malformed   %zu lines skipped (--lenient)\n",
			r->malformed);
}

/* --dependencies only: without it the report is what it always was. */
static void print_deps(FILE *f, const struct sim_result *r)
{
	const struct sim_dep_counts *d = &r->deps;

	if (!d->enabled)
		return;
	fprintf(f, "dependencies  %zu jobs follow an earlier job (field 17): "
		   "%zu submitted later than recorded, %zu earlier, %zu at "
		   "it\n",
		d->follows, d->later, d->earlier, d->same);
	fprintf(f, "  unreplayed  %zu whose preceding job was not replayed: "
		   "at their recorded time\n",
		d->prec_skipped);
	fprintf(f, "  think time  %zu with field 18 -1: the log's gap after "
		   "the preceding job, else 0\n",
		d->no_think);
	fprintf(f, "  ignored     %zu naming no job of the trace, %zu "
		   "themselves or a later job%s%s%s\n",
		d->not_in_trace, d->malformed, d->malformed ? " (first: " : "",
		d->malformed ? d->first_malformed : "",
		d->malformed ? ")" : "");
	if (d->never)
		fprintf(f, "  never       %zu submitted: their preceding job "
			   "never ended\n",
			d->never);
}

void sim_report_shares(FILE *f, const struct sim_result *r)
{
	fprintf(f, "shares        usage share (whole trace) against "
		   "normalized share\n");
	fprintf(f, "  %-24s %10s %10s %8s\n", "ACCOUNT/USER", "SHARE",
		"USAGE", "RATIO");
	for (size_t i = 1; i < r->nshares; i++) {
		const struct sim_share *s = &r->shares[i];
		char name[64];

		snprintf(name, sizeof(name), "%*s%s", 2 * (int)(s->depth - 1),
			 "", s->name);
		fprintf(f, "  %-24s %10.6f %10.6f %8.3f\n", name,
			s->shares_norm, s->usage_share,
			s->shares_norm > 0 ? s->usage_share / s->shares_norm
					   : 0.0);
	}
}

void sim_report_print(FILE *f, const struct sim_result *r)
{
	struct sim_stats s;
	char span[32];

	sim_stats_compute(r, &s);
	duration(s.makespan, span, sizeof(span));
	fprintf(f, "config        %s\n", r->config_name);
	fprintf(f, "policy        %s\n", r->policy);
	fprintf(f, "cluster       %zu nodes, %llu cores\n", r->nnodes,
		(unsigned long long)r->total_cores);
	print_skips(f, r);
	print_deps(f, r);
	fprintf(f, "started       %zu (%zu never started)\n", s.jobs,
		r->njobs - s.jobs);
	fprintf(f, "utilization   %.4f\n", s.utilization);
	fprintf(f, "wait          mean %.1f s, median %.1f s, p95 %.1f s\n",
		s.wait_mean, s.wait_median, s.wait_p95);
	fprintf(f, "slowdown      %.3f (mean bounded slowdown, %.0f s "
		   "threshold)\n",
		s.bsld_mean, BSLD_THRESHOLD);
	fprintf(f, "makespan      %lld s (%s)\n", (long long)s.makespan, span);
	fprintf(f, "backfilled    %llu jobs (%llu main passes, %llu backfill "
		   "passes; %llu and %llu skipped: nothing changed)\n",
		(unsigned long long)s.backfilled,
		(unsigned long long)r->main_passes,
		(unsigned long long)r->bf_passes,
		(unsigned long long)r->main_skipped,
		(unsigned long long)r->bf_skipped);
	fprintf(f, "timeouts      %zu jobs cut at their limit\n", s.timeouts);
	fprintf(f, "fairness      %.4f (Jain's index of the %zu users' mean "
		   "bounded slowdowns: 1 when all are slowed alike); worst "
		   "u%u at %.3f\n",
		s.fair_jain, s.users, s.worst_user, s.worst_bsld);
}

void sim_report_compare(FILE *f, const struct sim_result *r, size_t n)
{
	struct sim_stats *s = rota_xcalloc(n + 1, sizeof(*s));

	for (size_t i = 0; i < n; i++)
		sim_stats_compute(&r[i], &s[i]);
	fprintf(f, "%-22s", "");
	for (size_t i = 0; i < n; i++) {
		const char *b = strrchr(r[i].config_name, '/');

		fprintf(f, " %16.16s", b ? b + 1 : r[i].config_name);
	}
	fputc('\n', f);
#define ROW(label, fmt, expr)                                                  \
	do {                                                                   \
		fprintf(f, "%-22s", label);                                    \
		for (size_t i = 0; i < n; i++)                                 \
			fprintf(f, " %16" fmt, expr);                          \
		fputc('\n', f);                                                \
	} while (0)
	ROW("jobs started", "zu", s[i].jobs);
	ROW("utilization", ".4f", s[i].utilization);
	ROW("wait mean (s)", ".1f", s[i].wait_mean);
	ROW("wait median (s)", ".1f", s[i].wait_median);
	ROW("wait p95 (s)", ".1f", s[i].wait_p95);
	ROW("bounded slowdown", ".3f", s[i].bsld_mean);
	ROW("makespan (s)", "lld", (long long)s[i].makespan);
	ROW("backfilled", "llu", (unsigned long long)s[i].backfilled);
	ROW("timeouts", "zu", s[i].timeouts);
	ROW("fairness (Jain)", ".4f", s[i].fair_jain);
	ROW("worst user's bsld", ".3f", s[i].worst_bsld);
	if (r[0].deps.enabled)
		ROW("submitted late", "zu", r[i].deps.later);
#undef ROW
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s: %s\n", r[i].config_name, r[i].policy);
	free(s);
}

int sim_report_csv(FILE *f, const struct sim_result *r)
{
	fprintf(f, "id,submit,start,end,nodes,cores,wait,priority,backfilled,"
		   "timeout\n");
	for (size_t i = 0; i < r->njobs; i++) {
		const struct sim_job *j = &r->jobs[i];

		fprintf(f, "%lld,%lld,%lld,%lld,%u,%u,%lld,%.6g,%d,%d\n",
			(long long)j->swf_id, (long long)j->submit,
			(long long)j->start, (long long)j->end, j->nodes,
			j->cores,
			(long long)(j->start >= 0 ? j->start - j->submit : -1),
			j->priority, j->backfilled, j->timeout);
	}
	return ferror(f) ? -EIO : 0;
}
