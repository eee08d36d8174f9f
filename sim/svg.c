// SPDX-License-Identifier: MIT
/*
 * rota sim --svg (sim.h, sim_report_svg): four panels a person reads,
 * every run of a --compare overlaid in its own colour with a legend:
 * utilization and queue length over the trace's time, the distribution
 * of waits (a CDF on a log scale, where waits of seconds and of days
 * both show), and mean bounded slowdown by job size.  Each panel has
 * axes with ticks at round values.  Written by hand, like every other
 * output here: fixed formats from the results, so the same runs give
 * the same bytes.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "sim/sim.h"

enum {
	W = 960,		/* the picture's width */
	PANEL_H = 190,		/* a panel's plot height */
	LEFT = 70,		/* room for the y ticks' labels */
	RIGHT = 20,
	GAP = 70,		/* title above, x labels below a panel */
	BUCKETS = 800,		/* time buckets of the time panels */
	NCLASS = 6,		/* job size classes */
};

static const char *const colours[] = {
	"#1f5fa8", "#d1495b", "#2e933c", "#e08e0b", "#7b3fa0", "#555555",
};
#define NCOLOURS (sizeof(colours) / sizeof(colours[0]))

/* Upper bounds (cores) of the size classes; the last is open. */
static const uint32_t class_max[NCLASS] = { 1, 4, 16, 64, 256, UINT32_MAX };
static const char *const class_name[NCLASS] = {
	"1", "2-4", "5-16", "17-64", "65-256", "257+",
};

struct frame {
	FILE *f;
	int top;		/* the plot area's top */
	double x0, x1;		/* data range along x */
	double y0, y1;
	bool xlog;		/* x is log10 of the value */
};

static double px(const struct frame *fr, double x)
{
	if (fr->xlog)
		x = log10(fmax(x, 1.0));
	return LEFT + (x - fr->x0) / (fr->x1 - fr->x0) * (W - LEFT - RIGHT);
}

static double py(const struct frame *fr, double y)
{
	return fr->top + PANEL_H - (y - fr->y0) / (fr->y1 - fr->y0) * PANEL_H;
}

/* A round tick step (1, 2 or 5 x 10^k) giving about 'want' ticks. */
static double tick_step(double span, int want)
{
	double raw = span / want;
	double p = pow(10, floor(log10(raw)));

	if (raw / p >= 5)
		return 5 * p;
	if (raw / p >= 2)
		return 2 * p;
	return p;
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else
			fputc(*s, f);
	}
}

