// SPDX-License-Identifier: MIT
/*
 * rota sim --dependencies (deps.h): SWF field 17, the preceding job, and
 * field 18, the think time from its end to this job's submit.
 *
 * The SWF definition (the Parallel Workloads Archive's swf.html) has a
 * job with a preceding job start only once that job has terminated, and
 * field 18 the time to let pass between that termination and this job's
 * submittal: the feedback of a closed system, where a user submits the
 * next job once the last one is done.  So a dependent job's recorded
 * submit time is replaced, not kept as a lower bound:
 * submit = end of the preceding job in the replay + think time.  Under a
 * scheduler that ends the preceding job sooner than the real one did,
 * the next job comes sooner too; that is what feedback replays
 * (Shmueli and Feitelson's site-level simulation, Zakay and Feitelson's
 * dependency-preserving replay) are for.  A bound at the recorded time
 * would only ever delay jobs and hide that effect.
 *
 * Field 18 -1 (unknown): the gap the log recorded between the preceding
 * job's end (its submit + wait + run) and this job's submit, when the
 * log has those and the gap is not negative, else 0.
 *
 * A preceding job that is not replayed (skipped or refused) never ends:
 * its dependents are released then at their recorded time (at once if
 * that is past).  Field 17 naming no job of the trace (cleaned logs drop
 * jobs) is ignored and counted: the job keeps its recorded time.  Naming
 * itself, or a job later in the trace (which would be submitted after
 * it: a cycle or a broken log), is malformed; it is ignored and counted,
 * and the first is described in the report.  Not a reader error: the
 * reader checks each line alone, and the same trace must replay as
 * before without the option.
 *
 * Field 17 is resolved once, against the trace's job numbers sorted (a
 * number used twice names the latest earlier job of that number); each
 * job then sits in a list hanging off its preceding job's trace index.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/xalloc.h"
#include "sim/deps.h"

/*
 * Think times saturate here (never going back before 'now'), so that a
 * chain of 10^18 s think times cannot overflow.
 */
#define DEPS_TIME_MAX (INT64_MAX / 4)

struct release {
	int64_t time;
	size_t i;
};

struct sim_deps {
	const struct swf_trace *t;
	struct sim_dep_counts *counts;
	int64_t epoch;
	bool *held;		/* per job: waits for its preceding job */
	size_t *head;		/* per job: its first dependent + 1; 0 none */
	size_t *next;		/* per job: the next dependent of its
				   preceding job + 1; 0 none */
	struct release *heap;	/* released, by time then index */
	size_t nheap;
	size_t waiting;		/* held, not yet released */
};

struct job_number {
	int64_t id;
	size_t i;
};

