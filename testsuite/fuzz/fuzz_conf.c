// SPDX-License-Identifier: MIT
/*
 * Fuzz target: rota.conf (common/conf.h), from a buffer named "fuzz.conf".
 * A refused text leaves no object and a message; an accepted one holds
 * what the header promises: nodes found by name, queues pointing at
 * declared nodes, a default queue when there are queues, values in range.
 * Include lines are left in: they read files relative to the working
 * directory, which only adds errors (no such file, not a config).
 */
#include "config.h"

#include <string.h>

#include "common/conf.h"
#include "common/units.h"
#include "testsuite/fuzz/fuzz.h"

static void check_nodes(const struct rota_conf *conf)
{
	FUZZ_CHECK(conf->nnodes <= 65536);
	for (size_t i = 0; i < conf->nnodes; i++) {
		const struct rota_conf_node *node = &conf->nodes[i];

		FUZZ_CHECK(node->name && node->name[0]);
		FUZZ_CHECK(node->features != NULL);
		FUZZ_CHECK(node->file && node->line > 0);
		FUZZ_CHECK(rota_conf_node_find(conf, node->name) == node);
	}
}

static void check_queues(const struct rota_conf *conf)
{
	const struct rota_conf_queue *def = rota_conf_default_queue(conf);

	FUZZ_CHECK((def != NULL) == (conf->nqueues > 0));
	for (size_t i = 0; i < conf->nqueues; i++) {
		const struct rota_conf_queue *q = &conf->queues[i];

		FUZZ_CHECK(rota_conf_queue_find(conf, q->name) == q);
		FUZZ_CHECK(q->max_time >= 1 && q->default_time >= 1);
		FUZZ_CHECK(q->default_time == ROTA_DURATION_UNLIMITED ||
			   q->default_time <= q->max_time);
		FUZZ_CHECK(q->nodes && q->nodes[q->nnodes] == NULL);
		for (size_t j = 0; j < q->nnodes; j++)
			FUZZ_CHECK(rota_conf_node_find(conf, q->nodes[j]));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rota_conf *conf = (struct rota_conf *)data; /* not NULL */
	struct rota_error err = { "" };
	int rc = rota_conf_load_buffer("fuzz.conf", (const char *)data, size,
				       &conf, &err);

	if (rc) {
		FUZZ_CHECK(rc < 0);
		FUZZ_CHECK(conf == NULL);
		FUZZ_CHECK(err.text[0] != '\0');
		return 0;
	}
	FUZZ_CHECK(conf != NULL);
	FUZZ_CHECK(conf->cluster_name && conf->ctld_addr && conf->ctld_user);
	FUZZ_CHECK(conf->state_dir[0] == '/' && conf->spool_dir[0] == '/');
	FUZZ_CHECK(conf->ctld_port <= 65535 && conf->noded_port <= 65535);
	FUZZ_CHECK(conf->node_timeout > conf->heartbeat_interval);
	FUZZ_CHECK(conf->max_frame >= 64 << 10 && conf->max_frame <= 1 << 30);
	FUZZ_CHECK(conf->operators != NULL);
	check_nodes(conf);
	check_queues(conf);
	rota_conf_destroy(conf);
	return 0;
}
