// SPDX-License-Identifier: MIT
/*
 * Handlers of the job control requests: HOLD, RELEASE, NICE, UPDATE and
 * REQUEUE (rota hold, release, nice, update job, requeue; the keys of
 * rota top).  Who asks is the munge-authenticated uid in the peer, and
 * ctld_is_operator() alone says whether that uid may act on every job;
 * the rules themselves are the core's (core_hold, core_nice, ...).
 *
 * One request names many jobs; each is tried on its own, and the reply
 * lists one line per job refused, which the command prints as is.  Every
 * refusal is logged at info level (who, which job, why), every change too;
 * all changes are journaled (state_commit) before the reply goes out.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/proto.h"
#include "common/units.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "ctld/ctld.h"
#include "ctld/idem.h"

struct control;
typedef int (*control_fn)(struct control *c, uint32_t id,
			  struct rota_error *err);

/* What one request asks of each of its jobs. */
struct control {
	struct ctld *ctld;
	uid_t uid;
	bool is_operator;
	const struct rota_msg_control *m;
	struct core_update update; /* UPDATE: the parsed key=value pairs */
	control_fn fn;
	const char *verb;
};

static int do_hold(struct control *c, uint32_t id, struct rota_error *err)
{
	return core_hold(c->ctld->core, ctld_now(c->ctld), id, c->uid,
			 c->is_operator, c->m->operator_hold, err);
}

static int do_release(struct control *c, uint32_t id, struct rota_error *err)
{
	return core_release(c->ctld->core, ctld_now(c->ctld), id, c->uid,
			    c->is_operator, err);
}

static int do_nice(struct control *c, uint32_t id, struct rota_error *err)
{
	return core_nice(c->ctld->core, ctld_now(c->ctld), id, c->uid,
			 c->is_operator, c->m->nice, c->m->relative, err);
}

static int do_update(struct control *c, uint32_t id, struct rota_error *err)
{
	return core_update(c->ctld->core, ctld_now(c->ctld), id, c->uid,
			   c->is_operator, &c->update, err);
}

static int do_requeue(struct control *c, uint32_t id, struct rota_error *err)
{
	return core_requeue_job(c->ctld->core, ctld_now(c->ctld), id, c->uid,
				c->is_operator, err);
}

static int parse_urgency(const char *v, uint32_t *out, struct rota_error *err)
{
	char *end;
	unsigned long u = strtoul(v, &end, 10);

	if (*v < '0' || *v > '9' || *end || u < 1 || u > 31)
		return rota_errorf(err, -EINVAL,
				   "Urgency=%s: expected 1 to 31", v);
	*out = (uint32_t)u;
	return 0;
}

/* JobShare= and OTickets=: 0 to 1e9, as Grid Engine's -js and -ot. */
static int parse_count(const char *k, const char *v, uint32_t *out,
		       struct rota_error *err)
{
	char *end;
	unsigned long u = strtoul(v, &end, 10);

	if (*v < '0' || *v > '9' || *end || u > 1000000000)
		return rota_errorf(err, -EINVAL,
				   "%s=%s: expected 0 to 1000000000", k, v);
	*out = (uint32_t)u;
	return 0;
}

