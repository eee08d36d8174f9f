/* SPDX-License-Identifier: MIT */
#ifndef ROTA_NODED_STEP_H
#define ROTA_NODED_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include <sys/types.h>

#include "common/auth.h"
#include "common/msg.h"

/*
 * A job step's supervisor on one node (slurmstepd's part): a process of
 * its own, forked by the node daemon once it has checked the step's
 * credential (steps.c), that starts the node's tasks of the step (each
 * bound to its own cores, as the job's owner, in a cgroup of the step's
 * own below the daemon's, named for the job as the batch job's is),
 * carries their standard streams and wait statuses to `rota run` over the
 * connection the launch came on (the session it opened goes on), serves
 * MPI wire-up (wireup.h) and signals, and ends every task when the
 * client goes away, the daemon says the job is over (SIGTERM: KillWait,
 * then SIGKILL), or the node's lease runs out.
 */
struct topology;
struct cgroup_env;

struct step_args {
	int fd;				/* the client's connection */
	struct rota_session sess;	/* opened by its STEP_LAUNCH */
	struct rota_auth *auth;
	const struct rota_step_cred *cred;
	const struct rota_msg_step_launch *launch;
	const struct topology *topo;
	const struct cgroup_env *cgroups; /* NULL: none */
	const char *lease_path;
	const char *spool;		/* this node's SpoolDir */
	const char *node;
	const char *log_file;
	int64_t kill_wait;		/* seconds */
};

/*
 * While it runs, a step's supervisor leaves "<spool>/step<JOB>.<STEP>.<PID>"
 * ("<job> <run> <its kernel start time> <uid> <gid>"), so that a restarted daemon finds
 * it again (steps.c), or empties the cgroup of one that was killed.
 */
char *step_mark_path(const char *spool, const struct rota_step_cred *c,
		     pid_t pid);

/* Its wire-up servers' private directory beside it ("<mark>.d"). */
char *step_tmpdir_path(const char *spool, const struct rota_step_cred *c,
		       pid_t pid);
/*
 * Remove a step's "<mark>.d" and all in it: its "user" part as the
 * tasks' owner, then the rest (root's).
 */
void step_remove_tree(const char *path, uid_t uid, gid_t gid);

/* In the forked child: run the step to its end, then exit. */
noreturn void step_main(const struct step_args *a);

/*
 * The variables a task gets beyond the client's: ROTA_STEP_ID,
 * ROTA_PROCID, ROTA_LOCALID, ROTA_NODEID, ROTA_NTASKS, ROTA_TASK_CORES
 * (its cores, as the node describes them: 'cores'), TMPDIR ('tmpdir',
 * the step's own on the node; NULL: the client's), ..., then 'extra'
 * (the wire-up server's), then the client's minus what those set.  Not
 * Slurm's names: MPI libraries take SLURM_JOBID for a Slurm to call.
 * NULL-terminated, caller frees each and the vector.
 */
char **step_task_env(const struct rota_step_cred *c, uint32_t rank,
		     uint32_t local, const uint32_t *cores, uint32_t ncores,
		     const char *tmpdir, char *const *client_env,
		     char *const *extra);

#endif
