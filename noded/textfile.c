// SPDX-License-Identifier: MIT
/* One short text written to a file in one write (see textfile.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "noded/textfile.h"

int textfile_write(const char *path, int flags, mode_t mode,
		   const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags, mode);
	size_t len = strlen(text);
	int rc = 0;

	if (fd < 0)
		return -errno;
	errno = 0; /* a short write sets none */
	if (write(fd, text, len) != (ssize_t)len)
		rc = errno ? -errno : -EIO;
	close(fd);
	return rc;
}

char *textfile_read(const char *path, size_t *len)
{
	char buf[8192];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return NULL;
	*len = (size_t)n;
	return rota_xstrndup(buf, (size_t)n);
}
