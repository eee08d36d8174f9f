// SPDX-License-Identifier: MIT
/*
 * Codecs of the advance reservation messages (see msg.h): RESV_CREATE
 * carries the operator's key=value words untouched, so that the one
 * parser of them is the controller's and every client says the same;
 * RESV_LIST_REPLY is the table as rota resv list shows it.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/msg_internal.h"
#include "common/xalloc.h"

#define RESV_NAMES_MAX 4096	/* users or accounts of one reservation */

char *rota_msg_resv_create_encode(const struct rota_msg_resv_create *m,
				  size_t *len)
{
	return msg_dump(json_pack("{s:o}", "set",
				  msg_kv_pack(m->set, m->nset)),
			len);
}

int rota_msg_resv_create_decode(const char *buf, size_t len,
				struct rota_msg_resv_create *m,
				struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	json_t *set = NULL;
	int rc;

	*m = (struct rota_msg_resv_create){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:o !}", "set", &set);
	if (rc == 0)
		/* a long Nodes= or Users= list is no malformed frame */
		rc = msg_kv_unpack(set, ROTA_MSG_RESV_SET_MAX,
				   ROTA_MSG_PATH_MAX, &m->set, &m->nset, err);
	json_decref(root);
	if (rc < 0)
		rota_msg_resv_create_clear(m);
	return rc;
}

void rota_msg_resv_create_clear(struct rota_msg_resv_create *m)
{
	msg_kv_free(m->set, m->nset);
	*m = (struct rota_msg_resv_create){ 0 };
}

static json_t *resv_pack(const struct rota_resv_info *r)
{
	json_t *o = json_pack(
		"{s:s, s:s, s:I, s:I, s:s, s:I, s:I, s:o, s:o}", "name",
		r->name, "state", r->state, "start", (json_int_t)r->start,
		"end", (json_int_t)r->end, "nodes", r->nodes, "cores",
		(json_int_t)r->cores, "core_count", (json_int_t)r->core_count,
		"users", msg_strv_pack(r->users), "accounts",
		msg_strv_pack(r->accounts));

	if (r->gpus)
		json_object_set_new(o, "gpus", json_integer(r->gpus));
	if (r->gpu_count)
		json_object_set_new(o, "gpu_count", json_integer(r->gpu_count));
	if (r->licenses)
		json_object_set_new(o, "licenses", json_string(r->licenses));
	return o;
}

char *rota_msg_resv_list_encode(const struct rota_msg_resv_list *m,
				size_t *len)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < m->n; i++)
		json_array_append_new(arr, resv_pack(&m->resvs[i]));
	return msg_dump(json_pack("{s:I, s:o}", "now", (json_int_t)m->now,
				  "resvs", arr),
			len);
}

static void resv_info_clear(struct rota_resv_info *r)
{
	free(r->name);
	free(r->state);
	free(r->nodes);
	free(r->licenses);
	msg_strv_free(r->users);
	msg_strv_free(r->accounts);
	*r = (struct rota_resv_info){ 0 };
}

static int resv_unpack(json_t *o, struct rota_resv_info *r,
		       struct rota_error *err)
{
	const char *name, *state, *nodes, *lics = NULL;
	json_int_t start, end, cores, count, gpus = 0, gcount = 0;
	json_t *users, *accounts;
	int rc = msg_unpack(
		o, err,
		"{s:s, s:s, s:I, s:I, s:s, s:I, s:I, s:o, s:o, s?I, s?I, "
		"s?s !}",
		"name", &name, "state", &state, "start", &start, "end", &end,
		"nodes", &nodes, "cores", &cores, "core_count", &count,
		"users", &users, "accounts", &accounts, "gpus", &gpus,
		"gpu_count", &gcount, "licenses", &lics);

	if (rc == 0)
		rc = msg_range(cores, 0, UINT32_MAX, "cores", err);
	if (rc == 0)
		rc = msg_range(gpus, 0, UINT32_MAX, "gpus", err);
	if (rc == 0)
		rc = msg_range(gcount, 0, UINT32_MAX, "gpu_count", err);
	if (rc == 0)
		rc = msg_range(count, 0, UINT32_MAX, "core_count", err);
	if (rc == 0)
		rc = msg_str(name, ROTA_MSG_NAME_MAX, "name", &r->name, err);
	if (rc == 0)
		rc = msg_str(state, 16, "state", &r->state, err);
	if (rc == 0)
		rc = msg_str(lics, ROTA_MSG_NAME_MAX, "licenses", &r->licenses,
			     err);
	if (rc == 0)
		rc = msg_str(nodes, ROTA_MSG_PATH_MAX, "nodes", &r->nodes,
			     err);
	if (rc == 0)
		rc = msg_strv(users, RESV_NAMES_MAX, ROTA_MSG_NAME_MAX,
			      "users", &r->users, err);
	if (rc == 0)
		rc = msg_strv(accounts, RESV_NAMES_MAX, ROTA_MSG_NAME_MAX,
			      "accounts", &r->accounts, err);
	r->start = start;
	r->end = end;
	r->cores = (uint32_t)cores;
	r->core_count = (uint32_t)count;
	r->gpus = (uint32_t)gpus;
	r->gpu_count = (uint32_t)gcount;
	return rc;
}

int rota_msg_resv_list_decode(const char *buf, size_t len,
			      struct rota_msg_resv_list *m,
			      struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	json_t *arr = NULL;
	json_int_t now = 0;
	size_t n;
	int rc;

	*m = (struct rota_msg_resv_list){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_now_list(root, "resvs", 65536, &now, &arr, &n, err);
	if (rc == 0)
		m->resvs = rota_xcalloc(n + 1, sizeof(*m->resvs));
	for (size_t i = 0; rc == 0 && i < n; i++) {
		m->n = i + 1;
		rc = resv_unpack(json_array_get(arr, i), &m->resvs[i], err);
	}
	m->now = now;
	json_decref(root);
	if (rc < 0)
		rota_msg_resv_list_clear(m);
	return rc;
}

void rota_msg_resv_list_clear(struct rota_msg_resv_list *m)
{
	for (size_t i = 0; i < m->n; i++)
		resv_info_clear(&m->resvs[i]);
	free(m->resvs);
	*m = (struct rota_msg_resv_list){ 0 };
}
