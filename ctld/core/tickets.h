/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_CORE_TICKETS_H
#define ROTA_CTLD_CORE_TICKETS_H

/*
 * Share-tree tickets per job, dealt by the host (priority.c) from the
 * node targets fairshare/sharetree computes (struct rota_share_target),
 * as Grid Engine 8.1.9 deals them (sgeee.c; bench/oracle/FINDINGS.md,
 * rule 5, with the numbers of a real Grid Engine):
 *
 * - a running job: Tickets x ostt_running of its user's node / the
 *   node's running jobs;
 * - a pending job: Tickets x ostt(T) / k, T the node above it at the top
 *   level (the children of the root, the root being passed over while it
 *   has a single active child: that child then acts as the root), and
 *   k = 1 + the slots of the jobs under T ordered ahead of it.  The order
 *   is built level by level from the users up: at each node, its jobs,
 *   running ones first, then by what they got at the level below (at a
 *   user's node: nothing), then by id, the i-th getting stt(node) / k_i.
 *
 * So a user's first pending job outranks its second, two users under one
 * top-level node share its k sequence, and a flood of jobs does not
 * multiply a user's tickets; the sum over all jobs may exceed Tickets, as
 * in Grid Engine.  Held jobs are not passed: they get none.
 *
 * With a job share (Grid Engine's -js) or the tickets of the policies
 * dealt before it (policy_hierarchy, ftickets.h; FINDINGS.md rule 11),
 * the order at a user's node is by those tickets + 0.01 x the job share
 * when 'dependent' (else by job share), and above it by those tickets +
 * the job's tickets at the level below (else the latter alone); a
 * user's running jobs with job shares split its tickets by job share.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plugins/rota_plugin.h"

#define TICKET_NONE UINT32_MAX

struct ticket_job {
	uint32_t node;		/* its association's index in the tree */
	uint32_t slots;		/* its cores (Grid Engine: the slots asked) */
	uint32_t id;
	bool running;
	size_t ref;		/* the caller's, kept */
	double tickets;		/* output: share-tree tickets */
	/* for the other policies (ftickets.h) */
	int64_t submit;
	uint32_t user;		/* its user's entity; TICKET_NONE: none */
	uint32_t project;	/* its account's entity; TICKET_NONE: none */
	uint32_t dept;		/* its user's department's; TICKET_NONE: none */
	uint32_t jobshare;	/* Grid Engine's -js */
	uint32_t oticket;	/* Grid Engine's -ot */
	double otickets;	/* output: override tickets */
	double ftickets;	/* output: functional tickets */
	double prior;		/* tickets of the policies dealt before */
	/* scratch */
	uint32_t at;		/* its node at the level being dealt */
	uint32_t at_depth;	/* that node's depth */
	double level;		/* its share at the level dealt last */
	double key;		/* its sort key at that level */
	double fsh[3];		/* its functional share of its user, account
				   and department */
};

/*
 * Deal share-tree tickets to 'jobs' (pending not held, and running) from
 * 't', whose targets the fairshare plugin wrote; every job gets 0 when it
 * wrote none.  'dependent': the pending jobs are ordered by 'prior' too,
 * and get their tickets added to it.  Reorders 'jobs'.
 * O(depth x n log n).
 */
void tickets_deal(const struct rota_share_tree *t, struct ticket_job *jobs,
		  size_t n, bool dependent);

#endif
