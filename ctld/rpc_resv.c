// SPDX-License-Identifier: MIT
/*
 * Handlers of the advance reservation requests: RESV_CREATE and
 * RESV_DELETE (operators only, as Slurm's scontrol create/delete
 * reservation) and RESV_LIST (anyone).  The operator's key=value words
 * are parsed here, on the controller's clock ("now", "now+1h"), and the
 * users named are looked up here, since the core does no I/O; what is
 * left to check (nodes, overlaps, accounts) is the core's.  A change is
 * journaled and synced before the reply: a reservation the operator was
 * told about survives any crash.
 */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/hostlist.h"
#include "common/jobrec.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/proto.h"
#include "common/units.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "ctld/ctld.h"
#include "ctld/idem.h"
#include "ctld/journal.h"
#include "ctld/resv_record.h"

#define KEYS "ReservationName, StartTime, Duration, EndTime, Nodes, " \
	     "CoreCount, GpuCount, TRES, Licenses, Users, Accounts"

/* The request being parsed, with what it owns. */
struct resv_parse {
	struct core_resv_req req;
	char **users;		/* owned; req.users points here */
	char **accounts;
	int64_t duration;	/* 0: not given */
	bool has_start;
	bool has_end;
};

static void parse_fini(struct resv_parse *p)
{
	for (size_t i = 0; p->users && p->users[i]; i++)
		free(p->users[i]);
	for (size_t i = 0; p->accounts && p->accounts[i]; i++)
		free(p->accounts[i]);
	free(p->users);
	free(p->accounts);
}

/* "now", "now+1h", or a date and time as rota history takes them. */
static int parse_time(const char *key, const char *v, int64_t now,
		      int64_t *out, struct rota_error *err)
{
	struct rota_error why;
	int64_t d;

	if (strncmp(v, "now+", 4) == 0) {
		if (rota_duration_parse(v + 4, ROTA_DURATION_NEED_UNIT, &d,
					&why) < 0 ||
		    d == ROTA_DURATION_UNLIMITED)
			return rota_errorf(err, -EINVAL, "%s=%s: %s", key, v,
					   d == ROTA_DURATION_UNLIMITED
						   ? "not a time"
						   : why.text);
		*out = now + d;
		return 0;
	}
	if (rota_jobrec_time_parse(v, now, out, &why) < 0)
		return rota_errorf(err, -EINVAL,
				   "%s=%s: not a time (now, now+2h, "
				   "YYYY-MM-DD[THH:MM[:SS]], @UNIXSECONDS)",
				   key, v);
	return 0;
}

/* "ana,bob" into a NULL-terminated list; empty names are refused. */
static int parse_names(const char *key, const char *v, char ***out,
		       struct rota_error *err)
{
	size_t n = 1;
	char *copy, *save = NULL;

	if (*out)
		return rota_errorf(err, -EINVAL, "%s: given twice", key);
	for (const char *c = v; *c; c++)
		n += *c == ',';
	*out = rota_xcalloc(n + 1, sizeof(char *));
	copy = rota_xstrdup(v);
	n = 0;
	for (char *s = strtok_r(copy, ",", &save); s;
	     s = strtok_r(NULL, ",", &save))
		(*out)[n++] = rota_xstrdup(s);
	free(copy);
	if (!n)
		return rota_errorf(err, -EINVAL, "%s=%s: no names", key, v);
	return 0;
}

static int check_users(char *const *users, struct rota_error *err)
{
	for (size_t i = 0; users && users[i]; i++)
		if (!getpwnam(users[i]))
			return rota_errorf(err, -ENOENT,
					   "Users=%s: unknown user", users[i]);
	return 0;
}

static int parse_count(const char *key, const char *v, uint32_t *out,
		       struct rota_error *err)
{
	char *end;
	unsigned long n = strtoul(v, &end, 10);

	if (*v < '0' || *v > '9' || *end || n < 1 || n > 1u << 30)
		return rota_errorf(err, -EINVAL,
				   "%s=%s: expected a number above 0", key, v);
	*out = (uint32_t)n;
	return 0;
}

/*
 * Slurm's TRES=cpu=N,gres/gpu=M: CoreCount=N and GpuCount=M in one key
 * (a GPU type, gres/gpu:v100=M, is taken as any GPU: a reservation
 * counts a node's GPUs, of whatever type).
 */
static int parse_tres(struct resv_parse *p, const char *v,
		      struct rota_error *err)
{
	char *copy = rota_xstrdup(v), *save = NULL;
	int rc = 0;

	for (char *s = strtok_r(copy, ",", &save); s && rc == 0;
	     s = strtok_r(NULL, ",", &save)) {
		char *eq = strrchr(s, '=');

		if (eq)
			*eq++ = '\0';
		if (eq && strcasecmp(s, "cpu") == 0)
			rc = parse_count("TRES=cpu", eq, &p->req.core_count,
					 err);
		else if (eq && (strcasecmp(s, "gres/gpu") == 0 ||
				strncasecmp(s, "gres/gpu:", 9) == 0))
			rc = parse_count("TRES=gres/gpu", eq,
					 &p->req.gpu_count, err);
		else
			rc = rota_errorf(err, -EINVAL,
					 "TRES=%s: expected cpu=N and "
					 "gres/gpu=M, comma-separated",
					 v);
	}
	free(copy);
	return rc;
}

