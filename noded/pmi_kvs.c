// SPDX-License-Identifier: MIT
/*
 * A bounded string hash table for the PMI key-value space (pmi_kvs.h):
 * chained buckets, doubled when they average more than one entry.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "noded/pmi_kvs.h"

struct kvs_entry {
	struct kvs_entry *next;
	char *val;
	char key[]; /* NUL-terminated */
};

struct pmi_kvs {
	struct kvs_entry **buckets;
	size_t nbuckets; /* a power of two */
	size_t count;
	size_t bytes;	 /* of keys and values */
	size_t max_bytes;
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ull;
	}
	return h;
}

struct pmi_kvs *pmi_kvs_create(size_t max_bytes)
{
	struct pmi_kvs *kvs = rota_xcalloc(1, sizeof(*kvs));

	kvs->nbuckets = 64;
	kvs->buckets = rota_xcalloc(kvs->nbuckets, sizeof(*kvs->buckets));
	kvs->max_bytes = max_bytes;
	return kvs;
}

void pmi_kvs_destroy(struct pmi_kvs *kvs)
{
	if (!kvs)
		return;
	for (size_t i = 0; i < kvs->nbuckets; i++) {
		struct kvs_entry *e = kvs->buckets[i];

		while (e) {
			struct kvs_entry *next = e->next;

			free(e->val);
			free(e);
			e = next;
		}
	}
	free(kvs->buckets);
	free(kvs);
}

static struct kvs_entry **find(const struct pmi_kvs *kvs, const char *key)
{
	struct kvs_entry **p = &kvs->buckets[hash(key) & (kvs->nbuckets - 1)];

	while (*p && strcmp((*p)->key, key))
		p = &(*p)->next;
	return p;
}

static void grow(struct pmi_kvs *kvs)
{
	size_t n = kvs->nbuckets * 2;
	struct kvs_entry **b = rota_xcalloc(n, sizeof(*b));

	for (size_t i = 0; i < kvs->nbuckets; i++) {
		struct kvs_entry *e = kvs->buckets[i];

		while (e) {
			struct kvs_entry *next = e->next;
			size_t h = hash(e->key) & (n - 1);

			e->next = b[h];
			b[h] = e;
			e = next;
		}
	}
	free(kvs->buckets);
	kvs->buckets = b;
	kvs->nbuckets = n;
}

int pmi_kvs_put(struct pmi_kvs *kvs, const char *key, const char *val,
		struct rota_error *err)
{
	struct kvs_entry **p = find(kvs, key);
	size_t klen = strlen(key);
	size_t vlen = strlen(val);
	size_t old = *p ? strlen((*p)->val) : 0;
	size_t need = *p ? vlen : klen + vlen;

	if (kvs->bytes - old + need > kvs->max_bytes)
		return rota_errorf(err, -ENOSPC,
				   "key-value space full (%zu bytes)",
				   kvs->max_bytes);
	if (*p) {
		free((*p)->val);
		(*p)->val = rota_xstrdup(val);
		kvs->bytes = kvs->bytes - old + vlen;
		return 0;
	}
	*p = rota_xmalloc(sizeof(**p) + klen + 1);
	memcpy((*p)->key, key, klen + 1);
	(*p)->val = rota_xstrdup(val);
	(*p)->next = NULL;
	kvs->bytes += klen + vlen;
	if (++kvs->count > kvs->nbuckets)
		grow(kvs);
	return 0;
}

const char *pmi_kvs_get(const struct pmi_kvs *kvs, const char *key)
{
	struct kvs_entry *e = *find(kvs, key);

	return e ? e->val : NULL;
}
