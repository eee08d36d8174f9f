// SPDX-License-Identifier: MIT
/*
 * rota-noded-emu: many emulated nodes in one process, so that the real
 * controller can carry a real cluster's load on one test host (Slurm's
 * multiple-slurmd, Flux's test instances).  Each node is declared in
 * rota.conf as usual and gets its own link, from its own Addr, with its
 * own munge session, lease and topology (the --topology files, cycled);
 * its jobs run as timers (emu_jobs.c).  SIGUSR1 re-reads the --control
 * file: the nodes it names are cut off ("lost"), the others are back.
 * docs/emulate.md tells how to use it; bench/scale uses it at 10,000.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/conf.h"
#include "common/evloop.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/net.h"
#include "common/xalloc.h"
#include "noded/emu.h"
#include "noded/topology.h"

#define EMU_TOPOS_MAX 64

static const char usage[] =
	"usage: rota-noded-emu [-f FILE] [--nodes HOSTLIST] --topology XML...\n"
	"                      [--control FILE] [--run-log FILE] [--ramp MS]\n"
	"  Emulate many nodes in one process (docs/emulate.md): each\n"
	"  registers from its own Addr with its own session and lease; jobs\n"
	"  run as timers of '#ROTA-EMU runtime=SECONDS [exit=CODE]' in the\n"
	"  script, else $ROTA_EMU_RUNTIME, else their time limit.\n"
	"  -f, --config FILE    rota.conf to read (default $ROTA_CONF)\n"
	"  -N, --nodes HOSTLIST the nodes to emulate (default: every node)\n"
	"      --topology XML   an hwloc XML file; several are cycled over\n"
	"                       the nodes (repeat the option)\n"
	"      --ctld ADDR:PORT the controller (default CtldAddr:CtldPort,\n"
	"                       or $ROTA_CTLD)\n"
	"      --control FILE   on SIGUSR1, the nodes this file names\n"
	"                       (hostlists) are lost, the others back\n"
	"      --run-log FILE   append '<ms> start|<STATE> <job> <run> <node>'\n"
	"                       for every start and end\n"
	"      --ramp MS        spread the first registrations over MS\n"
	"  -v, --verbose        log at debug level\n"
	"  -h, --help           this text\n";

struct options {
	const char *config;
	const char *nodes;
	const char *topos[EMU_TOPOS_MAX];
	size_t ntopos;
	const char *ctld;
	const char *control;
	const char *runlog;
	long ramp_ms;
	bool verbose;
};

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'f' },
		{ "nodes", required_argument, NULL, 'N' },
		{ "topology", required_argument, NULL, 'T' },
		{ "ctld", required_argument, NULL, 'C' },
		{ "control", required_argument, NULL, 'L' },
		{ "run-log", required_argument, NULL, 'R' },
		{ "ramp", required_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	o->config = rota_conf_default_path();
	o->ctld = getenv("ROTA_CTLD");
	while ((c = getopt_long(argc, argv, "f:N:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': o->config = optarg; break;
		case 'N': o->nodes = optarg; break;
		case 'T':
			if (o->ntopos == EMU_TOPOS_MAX) {
				fprintf(stderr, "rota-noded-emu: at most %d "
					"--topology files\n", EMU_TOPOS_MAX);
				return -EINVAL;
			}
			o->topos[o->ntopos++] = optarg;
			break;
		case 'C': o->ctld = optarg; break;
		case 'L': o->control = optarg; break;
		case 'R': o->runlog = optarg; break;
		case 'r': o->ramp_ms = atol(optarg); break;
		case 'v': o->verbose = true; break;
		case 'h': fputs(usage, stdout); exit(0);
		default: fputs(usage, stderr); return -EINVAL;
		}
	}
	if (optind < argc || !o->ntopos || o->ramp_ms < 0) {
		fputs(usage, stderr);
		return -EINVAL;
	}
	return 0;
}

/* As rota-noded's: ib and largemem as found, then rota.conf's. */
static char **node_features(const struct topology_summary *t,
			    const struct rota_conf *conf,
			    const struct rota_conf_node *cn)
{
	size_t k = 0, i = 0;
	char **f;

	while (cn->features[k])
		k++;
	f = rota_xcalloc(k + 3, sizeof(char *));
	if (t->has_ib)
		f[i++] = rota_xstrdup("ib");
	if (t->memory_mb >= conf->largemem_mb)
		f[i++] = rota_xstrdup("largemem");
	for (size_t x = 0; x < k; x++)
		f[i++] = rota_xstrdup(cn->features[x]);
	return f;
}

