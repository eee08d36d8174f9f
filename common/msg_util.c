// SPDX-License-Identifier: MIT
/*
 * Helpers for the codecs: every decoder checks shape with strict unpack
 * formats, then lengths and ranges here, before it allocates.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/msg_internal.h"
#include "common/xalloc.h"

json_t *msg_parse(const char *buf, size_t len, struct rota_error *err)
{
	json_error_t jerr;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);

	if (!root) {
		rota_errorf(err, -EPROTO, "malformed JSON: %s", jerr.text);
		return NULL;
	}
	if (!json_is_object(root)) {
		json_decref(root);
		rota_errorf(err, -EPROTO, "message body is not a JSON object");
		return NULL;
	}
	return root;
}

int msg_unpack(json_t *root, struct rota_error *err, const char *fmt, ...)
{
	json_error_t jerr;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = json_vunpack_ex(root, &jerr, 0, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return rota_errorf(err, -EPROTO, "bad message: %s", jerr.text);
	return 0;
}

char *msg_dump(json_t *root, size_t *len)
{
	char *text = json_dumps(root, JSON_COMPACT);

	json_decref(root);
	if (!text)
		rota_fatal("out of memory encoding a message");
	*len = strlen(text);
	return text;
}

int msg_str(const char *in, size_t max, const char *field, char **out,
	    struct rota_error *err)
{
	size_t n;

	*out = NULL;
	if (!in)
		return 0;
	n = strlen(in);
	if (n > max)
		return rota_errorf(err, -EPROTO, "%s: longer than %zu bytes",
				   field, max);
	*out = rota_xstrndup(in, n);
	return 0;
}

void msg_strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

int msg_tasks_unpack(json_t *arr, size_t n, char ***out,
		     struct rota_error *err)
{
	int rc;

	*out = NULL;
	if (!arr)
		return 0;
	rc = msg_strv(arr, n, ROTA_MSG_NAME_MAX, "tasks", out, err);
	if (rc == 0 && json_array_size(arr) != n) {
		msg_strv_free(*out);
		*out = NULL;
		rc = rota_errorf(err, -EPROTO, "tasks: not one per job");
	}
	return rc;
}

int msg_strv(json_t *arr, size_t max_n, size_t max_len, const char *field,
	     char ***out, struct rota_error *err)
{
	size_t n = arr ? json_array_size(arr) : 0;
	char **v;
	size_t i;

	*out = NULL;
	if (arr && !json_is_array(arr))
		return rota_errorf(err, -EPROTO, "%s: not an array", field);
	if (n > max_n)
		return rota_errorf(err, -EPROTO, "%s: more than %zu entries",
				   field, max_n);
	v = rota_xcalloc(n + 1, sizeof(*v));
	for (i = 0; i < n; i++) {
		json_t *e = json_array_get(arr, i);
		const char *s = json_string_value(e);

		if (!s || json_string_length(e) > max_len ||
		    strlen(s) != json_string_length(e)) {
			msg_strv_free(v);
			return rota_errorf(err, -EPROTO,
					   "%s: entry %zu is not a string of "
					   "at most %zu bytes",
					   field, i, max_len);
		}
		v[i] = rota_xstrdup(s);
	}
	*out = v;
	return 0;
}

json_t *msg_strv_pack(char *const *v)
{
	json_t *arr = json_array();

	for (; v && *v; v++)
		json_array_append_new(arr, json_string(*v));
	return arr;
}

int msg_gpus(json_t *arr, uint32_t **out, size_t *n, struct rota_error *err)
{
	int rc = msg_u32v(arr, ROTA_MSG_GPUS_MAX, "gpus", out, n, err);

	for (size_t i = 0; rc == 0 && i < *n; i++)
		if ((*out)[i] >= ROTA_MSG_GPUS_MAX)
			rc = rota_errorf(err, -EPROTO, "gpus: %u too high",
					 (*out)[i]);
	return rc;
}

int msg_u32v(json_t *arr, size_t max_n, const char *field, uint32_t **out,
	     size_t *n, struct rota_error *err)
{
	size_t len = arr ? json_array_size(arr) : 0;
	uint32_t *v;

	*out = NULL;
	*n = 0;
	if (arr && !json_is_array(arr))
		return rota_errorf(err, -EPROTO, "%s: not an array", field);
	if (len > max_n)
		return rota_errorf(err, -EPROTO, "%s: more than %zu entries",
				   field, max_n);
	v = rota_xcalloc(len ? len : 1, sizeof(*v));
	for (size_t i = 0; i < len; i++) {
		json_t *e = json_array_get(arr, i);
		json_int_t x = json_integer_value(e);

		if (!json_is_integer(e) || x < 0 || x > UINT32_MAX) {
			free(v);
			return rota_errorf(err, -EPROTO,
					   "%s: entry %zu is not a 32-bit "
					   "unsigned integer",
					   field, i);
		}
		v[i] = (uint32_t)x;
	}
	*out = v;
	*n = len;
	return 0;
}

json_t *msg_u32v_pack(const uint32_t *v, size_t n)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, json_integer(v[i]));
	return arr;
}

int msg_real(json_t *v, const char *field, double *out,
	     struct rota_error *err)
{
	if (!json_is_number(v) || !isfinite(json_number_value(v)))
		return rota_errorf(err, -EPROTO, "%s: not a number", field);
	*out = json_number_value(v);
	return 0;
}

int msg_range(json_int_t v, json_int_t lo, json_int_t hi, const char *field,
	      struct rota_error *err)
{
	if (v < lo || v > hi)
		return rota_errorf(err, -EPROTO,
				   "%s: %lld is outside [%lld, %lld]", field,
				   (long long)v, (long long)lo, (long long)hi);
	return 0;
}

int msg_kv_unpack(json_t *arr, size_t max, size_t value_max,
		  struct rota_msg_kv **out, size_t *n, struct rota_error *err)
{
	size_t len = json_array_size(arr);

	*out = NULL;
	*n = 0;
	if (!json_is_array(arr))
		return rota_errorf(err, -EPROTO, "set: not an array");
	if (len > max)
		return rota_errorf(err, -EPROTO, "set: more than %zu pairs",
				   max);
	*out = rota_xcalloc(len + 1, sizeof(**out));
	for (size_t i = 0; i < len; i++) {
		const char *k = NULL;
		const char *v = NULL;
		int rc = msg_unpack(json_array_get(arr, i), err, "[s, s !]",
				    &k, &v);

		if (rc == 0 && !*k)
			rc = rota_errorf(err, -EPROTO, "set: empty key");
		if (rc == 0)
			rc = msg_str(k, ROTA_MSG_CONTROL_KEY_MAX, "set key",
				     &(*out)[i].key, err);
		if (rc == 0)
			rc = msg_str(v, value_max, "set value",
				     &(*out)[i].value, err);
		*n = i + 1;
		if (rc < 0)
			return rc;
	}
	return 0;
}

json_t *msg_kv_pack(const struct rota_msg_kv *kv, size_t n)
{
	json_t *set = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(set, json_pack("[s, s]", kv[i].key,
						     kv[i].value));
	return set;
}

void msg_kv_free(struct rota_msg_kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

int msg_now_list(json_t *root, const char *key, size_t max, json_int_t *now,
		 json_t **arr, size_t *n, struct rota_error *err)
{
	int rc = msg_unpack(root, err, "{s:I, s:o !}", "now", now, key, arr);

	*n = 0;
	if (rc == 0 && !json_is_array(*arr))
		return rota_errorf(err, -EPROTO, "%s: not an array", key);
	if (rc == 0 && json_array_size(*arr) > max)
		return rota_errorf(err, -EPROTO, "%s: too many", key);
	if (rc == 0)
		*n = json_array_size(*arr);
	return rc;
}

int msg_strs(const struct msg_str_field *s, size_t n, struct rota_error *err)
{
	for (size_t i = 0; i < n; i++) {
		int rc = msg_str(s[i].in, s[i].max, s[i].field, s[i].out, err);

		if (rc < 0)
			return rc;
	}
	return 0;
}

int msg_ranges(const struct msg_range_field *r, size_t n,
	       struct rota_error *err)
{
	for (size_t i = 0; i < n; i++) {
		int rc = msg_range(r[i].v, r[i].lo, r[i].hi, r[i].field, err);

		if (rc < 0)
			return rc;
	}
	return 0;
}
