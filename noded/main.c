// SPDX-License-Identifier: MIT
/*
 * rota-noded: the daemon on every compute node.  Finds what the node is
 * made of (hwloc, or an XML topology given with --topology), connects to
 * the controller from the node's address, and runs the jobs it is given.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/conf.h"
#include "common/conn.h"
#include "common/evloop.h"
#include "common/log.h"
#include "common/net.h"
#include "common/xalloc.h"
#include "noded/cgroup.h"
#include "noded/noded.h"
#include "noded/topology.h"

static const char usage[] =
	"usage: rota-noded [-f FILE] [-n NAME] [--topology XML] [-t] [-v]\n"
	"  -f, --config FILE    rota.conf to read (default $ROTA_CONF or\n"
	"                       " ROTA_SYSCONFDIR "/rota/rota.conf)\n"
	"  -n, --name NAME      this node's NodeName (default: the short\n"
	"                       host name)\n"
	"      --topology XML   describe the node from an hwloc XML file\n"
	"                       instead of the host (jobs still bind to the\n"
	"                       host's cores: core i -> host core i mod N)\n"
	"      --ctld ADDR:PORT the controller (default CtldAddr:CtldPort,\n"
	"                       or $ROTA_CTLD)\n"
	"  -t, --test           check the configuration and topology, print\n"
	"                       what this node registers as, and exit\n"
	"  -v, --verbose        log at debug level\n"
	"  -h, --help           this text\n"
	"Many emulated nodes in one process, for tests at scale:\n"
	"rota-noded-emu (docs/emulate.md).\n";

struct options {
	const char *config;
	const char *name;
	const char *topology;
	const char *ctld;
	bool test;
	bool verbose;
};

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'f' },
		{ "name", required_argument, NULL, 'n' },
		{ "topology", required_argument, NULL, 'T' },
		{ "ctld", required_argument, NULL, 'C' },
		{ "test", no_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	o->config = rota_conf_default_path();
	o->ctld = getenv("ROTA_CTLD");
	while ((c = getopt_long(argc, argv, "f:n:tvh", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'f': o->config = optarg; break;
		case 'n': o->name = optarg; break;
		case 'T': o->topology = optarg; break;
		case 'C': o->ctld = optarg; break;
		case 't': o->test = true; break;
		case 'v': o->verbose = true; break;
		case 'h': fputs(usage, stdout); exit(0);
		default: fputs(usage, stderr); return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rota-noded: unexpected argument '%s'\n",
			argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/* Features: ib and largemem as found, then the ones rota.conf gives. */
char **noded_features(const struct topology_summary *t,
			    const struct rota_conf *conf,
			    const struct rota_conf_node *cn)
{
	size_t n = 0, i = 0;
	char **f;

	while (cn->features[n])
		n++;
	f = rota_xcalloc(n + 3, sizeof(char *));
	if (t->has_ib)
		f[i++] = rota_xstrdup("ib");
	if (t->memory_mb >= conf->largemem_mb)
		f[i++] = rota_xstrdup("largemem");
	for (size_t k = 0; k < n; k++)
		f[i++] = rota_xstrdup(cn->features[k]);
	return f;
}

