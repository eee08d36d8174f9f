// SPDX-License-Identifier: MIT
/*
 * The controller's front door: the listening socket, one connection per
 * peer, and the dispatch table that every frame passes through.  Deny by
 * default: a type not in the table, a credential that munge refuses or a
 * sender without the role gets one error reply and the connection closes;
 * each is counted.
 *
 * A stranger gets little: connections are capped at accept (admit.c), and
 * until a connection's first munge credential has been opened it may send
 * only small frames and must do so within AuthTimeout (conn.h's pre-auth
 * limits); the body of a large request is read only after its credential
 * proved who sent it.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/clock.h"
#include "common/conf.h"
#include "common/conn.h"
#include "common/evloop.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/net.h"
#include "common/proto.h"
#include "common/xalloc.h"
#include "ctld/admit.h"
#include "ctld/core/core.h"
#include "ctld/ctld.h"
#include "ctld/step.h"
#include "ctld/stream.h"
#include "ctld/users.h"

enum role {
	ROLE_USER = 1,	/* any authenticated user */
	ROLE_NODE,	/* a node daemon: root or the controller's own uid */
};

static const struct rpc_entry {
	uint16_t type;
	enum role role;
	rpc_handler_fn fn;
} rpc_table[] = {
	{ ROTA_MSG_SUBMIT, ROLE_USER, rpc_submit },
	{ ROTA_MSG_JOB_LIST, ROLE_USER, rpc_job_list },
	{ ROTA_MSG_JOB_ROWS, ROLE_USER, rpc_job_rows },
	{ ROTA_MSG_CANCEL, ROLE_USER, rpc_cancel },
	{ ROTA_MSG_NODE_LIST, ROLE_USER, rpc_node_list },
	{ ROTA_MSG_PING, ROLE_USER, rpc_ping },
	{ ROTA_MSG_DIAG, ROLE_USER, rpc_diag },
	{ ROTA_MSG_NODE_ADMIN, ROLE_USER, rpc_node_admin },
	{ ROTA_MSG_SHARE, ROLE_USER, rpc_share },
	{ ROTA_MSG_PRIO, ROLE_USER, rpc_prio },
	{ ROTA_MSG_RECONFIGURE, ROLE_USER, rpc_reconfigure },
	{ ROTA_MSG_HOLD, ROLE_USER, rpc_hold },
	{ ROTA_MSG_RELEASE, ROLE_USER, rpc_release },
	{ ROTA_MSG_NICE, ROLE_USER, rpc_nice },
	{ ROTA_MSG_UPDATE, ROLE_USER, rpc_update },
	{ ROTA_MSG_REQUEUE, ROLE_USER, rpc_requeue },
	{ ROTA_MSG_TOP_ROWS, ROLE_USER, rpc_top_rows },
	{ ROTA_MSG_RESV_CREATE, ROLE_USER, rpc_resv_create },
	{ ROTA_MSG_RESV_DELETE, ROLE_USER, rpc_resv_delete },
	{ ROTA_MSG_RESV_LIST, ROLE_USER, rpc_resv_list },
	{ ROTA_MSG_WHY, ROLE_USER, rpc_why },
	{ ROTA_MSG_LICENSES, ROLE_USER, rpc_licenses },
	{ ROTA_MSG_STEP_CREATE, ROLE_USER, rpc_step_create },
	{ ROTA_MSG_STEP_COMPLETE, ROLE_USER, rpc_step_complete },
	{ ROTA_MSG_STEP_LIST, ROLE_USER, rpc_step_list },
	{ ROTA_MSG_NODE_REGISTER, ROLE_NODE, rpc_node_register },
	{ ROTA_MSG_HEARTBEAT, ROLE_NODE, rpc_heartbeat },
	{ ROTA_MSG_JOB_END, ROLE_NODE, rpc_job_end },
	{ ROTA_MSG_JOB_USAGE, ROLE_NODE, rpc_job_usage },
};

int64_t ctld_now(const struct ctld *ctld)
{
	return rota_clock_now(ctld->clock);
}

bool ctld_is_operator(struct ctld *ctld, uid_t uid)
{
	return uid == 0 || uid == ctld->self_uid ||
	       rota_conf_is_operator(ctld->conf,
				     user_cache_name(ctld->users, uid));
}

void peer_send(struct peer *p, uint16_t type, const char *body, size_t len)
{
	char mac[ROTA_AUTH_MAC_TEXT];

	/* a peer whose credential was refused gets its error unauthenticated */
	if (!p->sess.open) {
		rota_conn_send(p->conn, type, NULL, 0, body, len);
		return;
	}
	rota_auth_mac(&p->sess, type, body, len, mac);
	rota_conn_send(p->conn, type, mac, strlen(mac), body, len);
}

