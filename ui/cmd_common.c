// SPDX-License-Identifier: MIT
/* What every subcommand shares: errors, finding the controller, job ids. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/auth.h"
#include "common/conf.h"
#include "common/msg.h"
#include "common/proto.h"
#include "common/net.h"
#include "common/taskset.h"
#include "common/units.h"
#include "ui/cmd.h"

void cmd_error(const char *name, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rota %s: ", name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cmd_print_help(const struct cmd *c)
{
	if (!c->help)
		return c->run(2, (char *[]){ (char *)c->name, "--help", NULL });
	fputs(c->help, stdout);
	return 0;
}

struct ctld_where {
	char host[256];
	unsigned port;
	uid_t uid;
	int64_t retry_s;	/* ClientRetry, or $ROTA_CLIENT_RETRY */
};

#define CLIENT_RETRY_DEFAULT 60 /* seconds, as rota.conf's default */

/*
 * $ROTA_CLIENT_RETRY: seconds ("30") or a duration ("2m"); 0 disables.
 * It only shortens ClientRetry ('*out'): a longer wait could outlive the
 * controller's memory of answers (ClientRetry plus 10 minutes), and a
 * late retry of a done submit would submit again.
 */
static int env_retry(int64_t *out, struct rota_error *err)
{
	const char *env = getenv("ROTA_CLIENT_RETRY");
	char *end;
	long long v;
	int64_t d;

	if (!env || !*env)
		return 0;
	errno = 0;
	v = strtoll(env, &end, 10);
	if (*env >= '0' && *env <= '9' && !*end && !errno)
		d = v;
	else if (rota_duration_parse(env, ROTA_DURATION_NEED_UNIT, &d,
				     err) < 0 ||
		 d < 0)
		return rota_errorf(err, -EINVAL, "ROTA_CLIENT_RETRY '%s': "
				   "expected seconds or a duration (2m)", env);
	if (d < *out)
		*out = d;
	return 0;
}

/*
 * Where the controller is and whom it runs as: rota.conf, with ADDR:PORT
 * from $ROTA_CTLD winning.  Without a readable rota.conf, $ROTA_CTLD alone
 * will do, and the controller is taken to run as root.
 */
static int find_ctld(struct ctld_where *w, struct rota_error *err)
{
	const char *env = getenv("ROTA_CTLD");
	struct rota_conf *conf = NULL;
	int rc = rota_conf_load(rota_conf_default_path(), &conf, err);

	w->uid = 0;
	w->retry_s = conf ? conf->client_retry : CLIENT_RETRY_DEFAULT;
	if (rc < 0 && !(env && *env))
		return -EINVAL;
	if (conf && rota_auth_uid(conf->ctld_user, &w->uid) < 0) {
		rc = rota_errorf(err, -EINVAL, "CtldUser '%s': no such user",
				 conf->ctld_user);
		rota_conf_destroy(conf);
		return rc;
	}
	rc = 0;
	if (env && *env) {
		if (rota_net_split(env, w->host, sizeof(w->host), &w->port) < 0)
			rc = rota_errorf(err, -EINVAL,
					 "ROTA_CTLD '%s': expected ADDR:PORT",
					 env);
	} else {
		snprintf(w->host, sizeof(w->host), "%s", conf->ctld_addr);
		w->port = conf->ctld_port;
	}
	rota_conf_destroy(conf);
	if (rc == 0)
		rc = env_retry(&w->retry_s, err);
	return rc;
}

/* The one line a command prints while it waits for the controller. */
static void waiting_cb(const char *line, void *arg)
{
	cmd_error(arg, "%s", line);
}

/*
 * One request, retried for ClientRetry when 'name' is given (a command
 * that can say on stderr that it waits); $ROTA_TEST_REQUEST_ID fixes the
 * request id, for the tests of the controller's replay (t0035) only.
 */
static int call(const char *name, uint16_t type, const char *body,
		size_t len, int timeout_ms, struct rota_reply *reply,
		struct rota_error *err)
{
	const char *rid = getenv("ROTA_TEST_REQUEST_ID");
	struct ctld_where w;
	struct rota_request rq;
	int rc;

	*reply = (struct rota_reply){ 0 };
	rc = find_ctld(&w, err);
	if (rc < 0)
		return rc;
	if (rid && !rota_rid_is_valid(rid))
		return rota_errorf(err, -EINVAL, "ROTA_TEST_REQUEST_ID '%.40s': "
				   "expected %d lowercase hex digits", rid,
				   ROTA_RID_LEN);
	rq = (struct rota_request){
		.host = w.host,
		.port = w.port,
		.ctld_uid = w.uid,
		.timeout_ms = timeout_ms,
		.retry_ms = name ? w.retry_s * 1000 : 0,
		.rid = rid,
		.waiting_cb = waiting_cb,
		.arg = (void *)name,
	};
	return rota_client_request(&rq, type, body, len, reply, err);
}

int cmd_call_quiet(uint16_t type, const char *body, size_t len,
		   int timeout_ms, struct rota_reply *reply,
		   struct rota_error *err)
{
	return call(NULL, type, body, len, timeout_ms, reply, err);
}

int cmd_call(const char *name, uint16_t type, const char *body, size_t len,
	     struct rota_reply *reply)
{
	struct rota_error err;
	int rc = call(name, type, body, len, 30000, reply, &err);

	if (rc < 0)
		cmd_error(name, "%s", err.text);
	return rc;
}

void cmd_print_reply(struct rota_reply *reply)
{
	printf("%.*s\n", (int)reply->len, reply->body);
	rota_reply_clear(reply);
}

void cmd_job_name(const struct rota_job_info *j, char *buf, size_t len)
{
	char *name;

	if (!j->array_job_id) {
		snprintf(buf, len, "%u", j->id);
		return;
	}
	name = rota_array_job_name(j->array_job_id, j->array_task_id,
				   j->array_tasks, j->array_throttle);
	snprintf(buf, len, "%s", name);
	free(name);
}

int cmd_parse_job_id(const char *name, const char *text, uint32_t *id)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno || *end || end == text || v == 0 || v > UINT32_MAX ||
	    text[0] == '-') {
		cmd_error(name, "'%s' is not a job id", text);
		return -EINVAL;
	}
	*id = (uint32_t)v;
	return 0;
}

int cmd_fetch_jobs(const char *name, uint32_t job_id,
		   struct rota_msg_job_list *list)
{
	struct rota_msg_job_list_req req = { .job_id = job_id };
	struct rota_reply reply;
	struct rota_error err;
	size_t len;
	char *body = rota_msg_job_list_req_encode(&req, &len);
	int rc = cmd_call(name, ROTA_MSG_JOB_LIST, body, len, &reply);

	free(body);
	if (rc < 0)
		return rc;
	rc = rota_msg_job_list_decode(reply.body, reply.len, list, &err);
	rota_reply_clear(&reply);
	if (rc < 0)
		cmd_error(name, "bad reply: %s", err.text);
	return rc;
}

int cmd_fetch_nodes(const char *name, struct rota_msg_node_list *list)
{
	struct rota_reply reply;
	struct rota_error err;
	int rc = cmd_call(name, ROTA_MSG_NODE_LIST, "{}", 2, &reply);

	if (rc < 0)
		return rc;
	rc = rota_msg_node_list_decode(reply.body, reply.len, list, &err);
	rota_reply_clear(&reply);
	if (rc < 0)
		cmd_error(name, "bad reply: %s", err.text);
	return rc;
}

void cmd_format_time(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!t || !localtime_r(&tt, &tm)) {
		snprintf(buf, len, "N/A");
		return;
	}
	strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
}
