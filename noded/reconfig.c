// SPDX-License-Identifier: MIT
/*
 * A node daemon re-reads rota.conf (the controller's RECONFIGURE order,
 * or SIGHUP): what it uses of it takes effect (HeartbeatInterval,
 * KillWait for jobs launched from now on, LargeMemory and Features for
 * its features, MaxMessageSize for the next link), and it registers anew
 * so the controller's new core learns it.  A file that does not load, or
 * no longer declares this node, changes nothing and is logged.  Jobs are
 * untouched: they run under their own supervisors.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/conn.h"
#include "common/evloop.h"
#include "common/log.h"
#include "noded/noded.h"
#include "noded/topology.h"

void noded_reconfigure(struct noded *nd)
{
	const struct rota_conf_node *cn;
	struct rota_conf *conf;
	struct rota_error err;

	if (rota_conf_load(nd->conf->path, &conf, &err) < 0) {
		rota_err("reconfigure refused, keeping the old "
			 "configuration: %s", err.text);
		return;
	}
	cn = rota_conf_node_find(conf, nd->name);
	if (!cn) {
		rota_err("reconfigure refused, keeping the old configuration: "
			 "node '%s' is not declared in %s", nd->name,
			 conf->path);
		rota_conf_destroy(conf);
		return;
	}
	if (strcmp(conf->spool_dir, nd->conf->spool_dir) != 0)
		rota_warn("reconfigure: SpoolDir changed: it takes effect "
			  "when rota-noded restarts");
	for (char **f = nd->features; f && *f; f++)
		free(*f);
	free(nd->features);
	nd->features = noded_features(topology_summary(nd->topo), conf, cn);
	rota_conf_destroy(nd->conf);
	nd->conf = conf;
	rota_timer_cancel(nd->heartbeat);
	nd->heartbeat = NULL;
	link_restart(nd);
	rota_info("reconfigured from %s", conf->path);
}
