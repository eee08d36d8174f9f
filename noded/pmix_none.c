// SPDX-License-Identifier: MIT
/*
 * wireup_pmix in a rota-noded built without libpmix (configure
 * --without-pmix, or libpmix-dev absent): every step asking for it is
 * refused in one line saying why.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "noded/wireup.h"

static int none_create(struct rota_evloop *loop, const struct wireup_step *st,
		       const struct wireup_ops *ops,
		       struct wireup_server **out, char *err, size_t errlen)
{
	*out = NULL;
	snprintf(err, errlen, "this rota-noded was built without PMIx");
	return -ENOTSUP;
}

/* Never called: no server is ever created. */
static int none_task_env(struct wireup_server *s, uint32_t rank, char ***env,
			 int *child_fd, char *err, size_t errlen)
{
	*env = NULL;
	*child_fd = -1;
	return -ENOTSUP;
}

static void none_task_started(struct wireup_server *s, uint32_t rank,
			      pid_t pid)
{
}

static void none_done(struct wireup_server *s, const void *all, size_t len)
{
}

static void none_destroy(struct wireup_server *s)
{
}

const struct wireup_impl wireup_pmix = {
	.name = "pmix",
	.create = none_create,
	.task_env = none_task_env,
	.task_started = none_task_started,
	.done = none_done,
	.destroy = none_destroy,
};
