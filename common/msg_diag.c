// SPDX-License-Identifier: MIT
/* The DIAG_REPLY codec: named counters (see msg.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/msg_internal.h"
#include "common/xalloc.h"

char *rota_msg_counters_encode(char *const *names, const int64_t *values,
			       size_t n, size_t *len)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, json_pack("[s, I]", names[i],
						     (json_int_t)values[i]));
	return msg_dump(json_pack("{s:o}", "counters", arr), len);
}

static bool good_name(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++) {
		if (!(*s >= 'a' && *s <= 'z') && *s != '_')
			return false;
	}
	return true;
}

int rota_msg_counters_decode(const char *buf, size_t len,
			     struct rota_msg_counters *m,
			     struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	json_t *arr = NULL;
	size_t n = 0;
	int rc;

	*m = (struct rota_msg_counters){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:o !}", "counters", &arr);
	if (rc == 0 && (!json_is_array(arr) || json_array_size(arr) > 1024))
		rc = rota_errorf(err, -EPROTO, "counters: not a short list");
	if (rc == 0) {
		n = json_array_size(arr);
		m->names = rota_xcalloc(n + 1, sizeof(char *));
		m->values = rota_xcalloc(n + 1, sizeof(int64_t));
	}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const char *name = NULL;
		json_int_t v = 0;

		if (json_unpack(json_array_get(arr, i), "[s, I !]", &name,
				&v) < 0 ||
		    !good_name(name))
			rc = rota_errorf(err, -EPROTO, "counter %zu: bad", i);
		else {
			m->names[i] = rota_xstrdup(name);
			m->values[i] = v;
			m->n++;
		}
	}
	json_decref(root);
	if (rc < 0)
		rota_msg_counters_clear(m);
	return rc;
}

void rota_msg_counters_clear(struct rota_msg_counters *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->names[i]);
	free(m->names);
	free(m->values);
	*m = (struct rota_msg_counters){ 0 };
}
