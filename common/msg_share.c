// SPDX-License-Identifier: MIT
/* The SHARE_REPLY codec: the fairshare tree, row by row (see msg.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/msg_internal.h"
#include "common/xalloc.h"

#define SHARE_ROWS_MAX (1u << 18) /* accounts and user lines of rota.conf */

static json_t *row_pack(const struct rota_share_row *r)
{
	json_t *o = json_pack(
		"{s:s, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:I}",
		"account", r->account, "depth", (json_int_t)r->depth, "shares",
		r->shares, "shares_norm", r->shares_norm, "usage", r->usage,
		"usage_norm", r->usage_norm, "usage_eff", r->usage_eff,
		"value", r->value, "factor", r->factor, "tickets", r->tickets,
		"pending", (json_int_t)r->pending, "running",
		(json_int_t)r->running);

	json_object_set_new(o, "shares_level", json_real(r->shares_level));
	json_object_set_new(o, "usage_level", json_real(r->usage_level));
	if (!isnan(r->ltarget))
		json_object_set_new(o, "ltarget", json_real(r->ltarget));
	if (!isnan(r->starget))
		json_object_set_new(o, "starget", json_real(r->starget));
	if (!isnan(r->rtarget))
		json_object_set_new(o, "rtarget", json_real(r->rtarget));

	if (r->user)
		json_object_set_new(o, "user", json_string(r->user));
	if (isinf(r->level_fs))
		json_object_set_new(o, "level_fs", json_string("inf"));
	else if (!isnan(r->level_fs))
		json_object_set_new(o, "level_fs", json_real(r->level_fs));
	return o;
}

char *rota_msg_share_encode(const struct rota_msg_share *m, size_t *len)
{
	json_t *rows = json_array();

	for (size_t i = 0; i < m->n; i++)
		json_array_append_new(rows, row_pack(&m->rows[i]));
	return msg_dump(json_pack("{s:s, s:s, s:s, s:I, s:I, s:o}", "plugin",
				  m->plugin, "convention", m->convention,
				  "decay", m->decay, "half_life",
				  (json_int_t)m->half_life, "time",
				  (json_int_t)m->time, "rows", rows),
			len);
}

static int level_fs_unpack(json_t *v, double *out, struct rota_error *err)
{
	*out = NAN;
	if (!v)
		return 0;
	if (json_is_string(v) && strcmp(json_string_value(v), "inf") == 0) {
		*out = INFINITY;
		return 0;
	}
	return msg_real(v, "level_fs", out, err);
}

static int row_unpack(json_t *o, struct rota_share_row *r,
		      struct rota_error *err)
{
	const char *account = NULL, *user = NULL;
	json_t *num[13] = { NULL };
	double *dst[13] = { &r->shares,	    &r->shares_norm, &r->usage,
			    &r->usage_norm, &r->usage_eff,   &r->value,
			    &r->factor,	    &r->tickets,     &r->shares_level,
			    &r->usage_level, &r->ltarget,    &r->starget,
			    &r->rtarget };
	static const char *const names[] = {
		"shares",	"shares_norm", "usage",	 "usage_norm",
		"usage_eff",	"value",       "factor", "tickets",
		"shares_level", "usage_level", "ltarget", "starget",
		"rtarget",
	};
	json_int_t depth, pending, running;
	json_t *lfs = NULL;
	int rc = msg_unpack(
		o, err,
		"{s:s, s?s, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s?o, "
		"s:I, s:I, s?o, s?o, s?o, s?o, s?o !}",
		"account", &account, "user", &user, "depth", &depth, "shares",
		&num[0], "shares_norm", &num[1], "usage", &num[2], "usage_norm",
		&num[3], "usage_eff", &num[4], "value", &num[5], "factor",
		&num[6], "tickets", &num[7], "level_fs", &lfs, "pending",
		&pending, "running", &running, "shares_level", &num[8],
		"usage_level", &num[9], "ltarget", &num[10], "starget",
		&num[11], "rtarget", &num[12]);

	for (size_t i = 0; rc == 0 && i < 8; i++)
		rc = msg_real(num[i], names[i], dst[i], err);
	/* absent (an older controller's reply): not known */
	for (size_t i = 8; rc == 0 && i < 13; i++) {
		*dst[i] = NAN;
		if (num[i])
			rc = msg_real(num[i], names[i], dst[i], err);
	}
	if (rc == 0)
		rc = level_fs_unpack(lfs, &r->level_fs, err);
	if (rc == 0)
		rc = msg_range(depth, 0, 4096, "depth", err);
	if (rc == 0)
		rc = msg_range(pending, 0, UINT32_MAX, "pending", err);
	if (rc == 0)
		rc = msg_range(running, 0, UINT32_MAX, "running", err);
	if (rc == 0)
		rc = msg_str(account, ROTA_MSG_NAME_MAX, "account",
			     &r->account, err);
	if (rc == 0)
		rc = msg_str(user, ROTA_MSG_NAME_MAX, "user", &r->user, err);
	r->depth = (uint32_t)depth;
	r->pending = (uint32_t)pending;
	r->running = (uint32_t)running;
	return rc;
}

int rota_msg_share_decode(const char *buf, size_t len,
			  struct rota_msg_share *m, struct rota_error *err)
{
	json_t *root = msg_parse(buf, len, err);
	const char *plugin = NULL, *conv = NULL, *decay = NULL;
	json_int_t half_life = 0, time = 0;
	json_t *rows = NULL;
	int rc;

	*m = (struct rota_msg_share){ 0 };
	if (!root)
		return -EPROTO;
	rc = msg_unpack(root, err, "{s:s, s:s, s:s, s:I, s:I, s:o !}",
			"plugin", &plugin, "convention", &conv, "decay",
			&decay, "half_life", &half_life, "time", &time, "rows",
			&rows);
	if (rc == 0 && (!json_is_array(rows) ||
			json_array_size(rows) > SHARE_ROWS_MAX))
		rc = rota_errorf(err, -EPROTO, "rows: not a list");
	if (rc == 0)
		rc = msg_range(half_life, 1, INT64_MAX, "half_life", err);
	if (rc == 0)
		rc = msg_str(plugin, ROTA_MSG_NAME_MAX, "plugin", &m->plugin,
			     err);
	if (rc == 0)
		rc = msg_str(conv, ROTA_MSG_NAME_MAX, "convention",
			     &m->convention, err);
	if (rc == 0)
		rc = msg_str(decay, ROTA_MSG_NAME_MAX, "decay", &m->decay, err);
	if (rc == 0)
		m->rows = rota_xcalloc(json_array_size(rows) + 1,
				       sizeof(*m->rows));
	for (size_t i = 0; rc == 0 && i < json_array_size(rows); i++) {
		rc = row_unpack(json_array_get(rows, i), &m->rows[i], err);
		m->n++;
	}
	m->half_life = half_life;
	m->time = time;
	json_decref(root);
	if (rc < 0)
		rota_msg_share_clear(m);
	return rc;
}

void rota_msg_share_clear(struct rota_msg_share *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->rows[i].account);
		free(m->rows[i].user);
	}
	free(m->rows);
	free(m->plugin);
	free(m->convention);
	free(m->decay);
	*m = (struct rota_msg_share){ 0 };
}
