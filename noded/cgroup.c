// SPDX-License-Identifier: MIT
/*
 * Jobs' cgroups (see cgroup.h): which hierarchy, the log line that says
 * so, and what both backends share (reading and writing cgroup files,
 * finding mounts and the daemon's own cgroup, emptying and removing).
 * The v1 and v2 specifics are in cgroup_v1.c and cgroup_v2.c.
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
#include <time.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "noded/cgroup_internal.h"
#include "noded/textfile.h"

const char *const cgroup_ctl_names[CGROUP_NCTL] = {
	[CGROUP_MEMORY] = "memory",   [CGROUP_PIDS] = "pids",
	[CGROUP_CPUSET] = "cpuset",   [CGROUP_CPUACCT] = "cpuacct",
	[CGROUP_FREEZER] = "freezer", [CGROUP_DEVICES] = "devices",
};

int cgroup_write(const char *dir, const char *name, const char *text)
{
	char *path = rota_xasprintf("%s/%s", dir, name);
	int rc = textfile_write(path, 0, 0, text);

	free(path);
	return rc;
}

int cgroup_read(const char *dir, const char *name, char *buf, size_t size)
{
	char *path = rota_xasprintf("%s/%s", dir, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	free(path);
	buf[0] = '\0';
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int cgroup_read_u64(const char *dir, const char *name, uint64_t *v)
{
	char buf[64];
	int rc = cgroup_read(dir, name, buf, sizeof(buf));

	if (rc == 0 && sscanf(buf, "%" SCNu64, v) != 1)
		rc = -EINVAL;
	return rc;
}

int cgroup_read_key(const char *dir, const char *name, const char *key,
		    uint64_t *v)
{
	char *path = rota_xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "re");
	char k[64];
	uint64_t n;
	int rc = -ENOENT;

	free(path);
	if (!f)
		return -errno;
	while (rc < 0 && fscanf(f, "%63s %" SCNu64, k, &n) == 2)
		if (strcmp(k, key) == 0) {
			*v = n;
			rc = 0;
		}
	fclose(f);
	return rc;
}

bool cgroup_has(const char *dir, const char *name)
{
	char *path = rota_xasprintf("%s/%s", dir, name);
	bool yes = access(path, F_OK) == 0;

	free(path);
	return yes;
}

unsigned cgroup_signal_listed(const char *dir, int sig)
{
	char *path = rota_xasprintf("%s/cgroup.procs", dir);
	FILE *f = fopen(path, "re");
	unsigned n = 0;
	int pid;

	free(path);
	if (!f)
		return 0;
	while (fscanf(f, "%d", &pid) == 1) {
		if (sig)
			kill(pid, sig);
		n++;
	}
	fclose(f);
	return n;
}

static void pause_10ms(void)
{
	nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
}

bool cgroup_wait_empty(const char *dir)
{
	for (int i = 0; i < 500; i++) {
		if (!cgroup_signal_listed(dir, SIGKILL))
			return true;
		pause_10ms();
	}
	return false;
}

void cgroup_rmdir(const char *dir)
{
	/*
	 * A cgroup whose last task is still exiting refuses rmdir (EBUSY)
	 * for a moment: up to 2 s, then it is left (and removed by the next
	 * job of its name, see cgroup_mkdir_new).
	 */
	for (int i = 0; i < 200; i++) {
		if (!cgroup_signal_listed(dir, SIGKILL) &&
		    (rmdir(dir) == 0 || errno == ENOENT))
			return;
		pause_10ms();
	}
}

int cgroup_mkdir_new(const char *dir)
{
	if (mkdir(dir, 0755) == 0)
		return 0;
	if (errno != EEXIST)
		return -errno;
	/* one of the same name was left by a supervisor killed with -9 */
	cgroup_rmdir(dir);
	return mkdir(dir, 0755) < 0 ? -errno : 0;
}

void cgroup_off(struct cgroup_found *f, const char *name, const char *why)
{
	size_t len = strlen(f->off);

	snprintf(f->off + len, sizeof(f->off) - len, "%s%s (%s)",
		 len ? ", " : "", name, why);
}

