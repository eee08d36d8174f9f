// SPDX-License-Identifier: MIT
/*
 * Limit keys, shared by UserName, AccountName and QOSName lines (Slurm's
 * association and QOS limits, and Maui's per-credential ones):
 *   MaxJobs=4 MaxSubmitJobs=100 MaxWall=2-00:00:00
 *   MaxTRES=cpu=64,mem=256G,node=4,gres/gpu=8 GrpTRESRunMins=cpu=100000
 *   GrpTRES=cpu=256,gres/gpu=16 (and on QOSName lines only
 *   MaxTRESPerUser=gres/gpu=8 MaxTRESPerAccount=cpu=512)
 *   MaxIdle=8 MaxPS=72000 MaxPSHard=1080000 Allocation=5000
 * Every limit is unset (-1) unless given; UNLIMITED unsets one again.
 * The setters are the key tables' (conf_internal.h); conf_limits_check()
 * refuses what only the whole line can tell (a soft limit above its hard
 * one).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf_internal.h"
#include "common/units.h"

#define LIMIT_MAX (INT64_C(1) << 50)

static bool unlimited(const char *value)
{
	return strcasecmp(value, "UNLIMITED") == 0;
}

/* A count or processor-seconds: a whole number, or UNLIMITED. */
int conf_set_limit(const struct conf_key *key, const char *value, void *base,
		   struct rota_error *err)
{
	int64_t *field = FIELD(base, key, int64_t);
	char *end;
	long long v;

	if (unlimited(value)) {
		*field = -1;
		return 0;
	}
	errno = 0;
	v = strtoll(value, &end, 10);
	if (value[0] == '-' || end == value || *end || errno ||
	    v > LIMIT_MAX)
		return rota_errorf(err, -EINVAL,
				   "'%.40s' is not a whole number from 0 "
				   "(or UNLIMITED)", value);
	*field = v;
	return 0;
}

/* A job's time limit, in Slurm's forms (a bare number is minutes). */
int conf_set_limit_time(const struct conf_key *key, const char *value,
			void *base, struct rota_error *err)
{
	int64_t *field = FIELD(base, key, int64_t);
	int64_t v;

	if (unlimited(value)) {
		*field = -1;
		return 0;
	}
	if (value[0] == '-')
		return rota_errorf(err, -EINVAL, "'%.40s' is negative",
				   value);
	if (rota_duration_parse(value, ROTA_DURATION_BARE_MINUTES, &v, err))
		return -EINVAL;
	*field = v;
	return 0;
}

/*
 * Where a TRES list's items go: a NULL field is a resource the key does
 * not take ('known' names those it does, for the error).
 */
struct tres_dest {
	int64_t *cpu;
	int64_t *mem;
	int64_t *node;
	int64_t *gpu;
	const char *known;
};

/* One "name=value" of a TRES list into its field; -EINVAL says why. */
static int tres_item(const struct tres_dest *d, const char *item, size_t len,
		     struct rota_error *err)
{
	char text[64];
	char *eq;
	uint64_t mb;
	long long v;
	char *end;
	int64_t *field = NULL;

	if (len >= sizeof(text))
		return rota_errorf(err, -EINVAL, "'%.40s...' is too long",
				   item);
	memcpy(text, item, len);
	text[len] = '\0';
	eq = strchr(text, '=');
	if (!eq || eq == text || !eq[1])
		return rota_errorf(err, -EINVAL,
				   "'%s' is not resource=value", text);
	*eq++ = '\0';
	if (d->mem && strcasecmp(text, "mem") == 0) {
		if (rota_size_parse_mb(eq, &mb, err) || mb > LIMIT_MAX)
			return rota_errorf(err, -EINVAL,
					   "mem: '%s' is not a size", eq);
		*d->mem = (int64_t)mb;
		return 0;
	}
	errno = 0;
	v = strtoll(eq, &end, 10);
	if (eq[0] == '-' || *end || errno || v > LIMIT_MAX)
		return rota_errorf(err, -EINVAL,
				   "%s: '%s' is not a whole number", text, eq);
	if (strcasecmp(text, "cpu") == 0)
		field = d->cpu;
	else if (strcasecmp(text, "node") == 0)
		field = d->node;
	else if (strcasecmp(text, "gres/gpu") == 0)
		field = d->gpu;
	if (!field)
		return rota_errorf(err, -EINVAL, "unknown resource '%s' "
				   "(%s)", text, d->known);
	*field = v;
	return 0;
}

