// SPDX-License-Identifier: MIT
/*
 * priority/sge: Grid Engine's dispatch priority (sge_priority(5)).
 *
 *   urg  = rrcontr + wtcontr + dlcontr
 *          rrcontr = slots x SlotUrgency + the queue's urgency
 *                    + each consumable's urgency x what the job asks
 *                    of it (ResourceUrgency: its GPUs in all, its
 *                    licenses' counts; ABI 1.13)
 *                    (slots: the job's cores; of a task range, -n
 *                    MIN-MAX, what UrgencySlots makes of it)
 *          wtcontr = seconds since submission x WeightWaitingTime
 *          dlcontr = WeightDeadline / max(seconds to the job's initiation
 *                    deadline, 1), 0 for a job without one (sge_urgency.c:
 *                    a deadline passed counts as 1 s away)
 *   prio = WeightUrgency x nurg + WeightTicket x ntckts
 *          + WeightPriority x npprior
 *
 * Normalization is Grid Engine's own (sge_normalize_value()), reproduced
 * so that a site's weights mean what they meant under Grid Engine:
 * (x - min) / (max - min), and 0.5 when max - min < 1e-5.  The
 * plugin rates all (ABI 1.8): it gets the running jobs too, and rates
 * them as Grid Engine does (sge_do_urgency(): a running job's waiting
 * time also runs from its submission), while a held job is rated 0 and
 * left out of every range, as Grid Engine leaves hqw jobs out.
 *   nurg    over the urgencies of the pending jobs not held and the
 *           running jobs;
 *   ntckts  tickets from 0 to the most any of them holds, running jobs
 *           included (the host deals them theirs, ctld/core/tickets.h),
 *           0.5 for all when nobody holds any (an empty range, as for
 *           urgency);
 *   npprior the POSIX priority ppri = -nice, clamped to Grid Engine's
 *           [-1023, 1024], as Grid Engine maps it: (ppri + 1024) / 2048,
 *           so 0 is 0.5 exactly (users may only lower theirs: the host
 *           allows a negative nice to operators only).
 *
 * A task range is Grid Engine's PE slot range (qsub -pe mpi 2-6), whose
 * slots the PE's urgency_slots assesses: UrgencySlots=min (the default,
 * as a new PE's), max, avg (the mean of every count in the range,
 * truncated as Grid Engine's pe_urgency_slots() does: 2-5 is 3) or a
 * number N.  Grid Engine rates a running range job by its range too,
 * not by the slots it was granted (bench/oracle/out-pe: -pe mpi 2-6
 * running on 3 slots has rrcontr 400 with avg).  Rota has no parallel
 * environments, so it is one setting of the plugin, for every range
 * job (a site whose PEs differ keeps the one its range jobs mostly use).
 * Ranges are in cores, tasks x cores per task, as Grid Engine's slots.
 *
 * The queue's urgency is added once per job, as Grid Engine adds a
 * requested non-consumable resource's: a 2-slot job in queue t with
 * QueueUrgency="t:40000" has rrcontr 2 x 100 + 40000 = 40200.
 *
 * A consumable's urgency is Grid Engine's request x urgency x slots
 * (centry_urgency_contribution()), whatever its consumable column.  A
 * per-slot consumable (YES: -pe mpi 2 -l lic=1 takes 2) is a Rota job's
 * count in all, --licenses=lic:2: count x urgency, 2 x 1000.  A
 * consumable JOB (-pe mpi 2 -l ljob=1 takes 1) is --licenses=ljob:1,
 * which Grid Engine still counts per slot: ResourceUrgency's
 * "ljob:300:job" makes it count x urgency x slots, 1 x 300 x 2
 * (bench/oracle/out-consumable: rrcontr 2 x 100 + 600 = 800).
 *
 * Settings (Grid Engine's sched_conf/complex names, CamelCase), all
 * from 0 to 1e9: SlotUrgency 100; QueueUrgency "queue:urgency,..." (none
 * by default); UrgencySlots min (min, max, avg or 0 to 1000000);
 * WeightWaitingTime 0.278 (the seed site's; Grid Engine
 * ships 0); WeightDeadline 3600000, WeightUrgency 0.1, WeightTicket
 * 0.01, WeightPriority 1 (Grid Engine's shipped defaults).
 *
 * rota prio shows urgency, tickets and priority (raw, normalized,
 * weight, share of the priority), and the urgency's parts as
 * "urgency.slots", "urgency.queue" and "urgency.waiting", whose values
 * are urgency points (they add up to the urgency's raw value), and
 * "urgency.deadline" (raw: seconds left; value: dlcontr).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "plugins/rota_plugin.h"

#define SGE_WEIGHT_MAX 1e9
#define SGE_EPSILON 0.00001	/* a range narrower than this is none */
#define SGE_PPRI_MIN -1023.0
#define SGE_PPRI_MAX 1024.0
#define SGE_PPRI_OFFSET 1024.0	/* npprior = (ppri + 1024) / 2048 */
#define SGE_QUEUES_MAX 256
#define SGE_QUEUE_NAME_MAX 64
#define SGE_SLOTS_FIXED_MAX 1000000