/* The box, the title and the y axis's ticks, labels and grid. */
static void axes(const struct frame *fr, const char *title,
		 const char *ylabel)
{
	double step = tick_step(fr->y1 - fr->y0, 4);

	fprintf(fr->f, "<text x=\"%d\" y=\"%d\" font-size=\"14\" "
		       "font-weight=\"bold\">%s</text>\n",
		LEFT, fr->top - 10, title);
	for (double y = fr->y0; y <= fr->y1 + step / 1e6; y += step) {
		fprintf(fr->f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
			       "y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			LEFT, py(fr, y), W - RIGHT, py(fr, y));
		fprintf(fr->f, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" "
			       "text-anchor=\"end\">%g</text>\n",
			LEFT - 6, py(fr, y) + 4, y);
	}
	fprintf(fr->f, "<text x=\"14\" y=\"%d\" font-size=\"11\" "
		       "transform=\"rotate(-90 14 %d)\" "
		       "text-anchor=\"middle\">%s</text>\n",
		fr->top + PANEL_H / 2, fr->top + PANEL_H / 2, ylabel);
	fprintf(fr->f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		       "fill=\"none\" stroke=\"#444\"/>\n",
		LEFT, fr->top, W - LEFT - RIGHT, PANEL_H);
}

static void x_tick(const struct frame *fr, double x, const char *label)
{
	double at = px(fr, x);

	fprintf(fr->f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
		       "stroke=\"#444\"/>\n",
		at, fr->top + PANEL_H, at, fr->top + PANEL_H + 5);
	fprintf(fr->f, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" "
		       "text-anchor=\"middle\">%s</text>\n",
		at, fr->top + PANEL_H + 18, label);
}

static void x_label(const struct frame *fr, const char *label)
{
	fprintf(fr->f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" "
		       "text-anchor=\"middle\">%s</text>\n",
		LEFT + (W - LEFT - RIGHT) / 2, fr->top + PANEL_H + 34, label);
}

/* Days from the first submit, at round steps. */
static void time_ticks(const struct frame *fr)
{
	double step = tick_step((fr->x1 - fr->x0) / 86400, 8) * 86400;
	char label[32];

	for (double t = 0; t <= fr->x1 - fr->x0 + 1; t += step) {
		snprintf(label, sizeof(label), "%g", t / 86400);
		x_tick(fr, fr->x0 + t, label);
	}
	x_label(fr, "days from the first submit");
}

static void polyline(const struct frame *fr, size_t run, const double *x,
		     const double *y, size_t n)
{
	fprintf(fr->f, "<polyline fill=\"none\" stroke=\"%s\" "
		       "stroke-width=\"1.2\" points=\"",
		colours[run % NCOLOURS]);
	for (size_t k = 0; k < n; k++)
		fprintf(fr->f, "%s%.1f,%.1f", k ? " " : "", px(fr, x[k]),
			py(fr, y[k]));
	fprintf(fr->f, "\"/>\n");
}

/* Time-weighted busy cores and the longest queue per time bucket. */
static void bucketize(const struct sim_result *r, int64_t t0, int64_t t1,
		      double *util, double *queue)
{
	double width = (double)(t1 - t0) / BUCKETS;

	memset(util, 0, BUCKETS * sizeof(*util));
	memset(queue, 0, BUCKETS * sizeof(*queue));
	for (size_t i = 0; i < r->nsteps; i++) {
		const struct sim_step *s = &r->steps[i];
		int64_t z = i + 1 < r->nsteps ? r->steps[i + 1].time : t1;

		for (double t = (double)s->time; t < (double)z;) {
			size_t k = (size_t)((t - (double)t0) / width);
			double edge;

			if (k >= BUCKETS)
				break;
			edge = fmin((double)t0 + (double)(k + 1) * width,
				    (double)z);
			util[k] += (double)s->busy * (edge - t);
			queue[k] = fmax(queue[k], s->queued);
			t = edge > t ? edge : t + 1;
		}
	}
	for (int k = 0; k < BUCKETS; k++)
		util[k] = r->total_cores ? util[k] / width /
						   (double)r->total_cores
					 : 0;
}

static void time_panels(FILE *f, const struct sim_result *r, size_t n,
			int top)
{
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	double *util = rota_xcalloc((n + 1) * BUCKETS, sizeof(*util));
	double *queue = rota_xcalloc((n + 1) * BUCKETS, sizeof(*queue));
	double x[BUCKETS];
	double qmax = 1;
	struct frame fr;

	for (size_t i = 0; i < n; i++) {
		if (!r[i].nsteps)
			continue;
		t0 = r[i].steps[0].time < t0 ? r[i].steps[0].time : t0;
		t1 = r[i].steps[r[i].nsteps - 1].time + 1 > t1
			     ? r[i].steps[r[i].nsteps - 1].time + 1
			     : t1;
	}
	if (t0 >= t1) {
		t0 = 0;
		t1 = 1;
	}
	for (int k = 0; k < BUCKETS; k++)
		x[k] = (double)t0 + (k + 0.5) * (double)(t1 - t0) / BUCKETS;
	for (size_t i = 0; i < n; i++) {
		bucketize(&r[i], t0, t1, util + i * BUCKETS,
			  queue + i * BUCKETS);
		for (int k = 0; k < BUCKETS; k++)
			qmax = fmax(qmax, queue[i * BUCKETS + k]);
	}
	fr = (struct frame){ f, top, (double)t0, (double)t1, 0, 1, false };
	axes(&fr, "Utilization", "busy cores / cores");
	time_ticks(&fr);
	for (size_t i = 0; i < n; i++)
		polyline(&fr, i, x, util + i * BUCKETS, BUCKETS);
	fr.top += PANEL_H + GAP;
	fr.y1 = ceil(qmax / tick_step(qmax, 4)) * tick_step(qmax, 4);
	axes(&fr, "Queue length (the longest in each of 800 spans)",
	     "pending jobs");
	time_ticks(&fr);
	for (size_t i = 0; i < n; i++)
		polyline(&fr, i, x, queue + i * BUCKETS, BUCKETS);
	free(util);
	free(queue);
}

static int by_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The share of jobs that waited at most x, x on a log scale. */
static void wait_cdf(FILE *f, const struct sim_result *r, size_t n, int top)
{
	static const struct {
		double s;
		const char *label;
	} ticks[] = {
		{ 1, "1 s" }, { 10, "10 s" }, { 60, "1 min" },
		{ 600, "10 min" }, { 3600, "1 h" }, { 36000, "10 h" },
		{ 86400, "1 d" }, { 864000, "10 d" }, { 8640000, "100 d" },
	};
	struct frame fr = { f, top, 0, 1, 0, 1, true };
	int64_t most = 10;

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < r[i].njobs; k++)
			if (r[i].jobs[k].start >= 0 &&
			    r[i].jobs[k].start - r[i].jobs[k].submit > most)
				most = r[i].jobs[k].start - r[i].jobs[k].submit;
	fr.x1 = ceil(log10((double)most));
	axes(&fr, "Waits: the share of jobs that waited at most this long",
	     "share of jobs");
	for (size_t k = 0; k < sizeof(ticks) / sizeof(ticks[0]); k++)
		if (log10(ticks[k].s) <= fr.x1)
			x_tick(&fr, ticks[k].s, ticks[k].label);
	x_label(&fr, "wait (log scale; waits under 1 s at the left edge)");
	for (size_t i = 0; i < n; i++) {
		int64_t *w = rota_xcalloc(r[i].njobs + 1, sizeof(*w));
		double x[BUCKETS + 1], y[BUCKETS + 1];
		size_t m = 0, at = 0;

		for (size_t k = 0; k < r[i].njobs; k++)
			if (r[i].jobs[k].start >= 0)
				w[m++] = r[i].jobs[k].start -
					 r[i].jobs[k].submit;
		qsort(w, m, sizeof(*w), by_i64);
		/* the CDF at BUCKETS + 1 points evenly spaced in log x */
		for (int k = 0; k <= BUCKETS; k++) {
			x[k] = pow(10, fr.x1 * k / BUCKETS);
			while (at < m && (double)w[at] <= x[k])
				at++;
			y[k] = m ? (double)at / (double)m : 0;
		}
		polyline(&fr, i, x, y, BUCKETS + 1);
		free(w);
	}
}

