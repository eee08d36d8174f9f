/* SPDX-License-Identifier: MIT */
#ifndef ROTA_NODED_GPU_FIND_H
#define ROTA_NODED_GPU_FIND_H

#include <stddef.h>

#include <hwloc.h>

#include "common/msg.h"
#include "noded/topology.h"

/*
 * The GPUs of 't' (which must have been loaded with its I/O devices), in
 * PCI bus order; '*out' is NULL when there are none.  Free with
 * gpus_free().
 */
size_t gpus_find(hwloc_topology_t t, struct topology_gpu **out);
void gpus_free(struct topology_gpu *v, size_t n);

/*
 * The GPUs of 't' as a registration carries them; the strings are
 * borrowed from 't', the array is the caller's to free().
 */
struct rota_gpu_info *gpus_wire(const struct topology_summary *t);

/*
 * The short type Slurm sites name a model by: its first word that is not
 * a maker's or a brand's, lowercase, up to its first '-' ("Tesla
 * V100-SXM3-32GB-H" -> "v100", "NVIDIA A100-SXM4-80GB" -> "a100", "AMD
 * Instinct MI250X" -> "mi250x"); "" when the model names none.
 */
void gpu_type_of(const char *model, char *type, size_t len);

/*
 * The cgroup v1 devices.deny rules that keep a job from the node's GPUs
 * other than 'mine' (n of them, the node's indexes): NULL-terminated,
 * empty for a job without GPUs.  Free with gpus_deny_free().
 */
char **gpus_deny_rules(const struct topology_summary *t, const uint32_t *mine,
		       size_t n);
void gpus_deny_free(char **rules);

#endif