/* Does the comma-separated 'list' name 'word'? */
static bool lists(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* mountinfo: "ID PARENT MAJ:MIN ROOT POINT OPTS [TAGS] - TYPE SOURCE SUPER" */
int cgroup_mount(const char *type, const char *ctl, char **point, char **root)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];

	*point = *root = NULL;
	if (!f)
		return -ENOENT;
	while (!*point && fgets(line, sizeof(line), f)) {
		char r[2048], p[2048], t[64], super[512];
		const char *sep = strstr(line, " - ");

		if (!sep ||
		    sscanf(line, "%*s %*s %*s %2047s %2047s", r, p) != 2 ||
		    sscanf(sep + 3, "%63s %*s %511s", t, super) != 2)
			continue;
		if (strcmp(t, type) == 0 && (!ctl || lists(super, ctl))) {
			*point = rota_xstrdup(p);
			*root = rota_xstrdup(r);
		}
	}
	fclose(f);
	return *point ? 0 : -ENOENT;
}

/* Our path in the hierarchy of 'ctl' ("N:a,b:/path"; v2: "0::/path"). */
static char *own_path(const char *ctl)
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
		p[strcspn(p, "\n")] = '\0';
		if (ctl ? lists(c + 1, ctl) : !c[1])
			path = rota_xstrdup(p);
	}
	fclose(f);
	return path;
}

char *cgroup_own_dir(const char *ctl)
{
	char *point, *root, *own, *dir = NULL;
	const char *rel;

	if (cgroup_mount(ctl ? "cgroup" : "cgroup2", ctl, &point, &root) < 0)
		return NULL;
	own = own_path(ctl);
	if (own) {
		rel = own;
		/* as seen under the mount: less the part mounted there */
		if (strcmp(root, "/") != 0 &&
		    strncmp(rel, root, strlen(root)) == 0)
			rel += strlen(root);
		dir = rota_xasprintf("%s%s", point,
				     strcmp(rel, "/") ? rel : "");
	}
	free(point);
	free(root);
	free(own);
	return dir;
}

/* "v1", "v2" or "hybrid": what the host mounts, whatever we use. */
static const char *hierarchy(void)
{
	char *point, *root;
	bool v1 = false, v2;

	for (int c = 0; c < CGROUP_NCTL && !v1; c++)
		if (cgroup_mount("cgroup", cgroup_ctl_names[c], &point,
				 &root) == 0) {
			v1 = true;
			free(point);
			free(root);
		}
	v2 = cgroup_mount("cgroup2", NULL, &point, &root) == 0;
	if (v2) {
		free(point);
		free(root);
	}
	return v1 && v2 ? "hybrid" : v1 ? "v1" : v2 ? "v2" : "no";
}

static char *summarize(const struct cgroup_env *env, const char *hier,
		       const struct cgroup_found *f,
		       const struct rota_conf *conf)
{
	char on[128] = "", tasks[32] = "unlimited";
	const char *mem = "on";

	for (int c = 0; c < CGROUP_NCTL; c++) {
		const char *name = cgroup_ctl_names[c];

		if (!env->has[c])
			continue;
		if (env->version == 2 && c == CGROUP_CPUACCT)
			name = "cpu.stat";
		else if (env->version == 2 && c == CGROUP_FREEZER)
			name = "cgroup.kill";
		snprintf(on + strlen(on), sizeof(on) - strlen(on), "%s%s",
			 on[0] ? ", " : "", name);
	}
	if (!conf->constrain_ram)
		mem = "off (ConstrainRAMSpace=no)";
	else if (!env->has[CGROUP_MEMORY])
		mem = "off (no memory controller)";
	if (conf->max_tasks_per_job && env->has[CGROUP_PIDS])
		snprintf(tasks, sizeof(tasks), "%u", conf->max_tasks_per_job);
	else if (conf->max_tasks_per_job)
		snprintf(tasks, sizeof(tasks), "off (no pids controller)");
	return rota_xasprintf(
		"cgroups: %s hierarchy, jobs in v%d cgroups in %s "
		"with %s; off: %s; memory limits %s; "
		"MaxTasksPerJob %s",
		hier, env->version, f->where, on[0] ? on : "none",
		f->off[0] ? f->off : "none", mem, tasks);
}

struct cgroup_env *cgroup_env_create(const struct rota_conf *conf,
				     char **summary)
{
	struct cgroup_env *env;
	struct cgroup_found f = { "", "" };
	const char *hier = hierarchy();
	int version = 2, rc;

	if (geteuid() != 0) {
		*summary = rota_xstrdup("cgroups off: not running as root; "
					"a job's end kills its process group "
					"only");
		return NULL;
	}
	if (conf->cgroup_version == ROTA_CGROUP_V1 ||
	    (conf->cgroup_version == ROTA_CGROUP_AUTO &&
	     strcmp(hier, "v2") != 0))
		version = 1;
	env = rota_xcalloc(1, sizeof(*env));
	env->version = version;
	env->constrain_ram = conf->constrain_ram;
	env->max_tasks = conf->max_tasks_per_job;
	rc = version == 1 ? cgroup_v1_setup(env, &f) : cgroup_v2_setup(env, &f);
	if (rc < 0) {
		*summary = rota_xasprintf("cgroups off: %s hierarchy, no v%d "
					  "cgroup for jobs: %s; a job's end "
					  "kills its process group only",
					  hier, version, f.off);
		cgroup_env_destroy(env);
		return NULL;
	}
	*summary = summarize(env, hier, &f, conf);
	return env;
}