static int by_number(const void *a, const void *b)
{
	const struct job_number *x = a;
	const struct job_number *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* The first entry not below (id, i). */
static size_t lower_bound(const struct job_number *v, size_t n, int64_t id,
			  size_t i)
{
	struct job_number key = { id, i };
	size_t lo = 0;
	size_t hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (by_number(&v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Field 17 names the job itself, or a job later in the trace. */
static void malformed(struct sim_deps *d, const struct swf_job *j)
{
	struct sim_dep_counts *c = d->counts;

	if (c->malformed++)
		return;
	if (j->prec == j->id)
		snprintf(c->first_malformed, sizeof(c->first_malformed),
			 "job %lld: field 17 names itself", (long long)j->id);
	else
		snprintf(c->first_malformed, sizeof(c->first_malformed),
			 "job %lld: field 17 names job %lld, later in the "
			 "trace",
			 (long long)j->id, (long long)j->prec);
}

/* Job 'i''s field 17 against the numbers of the trace. */
static void resolve(struct sim_deps *d, const struct job_number *ids,
		    size_t n, size_t i)
{
	const struct swf_job *j = &d->t->jobs[i];
	size_t at;

	if (j->prec < 0)
		return;
	if (j->prec == j->id) {
		malformed(d, j);
		return;
	}
	at = lower_bound(ids, n, j->prec, i);
	if (at > 0 && ids[at - 1].id == j->prec) {
		size_t p = ids[at - 1].i;

		d->held[i] = true;
		d->next[i] = d->head[p];
		d->head[p] = i + 1;
		d->counts->follows++;
		d->waiting++;
	} else if (at < n && ids[at].id == j->prec) {
		malformed(d, j);
	} else {
		d->counts->not_in_trace++;
	}
}

struct sim_deps *sim_deps_create(const struct swf_trace *trace, int64_t epoch,
				 struct sim_dep_counts *counts)
{
	struct sim_deps *d = rota_xcalloc(1, sizeof(*d));
	size_t n = trace->n;
	struct job_number *ids = rota_xcalloc(n + 1, sizeof(*ids));

	*d = (struct sim_deps){
		.t = trace,
		.counts = counts,
		.epoch = epoch,
		.held = rota_xcalloc(n + 1, sizeof(*d->held)),
		.head = rota_xcalloc(n + 1, sizeof(*d->head)),
		.next = rota_xcalloc(n + 1, sizeof(*d->next)),
		.heap = rota_xcalloc(n + 1, sizeof(*d->heap)),
	};
	for (size_t i = 0; i < n; i++)
		ids[i] = (struct job_number){ trace->jobs[i].id, i };
	qsort(ids, n, sizeof(*ids), by_number);
	for (size_t i = 0; i < n; i++)
		resolve(d, ids, n, i);
	free(ids);
	return d;
}

void sim_deps_destroy(struct sim_deps *d)
{
	if (!d)
		return;
	free(d->held);
	free(d->head);
	free(d->next);
	free(d->heap);
	free(d);
}

bool sim_deps_is_held(const struct sim_deps *d, size_t i)
{
	return d->held[i];
}

/* ---- the release heap -------------------------------------------------- */

static bool rel_less(const struct release *a, const struct release *b)
{
	return a->time < b->time || (a->time == b->time && a->i < b->i);
}

static void push(struct sim_deps *d, struct release r)
{
	size_t k = d->nheap++;

	while (k > 0) {
		size_t up = (k - 1) / 2;

		if (!rel_less(&r, &d->heap[up]))
			break;
		d->heap[k] = d->heap[up];
		k = up;
	}
	d->heap[k] = r;
}

void sim_deps_pop(struct sim_deps *d)
{
	struct release last = d->heap[--d->nheap];
	size_t k = 0;

	for (;;) {
		size_t c = 2 * k + 1;

		if (c >= d->nheap)
			break;
		if (c + 1 < d->nheap && rel_less(&d->heap[c + 1], &d->heap[c]))
			c++;
		if (!rel_less(&d->heap[c], &last))
			break;
		d->heap[k] = d->heap[c];
		k = c;
	}
	if (d->nheap)
		d->heap[k] = last;
}

int64_t sim_deps_next(const struct sim_deps *d)
{
	return d->nheap ? d->heap[0].time : INT64_MAX;
}

bool sim_deps_peek(const struct sim_deps *d, int64_t now, size_t *i)
{
	if (!d->nheap || d->heap[0].time > now)
		return false;
	*i = d->heap[0].i;
	return true;
}

size_t sim_deps_waiting(const struct sim_deps *d)
{
	return d->waiting;
}

/* ---- releases ---------------------------------------------------------- */

/* Field 18, or the log's own gap when it is -1 (see the top). */
static int64_t think_time(struct sim_deps *d, size_t p, size_t k)
{
	const struct swf_job *pj = &d->t->jobs[p];
	const struct swf_job *kj = &d->t->jobs[k];
	int64_t gap;

	if (kj->think >= 0)
		return kj->think;
	d->counts->no_think++;
	if (pj->wait < 0 || pj->run < 0)
		return 0;
	gap = kj->submit - (pj->submit + pj->wait + pj->run);
	return gap > 0 ? gap : 0;
}

void sim_deps_release(struct sim_deps *d, size_t p, int64_t now,
		      bool replayed)
{
	for (size_t k = d->head[p]; k; k = d->next[k - 1]) {
		size_t i = k - 1;
		int64_t at;

		if (replayed) {
			int64_t think = think_time(d, p, i);

			if (now <= DEPS_TIME_MAX - think)
				at = now + think;
			else
				at = now > DEPS_TIME_MAX ? now : DEPS_TIME_MAX;
		} else {
			at = d->epoch + d->t->jobs[i].submit;
			if (at < now)
				at = now;
			d->counts->prec_skipped++;
		}
		push(d, (struct release){ at, i });
		d->waiting--;
	}
	d->head[p] = 0;
}