static int parse_duration(const char *v, int64_t *out, struct rota_error *err)
{
	struct rota_error why;

	if (rota_duration_parse(v, ROTA_DURATION_BARE_MINUTES, out, &why) < 0)
		return rota_errorf(err, -EINVAL, "Duration=%s: %s", v,
				   why.text);
	if (*out <= 0)
		return rota_errorf(err, -EINVAL,
				   "Duration=%s: must be above zero", v);
	return 0;
}

static int parse_one(struct resv_parse *p, const char *k, const char *v,
		     int64_t now, struct rota_error *err)
{
	if (strcasecmp(k, "ReservationName") == 0 ||
	    strcasecmp(k, "Name") == 0) {
		p->req.name = v;
		return 0;
	}
	if (strcasecmp(k, "StartTime") == 0) {
		p->has_start = true;
		return parse_time("StartTime", v, now, &p->req.start, err);
	}
	if (strcasecmp(k, "EndTime") == 0) {
		p->has_end = true;
		return parse_time("EndTime", v, now, &p->req.end, err);
	}
	if (strcasecmp(k, "Duration") == 0)
		return parse_duration(v, &p->duration, err);
	if (strcasecmp(k, "Nodes") == 0) {
		p->req.nodes = v;
		return 0;
	}
	if (strcasecmp(k, "CoreCount") == 0 || strcasecmp(k, "CoreCnt") == 0)
		return parse_count("CoreCount", v, &p->req.core_count, err);
	if (strcasecmp(k, "GpuCount") == 0)
		return parse_count("GpuCount", v, &p->req.gpu_count, err);
	if (strcasecmp(k, "TRES") == 0)
		return parse_tres(p, v, err);
	if (strcasecmp(k, "Licenses") == 0) {
		p->req.licenses = v;
		return 0;
	}
	if (strcasecmp(k, "Users") == 0)
		return parse_names("Users", v, &p->users, err);
	if (strcasecmp(k, "Accounts") == 0)
		return parse_names("Accounts", v, &p->accounts, err);
	return rota_errorf(err, -EINVAL, "%s: unknown key (%s)", k, KEYS);
}

/* The words into p->req; -EINVAL (-ENOENT: unknown user) with the line. */
static int parse(struct resv_parse *p, const struct rota_msg_resv_create *m,
		 int64_t now, struct rota_error *err)
{
	int rc = 0;

	for (size_t i = 0; i < m->nset && rc == 0; i++)
		rc = parse_one(p, m->set[i].key, m->set[i].value, now, err);
	if (rc < 0)
		return rc;
	if (!p->has_start)
		return rota_errorf(err, -EINVAL,
				   "give StartTime= (now, now+1h or a date "
				   "and time)");
	if (p->has_end == (p->duration != 0))
		return rota_errorf(err, -EINVAL,
				   "give Duration= or EndTime=, one of them");
	if (p->duration)
		p->req.end = p->duration == ROTA_DURATION_UNLIMITED ||
					     p->req.start >
						     INT64_MAX - p->duration
				     ? INT64_MAX
				     : p->req.start + p->duration;
	p->req.users = p->users;
	p->req.accounts = p->accounts;
	return check_users(p->users, err);
}

/* Journal a reservation's record ('r', else the delete of 'name'), sync. */
static int commit(struct ctld *ctld, const struct core_resv *r,
		  const char *name)
{
	size_t len;
	char *rec = r ? resv_record_encode(ctld->core, r, &len)
		      : resv_record_delete(name, &len);
	int rc = journal_append(ctld->journal, rec, len);

	free(rec);
	if (rc == 0)
		rc = state_commit(ctld);
	return rc;
}

/* Operators only: 0, or -EPERM (counted) with the line. */
static int operator_only(struct peer *p, const char *verb,
			 struct rota_error *err)
{
	if (ctld_is_operator(p->ctld, p->uid))
		return 0;
	p->ctld->stats.denied++;
	return rota_errorf(err, -EPERM, "only operators may %s reservations",
			   verb);
}

/* The refusal's line, or 'type' with 'body'; logged either way. */
static void answer(struct peer *p, int rc, const struct rota_error *err,
		   const char *verb, const char *name, uint16_t type,
		   const char *body)
{
	if (rc < 0) {
		rota_info("reservation %s by uid %u refused: %s", verb,
			  (unsigned)p->uid, err->text);
		peer_send_error(p, rc, err->text);
		return;
	}
	rota_info("reservation '%s' %sd by uid %u", name, verb,
		  (unsigned)p->uid);
	peer_send(p, type, body, strlen(body));
	ctld_kick(p->ctld);
}

