/* SPDX-License-Identifier: MIT */
#ifndef ROTA_UI_RUN_ALLOC_H
#define ROTA_UI_RUN_ALLOC_H

#include <stdbool.h>
#include <stdint.h>

/* What an interactive job asks for (rota run outside a job, rota alloc). */
struct alloc_req {
	const char *name;
	uint32_t ntasks;	/* 0: Slurm's arithmetic from the others */
	uint32_t nodes;
	uint32_t cpus_per_task;
	uint32_t ntasks_per_node;
	uint64_t mem_mb;
	int64_t time_limit;
	const char *queue;
	const char *account;
	const char *constraint;
	bool exclusive;
	bool verbose;		/* say when it starts, even at once */
};

/*
 * Queue the job and wait until it runs (0, '*id' set); after a few
 * seconds of waiting say once why, on stderr.  Ctrl-C meanwhile cancels
 * it (-EINTR); a job that ends first is -ECANCELED.  Errors printed.
 * On success SIGINT, SIGTERM and SIGHUP are left blocked: the caller
 * takes them (and must end the job) or unblocks them.
 */
int alloc_start(const char *name, const struct alloc_req *a, uint32_t *id);

/* Wait (a few seconds at most) until the ended job says so. */
void alloc_wait_end(const char *name, uint32_t id);

/* End it: COMPLETED, or FAILED when 'failed'.  Errors printed. */
void alloc_end(const char *name, uint32_t id, bool failed);

/* The long options without a letter, shared by rota run and rota alloc. */
enum {
	OPT_PER_NODE = 256,
	OPT_MPI,
	OPT_PTY,
	OPT_OVERLAP,
	OPT_MEM,
	OPT_EXCLUSIVE,
};

/* The allocation's long options, shared (getopt's table entries). */
#define ALLOC_LONGOPTS                                                      \
	{ "ntasks", required_argument, NULL, 'n' },                        \
	{ "nodes", required_argument, NULL, 'N' },                         \
	{ "cpus-per-task", required_argument, NULL, 'c' },                 \
	{ "ntasks-per-node", required_argument, NULL, OPT_PER_NODE },      \
	{ "time", required_argument, NULL, 't' },                          \
	{ "queue", required_argument, NULL, 'p' },                         \
	{ "partition", required_argument, NULL, 'p' },                     \
	{ "account", required_argument, NULL, 'A' },                       \
	{ "constraint", required_argument, NULL, 'C' },                    \
	{ "mem", required_argument, NULL, OPT_MEM },                       \
	{ "job-name", required_argument, NULL, 'J' },                      \
	{ "exclusive", no_argument, NULL, OPT_EXCLUSIVE },                 \
	{ "verbose", no_argument, NULL, 'v' },                             \
	{ "help", no_argument, NULL, 'h' },

/*
 * Shared option parsing of rota run and rota alloc: one getopt value into
 * 'a' (and 'o' for rota run's own: NULL for alloc); -EINVAL printed, 1 if
 * the option is not one of these.
 */
struct run_opts;
int alloc_option(const char *name, int c, const char *v, struct alloc_req *a,
		 struct run_opts *o);

#endif
