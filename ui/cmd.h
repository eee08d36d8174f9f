/* SPDX-License-Identifier: MIT */
#ifndef ROTA_UI_CMD_H
#define ROTA_UI_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/client.h"

/*
 * One subcommand of `rota` (tmux's cmd_entry): its name, a one-line
 * summary, its man-style help, and what runs it.  run() gets argv with the
 * subcommand's name in argv[0] and returns the exit status: 0 ok, 1 error,
 * 2 usage.  A NULL help: run() prints it given --help (rota sim, whose
 * program, of another folder, owns its manual).
 */
struct cmd {
	const char *name;
	const char *summary;
	const char *help;
	int (*run)(int argc, char **argv);
};

/*
 * Exec rota-<argv[0]> with these arguments (cmd_helper.c); returns only
 * when it cannot.  rota-top's entry point follows (rota-sim's is
 * sim/cli.c's main).
 */
int cmd_run_helper(int argc, char **argv);
int top_run(int argc, char **argv);

extern const struct cmd cmd_submit;
extern const struct cmd cmd_queue;
extern const struct cmd cmd_cancel;
extern const struct cmd cmd_nodes;
extern const struct cmd cmd_show;
extern const struct cmd cmd_diag;
extern const struct cmd cmd_node;
extern const struct cmd cmd_share;
extern const struct cmd cmd_prio;
extern const struct cmd cmd_showq;
extern const struct cmd cmd_help;
extern const struct cmd cmd_history;
extern const struct cmd cmd_reconfigure;
extern const struct cmd cmd_hold;
extern const struct cmd cmd_release;
extern const struct cmd cmd_nice;
extern const struct cmd cmd_update;
extern const struct cmd cmd_requeue;
extern const struct cmd cmd_top;
extern const struct cmd cmd_sim;
extern const struct cmd cmd_resv;
extern const struct cmd cmd_why;
extern const struct cmd cmd_run;
extern const struct cmd cmd_alloc;

/* All commands, NULL-terminated (main.c). */
extern const struct cmd *const rota_cmds[];
const struct cmd *cmd_find(const char *name);

/* "rota NAME: text" on stderr, for user errors. */
void cmd_error(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Send one request to the controller found through $ROTA_CTLD (ADDR:PORT)
 * or rota.conf ($ROTA_CONF, else the installed one).  On failure prints
 * "rota NAME: reason" and returns -errno; 'reply' must then not be used.
 * While the controller does not answer it retries for ClientRetry (or
 * $ROTA_CLIENT_RETRY), saying so once on stderr (client.h).
 */
int cmd_call(const char *name, uint16_t type, const char *body, size_t len,
	     struct rota_reply *reply);

/*
 * cmd_call without printing and without retrying (rota top's worker asks
 * again at its next refresh anyway): the reason is in 'err'.
 */
int cmd_call_quiet(uint16_t type, const char *body, size_t len,
		   int timeout_ms, struct rota_reply *reply,
		   struct rota_error *err);

/* Parse a job id argument; prints the error and returns -EINVAL. */
/* --json: the reply's body as it came, then the reply cleared. */
void cmd_print_reply(struct rota_reply *reply);
int cmd_parse_job_id(const char *name, const char *text, uint32_t *id);
/*
 * A job as users name it: "12", a task of an array "12_7", an array's
 * pending rest "12_[3-999%16]" (cut to fit 'len').
 */
#define ROTA_JOB_NAME_LEN 64
struct rota_job_info;
void cmd_job_name(const struct rota_job_info *j, char *buf, size_t len);

struct rota_msg_job_list;
struct rota_msg_node_list;
/* Fetch all jobs (job_id 0) or one; prints errors.  Clear 'list' after. */
int cmd_fetch_jobs(const char *name, uint32_t job_id,
		   struct rota_msg_job_list *list);
/* cmd_steps.c: job steps (rota run) for rota queue --steps, show job. */
struct rota_msg_step_list;
int cmd_fetch_steps(const char *name, uint32_t job_id,
		    struct rota_msg_step_list *m);
int cmd_print_steps(const struct rota_msg_step_list *m, bool all,
		    const char *user, bool noheader);
/* Step=J.S lines of rota show job; errors printed. */
void cmd_show_steps(const char *name, uint32_t job_id);
/* rota show licenses (cmd_licenses.c); exit status */
int cmd_show_licenses(bool json);
/* Fetch all nodes; prints errors.  Clear 'list' after. */
int cmd_fetch_nodes(const char *name, struct rota_msg_node_list *list);

/*
 * rota queue --start (cmd_queue_start.c): pending jobs with their
 * expected start; 'user' and 'job' (0: all) filter.  Exit status.
 */
int queue_start(const char *user, uint32_t job, bool noheader);

/* Local "YYYY-MM-DDTHH:MM:SS", or "N/A" for 0, into 'buf'. */
void cmd_format_time(int64_t t, char *buf, size_t len);

/*
 * getopt handling of --help, and rota help CMD: prints the command's help
 * to stdout, or has its run() print it (a NULL help).
 */
int cmd_print_help(const struct cmd *c);

/*
 * cmd_control.c: send a control request (HOLD, RELEASE, ...) and print
 * the controller's line for every job refused.  Returns the exit status:
 * 0 all done, 1 some refused or no answer.
 */
struct rota_msg_control;
int cmd_control(const char *name, uint16_t type,
		const struct rota_msg_control *m);
/* Job id arguments into m->job_ids (caller frees); prints the error. */
int cmd_parse_job_ids(const char *name, int argc, char **argv,
		      struct rota_msg_control *m);
/* -h or --help among the arguments after argv[0]. */
bool cmd_wants_help(int argc, char **argv);

/* --json of rota nodes and rota show node: {"nodes":[...]} on stdout. */
struct rota_node_info;
void cmd_print_nodes_json(const struct rota_node_info *nodes, size_t n);

#endif
