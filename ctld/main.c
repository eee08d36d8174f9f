// SPDX-License-Identifier: MIT
/*
 * rota-ctld: the controller.  Reads rota.conf, builds the scheduling core,
 * listens for node daemons and clients, and runs one event loop.  It stays
 * in the foreground (systemd's Type=simple; logs to LogFile or stderr).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/clock.h"
#include "common/conf.h"
#include "common/evloop.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "ctld/ctld.h"
#include "ctld/step.h"
#include "ctld/jobcomp.h"
#include "ctld/idem.h"
#include "ctld/journal.h"
#include "ctld/users.h"

static const char usage[] =
	"usage: rota-ctld [-f FILE] [-t] [-v] [--addr-file FILE] [--salvage]\n"
	"  -f, --config FILE     rota.conf to read (default $ROTA_CONF or\n"
	"                        " ROTA_SYSCONFDIR "/rota/rota.conf)\n"
	"  -t, --test            check the configuration and exit\n"
	"  -v, --verbose         log at debug level\n"
	"      --addr-file FILE  write ADDR:PORT there once listening\n"
	"      --salvage         repair a damaged StateDir and exit: keep\n"
	"                        every intact record, report what is dropped\n"
	"                        (run it stopped, as CtldUser)\n"
	"  -h, --help            this text\n";

/*
 * Jobs whose rota top row is looked at again at every tick (core.h:
 * core_changes_sweep): 100,000 jobs in under two minutes, for about
 * 0.15 ms a second.
 */
#define TOP_SWEEP 1024

