/* SPDX-License-Identifier: MIT */
#ifndef ROTA_PLUGINS_JOBCOMP_JOBCOMP_JSON_H
#define ROTA_PLUGINS_JOBCOMP_JOBCOMP_JSON_H

#include "plugins/rota_plugin.h"

/*
 * A job completion record as JSON, one object on one line, shared by the
 * jobcomp plugins (compiled into each); common/jobrec.c reads it back for
 * rota history.  Fields, in this order:
 *   id cluster name user uid gid account queue nodes cores memory_mb
 *   time_limit submit eligible start end exit_code signal state priority
 *   usage runs @timestamp
 * Times are Unix seconds; "@timestamp" is the end in ISO 8601 UTC, for
 * Elasticsearch/OpenSearch and Kibana.  Caller frees with free(); NULL
 * only when out of memory.
 */
char *jobcomp_json_encode(const struct rota_jobcomp_record *r);

#endif
