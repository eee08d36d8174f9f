// SPDX-License-Identifier: MIT
/*
 * The node daemon's one connection to the controller, opened from the
 * node's own address (several daemons share a test host on 127.0.0.x).
 * It registers, heartbeats, carries job ends up and orders down, and is
 * re-opened with a growing back-off when lost.
 *
 * Each connection is one session (auth.h): the registration's munge
 * credential carries a fresh key that only CtldUser can decode, and every
 * frame after it, both ways, carries an HMAC under that key.  So orders
 * are taken only from the controller's uid, proved by munge, never by an
 * address.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/conf.h"
#include "common/conn.h"
#include "common/evloop.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/net.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "noded/lease.h"
#include "noded/noded.h"
#include "noded/gpu_find.h"
#include "noded/topology.h"

#define BACKOFF_MIN_MS 200
#define BACKOFF_MAX_MS 10000
/* a controller that refuses us will likely refuse again: ask less often */
#define REFUSED_BACKOFF_MS 60000
#define REFUSED_LOG_MS 60000

static void schedule_reconnect(struct noded *nd);

void link_send(struct noded *nd, uint16_t type, const char *body, size_t len)
{
	char mac[ROTA_AUTH_MAC_TEXT];

	if (!nd->link || !nd->sess.open)
		return;
	rota_auth_mac(&nd->sess, type, body, len, mac);
	rota_conn_send(nd->link, type, mac, strlen(mac), body, len);
}

/* The link is gone or reset: nothing sent on it will be answered. */
static void link_forget(struct noded *nd)
{
	nd->link = NULL;
	nd->sess.open = false;
	nd->registered = false;
	nd->nsent = 0;
}

/* Drop the link, whatever state it is in, and open a new one later. */
static void link_reset(struct noded *nd)
{
	if (nd->link)
		rota_conn_close(nd->link);
	link_forget(nd);
	schedule_reconnect(nd);
}

/* A REGISTER or HEARTBEAT leaves now: its answer renews from this time. */
static bool note_sent(struct noded *nd)
{
	if (nd->nsent == LINK_UNANSWERED)
		return false;
	nd->sent[nd->nsent++] = lease_now_ms();
	return true;
}

/* An answer came, to the oldest unanswered; OK renews the lease. */
static void answered(struct noded *nd, const struct rota_frame *f)
{
	struct rota_error err;
	int64_t sent, lease;

	if (!nd->nsent)
		return; /* an answer to nothing: no renewal from it */
	sent = nd->sent[0];
	memmove(nd->sent, nd->sent + 1, --nd->nsent * sizeof(nd->sent[0]));
	if (f->type != ROTA_MSG_OK)
		return;
	if (rota_msg_lease_decode(f->body, f->body_len, &lease, &err) < 0) {
		rota_warn("controller's lease: %s", err.text);
		return;
	}
	if (lease && nd->lease_ms != lease * 1000)
		rota_info("jobs here run on a lease of %llds from the "
			  "controller", (long long)lease);
	nd->lease_ms = lease * 1000;
	nd->lease_end = lease ? sent + nd->lease_ms : 0;
	if (nd->lease_lost)
		rota_info("lease renewed");
	nd->lease_lost = false;
	if (lease_write(nd->lease_path, nd->lease_end) < 0)
		rota_err("'%s': cannot write the lease; jobs here will end",
			 nd->lease_path);
}

static void send_register(struct noded *nd)
{
	const struct topology_summary *t = topology_summary(nd->topo);
	struct rota_node_info info = {
		.name = nd->name,
		.features = nd->features,
		.sockets = t->sockets,
		.cores = t->cores,
		.pus = t->pus,
		.memory_mb = t->memory_mb,
		.step_port = nd->step_port,
		.step_uid = (uint32_t)geteuid(),
	};
	struct rota_error err;
	char *cred = NULL;
	size_t n = 0, len;
	char *body;

	for (struct njob *j = nd->jobs; j; j = j->next)
		n++;
	info.gpus = gpus_wire(t);
	info.ngpus = t->ngpus;
	info.jobs = rota_xcalloc(n + 1, sizeof(uint32_t));
	info.runs = rota_xcalloc(n + 1, sizeof(uint32_t));
	for (struct njob *j = nd->jobs; j; j = j->next) {
		info.runs[info.njobs] = j->run;
		info.jobs[info.njobs++] = j->id;
	}
	body = rota_msg_node_encode(&info, &len);
	if (rota_auth_open(nd->auth, nd->ctld_uid, ROTA_MSG_NODE_REGISTER,
			   body, len, &nd->sess, &cred, &err) < 0) {
		rota_err("cannot register: %s", err.text);
		link_reset(nd);
	} else {
		note_sent(nd);
		rota_conn_send(nd->link, ROTA_MSG_NODE_REGISTER, cred,
			       strlen(cred), body, len);
	}
	free(cred);
	free(body);
	free(info.jobs);
	free(info.runs);
	free(info.gpus);
}