/* The nodes: --nodes, else every node of rota.conf. */
static int make_nodes(struct emu *emu, const struct options *o,
		      struct topology **topos)
{
	struct rota_hostlist *hl = NULL;
	struct rota_error err;
	size_t count;

	if (o->nodes && rota_hostlist_parse(o->nodes, &hl, &err) < 0) {
		fprintf(stderr, "rota-noded-emu: --nodes: %s\n", err.text);
		return -EINVAL;
	}
	count = hl ? rota_hostlist_count(hl) : emu->conf->nnodes;
	emu->nodes = rota_xcalloc(count ? count : 1, sizeof(*emu->nodes));
	for (size_t i = 0; i < count; i++) {
		const char *name = hl ? rota_hostlist_nth(hl, i)
				      : emu->conf->nodes[i].name;
		const struct rota_conf_node *cn =
			rota_conf_node_find(emu->conf, name);
		struct enode *n = &emu->nodes[emu->nnodes];

		if (!cn) {
			fprintf(stderr, "rota-noded-emu: node '%s' is not "
				"declared in %s\n", name, emu->conf->path);
			rota_hostlist_destroy(hl);
			return -ENOENT;
		}
		n->emu = emu;
		n->name = cn->name;
		n->addr = cn->addr;
		n->topo = topology_summary(topos[i % o->ntopos]);
		n->features = node_features(n->topo, emu->conf, cn);
		emu->nnodes++;
	}
	rota_hostlist_destroy(hl);
	return 0;
}

static struct enode *node_find(struct emu *emu, const char *name)
{
	for (size_t i = 0; i < emu->nnodes; i++)
		if (strcmp(emu->nodes[i].name, name) == 0)
			return &emu->nodes[i];
	return NULL;
}

/* SIGUSR1: the nodes the control file names are lost, the others back. */
static void control_cb(struct rota_evloop *loop, int signo, void *arg)
{
	struct emu *emu = arg;
	bool *lost = rota_xcalloc(emu->nnodes + 1, sizeof(bool));
	char word[4096];
	size_t nlost = 0;
	FILE *f;

	if (!emu->control || !(f = fopen(emu->control, "r"))) {
		rota_warn("--control file: %s",
			  emu->control ? strerror(errno) : "none given");
		free(lost);
		return;
	}
	while (fscanf(f, "%4095s", word) == 1) {
		struct rota_hostlist *hl;
		struct rota_error err;

		if (rota_hostlist_parse(word, &hl, &err) < 0) {
			rota_warn("'%s': %s", emu->control, err.text);
			continue;
		}
		for (size_t i = 0; i < rota_hostlist_count(hl); i++) {
			struct enode *n =
				node_find(emu, rota_hostlist_nth(hl, i));

			if (!n || lost[n - emu->nodes])
				continue;
			lost[n - emu->nodes] = true;
			nlost++;
		}
		rota_hostlist_destroy(hl);
	}
	fclose(f);
	rota_info("control: %zu of %zu nodes lost", nlost, emu->nnodes);
	for (size_t i = 0; i < emu->nnodes; i++)
		emu_link_set_lost(&emu->nodes[i], lost[i]);
	free(lost);
}

/* Leases of nodes with jobs; the run log reaches the disk. */
static void tick_cb(struct rota_evloop *loop, void *arg)
{
	struct emu *emu = arg;

	for (size_t i = 0; i < emu->nnodes; i++)
		if (emu->nodes[i].jobs)
			emu_link_check_lease(&emu->nodes[i]);
	if (emu->runlog)
		fflush(emu->runlog);
}

static void stats(struct emu *emu)
{
	rota_info("%zu nodes, %llu registrations, %llu jobs started, %llu "
		  "ended, %llu killed by a lost lease",
		  emu->nnodes, (unsigned long long)emu->registered,
		  (unsigned long long)emu->started,
		  (unsigned long long)emu->ended,
		  (unsigned long long)emu->killed);
}

static void stats_cb(struct rota_evloop *loop, int signo, void *arg)
{
	stats(arg);
}

static void stop_cb(struct rota_evloop *loop, int signo, void *arg)
{
	rota_evloop_stop(loop);
}

static int find_ctld(struct emu *emu, const struct options *o)
{
	char host[256];
	unsigned port;

	if (rota_auth_uid(emu->conf->ctld_user, &emu->ctld_uid) < 0) {
		fprintf(stderr, "rota-noded-emu: CtldUser '%s': no such user\n",
			emu->conf->ctld_user);
		return -ENOENT;
	}
	if (!o->ctld) {
		emu->ctld_host = rota_xstrdup(emu->conf->ctld_addr);
		emu->ctld_port = emu->conf->ctld_port;
		return 0;
	}
	if (rota_net_split(o->ctld, host, sizeof(host), &port) < 0) {
		fprintf(stderr, "rota-noded-emu: --ctld '%s': expected "
			"ADDR:PORT\n", o->ctld);
		return -EINVAL;
	}
	emu->ctld_host = rota_xstrdup(host);
	emu->ctld_port = port;
	return 0;
}