struct options {
	const char *config;
	const char *addr_file;
	bool test;
	bool verbose;
	bool salvage;
};

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'f' },
		{ "test", no_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "addr-file", required_argument, NULL, 'A' },
		{ "salvage", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	o->config = rota_conf_default_path();
	while ((c = getopt_long(argc, argv, "f:tvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': o->config = optarg; break;
		case 't': o->test = true; break;
		case 'v': o->verbose = true; break;
		case 'A': o->addr_file = optarg; break;
		case 'S': o->salvage = true; break;
		case 'h': fputs(usage, stdout); exit(0);
		default: fputs(usage, stderr); return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rota-ctld: unexpected argument '%s'\n",
			argv[optind]);
		return -EINVAL;
	}
	return 0;
}

int64_t ctld_work_clock(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

/*
 * SchedulerMaxRPC: while that many connections wait to be read in this
 * loop turn, a pass asked for now runs at the turn's end instead, once
 * they are served: one pass for a burst of submits rather than one each.
 * The kick's timer fires in the same turn, so nothing waits longer.
 */
static bool pass_deferred(struct ctld *ctld)
{
	unsigned max = ctld->conf->sched_max_rpc;

	if (!max || !ctld->loop || rota_evloop_ready(ctld->loop) < max)
		return false;
	ctld->stats.sched_deferred++;
	ctld_kick(ctld);
	return true;
}

void ctld_schedule_now(struct ctld *ctld)
{
	struct timespec t0, t1;
	uint64_t us;

	if (pass_deferred(ctld))
		return;
	if (ctld->kick) {
		rota_timer_cancel(ctld->kick);
		ctld->kick = NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	core_schedule(ctld->core, ctld_now(ctld));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	us = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000 +
			(t1.tv_nsec - t0.tv_nsec) / 1000);
	ctld->stats.sched_passes++;
	ctld->stats.sched_last_us = us;
	ctld->stats.sched_total_us += us;
	if (us > ctld->stats.sched_max_us)
		ctld->stats.sched_max_us = us;
	/* a pass re-rates and re-plans many: rota top's rows, now */
	core_changes_settle(ctld->core);
}

static void kick_cb(struct rota_evloop *loop, void *arg)
{
	struct ctld *ctld = arg;

	ctld->kick = NULL; /* the timer is spent: not to be cancelled */
	ctld_schedule_now(ctld);
	ctld_run_actions(ctld);
}

void ctld_kick(struct ctld *ctld)
{
	if (!ctld->kick)
		ctld->kick = rota_evloop_add_timer(ctld->loop, 0, false,
						   kick_cb, ctld);
}

static void tick_cb(struct rota_evloop *loop, void *arg)
{
	struct ctld *ctld = arg;
	int64_t now = ctld_now(ctld);
	size_t pending = core_pending_count(ctld->core);

	core_tick(ctld->core, now);
	state_commit(ctld); /* nodes timed out: their jobs ended */
	/* rota top's rows: what changed, and a few more looked at again */
	core_changes_sweep(ctld->core, TOP_SWEEP);
	/* a silent node's jobs came back to the queue: placed now, not
	   at the next SchedulerInterval */
	if (core_pending_count(ctld->core) > pending ||
	    now - ctld->last_pass >= ctld->conf->sched_interval) {
		ctld->last_pass = now;
		ctld_kick(ctld);
	}
	ctld_run_actions(ctld);
}

static void stop_cb(struct rota_evloop *loop, int signo, void *arg)
{
	rota_info("signal %d: shutting down", signo);
	rota_evloop_stop(loop);
}

static void hup_cb(struct rota_evloop *loop, int signo, void *arg)
{
	struct ctld *ctld = arg;
	struct rota_error err;

	(void)loop;
	(void)signo;
	if (ctld_reconfigure(ctld, &err) < 0)
		rota_err("SIGHUP: reconfigure refused, keeping the old "
			 "configuration: %s", err.text);
}

static int write_addr_file(const char *path, const char *addr, unsigned port)
{
	char *tmp = rota_xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int rc = 0;

	if (!f || fprintf(f, "%s:%u\n", addr, port) < 0 || fclose(f) != 0 ||
	    rename(tmp, path) < 0)
		rc = -errno;
	free(tmp);
	return rc;
}

static int setup(struct ctld *ctld, const struct options *o)
{
	struct rota_error err;
	unsigned port = 0;
	uid_t want;
	int rc;

	/* requests are sealed for CtldUser's eyes: we must be that user */
	if (rota_auth_uid(ctld->conf->ctld_user, &want) < 0 ||
	    want != getuid()) {
		rota_err("CtldUser '%s' is not the user rota-ctld runs as "
			 "(uid %u): set CtldUser in %s",
			 ctld->conf->ctld_user, (unsigned)getuid(),
			 ctld->conf->path);
		return -EPERM;
	}
	ctld->loop = rota_evloop_create();
	ctld->auth = rota_auth_create(NULL);
	ctld->users = user_cache_create();
	ctld->self_uid = getuid();
	ctld->clock = &rota_clock_real;
	ctld->stats.started = ctld_now(ctld);
	ctld->node_links = rota_xcalloc(core_node_count(ctld->core) + 1,
					sizeof(struct peer *));
	rc = jobcomp_create(ctld->conf, ctld->loop, &ctld->jobcomp, &err);
	if (rc < 0) {
		rota_err("%s", err.text);
		return rc;
	}
	ctld->idem = idem_create();
	rc = state_load(ctld);
	if (rc < 0)
		return rc;
	/* in microseconds: above any change number a previous run gave */
	core_changes_start(ctld->core, ctld_now(ctld) * 1000000);
	rc = server_start(ctld, &port);
	if (rc < 0)
		return rc;
	rota_evloop_add_signal(ctld->loop, SIGTERM, stop_cb, NULL);
	rota_evloop_add_signal(ctld->loop, SIGINT, stop_cb, NULL);
	rota_evloop_add_signal(ctld->loop, SIGHUP, hup_cb, ctld);
	signal(SIGPIPE, SIG_IGN);
	ctld->tick = rota_evloop_add_timer(ctld->loop, 1000, true, tick_cb,
					   ctld);
	rota_info("listening on %s:%u with %zu nodes, %zu queues",
		  ctld->conf->ctld_addr, port, ctld->conf->nnodes,
		  ctld->conf->nqueues);
	if (o->addr_file &&
	    (rc = write_addr_file(o->addr_file, ctld->conf->ctld_addr, port)) <
		    0) {
		rota_err("--addr-file '%s': %s", o->addr_file, strerror(-rc));
		return rc;
	}
	return 0;
}

/*
 * rota-ctld --salvage: the report goes to stderr, for the operator who
 * runs it by hand with the controller stopped.
 */
static int salvage(struct ctld *ctld)
{
	int rc;

	rota_log_init("rota-ctld", ROTA_LOG_INFO, NULL);
	ctld->clock = &rota_clock_real;
	/* the answers of requests are state too: kept through the salvage */
	ctld->idem = idem_create();
	rc = state_salvage(ctld);
	idem_destroy(ctld->idem);
	core_destroy(ctld->core);
	rota_conf_destroy(ctld->conf);
	return rc < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct ctld ctld = { .listen_fd = -1 };
	struct options o = { 0 };
	enum rota_log_level level = ROTA_LOG_INFO;
	struct rota_error err;
	int rc;

	if (parse_options(argc, argv, &o) < 0)
		return 2;
	/*
	 * Big scratch (a rating's view, a long reply) goes back to the
	 * system when freed: glibc's own threshold rises to the size of the
	 * first such block freed, and from then on keeps them in the heap,
	 * so that one large query held its size for good (issue 23).
	 */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	if (rota_conf_load(o.config, &ctld.conf, &err) < 0) {
		fprintf(stderr, "rota-ctld: %s\n", err.text);
		return 1;
	}
	/* the policy plugins check their settings as they load */
	if (core_create(ctld.conf, &ctld.core, &err) < 0) {
		fprintf(stderr, "rota-ctld: %s\n", err.text);
		rota_conf_destroy(ctld.conf);
		return 1;
	}
	core_set_work_clock(ctld.core, ctld_work_clock);
	if (o.test && jobcomp_create(ctld.conf, NULL, &ctld.jobcomp, &err) < 0) {
		fprintf(stderr, "rota-ctld: %s\n", err.text);
		core_destroy(ctld.core);
		rota_conf_destroy(ctld.conf);
		return 1;
	}
	if (o.test) {
		jobcomp_destroy(ctld.jobcomp);
		printf("rota-ctld: %s: ok (%zu nodes, %zu queues, %zu "
		       "accounts, priority %s, fairshare %s)\n",
		       o.config, ctld.conf->nnodes, ctld.conf->nqueues,
		       ctld.conf->naccounts, core_prio_plugin(ctld.core),
		       core_share_plugin(ctld.core));
		core_destroy(ctld.core);
		rota_conf_destroy(ctld.conf);
		return 0;
	}
	if (o.salvage)
		return salvage(&ctld);
	rota_log_level_parse(ctld.conf->log_level, &level);
	if (rota_log_init("rota-ctld", o.verbose ? ROTA_LOG_DEBUG : level,
			  ctld.conf->log_file) < 0) {
		fprintf(stderr, "rota-ctld: LogFile '%s': %s\n",
			ctld.conf->log_file, strerror(errno));
		return 1;
	}
	rc = setup(&ctld, &o);
	if (rc == 0)
		rc = rota_evloop_run(ctld.loop);
	server_close_all(&ctld);
	if (ctld.journal) {
		state_commit(&ctld);
		state_compact(&ctld);
		journal_close(ctld.journal);
	}
	rota_timer_cancel(ctld.tick);
	/* before the loop: plugins remove their watchers and timers */
	jobcomp_destroy(ctld.jobcomp);
	rota_evloop_destroy(ctld.loop);
	steps_destroy(&ctld);
	core_destroy(ctld.core);
	rota_auth_destroy(ctld.auth);
	user_cache_destroy(ctld.users);
	idem_destroy(ctld.idem);
	free(ctld.node_links);
	if (ctld.listen_fd >= 0)
		close(ctld.listen_fd);
	rota_conf_destroy(ctld.conf);
	return rc < 0 ? 1 : 0;
}
