// SPDX-License-Identifier: MIT
/*
 * Jobs' cgroups on cgroup v2 (see cgroup.h): one directory, below the
 * daemon's own cgroup in the unified hierarchy.  The controllers jobs get
 * are those the daemon's cgroup was given (systemd's Delegate=yes), enabled
 * for "rota" and so for each job.  v2 lets a cgroup either hold processes
 * or hand controllers to its children, not both (the root excepted): when
 * the daemon's own cgroup holds processes, they (the daemon and supervisors
 * of earlier runs, all ours under Delegate=yes) move to "<own>/noded"; a
 * daemon started in "<x>/noded" (a restart, systemd's DelegateSubgroup=)
 * takes "<x>" as its own.
 * The end is cgroup.kill: the kernel kills all of it at once.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "noded/cgroup_internal.h"

/* The controllers a v2 job may get (CPU time is cpu.stat, always there). */
static const enum cgroup_ctl wanted[] = { CGROUP_MEMORY, CGROUP_PIDS,
					  CGROUP_CPUSET };

/* Move every process of 'own' to '<own>/noded', so 'own' may delegate. */
static int leave_own(const char *own)
{
	char *leaf = rota_xasprintf("%s/noded", own);
	char *path = rota_xasprintf("%s/cgroup.procs", own);
	FILE *f;
	int pid, e, rc = 0;
	char text[16];

	if (mkdir(leaf, 0755) < 0 && errno != EEXIST)
		rc = -errno;
	f = rc == 0 ? fopen(path, "re") : NULL;
	while (f && fscanf(f, "%d", &pid) == 1) {
		snprintf(text, sizeof(text), "%d", pid);
		/* a process that exited meanwhile: ESRCH, no matter */
		e = cgroup_write(leaf, "cgroup.procs", text);
		if (e < 0 && e != -ESRCH)
			rc = e;
	}
	if (f)
		fclose(f);
	free(path);
	free(leaf);
	return rc;
}

/* "+memory" into '<dir>/cgroup.subtree_control'; 0 or -errno. */
static int enable(const char *dir, const char *name, bool may_move)
{
	char *plus = rota_xasprintf("+%s", name);
	int rc = cgroup_write(dir, "cgroup.subtree_control", plus);

	if (rc == -EBUSY && may_move && leave_own(dir) == 0)
		rc = cgroup_write(dir, "cgroup.subtree_control", plus);
	free(plus);
	return rc;
}

int cgroup_v2_setup(struct cgroup_env *env, struct cgroup_found *f)
{
	char *own = cgroup_own_dir(NULL), *base;
	char avail[512] = "", why[160], *slash;

	if (!own) {
		cgroup_off(f, "cgroup2", "not mounted");
		return -ENOENT;
	}
	slash = strrchr(own, '/');
	if (slash && strcmp(slash, "/noded") == 0)
		*slash = '\0';
	base = rota_xasprintf("%s/rota", own);
	if (mkdir(base, 0755) < 0 && errno != EEXIST) {
		cgroup_off(f, base, strerror(errno));
		free(base);
		free(own);
		return -EACCES;
	}
	/* space-separated, as in "cpuset cpu io memory pids" */
	cgroup_read(own, "cgroup.controllers", avail + 1, sizeof(avail) - 2);
	avail[0] = ' ';
	strcat(avail, " ");
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		const char *name = cgroup_ctl_names[wanted[i]];
		char word[32];
		int rc;

		snprintf(word, sizeof(word), " %s ", name);
		if (!strstr(avail, word)) {
			snprintf(why, sizeof(why),
				 "not in %s/cgroup.controllers", own);
			cgroup_off(f, name, why);
			continue;
		}
		rc = enable(own, name, true);
		if (rc == 0)
			rc = enable(base, name, false);
		if (rc < 0)
			cgroup_off(f, name, strerror(-rc));
		else
			env->has[wanted[i]] = true;
	}
	/* v2 has no devices file: a BPF program would be needed */
	cgroup_off(f, "devices", "v2: GPUs steered by CUDA_VISIBLE_DEVICES "
		   "only");
	env->has[CGROUP_CPUACCT] = cgroup_has(base, "cpu.stat");
	env->kill_file = cgroup_has(base, "cgroup.kill");
	env->has[CGROUP_FREEZER] = env->kill_file;
	if (!env->kill_file)
		cgroup_off(f, "cgroup.kill", "before Linux 5.14: one by one");
	snprintf(f->where, sizeof(f->where), "%s", base);
	env->base[0] = base;
	free(own);
	return 0;
}

