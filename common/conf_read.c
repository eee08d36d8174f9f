// SPDX-License-Identifier: MIT
/*
 * Reading rota.conf: files (bounded, regular, no Include cycles), lines
 * (no NUL or control bytes, bounded length) and tokens (Key=Value, quoted
 * values, # comments); each line goes to the parser of its kind, named by
 * its first key, or to the global keys.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/conf_internal.h"
#include "common/xalloc.h"

/*
 * A value at *pp, quoted or not; NUL-terminates it in place and leaves *pp
 * past it.  'key' names it in messages.
 */
static int value_read(struct conf_parser *p, const struct conf_where *at,
		      const char *key, char **pp, char **value)
{
	char *s = *pp;
	char *end;

	if (*s == '"') {
		end = strchr(s + 1, '"');
		if (!end)
			return conf_errorf(p->err, -EINVAL, at, key,
					    "unterminated quote");
		*end++ = '\0';
		*value = s + 1;
	} else {
		*value = s;
		end = s + strcspn(s, " \t#\"");
		if (*end == '"')
			return conf_errorf(p->err, -EINVAL, at, key,
					    "stray quote in value");
	}
	if (*end && !strchr(" \t#", *end))
		return conf_errorf(p->err, -EINVAL, at, key,
				    "text after closing quote");
	if (*end == '#')
		*end = '\0';
	else if (*end)
		*end++ = '\0';
	if (!**value)
		return conf_errorf(p->err, -EINVAL, at, key, "empty value");
	*pp = end;
	return 0;
}

/* A key as written, cut at its end, for messages. */
static char *key_text(char *key)
{
	key[strcspn(key, "= \t#")] = '\0';
	return key;
}

/* Split "Key=Value Key="Value" # comment" into tokens. */
static int line_tokens(struct conf_parser *p, const struct conf_where *at,
		       char *line, struct conf_token *tok, size_t *ntok)
{
	static const char letters[] = "abcdefghijklmnopqrstuvwxyz"
				      "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	bool has_eq = strchr(line, '=') != NULL;
	char *s = line;
	int rc;

	for (*ntok = 0;; (*ntok)++) {
		struct conf_token *t = &tok[*ntok];

		s += strspn(s, " \t");
		if (!*s || *s == '#')
			return 0;
		if (*ntok == CONF_TOKENS_MAX)
			return conf_errorf(p->err, -EINVAL, at, NULL,
					    "more than %d keys on one line",
					    CONF_TOKENS_MAX);
		t->key = s;
		s += strspn(s, letters);
		if (*s == '=' && s == t->key)
			return conf_errorf(p->err, -EINVAL, at, NULL,
					    "missing key before '='");
		if (!has_eq)
			return conf_errorf(p->err, -EINVAL, at, NULL,
					    "line has no '='");
		if (*s && !strchr("= \t#", *s))
			return conf_errorf(p->err, -EINVAL, at, NULL,
					    "bad character in key '%.40s'",
					    key_text(t->key));
		if (*s != '=') {
			*s = '\0';
			return conf_errorf(p->err, -EINVAL, at, t->key,
					    "missing '='");
		}
		*s++ = '\0';
		rc = value_read(p, at, t->key, &s, &t->value);
		if (rc)
			return rc;
	}
}

static int conf_file(struct conf_parser *p, const char *path,
		     const struct conf_where *from);

/* "Include FILE", relative to the including file's folder. */
static int include_line(struct conf_parser *p, const struct conf_where *at,
			char *s)
{
	const char *slash = strrchr(at->file, '/');
	char *file;
	char *path;
	int rc;

	s += strspn(s, " \t");
	if (!*s || *s == '#')
		return conf_errorf(p->err, -EINVAL, at, "Include",
				    "missing file name");
	rc = value_read(p, at, "Include", &s, &file);
	if (rc)
		return rc;
	s += strspn(s, " \t");
	if (*s && *s != '#')
		return conf_errorf(p->err, -EINVAL, at, "Include",
				    "text after the file name");
	if (p->depth == CONF_DEPTH_MAX)
		return conf_errorf(p->err, -ELOOP, at, "Include",
				    "nested deeper than %d levels",
				    CONF_DEPTH_MAX);
	if (file[0] != '/' && slash)
		path = rota_xasprintf("%.*s%s", (int)(slash + 1 - at->file),
				      at->file, file);
	else
		path = rota_xstrdup(file);
	p->depth++;
	rc = conf_file(p, path, at);
	p->depth--;
	free(path);
	return rc;
}

static bool is_include(const char *s)
{
	/* strchr() also finds the NUL: "Include" alone is an Include line. */
	return strncasecmp(s, "Include", 7) == 0 && strchr(" \t#", s[7]);
}

static int line_parse(struct conf_parser *p, const struct conf_where *at,
		      char *line)
{
	struct conf_token tok[CONF_TOKENS_MAX];
	size_t ntok;
	char *s = line + strspn(line, " \t");
	int rc;

	if (is_include(s))
		return include_line(p, at, s + 7);
	rc = line_tokens(p, at, s, tok, &ntok);
	if (rc || ntok == 0)
		return rc;
	if (!strcasecmp(tok[0].key, "NodeName"))
		return conf_node_line(p, at, tok, ntok);
	if (!strcasecmp(tok[0].key, "QueueName"))
		return conf_queue_line(p, at, tok, ntok);
	if (!strcasecmp(tok[0].key, "AccountName"))
		return conf_account_line(p->impl, p->err, at, tok, ntok);
	if (!strcasecmp(tok[0].key, "UserName"))
		return conf_user_line(p->impl, p->err, at, tok, ntok);
	if (!strcasecmp(tok[0].key, "QOSName"))
		return conf_qos_line(p->impl, p->err, at, tok, ntok);
	if (!strcasecmp(tok[0].key, "DepartmentName"))
		return conf_dept_line(p->impl, p->err, at, tok, ntok);
	if (conf_is_section(tok[0].key))
		return conf_section_line(p->impl, p->err, at, tok, ntok);
	return conf_global_apply(p, at, tok, ntok);
}

