/* SPDX-License-Identifier: MIT */
#ifndef ROTA_NODED_LAUNCH_H
#define ROTA_NODED_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"

struct topology;

/*
 * Starting a batch script as its user: the one privileged step of the node
 * daemon, kept in this file (STYLE 13, after OpenSSH's uidswap.c).
 */
struct launch_spec {
	uint32_t job_id;
	uid_t uid;
	gid_t gid;
	const char *script;	 /* the batch script text */
	const char *spool_dir;	 /* where the script file is written */
	const char *workdir;	 /* absolute */
	const char *stdout_path; /* absolute, already expanded */
	const char *stderr_path; /* absolute; NULL: same file as stdout */
	char *const *env;	 /* NULL-terminated, the job's whole env */
	const struct topology *topo;
	const unsigned *cores;	 /* logical cores of 'topo' to bind to */
	size_t ncores;
	/* the user's groups, from launch_groups(); NULL: looked up here */
	const gid_t *groups;
	size_t ngroups;
	/*
	 * The job's cgroup.procs files (one per v1 hierarchy), joined before
	 * anything else; NULL-terminated; NULL: none
	 */
	const char *const *cgroup_procs;
	/*
	 * A job step's task instead of a batch script (noded/step_start.c):
	 * 'argv' is exec'd (argv[0] looked up in the PATH of 'env', as the
	 * user), 'script' and the output paths are unused, and the task's
	 * standard streams are 'stdio' (a pipe or a pseudo-terminal).
	 */
	char *const *argv;
	const int *stdio;	/* [3]; NULL: the files above */
	bool ctty;		/* stdio[0] is a terminal: make it ours */
	int keep_fd;		/* stays open across exec (PMI_FD); -1: none */
};

/*
 * Write the script to "<spool_dir>/job<id>.script" (mode 0700, owned by the
 * user), then start a child (a clone sharing our memory until it execs, as
 * posix_spawn() does) that: becomes a session and process-group leader
 * (pgid == pid, so the whole job can be signalled with killpg); restores
 * default signal dispositions and an empty signal mask; takes the user's
 * gid, supplementary groups (initgroups) and uid, and checks it cannot get
 * root back; opens the output files as that user (created 0644, truncated);
 * chdirs to workdir; binds to the cores; execs the script (with /bin/sh when
 * it has no "#!" line).  Any failure before exec is written by the child on
 * a close-on-exec pipe, read here, and returned as -errno with 'err' saying
 * what failed ("job 12: chdir '/nope': No such file or directory"); no
 * process is left behind then.  When not running as root, only jobs of the
 * daemon's own uid can be started (-EPERM otherwise).
 * On success '*pid' is the child (also its pgid).
 */
int launch_start(const struct launch_spec *spec, pid_t *pid,
		 struct rota_error *err);

/*
 * The supplementary groups of spec->uid, spec->gid among them, as
 * launch_start() needs them: a daemon looks them up once, before it forks a
 * supervisor, so that no supervisor loads NSS modules of its own.  Caller
 * frees '*groups'.  -ENOENT for an unknown uid, -EINVAL when they cannot be
 * listed, with 'err'; '*groups' is NULL then.
 */
int launch_groups(const struct launch_spec *spec, gid_t **groups,
		  size_t *ngroups, struct rota_error *err);

/* Remove what launch_start() wrote for this job (the script file). */
void launch_cleanup(const char *spool_dir, uint32_t job_id);

#endif
