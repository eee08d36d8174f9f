// SPDX-License-Identifier: MIT
/*
 * jobcomp/file: one JSON line per finished job, appended to Path= (default
 * StateDir/jobcomp.json), the file rota history reads.  The file is opened
 * for each batch and closed after its fdatasync: a rotated file (mv, then
 * nothing else) is simply created again, no signal needed.  A line is
 * written with one write() on an O_APPEND descriptor, so lines of two
 * writers never interleave; a crash can leave at most a torn last line,
 * which rota history skips.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugins/jobcomp/jobcomp_json.h"
#include "plugins/rota_plugin.h"

struct file_state {
	const struct rota_host *host;
	char *path;
	int fd;			/* open during a batch, else -1 */
};

static int file_init(const struct rota_host *host,
		     const struct rota_plugin_conf *conf, void **state,
		     char *err, size_t errlen)
{
	const char *path = NULL;
	struct file_state *fs;
	char where[160];
	int rc;

	if (!ROTA_HOST_HAS(host, loop_priv)) {
		snprintf(err, errlen, "jobcomp/file: the host is too old");
		return -EINVAL;
	}
	rc = host->conf_string(conf, "Path", &path, err, errlen);
	if (rc < 0)
		return rc;
	if (path && path[0] != '/') {
		host->conf_where(conf, "Path", where, sizeof(where));
		snprintf(err, errlen, "%s: '%.60s' is not an absolute path",
			 where, path);
		return -EINVAL;
	}
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->host = host;
	fs->fd = -1;
	if (path)
		fs->path = strdup(path);
	else if (asprintf(&fs->path, "%s/jobcomp.json", host->state_dir) < 0)
		fs->path = NULL;
	if (!fs->path) {
		free(fs);
		return -ENOMEM;
	}
	*state = fs;
	return 0;
}

static void file_fini(void *state)
{
	struct file_state *fs = state;

	if (fs->fd >= 0)
		close(fs->fd);
	free(fs->path);
	free(fs);
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int file_record(void *state, const struct rota_jobcomp_record *r)
{
	struct file_state *fs = state;
	char *json = jobcomp_json_encode(r);
	char *line;
	int len, rc;

	if (!json)
		return -ENOMEM;
	len = asprintf(&line, "%s\n", json);
	free(json);
	if (len < 0)
		return -ENOMEM;
	if (fs->fd < 0)
		fs->fd = open(fs->path,
			      O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	rc = fs->fd < 0 ? -errno : write_all(fs->fd, line, (size_t)len);
	if (rc < 0)
		fs->host->log(fs->host, ROTA_PLUGIN_LOG_ERR, "'%s': %s",
			      fs->path, strerror(-rc));
	free(line);
	return rc;
}

static int file_flush(void *state)
{
	struct file_state *fs = state;
	int rc = 0;

	if (fs->fd < 0)
		return 0;
	if (fdatasync(fs->fd) < 0)
		rc = -errno;
	close(fs->fd);
	fs->fd = -1;
	return rc;
}

static const struct rota_jobcomp_ops file_ops = {
	.size = sizeof(file_ops),
	.record = file_record,
	.flush = file_flush,
};

const struct rota_plugin ROTA_PLUGIN_EXPORT(jobcomp, file) = {
	.abi = ROTA_PLUGIN_ABI,
	.kind = ROTA_PLUGIN_JOBCOMP,
	.name = "file",
	.init = file_init,
	.fini = file_fini,
	.ops = &file_ops,
};
