// SPDX-License-Identifier: MIT
/* The scheduling tests' core on registered nodes (see fixture.h). */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/msg.h"
#include "ctld/core/core.h"
#include "plugins/rota_plugin.h"
#include "testsuite/unit/ctld/fixture.h"

void fixture_start(const char *text, int64_t now, struct core **core,
		   struct rota_conf **conf)
{
	struct rota_error err = { "" };
	int rc = rota_conf_load_buffer("test.conf", text, strlen(text), conf,
				       &err);

	ck_assert_msg(rc == 0, "config: %s", err.text);
	rc = core_create(*conf, core, &err);
	ck_assert_msg(rc == 0, "core: %s", err.text);
	for (size_t i = 0; i < (*conf)->nnodes; i++) {
		struct rota_node_info info = {
			.name = (*conf)->nodes[i].name,
			.state = "UP",
			.reason = "",
			.sockets = 1,
			.cores = (*conf)->nodes[i].cpus,
			.pus = (*conf)->nodes[i].cpus,
			.memory_mb = (*conf)->nodes[i].memory_mb,
		};

		ck_assert_int_eq(core_node_register(*core, now, &info, &err),
				 0);
	}
}

void fixture_stop(struct core **core, struct rota_conf **conf)
{
	core_destroy(*core);
	rota_conf_destroy(*conf);
	*core = NULL;
	*conf = NULL;
}

void fixture_drop_actions(struct core *core)
{
	struct core_action *a;

	core_take_actions(core, &a);
	free(a);
}

void fixture_pass(struct core *core, int64_t now)
{
	core_schedule(core, now);
	fixture_drop_actions(core);
}

void fixture_passes(struct core *core, int64_t now)
{
	struct rota_sched_stats st;

	core_schedule(core, now);
	ck_assert_int_eq(core_backfill(core, now, &st), 0);
	fixture_drop_actions(core);
}

void fixture_end_job(struct core *core, int64_t now, uint32_t id)
{
	const struct core_job *j = core_job_find(core, id);
	struct rota_msg_job_end e = {
		.job_id = id,
		.run = j->run,
		.state = ROTA_JOB_COMPLETED,
	};
	struct rota_error err = { "" };
	const char *node = core_node_get(core, j->alloc[0].node)->name;

	ck_assert_int_eq(core_job_end(core, now, node, &e, &err), 0);
}
