// SPDX-License-Identifier: MIT
/*
 * Jobs' cgroups on cgroup v1 (see cgroup.h): a directory per controller
 * hierarchy, each below the daemon's own cgroup in it.  The end freezes
 * the job (freezer) so that nothing forks while it is killed.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "noded/cgroup_internal.h"

/*
 * A new v1 cpuset has no CPUs and no memory nodes, and takes no task until
 * it has both: "rota" gets its parent's.
 */
static int cpuset_base(struct cgroup_env *env, const char *own,
		       const char *base)
{
	char buf[1024];
	int rc = 0;

	for (int i = 0; i < 2 && rc == 0; i++) {
		const char *name = i ? "cpuset.mems" : "cpuset.cpus";

		rc = cgroup_read(base, name, buf, sizeof(buf));
		if (rc == 0 && !buf[0])
			rc = cgroup_read(own, name, buf, sizeof(buf));
		if (rc == 0)
			rc = cgroup_write(base, name, buf);
	}
	if (rc == 0)
		rc = cgroup_read(base, "cpuset.mems", buf, sizeof(buf));
	if (rc == 0)
		env->mems = rota_xstrdup(buf);
	return rc;
}

int cgroup_v1_setup(struct cgroup_env *env, struct cgroup_found *f)
{
	int n = 0;

	for (int c = 0; c < CGROUP_NCTL; c++) {
		const char *name = cgroup_ctl_names[c];
		char *own = cgroup_own_dir(name), *base;
		int rc = 0;

		if (!own) {
			cgroup_off(f, name, "not mounted");
			continue;
		}
		base = rota_xasprintf("%s/rota", own);
		if (mkdir(base, 0755) < 0 && errno != EEXIST)
			rc = -errno;
		if (rc == 0 && c == CGROUP_CPUSET)
			rc = cpuset_base(env, own, base);
		if (rc < 0) {
			cgroup_off(f, name, strerror(-rc));
			free(base);
		} else {
			env->base[c] = base;
			env->has[c] = true;
			n++;
		}
		free(own);
	}
	if (!n)
		return -ENOENT;
	for (int c = 0; c < CGROUP_NCTL && !f->where[0]; c++)
		if (env->base[c])
			snprintf(f->where, sizeof(f->where), "%s (and alike)",
				 env->base[c]);
	return 0;
}

/* Memory, and memory plus swap where swap is accounted. */
static int set_memory(const char *dir, uint64_t mem_mb)
{
	char limit[32];
	int rc;

	snprintf(limit, sizeof(limit), "%" PRIu64, mem_mb << 20);
	/* the OOM killer on, whatever the parent's oom_kill_disable says */
	cgroup_write(dir, "memory.oom_control", "0");
	rc = cgroup_write(dir, "memory.limit_in_bytes", limit);
	if (rc < 0)
		return rc;
	/* else past its limit a job would be swapped out, not stopped */
	rc = cgroup_write(dir, "memory.memsw.limit_in_bytes", limit);
	if (rc == -ENOENT) {
		cgroup_write(dir, "memory.swappiness", "0");
		rc = 0;
	}
	return rc;
}

static void remove_dirs(struct cgroup_job *cg)
{
	/* those not made yet are not there: rmdir says ENOENT */
	for (int c = 0; c < CGROUP_NCTL; c++)
		if (cg->dir[c] && !cg->shared[c])
			cgroup_rmdir(cg->dir[c]);
}

static int set_limits(struct cgroup_job *cg, const struct cgroup_limits *lim,
		      const char **what)
{
	const struct cgroup_env *env = cg->env;
	const char *cpus = lim->cpus;
	char buf[1024], tasks[16];
	int rc = 0;

	if (cg->dir[CGROUP_MEMORY] && env->constrain_ram && lim->mem_mb) {
		*what = "memory limit";
		rc = set_memory(cg->dir[CGROUP_MEMORY], lim->mem_mb);
	}
	if (rc == 0 && cg->dir[CGROUP_PIDS] && env->max_tasks) {
		*what = "pids.max";
		snprintf(tasks, sizeof(tasks), "%u", env->max_tasks);
		rc = cgroup_write(cg->dir[CGROUP_PIDS], "pids.max", tasks);
	}
	/* the node's other GPUs: not the job's to open */
	for (char *const *d = lim->deny; rc == 0 && d && *d &&
					 cg->dir[CGROUP_DEVICES];
	     d++) {
		*what = "devices.deny";
		rc = cgroup_write(cg->dir[CGROUP_DEVICES], "devices.deny", *d);
	}
	if (rc == 0 && cg->dir[CGROUP_CPUSET]) {
		*what = "cpuset";
		if (!cpus && cgroup_read(env->base[CGROUP_CPUSET],
					 "cpuset.cpus", buf, sizeof(buf)) == 0)
			cpus = buf;
		rc = cgroup_write(cg->dir[CGROUP_CPUSET], "cpuset.cpus",
				  cpus ? cpus : "");
		if (rc == 0)
			rc = cgroup_write(cg->dir[CGROUP_CPUSET], "cpuset.mems",
					  env->mems);
	}
	return rc;
}

