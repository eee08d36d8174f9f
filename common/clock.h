/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_CLOCK_H
#define ROTA_COMMON_CLOCK_H

#include <stdint.h>

/*
 * Where "now" comes from.  The scheduling core never reads a clock: its
 * host asks one of these and passes the time in.  rota-ctld uses the real
 * one; rota sim and the tests use a virtual one that only moves when told,
 * so that ages, decays and half-lives are tested without sleeping.
 */
struct rota_clock {
	/* Unix seconds now. */
	int64_t (*now)(const struct rota_clock *clock);
	int64_t virtual_now; /* the virtual clock's time */
};

/* The wall clock (CLOCK_REALTIME). */
extern const struct rota_clock rota_clock_real;

/* A virtual clock starting at 'start'; moves only by rota_clock_advance. */
struct rota_clock rota_clock_virtual(int64_t start);
/* Move a virtual clock forward by 'seconds' (>= 0). */
void rota_clock_advance(struct rota_clock *clock, int64_t seconds);

/*
 * Milliseconds of CLOCK_MONOTONIC: for timeouts and waits, which a step
 * of the wall clock must not stretch or cut.
 */
int64_t rota_clock_mono_ms(void);

static inline int64_t rota_clock_now(const struct rota_clock *clock)
{
	return clock->now(clock);
}

#endif