/* A link per node: as many descriptors as the hard limit allows. */
static void raise_nofile(size_t nnodes)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) < 0)
		return;
	r.rlim_cur = r.rlim_max;
	setrlimit(RLIMIT_NOFILE, &r);
	if (r.rlim_cur < nnodes + 64)
		rota_warn("open files limit %llu is short of %zu nodes' links",
			  (unsigned long long)r.rlim_cur, nnodes);
}

static void emu_fini(struct emu *emu, struct topology **topos, size_t n)
{
	for (size_t i = 0; i < emu->nnodes; i++) {
		emu_link_stop(&emu->nodes[i]);
		emu_jobs_fini(&emu->nodes[i]);
		for (char **f = emu->nodes[i].features; f && *f; f++)
			free(*f);
		free(emu->nodes[i].features);
	}
	free(emu->nodes);
	rota_evloop_destroy(emu->loop);
	for (size_t i = 0; i < n; i++)
		topology_destroy(topos[i]);
	rota_auth_destroy(emu->auth);
	if (emu->runlog)
		fclose(emu->runlog);
	free(emu->ctld_host);
	rota_conf_destroy(emu->conf);
}

static int load_topologies(const struct options *o, struct topology **topos)
{
	struct rota_error err;

	setenv("HWLOC_PLUGINS_BLACKLIST",
	       "hwloc_gl,hwloc_opencl,hwloc_xml_libxml", 0);
	for (size_t i = 0; i < o->ntopos; i++) {
		if (topology_load(o->topos[i], &topos[i], &err) < 0) {
			fprintf(stderr, "rota-noded-emu: %s\n", err.text);
			for (size_t k = 0; k < i; k++)
				topology_destroy(topos[k]);
			return -EINVAL;
		}
	}
	return 0;
}

static void emu_run(struct emu *emu, const struct options *o)
{
	emu->loop = rota_evloop_create();
	emu->auth = rota_auth_create(NULL);
	emu->t0 = rota_evloop_now_ms(emu->loop);
	signal(SIGPIPE, SIG_IGN);
	rota_evloop_add_signal(emu->loop, SIGTERM, stop_cb, NULL);
	rota_evloop_add_signal(emu->loop, SIGINT, stop_cb, NULL);
	rota_evloop_add_signal(emu->loop, SIGUSR1, control_cb, emu);
	rota_evloop_add_signal(emu->loop, SIGUSR2, stats_cb, emu);
	rota_evloop_add_timer(emu->loop, 500, true, tick_cb, emu);
	for (size_t i = 0; i < emu->nnodes; i++)
		emu_link_start(&emu->nodes[i],
			       o->ramp_ms * (int64_t)i / (int64_t)emu->nnodes);
	rota_info("%zu nodes emulated, controller %s:%u", emu->nnodes,
		  emu->ctld_host, emu->ctld_port);
	rota_evloop_run(emu->loop);
	stats(emu);
}

int main(int argc, char **argv)
{
	struct topology *topos[EMU_TOPOS_MAX] = { 0 };
	struct options o = { 0 };
	struct emu emu = { 0 };
	enum rota_log_level level = ROTA_LOG_INFO;
	struct rota_error err;

	if (parse_options(argc, argv, &o) < 0)
		return 2;
	if (rota_conf_load(o.config, &emu.conf, &err) < 0) {
		fprintf(stderr, "rota-noded-emu: %s\n", err.text);
		return 1;
	}
	if (find_ctld(&emu, &o) < 0 || load_topologies(&o, topos) < 0) {
		emu_fini(&emu, topos, 0);
		return 1;
	}
	if (make_nodes(&emu, &o, topos) < 0) {
		emu_fini(&emu, topos, o.ntopos);
		return 1;
	}
	emu.control = o.control;
	if (o.runlog && !(emu.runlog = fopen(o.runlog, "a"))) {
		fprintf(stderr, "rota-noded-emu: '%s': %s\n", o.runlog,
			strerror(errno));
		emu_fini(&emu, topos, o.ntopos);
		return 1;
	}
	rota_log_level_parse(emu.conf->log_level, &level);
	rota_log_init("rota-noded-emu", o.verbose ? ROTA_LOG_DEBUG : level,
		      emu.conf->log_file);
	raise_nofile(emu.nnodes);
	emu_run(&emu, &o);
	emu_fini(&emu, topos, o.ntopos);
	return 0;
}
