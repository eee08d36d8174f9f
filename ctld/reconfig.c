// SPDX-License-Identifier: MIT
/*
 * Reloading rota.conf without dropping a job (rota reconfigure, SIGHUP),
 * the way nginx reloads: build everything new beside the old (the config,
 * a scheduling core with its plugins, the jobcomp plugins if their lines
 * changed), move every job and the usage over, and swap only when all of
 * it worked.  On any failure the old stays and the reason is the one line
 * the operator sees.
 *
 * Jobs move through the journal's own codec (job_record.c): each job of
 * the old core is encoded as the journal would keep it and applied to the
 * new core as a replay would, so a reload exercises the very code a
 * restart does, and a job the new file cannot hold (its queue or a node
 * it runs on is gone) refuses the reload with that job's line.  Nodes
 * start the new core unknown, as after a restart: each node daemon, told
 * to reconfigure, reads the file again and registers anew, reporting the
 * jobs it runs; an operator's drain or down is carried over.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/conn.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "ctld/admit.h"
#include "ctld/core/core.h"
#include "ctld/ctld.h"
#include "ctld/job_record.h"
#include "ctld/jobcomp.h"
#include "ctld/resv_record.h"

struct move_ctx {
	const struct core *from;
	struct core *to;
	int64_t now;
	int rc;
	struct rota_error *err;
};

static void move_job(const struct core_job *job, void *arg)
{
	struct move_ctx *m = arg;
	size_t len;
	char *rec;

	if (m->rc < 0)
		return;
	rec = job_record_encode(m->from, job, &len);
	m->rc = job_record_apply(m->to, m->now, rec, len, m->err);
	free(rec);
}

/* An operator's drain or down, carried to the new core. */
static void move_admin(const struct core *from, struct core *to, int64_t now)
{
	for (uint32_t i = 0; i < core_node_count(from); i++) {
		const struct core_node *n = core_node_get(from, i);
		const char *why = strchr(n->reason, ':');
		struct rota_error err;

		why = why ? why + 2 : NULL;
		core_node_keep_lease(to, n->name, n->lease_until);
		if (n->admin_down)
			core_node_admin(to, now, n->name, "down", why, &err);
		else if (n->drain)
			core_node_admin(to, now, n->name, "drain", why, &err);
	}
}

/*
 * Every reservation and job, the usage and the next id, from the old core
 * to the new.
 */
static int move_all(struct core *from, struct core *to, int64_t now,
		    struct rota_error *err)
{
	struct move_ctx m = { .from = from, .to = to, .now = now, .err = err };
	struct core_usage *u;
	struct core_usage_mark *marks;
	size_t n, len;
	char *rec;

	/* reservations first, through the journal's codec as jobs are */
	for (size_t i = 0; i < core_resv_count(from) && m.rc == 0; i++) {
		rec = resv_record_encode(from, core_resv_get(from, i), &len);
		m.rc = resv_record_apply(to, rec, len, err);
		free(rec);
	}
	core_job_foreach(from, move_job, &m);
	if (m.rc < 0)
		return m.rc;
	n = core_usage_take(from, now, true, &u);
	core_usage_restore(to, u, n, now);
	free(u);
	n = core_usage_marks(from, &marks);
	core_usage_restore_marks(to, marks, n, core_usage_is_measured(from));
	free(marks);
	core_raise_next_id(to, core_next_id(from));
	core_restore_finish(to);
	move_admin(from, to, now);
	return 0;
}

