/* SPDX-License-Identifier: MIT */
#ifndef ROTA_NODED_PMI_PARSE_H
#define ROTA_NODED_PMI_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"

/*
 * The PMI wire formats, parsed without I/O so that they can be fuzzed:
 *
 *   PMI-1: one line, "cmd=NAME key=value key=value\n" (MPICH's simple PMI);
 *   PMI-2: a 6-byte decimal length, then that many bytes of
 *          "cmd=NAME;key=value;" where ';' inside a value is doubled.
 *
 * A PMI-2 client greets in PMI-1 ("cmd=init pmi_version=2") and switches to
 * the length-prefixed form after the answer; the caller tracks which form
 * a client is in.  Every byte is hostile: sizes are bounded before anything
 * is allocated and broken input is -EPROTO with one line in 'err'.
 */

#define PMI_LINE_MAX 4096	/* a PMI-1 line, newline included */
#define PMI2_BODY_MAX 65536	/* a PMI-2 message after its length */
#define PMI2_LEN_SIZE 6		/* the PMI-2 length field */
#define PMI_MAX_PAIRS 32	/* key=value pairs in one message */
#define PMI_KEY_MAX 64		/* a KVS key (PMI-2's PMI2_MAX_KEYLEN) */
#define PMI_VAL_MAX 1024	/* a KVS value (PMI-2's PMI2_MAX_VALLEN) */

struct pmi_pair {
	const char *key;
	const char *val;
};

/* A parsed message; the strings point into the caller's buffer. */
struct pmi_msg {
	const char *cmd;	/* the value of the first pair, "cmd" */
	bool multi;		/* PMI-1 "mcmd=" (spawn) rather than "cmd=" */
	unsigned npairs;	/* the pairs after the command */
	struct pmi_pair pairs[PMI_MAX_PAIRS];
};

/*
 * Find the first whole message in 'buf': sets *msglen (bytes it takes,
 * length field or newline included) and returns 1, returns 0 if more
 * bytes are needed, -EPROTO if what is there can never be a message (a
 * line past PMI_LINE_MAX, a bad or oversized PMI-2 length).
 */
int pmi_frame(const char *buf, size_t len, bool v2, size_t *msglen,
	      struct rota_error *err);

/*
 * Parse one framed message in place ('buf', 'len' as pmi_frame found it;
 * the bytes are rewritten).  0, or -EPROTO with 'm' empty.
 */
int pmi_parse(char *buf, size_t len, bool v2, struct pmi_msg *m,
	      struct rota_error *err);

/* The value of the first pair named 'key', or NULL. */
const char *pmi_msg_get(const struct pmi_msg *m, const char *key);

/*
 * True if 'key' and 'val' may enter the KVS: 1..PMI_KEY_MAX bytes of key
 * without '=', ';' or spaces, at most PMI_VAL_MAX bytes of value, and
 * neither with control characters.
 */
bool pmi_is_kvs_pair(const char *key, const char *val);

/*
 * A node's blob for the allgather is a run of "key\0value\0" pairs.
 * pmi_blob_add appends one; pmi_blob_next reads the pair at *pos (of a
 * blob of 'len' bytes) into 'key'/'val' (pointing into the blob), moves
 * *pos past it and returns 1, returns 0 at the end, -EPROTO if the blob is
 * broken (unterminated, or a pair pmi_is_kvs_pair refuses).
 */
void pmi_blob_add(struct rota_strbuf *b, const char *key, const char *val);
int pmi_blob_next(const char *blob, size_t len, size_t *pos, const char **key,
		  const char **val, struct rota_error *err);

#endif