/* Refuse what no text file holds: NUL, control bytes, overlong lines. */
static int line_check(struct conf_parser *p, const struct conf_where *at,
		      const char *s, size_t len)
{
	if (len > CONF_LINE_MAX)
		return conf_errorf(p->err, -EINVAL, at, NULL,
				    "line longer than %d bytes",
				    CONF_LINE_MAX);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\0')
			return conf_errorf(p->err, -EINVAL, at, NULL,
					    "NUL byte in line");
		if ((c < 0x20 && c != '\t' && !(c == '\r' && i + 1 == len)) ||
		    c == 0x7f)
			return conf_errorf(p->err, -EINVAL, at, NULL,
					    "control character 0x%02x in line",
					    c);
	}
	return 0;
}

static int conf_text(struct conf_parser *p, const char *name,
		     const char *text, size_t len)
{
	struct conf_where at = { name, 0 };
	char line[CONF_LINE_MAX + 1];
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - text - pos) : len - pos;
		int rc;

		at.line++;
		rc = line_check(p, &at, text + pos, n);
		if (rc)
			return rc;
		memcpy(line, text + pos, n);
		line[n && line[n - 1] == '\r' ? n - 1 : n] = '\0';
		rc = line_parse(p, &at, line);
		if (rc)
			return rc;
		pos += n + 1;
	}
	return 0;
}

/* Keep a copy of a file name for the nodes and queues it declares. */
static const char *file_name(struct conf_impl *impl, const char *path)
{
	impl->files = conf_grow(impl->files, &impl->file_slots, impl->nfiles + 1,
			   sizeof(*impl->files));
	impl->files[impl->nfiles] = rota_xstrdup(path);
	return impl->files[impl->nfiles++];
}

/* Read a whole regular file of at most CONF_FILE_MAX bytes. */
static int file_read(const char *path, char **text, size_t *len,
		     struct stat *st, struct rota_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	ssize_t n = 0;
	int rc = 0;
	int e = errno;

	*text = NULL;
	if (fd < 0)
		return rota_errorf(err, -e, "%s", strerror(e));
	if (fstat(fd, st) < 0)
		rc = -errno;
	if (rc)
		rota_errorf(err, rc, "%s", strerror(-rc));
	else if (!S_ISREG(st->st_mode))
		rc = rota_errorf(err, -EINVAL, "not a regular file");
	else if (st->st_size > CONF_FILE_MAX)
		rc = rota_errorf(err, -EFBIG, "larger than %d bytes",
				 CONF_FILE_MAX);
	if (rc)
		goto out;
	*text = rota_xmalloc((size_t)st->st_size + 1);
	for (*len = 0; *len < (size_t)st->st_size; *len += (size_t)n) {
		n = read(fd, *text + *len, (size_t)st->st_size - *len);
		if (n == 0)
			break;
		if (n < 0 && errno != EINTR) {
			e = errno;
			rc = rota_errorf(err, -e, "%s", strerror(e));
			break;
		}
		n = n < 0 ? 0 : n;
	}
out:
	close(fd);
	if (rc) {
		free(*text);
		*text = NULL;
	}
	return rc;
}

/* Read 'path', named from 'from' (an Include) or the top file (NULL). */
static int conf_file(struct conf_parser *p, const char *path,
		     const struct conf_where *from)
{
	const char *name = file_name(p->impl, path);
	struct rota_error reason;
	struct stat st;
	size_t len = 0;
	char *text;
	int rc = file_read(name, &text, &len, &st, &reason);

	if (rc && from)
		return conf_errorf(p->err, rc, from, "Include",
				    "cannot read '%s': %s", name, reason.text);
	if (rc)
		return rota_errorf(p->err, rc, "%s: %s", name, reason.text);
	for (size_t i = 0; i < p->nopen; i++) {
		if (p->open[i].dev == st.st_dev &&
		    p->open[i].ino == st.st_ino) {
			free(text);
			return conf_errorf(p->err, -ELOOP, from, "Include",
					    "cycle through '%s'", name);
		}
	}
	p->open[p->nopen].dev = st.st_dev;
	p->open[p->nopen++].ino = st.st_ino;
	rc = conf_text(p, name, text, len);
	p->nopen--;
	free(text);
	return rc;
}

int conf_read_path(struct conf_parser *p, const void *arg)
{
	return conf_file(p, arg, NULL);
}

int conf_read_buffer(struct conf_parser *p, const void *arg)
{
	const struct conf_buffer *b = arg;
	const char *name = file_name(p->impl, b->name);
	struct stat st;

	/* A buffer copied from a real file must not Include that file. */
	if (stat(name, &st) == 0) {
		p->open[p->nopen].dev = st.st_dev;
		p->open[p->nopen++].ino = st.st_ino;
	}
	return conf_text(p, name, b->text, b->len);
}