/*
 * The controller refused what we sent.  Registered: it wants us to
 * register again (it declared this node down meanwhile).  Not: it refused
 * the registration, and will until someone mends rota.conf or the node;
 * retry slowly, and say so once a minute, not at every try.
 */
static void refused(struct noded *nd, const struct rota_frame *f)
{
	int64_t now = rota_evloop_now_ms(nd->loop);
	struct rota_msg_error e;
	struct rota_error err;
	bool again;

	if (rota_msg_error_decode(f->body, f->body_len, &e, &err) < 0) {
		rota_warn("controller sent a bad ERROR: %s", err.text);
		return;
	}
	if (nd->registered) {
		rota_warn("controller: %s; registering again", e.text);
		nd->backoff_ms = BACKOFF_MIN_MS;
	} else {
		again = strcmp(nd->refused, e.text) == 0 &&
			now - nd->refused_at < REFUSED_LOG_MS;
		if (!again) {
			rota_err("controller refused registration: %s "
				 "(trying again every minute)", e.text);
			snprintf(nd->refused, sizeof(nd->refused), "%s",
				 e.text);
			nd->refused_at = now;
		}
		nd->backoff_ms = REFUSED_BACKOFF_MS;
	}
	rota_msg_error_clear(&e);
	link_reset(nd);
}

static void handle_order(struct noded *nd, const struct rota_frame *f)
{
	struct rota_error err;
	int rc = -EPROTO;

	switch (f->type) {
	case ROTA_MSG_LAUNCH: {
		struct rota_msg_launch m;

		rc = rota_msg_launch_decode(f->body, f->body_len, &m, &err);
		if (rc == 0) {
			jobs_launch(nd, &m);
			rota_msg_launch_clear(&m);
		}
		break;
	}
	case ROTA_MSG_SIGNAL_JOB: {
		struct rota_msg_job_signal m;

		rc = rota_msg_job_signal_decode(f->body, f->body_len, &m, &err);
		if (rc == 0)
			jobs_signal(nd, &m);
		break;
	}
	case ROTA_MSG_JOB_END_ACK: {
		uint32_t id, run;

		rc = rota_msg_job_run_decode(f->body, f->body_len, &id, &run,
					     &err);
		if (rc == 0)
			jobs_acked(nd, id, run);
		break;
	}
	case ROTA_MSG_STEPS_KILL: {
		uint32_t id, run;

		rc = rota_msg_job_run_decode(f->body, f->body_len, &id, &run,
					     &err);
		if (rc == 0)
			steps_kill(nd, id, run);
		break;
	}
	case ROTA_MSG_RECONFIGURE_NODE:
		noded_reconfigure(nd); /* may close this link: return at once */
		return;
	case ROTA_MSG_OK:
		answered(nd, f);
		if (nd->registered)
			return; /* a heartbeat's answer */
		rota_info("registered with the controller at %s:%u",
			  nd->ctld_host, nd->ctld_port);
		nd->registered = true;
		nd->refused[0] = '\0';
		nd->backoff_ms = BACKOFF_MIN_MS;
		jobs_resend_ends(nd);
		return;
	case ROTA_MSG_ERROR:
		answered(nd, f);
		refused(nd, f);
		return;
	default:
		rc = rota_errorf(&err, -EPROTO, "unexpected message type %u",
				 f->type);
	}
	if (rc < 0)
		rota_warn("controller sent a bad %s: %s",
			  rota_msg_type_name(f->type), err.text);
}

