// SPDX-License-Identifier: MIT
/*
 * The node's GPUs, read from its hwloc topology (topology.h).
 *
 * A GPU is a PCI device that is either a 3D or other display controller
 * (class 0302 or 0380: what NVIDIA's and AMD's compute cards report), or
 * any display controller under which hwloc found a compute OS device
 * (CUDA, NVML, OpenCL, RSMI, Level Zero: GPU or co-processor OS devices).
 * A plain VGA controller (0300) with no such device is the console's
 * (a server's BMC graphics: Matrox G200, ASPEED), not a GPU; Slurm's
 * AutoDetect does not count those either.  One PCI device is one GPU,
 * however many OS devices (cuda0, nvml0, opencl0d0) stand for it.
 *
 * GPUs are numbered in PCI bus order, the order of CUDA_DEVICE_ORDER=
 * PCI_BUS_ID and of nvidia-smi, so that index i is the i-th device the
 * job's CUDA_VISIBLE_DEVICES names.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/gpu_find.h"

/* A compute OS device (CUDA, NVML, OpenCL, ...) under 'pci', if any. */
static hwloc_obj_t compute_osdev(hwloc_obj_t pci)
{
	for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling) {
		if (c->type != HWLOC_OBJ_OS_DEVICE)
			continue;
		if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_GPU ||
		    c->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC)
			return c;
	}
	return NULL;
}

static bool is_gpu(hwloc_obj_t pci)
{
	unsigned cls = pci->attr->pcidev.class_id;

	if (cls == 0x0302 || cls == 0x0380)
		return true;
	return (cls >> 8) == 0x03 && compute_osdev(pci);
}

/*
 * The model: an OS device's GPUModel, else the PCI device's name, else
 * its vendor and device ids as lspci -nn writes them ("[10de:06d2]").
 */
static void model_of(hwloc_obj_t pci, char *buf, size_t len)
{
	const char *m = NULL;

	for (hwloc_obj_t c = pci->io_first_child; c && !m; c = c->next_sibling)
		if (c->type == HWLOC_OBJ_OS_DEVICE)
			m = hwloc_obj_get_info_by_name(c, "GPUModel");
	if (!m)
		m = hwloc_obj_get_info_by_name(pci, "PCIDevice");
	if (m)
		snprintf(buf, len, "%s", m);
	else
		snprintf(buf, len, "[%04x:%04x]", pci->attr->pcidev.vendor_id,
			 pci->attr->pcidev.device_id);
}

static bool vendor_word(const char *w, size_t n)
{
	static const char *const words[] = {
		"nvidia", "tesla", "geforce", "quadro", "amd",	"ati",
		"radeon", "instinct", "intel", "data",	"center", "gpu",
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (strlen(words[i]) == n && !strncasecmp(w, words[i], n))
			return true;
	return false;
}

void gpu_type_of(const char *model, char *type, size_t len)
{
	const char *p = model;

	type[0] = '\0';
	while (*p) {
		size_t n = 0, k = 0;

		while (*p == ' ')
			p++;
		while (p[n] && p[n] != ' ')
			n++;
		/* a word's letters and digits: "V100-SXM3" -> "V100" */
		while (k < n && isalnum((unsigned char)p[k]))
			k++;
		if (k && !vendor_word(p, k)) {
			if (k >= len)
				k = len - 1;
			for (size_t i = 0; i < k; i++)
				type[i] = (char)tolower((unsigned char)p[i]);
			type[k] = '\0';
			return;
		}
		p += n;
	}
}

/* The described topology's cores (logical indexes) near 'pci'. */
static char *near_cores(hwloc_topology_t t, hwloc_obj_t pci, unsigned *numa)
{
	hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(t, pci);
	hwloc_obj_type_t type = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE) > 0
					? HWLOC_OBJ_CORE
					: HWLOC_OBJ_PU;
	hwloc_bitmap_t near = hwloc_bitmap_alloc();
	hwloc_obj_t c = NULL;
	char *list = NULL;
	int first;

	if (!near)
		rota_fatal("out of memory");
	while ((c = hwloc_get_next_obj_by_type(t, type, c)))
		if (anc && anc->cpuset &&
		    hwloc_bitmap_isincluded(c->cpuset, anc->cpuset))
			hwloc_bitmap_set(near, c->logical_index);
	first = anc && anc->nodeset ? hwloc_bitmap_first(anc->nodeset) : -1;
	*numa = first >= 0 ? (unsigned)first : 0;
	if (hwloc_bitmap_list_asprintf(&list, near) < 0)
		rota_fatal("out of memory");
	hwloc_bitmap_free(near);
	return list;
}

