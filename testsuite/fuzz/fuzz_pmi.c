// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the PMI wire formats (noded/pmi_parse.h) and the key-value
 * space behind them (noded/pmi_kvs.h).  The first byte picks PMI-1 lines
 * or PMI-2 length-prefixed messages; the rest is cut into messages as the
 * server does, each parsed in place, and the pairs that pass
 * pmi_is_kvs_pair go through a small KVS and a blob and must come back
 * the same.  The whole input is also read as another node's blob.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "common/strbuf.h"
#include "noded/pmi_kvs.h"
#include "noded/pmi_parse.h"
#include "testsuite/fuzz/fuzz.h"

static void check_msg(const struct pmi_msg *m, const char *buf, size_t len,
		      struct pmi_kvs *kvs, struct rota_strbuf *blob)
{
	FUZZ_CHECK(m->cmd && *m->cmd && m->npairs <= PMI_MAX_PAIRS);
	FUZZ_CHECK(m->cmd >= buf && m->cmd < buf + len);
	for (unsigned i = 0; i < m->npairs; i++) {
		const char *k = m->pairs[i].key;
		const char *v = m->pairs[i].val;
		struct rota_error err = { "" };

		FUZZ_CHECK(k >= buf && k < buf + len && *k);
		FUZZ_CHECK(v >= buf && v < buf + len + 1);
		FUZZ_CHECK(strlen(k) <= PMI_KEY_MAX);
		if (!pmi_is_kvs_pair(k, v))
			continue;
		if (pmi_kvs_put(kvs, k, v, &err) == 0) {
			FUZZ_CHECK(!strcmp(pmi_kvs_get(kvs, k), v));
			pmi_blob_add(blob, k, v);
		} else {
			FUZZ_CHECK(err.text[0]);
		}
	}
	FUZZ_CHECK(pmi_msg_get(m, "cmd") == NULL ||
		   pmi_msg_get(m, "cmd") >= buf);
}

/* A blob's pairs all pass pmi_is_kvs_pair and it is read to its end. */
static int read_blob(const char *blob, size_t len)
{
	struct rota_error err = { "" };
	const char *k;
	const char *v;
	size_t pos = 0;
	size_t last = 0;
	int n = 0;
	int rc;

	while ((rc = pmi_blob_next(blob, len, &pos, &k, &v, &err)) > 0) {
		FUZZ_CHECK(pos > last && pos <= len);
		FUZZ_CHECK(pmi_is_kvs_pair(k, v));
		last = pos;
		n++;
	}
	FUZZ_CHECK(rc == 0 || (rc == -EPROTO && err.text[0]));
	if (rc == 0)
		FUZZ_CHECK(pos == len || len == 0);
	return rc < 0 ? rc : n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmi_kvs *kvs = pmi_kvs_create(4096);
	struct rota_strbuf blob = { 0 };
	bool v2 = size && (data[0] & 1);
	char *in = fuzz_strndup(data, size);
	size_t off = size ? 1 : 0;
	int nput = 0;

	while (off < size) {
		struct rota_error err = { "" };
		struct pmi_msg m;
		size_t len = 0;
		int rc = pmi_frame(in + off, size - off, v2, &len, &err);
		char *msg;

		FUZZ_CHECK(rc >= -EPROTO && rc <= 1);
		if (rc <= 0) {
			FUZZ_CHECK(rc == 0 || err.text[0]);
			break;
		}
		FUZZ_CHECK(len > 0 && len <= size - off);
		msg = fuzz_strndup((const uint8_t *)in + off, len);
		rc = pmi_parse(msg, len, v2, &m, &err);
		if (rc == 0)
			check_msg(&m, msg, len, kvs, &blob);
		else
			FUZZ_CHECK(rc == -EPROTO && err.text[0] && !m.cmd);
		free(msg);
		off += len;
		nput++;
	}
	/* what this node would send parses back whole */
	FUZZ_CHECK(read_blob(blob.data ? blob.data : "", blob.len) >= 0);
	read_blob(in, size);
	rota_strbuf_fini(&blob);
	pmi_kvs_destroy(kvs);
	free(in);
	(void)nput;
	return 0;
}