void peer_send_mac(struct peer *p, uint16_t type, char *body, size_t len,
		   struct rota_auth_mac_stream *m)
{
	char mac[ROTA_AUTH_MAC_TEXT];

	if (!p->sess.open) {
		rota_conn_send_take(p->conn, type, NULL, 0, body, len);
		return;
	}
	rota_auth_mac_end(&p->sess, m, body, len, mac);
	rota_conn_send_take(p->conn, type, mac, strlen(mac), body, len);
}

void peer_send_error(struct peer *p, int code, const char *text)
{
	size_t len;
	char *body = rota_msg_error_encode(code, text, &len);

	peer_send(p, ROTA_MSG_ERROR, body, len);
	free(body);
}

static const struct rpc_entry *rpc_find(uint16_t type)
{
	for (size_t i = 0; i < sizeof(rpc_table) / sizeof(*rpc_table); i++) {
		if (rpc_table[i].type == type)
			return &rpc_table[i];
	}
	return NULL;
}

#define RPC_COUNT (sizeof(rpc_table) / sizeof(*rpc_table))
_Static_assert(RPC_COUNT <= CTLD_RPC_MAX, "CTLD_RPC_MAX too small");

/* Each request type's count and handling time, for rota diag. */
static void rpc_account(struct ctld *ctld, size_t i, int64_t us)
{
	struct ctld_rpc_stat *st = &ctld->stats.rpc[i];

	st->count++;
	st->us_total += (uint64_t)(us > 0 ? us : 0);
	if ((uint64_t)us > st->us_max)
		st->us_max = (uint64_t)us;
}

size_t ctld_rpc_types(void)
{
	return RPC_COUNT;
}

uint16_t ctld_rpc_type(size_t i)
{
	return rpc_table[i].type;
}

static void refuse(struct peer *p, int code, const char *text)
{
	peer_send_error(p, code, text);
	rota_conn_close_after_flush(p->conn);
}

static void frame_cb(struct rota_conn *c, const struct rota_frame *f,
		     void *arg)
{
	struct peer *p = arg;
	struct ctld *ctld = p->ctld;
	const struct rpc_entry *e = rpc_find(f->type);
	struct rota_error err;
	int64_t t0;

	ctld->stats.requests++;
	if (!e) {
		ctld->stats.unknown_types++;
		rota_warn("%s: unknown message type %u refused",
			  rota_conn_peer(c), f->type);
		refuse(p, -EPROTO, "unknown message type");
		return;
	}
	/* a credential opened ahead of the body (cred_cb) seals that body */
	if (p->pre.set ? rota_auth_finish(&p->pre, &p->sess, f->type, f->body,
					  f->body_len, &err) < 0
		       : rota_auth_check(ctld->auth, &p->sess, f->type,
					 f->body, f->body_len, f->cred,
					 f->cred_len, &err) < 0) {
		ctld->stats.auth_refused++;
		rota_warn("%s: %s refused: %s", rota_conn_peer(c),
			  rota_msg_type_name(f->type), err.text);
		refuse(p, -EACCES, err.text);
		return;
	}
	p->uid = p->sess.uid;
	p->gid = p->sess.gid;
	if (e->role == ROLE_NODE && p->uid != 0 && p->uid != ctld->self_uid) {
		ctld->stats.denied++;
		rota_warn("%s: %s from uid %u refused: not a node daemon",
			  rota_conn_peer(c), rota_msg_type_name(f->type),
			  (unsigned)p->uid);
		refuse(p, -EPERM, "only node daemons may send this");
		return;
	}
	t0 = ctld_work_clock();
	e->fn(p, f);
	rpc_account(ctld, (size_t)(e - rpc_table), ctld_work_clock() - t0);
}

/*
 * Refusals a flood makes by the thousand: logged once, then at most every
 * ten seconds with how many went unlogged.
 */
static void log_refusal(struct ctld *ctld, const char *peer, const char *why)
{
	int64_t now = ctld_now(ctld);

	if (ctld->refusal_logged && now - ctld->refusal_logged < 10) {
		ctld->refusals_quiet++;
		return;
	}
	if (ctld->refusals_quiet)
		rota_warn("%s: refused: %s (and %llu refusals not logged "
			  "since the last)", peer, why,
			  (unsigned long long)ctld->refusals_quiet);
	else
		rota_warn("%s: refused: %s", peer, why);
	ctld->refusal_logged = now;
	ctld->refusals_quiet = 0;
}

