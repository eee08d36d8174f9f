// SPDX-License-Identifier: MIT
/*
 * The layout of a step as PMIx describes it to MPI libraries, and the
 * unpacking of an allgather's result: the PMIx server's pure half
 * (pmix_server.c is the libpmix half), kept apart to be unit tested where
 * libpmix is absent.  Ranks are looked up through st->first/count/ranks,
 * never assumed block-distributed.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "common/xalloc.h"
#include "noded/pmix_layout.h"

int pmix_layout_places(const struct wireup_step *st, struct pmix_place *places,
		       struct rota_error *err)
{
	uint64_t total = 0;
	uint32_t n;
	uint32_t i;

	for (n = 0; n < st->nnodes; n++)
		total += st->count[n];
	if (total != st->ntasks)
		return rota_errorf(err, -EINVAL,
				   "step has %u tasks but its nodes %llu",
				   st->ntasks, (unsigned long long)total);
	for (i = 0; i < st->ntasks; i++)
		places[i].node = UINT32_MAX;
	for (n = 0; n < st->nnodes; n++) {
		for (i = 0; i < st->count[n]; i++) {
			uint32_t r = st->ranks[st->first[n] + i];

			if (r >= st->ntasks || places[r].node != UINT32_MAX)
				return rota_errorf(err, -EINVAL,
						   "node %u: rank %u %s", n, r,
						   r >= st->ntasks ?
							   "out of range" :
							   "given twice");
			places[r].node = n;
			places[r].local = i;
		}
	}
	return 0;
}

char *pmix_layout_nodes(const struct wireup_step *st)
{
	struct rota_strbuf b = { 0 };
	uint32_t n;

	for (n = 0; n < st->nnodes; n++)
		rota_strbuf_addf(&b, "%s%s", n ? "," : "", st->nodes[n]);
	return rota_strbuf_take(&b, NULL);
}

static void add_ranks(struct rota_strbuf *b, const struct wireup_step *st,
		      uint32_t node)
{
	uint32_t i;

	for (i = 0; i < st->count[node]; i++)
		rota_strbuf_addf(b, "%s%u", i ? "," : "",
				 st->ranks[st->first[node] + i]);
}

char *pmix_layout_ppn(const struct wireup_step *st)
{
	struct rota_strbuf b = { 0 };
	uint32_t n;

	for (n = 0; n < st->nnodes; n++) {
		if (n)
			rota_strbuf_adds(&b, ";");
		add_ranks(&b, st, n);
	}
	return rota_strbuf_take(&b, NULL);
}

char *pmix_layout_peers(const struct wireup_step *st, uint32_t node)
{
	struct rota_strbuf b = { 0 };

	add_ranks(&b, st, node);
	return rota_strbuf_take(&b, NULL);
}

uint32_t pmix_layout_leader(const struct wireup_step *st, uint32_t node)
{
	uint32_t low = UINT32_MAX;
	uint32_t i;

	for (i = 0; i < st->count[node]; i++)
		if (st->ranks[st->first[node] + i] < low)
			low = st->ranks[st->first[node] + i];
	return low;
}

static uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

int pmix_layout_join(const void *all, size_t len, uint32_t nnodes, char **out,
		     size_t *outlen, struct rota_error *err)
{
	const unsigned char *p = all;
	size_t off = 0;
	size_t total = 0;
	uint32_t n;
	char *buf;

	*out = NULL;
	*outlen = 0;
	/* bound every length before allocating */
	for (n = 0; n < nnodes; n++) {
		uint32_t blen;

		if (len - off < 4)
			return rota_errorf(err, -EPROTO,
					   "allgather: %u of %u blobs", n,
					   nnodes);
		blen = get_be32(p + off);
		off += 4;
		if (len - off < blen)
			return rota_errorf(err, -EPROTO,
					   "allgather: blob %u: %u bytes, %zu left",
					   n, blen, len - off);
		off += blen;
		total += blen;
	}
	if (off != len)
		return rota_errorf(err, -EPROTO,
				   "allgather: %zu bytes after %u blobs",
				   len - off, nnodes);
	if (!total)
		return 0;
	buf = rota_xmalloc(total);
	for (off = 0, total = 0, n = 0; n < nnodes; n++) {
		uint32_t blen = get_be32(p + off);

		memcpy(buf + total, p + off + 4, blen);
		off += 4 + (size_t)blen;
		total += blen;
	}
	*out = buf;
	*outlen = total;
	return 0;
}