static void resv_create(struct peer *p, struct idem_req *ir)
{
	const struct rota_frame *f = &ir->f;
	struct ctld *ctld = p->ctld;
	struct rota_msg_resv_create m;
	struct resv_parse rp = { 0 };
	const struct core_resv *r = NULL;
	struct rota_error err;
	int64_t now = ctld_now(ctld);
	size_t len;
	char *body = NULL;
	int rc;

	if (rota_msg_resv_create_decode(f->body, f->body_len, &m, &err) < 0) {
		rota_warn("client: malformed RESV_CREATE: %s", err.text);
		peer_send_error(p, -EPROTO, err.text);
		return;
	}
	rc = operator_only(p, "create", &err);
	if (rc == 0)
		rc = parse(&rp, &m, now, &err);
	if (rc == 0)
		rc = core_resv_create(ctld->core, now, &rp.req, &r, &err);
	if (rc == 0) {
		body = rota_msg_name_encode(r->name, &len);
		idem_answer(ir, ROTA_MSG_RESV_CREATE_REPLY, body, len);
	}
	if (rc == 0 && commit(ctld, r, NULL) < 0) {
		idem_forget(ir);
		free(body);
		body = NULL;
		core_resv_delete(ctld->core, now, r->name, &err);
		rc = rota_errorf(&err, -EIO, "the controller cannot write its "
				 "journal: reservation not created");
	}
	answer(p, rc, &err, "create", rc == 0 ? r->name : NULL,
	       ROTA_MSG_RESV_CREATE_REPLY, body);
	free(body);
	parse_fini(&rp);
	rota_msg_resv_create_clear(&m);
}

/* A repeat of an answered request (idem.h) gets its first answer. */
void rpc_resv_create(struct peer *p, const struct rota_frame *f)
{
	struct idem_req ir;

	if (idem_begin(p, f, &ir))
		return;
	resv_create(p, &ir);
	idem_end(&ir);
}

static void resv_delete(struct peer *p, struct idem_req *ir)
{
	const struct rota_frame *f = &ir->f;
	struct ctld *ctld = p->ctld;
	struct rota_error err;
	char *name = NULL;
	int rc;

	if (rota_msg_name_decode(f->body, f->body_len, &name, &err) < 0) {
		rota_warn("client: malformed RESV_DELETE: %s", err.text);
		peer_send_error(p, -EPROTO, err.text);
		return;
	}
	rc = operator_only(p, "delete", &err);
	if (rc == 0)
		rc = core_resv_delete(ctld->core, ctld_now(ctld), name, &err);
	if (rc == 0)
		idem_answer(ir, ROTA_MSG_OK, "{}", 2);
	if (rc == 0 && commit(ctld, NULL, name) < 0) {
		idem_forget(ir);
		rc = rota_errorf(&err, -EIO, "the controller cannot write its "
				 "journal: the delete may not last");
	}
	answer(p, rc, &err, "delete", name, ROTA_MSG_OK, "{}");
	free(name);
}

void rpc_resv_delete(struct peer *p, const struct rota_frame *f)
{
	struct idem_req ir;

	if (idem_begin(p, f, &ir))
		return;
	resv_delete(p, &ir);
	idem_end(&ir);
}

/*
 * One reservation as the list shows it ('nodes' owned by 'out'), active
 * by the clock: the core sees a start at its next event.
 */
static void resv_info(const struct core *core, const struct core_resv *r,
		      int64_t now, struct rota_resv_info *out)
{
	const char **names = rota_xcalloc(r->nparts + 1, sizeof(char *));

	*out = (struct rota_resv_info){
		.name = r->name,
		.state = r->start <= now && now < r->end ? "ACTIVE"
							 : "INACTIVE",
		.start = r->start,
		.end = r->end,
		.core_count = r->core_count,
		.gpu_count = r->gpu_count,
		.licenses = core_resv_licenses_text(core, r),
		.users = r->users,
		.accounts = r->accounts,
	};
	for (uint32_t i = 0; i < r->nparts; i++) {
		names[i] = core_node_get(core, r->parts[i].node)->name;
		out->cores += core_resv_part_cores(core, r, i);
		out->gpus += core_resv_part_gpus(core, r, i);
	}
	out->nodes = rota_hostlist_format(names, r->nparts);
	free(names);
}

void rpc_resv_list(struct peer *p, const struct rota_frame *f)
{
	const struct core *core = p->ctld->core;
	struct rota_msg_resv_list m = { .now = ctld_now(p->ctld) };
	size_t len;
	char *body;

	(void)f;
	m.n = core_resv_count(core);
	m.resvs = rota_xcalloc(m.n + 1, sizeof(*m.resvs));
	for (size_t i = 0; i < m.n; i++)
		resv_info(core, core_resv_get(core, i), m.now, &m.resvs[i]);
	body = rota_msg_resv_list_encode(&m, &len);
	peer_send(p, ROTA_MSG_RESV_LIST_REPLY, body, len);
	free(body);
	for (size_t i = 0; i < m.n; i++) {
		free(m.resvs[i].nodes);
		free(m.resvs[i].licenses);
	}
	free(m.resvs);
}
