/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_CORE_FTICKETS_H
#define ROTA_CTLD_CORE_FTICKETS_H

/*
 * Grid Engine's override and functional tickets, and the order its three
 * ticket policies are dealt in (policy_hierarchy), as Son of Grid Engine
 * 8.1.9 deals them (sgeee.c sge_calc_tickets(); bench/oracle/FINDINGS.md
 * rules 7-11, with the numbers of a real Grid Engine).  The share tree's
 * part is tickets.h's.
 *
 * Entities are a job's user, its account (Grid Engine's project) and
 * its user's department (DepartmentName=; Grid Engine's DEPT userset,
 * defaultdepartment for a user in none), each with functional shares
 * (FShares=) and override tickets (OTickets=); a job has its own job
 * share and override tickets.  An entity's 'count' is its running jobs
 * (the caller's, or zero: counted here).
 *
 * - running jobs: override = each entity's OTickets / its running jobs
 *   (share_override: else the whole) + the job's; functional =
 *   Functional x sum over user, account, department and job of weight x
 *   the job's
 *   share / the sum of the running jobs' shares, a job's share of an
 *   entity being FShares / its running jobs (share_functional: else the
 *   whole, the sum then counting it per job), the weights of the kinds
 *   with a sum divided by their total;
 * - pending jobs, by the hierarchy: the policies it names, in its order,
 *   each ordering the jobs by the tickets of those before it
 *   ("dependent"), then the others in the order O, F, S, not dependent.
 *   Override and functional tickets are dealt greedily: the jobs with
 *   anything to get are put in categories (same entities, same job
 *   share or override tickets); each round the first job of each
 *   category is valued as if it ran next, the best is taken and counts
 *   as running for the next rounds (so a user's second job gets less
 *   than its first).  Functional rounds stop after max_functional; the
 *   jobs left keep the value they had in the last round.
 *
 * A job's Grid Engine tickets are otickets + ftickets + tickets.
 */

#include <stddef.h>
#include <stdint.h>

#include "ctld/core/tickets.h"
#include "plugins/rota_plugin.h"

struct ticket_entity {
	double fshares;		/* FShares= */
	double otickets;	/* OTickets= */
	uint32_t count;		/* scratch: its running (and taken) jobs */
};

/*
 * Deal every ticket to 'jobs' (pending not held, and running): override
 * and functional tickets by 'p' from 'ents' (indexed by the jobs' user,
 * project and dept), share-tree tickets from 't' (tickets_deal()).  'p' NULL
 * or zeroed: share-tree tickets alone, as before ABI 1.10.  Reorders
 * 'jobs'.  O(n x categories) for the greedy rounds.
 */
void ftickets_deal(const struct rota_ticket_policy *p,
		   struct ticket_entity *ents, const struct rota_share_tree *t,
		   struct ticket_job *jobs, size_t n);

#endif
