// SPDX-License-Identifier: MIT
/*
 * Each emulated node's link to the controller: the same protocol as
 * rota-noded's link.c, frame for frame (a munge-opened session per
 * connection, HMACs after it, REGISTER with the node's running jobs,
 * HEARTBEAT every HeartbeatInterval, the lease renewed by each answer),
 * opened from the node's own Addr so the controller's address check
 * holds.  A node cut off on request ("lost") sends nothing, answers
 * nothing and drops what arrives, as a node behind a broken switch; its
 * lease runs out on time and its jobs end, as a real node's supervisors
 * end theirs.  Back, it opens a new link and registers afresh.
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
#include "noded/emu.h"
#include "noded/gpu_find.h"
#include "noded/topology.h"

#define BACKOFF_MIN_MS 200
#define BACKOFF_MAX_MS 10000
#define REFUSED_BACKOFF_MS 60000

static void schedule_reconnect(struct enode *n);

static int64_t now_ms(struct enode *n)
{
	return rota_evloop_now_ms(n->emu->loop);
}

void emu_link_send(struct enode *n, uint16_t type, const char *body,
		   size_t len)
{
	char mac[ROTA_AUTH_MAC_TEXT];

	if (n->lost || !n->link || !n->sess.open)
		return;
	rota_auth_mac(&n->sess, type, body, len, mac);
	rota_conn_send(n->link, type, mac, strlen(mac), body, len);
}

static void link_forget(struct enode *n)
{
	n->link = NULL;
	n->sess.open = false;
	n->registered = false;
	n->nsent = 0;
}

static void link_reset(struct enode *n)
{
	if (n->link)
		rota_conn_close(n->link);
	link_forget(n);
	schedule_reconnect(n);
}

static bool note_sent(struct enode *n)
{
	if (n->nsent == EMU_UNANSWERED)
		return false;
	n->sent[n->nsent++] = now_ms(n);
	return true;
}

/* An answer to the oldest unanswered REGISTER/HEARTBEAT: OK renews. */
static void answered(struct enode *n, const struct rota_frame *f)
{
	struct rota_error err;
	int64_t sent, lease;

	if (!n->nsent)
		return;
	sent = n->sent[0];
	memmove(n->sent, n->sent + 1, --n->nsent * sizeof(n->sent[0]));
	if (f->type != ROTA_MSG_OK)
		return;
	if (rota_msg_lease_decode(f->body, f->body_len, &lease, &err) < 0) {
		rota_warn("%s: controller's lease: %s", n->name, err.text);
		return;
	}
	n->lease_ms = lease * 1000;
	n->lease_end = lease ? sent + n->lease_ms : 0;
}

static void send_register(struct enode *n)
{
	const struct topology_summary *t = n->topo;
	struct rota_node_info info = {
		.name = (char *)n->name,
		.features = n->features,
		.sockets = t->sockets,
		.cores = t->cores,
		.pus = t->pus,
		.memory_mb = t->memory_mb,
		.step_port = 0, /* no job steps here */
		.step_uid = (uint32_t)geteuid(),
	};
	struct rota_error err;
	char *cred = NULL;
	size_t k = 0, len;
	char *body;

	for (struct ejob *j = n->jobs; j; j = j->next)
		k++;
	info.gpus = gpus_wire(t);
	info.ngpus = t->ngpus;
	info.jobs = rota_xcalloc(k + 1, sizeof(uint32_t));
	info.runs = rota_xcalloc(k + 1, sizeof(uint32_t));
	for (struct ejob *j = n->jobs; j; j = j->next) {
		info.runs[info.njobs] = j->run;
		info.jobs[info.njobs++] = j->id;
	}
	body = rota_msg_node_encode(&info, &len);
	if (rota_auth_open(n->emu->auth, n->emu->ctld_uid,
			   ROTA_MSG_NODE_REGISTER, body, len, &n->sess, &cred,
			   &err) < 0) {
		rota_err("%s: cannot register: %s", n->name, err.text);
		link_reset(n);
	} else {
		note_sent(n);
		rota_conn_send(n->link, ROTA_MSG_NODE_REGISTER, cred,
			       strlen(cred), body, len);
	}
	free(cred);
	free(body);
	free(info.jobs);
	free(info.runs);
	free(info.gpus);
}

