// SPDX-License-Identifier: MIT
/*
 * The lease file (see lease.h): one decimal number and a newline, so that
 * a supervisor, a plain process apart from the daemon, needs nothing but
 * a read to know whether its job may go on.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "noded/lease.h"
#include "noded/textfile.h"

int64_t lease_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_BOOTTIME, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int lease_write(const char *path, int64_t end_ms)
{
	char *tmp = rota_xasprintf("%s.tmp", path);
	char text[32];
	int rc;

	snprintf(text, sizeof(text), "%" PRId64 "\n", end_ms);
	rc = textfile_write(tmp, O_CREAT | O_TRUNC, 0644, text);
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -errno;
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	return rc;
}

bool lease_expired(const char *path)
{
	char buf[32], *end;
	long long v;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') || v < 0)
		return true;
	return v != 0 && lease_now_ms() >= v;
}
