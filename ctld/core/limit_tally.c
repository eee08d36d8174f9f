// SPDX-License-Identifier: MIT
/*
 * What the limits keep from request to request (core_internal.h,
 * "limit_tally.c").  Before, every submit handed the plugins a view of
 * every queued job (MaxSubmitJobs counted the holder's), and every pass
 * judged every pending job again: with 50,000 held jobs queued a held
 * submit cost the controller 27 times its CPU at 1,000 (bench/held with
 * LIMITS=1; issue 23).  Now:
 *
 * - each holder of limits (a struct rota_limit_set: a user's association,
 *   an account, a QOS) has its count of queued jobs, pending or running
 *   (an array's pending rest counting its tasks), kept as jobs change;
 * - a job that changed is listed, so that a pass judges only those, and
 *   the jobs of the holders whose running jobs moved them to or from a
 *   limit (limits.c); for those, the pending jobs the limits judge (not
 *   held, not waiting on a dependency) are kept in a list per association
 *   and QOS, a job's holders being fixed by those two.
 *
 * - each holder also has what its running jobs hold (cores, memory,
 *   nodes, GPUs: GrpTRES), and each QOS what those of each of its users
 *   and accounts hold (MaxTRESPerUser, MaxTRESPerAccount), kept as jobs
 *   start and end, so that the limits judge a job against them without
 *   counting the running jobs (limits.c hands them to the plugins).
 *
 * Both hang on core_mark_dirty(), which every change of a job calls for
 * the journal: a job is counted again from what it is now, and what it
 * was counted for is kept in it (tally_*), so that moving it to another
 * QOS or ending it takes it back from the holders that had it.  The
 * holders sit in an open-addressing table keyed by the set's address,
 * which stays while the core lives (the plugins' views carry it too).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "ctld/core/core_internal.h"
#include "ctld/core/share.h"

_Static_assert(sizeof(((struct core_job *)0)->tally_held) ==
		       TALLY_RES * sizeof(int64_t),
	       "core_job's tally_held is one entry per TALLY_*");

static size_t slot_of(const struct rota_limit_set *set, uintptr_t sub,
		      size_t slots)
{
	uintptr_t h = (uintptr_t)set ^ (sub * 0x2545f4914f6cdd1dull);

	h ^= h >> 17;
	h *= 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 7) & (slots - 1);
}

static void put(struct tally_table *t, const struct limit_tally *e)
{
	size_t s = slot_of(e->set, e->sub, t->slots);

	while (t->v[s].set)
		s = (s + 1) & (t->slots - 1);
	t->v[s] = *e;
}

static void grow(struct tally_table *t)
{
	struct limit_tally *old = t->v;
	size_t nold = t->slots;

	t->slots = nold ? 2 * nold : 64;
	t->v = rota_xcalloc(t->slots, sizeof(*t->v));
	for (size_t i = 0; i < nold; i++)
		if (old[i].set)
			put(t, &old[i]);
	free(old);
}

static struct limit_tally *find(const struct tally_table *t,
				const struct rota_limit_set *set, uintptr_t sub)
{
	size_t s;

	if (!t->slots)
		return NULL;
	s = slot_of(set, sub, t->slots);
	while (t->v[s].set) {
		if (t->v[s].set == set && t->v[s].sub == sub)
			return &t->v[s];
		s = (s + 1) & (t->slots - 1);
	}
	return NULL;
}

/* What a change adds to each holder it touches ('held' NULL: nothing). */
struct tally_delta {
	int64_t jobs;
	const int64_t *held;
	int sign;		/* the held amounts added (1) or taken (-1) */
};

/* Add 'd' to holder 'set' (its share 'sub'), made at its first job. */
static void add(struct tally_table *t, const struct rota_limit_set *set,
		uintptr_t sub, const struct tally_delta *d)
{
	struct limit_tally *e;

	if (!set)
		return;
	e = find(t, set, sub);
	if (!e) {
		if (2 * (t->n + 1) > t->slots)
			grow(t);
		put(t, &(struct limit_tally){ .set = set, .sub = sub });
		t->n++;
		e = find(t, set, sub);
	}
	e->queued += sub ? 0 : d->jobs;
	for (int r = 0; d->held && r < TALLY_RES; r++)
		e->held[r] += d->sign * d->held[r];
}

uintptr_t limit_tally_user_key(uid_t uid)
{
	/* odd: never a set's address, which the account shares use */
	return ((uintptr_t)uid << 1) | 1;
}

