/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_GPU_ENV_H
#define ROTA_COMMON_GPU_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What tells a job's programs which GPUs of a node are theirs: the
 * node's indexes (bus order, as the node numbers them) in the variable
 * of each vendor's runtime, and CUDA told to count in bus order too.
 * The batch script's (the controller's launch) and every job step's
 * task (the node daemon, from its credential) get the same set, so a
 * step on another node sees that node's GPUs, not the first node's.
 */
#define ROTA_GPU_ENV_MAX 6

/* "NAME=..." one of the variables above? (the submitter's are dropped) */
bool rota_gpu_env_var(const char *kv);

/* The variables for 'gpus', malloc'ed into env[0..]; returns how many
   (ROTA_GPU_ENV_MAX; 0 when n is 0). */
size_t rota_gpu_env(const uint32_t *gpus, size_t n, char **env);

#endif
