// SPDX-License-Identifier: MIT
/*
 * A step's files on this node (see step.h): the mark its supervisor leaves
 * while it runs, the private directory beside it, and that directory's
 * removal.  Shared by the supervisor (step.c, step_start.c) and the daemon
 * (steps.c), which finds a restarted step's mark and cleans up after it.
 */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/step.h"

static int remove_cb(const char *path, const struct stat *st, int flag,
		     struct FTW *ftw)
{
	remove(path);
	return 0;
}

char *step_mark_path(const char *spool, const struct rota_step_cred *c,
		     pid_t pid)
{
	return rota_xasprintf("%s/step%u.%u.%d", spool, c->job_id, c->step_id,
			      (int)pid);
}

char *step_tmpdir_path(const char *spool, const struct rota_step_cred *c,
		       pid_t pid)
{
	return rota_xasprintf("%s/step%u.%u.%d.d", spool, c->job_id,
			      c->step_id, (int)pid);
}

void step_remove_tree(const char *path, uid_t uid, gid_t gid)
{
	char *user = rota_xasprintf("%s/user", path);
	struct stat st;
	pid_t pid = -1;

	/*
	 * What the tasks could write is removed as their owner: root walking
	 * a tree its user can change would follow a directory swapped for a
	 * link mid-walk.  What is left is root's alone.
	 */
	if (lstat(user, &st) == 0)
		pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid(uid) < 0)
			_exit(1);
		nftw(user, remove_cb, 16, FTW_DEPTH | FTW_PHYS);
		_exit(0);
	}
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (lstat(user, &st) == 0)
		rota_warn("'%s': left: its owner's part would not go", path);
	else
		nftw(path, remove_cb, 16, FTW_DEPTH | FTW_PHYS);
	free(user);
}
