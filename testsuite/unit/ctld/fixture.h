/* SPDX-License-Identifier: MIT */
#ifndef ROTA_TESTSUITE_UNIT_CTLD_FIXTURE_H
#define ROTA_TESTSUITE_UNIT_CTLD_FIXTURE_H

#include <stdint.h>

/*
 * What the core's scheduling tests share: a core built from rota.conf
 * text with every node registered UP at 'now', one socket, the CPUs= and
 * RealMemory= the text gives.  Fails the test on any error.
 */
struct core;
struct rota_conf;

void fixture_start(const char *text, int64_t now, struct core **core,
		   struct rota_conf **conf);
/* Destroy both and set them NULL. */
void fixture_stop(struct core **core, struct rota_conf **conf);
/* Throw away the actions a pass queued (launches the tests ignore). */
void fixture_drop_actions(struct core *core);
/* A main pass at 'now', its actions dropped. */
void fixture_pass(struct core *core, int64_t now);
/* A main pass and a backfill pass, as the controller runs them. */
void fixture_passes(struct core *core, int64_t now);
/* Running job 'id' completed at 'now', as its first node reports it. */
void fixture_end_job(struct core *core, int64_t now, uint32_t id);

#endif