static int tres_list(const char *value, const struct tres_dest *d,
		     struct rota_error *err)
{
	while (*value) {
		size_t len = strcspn(value, ",");
		int rc = tres_item(d, value, len, err);

		if (rc)
			return rc;
		value += len + (value[len] == ',');
	}
	return 0;
}

#define TRES_ALL "cpu, mem, node, gres/gpu"

/* MaxTRES=cpu=64,mem=256G,node=4 (the key's field is the whole set). */
int conf_set_tres(const struct conf_key *key, const char *value, void *base,
		  struct rota_error *err)
{
	struct rota_conf_limits *l =
		FIELD(base, key, struct rota_conf_limits);
	const struct tres_dest d = {
		.cpu = &l->max_cpus, .mem = &l->max_mem,
		.node = &l->max_nodes, .gpu = &l->max_gpus, .known = TRES_ALL,
	};

	return tres_list(value, &d, err);
}

/* GrpTRESRunMins=cpu=N: Slurm's counterpart of processor-seconds. */
int conf_set_run_mins(const struct conf_key *key, const char *value,
		      void *base, struct rota_error *err)
{
	struct rota_conf_limits *l =
		FIELD(base, key, struct rota_conf_limits);
	const struct tres_dest d = { .cpu = &l->cpu_run_mins, .known = "cpu" };

	return tres_list(value, &d, err);
}

static int running_tres(struct rota_conf_tres *t, const char *value,
			struct rota_error *err)
{
	const struct tres_dest d = {
		.cpu = &t->cpu, .mem = &t->mem, .node = &t->node,
		.gpu = &t->gpu, .known = TRES_ALL,
	};

	return tres_list(value, &d, err);
}

/* GrpTRES=cpu=N,mem=SIZE,node=N,gres/gpu=N: the holder's running jobs. */
int conf_set_grp_tres(const struct conf_key *key, const char *value,
		      void *base, struct rota_error *err)
{
	return running_tres(&FIELD(base, key, struct rota_conf_limits)->grp,
			    value, err);
}

/* MaxTRESPerUser=...: one user's running jobs in the QOS. */
int conf_set_tres_per_user(const struct conf_key *key, const char *value,
			   void *base, struct rota_error *err)
{
	return running_tres(
		&FIELD(base, key, struct rota_conf_limits)->per_user, value,
		err);
}

/* MaxTRESPerAccount=...: one account's running jobs in the QOS. */
int conf_set_tres_per_account(const struct conf_key *key, const char *value,
			      void *base, struct rota_error *err)
{
	return running_tres(
		&FIELD(base, key, struct rota_conf_limits)->per_account,
		value, err);
}

void conf_limits_init(struct rota_conf_limits *l)
{
	*l = (struct rota_conf_limits){
		.max_jobs = -1, .max_submit = -1, .max_wall = -1,
		.max_cpus = -1, .max_mem = -1, .max_nodes = -1,
		.cpu_run_mins = -1, .max_idle = -1, .max_ps = -1,
		.max_ps_hard = -1, .allocation = -1, .max_gpus = -1,
		.grp = { -1, -1, -1, -1 },
		.per_user = { -1, -1, -1, -1 },
		.per_account = { -1, -1, -1, -1 },
	};
}

int conf_limits_check(const struct rota_conf_limits *l,
		      const struct conf_where *at, struct rota_error *err)
{
	if (l->max_ps >= 0 && l->max_ps_hard >= 0 &&
	    l->max_ps > l->max_ps_hard)
		return conf_errorf(err, -EINVAL, at, "MaxPS",
				   "%" PRId64 " is above MaxPSHard %" PRId64,
				   l->max_ps, l->max_ps_hard);
	return 0;
}