/*
 * The credential of an unauthenticated connection's frame, before its
 * body is read: only a credential munge vouches for lets the peer send a
 * body of up to MaxMessageSize.
 */
static int cred_cb(struct rota_conn *c, const struct rota_frame_header *h,
		   const char *cred, void *arg)
{
	struct peer *p = arg;
	struct ctld *ctld = p->ctld;
	struct rota_error err;

	if (!rpc_find(h->type)) {
		ctld->stats.requests++;
		ctld->stats.unknown_types++;
		log_refusal(ctld, rota_conn_peer(c), "unknown message type");
		refuse(p, -EPROTO, "unknown message type");
		return -EPROTO;
	}
	if (rota_auth_precheck(ctld->auth, cred, h->cred_len, &p->pre,
			       &err) < 0) {
		ctld->stats.requests++;
		ctld->stats.auth_refused++;
		log_refusal(ctld, rota_conn_peer(c), err.text);
		refuse(p, -EACCES, err.text);
		return -EACCES;
	}
	return 0;
}

static void peer_unlink(struct peer *p)
{
	if (p->prev)
		p->prev->next = p->next;
	else
		p->ctld->peers = p->next;
	if (p->next)
		p->next->prev = p->prev;
}

void server_close_all(struct ctld *ctld)
{
	/* close_cb unlinks and frees each peer */
	while (ctld->peers) {
		ctld->peers->node = -1; /* shutting down: no node goes down */
		rota_conn_close(ctld->peers->conn);
	}
	admit_destroy(ctld->admit);
	ctld->admit = NULL;
	if (ctld->spare_fd > 0)
		close(ctld->spare_fd);
	ctld->spare_fd = -1;
}

static void close_cb(struct rota_conn *c, int code, const char *why,
		     void *arg)
{
	struct peer *p = arg;
	struct ctld *ctld = p->ctld;

	if (code == -EPROTO) {
		ctld->stats.bad_frames++;
		/* strangers come by the thousand: no line for each */
		if (rota_conn_is_authenticated(c))
			rota_warn("%s: dropped: %s", rota_conn_peer(c), why);
		else
			log_refusal(ctld, rota_conn_peer(c), why);
	} else if (code == -EMSGSIZE) {
		ctld->stats.preauth_too_large++;
		log_refusal(ctld, rota_conn_peer(c), why);
	} else if (code == -ETIMEDOUT && !rota_conn_is_authenticated(c)) {
		ctld->stats.preauth_timeouts++;
		log_refusal(ctld, rota_conn_peer(c), why);
	}
	if (ctld->admit)
		admit_release(ctld->admit, p->addr, p->from_node);
	if (p->node >= 0)
		rpc_node_link_lost(p, why);
	stream_abort(p);
	peer_unlink(p);
	rota_auth_pending_clear(&p->pre);
	free(p);
}

static const struct rota_conn_ops peer_ops = {
	.frame_cb = frame_cb,
	.close_cb = close_cb,
	.cred_cb = cred_cb,
};

/* The peer's address as text ("?" when the socket cannot say). */
static void peer_addr(int fd, char *out, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	const void *a = NULL;

	snprintf(out, len, "?");
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) < 0)
		return;
	if (ss.ss_family == AF_INET)
		a = &((struct sockaddr_in *)&ss)->sin_addr;
	else if (ss.ss_family == AF_INET6)
		a = &((struct sockaddr_in6 *)&ss)->sin6_addr;
	if (a && !inet_ntop(ss.ss_family, a, out, (socklen_t)len))
		snprintf(out, len, "?");
}

/*
 * Turn a connection away at accept: one ERROR frame in one write (it fits
 * any socket buffer; if not, the peer just sees the close), then close.
 */
static void refuse_at_accept(struct ctld *ctld, int fd, const char *addr,
			     enum admit_verdict v)
{
	const char *why = v == ADMIT_OVER_TOTAL
				  ? "too many connections (MaxConnections)"
				  : "too many connections from this address "
				    "(MaxConnectionsPerAddr)";
	uint8_t frame[ROTA_FRAME_HEADER_LEN + 160];
	size_t len;
	char *body = rota_msg_error_encode(-EAGAIN, why, &len);