static int identify(struct noded *nd, const struct options *o)
{
	const struct rota_conf_node *cn;
	struct rota_error err;
	char host[256];
	char *dot;

	if (o->name) {
		nd->name = rota_xstrdup(o->name);
	} else {
		if (gethostname(host, sizeof(host)) < 0)
			return -errno;
		host[sizeof(host) - 1] = '\0';
		if ((dot = strchr(host, '.')))
			*dot = '\0';
		nd->name = rota_xstrdup(host);
	}
	cn = rota_conf_node_find(nd->conf, nd->name);
	if (!cn) {
		fprintf(stderr, "rota-noded: node '%s' is not declared in %s\n",
			nd->name, nd->conf->path);
		return -ENOENT;
	}
	nd->addr = cn->addr ? rota_xstrdup(cn->addr) : NULL;
	/*
	 * Every library loaded here is copied into each supervisor forked
	 * from here and torn down when it exits.  hwloc's GPU plugins
	 * (OpenCL; GL, which brings X11 and its kin) see nothing rota
	 * reports, and its libxml2 plugin (with ICU, lzma, zlib) reads
	 * --topology files no better than hwloc's own XML parser, which then
	 * takes over (the same topology, object for object, for every file
	 * in ../shared/topologies): 174 mappings become 71.  An operator's
	 * own setting wins.
	 */
	setenv("HWLOC_PLUGINS_BLACKLIST",
	       "hwloc_gl,hwloc_opencl,hwloc_xml_libxml", 0);
	if (topology_load(o->topology, &nd->topo, &err) < 0) {
		fprintf(stderr, "rota-noded: %s\n", err.text);
		return -EINVAL;
	}
	nd->features = noded_features(topology_summary(nd->topo), nd->conf, cn);
	return 0;
}

static int find_ctld(struct noded *nd, const struct options *o)
{
	char host[256];
	unsigned port;

	if (!o->ctld) {
		nd->ctld_host = rota_xstrdup(nd->conf->ctld_addr);
		nd->ctld_port = nd->conf->ctld_port;
		return 0;
	}
	if (rota_net_split(o->ctld, host, sizeof(host), &port) < 0) {
		fprintf(stderr, "rota-noded: --ctld '%s': expected ADDR:PORT\n",
			o->ctld);
		return -EINVAL;
	}
	nd->ctld_host = rota_xstrdup(host);
	nd->ctld_port = port;
	return 0;
}

static int find_ctld_user(struct noded *nd)
{
	if (rota_auth_uid(nd->conf->ctld_user, &nd->ctld_uid) == 0)
		return 0;
	fprintf(stderr, "rota-noded: CtldUser '%s': no such user\n",
		nd->conf->ctld_user);
	return -ENOENT;
}

static void print_summary(const struct noded *nd)
{
	const struct topology_summary *t = topology_summary(nd->topo);

	printf("rota-noded: node %s: %u sockets, %u cores, %u PUs, %llu MB,"
	       " features:",
	       nd->name, t->sockets, t->cores, t->pus,
	       (unsigned long long)t->memory_mb);
	for (char **f = nd->features; *f; f++)
		printf("%s%s", f == nd->features ? " " : ",", *f);
	printf("\n");
	for (size_t i = 0; i < t->ngpus; i++) {
		const struct topology_gpu *g = &t->gpus[i];

		printf("rota-noded: gpu %zu: %s (%s) at %s, near NUMA node %u,"
		       " cores %s\n",
		       i, g->type[0] ? g->type : "-", g->model, g->busid,
		       g->numa, g->cores);
	}
}

/*
 * Jobs' cgroups: what the host gives, said in one line; a warning when
 * something rota.conf asks for is off (or, as root, cgroups altogether).
 */
static void cgroup_setup(struct noded *nd)
{
	const struct cgroup_env *env;
	char *summary;
	bool short_of;

	nd->cgroups = cgroup_env_create(nd->conf, &summary);
	env = nd->cgroups;
	if (env)
		short_of = (nd->conf->constrain_ram &&
			    !env->has[CGROUP_MEMORY]) ||
			   (nd->conf->max_tasks_per_job &&
			    !env->has[CGROUP_PIDS]);
	else
		short_of = geteuid() == 0;
	if (short_of)
		rota_warn("%s", summary);
	else
		rota_info("%s", summary);
	free(summary);
}

static void sigchld_cb(struct rota_evloop *loop, int signo, void *arg)
{
	jobs_reap(arg);
}

static void stop_cb(struct rota_evloop *loop, int signo, void *arg)
{
	rota_info("signal %d: shutting down; jobs run on under their "
		  "supervisors", signo);
	rota_evloop_stop(loop);
}

static void hup_cb(struct rota_evloop *loop, int signo, void *arg)
{
	noded_reconfigure(arg);
}

