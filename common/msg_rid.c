// SPDX-License-Identifier: MIT
/*
 * Request ids (issue 18): a client makes a random 128-bit id for each
 * request that changes state and sends it, as 32 lowercase hex digits, in
 * an optional "rid" key of the body; every retry of that request carries
 * the same id, and the controller answers a repeat with its first answer
 * instead of doing it again.  The key is taken off the body here, before
 * the request's own strict decoder sees it, so that no message codec has
 * to know about it and a body without it (an older client) decodes as
 * before.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "common/hex.h"
#include "common/msg.h"
#include "common/msg_internal.h"
#include "common/proto.h"
#include "common/xalloc.h"

bool rota_msg_type_has_rid(unsigned type)
{
	switch (type) {
	case ROTA_MSG_SUBMIT:
	case ROTA_MSG_CANCEL:
	case ROTA_MSG_NODE_ADMIN:
	case ROTA_MSG_HOLD:
	case ROTA_MSG_RELEASE:
	case ROTA_MSG_NICE:
	case ROTA_MSG_UPDATE:
	case ROTA_MSG_REQUEUE:
	case ROTA_MSG_RESV_CREATE:
	case ROTA_MSG_RESV_DELETE: return true;
	default: return false;
	}
}

bool rota_rid_is_valid(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++) {
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	}
	return i == ROTA_RID_LEN;
}

int rota_rid_make(char out[ROTA_RID_LEN + 1])
{
	uint8_t r[ROTA_RID_LEN / 2];
	size_t got = 0;

	out[0] = '\0';
	while (got < sizeof(r)) {
		ssize_t n = getrandom(r + got, sizeof(r) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		got += (size_t)n;
	}
	rota_hex_encode(r, sizeof(r), out);
	return 0;
}

char *rota_msg_rid_add(const char *buf, size_t len, const char *rid,
		       size_t *out_len)
{
	struct rota_error err;
	json_t *root = msg_parse(buf, len, &err);

	if (!root)
		return NULL;
	json_object_set_new(root, "rid", json_string(rid));
	return msg_dump(root, out_len);
}

int rota_msg_rid_take(const char *buf, size_t len, char rid[ROTA_RID_LEN + 1],
		      char **rest, size_t *rest_len, struct rota_error *err)
{
	json_t *root;
	json_t *v;

	rid[0] = '\0';
	*rest = NULL;
	*rest_len = 0;
	/* most bodies have none: no second parse for them */
	if (!memmem(buf, len, "\"rid\"", 5))
		return 0;
	root = msg_parse(buf, len, err);
	if (!root)
		return -EPROTO;
	v = json_object_get(root, "rid");
	if (!v) {
		json_decref(root);
		return 0;
	}
	if (!json_is_string(v) || !rota_rid_is_valid(json_string_value(v))) {
		json_decref(root);
		return rota_errorf(err, -EPROTO,
				   "rid: expected %d lowercase "
				   "hex digits",
				   ROTA_RID_LEN);
	}
	memcpy(rid, json_string_value(v), ROTA_RID_LEN + 1);
	json_object_del(root, "rid");
	*rest = msg_dump(root, rest_len);
	return 0;
}