	if (v == ADMIT_OVER_TOTAL)
		ctld->stats.refused_max_conns++;
	else
		ctld->stats.refused_per_addr++;
	if (len <= sizeof(frame) - ROTA_FRAME_HEADER_LEN) {
		rota_frame_header_encode(frame, ROTA_MSG_ERROR, 0,
					 (uint32_t)len);
		memcpy(frame + ROTA_FRAME_HEADER_LEN, body, len);
		if (write(fd, frame, ROTA_FRAME_HEADER_LEN + len) < 0)
			rota_debug("%s: refusal not sent: %s", addr,
				   strerror(errno));
	}
	free(body);
	close(fd);
	log_refusal(ctld, addr, why);
}

/*
 * Out of descriptors (the caps are above what the system allows): a
 * pending connection would keep the listener readable and the loop
 * spinning, so close the spare descriptor, accept and close the peer, and
 * take the spare back (libuv and nginx do the same).  Counted with the
 * refusals over MaxConnections.
 */
static void shed_one(struct ctld *ctld, int lfd, int code)
{
	int cfd;

	log_refusal(ctld, "accept", strerror(-code));
	if (ctld->spare_fd < 0)
		return;
	close(ctld->spare_fd);
	cfd = rota_net_accept(lfd);
	if (cfd >= 0) {
		ctld->stats.refused_max_conns++;
		close(cfd);
	}
	ctld->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void accept_cb(struct rota_evloop *loop, int fd, unsigned events,
		      void *arg)
{
	struct ctld *ctld = arg;
	struct rota_conn_limits lim = {
		.max_frame = ctld->conf->max_frame,
		/* a peer that does not read its replies is not read from */
		.out_high_water = 1u << 20,
		.idle_ms = 3 * ctld->conf->heartbeat_interval * 1000,
		/*
		 * Strangers get small frames and a short deadline to show a
		 * credential (conn.h): a munge credential is a few hundred
		 * bytes and made before the first byte is sent, so 32 KiB
		 * and AuthTimeout (5 s) leave an honest client plenty.
		 */
		.preauth_max = ROTA_FRAME_PREAUTH_MAX,
		.preauth_ms = ctld->conf->auth_timeout * 1000,
	};

	for (int i = 0; i < 64; i++) {
		int cfd = rota_net_accept(fd);
		enum admit_verdict v;
		char addr[48];
		bool is_node;
		struct peer *p;

		if (cfd == -EMFILE || cfd == -ENFILE) {
			shed_one(ctld, fd, cfd);
			return;
		}
		if (cfd < 0) {
			if (cfd != -EAGAIN && cfd != -EINTR)
				rota_warn("accept: %s", strerror(-cfd));
			return;
		}
		peer_addr(cfd, addr, sizeof(addr));
		v = admit_take(ctld->admit, addr, &is_node);
		if (v != ADMIT_OK) {
			refuse_at_accept(ctld, cfd, addr, v);
			continue;
		}
		ctld->stats.conns_accepted++;
		p = rota_xcalloc(1, sizeof(*p));
		p->ctld = ctld;
		p->node = -1;
		p->from_node = is_node;
		snprintf(p->addr, sizeof(p->addr), "%s", addr);
		p->conn = rota_conn_create(loop, cfd, &lim, &peer_ops, p);
		if (!p->conn) {
			admit_release(ctld->admit, addr, is_node);
			free(p);
			continue;
		}
		p->next = ctld->peers;
		if (p->next)
			p->next->prev = p;
		ctld->peers = p;
	}
}

/*
 * Each connection is a descriptor: raise the soft limit to what the caps
 * need (MaxConnections for clients, as many for nodes' addresses, and some
 * for the journal, plugins and children), within the hard limit, and say
 * so when even that is too low, since accept would then fail before the
 * caps are reached.
 */
static void raise_fd_limit(const struct rota_conf *conf)
{
	struct rlimit rl;
	rlim_t want = 2 * (rlim_t)conf->max_connections + 256;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want
				      ? want
				      : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want)
		rota_warn("open files limited to %llu, below what MaxConnections "
			  "(%u, twice: clients and nodes) needs (%llu): raise "
			  "the limit (LimitNOFILE=)",
			  (unsigned long long)rl.rlim_max, conf->max_connections,
			  (unsigned long long)want);
}

int server_start(struct ctld *ctld, unsigned *port)
{
	struct rota_error err;
	int fd = rota_net_listen(ctld->conf->ctld_addr, ctld->conf->ctld_port,
				 port, &err);

	if (fd < 0) {
		rota_err("%s", err.text);
		return fd;
	}
	ctld->listen_fd = fd;
	raise_fd_limit(ctld->conf);
	ctld->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ctld->admit = admit_create(ctld->conf);
	if (!rota_evloop_add_fd(ctld->loop, fd, ROTA_EV_READ, accept_cb, ctld))
		return -errno;
	return 0;
}
