// SPDX-License-Identifier: MIT
/*
 * Each user's jobs, in id order, so that a listing of one user's jobs
 * (rota queue -u, rota prio -u) costs what it lists, not the whole
 * table.  A small open-addressing table maps the uid to its list; users
 * are few, so an entry whose list empties stays for the user's next job.
 * Kept by jobtab.c, on every job it takes in or lets go.
 */
#include "config.h"

#include <stdlib.h>

#include "common/xalloc.h"
#include "ctld/core/core_internal.h"

static size_t home(const struct core *core, uid_t uid)
{
	/* Knuth's multiplicative hash: uids come in runs */
	return ((uint32_t)uid * 2654435761u) & (core->nusers_cap - 1);
}

static struct core_user_jobs *lookup(const struct core *core, uid_t uid)
{
	if (!core->nusers_cap)
		return NULL;
	for (size_t s = home(core, uid); core->users[s].used;
	     s = (s + 1) & (core->nusers_cap - 1))
		if (core->users[s].uid == uid)
			return &core->users[s];
	return NULL;
}

static void grow(struct core *core)
{
	struct core_user_jobs *old = core->users;
	size_t oldn = core->nusers_cap;

	core->nusers_cap = oldn ? 2 * oldn : 64;
	core->users = rota_xcalloc(core->nusers_cap, sizeof(*core->users));
	for (size_t i = 0; i < oldn; i++) {
		size_t s;

		if (!old[i].used)
			continue;
		for (s = home(core, old[i].uid); core->users[s].used;
		     s = (s + 1) & (core->nusers_cap - 1))
			;
		core->users[s] = old[i];
	}
	free(old);
}

static struct core_user_jobs *entry(struct core *core, uid_t uid)
{
	struct core_user_jobs *u = lookup(core, uid);
	size_t s;

	if (u)
		return u;
	if ((core->nusers + 1) * 2 > core->nusers_cap)
		grow(core);
	for (s = home(core, uid); core->users[s].used;
	     s = (s + 1) & (core->nusers_cap - 1))
		;
	core->nusers++;
	core->users[s] = (struct core_user_jobs){ .uid = uid, .used = true };
	return &core->users[s];
}

void userjobs_insert(struct core *core, struct core_job *job)
{
	struct core_user_jobs *u = entry(core, job->uid);
	struct core_job *after = u->tail;

	/* ids grow, so this is the tail but for a restore's stragglers */
	while (after && after->id > job->id)
		after = after->uprev;
	job->uprev = after;
	job->unext = after ? after->unext : u->head;
	if (job->unext)
		job->unext->uprev = job;
	else
		u->tail = job;
	if (after)
		after->unext = job;
	else
		u->head = job;
	u->n++;
}

void userjobs_remove(struct core *core, struct core_job *job)
{
	struct core_user_jobs *u = lookup(core, job->uid);

	if (!u)
		return;
	if (job->uprev)
		job->uprev->unext = job->unext;
	else
		u->head = job->unext;
	if (job->unext)
		job->unext->uprev = job->uprev;
	else
		u->tail = job->uprev;
	job->uprev = job->unext = NULL;
	u->n--;
}

size_t core_user_job_count(const struct core *core, uid_t uid)
{
	const struct core_user_jobs *u = lookup(core, uid);

	return u ? u->n : 0;
}

void core_user_jobs_foreach(const struct core *core, uid_t uid,
			    void (*fn)(const struct core_job *job, void *arg),
			    void *arg)
{
	const struct core_user_jobs *u = lookup(core, uid);

	for (const struct core_job *j = u ? u->head : NULL; j; j = j->unext)
		fn(j, arg);
}

void userjobs_fini(struct core *core)
{
	free(core->users);
	core->users = NULL;
	core->nusers = core->nusers_cap = 0;
}