static void noded_fini(struct noded *nd)
{
	steps_fini(nd);
	jobs_fini(nd);
	if (nd->link)
		rota_conn_close(nd->link);
	rota_evloop_destroy(nd->loop);
	topology_destroy(nd->topo);
	rota_auth_destroy(nd->auth);
	for (char **f = nd->features; f && *f; f++)
		free(*f);
	free(nd->features);
	free(nd->name);
	free(nd->spool);
	free(nd->lease_path);
	cgroup_env_destroy(nd->cgroups);
	free(nd->addr);
	free(nd->ctld_host);
	rota_conf_destroy(nd->conf);
}

/*
 * One daemon per node: a second one would register without the first
 * one's jobs, and the controller would take them for ended.  Held until
 * exit (supervisors close it: see supervise.c).
 */
static int lock_spool(struct noded *nd)
{
	char *path = rota_xasprintf("%s/lock", nd->spool);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		rota_err("SpoolDir '%s': %s", nd->spool,
			 errno == EWOULDBLOCK
				 ? "another rota-noded of this node runs there"
				 : strerror(errno));
		if (fd >= 0)
			close(fd);
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

int main(int argc, char **argv)
{
	struct noded nd = { .step_fd = -1 };
	struct options o = { 0 };
	enum rota_log_level level = ROTA_LOG_INFO;
	struct rota_error err;
	char ident[64];
	int rc;

	if (parse_options(argc, argv, &o) < 0)
		return 2;
	if (rota_conf_load(o.config, &nd.conf, &err) < 0) {
		fprintf(stderr, "rota-noded: %s\n", err.text);
		return 1;
	}
	if (identify(&nd, &o) < 0 || find_ctld(&nd, &o) < 0 ||
	    find_ctld_user(&nd) < 0) {
		noded_fini(&nd);
		return 1;
	}
	if (o.test) {
		print_summary(&nd);
		noded_fini(&nd);
		return 0;
	}
	snprintf(ident, sizeof(ident), "rota-noded(%s)", nd.name);
	rota_log_level_parse(nd.conf->log_level, &level);
	rota_log_init(ident, o.verbose ? ROTA_LOG_DEBUG : level,
		      nd.conf->log_file);
	nd.spool = rota_xasprintf("%s/%s", nd.conf->spool_dir, nd.name);
	if ((mkdir(nd.conf->spool_dir, 0755) < 0 && errno != EEXIST) ||
	    (mkdir(nd.spool, 0755) < 0 && errno != EEXIST)) {
		rota_err("SpoolDir '%s': %s", nd.spool, strerror(errno));
		noded_fini(&nd);
		return 1;
	}
	if (lock_spool(&nd) < 0) {
		noded_fini(&nd);
		return 1;
	}
	cgroup_setup(&nd);
	/* a lease left by an earlier daemon holds until it runs out */
	nd.lease_path = rota_xasprintf("%s/lease", nd.spool);
	nd.loop = rota_evloop_create();
	nd.auth = rota_auth_create(NULL);
	signal(SIGPIPE, SIG_IGN);
	rota_evloop_add_signal(nd.loop, SIGCHLD, sigchld_cb, &nd);
	rota_evloop_add_signal(nd.loop, SIGTERM, stop_cb, NULL);
	rota_evloop_add_signal(nd.loop, SIGINT, stop_cb, NULL);
	rota_evloop_add_signal(nd.loop, SIGHUP, hup_cb, &nd);
	if (jobs_start(&nd) < 0) {
		rota_err("SpoolDir '%s': cannot watch it: %s", nd.spool,
			 strerror(errno));
		noded_fini(&nd);
		return 1;
	}
	steps_recover(&nd);
	if (steps_listen(&nd) < 0) {
		noded_fini(&nd);
		return 1;
	}
	link_start(&nd);
	rota_info("node %s up, controller %s:%u", nd.name, nd.ctld_host,
		  nd.ctld_port);
	rc = rota_evloop_run(nd.loop);
	noded_fini(&nd);
	return rc < 0 ? 1 : 0;
}