static size_t size_class(uint32_t cores)
{
	size_t c = 0;

	while (c + 1 < NCLASS && cores > class_max[c])
		c++;
	return c;
}

/* Grouped bars: each run's mean bounded slowdown per size class. */
static void bsld_bars(FILE *f, const struct sim_result *r, size_t n, int top)
{
	double *mean = rota_xcalloc((n + 1) * NCLASS, sizeof(*mean));
	double most = 1, slot, bar;
	struct frame fr = { f, top, 0, NCLASS, 0, 1, false };

	for (size_t i = 0; i < n; i++) {
		size_t count[NCLASS] = { 0 };

		for (size_t k = 0; k < r[i].njobs; k++) {
			const struct sim_job *j = &r[i].jobs[k];
			size_t c = size_class(j->cores);

			if (j->start < 0 || j->end < 0)
				continue;
			mean[i * NCLASS + c] += fmax(
				1.0, (double)(j->end - j->submit) /
					     fmax((double)(j->end - j->start),
						  10.0));
			count[c]++;
		}
		for (size_t c = 0; c < NCLASS; c++) {
			if (count[c])
				mean[i * NCLASS + c] /= (double)count[c];
			most = fmax(most, mean[i * NCLASS + c]);
		}
	}
	fr.y1 = ceil(most / tick_step(most, 4)) * tick_step(most, 4);
	axes(&fr, "Mean bounded slowdown (10 s threshold) by job size",
	     "bounded slowdown");
	for (size_t c = 0; c < NCLASS; c++)
		x_tick(&fr, (double)c + 0.5, class_name[c]);
	x_label(&fr, "cores the job asked for");
	slot = (px(&fr, 1) - px(&fr, 0)) * 0.8;
	bar = slot / (double)n;
	for (size_t c = 0; c < NCLASS; c++)
		for (size_t i = 0; i < n; i++) {
			double v = mean[i * NCLASS + c];

			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				   "height=\"%.1f\" fill=\"%s\"/>\n",
				px(&fr, (double)c) + slot * 0.125 +
					bar * (double)i,
				py(&fr, v), bar, py(&fr, 0) - py(&fr, v),
				colours[i % NCOLOURS]);
		}
	free(mean);
}

static void legend(FILE *f, const struct sim_result *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int y = 24 + 18 * (int)i;
		const char *base = strrchr(r[i].config_name, '/');
		char line[128];

		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"10\" "
			   "fill=\"%s\"/>\n<text x=\"%d\" y=\"%d\" "
			   "font-size=\"12\">",
			LEFT, y - 9, colours[i % NCOLOURS], LEFT + 20, y);
		/* the config's file name and as much of the policy as fits */
		snprintf(line, sizeof(line), "%s: %s",
			 base ? base + 1 : r[i].config_name, r[i].policy);
		if (strlen(line) == sizeof(line) - 1)
			memcpy(line + sizeof(line) - 4, "...", 4);
		xml_text(f, line);
		fputs("</text>\n", f);
	}
}

int sim_report_svg(FILE *f, const struct sim_result *r, size_t n)
{
	int head = 30 + 18 * (int)n;
	int h = head + 4 * (PANEL_H + GAP) + 20;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		   "height=\"%d\" font-family=\"sans-serif\">\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		W, h);
	legend(f, r, n);
	time_panels(f, r, n, head + GAP - 30);
	wait_cdf(f, r, n, head + GAP - 30 + 2 * (PANEL_H + GAP));
	bsld_bars(f, r, n, head + GAP - 30 + 3 * (PANEL_H + GAP));
	fprintf(f, "</svg>\n");
	return ferror(f) ? -EIO : 0;
}