static void frame_cb(struct rota_conn *c, const struct rota_frame *f,
		     void *arg)
{
	struct noded *nd = arg;
	struct rota_error err;

	/* only the session's MACs: a munge credential here would reset it */
	if (f->cred_len < 5 || memcmp(f->cred, "HMAC:", 5) != 0 ||
	    rota_auth_check(nd->auth, &nd->sess, f->type, f->body,
			    f->body_len, f->cred, f->cred_len, &err) < 0) {
		rota_warn("%s from the controller refused: %s",
			  rota_msg_type_name(f->type),
			  f->cred_len ? err.text : "not authenticated");
		link_reset(nd);
		return;
	}
	handle_order(nd, f);
}

static void close_cb(struct rota_conn *c, int code, const char *why,
		     void *arg)
{
	struct noded *nd = arg;

	if (c != nd->link)
		return; /* one we let go of (link_reset) */
	if (nd->registered)
		rota_warn("link to the controller lost: %s", why);
	else
		rota_debug("link to the controller closed: %s", why);
	link_forget(nd);
	schedule_reconnect(nd);
}

static const struct rota_conn_ops link_ops = {
	.frame_cb = frame_cb,
	.close_cb = close_cb,
};

/*
 * The lease ran out: the supervisors end their jobs by themselves (they
 * read the lease file); say it once, and open a new link, since the one
 * we have carries no answers.
 */
static void check_lease(struct noded *nd)
{
	if (nd->lease_lost || !nd->lease_end ||
	    lease_now_ms() < nd->lease_end)
		return;
	nd->lease_lost = true;
	rota_err("no answer from the controller for %llds: the lease has run "
		 "out, jobs here are killed; reconnecting",
		 (long long)(nd->lease_ms / 1000));
	link_reset(nd);
}

static void heartbeat_cb(struct rota_evloop *loop, void *arg)
{
	struct noded *nd = arg;
	size_t len;
	char *body;

	check_lease(nd);
	if (!nd->registered)
		return;
	if (!note_sent(nd)) {
		rota_warn("%u heartbeats unanswered: reconnecting",
			  LINK_UNANSWERED);
		link_reset(nd);
		return;
	}
	body = rota_msg_heartbeat_encode(nd->name, nd->steps_refused, &len);
	link_send(nd, ROTA_MSG_HEARTBEAT, body, len);
	free(body);
	jobs_report_usage(nd);
}

static void connect_cb(struct rota_evloop *loop, void *arg)
{
	struct noded *nd = arg;
	struct rota_conn_limits lim = {
		.max_frame = nd->conf->max_frame,
		.out_high_water = 64u << 20,
	};
	struct rota_error err;
	int fd;

	nd->reconnect = NULL;
	/* a short blocking connect: the controller is on the local network */
	fd = rota_net_connect(nd->ctld_host, nd->ctld_port, nd->addr, 2000,
			      &err);
	if (fd < 0) {
		rota_debug("%s", err.text);
		schedule_reconnect(nd);
		return;
	}
	rota_net_set_nonblock(fd, 1);
	nd->link = rota_conn_create(loop, fd, &lim, &link_ops, nd);
	if (!nd->link) {
		schedule_reconnect(nd);
		return;
	}
	send_register(nd);
}

static void schedule_reconnect(struct noded *nd)
{
	if (nd->reconnect)
		return;
	nd->reconnect = rota_evloop_add_timer(nd->loop, nd->backoff_ms, false,
					      connect_cb, nd);
	nd->backoff_ms *= 2;
	if (nd->backoff_ms > BACKOFF_MAX_MS)
		nd->backoff_ms = BACKOFF_MAX_MS;
}

void link_restart(struct noded *nd)
{
	nd->heartbeat = rota_evloop_add_timer(
		nd->loop, nd->conf->heartbeat_interval * 1000, true,
		heartbeat_cb, nd);
	nd->backoff_ms = BACKOFF_MIN_MS;
	if (nd->link) {
		rota_info("registering again with the controller");
		link_reset(nd);
	} else if (nd->reconnect) {
		/* waiting out a refusal: the mended file is worth a try now */
		rota_timer_cancel(nd->reconnect);
		nd->reconnect = NULL;
		schedule_reconnect(nd);
	}
}

void link_start(struct noded *nd)
{
	nd->backoff_ms = BACKOFF_MIN_MS;
	nd->heartbeat = rota_evloop_add_timer(
		nd->loop, nd->conf->heartbeat_interval * 1000, true,
		heartbeat_cb, nd);
	nd->reconnect = rota_evloop_add_timer(nd->loop, 0, false, connect_cb,
					      nd);
}
