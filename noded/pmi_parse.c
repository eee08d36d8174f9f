// SPDX-License-Identifier: MIT
/*
 * The PMI-1 and PMI-2 wire formats and the allgather blob, parsed without
 * I/O (pmi_wire.c owns the sockets).  Kept apart so that the fuzzer sees
 * exactly what a hostile task can reach.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "noded/pmi_parse.h"

static bool is_ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

int pmi_frame(const char *buf, size_t len, bool v2, size_t *msglen,
	      struct rota_error *err)
{
	char digits[PMI2_LEN_SIZE + 1];
	size_t body = 0;
	size_t i;

	*msglen = 0;
	if (!v2) {
		const char *nl = memchr(buf, '\n', len < PMI_LINE_MAX ?
							   len : PMI_LINE_MAX);

		if (nl) {
			*msglen = (size_t)(nl - buf) + 1;
			return 1;
		}
		if (len >= PMI_LINE_MAX)
			return rota_errorf(err, -EPROTO,
					   "line longer than %d bytes",
					   PMI_LINE_MAX);
		return 0;
	}
	if (len < PMI2_LEN_SIZE)
		return 0;
	/* MPICH writes "%d" and pads with spaces; accept either side */
	memcpy(digits, buf, PMI2_LEN_SIZE);
	digits[PMI2_LEN_SIZE] = '\0';
	for (i = 0; i < PMI2_LEN_SIZE && digits[i] == ' '; i++)
		;
	if (i == PMI2_LEN_SIZE || digits[i] < '0' || digits[i] > '9')
		return rota_errorf(err, -EPROTO, "bad PMI-2 length field");
	for (; i < PMI2_LEN_SIZE && digits[i] >= '0' && digits[i] <= '9'; i++)
		body = body * 10 + (size_t)(digits[i] - '0');
	for (; i < PMI2_LEN_SIZE; i++)
		if (digits[i] != ' ')
			return rota_errorf(err, -EPROTO,
					   "bad PMI-2 length field");
	if (body == 0 || body > PMI2_BODY_MAX)
		return rota_errorf(err, -EPROTO,
				   "PMI-2 message of %zu bytes (limit %d)",
				   body, PMI2_BODY_MAX);
	if (len < PMI2_LEN_SIZE + body)
		return 0;
	*msglen = PMI2_LEN_SIZE + body;
	return 1;
}

static int add_pair(struct pmi_msg *m, const char *key, const char *val,
		    struct rota_error *err)
{
	if (!*key || strlen(key) > PMI_KEY_MAX)
		return rota_errorf(err, -EPROTO, "bad key");
	if (!m->cmd) {
		if (strcmp(key, "cmd") && strcmp(key, "mcmd"))
			return rota_errorf(err, -EPROTO,
					   "message does not start with cmd=");
		if (!*val || strlen(val) > PMI_KEY_MAX)
			return rota_errorf(err, -EPROTO, "bad command name");
		m->multi = key[0] == 'm';
		m->cmd = val;
		return 0;
	}
	if (m->npairs == PMI_MAX_PAIRS)
		return rota_errorf(err, -EPROTO, "more than %d pairs",
				   PMI_MAX_PAIRS);
	m->pairs[m->npairs].key = key;
	m->pairs[m->npairs].val = val;
	m->npairs++;
	return 0;
}

