// SPDX-License-Identifier: MIT
/*
 * Licenses=matlab:10,ansys:4 (conf.h): cluster-wide counted resources,
 * as Slurm's key: NAME:COUNT (COUNT defaults to 1), each name once.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf_internal.h"
#include "common/gres.h"

int conf_set_licenses(const struct conf_key *key, const char *value,
		      void *base, struct rota_error *err)
{
	struct rota_conf *conf = base;
	struct rota_gres *v;
	size_t n;
	int rc = rota_gres_parse(value, &v, &n, err);

	(void)key;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		for (size_t k = 0; k < i; k++)
			if (!strcmp(v[k].name, v[i].name))
				rc = rota_errorf(err, -EINVAL,
						 "'%s' given twice", v[i].name);
		if (rc == 0 && v[i].type[0])
			rc = rota_errorf(err, -EINVAL,
					 "'%s:%s': expected NAME:COUNT",
					 v[i].name, v[i].type);
	}
	if (rc < 0) {
		free(v);
		return rc;
	}
	free(conf->licenses);
	conf->licenses = v;
	conf->nlicenses = n;
	return 0;
}