int cgroup_v1_create(struct cgroup_job *cg, const struct cgroup_limits *lim,
		     struct rota_error *err)
{
	const char *what = "";
	int rc = 0;

	for (int c = 0; c < CGROUP_NCTL; c++) {
		if (!cg->dir[c] || cg->shared[c])
			continue;
		rc = cgroup_mkdir_new(cg->dir[c]);
		if (rc < 0) {
			rota_errorf(err, rc, "%s: %s", cg->dir[c],
				    strerror(-rc));
			remove_dirs(cg);
			return rc;
		}
	}
	rc = set_limits(cg, lim, &what);
	if (rc < 0) {
		remove_dirs(cg);
		return rota_errorf(err, rc, "%s: %s", what, strerror(-rc));
	}
	return 0;
}

/* Wait (up to 1 s) until the freezer says FROZEN. */
static void freeze(const char *dir)
{
	char state[32];

	if (cgroup_write(dir, "freezer.state", "FROZEN") < 0)
		return;
	for (int i = 0; i < 100; i++) {
		int rc = cgroup_read(dir, "freezer.state", state, sizeof(state));

		if (rc < 0 || strcmp(state, "FROZEN") == 0)
			return;
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
}

unsigned cgroup_v1_kill(struct cgroup_job *cg)
{
	const char *fz = cg->dir[CGROUP_FREEZER];
	unsigned left = 0;
	int c;

	/* frozen, none of it can fork while it is listed and killed */
	if (fz) {
		freeze(fz);
		left = cgroup_signal_listed(fz, SIGKILL);
		cgroup_write(fz, "freezer.state", "THAWED");
	} else {
		for (c = 0; c < CGROUP_NCTL && !cg->dir[c]; c++)
			;
		if (c < CGROUP_NCTL)
			left = cgroup_signal_listed(cg->dir[c], SIGKILL);
	}
	/* a process that joined no hierarchy of ours is in none: each */
	for (c = 0; c < CGROUP_NCTL; c++)
		if (cg->dir[c] && !cg->shared[c])
			cgroup_wait_empty(cg->dir[c]);
	return left;
}

void cgroup_v1_usage(const struct cgroup_job *cg, struct cgroup_usage *u)
{
	const char *mem = cg->dir[CGROUP_MEMORY];
	uint64_t v;

	if (cg->dir[CGROUP_CPUACCT] &&
	    cgroup_read_u64(cg->dir[CGROUP_CPUACCT], "cpuacct.usage", &v) == 0)
		u->cpu_usec = v / 1000;
	if (mem && cgroup_read_u64(mem, "memory.max_usage_in_bytes", &v) == 0)
		u->mem_peak = v;
	if (mem &&
	    cgroup_read_key(mem, "memory.oom_control", "oom_kill", &v) == 0)
		u->oom_killed = v > 0;
}

int cgroup_v1_sample(const struct cgroup_job *cg, struct cgroup_sample *s)
{
	const char *mem = cg->dir[CGROUP_MEMORY];
	uint64_t v;

	if (!cg->dir[CGROUP_CPUACCT] ||
	    cgroup_read_u64(cg->dir[CGROUP_CPUACCT], "cpuacct.usage", &v) < 0)
		return -ENOENT;
	s->cpu_usec = v / 1000;
	if (mem && cgroup_read_u64(mem, "memory.usage_in_bytes", &v) == 0)
		s->mem_bytes = v;
	return 0;
}
