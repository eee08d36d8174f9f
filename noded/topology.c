// SPDX-License-Identifier: MIT
/*
 * The node's hardware, read with hwloc, and CPU binding of jobs.
 *
 * Two topologies may be involved: the described one (the host, or an XML
 * file given with --topology so that one test host can play a real machine)
 * and the real host, on which jobs are always bound.  Only the summary of the
 * described topology is kept; binding needs the host, whose cores' cpusets
 * are computed once at load so that topology_bind_cores(), called in a
 * forked child just before exec, only combines bitmaps and makes one call.
 *
 * Mapping: described core i (hwloc logical index) -> host core
 * (i mod host_cores) -> all PUs of that host core.  The host topology is
 * restricted to the CPUs this process may use (hwloc's default), so a host
 * "core" here is one with at least one allowed PU.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "common/error.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "noded/gpu_find.h"
#include "noded/topology.h"

struct topology {
	struct topology_summary summary;
	hwloc_topology_t host;	 /* the real machine, for binding */
	unsigned host_ncores;	 /* entries of host_cores, at least 1 */
	hwloc_bitmap_t *host_cores; /* PUs of each host core (logical order) */
};

/* Total local memory of the NUMA nodes, else what the root says. */
static uint64_t memory_bytes(hwloc_topology_t t)
{
	hwloc_obj_t numa = NULL;
	uint64_t total = 0;

	while ((numa = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE,
						  numa)))
		total += numa->attr->numanode.local_memory;
	if (!total)
		total = hwloc_get_root_obj(t)->total_memory;
	return total;
}

static bool has_openfabrics(hwloc_topology_t t)
{
	hwloc_obj_t osdev = NULL;

	while ((osdev = hwloc_get_next_osdev(t, osdev)))
		if (osdev->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS)
			return true;
	return false;
}

static void summarize(hwloc_topology_t t, struct topology_summary *sum)
{
	int sockets = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
	int cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
	int pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);

	sum->sockets = sockets > 0 ? (unsigned)sockets : 1;
	sum->pus = pus > 0 ? (unsigned)pus : 0;
	sum->cores = cores > 0 ? (unsigned)cores : sum->pus;
	sum->memory_mb = memory_bytes(t) / (1024 * 1024);
	sum->has_ib = has_openfabrics(t);
	sum->ngpus = gpus_find(t, &sum->gpus);
}

/*
 * Open and load one topology: the host when 'xml_path' is NULL; with
 * 'with_io', PCI and OS devices are kept.  On failure returns -errno with
 * 'err' naming what failed.
 */
static int load_one(const char *xml_path, bool with_io, hwloc_topology_t *out,
		    struct rota_error *err)
{
	const char *what = xml_path ? xml_path : "host";
	hwloc_topology_t t;
	int e;

	*out = NULL;
	if (hwloc_topology_init(&t) < 0)
		return rota_errorf(err, -ENOMEM, "topology: hwloc init: %s",
				   strerror(errno));
	if (with_io)
		hwloc_topology_set_io_types_filter(
			t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	if (xml_path && hwloc_topology_set_xml(t, xml_path) < 0) {
		e = errno ? errno : EINVAL;
		hwloc_topology_destroy(t);
		return rota_errorf(err, -EINVAL,
				   "topology '%s': cannot read XML: %s", what,
				   strerror(e));
	}
	if (hwloc_topology_load(t) < 0) {
		e = errno ? errno : EINVAL;
		hwloc_topology_destroy(t);
		return rota_errorf(err, xml_path ? -EINVAL : -e,
				   "topology '%s': cannot load: %s", what,
				   strerror(e));
	}
	if (hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU) <= 0) {
		hwloc_topology_destroy(t);
		return rota_errorf(err, -EINVAL, "topology '%s': no PU found",
				   what);
	}
	*out = t;
	return 0;
}

/* Cpusets of the host's cores, or of its PUs when it reports no cores. */
static void index_host_cores(struct topology *topo)
{
	hwloc_obj_type_t type = HWLOC_OBJ_CORE;
	hwloc_obj_t obj;
	int n;

	n = hwloc_get_nbobjs_by_type(topo->host, type);
	if (n <= 0) {
		type = HWLOC_OBJ_PU;
		n = hwloc_get_nbobjs_by_type(topo->host, type);
	}
	topo->host_ncores = (unsigned)n;
	topo->host_cores = rota_xcalloc(n, sizeof(*topo->host_cores));
	for (int i = 0; i < n; i++) {
		obj = hwloc_get_obj_by_type(topo->host, type, i);
		topo->host_cores[i] = hwloc_bitmap_dup(obj->cpuset);
		if (!topo->host_cores[i])
			rota_fatal("out of memory");
	}
}

