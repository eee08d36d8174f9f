// SPDX-License-Identifier: MIT
/* A placeholder until the PMIx server lands (wireup.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "noded/wireup.h"

static int none_create(struct rota_evloop *loop, const struct wireup_step *st,
		       const struct wireup_ops *ops, struct wireup_server **out,
		       char *err, size_t errlen)
{
	snprintf(err, errlen, "this rota-noded was built without PMIx");
	*out = NULL;
	return -ENOTSUP;
}

const struct wireup_impl wireup_pmix = { .name = "pmix",
					 .create = none_create };
