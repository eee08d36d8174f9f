/* SPDX-License-Identifier: MIT */
#ifndef ROTA_NODED_TEXTFILE_H
#define ROTA_NODED_TEXTFILE_H

#include <sys/types.h>

/*
 * Open 'path' with O_WRONLY | O_CLOEXEC | 'flags' (and 'mode' if it is
 * created) and write 'text' in one write: 0, or -errno.  A spool record or
 * a cgroup setting, which the kernel takes whole or not at all.
 */
int textfile_write(const char *path, int flags, mode_t mode,
		   const char *text);

/* Read a small file (8 KiB at most) whole; NULL if it is not there. */
#include <stddef.h>
char *textfile_read(const char *path, size_t *len);

#endif