int topology_load(const char *xml_path, struct topology **out,
		  struct rota_error *err)
{
	struct topology *topo;
	hwloc_topology_t desc = NULL;
	int rc;

	*out = NULL;
	rota_error_clear(err);
	if (xml_path) {
		rc = load_one(xml_path, true, &desc, err);
		if (rc < 0)
			return rc;
	}
	topo = rota_xcalloc(1, sizeof(*topo));
	/* The host needs its I/O devices only when it is also described. */
	rc = load_one(NULL, !desc, &topo->host, err);
	if (rc < 0) {
		if (desc)
			hwloc_topology_destroy(desc);
		free(topo);
		return rc;
	}
	summarize(desc ? desc : topo->host, &topo->summary);
	if (desc)
		hwloc_topology_destroy(desc);
	index_host_cores(topo);
	*out = topo;
	return 0;
}

void topology_destroy(struct topology *topo)
{
	if (!topo)
		return;
	for (unsigned i = 0; i < topo->host_ncores; i++)
		hwloc_bitmap_free(topo->host_cores[i]);
	free(topo->host_cores);
	gpus_free(topo->summary.gpus, topo->summary.ngpus);
	hwloc_topology_destroy(topo->host);
	free(topo);
}

const struct topology_summary *topology_summary(const struct topology *topo)
{
	return &topo->summary;
}

/*
 * The union of the host PUs for 'cores', or NULL with -EINVAL in 'err' when
 * one is out of range.  Caller frees with hwloc_bitmap_free().
 */
static hwloc_bitmap_t host_set(const struct topology *topo,
			       const unsigned *cores, size_t n,
			       struct rota_error *err)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();

	if (!set)
		rota_fatal("out of memory");
	for (size_t i = 0; i < n; i++) {
		if (cores[i] >= topo->summary.cores) {
			rota_errorf(err, -EINVAL,
				    "core %u out of range (node has %u)",
				    cores[i], topo->summary.cores);
			hwloc_bitmap_free(set);
			return NULL;
		}
		hwloc_bitmap_or(set, set,
				topo->host_cores[cores[i] % topo->host_ncores]);
	}
	return set;
}

int topology_bind_cores(const struct topology *topo, const unsigned *cores,
			size_t n, struct rota_error *err)
{
	hwloc_bitmap_t set;
	int e;

	set = host_set(topo, cores, n, err);
	if (!set)
		return -EINVAL;
	if (hwloc_bitmap_iszero(set)) {
		hwloc_bitmap_free(set);
		return rota_errorf(err, -EINVAL, "no core to bind to");
	}
	if (hwloc_set_cpubind(topo->host, set, HWLOC_CPUBIND_PROCESS) < 0) {
		e = errno ? errno : EINVAL;
		hwloc_bitmap_free(set);
		return rota_errorf(err, -e, "bind to cores: %s", strerror(e));
	}
	hwloc_bitmap_free(set);
	return 0;
}

int topology_cpu_mask(const struct topology *topo, const unsigned *cores,
		      size_t n, cpu_set_t **mask, size_t *size,
		      struct rota_error *err)
{
	hwloc_bitmap_t set;
	unsigned pu;
	int last;

	*mask = NULL;
	*size = 0;
	set = host_set(topo, cores, n, err);
	if (!set)
		return -EINVAL;
	last = hwloc_bitmap_last(set);
	if (hwloc_bitmap_iszero(set) || last < 0) {
		hwloc_bitmap_free(set);
		return rota_errorf(err, -EINVAL, "no core to bind to");
	}
	*mask = CPU_ALLOC((size_t)last + 1);
	if (!*mask)
		rota_fatal("out of memory");
	*size = CPU_ALLOC_SIZE((size_t)last + 1);
	CPU_ZERO_S(*size, *mask);
	hwloc_bitmap_foreach_begin(pu, set)
		CPU_SET_S(pu, *size, *mask);
	hwloc_bitmap_foreach_end();
	hwloc_bitmap_free(set);
	return 0;
}

/*
 * hwloc's list format ("0-1,4") is the kernel's Cpus_allowed_list format.
 * Returns NULL when a core is out of range (topology_bind_cores() would
 * refuse it with -EINVAL).
 */
char *topology_host_cpulist(const struct topology *topo, const unsigned *cores,
			    size_t n)
{
	hwloc_bitmap_t set;
	char *list = NULL;

	set = host_set(topo, cores, n, NULL);
	if (!set)
		return NULL;
	if (hwloc_bitmap_list_asprintf(&list, set) < 0 || !list)
		rota_fatal("out of memory");
	hwloc_bitmap_free(set);
	return list;
}
