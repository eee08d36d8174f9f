/* SPDX-License-Identifier: MIT */
#ifndef ROTA_TESTSUITE_UNIT_PLUGINS_FAKE_HOST_H
#define ROTA_TESTSUITE_UNIT_PLUGINS_FAKE_HOST_H

/*
 * A host for driving plugins through their descriptors without the
 * controller: settings come from a table, setting i being on line i + 1
 * of "test.conf", and the getters fail as the real host does, with
 * "test.conf:LINE: Key: ..." in 'err'.
 */
#include "plugins/rota_plugin.h"

struct setting {
	const char *key;
	const char *value;
};

struct rota_plugin_conf {
	const struct setting *s;
	int n;
};

/* The getters (log left to the test: set .log after fake_host_init). */
void fake_host_init(struct rota_host *host);

#endif