static void refused(struct enode *n, const struct rota_frame *f)
{
	struct rota_msg_error e;
	struct rota_error err;

	if (rota_msg_error_decode(f->body, f->body_len, &e, &err) < 0) {
		rota_warn("%s: controller sent a bad ERROR: %s", n->name,
			  err.text);
		return;
	}
	if (n->registered) {
		rota_debug("%s: controller: %s; registering again", n->name,
			   e.text);
		n->backoff_ms = BACKOFF_MIN_MS;
	} else {
		rota_err("%s: controller refused registration: %s", n->name,
			 e.text);
		n->backoff_ms = REFUSED_BACKOFF_MS;
	}
	rota_msg_error_clear(&e);
	link_reset(n);
}

static int handle_job_order(struct enode *n, const struct rota_frame *f,
			    struct rota_error *err)
{
	struct rota_msg_launch m;
	struct rota_msg_job_signal s;
	uint32_t id, run;
	int rc;

	switch (f->type) {
	case ROTA_MSG_LAUNCH:
		rc = rota_msg_launch_decode(f->body, f->body_len, &m, err);
		if (rc == 0) {
			emu_jobs_launch(n, &m);
			rota_msg_launch_clear(&m);
		}
		return rc;
	case ROTA_MSG_SIGNAL_JOB:
		rc = rota_msg_job_signal_decode(f->body, f->body_len, &s, err);
		if (rc == 0)
			emu_jobs_signal(n, &s);
		return rc;
	case ROTA_MSG_JOB_END_ACK:
		rc = rota_msg_job_run_decode(f->body, f->body_len, &id, &run,
					     err);
		if (rc == 0)
			emu_jobs_acked(n, id, run);
		return rc;
	case ROTA_MSG_STEPS_KILL:
		return 0; /* no steps run here */
	}
	return rota_errorf(err, -EPROTO, "unexpected message type %u",
			   f->type);
}

static void handle_order(struct enode *n, const struct rota_frame *f)
{
	struct rota_error err;

	switch (f->type) {
	case ROTA_MSG_RECONFIGURE_NODE:
		/* the new lease and interval come with the new registration */
		link_reset(n);
		return;
	case ROTA_MSG_OK:
		answered(n, f);
		if (n->registered)
			return;
		if (!n->emu->registered++ || n->emu->registered ==
						     n->emu->nnodes)
			rota_info("%llu of %zu nodes registered",
				  (unsigned long long)n->emu->registered,
				  n->emu->nnodes);
		n->registered = true;
		n->backoff_ms = BACKOFF_MIN_MS;
		emu_jobs_resend_ends(n);
		return;
	case ROTA_MSG_ERROR:
		answered(n, f);
		refused(n, f);
		return;
	}
	if (handle_job_order(n, f, &err) < 0)
		rota_warn("%s: controller sent a bad %s: %s", n->name,
			  rota_msg_type_name(f->type), err.text);
}

static void frame_cb(struct rota_conn *c, const struct rota_frame *f,
		     void *arg)
{
	struct enode *n = arg;
	struct rota_error err;

	if (n->lost)
		return; /* cut off: nothing arrives */
	if (f->cred_len < 5 || memcmp(f->cred, "HMAC:", 5) != 0 ||
	    rota_auth_check(n->emu->auth, &n->sess, f->type, f->body,
			    f->body_len, f->cred, f->cred_len, &err) < 0) {
		rota_warn("%s: %s from the controller refused: %s", n->name,
			  rota_msg_type_name(f->type),
			  f->cred_len ? err.text : "not authenticated");
		link_reset(n);
		return;
	}
	handle_order(n, f);
}

static void close_cb(struct rota_conn *c, int code, const char *why,
		     void *arg)
{
	struct enode *n = arg;

	if (c != n->link)
		return;
	rota_debug("%s: link to the controller closed: %s", n->name, why);
	link_forget(n);
	schedule_reconnect(n);
}

