// SPDX-License-Identifier: MIT
/*
 * Limit keys, shared by UserName, AccountName and QOSName lines (Slurm's
 * association and QOS limits, and Maui's per-credential ones):
 *   MaxJobs=4 MaxSubmitJobs=100 MaxWall=2-00:00:00
 *   MaxTRES=cpu=64,mem=256G,node=4,gres/gpu=8 GrpTRESRunMins=cpu=100000
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

/* One "name=value" of a TRES list into its field; -EINVAL says why. */
static int tres_item(struct rota_conf_limits *l, const char *item,
		     size_t len, bool run_mins, struct rota_error *err)
{
	char text[64];
	char *eq;
	uint64_t mb;
	long long v;
	char *end;

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
	if (!run_mins && strcasecmp(text, "mem") == 0) {
		if (rota_size_parse_mb(eq, &mb, err) || mb > LIMIT_MAX)
			return rota_errorf(err, -EINVAL,
					   "mem: '%s' is not a size", eq);
		l->max_mem = (int64_t)mb;
		return 0;
	}
	errno = 0;
	v = strtoll(eq, &end, 10);
	if (eq[0] == '-' || *end || errno || v > LIMIT_MAX)
		return rota_errorf(err, -EINVAL,
				   "%s: '%s' is not a whole number", text, eq);
	if (strcasecmp(text, "cpu") == 0)
		*(run_mins ? &l->cpu_run_mins : &l->max_cpus) = v;
	else if (!run_mins && strcasecmp(text, "node") == 0)
		l->max_nodes = v;
	else if (!run_mins && strcasecmp(text, "gres/gpu") == 0)
		l->max_gpus = v;
	else
		return rota_errorf(err, -EINVAL, "unknown resource '%s' "
				   "(%s)", text, run_mins ? "cpu" :
				   "cpu, mem, node, gres/gpu");
	return 0;
}

static int tres_list(const char *value, struct rota_conf_limits *l,
		     bool run_mins, struct rota_error *err)
{
	while (*value) {
		size_t len = strcspn(value, ",");
		int rc = tres_item(l, value, len, run_mins, err);

		if (rc)
			return rc;
		value += len + (value[len] == ',');
	}
	return 0;
}

/* MaxTRES=cpu=64,mem=256G,node=4 (the key's field is the whole set). */
int conf_set_tres(const struct conf_key *key, const char *value, void *base,
		  struct rota_error *err)
{
	return tres_list(value, FIELD(base, key, struct rota_conf_limits),
			 false, err);
}

/* GrpTRESRunMins=cpu=N: Slurm's counterpart of processor-seconds. */
int conf_set_run_mins(const struct conf_key *key, const char *value,
		      void *base, struct rota_error *err)
{
	return tres_list(value, FIELD(base, key, struct rota_conf_limits),
			 true, err);
}

void conf_limits_init(struct rota_conf_limits *l)
{
	*l = (struct rota_conf_limits){
		.max_jobs = -1, .max_submit = -1, .max_wall = -1,
		.max_cpus = -1, .max_mem = -1, .max_nodes = -1,
		.cpu_run_mins = -1, .max_idle = -1, .max_ps = -1,
		.max_ps_hard = -1, .allocation = -1, .max_gpus = -1,
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