/* "cmd=x a=b c=d" separated by spaces, the newline gone. */
static int parse_v1(char *s, struct pmi_msg *m, struct rota_error *err)
{
	while (*s) {
		char *key;
		char *val;
		int rc;

		while (*s == ' ')
			s++;
		if (!*s)
			break;
		key = s;
		while (*s && *s != ' ' && *s != '=')
			s++;
		if (*s != '=')
			return rota_errorf(err, -EPROTO, "word without '='");
		*s++ = '\0';
		val = s;
		while (*s && *s != ' ')
			s++;
		if (*s)
			*s++ = '\0';
		rc = add_pair(m, key, val, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* "cmd=x;a=b;" with ";;" for a ';' inside a value, unescaped in place. */
static int parse_v2(char *s, char *end, struct pmi_msg *m,
		    struct rota_error *err)
{
	while (s < end) {
		char *key = s;
		char *val;
		char *d;
		int rc;

		while (s < end && *s != '=' && *s != ';')
			s++;
		if (s == end || *s != '=')
			return rota_errorf(err, -EPROTO, "pair without '='");
		*s++ = '\0';
		val = d = s;
		while (s < end && !(*s == ';' && (s + 1 == end || s[1] != ';'))) {
			if (*s == ';')
				s++;
			*d++ = *s++;
		}
		if (s == end)
			return rota_errorf(err, -EPROTO, "pair without ';'");
		*d = '\0';
		s++;
		rc = add_pair(m, key, val, err);
		if (rc)
			return rc;
	}
	return 0;
}

static int parse_body(char *buf, size_t len, bool v2, struct pmi_msg *m,
		      struct rota_error *err)
{
	int rc;

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\0' || (!v2 && is_ctl((unsigned char)buf[i])))
			return rota_errorf(err, -EPROTO,
					   "control character in message");
	if (v2) {
		rc = parse_v2(buf, buf + len, m, err);
	} else {
		buf[len] = '\0';
		rc = parse_v1(buf, m, err);
	}
	if (!rc && !m->cmd)
		rc = rota_errorf(err, -EPROTO, "empty message");
	if (rc)
		memset(m, 0, sizeof(*m));
	return rc;
}

int pmi_parse(char *buf, size_t len, bool v2, struct pmi_msg *m,
	      struct rota_error *err)
{
	char *copy = NULL;
	int rc;

	if (!v2) {
		len--; /* the newline */
		if (len && buf[len - 1] == '\r')
			len--;
		return parse_body(buf, len, false, m, err);
	}
	buf += PMI2_LEN_SIZE;
	len -= PMI2_LEN_SIZE;
	/*
	 * MPICH 4.0's simple PMI-2 client counts its length field twice: 6
	 * stray bytes of its stack follow a message that ends with ';'.
	 * Such a message that does not parse whole is parsed without them.
	 */
	if (len > PMI2_LEN_SIZE && buf[len - PMI2_LEN_SIZE - 1] == ';') {
		copy = rota_xmalloc(len);
		memcpy(copy, buf, len);
	}
	rc = parse_body(buf, len, true, m, err);
	if (rc && copy) {
		memcpy(buf, copy, len);
		rc = parse_body(buf, len - PMI2_LEN_SIZE, true, m, err);
	}
	free(copy);
	return rc;
}

const char *pmi_msg_get(const struct pmi_msg *m, const char *key)
{
	for (unsigned i = 0; i < m->npairs; i++)
		if (!strcmp(m->pairs[i].key, key))
			return m->pairs[i].val;
	return NULL;
}

bool pmi_is_kvs_pair(const char *key, const char *val)
{
	size_t klen = strlen(key);
	size_t i;

	if (!klen || klen > PMI_KEY_MAX || strlen(val) > PMI_VAL_MAX)
		return false;
	for (i = 0; i < klen; i++)
		if (is_ctl((unsigned char)key[i]) || strchr("=; ", key[i]))
			return false;
	for (i = 0; val[i]; i++)
		if (is_ctl((unsigned char)val[i]))
			return false;
	return true;
}

void pmi_blob_add(struct rota_strbuf *b, const char *key, const char *val)
{
	rota_strbuf_add(b, key, strlen(key) + 1);
	rota_strbuf_add(b, val, strlen(val) + 1);
}

int pmi_blob_next(const char *blob, size_t len, size_t *pos, const char **key,
		  const char **val, struct rota_error *err)
{
	const char *k = blob + *pos;
	const char *kend;
	const char *vend;

	*key = *val = NULL;
	if (*pos >= len)
		return 0;
	kend = memchr(k, '\0', len - *pos);
	if (!kend)
		return rota_errorf(err, -EPROTO, "blob: unterminated key");
	vend = memchr(kend + 1, '\0', len - (size_t)(kend + 1 - blob));
	if (!vend)
		return rota_errorf(err, -EPROTO, "blob: unterminated value");
	if (!pmi_is_kvs_pair(k, kend + 1))
		return rota_errorf(err, -EPROTO, "blob: bad key or value");
	*key = k;
	*val = kend + 1;
	*pos = (size_t)(vend + 1 - blob);
	return 1;
}
