// SPDX-License-Identifier: MIT
/* The real and the virtual clock (see clock.h). */
#include "config.h"

#include <assert.h>
#include <time.h>

#include "common/clock.h"

static int64_t real_now(const struct rota_clock *clock)
{
	struct timespec ts;

	(void)clock;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec;
}

const struct rota_clock rota_clock_real = { .now = real_now };

static int64_t virtual_now(const struct rota_clock *clock)
{
	return clock->virtual_now;
}

struct rota_clock rota_clock_virtual(int64_t start)
{
	return (struct rota_clock){ .now = virtual_now, .virtual_now = start };
}

void rota_clock_advance(struct rota_clock *clock, int64_t seconds)
{
	assert(seconds >= 0 && clock->now == virtual_now);
	clock->virtual_now += seconds;
}

int64_t rota_clock_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
