// SPDX-License-Identifier: MIT
/*
 * Licenses (core_internal.h, "licenses.c"): cluster-wide counted
 * resources, rota.conf's Licenses=matlab:10, as Slurm's.  A job asks
 * with --licenses=matlab:1 (desc.licenses), is refused at submit for a
 * name the cluster does not count or more than it has, holds its
 * licenses while it runs, and waits with reason Licenses while they are
 * taken: that job and the later ones that want the same license (the
 * queue goes on past them: a job of other licenses or of none may start).
 * Backfill plans them ahead in its profile (profile.c): a job that would
 * hold a license a reserved job is kept waits, one that gives it back in
 * time starts.  An advance reservation may hold some (Licenses=matlab:2,
 * as Slurm's): over its span no other job gets them, its jobs take them
 * from it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/gres.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "ctld/core/core_internal.h"

void licenses_init(struct core *core, const struct rota_conf *conf)
{
	core->licenses = rota_xcalloc(conf->nlicenses + 1,
				      sizeof(*core->licenses));
	core->nlicenses = conf->nlicenses;
	core->lic_waited = rota_xcalloc(conf->nlicenses + 1,
					sizeof(*core->lic_waited));
	for (size_t i = 0; i < conf->nlicenses; i++)
		core->licenses[i] = (struct core_license){
			.name = rota_xstrdup(conf->licenses[i].name),
			.total = conf->licenses[i].count,
		};
}

void licenses_fini(struct core *core)
{
	for (size_t i = 0; i < core->nlicenses; i++)
		free(core->licenses[i].name);
	free(core->licenses);
	free(core->lic_waited);
}

static int find(const struct core *core, const char *name)
{
	for (size_t i = 0; i < core->nlicenses; i++)
		if (!strcmp(core->licenses[i].name, name))
			return (int)i;
	return -1;
}

/* "matlab, ansys" for the line that names what there is. */
static void names(const struct core *core, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < core->nlicenses && at + 2 < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       i ? ", " : "", core->licenses[i].name);
}

int licenses_job_parse(const struct core *core, struct core_job *job,
		       struct rota_error *err)
{
	struct rota_gres *v;
	size_t n;
	char have[160];
	int rc;

	job->nlics = 0;
	if (!job->desc.licenses)
		return 0;
	rc = rota_gres_parse(job->desc.licenses, &v, &n, err);
	if (rc < 0)
		return rota_errorf(err, -EINVAL, "--licenses: %s", err->text);
	names(core, have, sizeof(have));
	job->lics = rota_xcalloc(n + 1, sizeof(*job->lics));
	for (size_t i = 0; i < n; i++) {
		int k = find(core, v[i].name);

		if (k < 0 || v[i].type[0]) {
			rc = rota_errorf(err, -EINVAL,
					 "--licenses: '%s' is not a license "
					 "of this cluster (%s%s)",
					 v[i].name, have[0] ? "it has: " : "",
					 have[0] ? have : "it has none");
			break;
		}
		if (v[i].count > core->licenses[k].total) {
			rc = rota_errorf(err, -EINVAL,
					 "--licenses=%s:%u: the cluster has %u",
					 v[i].name, v[i].count,
					 core->licenses[k].total);
			break;
		}
		job->lics[job->nlics++] = (struct core_lic){
			.idx = (uint32_t)k, .count = v[i].count };
	}
	free(v);
	if (rc < 0) {
		free(job->lics);
		job->lics = NULL;
		job->nlics = 0;
	}
	return rc;
}

/* The entry of license 'k' in reservation 'r', or NULL. */
static const struct core_lic *resv_entry(const struct core_resv *r,
					 uint32_t k, uint32_t *at)
{
	for (uint32_t i = 0; r && i < r->nlics; i++) {
		if (r->lics[i].idx == k) {
			*at = i;
			return &r->lics[i];
		}
	}
	return NULL;
}

/*
 * License 'k' free for 'job' over [now, now + its limit): its own
 * reservation's left, or the cluster's free less what the other
 * reservations over that span keep (all of it before they start, what
 * their jobs do not use once they have).
 */
static uint32_t lic_avail(const struct core *core, const struct core_job *job,
			  uint32_t k, int64_t now)
{
	const struct core_license *l = &core->licenses[k];
	const struct core_resv *own =
		job->desc.reservation
			? core_resv_find(core, job->desc.reservation)
			: NULL;
	const struct core_lic *e;
	uint32_t at = 0, held = 0, free_now;

	e = resv_entry(own, k, &at);
	if (e)
		return e->count > own->lics_used[at]
			       ? e->count - own->lics_used[at]
			       : 0;
	for (size_t i = 0; i < core->nresv; i++) {
		const struct core_resv *r = &core->resv[i];

		if (r == own || r->end <= now ||
		    (job->time_limit && r->start >= now + job->time_limit))
			continue;
		e = resv_entry(r, k, &at);
		if (e)
			held += r->active ? (e->count > r->lics_used[at]
						     ? e->count -
							       r->lics_used[at]
						     : 0)
					  : e->count;
	}
	free_now = l->total > l->used ? l->total - l->used : 0;
	return free_now > held ? free_now - held : 0;
}

