// SPDX-License-Identifier: MIT
/* Placeholders until the PMI and PMIx servers land (wireup.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "noded/wireup.h"

static int none_create(struct rota_evloop *loop, const struct wireup_step *st,
		       const struct wireup_ops *ops, struct wireup_server **out,
		       char *err, size_t errlen)
{
	snprintf(err, errlen, "this rota-noded has no MPI wire-up yet");
	*out = NULL;
	return -ENOTSUP;
}

const struct wireup_impl wireup_pmi = { .name = "pmi", .create = none_create };
const struct wireup_impl wireup_pmix = { .name = "pmix",
					 .create = none_create };
