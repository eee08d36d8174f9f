/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_CORE_TICKETS_H
#define ROTA_CTLD_CORE_TICKETS_H

/*
 * How fairshare/sharetree's tickets for a user are dealt among the user's
 * pending jobs, by the host (priority.c): the fairshare ops have no place
 * for per-job figures yet.
 *
 * Grid Engine gives a user's k-th pending job (k from 1) the entitlement
 * divided by (running + k), so a user's first job outranks its tenth but
 * a flood of jobs does not multiply its tickets.  Its sums overshoot the
 * pool, though: the running jobs hold the entitlement already.  Rota
 * keeps the proportions w_k = 1 / (running + k) and scales them to hold
 * exactly the user's tickets, so that all pending jobs' tickets add up to
 * the pool.
 */

#include <math.h>
#include <stdint.h>

/*
 * The sum of 1 / (running + k) for k = 1..pending: the harmonic span
 * H(running + pending) - H(running).  O(1), so that a host calling
 * rota_sharetree_job_tickets() for each of a user's 10000 pending jobs
 * is not quadratic: short spans and the first terms are summed, the rest
 * come from the Euler-Maclaurin series, whose error from a = 32 on is
 * below 1 / (252 a^6) = 4e-12.
 */
static inline double rota_sharetree_weight_sum(uint32_t running,
					       uint32_t pending)
{
	double a = running;
	double b = a + pending;
	double s = 0;

	for (; a < b && (a < 32 || b - a < 64); a++)
		s += 1 / (a + 1);
	if (a < b)
		s += log1p((b - a) / a) + (1 / (2 * b) - 1 / (2 * a)) -
		     (1 / (12 * b * b) - 1 / (12 * a * a)) +
		     (1 / (120 * b * b * b * b) - 1 / (120 * a * a * a * a));
	return s;
}

/*
 * The tickets of a user's pending job k (0-based, in the user's queue
 * order) when the user holds 'user_tickets' and has 'running' jobs
 * running: user_tickets * w_k / (w_0 + ... + w_(pending-1)),
 * w_k = 1 / (running + k + 1).  0 when k >= pending.
 */
static inline double rota_sharetree_job_tickets(double user_tickets,
						uint32_t running,
						uint32_t pending, uint32_t k)
{
	if (k >= pending)
		return 0;
	return user_tickets / ((double)running + k + 1) /
	       rota_sharetree_weight_sum(running, pending);
}

#endif
