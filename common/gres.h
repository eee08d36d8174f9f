/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_GRES_H
#define ROTA_COMMON_GRES_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/*
 * Generic resources as Slurm spells them, in rota.conf's node lines
 * (Gres=gpu:v100:16,nvme:2) and in requests (--gres=gpu:v100:2):
 * NAME[:TYPE][:COUNT], comma-separated.  COUNT defaults to 1; a TYPE is
 * never all digits (so "gpu:2" is two GPUs of any type).  Names and types
 * are up to ROTA_GRES_NAME_MAX characters of letters, digits, '_' and
 * '-', kept in lower case.
 */
#define ROTA_GRES_NAME_MAX 31
#define ROTA_GRES_COUNT_MAX 1000000

struct rota_gres {
	char name[ROTA_GRES_NAME_MAX + 1];  /* "gpu" */
	char type[ROTA_GRES_NAME_MAX + 1];  /* "v100"; "": any or none */
	uint32_t count;
};

/*
 * Parse 'text' into '*out' ('*n' entries, malloc'ed; NULL when 'text' is
 * empty).  A name twice with the same type is refused.  -EINVAL with a
 * one-line reason in 'err' ("'gpu:v100:x': count 'x' is not a number").
 */
int rota_gres_parse(const char *text, struct rota_gres **out, size_t *n,
		    struct rota_error *err);

/* "gpu:v100:16,nvme:2": the same spelling back; caller frees. */
char *rota_gres_text(const struct rota_gres *g, size_t n);

#endif
