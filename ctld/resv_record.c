// SPDX-License-Identifier: MIT
/*
 * The journal's reservation records (see resv_record.h).  A reservation is
 * written whole when it is created and its name when it is deleted, both
 * before the operator hears back; the snapshot holds every reservation
 * ahead of the jobs, so a running job of one counts in it again on replay.
 * Parts name their nodes: rota.conf may reorder them between runs.
 */
#include "config.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "ctld/resv_record.h"

#define NAMES_MAX 4096	/* users or accounts in one record */

static json_t *names_pack(char *const *v)
{
	json_t *arr = json_array();

	for (size_t i = 0; v && v[i]; i++)
		json_array_append_new(arr, json_string(v[i]));
	return arr;
}

static char *dump(json_t *o, size_t *len)
{
	char *text = json_dumps(o, JSON_COMPACT);

	json_decref(o);
	if (!text)
		rota_fatal("out of memory encoding a reservation record");
	*len = strlen(text);
	return text;
}

char *resv_record_encode(const struct core *core, const struct core_resv *r,
			 size_t *len)
{
	json_t *parts = json_array();
	json_t *o;

	for (uint32_t i = 0; i < r->nparts; i++) {
		const struct core_resv_part *p = &r->parts[i];
		json_t *part = json_pack("[s, I]",
					 core_node_get(core, p->node)->name,
					 (json_int_t)(p->whole ? 0 : p->cores));

		/* a third number only with GPUs: older records have none */
		if (!p->whole && p->gpus)
			json_array_append_new(
				part, json_integer((json_int_t)p->gpus));
		json_array_append_new(parts, part);
	}
	o = json_pack("{s:s, s:I, s:s, s:I, s:I, s:I, s:o}", "kind", "resv",
		      "id", (json_int_t)r->id, "name", r->name, "start",
		      (json_int_t)r->start, "end", (json_int_t)r->end,
		      "core_count", (json_int_t)r->core_count, "parts", parts);
	if (r->gpu_count)
		json_object_set_new(o, "gpu_count",
				    json_integer((json_int_t)r->gpu_count));
	if (r->nlics) {
		char *lics = core_resv_licenses_text(core, r);

		json_object_set_new(o, "licenses", json_string(lics));
		free(lics);
	}
	if (r->users)
		json_object_set_new(o, "users", names_pack(r->users));
	if (r->accounts)
		json_object_set_new(o, "accounts", names_pack(r->accounts));
	return dump(o, len);
}

char *resv_record_delete(const char *name, size_t *len)
{
	return dump(json_pack("{s:s, s:s}", "kind", "resv_delete", "name",
			      name),
		    len);
}

int resv_record_is_kind(const char *kind)
{
	return strcmp(kind, "resv") == 0 || strcmp(kind, "resv_delete") == 0;
}

/* A list of names, NULL when absent; -EINVAL when not one. */
static int names_unpack(json_t *arr, char ***out)
{
	size_t n = json_array_size(arr);

	*out = NULL;
	if (!arr)
		return 0;
	if (!json_is_array(arr) || n > NAMES_MAX)
		return -EINVAL;
	*out = rota_xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		const char *s = json_string_value(json_array_get(arr, i));

		if (!s || strlen(s) > ROTA_MSG_NAME_MAX)
			return -EINVAL; /* the caller frees what is there */
		(*out)[i] = rota_xstrdup(s);
	}
	return 0;
}

static void names_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

struct parts_in {
	const char **nodes;
	uint32_t *cores;
	uint32_t *gpus;
	uint32_t n;
};

static int parts_unpack(json_t *arr, struct parts_in *p)
{
	size_t n = json_array_size(arr);

	if (!json_is_array(arr) || n > 65536)
		return -EINVAL;
	p->nodes = rota_xcalloc(n + 1, sizeof(*p->nodes));
	p->cores = rota_xcalloc(n + 1, sizeof(*p->cores));
	p->gpus = rota_xcalloc(n + 1, sizeof(*p->gpus));
	for (size_t i = 0; i < n; i++) {
		json_t *part = json_array_get(arr, i);
		json_int_t c, g = 0;
		int rc = json_array_size(part) == 3
				 ? json_unpack(part, "[s, I, I !]",
					       &p->nodes[i], &c, &g)
				 : json_unpack(part, "[s, I !]", &p->nodes[i],
					       &c);

		if (rc < 0 || c < 0 || c > 1 << 20 || g < 0 || g > 1 << 20)
			return -EINVAL;
		p->cores[i] = (uint32_t)c;
		p->gpus[i] = (uint32_t)g;
	}
	p->n = (uint32_t)n;
	return 0;
}

static int apply_resv(struct core *core, json_t *o, struct rota_error *err)
{
	struct core_resv_state st = { 0 };
	struct parts_in p = { 0 };
	json_int_t id, start, end, count, gcount = 0;
	json_t *parts, *users = NULL, *accounts = NULL;
	char **u = NULL, **a = NULL;
	const char *kind;
	int rc;

	rc = json_unpack(o,
			 "{s:s, s:I, s:s, s:I, s:I, s:I, s:o, s?o, s?o, s?I, "
			 "s?s !}",
			 "kind", &kind, "id", &id, "name", &st.name, "start",
			 &start, "end", &end, "core_count", &count, "parts",
			 &parts, "users", &users, "accounts", &accounts,
			 "gpu_count", &gcount, "licenses", &st.licenses);
	if (rc == 0 && (id <= 0 || id > UINT32_MAX || count < 0 ||
			count > 1 << 30 || gcount < 0 || gcount > 1 << 30))
		rc = -EINVAL;
	if (rc == 0)
		rc = parts_unpack(parts, &p);
	if (rc == 0)
		rc = names_unpack(users, &u);
	if (rc == 0)
		rc = names_unpack(accounts, &a);
	if (rc < 0) {
		rc = rota_errorf(err, -EINVAL, "malformed reservation record");
	} else {
		st.id = (uint32_t)id;
		st.start = start;
		st.end = end;
		st.core_count = (uint32_t)count;
		st.gpu_count = (uint32_t)gcount;
		st.users = u;
		st.accounts = a;
		st.nodes = p.nodes;
		st.cores = p.cores;
		st.gpus = p.gpus;
		st.nparts = p.n;
		rc = core_resv_restore(core, &st, err);
	}
	names_free(u);
	names_free(a);
	free(p.nodes);
	free(p.cores);
	free(p.gpus);
	return rc;
}

int resv_record_apply(struct core *core, const char *rec, size_t len,
		      struct rota_error *err)
{
	json_error_t jerr;
	json_t *o = json_loadb(rec, len, JSON_REJECT_DUPLICATES, &jerr);
	const char *kind = NULL;
	const char *name = NULL;
	struct rota_error why;
	int rc;

	if (!o || json_unpack(o, "{s:s}", "kind", &kind) < 0) {
		json_decref(o);
		return rota_errorf(err, -EINVAL, "malformed record");
	}
	if (strcmp(kind, "resv") == 0) {
		rc = apply_resv(core, o, err);
	} else if (json_unpack(o, "{s:s, s:s !}", "kind", &kind, "name",
			       &name) == 0) {
		/* it may have ended, unrecorded, before it was deleted */
		core_resv_delete(core, 0, name, &why);
		rc = 0;
	} else {
		rc = rota_errorf(err, -EINVAL, "malformed reservation record");
	}
	json_decref(o);
	return rc;
}