/* Every holder of association 'assoc' and QOS 'qos' (user 'uid') gets 'd'. */
static void add_holders(struct core *core, struct tally_table *t,
			uint32_t assoc, uint32_t qos, uid_t uid,
			const struct tally_delta *d)
{
	const struct rota_limit_set *const *acct =
		share_account_limits(core->share, assoc);
	const struct rota_limit_set *q = &core->qos_limits[qos];

	add(t, share_assoc_limits(core->share, assoc), 0, d);
	for (size_t k = 0; acct && acct[k]; k++)
		add(t, acct[k], 0, d);
	add(t, q, 0, d);
	if (!d->held) /* the QOS's shares count what running jobs hold */
		return;
	add(t, q, limit_tally_user_key(uid), d);
	if (acct && acct[0])
		add(t, q, (uintptr_t)acct[0], d);
}

/*
 * What a running job holds, as the running limits count it: its memory
 * as job_total_mem() and its GPUs as job_gpus_total() count them once it
 * runs, read from its fields here, since this file's layer (core.h) is
 * below theirs.
 */
static void held_of(const struct core_job *job, int64_t *h)
{
	const struct rota_job_desc *d = &job->desc;
	int64_t gpus = 0;

	for (uint32_t i = 0; i < job->nalloc; i++)
		gpus += job->alloc[i].ngpus;
	h[TALLY_CPU] = (int64_t)d->ntasks * d->cpus_per_task;
	h[TALLY_MEM] = d->mem_per_cpu_mb ? (int64_t)(d->mem_per_cpu_mb *
						     d->ntasks *
						     d->cpus_per_task)
					 : (int64_t)(d->mem_mb * job->nalloc);
	h[TALLY_NODE] = job->nalloc;
	h[TALLY_GPU] = gpus;
}

/* Take back what 'job' was counted for. */
static void uncount(struct core *core, struct core_job *job)
{
	struct tally_delta d = {
		.jobs = -(int64_t)job->tally_jobs,
		.held = job->tally_run ? job->tally_held : NULL,
		.sign = -1,
	};

	if (job->tally_jobs || job->tally_run)
		add_holders(core, &core->tally, job->tally_assoc,
			    job->tally_qos, job->uid, &d);
	job->tally_jobs = 0;
	job->tally_run = false;
	memset(job->tally_held, 0, sizeof(job->tally_held));
}

/* ---- the pending jobs the limits judge, by association and QOS --------- */

static size_t bucket_slot(uint32_t assoc, uint32_t qos, size_t nslots)
{
	uint64_t h = ((uint64_t)assoc << 32 | qos) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 29) & (nslots - 1);
}

static void bucket_rehash(struct bucket_table *b)
{
	free(b->slots);
	b->nslots = b->nslots ? 2 * b->nslots : 64;
	b->slots = rota_xcalloc(b->nslots, sizeof(*b->slots));
	for (size_t i = 0; i < b->n; i++) {
		size_t s = bucket_slot(b->v[i].assoc, b->v[i].qos, b->nslots);

		while (b->slots[s])
			s = (s + 1) & (b->nslots - 1);
		b->slots[s] = (uint32_t)i + 1;
	}
}

/* The bucket of 'assoc' and 'qos', made if need be: its index + 1. */
static uint32_t bucket_get(struct bucket_table *b, uint32_t assoc,
			   uint32_t qos)
{
	size_t s;

	if (2 * (b->n + 1) > b->nslots)
		bucket_rehash(b);
	s = bucket_slot(assoc, qos, b->nslots);
	for (; b->slots[s]; s = (s + 1) & (b->nslots - 1)) {
		const struct tally_bucket *e = &b->v[b->slots[s] - 1];

		if (e->assoc == assoc && e->qos == qos)
			return b->slots[s];
	}
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 16;
		b->v = rota_xreallocarray(b->v, b->cap, sizeof(*b->v));
	}
	b->v[b->n] = (struct tally_bucket){ .assoc = assoc, .qos = qos };
	b->slots[s] = (uint32_t)++b->n;
	return b->slots[s];
}

static void bucket_unlink(struct core *core, struct core_job *job)
{
	struct tally_bucket *e = &core->buckets.v[job->bucket - 1];

	if (job->bprev)
		job->bprev->bnext = job->bnext;
	else
		e->head = job->bnext;
	if (job->bnext)
		job->bnext->bprev = job->bprev;
	job->bprev = job->bnext = NULL;
	job->bucket = 0;
}

/* Into or out of its bucket, by what it is now. */
static void bucket_sync(struct core *core, struct core_job *job)
{
	bool judged = job->in_pending &&
		      (job->limited || !(job->hold || job->dep_wait));
	struct tally_bucket *e;

	if (job->bucket) {
		e = &core->buckets.v[job->bucket - 1];
		if (judged && e->assoc == job->assoc && e->qos == job->qos)
			return;
		bucket_unlink(core, job);
	}
	if (!judged)
		return;
	job->bucket = bucket_get(&core->buckets, job->assoc, job->qos);
	e = &core->buckets.v[job->bucket - 1];
	job->bnext = e->head;
	if (e->head)
		e->head->bprev = job;
	e->head = job;
}

