/* SPDX-License-Identifier: MIT */
#ifndef ROTA_NODED_PMI_KVS_H
#define ROTA_NODED_PMI_KVS_H

#include <stddef.h>

#include "common/error.h"

/*
 * The key-value space of one step as a PMI server sees it: a hash table of
 * strings with a bound on the bytes it holds, so that no task (and no
 * other node's blob) can make the step's supervisor grow without limit.
 * A put replaces an earlier value of the same key.
 */
struct pmi_kvs;

/* Caller frees with pmi_kvs_destroy(); 'max_bytes' bounds keys + values. */
struct pmi_kvs *pmi_kvs_create(size_t max_bytes);
void pmi_kvs_destroy(struct pmi_kvs *kvs);

/* Copy 'key' = 'val' in; -ENOSPC (and 'err') past the bound. */
int pmi_kvs_put(struct pmi_kvs *kvs, const char *key, const char *val,
		struct rota_error *err);

/* The value of 'key', borrowed until the next put or destroy; or NULL. */
const char *pmi_kvs_get(const struct pmi_kvs *kvs, const char *key);

#endif