/* Keys read once at start: say that a change waits for a restart. */
static void warn_restart_keys(const struct rota_conf *a,
			      const struct rota_conf *b)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "CtldAddr", offsetof(struct rota_conf, ctld_addr) },
		{ "CtldUser", offsetof(struct rota_conf, ctld_user) },
		{ "StateDir", offsetof(struct rota_conf, state_dir) },
		{ "LogFile", offsetof(struct rota_conf, log_file) },
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *x = *(char *const *)((const char *)a + keys[i].off);
		const char *y = *(char *const *)((const char *)b + keys[i].off);

		if ((x || y) && (!x || !y || strcmp(x, y) != 0))
			rota_warn("reconfigure: %s changed: it takes effect "
				  "when rota-ctld restarts", keys[i].key);
	}
	if (a->ctld_port != b->ctld_port)
		rota_warn("reconfigure: CtldPort changed: it takes effect "
			  "when rota-ctld restarts");
}

/* Node links follow their nodes to their indexes in the new core. */
static void relink_nodes(struct ctld *ctld, const struct core *old)
{
	struct peer **links = rota_xcalloc(core_node_count(ctld->core) + 1,
					   sizeof(*links));
	struct peer *p, *next;
	uint32_t idx;

	for (p = ctld->peers; p; p = next) {
		next = p->next;
		if (p->node < 0)
			continue;
		if (!core_node_find(ctld->core,
				    core_node_get(old, (uint32_t)p->node)->name,
				    &idx)) {
			p->node = -1; /* a node rota.conf no longer has */
			rota_conn_close(p->conn);
			continue;
		}
		p->node = (int)idx;
		links[idx] = p;
		peer_send(p, ROTA_MSG_RECONFIGURE_NODE, "{}", 2);
	}
	free(ctld->node_links);
	ctld->node_links = links;
}

int ctld_reconfigure(struct ctld *ctld, struct rota_error *err)
{
	int64_t now = ctld_now(ctld);
	struct rota_conf *conf = NULL;
	struct jobcomp *jc = NULL;
	struct core *core = NULL, *old;
	int rc;

	/* the old core's changes journaled, its orders sent: nothing owed */
	state_commit(ctld);
	ctld_run_actions(ctld);
	rc = rota_conf_load(ctld->conf->path, &conf, err);
	if (rc == 0)
		rc = core_create(conf, &core, err);
	if (rc == 0)
		core_set_work_clock(core, ctld_work_clock);
	if (rc == 0 && !jobcomp_conf_equal(ctld->conf, conf))
		rc = jobcomp_create(conf, ctld->loop, &jc, err);
	if (rc == 0)
		rc = move_all(ctld->core, core, now, err);
	if (rc < 0) {
		jobcomp_destroy(jc);
		core_destroy(core);
		rota_conf_destroy(conf);
		return rc;
	}
	warn_restart_keys(ctld->conf, conf);
	/* rota top: numbers go on, and every client gets all rows again */
	core_changes_start(core, core_change_number(ctld->core) + 1);
	old = ctld->core;
	ctld->core = core;
	relink_nodes(ctld, old);
	core_destroy(old);
	if (jc) {
		jobcomp_destroy(ctld->jobcomp);
		ctld->jobcomp = jc;
	}
	rota_conf_destroy(ctld->conf);
	ctld->conf = conf;
	admit_reconfigure(ctld->admit, conf);
	state_compact(ctld);
	rota_info("reconfigured from %s: %zu nodes, %zu queues, %zu jobs "
		  "kept",
		  conf->path, conf->nnodes, conf->nqueues,
		  core_job_count(ctld->core));
	ctld_kick(ctld);
	return 0;
}

void rpc_reconfigure(struct peer *p, const struct rota_frame *f)
{
	struct ctld *ctld = p->ctld;
	struct rota_error err;

	(void)f;
	if (!ctld_is_operator(ctld, p->uid)) {
		ctld->stats.denied++;
		peer_send_error(p, -EPERM, "only operators may reconfigure");
		return;
	}
	if (ctld_reconfigure(ctld, &err) < 0) {
		rota_err("reconfigure refused, keeping the old configuration: "
			 "%s", err.text);
		peer_send_error(p, -EINVAL, err.text);
		return;
	}
	peer_send(p, ROTA_MSG_OK, "{}", 2);
}