/* UPDATE's key=value pairs into c->update; -EINVAL with the user's line. */
static int parse_set(struct control *c, struct rota_error *err)
{
	struct core_update *u = &c->update;

	if (!c->m->nset)
		return rota_errorf(err, -EINVAL, "nothing to change: give "
				   "key=value (TimeLimit, Queue, Name, "
				   "Urgency, Dependency, JobShare, "
				   "OTickets)");
	for (size_t i = 0; i < c->m->nset; i++) {
		const char *k = c->m->set[i].key;
		const char *v = c->m->set[i].value;
		int rc = 0;

		if (strcasecmp(k, "TimeLimit") == 0) {
			rc = rota_duration_parse(v, ROTA_DURATION_BARE_MINUTES,
						 &u->time_limit, err);
			if (rc == 0 && u->time_limit <= 0)
				rc = rota_errorf(err, -EINVAL, "TimeLimit=%s: "
						 "must be above zero", v);
		} else if (strcasecmp(k, "Queue") == 0 ||
			   strcasecmp(k, "Partition") == 0) {
			u->queue = v;
		} else if (strcasecmp(k, "Name") == 0) {
			u->name = v;
		} else if (strcasecmp(k, "Urgency") == 0) {
			rc = parse_urgency(v, &u->urgency, err);
		} else if (strcasecmp(k, "Dependency") == 0) {
			u->dependency = v; /* "": none; core_update checks */
		} else if (strcasecmp(k, "JobShare") == 0) {
			rc = parse_count(k, v, &u->jobshare, err);
			u->set_jobshare = true;
		} else if (strcasecmp(k, "OTickets") == 0) {
			rc = parse_count(k, v, &u->oticket, err);
			u->set_oticket = true;
		} else {
			rc = rota_errorf(err, -EINVAL,
					 "%s: unknown key (TimeLimit, Queue, "
					 "Name, Urgency, Dependency, JobShare, "
					 "OTickets)", k);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

void rpc_lines_add(struct rpc_lines *l, const char *text)
{
	l->v = rota_xreallocarray(l->v, l->n + 2, sizeof(*l->v));
	l->v[l->n++] = rota_xstrdup(text);
	l->v[l->n] = NULL;
}

void rpc_lines_fini(struct rpc_lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	*l = (struct rpc_lines){ 0 };
}

void rpc_each_job(struct ctld *ctld, const uint32_t *ids, char *const *tasks,
		  size_t n, bool running, rpc_job_fn fn, void *arg,
		  struct rpc_lines *out)
{
	struct rota_error err;

	for (size_t i = 0; i < n; i++) {
		uint32_t *v;
		size_t k = core_array_select(ctld->core, ctld_now(ctld), ids[i],
					     tasks ? tasks[i] : NULL, running,
					     &v, &err);

		if (err.text[0])
			rpc_lines_add(out, err.text);
		for (size_t j = 0; j < k; j++)
			if (fn(arg, v[j], &err) < 0)
				rpc_lines_add(out, err.text);
		free(v);
	}
}

/* One job of a control request: the change, logged either way. */
static int control_job(void *arg, uint32_t id, struct rota_error *err)
{
	struct control *c = arg;
	int rc = c->fn(c, id, err);

	if (rc == -EPERM)
		c->ctld->stats.denied++;
	if (rc < 0)
		rota_info("%s by uid %u refused: %s", c->verb,
			  (unsigned)c->uid, err->text);
	else
		rota_info("job %u: %s by uid %u", id, c->verb,
			  (unsigned)c->uid);
	return rc;
}

static void control_one(struct peer *p, struct idem_req *ir, control_fn fn,
			const char *verb)
{
	const struct rota_frame *f = &ir->f;
	struct ctld *ctld = p->ctld;
	struct rota_msg_control m;
	struct control c = {
		.ctld = ctld,
		.uid = p->uid,
		.is_operator = ctld_is_operator(ctld, p->uid),
		.m = &m,
		.fn = fn,
		.verb = verb,
	};
	struct rota_error err;
	struct rpc_lines lines = { 0 };
	size_t len;
	char *body;

	if (rota_msg_control_decode(f->body, f->body_len, &m, &err) < 0) {
		rota_warn("client: malformed %s: %s",
			  rota_msg_type_name(f->type), err.text);
		peer_send_error(p, -EPROTO, err.text);
		return;
	}
	if (fn == do_update && parse_set(&c, &err) < 0) {
		rota_info("%s by uid %u refused: %s", verb, (unsigned)p->uid,
			  err.text);
		peer_send_error(p, -EINVAL, err.text);
		rota_msg_control_clear(&m);
		return;
	}
	/* an array's running tasks: only a requeue is for them */
	rpc_each_job(ctld, m.job_ids, m.tasks, m.n, fn == do_requeue,
		     control_job, &c, &lines);
	body = rota_msg_text_list_encode(lines.v, lines.n, &len);
	idem_answer(ir, ROTA_MSG_CONTROL_REPLY, body, len);
	if (state_commit(ctld) < 0) {
		idem_forget(ir);
		free(body);
		rpc_lines_add(&lines, "the controller cannot write its "
				      "journal: changes may not last");
		body = rota_msg_text_list_encode(lines.v, lines.n, &len);
	}
	peer_send(p, ROTA_MSG_CONTROL_REPLY, body, len);
	free(body);
	rpc_lines_fini(&lines);
	rota_msg_control_clear(&m);
	ctld_run_actions(ctld);
	ctld_kick(ctld);
}

/* A repeat of an answered request (idem.h) gets its first answer. */
static void control(struct peer *p, const struct rota_frame *f,
		    control_fn fn, const char *verb)
{
	struct idem_req ir;

	if (idem_begin(p, f, &ir))
		return;
	control_one(p, &ir, fn, verb);
	idem_end(&ir);
}

void rpc_hold(struct peer *p, const struct rota_frame *f)
{
	control(p, f, do_hold, "hold");
}

void rpc_release(struct peer *p, const struct rota_frame *f)
{
	control(p, f, do_release, "release");
}

void rpc_nice(struct peer *p, const struct rota_frame *f)
{
	control(p, f, do_nice, "nice");
}

void rpc_update(struct peer *p, const struct rota_frame *f)
{
	control(p, f, do_update, "update");
}

void rpc_requeue(struct peer *p, const struct rota_frame *f)
{
	control(p, f, do_requeue, "requeue");
}