/* The PE's urgency_slots: how a task range counts as slots. */
enum sge_slots {
	SGE_SLOTS_MIN = 0,	/* Grid Engine's default for a new PE */
	SGE_SLOTS_MAX,
	SGE_SLOTS_AVG,
	SGE_SLOTS_FIXED,	/* a number: slots_fixed */
};

/* A named urgency: a queue's (QueueUrgency), a resource's. */
struct sge_queue {
	char name[SGE_QUEUE_NAME_MAX + 1];
	double urgency;
	/* "name:urgency:job", a consumable JOB: the job's count is its
	   request, which Grid Engine still multiplies by the slots */
	bool per_job;
};

/* A "name:urgency,..." setting's entries. */
struct sge_list {
	const char *key;	/* "QueueUrgency", "ResourceUrgency" */
	const char *twice;	/* "queue given twice", ... */
	bool job_suffix;	/* entries may end in ":job" */
	struct sge_queue *v;
	size_t n;
};

struct sge_state {
	double slot_urgency;
	double weight_waiting_time;
	double weight_deadline;
	double weight_urgency;
	double weight_ticket;
	double weight_priority;
	enum sge_slots urgency_slots;
	uint32_t slots_fixed;	/* UrgencySlots=N */
	struct sge_list queues;
	struct sge_list resources; /* gpu and licenses: Grid Engine's
				      complex urgency of a consumable */
	/* the ranges of the last compute(), for explain() */
	double urg_min;
	double urg_max;
	double tickets_max;
};

/* Grid Engine's sge_normalize_value(), with its SGE_EPSILON. */
static double sge_normalize(double value, double min, double max)
{
	if (max - min < SGE_EPSILON)
		return 0.5;
	return (value - min) / (max - min);
}

static int queue_error(char *err, size_t errlen, const char *where,
		       const char *key, const char *text, const char *at,
		       const char *why)
{
	snprintf(err, errlen, "%s: %s: %s at column %zu", where, key, why,
		 (size_t)(at - text) + 1);
	return -EINVAL;
}