static int set_limits(struct cgroup_job *cg, const struct cgroup_limits *lim,
		      const char **what)
{
	const struct cgroup_env *env = cg->env;
	const char *dir = cg->dir[0];
	char text[32];
	int rc = 0;

	if (env->has[CGROUP_MEMORY] && env->constrain_ram && lim->mem_mb) {
		*what = "memory.max";
		snprintf(text, sizeof(text), "%" PRIu64, lim->mem_mb << 20);
		rc = cgroup_write(dir, "memory.max", text);
		/* memory plus swap held to the limit, as memsw on v1 */
		if (rc == 0 && cgroup_has(dir, "memory.swap.max")) {
			*what = "memory.swap.max";
			rc = cgroup_write(dir, "memory.swap.max", "0");
		}
	}
	if (rc == 0 && env->has[CGROUP_PIDS] && env->max_tasks) {
		*what = "pids.max";
		snprintf(text, sizeof(text), "%u", env->max_tasks);
		rc = cgroup_write(dir, "pids.max", text);
	}
	/* cpuset.mems left empty: the parent's, unlike v1 */
	if (rc == 0 && env->has[CGROUP_CPUSET] && lim->cpus) {
		*what = "cpuset.cpus";
		rc = cgroup_write(dir, "cpuset.cpus", lim->cpus);
	}
	return rc;
}

int cgroup_v2_create(struct cgroup_job *cg, const struct cgroup_limits *lim,
		     struct rota_error *err)
{
	const char *what = "";
	int rc = cgroup_mkdir_new(cg->dir[0]);

	if (rc < 0)
		return rota_errorf(err, rc, "%s: %s", cg->dir[0],
				   strerror(-rc));
	rc = set_limits(cg, lim, &what);
	if (rc < 0) {
		cgroup_rmdir(cg->dir[0]);
		return rota_errorf(err, rc, "%s: %s", what, strerror(-rc));
	}
	return 0;
}

unsigned cgroup_v2_kill(struct cgroup_job *cg)
{
	unsigned left = cgroup_signal_listed(cg->dir[0], 0);

	/* the kernel kills all of it, forks under way included */
	if (!cg->env->kill_file ||
	    cgroup_write(cg->dir[0], "cgroup.kill", "1") < 0)
		cgroup_signal_listed(cg->dir[0], SIGKILL);
	cgroup_wait_empty(cg->dir[0]);
	return left;
}

void cgroup_v2_usage(const struct cgroup_job *cg, struct cgroup_usage *u)
{
	const char *dir = cg->dir[0];
	uint64_t v;

	if (cgroup_read_key(dir, "cpu.stat", "usage_usec", &v) == 0)
		u->cpu_usec = v;
	/* memory.peak: Linux 5.19 and later */
	if (cgroup_read_u64(dir, "memory.peak", &v) == 0)
		u->mem_peak = v;
	if (cgroup_read_key(dir, "memory.events", "oom_kill", &v) == 0)
		u->oom_killed = v > 0;
}

/* io.stat: "MAJ:MIN rbytes=N wbytes=N rios=N ..." per device, summed. */
static uint64_t io_bytes(const char *dir)
{
	char *path = rota_xasprintf("%s/io.stat", dir);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[8192];
	uint64_t sum = 0;
	ssize_t n;

	free(path);
	if (fd < 0)
		return 0;
	/* one line per device: cgroup_read() keeps the first only */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (const char *p = buf; (p = strstr(p, "bytes=")); p += 6) {
		/* rbytes= and wbytes=, not dbytes= (discards) */
		if (p > buf && (p[-1] == 'r' || p[-1] == 'w'))
			sum += strtoull(p + 6, NULL, 10);
	}
	return sum;
}

int cgroup_v2_sample(const struct cgroup_job *cg, struct cgroup_sample *s)
{
	const char *dir = cg->dir[0];
	uint64_t v;

	if (cgroup_read_key(dir, "cpu.stat", "usage_usec", &v) < 0)
		return -ENOENT;
	s->cpu_usec = v;
	if (cgroup_read_u64(dir, "memory.current", &v) == 0)
		s->mem_bytes = v;
	s->io_bytes = io_bytes(dir);
	return 0;
}
