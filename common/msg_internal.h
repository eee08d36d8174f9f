/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_MSG_INTERNAL_H
#define ROTA_COMMON_MSG_INTERNAL_H

/* Shared by the common/msg_*.c codecs only: jansson stays inside them. */

#include <jansson.h>
#include <stdint.h>

#include "common/error.h"

/* Parse an object (duplicates refused); NULL with -EPROTO text in 'err'. */
json_t *msg_parse(const char *buf, size_t len, struct rota_error *err);
/* json_vunpack_ex; -EPROTO with jansson's text on failure. */
int msg_unpack(json_t *root, struct rota_error *err, const char *fmt, ...);
/* Dump compactly and release 'root'; caller frees the text. */
char *msg_dump(json_t *root, size_t *len);

/* Copy a borrowed string of at most 'max' bytes (NULL stays NULL). */
int msg_str(const char *in, size_t max, const char *field, char **out,
	    struct rota_error *err);
/* An array of strings into a NULL-terminated vector (NULL -> empty). */
int msg_strv(json_t *arr, size_t max_n, size_t max_len, const char *field,
	     char ***out, struct rota_error *err);
json_t *msg_strv_pack(char *const *v);
void msg_strv_free(char **v);
/*
 * "tasks" of a body that names jobs: NULL (absent), or one array-task
 * expression per job ("" for the whole job), exactly 'n' of them.
 */
int msg_tasks_unpack(json_t *arr, size_t n, char ***out,
		     struct rota_error *err);
/* An array of unsigned 32-bit ints. */
int msg_u32v(json_t *arr, size_t max_n, const char *field, uint32_t **out,
	     size_t *n, struct rota_error *err);
json_t *msg_u32v_pack(const uint32_t *v, size_t n);
/* A node's GPU indexes ("gpus": LAUNCH's, a step credential's): each
   below ROTA_MSG_GPUS_MAX, as the node's own list is. */
int msg_gpus(json_t *arr, uint32_t **out, size_t *n, struct rota_error *err);
/*
 * key=value pairs as [["key","value"],...] (UPDATE's "set", RESV_CREATE's):
 * at most 'max' pairs, keys non-empty and of ROTA_MSG_CONTROL_KEY_MAX
 * bytes at most; on failure '*out' holds what was read (free it with
 * msg_kv_free).
 */
struct rota_msg_kv;
/* At most 'max' pairs, values of at most 'value_max' bytes. */
int msg_kv_unpack(json_t *arr, size_t max, size_t value_max,
		  struct rota_msg_kv **out, size_t *n, struct rota_error *err);
json_t *msg_kv_pack(const struct rota_msg_kv *kv, size_t n);
void msg_kv_free(struct rota_msg_kv *kv, size_t n);
/*
 * A list reply's {"now":N,"<key>":[...]} and nothing else: '*arr' and
 * its size '*n' (at most 'max'); -EPROTO with 'err'.
 */
int msg_now_list(json_t *root, const char *key, size_t max, json_int_t *now,
		 json_t **arr, size_t *n, struct rota_error *err);
/* A finite json number (an integer counts) into '*out'; -EPROTO. */
int msg_real(json_t *v, const char *field, double *out,
	     struct rota_error *err);
/* A json integer in [lo, hi]. */
int msg_range(json_int_t v, json_int_t lo, json_int_t hi, const char *field,
	      struct rota_error *err);
/*
 * Tables of msg_str and msg_range checks, for decoders with many fields:
 * the first failure's code (its text in 'err'), or 0.  Strings copied
 * before a failure stay in their '*out' for the caller's clear.
 */
struct msg_str_field {
	const char *field;
	const char *in;
	char **out;
	size_t max;
};
int msg_strs(const struct msg_str_field *s, size_t n, struct rota_error *err);
struct msg_range_field {
	const char *field;
	json_int_t v, lo, hi;
};
int msg_ranges(const struct msg_range_field *r, size_t n,
	       struct rota_error *err);

#endif