void cgroup_env_destroy(struct cgroup_env *env)
{
	if (!env)
		return;
	for (int c = 0; c < CGROUP_NCTL; c++)
		free(env->base[c]);
	free(env->mems);
	free(env);
}

static void job_free(struct cgroup_job *cg)
{
	for (int c = 0; c < CGROUP_NCTL; c++) {
		free(cg->dir[c]);
		free(cg->procs[c]);
	}
	free(cg);
}

/* The job's cgroup paths, made or not. */
static struct cgroup_job *job_named(const struct cgroup_env *env,
				    uint32_t job_id, uint32_t run, int pid)
{
	struct cgroup_job *cg = rota_xcalloc(1, sizeof(*cg));

	cg->env = env;
	for (int c = 0; c < CGROUP_NCTL; c++) {
		if (!env->base[c])
			continue;
		cg->dir[c] = rota_xasprintf("%s/job%u.%u.%d", env->base[c],
					    job_id, run, pid);
		for (int d = 0; d < c; d++)
			cg->shared[c] |= env->base[d] &&
					 !strcmp(env->base[d], env->base[c]);
	}
	return cg;
}

void cgroup_job_kill(struct cgroup_job *cg)
{
	if (cg)
		cg->env->version == 1 ? cgroup_v1_kill(cg) : cgroup_v2_kill(cg);
}

unsigned cgroup_job_reap(const struct cgroup_env *env, uint32_t job_id,
			 uint32_t run, int pid)
{
	struct cgroup_job *cg = job_named(env, job_id, run, pid);
	struct cgroup_usage u = { 0 };
	bool there = false;

	for (int c = 0; c < CGROUP_NCTL; c++)
		there |= cg->dir[c] && access(cg->dir[c], F_OK) == 0;
	if (!there) {
		job_free(cg);
		return 0;
	}
	cgroup_job_end(cg, &u);
	return u.left;
}

int cgroup_job_sample(const struct cgroup_env *env, uint32_t job_id,
		      uint32_t run, int pid, struct cgroup_sample *s)
{
	struct cgroup_job *cg = job_named(env, job_id, run, pid);
	int rc;

	*s = (struct cgroup_sample){ 0 };
	rc = env->version == 1 ? cgroup_v1_sample(cg, s)
			       : cgroup_v2_sample(cg, s);
	job_free(cg);
	return rc;
}

int cgroup_job_create(const struct cgroup_env *env, uint32_t job_id,
		      uint32_t run, int pid, const struct cgroup_limits *lim,
		      struct cgroup_job **out, struct rota_error *err)
{
	struct cgroup_job *cg = job_named(env, job_id, run, pid);
	size_t n = 0;
	int rc;

	*out = NULL;
	rc = env->version == 1 ? cgroup_v1_create(cg, lim, err)
			       : cgroup_v2_create(cg, lim, err);
	if (rc < 0) {
		job_free(cg);
		return rc;
	}
	for (int c = 0; c < CGROUP_NCTL; c++)
		if (cg->dir[c] && !cg->shared[c])
			cg->procs[n++] =
				rota_xasprintf("%s/cgroup.procs", cg->dir[c]);
	*out = cg;
	return 0;
}

const char *const *cgroup_job_procs(const struct cgroup_job *cg)
{
	return (const char *const *)cg->procs;
}

void cgroup_job_end(struct cgroup_job *cg, struct cgroup_usage *usage)
{
	struct cgroup_usage u = { 0 };

	if (cg) {
		u.left = cg->env->version == 1 ? cgroup_v1_kill(cg)
					       : cgroup_v2_kill(cg);
		if (cg->env->version == 1)
			cgroup_v1_usage(cg, &u);
		else
			cgroup_v2_usage(cg, &u);
		for (int c = 0; c < CGROUP_NCTL; c++)
			if (cg->dir[c] && !cg->shared[c])
				cgroup_rmdir(cg->dir[c]);
		job_free(cg);
	}
	if (usage)
		*usage = u;
}