static const struct rota_conn_ops link_ops = {
	.frame_cb = frame_cb,
	.close_cb = close_cb,
};

/* As link.c: a lease run out means the link carries no answers. */
void emu_link_check_lease(struct enode *n)
{
	if (!n->lease_end || now_ms(n) < n->lease_end)
		return;
	n->lease_end = 0;
	emu_jobs_lease_lost(n);
	if (!n->lost)
		link_reset(n);
}

static void heartbeat_cb(struct rota_evloop *loop, void *arg)
{
	struct enode *n = arg;
	size_t len;
	char *body;

	emu_link_check_lease(n);
	if (n->lost || !n->registered)
		return;
	if (!note_sent(n)) {
		rota_warn("%s: %u heartbeats unanswered: reconnecting",
			  n->name, EMU_UNANSWERED);
		link_reset(n);
		return;
	}
	body = rota_msg_heartbeat_encode(n->name, 0, &len);
	emu_link_send(n, ROTA_MSG_HEARTBEAT, body, len);
	free(body);
}

static void connect_cb(struct rota_evloop *loop, void *arg)
{
	struct enode *n = arg;
	struct rota_conn_limits lim = {
		.max_frame = n->emu->conf->max_frame,
		.out_high_water = 16u << 20,
	};
	struct rota_error err;
	int fd;

	n->reconnect = NULL;
	if (n->lost)
		return;
	fd = rota_net_connect(n->emu->ctld_host, n->emu->ctld_port, n->addr,
			      2000, &err);
	if (fd < 0) {
		rota_debug("%s: %s", n->name, err.text);
		schedule_reconnect(n);
		return;
	}
	rota_net_set_nonblock(fd, 1);
	n->link = rota_conn_create(loop, fd, &lim, &link_ops, n);
	if (!n->link) {
		schedule_reconnect(n);
		return;
	}
	send_register(n);
}

static void schedule_reconnect(struct enode *n)
{
	if (n->reconnect || n->lost)
		return;
	n->reconnect = rota_evloop_add_timer(n->emu->loop, n->backoff_ms,
					     false, connect_cb, n);
	n->backoff_ms *= 2;
	if (n->backoff_ms > BACKOFF_MAX_MS)
		n->backoff_ms = BACKOFF_MAX_MS;
}

/* The heartbeat timers start spread over one interval, as real nodes'. */
static void first_beat_cb(struct rota_evloop *loop, void *arg)
{
	struct enode *n = arg;

	n->heartbeat = rota_evloop_add_timer(
		loop, n->emu->conf->heartbeat_interval * 1000, true,
		heartbeat_cb, n);
	heartbeat_cb(loop, n);
}

void emu_link_start(struct enode *n, int64_t delay_ms)
{
	int64_t hb = n->emu->conf->heartbeat_interval * 1000;

	n->backoff_ms = BACKOFF_MIN_MS;
	rota_evloop_add_timer(n->emu->loop,
			      delay_ms + hb / 2 + random() % (hb ? hb : 1),
			      false, first_beat_cb, n);
	n->reconnect = rota_evloop_add_timer(n->emu->loop, delay_ms, false,
					     connect_cb, n);
}

void emu_link_set_lost(struct enode *n, bool lost)
{
	if (n->lost == lost)
		return;
	n->lost = lost;
	emu_runlog(n->emu, lost ? "lost" : "back", 0, 0, n->name);
	if (lost) {
		rota_info("%s: lost (silent both ways)", n->name);
		rota_timer_cancel(n->reconnect);
		n->reconnect = NULL;
		return;
	}
	/* the old link's HMAC sequence is broken by what was dropped */
	rota_info("%s: back: registering again", n->name);
	n->backoff_ms = BACKOFF_MIN_MS;
	link_reset(n);
}

void emu_link_stop(struct enode *n)
{
	rota_timer_cancel(n->reconnect);
	n->reconnect = NULL;
	if (n->link)
		rota_conn_close(n->link);
	link_forget(n);
}