/* One "name:value" entry of a list, from 'p' to 'end'. */
static int queue_parse_one(struct sge_list *st, const char *text,
			   const char *p, const char *end, const char *where,
			   char *err, size_t errlen)
{
	struct sge_queue *q = &st->v[st->n];
	const char *colon;
	const char *num;
	char buf[64];
	char *stop;
	size_t len;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (st->job_suffix && end - p > 4 && !strncmp(end - 4, ":job", 4)) {
		q->per_job = true;
		end -= 4;
	}
	/* the last colon: a queue's name may have some (medium40:test) */
	for (colon = end; colon > p && colon[-1] != ':'; colon--)
		;
	colon = colon > p ? colon - 1 : NULL;
	if (!colon || colon == p)
		return queue_error(err, errlen, where, st->key, text, p,
				   "expected 'queue:urgency'");
	len = (size_t)(colon - p);
	if (len > SGE_QUEUE_NAME_MAX)
		return queue_error(err, errlen, where, st->key, text, p,
				   "queue name too long");
	for (size_t i = 0; i < len; i++)
		if (p[i] == ' ' || p[i] == '\t')
			return queue_error(err, errlen, where, st->key, text, p + i,
					   "blank in a queue name");
	memcpy(q->name, p, len);
	q->name[len] = '\0';
	for (size_t i = 0; i < st->n; i++)
		if (!strcmp(st->v[i].name, q->name))
			return queue_error(err, errlen, where, st->key, text, p,
					   st->twice);
	num = colon + 1;
	while (end > num && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	len = (size_t)(end - num);
	if (len == 0 || len >= sizeof(buf))
		return queue_error(err, errlen, where, st->key, text, num,
				   "expected a number");
	memcpy(buf, num, len);
	buf[len] = '\0';
	q->urgency = strtod(buf, &stop);
	if (stop == buf || *stop || !isfinite(q->urgency))
		return queue_error(err, errlen, where, st->key, text, num,
				   "expected a number");
	if (q->urgency < 0 || q->urgency > SGE_WEIGHT_MAX)
		return queue_error(err, errlen, where, st->key, text, num,
				   "urgency not within [0, 1e9]");
	st->n++;
	return 0;
}

/*
 * QueueUrgency="t:40000,u:80000", ResourceUrgency="gpu:1000,matlab:500";
 * absent: none has one.
 */
static int sge_parse_list(const struct rota_host *host,
			  const struct rota_plugin_conf *conf,
			  struct sge_list *st, char *err, size_t errlen)
{
	const char *text = NULL;
	char where[128] = "";
	const char *p;
	size_t n = 1;
	int rc;

	host->conf_string(conf, st->key, &text, where, sizeof(where));
	if (!text)
		return 0;
	for (p = text; *p; p++)
		n += *p == ',';
	if (n > SGE_QUEUES_MAX) {
		snprintf(err, errlen, "%s: %s: more than %d entries", where,
			 st->key, SGE_QUEUES_MAX);
		return -EINVAL;
	}
	st->v = calloc(n, sizeof(*st->v));
	if (!st->v) {
		snprintf(err, errlen, "priority/sge: out of memory");
		return -ENOMEM;
	}
	for (p = text;;) {
		const char *end = strchr(p, ',');

		if (!end)
			end = p + strlen(p);
		rc = queue_parse_one(st, text, p, end, where, err, errlen);
		if (rc)
			return rc;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

/* The name of a setting but a number's. */
static const char *sge_slots_name(enum sge_slots s)
{
	return s == SGE_SLOTS_MAX ? "max" : s == SGE_SLOTS_AVG ? "avg" : "min";
}

/* UrgencySlots: min, max, avg (any case, as Grid Engine) or a number. */
static int sge_parse_slots(const struct rota_host *host,
			   const struct rota_plugin_conf *conf,
			   struct sge_state *st, char *err, size_t errlen)
{
	static const char *const names[] = { "min", "max", "avg" };
	const char *text = NULL;
	char where[128] = "";
	char *end;
	unsigned long n;

	host->conf_string(conf, "UrgencySlots", &text, where, sizeof(where));
	if (!text)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		if (strcasecmp(text, names[i]) == 0) {
			st->urgency_slots = (enum sge_slots)i;
			return 0;
		}
	}
	errno = 0;
	n = strtoul(text, &end, 10);
	if (text[0] < '0' || text[0] > '9' || *end || errno ||
	    n > SGE_SLOTS_FIXED_MAX) {
		snprintf(err, errlen, "%s: UrgencySlots: '%s' is not min, "
			 "max, avg or a number from 0 to %d", where, text,
			 SGE_SLOTS_FIXED_MAX);
		return -EINVAL;
	}
	st->urgency_slots = SGE_SLOTS_FIXED;
	st->slots_fixed = (uint32_t)n;
	return 0;
}

static void sge_fini(void *state)
{
	struct sge_state *st = state;

	if (st) {
		free(st->queues.v);
		free(st->resources.v);
	}
	free(st);
}

static int sge_init(const struct rota_host *host,
		    const struct rota_plugin_conf *conf, void **state,
		    char *err, size_t errlen)
{
	const struct {
		const char *key;
		size_t off;
		double def;
	} weights[] = {
		{ "SlotUrgency", offsetof(struct sge_state, slot_urgency),
		  100 },
		{ "WeightWaitingTime",
		  offsetof(struct sge_state, weight_waiting_time), 0.278 },
		{ "WeightDeadline",
		  offsetof(struct sge_state, weight_deadline), 3600000 },
		{ "WeightUrgency", offsetof(struct sge_state, weight_urgency),
		  0.1 },
		{ "WeightTicket", offsetof(struct sge_state, weight_ticket),
		  0.01 },
		{ "WeightPriority", offsetof(struct sge_state, weight_priority),
		  1 },
	};
	struct sge_state *st;
	int rc = 0;

	*state = NULL;
	if (host->size < offsetof(struct rota_host, conf_string) +
				 sizeof(host->conf_string) ||
	    !host->conf_string) {
		snprintf(err, errlen, "priority/sge: the controller cannot "
			 "pass it QueueUrgency (plugin host too old)");
		return -EINVAL;
	}
	st = calloc(1, sizeof(*st));
	if (!st) {
		snprintf(err, errlen, "priority/sge: out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; rc == 0 && i < sizeof(weights) / sizeof(*weights);
	     i++) {
		double *w = (double *)((char *)st + weights[i].off);

		*w = weights[i].def;
		rc = host->conf_double(conf, weights[i].key, 0, SGE_WEIGHT_MAX,
				       w, err, errlen);
	}
	st->queues = (struct sge_list){ .key = "QueueUrgency",
					.twice = "queue given twice" };
	st->resources = (struct sge_list){ .key = "ResourceUrgency",
					   .twice = "resource given twice",
					   .job_suffix = true };
	if (rc == 0)
		rc = sge_parse_list(host, conf, &st->queues, err, errlen);
	if (rc == 0)
		rc = sge_parse_list(host, conf, &st->resources, err, errlen);
	if (rc == 0)
		rc = sge_parse_slots(host, conf, st, err, errlen);
	if (rc) {
		sge_fini(st);
		return rc;
	}
	*state = st;
	return 0;
}

static const struct sge_queue *sge_list_find(const struct sge_list *l,
					     const char *name, size_t len)
{
	for (size_t i = 0; name && i < l->n; i++)
		if (strlen(l->v[i].name) == len &&
		    !strncmp(l->v[i].name, name, len))
			return &l->v[i];
	return NULL;
}

static double sge_list_urgency(const struct sge_list *l, const char *name,
			       size_t len)
{
	const struct sge_queue *q = sge_list_find(l, name, len);

	return q ? q->urgency : 0;
}

/*
 * 'count' of resource 'name' (its 'len' first bytes): count x urgency,
 * and x slots too for a consumable JOB (":job"): Grid Engine's
 * centry_urgency_contribution() multiplies every request by the slots,
 * a per-slot one (whose count Rota holds in all) as a per-job one.
 */
static double sge_resource_one(const struct sge_state *st, const char *name,
			       size_t len, double count, double slots)
{
	const struct sge_queue *q = sge_list_find(&st->resources, name, len);

	if (!q)
		return 0;
	return count * q->urgency * (q->per_job ? slots : 1);
}

static double sge_queue_urgency(const struct sge_state *st, const char *queue)
{
	return queue ? sge_list_urgency(&st->queues, queue, strlen(queue)) : 0;
}

/*
 * Job i's consumables' urgency, Grid Engine's: each resource's urgency
 * times what the job asks of it in all: its GPUs ("gpu") and its
 * licenses ("matlab:1,ansys:2", each a name and a count); a consumable
 * JOB's times the job's urgency slots too (sge_resource_one()).
 */
static double sge_resource_urgency(const struct sge_state *st,
				   const struct rota_prio_context *ctx,
				   size_t i, double slots)
{
	const char *p = ctx->job_licenses ? ctx->job_licenses[i] : NULL;
	double u = 0;

	if (!st->resources.n)
		return 0;
	if (ctx->job_gpus)
		u += sge_resource_one(st, "gpu", 3, ctx->job_gpus[i], slots);
	while (p && *p) {
		size_t len = strcspn(p, ":,");
		double count = p[len] == ':' ? strtod(p + len + 1, NULL) : 1;

		u += sge_resource_one(st, p, len, count, slots);
		p += strcspn(p, ",");
		p += *p == ',';
	}
	return u;
}

/* Seconds to job i's initiation deadline, at least 1; 0: it has none. */
static double sge_time_left(const struct rota_prio_context *ctx, size_t i)
{
	int64_t dl = ctx->job_deadline ? ctx->job_deadline[i] : 0;

	return dl ? fmax((double)(dl - ctx->now), 1) : 0;
}

static double sge_dlcontr(const struct sge_state *st,
			  const struct rota_prio_context *ctx, size_t i)
{
	double left = sge_time_left(ctx, i);

	return left > 0 ? st->weight_deadline / left : 0;
}

/*
 * Job i's slots: its cores, or what UrgencySlots makes of its range
 * (Grid Engine's sge_job_slot_request(): a fixed request is itself).
 */
static double sge_slots(const struct sge_state *st,
			const struct rota_prio_context *ctx,
			const struct rota_prio_job *job, size_t i)
{
	uint32_t lo = ctx->job_cores_min ? ctx->job_cores_min[i] : 0;
	uint32_t hi = ctx->job_cores_max ? ctx->job_cores_max[i] : 0;

	if (!lo || hi <= lo)
		return job->cores;
	switch (st->urgency_slots) {
	case SGE_SLOTS_MIN:
		return lo;
	case SGE_SLOTS_MAX:
		return hi;
	case SGE_SLOTS_AVG: /* the mean of lo..hi, an int as Grid Engine's */
		return (double)(((uint64_t)lo + hi) / 2);
	case SGE_SLOTS_FIXED:
		return st->slots_fixed;
	}
	return job->cores;
}

/* Job i's urgency: rrcontr + wtcontr + dlcontr. */
static double sge_urgency(const struct sge_state *st,
			  const struct rota_prio_context *ctx,
			  const struct rota_prio_job *job, size_t i)
{
	double slots = sge_slots(st, ctx, job, i);

	return slots * st->slot_urgency + sge_queue_urgency(st, job->queue) +
	       sge_resource_urgency(st, ctx, i, slots) +
	       (double)job->wait_time * st->weight_waiting_time +
	       sge_dlcontr(st, ctx, i);
}

static double sge_ppri(const struct rota_prio_job *job)
{
	double ppri = job->nice ? -(double)job->nice : 0; /* not -0 */

	return fmin(fmax(ppri, SGE_PPRI_MIN), SGE_PPRI_MAX);
}

static double sge_npprior(double ppri)
{
	return (ppri + SGE_PPRI_OFFSET) / (2 * SGE_PPRI_OFFSET);
}

static double sge_tickets_norm(const struct sge_state *st, double tickets)
{
	return sge_normalize(tickets, 0, st->tickets_max);
}

static bool sge_held(const struct rota_prio_context *ctx, size_t i)
{
	return ctx->job_state && ctx->job_state[i] == ROTA_PRIO_JOB_HELD;
}

static int sge_compute(void *state, const struct rota_prio_context *ctx,
		       struct rota_prio_job *jobs, size_t n)
{
	struct sge_state *st = state;

	st->urg_min = INFINITY;
	st->urg_max = -INFINITY;
	st->tickets_max = 0;
	for (size_t i = 0; i < n; i++) {
		double urg = sge_urgency(st, ctx, &jobs[i], i);

		if (sge_held(ctx, i))
			continue;

		st->urg_min = fmin(st->urg_min, urg);
		st->urg_max = fmax(st->urg_max, urg);
		st->tickets_max = fmax(st->tickets_max, jobs[i].tickets);
	}
	for (size_t i = 0; i < n; i++) {
		const struct rota_prio_job *job = &jobs[i];
		double nurg = sge_normalize(sge_urgency(st, ctx, job, i),
					    st->urg_min, st->urg_max);
		double npprior = sge_npprior(sge_ppri(job));
		double prio = st->weight_urgency * nurg +
			      st->weight_ticket *
				      sge_tickets_norm(st, job->tickets) +
			      st->weight_priority * npprior;

		/* only a NaN tickets count could get here; rate it last */
		jobs[i].priority = isfinite(prio) && !sge_held(ctx, i) ? prio
								       : 0;
	}
	return 0;
}

static size_t sge_explain(void *state, const struct rota_prio_context *ctx,
			  const struct rota_prio_job *job,
			  struct rota_prio_factor *f, size_t max)
{
	const struct sge_state *st = state;
	double urg = sge_urgency(st, ctx, job, 0);
	double nurg = sge_normalize(urg, st->urg_min, st->urg_max);
	double left = sge_time_left(ctx, 0);
	double dl = sge_dlcontr(st, ctx, 0);
	double ntckts = sge_tickets_norm(st, job->tickets);
	double ppri = sge_ppri(job);
	double npprior = sge_npprior(ppri);
	double qurg = sge_queue_urgency(st, job->queue);
	double slots = sge_slots(st, ctx, job, 0);
	double rurg = sge_resource_urgency(st, ctx, 0, slots);
	double wait = (double)job->wait_time;
	double otix = ctx->job_otickets ? ctx->job_otickets[0] : 0;
	double ftix = ctx->job_ftickets ? ctx->job_ftickets[0] : 0;
	double stckt = job->tickets - otix - ftix;
	const struct rota_prio_factor all[] = {
		{ "urgency", urg, nurg, st->weight_urgency,
		  st->weight_urgency * nurg },
		{ "urgency.slots", slots, slots, st->slot_urgency,
		  slots * st->slot_urgency },
		{ "urgency.queue", qurg, qurg, 1, qurg },
		{ "urgency.waiting", wait, wait, st->weight_waiting_time,
		  wait * st->weight_waiting_time },
		/* only with ResourceUrgency (rota prio as before without) */
		{ "urgency.resources", rurg, rurg, 1, rurg },
		{ "urgency.deadline", left, left > 0 ? 1 / left : 0,
		  st->weight_deadline, dl },
		{ "tickets", job->tickets, ntckts, st->weight_ticket,
		  st->weight_ticket * ntckts },
		{ "priority", ppri, npprior, st->weight_priority,
		  st->weight_priority * npprior },
		/* the parts of 'tickets', as qstat -ext shows them */
		{ "tickets.override", otix, otix, 1, otix },
		{ "tickets.functional", ftix, ftix, 1, ftix },
		{ "tickets.share", stckt, stckt, 1, stckt },
	};
	size_t k = 0;

	if (sge_held(ctx, 0)) /* rated 0: no terms to show */
		return 0;
	for (size_t i = 0; k < max && i < sizeof(all) / sizeof(all[0]); i++)
		if (st->resources.n || strcmp(all[i].name, "urgency.resources"))
			f[k++] = all[i];
	return k;
}

static void sge_describe(void *state, char *buf, size_t len)
{
	const struct sge_state *st = state;
	size_t used;

	used = (size_t)snprintf(buf, len, "WeightUrgency=%g WeightTicket=%g "
				"WeightPriority=%g SlotUrgency=%g "
				"WeightWaitingTime=%g WeightDeadline=%.10g "
				"UrgencySlots=",
				st->weight_urgency, st->weight_ticket,
				st->weight_priority, st->slot_urgency,
				st->weight_waiting_time, st->weight_deadline);
	if (used < len && st->urgency_slots == SGE_SLOTS_FIXED)
		used += (size_t)snprintf(buf + used, len - used, "%u",
					 st->slots_fixed);
	else if (used < len)
		used += (size_t)snprintf(buf + used, len - used, "%s",
					 sge_slots_name(st->urgency_slots));
	for (int l = 0; l < 2; l++) {
		const struct sge_list *list = l ? &st->resources : &st->queues;

		for (size_t i = 0; i < list->n && used < len; i++) {
			const struct sge_queue *q = &list->v[i];

			used += (size_t)snprintf(buf + used, len - used,
						 "%s%s%s%s:%g%s", i ? "," : " ",
						 i ? "" : list->key,
						 i ? "" : "=", q->name,
						 q->urgency,
						 q->per_job ? ":job" : "");
		}
	}
}

static const struct rota_priority_ops sge_ops = {
	.size = sizeof(sge_ops),
	.compute = sge_compute,
	.explain = sge_explain,
	.describe = sge_describe,
	.rates_all = true,
};

extern const struct rota_plugin ROTA_PLUGIN_EXPORT(priority, sge);
const struct rota_plugin ROTA_PLUGIN_EXPORT(priority, sge) = {
	.abi = ROTA_PLUGIN_ABI,
	.kind = ROTA_PLUGIN_PRIORITY,
	.name = "sge",
	.init = sge_init,
	.fini = sge_fini,
	.ops = &sge_ops,
};
