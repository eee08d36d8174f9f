/* SPDX-License-Identifier: MIT */
#ifndef ROTA_NODED_TOPOLOGY_H
#define ROTA_NODED_TOPOLOGY_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/*
 * What this node is made of, read with hwloc: either the host itself or an
 * hwloc XML file (--topology), so that one test host can play many real
 * machines.  Jobs are always bound on the real host: core i of the described
 * topology (hwloc logical index) maps to host core (i mod host_cores), and
 * the job is bound to all PUs of that host core.  With no XML the mapping is
 * the identity.
 */
struct topology;

/* One GPU (gpu_find.h). */
struct topology_gpu {
	char type[32];		/* "v100"; "" when the model names none */
	char model[96];		/* "Tesla V100-SXM3-32GB-H" */
	char busid[16];		/* "0000:34:00.0" */
	unsigned numa;		/* the NUMA node (OS index) nearest it */
	unsigned vendor;	/* PCI vendor id: 0x10de NVIDIA, 0x1002 AMD */
	char *cores;		/* the cores nearest it: "0-23" */
};

struct topology_summary {
	unsigned sockets;	/* hwloc Package objects (at least 1) */
	unsigned cores;		/* hwloc Core objects (PUs if there are none) */
	unsigned pus;		/* hardware threads */
	uint64_t memory_mb;	/* total memory of all NUMA nodes */
	bool has_ib;		/* an OpenFabrics OS device is present */
	struct topology_gpu *gpus; /* in PCI bus order */
	size_t ngpus;
};

/*
 * Load the host topology, or the XML file 'xml_path' (NULL: the host), with
 * I/O devices so that OpenFabrics devices are seen.  Caller frees with
 * topology_destroy().  -EINVAL with 'err' naming the file and hwloc's
 * complaint when the XML cannot be read.
 */
int topology_load(const char *xml_path, struct topology **out,
		  struct rota_error *err);
void topology_destroy(struct topology *topo);

/* Borrowed, valid until topology_destroy(). */
const struct topology_summary *topology_summary(const struct topology *topo);

/*
 * Bind the calling process (and so what it execs) to the host PUs that stand
 * for the described topology's logical cores 'cores[0..n)'.  -EINVAL for a
 * core index out of range, -errno from hwloc otherwise.  Safe after fork().
 */
int topology_bind_cores(const struct topology *topo, const unsigned *cores,
			size_t n, struct rota_error *err);

/*
 * The same binding as a sched_setaffinity() mask, for a caller that must
 * not allocate when it binds (a child sharing its parent's memory: see
 * launch.c).  Caller frees '*mask' with CPU_FREE(); '*size' is its size in
 * bytes.  -EINVAL with 'err' for a core out of range or no core at all;
 * '*mask' is NULL on failure.
 */
int topology_cpu_mask(const struct topology *topo, const unsigned *cores,
		      size_t n, cpu_set_t **mask, size_t *size,
		      struct rota_error *err);

/*
 * The host CPU list ("0-1,4") those cores bind to, in the form of
 * /proc/self/status Cpus_allowed_list; caller frees with free().
 */
char *topology_host_cpulist(const struct topology *topo, const unsigned *cores,
			    size_t n);

#endif