static int by_bus(const void *a, const void *b)
{
	const struct topology_gpu *x = a, *y = b;

	return strcmp(x->busid, y->busid);
}

size_t gpus_find(hwloc_topology_t t, struct topology_gpu **out)
{
	struct topology_gpu *v = NULL;
	size_t n = 0, cap = 0;
	hwloc_obj_t pci = NULL;

	while ((pci = hwloc_get_next_pcidev(t, pci))) {
		const struct hwloc_pcidev_attr_s *a = &pci->attr->pcidev;
		struct topology_gpu *g;

		if (!is_gpu(pci))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			v = rota_xreallocarray(v, cap, sizeof(*v));
		}
		g = &v[n++];
		*g = (struct topology_gpu){ 0 };
		snprintf(g->busid, sizeof(g->busid), "%04x:%02x:%02x.%01x",
			 a->domain, a->bus, a->dev, a->func);
		model_of(pci, g->model, sizeof(g->model));
		g->vendor = a->vendor_id;
		gpu_type_of(g->model, g->type, sizeof(g->type));
		g->cores = near_cores(t, pci, &g->numa);
	}
	if (n)
		qsort(v, n, sizeof(*v), by_bus);
	*out = v;
	return n;
}

void gpus_free(struct topology_gpu *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].cores);
	free(v);
}

struct rota_gpu_info *gpus_wire(const struct topology_summary *t)
{
	struct rota_gpu_info *v = rota_xcalloc(t->ngpus + 1, sizeof(*v));

	for (size_t i = 0; i < t->ngpus; i++) {
		struct topology_gpu *g = &t->gpus[i];

		v[i] = (struct rota_gpu_info){
			.type = g->type,
			.model = g->model,
			.busid = g->busid,
			.cores = g->cores,
			.numa = g->numa,
		};
	}
	return v;
}

/*
 * NVIDIA's GPUs are /dev/nvidiaN, char 195:N, N counting them in bus
 * order (the driver numbers them so); the others are DRM devices,
 * /dev/dri/cardN (226:N) and renderD(128+N) (226:128+N), N counting
 * those.  /dev/nvidiactl, nvidia-uvm and the like stay open to every job.
 */
char **gpus_deny_rules(const struct topology_summary *t, const uint32_t *mine,
		       size_t n)
{
	char **rules = rota_xcalloc(2 * t->ngpus + 1, sizeof(char *));
	unsigned nv = 0, drm = 0;
	size_t k = 0;

	if (!n) /* a job without GPUs: none are denied (a job of no GPUs
		   on a GPU node is the site's choice, as in Slurm) */
		return rules;
	for (size_t i = 0; i < t->ngpus; i++) {
		bool is_nv = t->gpus[i].vendor == 0x10de;
		unsigned minor = is_nv ? nv++ : drm++;
		bool own = false;

		for (size_t j = 0; j < n && !own; j++)
			own = mine[j] == i;
		if (own)
			continue;
		if (is_nv) {
			rules[k++] = rota_xasprintf("c 195:%u rwm", minor);
			continue;
		}
		rules[k++] = rota_xasprintf("c 226:%u rwm", minor);
		rules[k++] = rota_xasprintf("c 226:%u rwm", 128 + minor);
	}
	return rules;
}

void gpus_deny_free(char **rules)
{
	for (char **r = rules; r && *r; r++)
		free(*r);
	free(rules);
}
