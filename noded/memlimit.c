// SPDX-License-Identifier: MIT
/* Jobs' memory limits in cgroup v1 memory cgroups (see memlimit.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <mntent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "noded/memlimit.h"

/* The v1 memory controller's mount point, or NULL. */
static char *memory_mount(void)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	struct mntent *m;
	char *dir = NULL;

	if (!f)
		return NULL;
	while (!dir && (m = getmntent(f)))
		if (strcmp(m->mnt_type, "cgroup") == 0 &&
		    hasmntopt(m, "memory"))
			dir = rota_xstrdup(m->mnt_dir);
	endmntent(f);
	return dir;
}

/* Our own memory cgroup, from the "N:memory:/path" line, or NULL. */
static char *own_cgroup(void)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096], *path = NULL;

	if (!f)
		return NULL;
	while (!path && fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':'), *p;

		if (!c || !(p = strchr(c + 1, ':')))
			continue;
		*p++ = '\0';
		/* the controller list may name several: "cpu,memory" */
		for (char *t = strtok(c + 1, ","); t; t = strtok(NULL, ","))
			if (strcmp(t, "memory") == 0) {
				p[strcspn(p, "\n")] = '\0';
				path = rota_xstrdup(p);
				break;
			}
	}
	fclose(f);
	return path;
}

static int write_file(const char *dir, const char *name, const char *text)
{
	char *path = rota_xasprintf("%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);
	int rc = 0;

	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	free(path);
	return rc;
}

char *memlimit_base(struct rota_error *err)
{
	char *mount = memory_mount(), *own = NULL, *base = NULL;

	if (!mount) {
		rota_errorf(err, -ENOENT, "no cgroup v1 memory controller "
					  "mounted");
		return NULL;
	}
	own = own_cgroup();
	base = rota_xasprintf("%s%s/rota", mount,
			      own && strcmp(own, "/") ? own : "");
	if (mkdir(base, 0755) < 0 && errno != EEXIST) {
		rota_errorf(err, -errno, "%s: %s", base, strerror(errno));
		free(base);
		base = NULL;
	}
	free(mount);
	free(own);
	return base;
}

char *memlimit_create(const char *base, uint32_t job_id, uint32_t run,
		      int pid, uint64_t mem_mb, struct rota_error *err)
{
	char *dir = rota_xasprintf("%s/job%u.%u.%d", base, job_id, run, pid);
	char limit[32];
	int rc;

	snprintf(limit, sizeof(limit), "%" PRIu64, mem_mb << 20);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		rota_errorf(err, -errno, "%s: %s", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	rc = write_file(dir, "memory.limit_in_bytes", limit);
	if (rc < 0) {
		rota_errorf(err, rc, "%s/memory.limit_in_bytes: %s", dir,
			    strerror(-rc));
		rmdir(dir);
		free(dir);
		return NULL;
	}
	return dir;
}

bool memlimit_oom_killed(const char *dir)
{
	char *path = rota_xasprintf("%s/memory.oom_control", dir);
	FILE *f = fopen(path, "re");
	char key[64];
	unsigned long long v;
	bool killed = false;

	free(path);
	if (!f)
		return false;
	while (fscanf(f, "%63s %llu", key, &v) == 2)
		if (strcmp(key, "oom_kill") == 0)
			killed = v > 0;
	fclose(f);
	return killed;
}

/* Each pid listed in its cgroup.procs gets 'sig'; how many were listed. */
static int signal_all(const char *dir, int sig)
{
	char *path = rota_xasprintf("%s/cgroup.procs", dir);
	FILE *f = fopen(path, "re");
	int pid, n = 0;

	free(path);
	if (!f)
		return 0;
	while (fscanf(f, "%d", &pid) == 1) {
		kill(pid, sig);
		n++;
	}
	fclose(f);
	return n;
}

void memlimit_remove(const char *dir)
{
	/* a process that left the job's process group is still in here */
	for (int i = 0; i < 100 && signal_all(dir, SIGKILL); i++)
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	rmdir(dir);
}