void limit_tally_index(struct core *core, struct core_job *job)
{
	if (core->limits_set)
		bucket_sync(core, job);
}

/* Has association 'assoc' with QOS 'qos' one of 'sets' among its holders? */
static bool bucket_held_by(struct core *core, const struct tally_bucket *e,
			   const struct rota_limit_set *const *sets,
			   size_t nsets)
{
	const struct rota_limit_set *const *acct =
		share_account_limits(core->share, e->assoc);
	const struct rota_limit_set *user =
		share_assoc_limits(core->share, e->assoc);

	for (size_t i = 0; i < nsets; i++) {
		if (sets[i] == user || sets[i] == &core->qos_limits[e->qos])
			return true;
		for (size_t d = 0; acct && acct[d]; d++)
			if (sets[i] == acct[d])
				return true;
	}
	return false;
}

size_t limit_tally_holders_jobs(struct core *core,
				const struct rota_limit_set *const *sets,
				size_t nsets, struct core_job ***jobs, size_t n)
{
	size_t cap = n;

	for (size_t i = 0; i < core->buckets.n; i++) {
		const struct tally_bucket *e = &core->buckets.v[i];

		if (!e->head || !bucket_held_by(core, e, sets, nsets))
			continue;
		for (struct core_job *j = e->head; j; j = j->bnext) {
			if (j->limits_look)
				continue;
			if (n + 1 >= cap) {
				cap = cap ? 2 * cap : 64;
				*jobs = rota_xreallocarray(*jobs, cap + 1,
							   sizeof(**jobs));
			}
			(*jobs)[n++] = j;
		}
	}
	return n;
}

/* ---- counts ------------------------------------------------------------- */

/* The jobs 'job' stands for in the queue now (0: not in it). */
static uint32_t queued_jobs(const struct core_job *job)
{
	/* by state: a task split off is marked before it joins the list */
	if (job->state != ROTA_JOB_PENDING && job->state != ROTA_JOB_RUNNING)
		return 0;
	if (job->array && job->array->tasks.count > 1)
		return job->array->tasks.count;
	return 1;
}

static void count(struct core *core, struct core_job *job)
{
	uint32_t n = queued_jobs(job);
	bool run = job->state == ROTA_JOB_RUNNING;
	int64_t h[TALLY_RES] = { 0 };
	struct tally_delta d = { .jobs = n, .held = run ? h : NULL, .sign = 1 };

	bucket_sync(core, job);
	if (run)
		held_of(job, h);
	if (n == job->tally_jobs && run == job->tally_run &&
	    !memcmp(h, job->tally_held, sizeof(h)) &&
	    (!n || (job->tally_assoc == job->assoc &&
		    job->tally_qos == job->qos)))
		return;
	uncount(core, job);
	if (n)
		add_holders(core, &core->tally, job->assoc, job->qos, job->uid,
			    &d);
	job->tally_jobs = n;
	job->tally_run = run;
	memcpy(job->tally_held, h, sizeof(h));
	job->tally_assoc = job->assoc;
	job->tally_qos = job->qos;
}

void limit_tally_job(struct core *core, struct core_job *job)
{
	if (!core->limits_set)
		return;
	count(core, job);
	if (job->limits_look)
		return;
	job->limits_look = true;
	if (core->nlook == core->look_cap) {
		core->look_cap = core->look_cap ? 2 * core->look_cap : 64;
		core->look = rota_xreallocarray(core->look, core->look_cap,
						sizeof(*core->look));
	}
	core->look[core->nlook++] = job->id;
}

static int64_t queued_in(const struct tally_table *t,
			 const struct rota_limit_set *set)
{
	const struct limit_tally *e = set ? find(t, set, 0) : NULL;

	return e ? e->queued : 0;
}

void limit_tally_held(const struct core *core, const struct rota_limit_set *set,
		      uintptr_t sub, int64_t *out)
{
	const struct limit_tally *e = set ? find(&core->tally, set, sub) : NULL;

	for (int r = 0; r < TALLY_RES; r++)
		out[r] = e ? e->held[r] : 0;
}

int64_t limit_tally_queued(const struct core *core,
			   const struct rota_limit_set *set)
{
	return queued_in(&core->tally, set);
}

