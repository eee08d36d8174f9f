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

#endif
