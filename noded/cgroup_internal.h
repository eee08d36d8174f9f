/* SPDX-License-Identifier: MIT */
#ifndef ROTA_NODED_CGROUP_INTERNAL_H
#define ROTA_NODED_CGROUP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "noded/cgroup.h"

/* Shared by cgroup.c, cgroup_v1.c and cgroup_v2.c only. */

struct cgroup_job {
	const struct cgroup_env *env;
	char *dir[CGROUP_NCTL];	  /* v1: per controller (NULL: off); v2: [0] */
	bool shared[CGROUP_NCTL]; /* dir[] is an earlier one's: controllers
				     mounted together share a directory */
	char *procs[CGROUP_NCTL + 1]; /* cgroup_job_procs(), NULL-ended */
};

extern const char *const cgroup_ctl_names[CGROUP_NCTL];

/* What a backend found: its controllers' state and why they are off. */
struct cgroup_found {
	char off[512];	 /* "pids (not mounted), ..." */
	char where[256]; /* where jobs' cgroups go, for the log */
};

/* Write 'text' to '<dir>/<name>': 0 or -errno. */
int cgroup_write(const char *dir, const char *name, const char *text);
/* Read '<dir>/<name>' into 'buf' (NUL-ended, trailing newline cut). */
int cgroup_read(const char *dir, const char *name, char *buf, size_t size);
/* The first number in '<dir>/<name>'; -errno when none. */
int cgroup_read_u64(const char *dir, const char *name, uint64_t *v);
/* "key value" lines (cpu.stat, memory.events): the value of 'key'. */
int cgroup_read_key(const char *dir, const char *name, const char *key,
		    uint64_t *v);
/* Does '<dir>/<name>' exist? */
bool cgroup_has(const char *dir, const char *name);
/* 'sig' (0: none) to every pid in '<dir>/cgroup.procs'; how many. */
unsigned cgroup_signal_listed(const char *dir, int sig);
/* Wait up to 5 s until '<dir>/cgroup.procs' is empty, killing meanwhile. */
bool cgroup_wait_empty(const char *dir);
/* rmdir, retried a moment on EBUSY (a last task still exiting). */
void cgroup_rmdir(const char *dir);
/* mkdir 'dir'; one there already is emptied and made anew.  0/-errno. */
int cgroup_mkdir_new(const char *dir);
/* Append "name (why)" to found->off. */
void cgroup_off(struct cgroup_found *f, const char *name, const char *why);

/*
 * The mount of a hierarchy of type 'type' ("cgroup" or "cgroup2") with
 * controller 'ctl' among its options (NULL: any), and the cgroup mounted
 * there ('*root', "/" but in a container); -ENOENT.  Caller frees both.
 */
int cgroup_mount(const char *type, const char *ctl, char **point, char **root);
/*
 * The daemon's own cgroup in the v1 hierarchy with 'ctl', or in v2 (NULL),
 * as a directory: the mount point plus its path less the mount's root.
 * NULL when not found.  Caller frees.
 */
char *cgroup_own_dir(const char *ctl);

/* The backends: fill 'env' (has[], base[]) and 'f'; -errno: none at all. */
int cgroup_v1_setup(struct cgroup_env *env, struct cgroup_found *f);
int cgroup_v2_setup(struct cgroup_env *env, struct cgroup_found *f);
/* Make the job's directories in 'cg' with 'lim'; 0 or -errno with 'err'. */
int cgroup_v1_create(struct cgroup_job *cg, const struct cgroup_limits *lim,
		     struct rota_error *err);
int cgroup_v2_create(struct cgroup_job *cg, const struct cgroup_limits *lim,
		     struct rota_error *err);
/* Kill all in it and wait until empty; how many were left in it. */
unsigned cgroup_v1_kill(struct cgroup_job *cg);
unsigned cgroup_v2_kill(struct cgroup_job *cg);
/* Read what the (empty) cgroup used. */
void cgroup_v1_usage(const struct cgroup_job *cg, struct cgroup_usage *u);
void cgroup_v2_usage(const struct cgroup_job *cg, struct cgroup_usage *u);

/* Read a running job's use so far; -ENOENT: no CPU time to read. */
int cgroup_v1_sample(const struct cgroup_job *cg, struct cgroup_sample *s);
int cgroup_v2_sample(const struct cgroup_job *cg, struct cgroup_sample *s);

#endif
