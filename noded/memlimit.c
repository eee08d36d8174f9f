// SPDX-License-Identifier: MIT
/* Jobs' memory limits in cgroup v1 memory cgroups (see memlimit.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "noded/memlimit.h"
#include "noded/textfile.h"

/*
 * The v1 memory controller's mount point and the cgroup mounted there
 * (not "/" in a container that sees only its own subtree), or -ENOENT.
 * mountinfo: "ID PARENT MAJ:MIN ROOT POINT OPTS [TAGS] - TYPE SOURCE SUPER".
 */
static int memory_mount(char **dir, char **root)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];

	*dir = *root = NULL;
	if (!f)
		return -ENOENT;
	while (!*dir && fgets(line, sizeof(line), f)) {
		char r[2048], point[2048], type[64], super[512];
		const char *sep = strstr(line, " - ");

		if (!sep || sscanf(line, "%*s %*s %*s %2047s %2047s", r,
				   point) != 2 ||
		    sscanf(sep + 3, "%63s %*s %511s", type, super) != 2)
			continue;
		if (strcmp(type, "cgroup") != 0)
			continue;
		for (char *t = strtok(super, ","); t; t = strtok(NULL, ","))
			if (strcmp(t, "memory") == 0) {
				*dir = rota_xstrdup(point);
				*root = rota_xstrdup(r);
				break;
			}
	}
	fclose(f);
	return *dir ? 0 : -ENOENT;
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
	int rc = textfile_write(path, 0, 0, text);

	free(path);
	return rc;
}

char *memlimit_base(struct rota_error *err)
{
	char *mount, *root, *own = NULL, *base = NULL;
	const char *rel;

	if (memory_mount(&mount, &root) < 0) {
		rota_errorf(err, -ENOENT, "no cgroup v1 memory controller "
					  "mounted");
		return NULL;
	}
	own = own_cgroup();
	rel = own ? own : "";
	/* our cgroup as seen under the mount: less the part mounted there */
	if (strcmp(root, "/") != 0 &&
	    strncmp(rel, root, strlen(root)) == 0)
		rel += strlen(root);
	base = rota_xasprintf("%s%s/rota", mount, strcmp(rel, "/") ? rel : "");
	if (mkdir(base, 0755) < 0 && errno != EEXIST) {
		rota_errorf(err, -errno, "%s: %s", base, strerror(errno));
		free(base);
		base = NULL;
	}
	free(mount);
	free(root);
	free(own);
	return base;
}

char *memlimit_create(const char *base, uint32_t job_id, uint32_t run,
		      int pid, uint64_t mem_mb, struct rota_error *err)
{
	char *dir = rota_xasprintf("%s/job%u.%u.%d", base, job_id, run, pid);
	char limit[32];
	int rc = 0;

	snprintf(limit, sizeof(limit), "%" PRIu64, mem_mb << 20);
	/* one of the same name was left by a supervisor killed with -9 */
	if (mkdir(dir, 0755) < 0) {
		rc = -errno;
		if (rc == -EEXIST) {
			memlimit_remove(dir);
			rc = mkdir(dir, 0755) < 0 ? -errno : 0;
		}
	}
	if (rc < 0) {
		rota_errorf(err, rc, "%s: %s", dir, strerror(-rc));
		free(dir);
		return NULL;
	}
	/* the OOM killer on, whatever the parent's oom_kill_disable says */
	write_file(dir, "memory.oom_control", "0");
	rc = write_file(dir, "memory.limit_in_bytes", limit);
	if (rc == 0) {
		/* memory plus swap, where swap is accounted: else past its
		   limit a job would be swapped out rather than stopped */
		rc = write_file(dir, "memory.memsw.limit_in_bytes", limit);
		if (rc == -ENOENT) {
			write_file(dir, "memory.swappiness", "0");
			rc = 0;
		}
	}
	if (rc < 0) {
		rota_errorf(err, rc, "%s: its limit: %s", dir, strerror(-rc));
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
	/*
	 * A process that left the job's process group is still in here.  A
	 * cgroup whose last task is still exiting refuses rmdir (EBUSY) for
	 * a moment: up to 2 s, then it is left (and reused or removed by the
	 * next job of its name, see memlimit_create).
	 */
	for (int i = 0; i < 200; i++) {
		if (!signal_all(dir, SIGKILL) &&
		    (rmdir(dir) == 0 || errno == ENOENT))
			return;
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
}
