// SPDX-License-Identifier: MIT
/*
 * What a replay shows (sim.h): the figures of the scheduling literature
 * (utilization, wait, bounded slowdown with the usual 10 s threshold,
 * makespan), what backfill did, fairness as each user's and account's
 * share of the trace's core-seconds against its normalized share, a
 * side-by-side table for --compare, the per-job CSV and a hand-written
 * SVG of utilization and queue length.  Every number is printed with a
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
		k->wide + k->zero + k->cancelled + k->unknown + k->refused);
	fprintf(f, "  skipped     %zu wider than the machine, %zu zero-length, "
		   "%zu cancelled before start, %zu unknown size or run time, "
		   "%zu refused by the core\n",
		k->wide, k->zero, k->cancelled, k->unknown, k->refused);
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

/* ---- SVG ------------------------------------------------------------------ */

enum { SVG_W = 960, SVG_H = 220, SVG_PAD = 50, SVG_BUCKETS = 800 };

struct bucket {
	double busy;	/* core-seconds */
	uint32_t queued_max;
};

/* Time-weighted busy cores and the longest queue per bucket. */
static struct bucket *bucketize(const struct sim_result *r, int64_t t0,
				int64_t t1)
{
	struct bucket *b = rota_xcalloc(SVG_BUCKETS, sizeof(*b));
	double width = (double)(t1 - t0) / SVG_BUCKETS;

	for (size_t i = 0; i < r->nsteps; i++) {
		const struct sim_step *s = &r->steps[i];
		int64_t a = s->time;
		int64_t z = i + 1 < r->nsteps ? r->steps[i + 1].time : t1;

		for (double t = (double)a; t < (double)z;) {
			size_t k = (size_t)((t - (double)t0) / width);
			double edge;

			if (k >= SVG_BUCKETS)
				break;
			edge = fmin((double)t0 + (double)(k + 1) * width,
				    (double)z);
			b[k].busy += (double)s->busy * (edge - t);
			if (s->queued > b[k].queued_max)
				b[k].queued_max = s->queued;
			t = edge > t ? edge : t + 1;
		}
	}
	return b;
}

static void svg_panel(FILE *f, int top, const char *title, const double *v,
		      double max)
{
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"13\">%s (max %.4g)"
		   "</text>\n",
		SVG_PAD, top - 6, title, max);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		   "fill=\"none\" stroke=\"#888\"/>\n",
		SVG_PAD, top, SVG_W - 2 * SVG_PAD, SVG_H);
	fprintf(f, "<polyline fill=\"none\" stroke=\"#1f5fa8\" "
		   "stroke-width=\"1\" points=\"");
	for (int k = 0; k < SVG_BUCKETS; k++) {
		double x = SVG_PAD + (double)k * (SVG_W - 2 * SVG_PAD) /
					     SVG_BUCKETS;
		double y = top + SVG_H - (max > 0 ? v[k] / max : 0) * SVG_H;

		fprintf(f, "%s%.1f,%.1f", k ? " " : "", x, y);
	}
	fprintf(f, "\"/>\n");
}

int sim_report_svg(FILE *f, const struct sim_result *r)
{
	int64_t t0 = r->nsteps ? r->steps[0].time : 0;
	int64_t t1 = r->nsteps ? r->steps[r->nsteps - 1].time + 1 : 1;
	struct bucket *b = bucketize(r, t0, t1);
	double util[SVG_BUCKETS];
	double queue[SVG_BUCKETS];
	double qmax = 0;
	double width = (double)(t1 - t0) / SVG_BUCKETS;
	char a[32];
	char z[32];

	for (int k = 0; k < SVG_BUCKETS; k++) {
		util[k] = r->total_cores ? b[k].busy / width /
						   (double)r->total_cores
					 : 0;
		queue[k] = b[k].queued_max;
		qmax = fmax(qmax, queue[k]);
	}
	duration(t0, a, sizeof(a));
	duration(t1, z, sizeof(z));
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		   "height=\"%d\" font-family=\"sans-serif\">\n",
		SVG_W, 2 * SVG_H + 110);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	svg_panel(f, 30, "utilization", util, 1.0);
	svg_panel(f, SVG_H + 70, "queued jobs", queue, qmax);
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>\n",
		SVG_PAD, 2 * SVG_H + 100, a);
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" "
		   "text-anchor=\"end\">%s (trace time, d-hh:mm:ss)</text>\n",
		SVG_W - SVG_PAD, 2 * SVG_H + 100, z);
	fprintf(f, "</svg>\n");
	free(b);
	return ferror(f) ? -EIO : 0;
}