size_t limit_tally_take(struct core *core, struct core_job ***jobs)
{
	struct core_job **v = rota_xcalloc(core->nlook + 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < core->nlook; i++) {
		struct core_job *job = jobtab_find(core, core->look[i]);

		if (!job || !job->limits_look)
			continue;
		job->limits_look = false; /* each once */
		/* counted again: a change made after it was marked shows */
		count(core, job);
		v[n++] = job;
	}
	/* set until the caller clears it: limit_tally_holders_jobs skips */
	for (size_t i = 0; i < n; i++)
		v[i]->limits_look = true;
	core->nlook = 0;
	*jobs = v;
	return n;
}

static void recount_list(struct core *core, const struct job_list *l)
{
	for (struct core_job *j = l->head; j; j = j->next) {
		j->tally_jobs = 0;
		j->tally_run = false;
		memset(j->tally_held, 0, sizeof(j->tally_held));
		j->bucket = 0;
		j->bprev = j->bnext = NULL;
		count(core, j);
	}
}

void limit_tally_rebuild(struct core *core)
{
	if (!core->limits_set)
		return;
	if (core->tally.slots)
		memset(core->tally.v, 0,
		       core->tally.slots * sizeof(*core->tally.v));
	core->tally.n = 0;
	for (size_t i = 0; i < core->buckets.n; i++)
		core->buckets.v[i].head = NULL;
	for (struct core_job *j = core->done.head; j; j = j->next) {
		j->tally_jobs = 0;
		j->tally_run = false;
		memset(j->tally_held, 0, sizeof(j->tally_held));
		j->bucket = 0;
		j->bprev = j->bnext = NULL;
	}
	recount_list(core, &core->pending);
	recount_list(core, &core->running);
}

/* Is every job counted as it is now, and every holder's sum right? */
static bool list_ok(struct core *core, const struct job_list *l,
		    struct tally_table *fresh)
{
	for (const struct core_job *j = l->head; j; j = j->next) {
		uint32_t n = queued_jobs(j);
		bool run = j->state == ROTA_JOB_RUNNING;
		int64_t h[TALLY_RES] = { 0 };
		struct tally_delta d = { .jobs = n, .held = run ? h : NULL,
					 .sign = 1 };

		if (run)
			held_of(j, h);
		if (n != j->tally_jobs || (n && (j->tally_assoc != j->assoc ||
						 j->tally_qos != j->qos)) ||
		    run != j->tally_run ||
		    memcmp(h, j->tally_held, sizeof(h)))
			return false;
		if (n)
			add_holders(core, fresh, j->assoc, j->qos, j->uid, &d);
	}
	return true;
}

/* Has every entry of 'a' its match in 'b' (none: all zero)? */
static bool table_within(const struct tally_table *a,
			 const struct tally_table *b)
{
	static const struct limit_tally none;

	for (size_t i = 0; i < a->slots; i++) {
		const struct limit_tally *e = &a->v[i], *f;

		if (!e->set)
			continue;
		f = find(b, e->set, e->sub);
		if (!f)
			f = &none;
		if (e->queued != f->queued ||
		    memcmp(e->held, f->held, sizeof(e->held)))
			return false;
	}
	return true;
}

/* Is every pending job the limits judge in its bucket, and no other? */
static bool buckets_ok(struct core *core)
{
	size_t n = 0, judged = 0;

	for (size_t i = 0; i < core->buckets.n; i++) {
		const struct tally_bucket *e = &core->buckets.v[i];

		for (const struct core_job *j = e->head; j; j = j->bnext, n++)
			if (j->bucket != i + 1 || j->assoc != e->assoc ||
			    j->qos != e->qos || !j->in_pending)
				return false;
	}
	for (const struct core_job *j = core->pending.head; j; j = j->next)
		if (j->limited || !(j->hold || j->dep_wait))
			judged++;
	for (const struct core_job *j = core->running.head; j; j = j->next)
		if (j->bucket)
			return false;
	return n == judged;
}

bool core_limits_consistent(struct core *core)
{
	struct tally_table fresh = { 0 };
	bool ok;

	if (!core->limits_set)
		return true;
	ok = list_ok(core, &core->pending, &fresh) &&
	     list_ok(core, &core->running, &fresh);
	for (const struct core_job *j = core->done.head; ok && j; j = j->next)
		ok = !j->tally_jobs && !j->tally_run && !j->bucket;
	ok = ok && buckets_ok(core);
	/* every holder kept has the fresh counts (0 if none left), and back */
	ok = ok && table_within(&core->tally, &fresh) &&
	     table_within(&fresh, &core->tally);
	free(fresh.v);
	return ok;
}

void limit_tally_forget(struct core *core, struct core_job *job)
{
	if (!core->limits_set)
		return;
	if (job->bucket)
		bucket_unlink(core, job);
	uncount(core, job);
}

void limit_tally_fini(struct core *core)
{
	free(core->tally.v);
	free(core->look);
	free(core->buckets.v);
	free(core->buckets.slots);
}
