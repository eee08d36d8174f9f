/* SPDX-License-Identifier: MIT */
#ifndef ROTA_NODED_PMIX_LAYOUT_H
#define ROTA_NODED_PMIX_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "noded/wireup.h"

/*
 * The parts of the PMIx server that need no libpmix, so that they are unit
 * tested without it: where each rank of a step runs, the strings PMIx wants
 * to describe that (PMIx_generate_regex and PMIx_generate_ppn inputs, local
 * peers), and the unpacking of an allgather's result (wireup.h's layout)
 * into the plain concatenation PMIx's fence callback takes.
 */

/* Where one rank of the step runs. */
struct pmix_place {
	uint32_t node;	/* node id */
	uint32_t local;	/* its index among that node's tasks (local rank) */
};

/*
 * Check that 'st' describes each rank 0 .. ntasks-1 exactly once and fill
 * 'places' (ntasks entries, by global rank).  -EINVAL with 'err' if not.
 */
int pmix_layout_places(const struct wireup_step *st, struct pmix_place *places,
		       struct rota_error *err);

/* "n01,n02,...": the node names, PMIx_generate_regex's input. Caller frees. */
char *pmix_layout_nodes(const struct wireup_step *st);

/*
 * "0,1;2,3": each node's ranks, nodes separated by ';' in node id order,
 * PMIx_generate_ppn's input.  Caller frees.
 */
char *pmix_layout_ppn(const struct wireup_step *st);

/* "2,3": the ranks of node 'node', PMIX_LOCAL_PEERS.  Caller frees. */
char *pmix_layout_peers(const struct wireup_step *st, uint32_t node);

/* The lowest rank of node 'node' (PMIX_LOCALLDR); UINT32_MAX if none. */
uint32_t pmix_layout_leader(const struct wireup_step *st, uint32_t node);

/*
 * Unpack an allgather's result of 'nnodes' length-prefixed blobs into their
 * concatenation: '*out' (caller frees, NULL when empty) of '*outlen' bytes.
 * -EPROTO with 'err' when 'all' does not hold exactly 'nnodes' blobs.
 */
int pmix_layout_join(const void *all, size_t len, uint32_t nnodes, char **out,
		     size_t *outlen, struct rota_error *err);

#endif
