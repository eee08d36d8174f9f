// SPDX-License-Identifier: MIT
/*
 * TRESBillingWeights="CPU=1.0,Mem=0.25G,GRES/gpu=4.0" (conf.h): what a
 * second of each allocated resource costs in usage, as Slurm's key.  As
 * in Slurm, only the resources named count once the key is given (a line
 * without CPU charges no cores), Mem is per MB unless it carries a unit
 * (0.25G: a quarter per GB), GRES/gpu weighs every GPU and
 * GRES/gpu:TYPE the GPUs of that type instead.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf_internal.h"
#include "common/xalloc.h"

/* "0.25G" per GB, "2" per MB (Slurm's unit): per GB either way. */
static int mem_weight(const char *v, double *per_gb, struct rota_error *err)
{
	char *end;
	double w;

	errno = 0;
	w = strtod(v, &end);
	if (end == v || errno || !isfinite(w) || w < 0)
		return -EINVAL;
	switch (*end) {
	case '\0': case 'M': case 'm': w *= 1024; break;
	case 'G': case 'g': break;
	case 'T': case 't': w /= 1024; break;
	default: return -EINVAL;
	}
	if (*end && end[1])
		return -EINVAL;
	*per_gb = w;
	(void)err;
	return 0;
}

static int plain_weight(const char *v, double *out)
{
	char *end;
	double w;

	errno = 0;
	w = strtod(v, &end);
	if (end == v || *end || errno || !isfinite(w) || w < 0 || w > 1e9)
		return -EINVAL;
	*out = w;
	return 0;
}

static int one(char *item, struct rota_billing *b, struct rota_error *err)
{
	char *eq = strchr(item, '=');
	const char *v;
	int rc;

	if (!eq)
		return rota_errorf(err, -EINVAL, "'%.40s': expected TRES=WEIGHT",
				   item);
	*eq = '\0';
	v = eq + 1;
	if (!strcasecmp(item, "CPU")) {
		rc = plain_weight(v, &b->cpu);
	} else if (!strcasecmp(item, "Mem")) {
		rc = mem_weight(v, &b->mem_gb, err);
	} else if (!strcasecmp(item, "GRES/gpu")) {
		rc = plain_weight(v, &b->gpu);
	} else if (!strncasecmp(item, "GRES/gpu:", 9) && item[9] &&
		   strlen(item + 9) < sizeof(b->typed[0].type)) {
		if (b->ntyped == ROTA_BILLING_TYPES_MAX)
			return rota_errorf(err, -EINVAL,
					   "more than %d GPU types",
					   ROTA_BILLING_TYPES_MAX);
		strcpy(b->typed[b->ntyped].type, item + 9);
		for (char *c = b->typed[b->ntyped].type; *c; c++)
			*c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
		rc = plain_weight(v, &b->typed[b->ntyped++].weight);
	} else {
		return rota_errorf(err, -EINVAL,
				   "'%.40s': not CPU, Mem, GRES/gpu or "
				   "GRES/gpu:TYPE",
				   item);
	}
	if (rc < 0)
		return rota_errorf(err, -EINVAL, "%s: '%.40s' is not a weight",
				   item, v);
	return 0;
}

int conf_set_billing(const struct conf_key *key, const char *value,
		     void *base, struct rota_error *err)
{
	struct rota_billing b = { .set = true };
	char *copy = rota_xstrdup(value);
	char *save = NULL;
	int rc = 0;

	for (char *item = strtok_r(copy, ",", &save); item && !rc;
	     item = strtok_r(NULL, ",", &save))
		rc = one(item, &b, err);
	free(copy);
	if (rc == 0)
		*FIELD(base, key, struct rota_billing) = b;
	return rc;
}