bool licenses_free(const struct core *core, const struct core_job *job,
		   int64_t now)
{
	for (uint32_t i = 0; i < job->nlics; i++)
		if (lic_avail(core, job, job->lics[i].idx, now) <
		    job->lics[i].count)
			return false;
	return true;
}

void licenses_pass_begin(struct core *core)
{
	memset(core->lic_waited, 0, core->nlicenses * sizeof(bool));
}

bool licenses_may_take(struct core *core, const struct core_job *job,
		       int64_t now)
{
	const struct core_resv *own =
		job->desc.reservation
			? core_resv_find(core, job->desc.reservation)
			: NULL;
	bool ok = true;

	for (uint32_t i = 0; i < job->nlics; i++) {
		uint32_t k = job->lics[i].idx, at;
		/* its reservation's are its own: no one else waits for them */
		bool mine = resv_entry(own, k, &at) != NULL;

		if (!mine && core->lic_waited[k]) {
			ok = false;
		} else if (lic_avail(core, job, k, now) < job->lics[i].count) {
			ok = false;
			core->lic_waited[k] |= !mine;
		}
	}
	return ok;
}

void licenses_take(struct core *core, const struct core_job *job)
{
	for (uint32_t i = 0; i < job->nlics; i++)
		core->licenses[job->lics[i].idx].used += job->lics[i].count;
}

void licenses_give(struct core *core, const struct core_job *job)
{
	for (uint32_t i = 0; i < job->nlics; i++) {
		struct core_license *l = &core->licenses[job->lics[i].idx];

		l->used -= job->lics[i].count < l->used ? job->lics[i].count
							: l->used;
	}
}

int licenses_resv_parse(const struct core *core, const char *text,
			struct core_resv *r, struct rota_error *err)
{
	struct rota_gres *v;
	size_t n;
	uint32_t at;
	int rc = rota_gres_parse(text, &v, &n, err);

	if (rc < 0)
		return rota_errorf(err, -EINVAL, "Licenses=%s: %s", text,
				   err->text);
	r->lics = rota_xcalloc(n + 1, sizeof(*r->lics));
	r->lics_used = rota_xcalloc(n + 1, sizeof(*r->lics_used));
	for (size_t i = 0; i < n && rc == 0; i++) {
		int k = find(core, v[i].name);
		uint32_t held = 0;

		if (k < 0 || v[i].type[0]) {
			rc = rota_errorf(err, -EINVAL,
					 "Licenses=%s: '%s' is not a license "
					 "of this cluster",
					 text, v[i].name);
			break;
		}
		for (size_t j = 0; j < core->nresv; j++) {
			const struct core_resv *o = &core->resv[j];
			const struct core_lic *e = resv_entry(o, (uint32_t)k,
							      &at);

			if (e && o != r && o->end > r->start &&
			    o->start < r->end)
				held += e->count;
		}
		if (held + v[i].count > core->licenses[k].total) {
			rc = rota_errorf(err, -EBUSY,
					 "Licenses=%s: reservations over that "
					 "time hold %u of the cluster's %u %s",
					 text, held, core->licenses[k].total,
					 v[i].name);
			break;
		}
		r->lics[r->nlics++] = (struct core_lic){ .idx = (uint32_t)k,
							 .count = v[i].count };
	}
	free(v);
	if (rc < 0) {
		free(r->lics);
		free(r->lics_used);
		r->lics = NULL;
		r->lics_used = NULL;
		r->nlics = 0;
	}
	return rc;
}

char *core_resv_licenses_text(const struct core *core,
			      const struct core_resv *r)
{
	struct rota_strbuf b = { 0 };
	size_t len;

	if (!r->nlics)
		return NULL;
	for (uint32_t i = 0; i < r->nlics; i++)
		rota_strbuf_addf(&b, "%s%s:%u", i ? "," : "",
				 core->licenses[r->lics[i].idx].name,
				 r->lics[i].count);
	return rota_strbuf_take(&b, &len);
}

size_t core_license_count(const struct core *core)
{
	return core->nlicenses;
}

const struct core_license *core_license_get(const struct core *core,
					    size_t i)
{
	return &core->licenses[i];
}
