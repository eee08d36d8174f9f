// SPDX-License-Identifier: MIT
/*
 * jobcomp/http: each finished job's record, as JSON, to an HTTP endpoint
 * in the shape of Elasticsearch's and OpenSearch's document API: POST (or
 * PUT) URL/<jobid>, with URL ending in ".../<index>/_doc".  The job id is
 * the document id, so a record sent twice (after a timeout, a crash or a
 * restart) replaces itself instead of making a duplicate.
 *
 * Never blocking the controller: libcurl's multi socket interface, its
 * sockets and its one timer registered with the host's event loop (name
 * resolution runs in libcurl's own resolver thread).  Every record goes
 * first to the spool, StateDir/jobcomp-http.spool (spool.h), synced in
 * flush(); one request at a time takes the oldest, and only a 2xx answer
 * removes it.  So records arrive in end order, and while the endpoint is
 * down or hangs they wait on disk, retried with a backoff doubling from
 * one second up to Retry=.
 */
#include "config.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugins/jobcomp/jobcomp_json.h"
#include "plugins/jobcomp/spool.h"
#include "plugins/rota_plugin.h"

#define TOKEN_MAX 4096

struct http_conf {
	const char *url;
	const char *token_file;
	int64_t timeout;	/* seconds */
	int64_t retry_max;	/* seconds */
	unsigned method;	/* 0 POST, 1 PUT */
};

struct http_state {
	const struct rota_host *host;
	char *url;		/* without a trailing '/' */
	char *auth;		/* "Authorization: Bearer ..." or NULL */
	struct http_conf c;
	struct spool *spool;
	CURLM *multi;
	CURL *easy;		/* the request in flight, or NULL */
	struct curl_slist *headers;
	struct rota_host_timer *curl_timer;
	struct rota_host_timer *retry_timer;
	int64_t backoff_ms;
	bool failing;		/* logged as failing: say when it is back */
	char errbuf[CURL_ERROR_SIZE];
};

static void send_next(struct http_state *hs);

/* ---- settings ------------------------------------------------------------- */

static int bad(const struct rota_host *host, const struct rota_plugin_conf *c,
	       const char *key, char *err, size_t errlen, const char *why,
	       const char *value)
{
	char where[160];

	host->conf_where(c, key, where, sizeof(where));
	snprintf(err, errlen, "%s: '%.80s' %s", where, value, why);
	return -EINVAL;
}

/* The bearer token: a file only its owner (root, or us) may read. */
static int read_token(const struct rota_host *host,
		      const struct rota_plugin_conf *c, const char *path,
		      char **out, char *err, size_t errlen)
{
	char buf[TOKEN_MAX + 2];
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	*out = NULL;
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return bad(host, c, "TokenFile", err, errlen, strerror(errno),
			   path);
	}
	if (!S_ISREG(st.st_mode) || (st.st_mode & 077) ||
	    (st.st_uid != 0 && st.st_uid != geteuid())) {
		close(fd);
		return bad(host, c, "TokenFile", err, errlen,
			   "must be a file only its owner (root) can read: "
			   "chmod 600",
			   path);
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0 || n > TOKEN_MAX)
		return bad(host, c, "TokenFile", err, errlen,
			   "cannot be read or is too long", path);
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	if (!buf[0])
		return bad(host, c, "TokenFile", err, errlen, "is empty", path);
	if (asprintf(out, "Authorization: Bearer %s", buf) < 0)
		*out = NULL;
	memset(buf, 0, sizeof(buf));
	return *out ? 0 : -ENOMEM;
}

static int read_conf(const struct rota_host *host,
		     const struct rota_plugin_conf *c, struct http_conf *hc,
		     char *err, size_t errlen)
{
	static const char *const methods[] = { "post", "put", NULL };
	int rc;

	*hc = (struct http_conf){ .timeout = 10, .retry_max = 60 };
	rc = host->conf_string(c, "URL", &hc->url, err, errlen);
	if (!rc)
		rc = host->conf_string(c, "TokenFile", &hc->token_file, err,
				       errlen);
	if (!rc)
		rc = host->conf_duration(c, "Timeout", 1, 3600, &hc->timeout,
					 err, errlen);
	if (!rc)
		rc = host->conf_duration(c, "Retry", 1, 86400, &hc->retry_max,
					 err, errlen);
	if (!rc)
		rc = host->conf_choice(c, "Method", methods, &hc->method, err,
				       errlen);
	if (rc < 0)
		return rc;
	if (!hc->url) {
		snprintf(err, errlen, "JobComp=http: URL= is required "
				      "(http://host:9200/index/_doc)");
		return -EINVAL;
	}
	if (strncmp(hc->url, "http://", 7) && strncmp(hc->url, "https://", 8))
		return bad(host, c, "URL", err, errlen,
			   "is not an http:// or https:// URL", hc->url);
	return 0;
}

/* ---- libcurl on the host's loop --------------------------------------------- */

static void check_done(struct http_state *hs);

static void fd_cb(int fd, unsigned events, void *arg)
{
	struct http_state *hs = arg;
	int flags = 0, running;

	if (events & ROTA_HOST_EV_READ)
		flags |= CURL_CSELECT_IN;
	if (events & ROTA_HOST_EV_WRITE)
		flags |= CURL_CSELECT_OUT;
	if (events & ROTA_HOST_EV_ERROR)
		flags |= CURL_CSELECT_ERR;
	curl_multi_socket_action(hs->multi, fd, flags, &running);
	check_done(hs);
}

static int socket_cb(CURL *e, curl_socket_t s, int what, void *arg,
		     void *socketp)
{
	struct http_state *hs = arg;
	struct rota_host_watch *w = socketp;
	unsigned ev = (what == CURL_POLL_IN || what == CURL_POLL_INOUT
			       ? ROTA_HOST_EV_READ
			       : 0) |
		      (what == CURL_POLL_OUT || what == CURL_POLL_INOUT
			       ? ROTA_HOST_EV_WRITE
			       : 0);

	(void)e;
	if (what == CURL_POLL_REMOVE) {
		hs->host->watch_remove(w);
		curl_multi_assign(hs->multi, s, NULL);
	} else if (w) {
		hs->host->watch_set(w, ev);
	} else {
		w = hs->host->watch_fd(hs->host, s, ev, fd_cb, hs);
		curl_multi_assign(hs->multi, s, w);
	}
	return 0;
}

static void curl_timer_cb(void *arg)
{
	struct http_state *hs = arg;
	int running;

	hs->curl_timer = NULL;
	curl_multi_socket_action(hs->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	check_done(hs);
}

static int timer_cb(CURLM *m, long ms, void *arg)
{
	struct http_state *hs = arg;

	(void)m;
	hs->host->timer_cancel(hs->curl_timer);
	hs->curl_timer = NULL;
	if (ms >= 0)
		hs->curl_timer = hs->host->timer_add(hs->host, ms,
						     curl_timer_cb, hs);
	return 0;
}

static void retry_cb(void *arg)
{
	struct http_state *hs = arg;

	hs->retry_timer = NULL;
	send_next(hs);
}

/* ---- sending ------------------------------------------------------------------ */

static size_t discard_cb(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return size * n;
}

static void send_next(struct http_state *hs)
{
	uint32_t id;
	const char *doc;
	char *url;

	if (hs->easy || hs->retry_timer || !hs->spool ||
	    !(doc = spool_head(hs->spool, &id)))
		return;
	if (asprintf(&url, "%s/%u", hs->url, id) < 0)
		return;
	hs->easy = curl_easy_init();
	curl_easy_setopt(hs->easy, CURLOPT_URL, url);
	curl_easy_setopt(hs->easy, CURLOPT_COPYPOSTFIELDS, doc);
	if (hs->c.method == 1)
		curl_easy_setopt(hs->easy, CURLOPT_CUSTOMREQUEST, "PUT");
	curl_easy_setopt(hs->easy, CURLOPT_HTTPHEADER, hs->headers);
	curl_easy_setopt(hs->easy, CURLOPT_TIMEOUT, (long)hs->c.timeout);
	curl_easy_setopt(hs->easy, CURLOPT_CONNECTTIMEOUT, (long)hs->c.timeout);
	curl_easy_setopt(hs->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(hs->easy, CURLOPT_ERRORBUFFER, hs->errbuf);
	curl_easy_setopt(hs->easy, CURLOPT_WRITEFUNCTION, discard_cb);
	curl_easy_setopt(hs->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	hs->errbuf[0] = '\0';
	free(url);
	curl_multi_add_handle(hs->multi, hs->easy);
}

/* One request ended: pop on 2xx, else back off and try the same again. */
static void request_done(struct http_state *hs, CURLcode res)
{
	long status = 0;
	char why[CURL_ERROR_SIZE + 32];

	curl_easy_getinfo(hs->easy, CURLINFO_RESPONSE_CODE, &status);
	curl_multi_remove_handle(hs->multi, hs->easy);
	curl_easy_cleanup(hs->easy);
	hs->easy = NULL;
	if (res == CURLE_OK && status >= 200 && status < 300) {
		if (hs->failing)
			hs->host->log(hs->host, ROTA_PLUGIN_LOG_INFO,
				      "%s: answering again", hs->url);
		hs->failing = false;
		hs->backoff_ms = 1000;
		spool_pop(hs->spool);
		send_next(hs);
		return;
	}
	if (res != CURLE_OK)
		snprintf(why, sizeof(why), "%s",
			 hs->errbuf[0] ? hs->errbuf : curl_easy_strerror(res));
	else
		snprintf(why, sizeof(why), "HTTP status %ld", status);
	if (!hs->failing)
		hs->host->log(hs->host, ROTA_PLUGIN_LOG_WARN,
			      "%s: %s: records kept in the spool (%zu), "
			      "retrying",
			      hs->url, why, spool_count(hs->spool));
	hs->failing = true;
	hs->retry_timer = hs->host->timer_add(hs->host, hs->backoff_ms,
					      retry_cb, hs);
	hs->backoff_ms *= 2;
	if (hs->backoff_ms > hs->c.retry_max * 1000)
		hs->backoff_ms = hs->c.retry_max * 1000;
}

static void check_done(struct http_state *hs)
{
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(hs->multi, &left))) {
		if (m->msg == CURLMSG_DONE && m->easy_handle == hs->easy) {
			request_done(hs, m->data.result);
			return; /* the handle is gone: read no further */
		}
	}
}

/* ---- the plugin ------------------------------------------------------------- */

static void http_fini(void *state)
{
	struct http_state *hs = state;

	if (hs->easy) {
		curl_multi_remove_handle(hs->multi, hs->easy);
		curl_easy_cleanup(hs->easy);
	}
	if (hs->multi)
		curl_multi_cleanup(hs->multi);
	if (hs->host->timer_cancel) {
		hs->host->timer_cancel(hs->curl_timer);
		hs->host->timer_cancel(hs->retry_timer);
	}
	curl_slist_free_all(hs->headers);
	spool_close(hs->spool);
	if (hs->auth)
		memset(hs->auth, 0, strlen(hs->auth));
	free(hs->auth);
	free(hs->url);
	free(hs);
	curl_global_cleanup();
}

static int start(struct http_state *hs, char *err, size_t errlen)
{
	char *path;
	int rc;

	if (asprintf(&path, "%s/jobcomp-http.spool", hs->host->state_dir) < 0)
		return -ENOMEM;
	rc = spool_open(path, &hs->spool, err, errlen);
	free(path);
	if (rc < 0)
		return rc;
	hs->multi = curl_multi_init();
	if (!hs->multi)
		return -ENOMEM;
	curl_multi_setopt(hs->multi, CURLMOPT_SOCKETFUNCTION, socket_cb);
	curl_multi_setopt(hs->multi, CURLMOPT_SOCKETDATA, hs);
	curl_multi_setopt(hs->multi, CURLMOPT_TIMERFUNCTION, timer_cb);
	curl_multi_setopt(hs->multi, CURLMOPT_TIMERDATA, hs);
	hs->headers = curl_slist_append(NULL, "Content-Type: application/json");
	/* no "Expect: 100-continue" round trip */
	hs->headers = curl_slist_append(hs->headers, "Expect:");
	if (hs->auth)
		hs->headers = curl_slist_append(hs->headers, hs->auth);
	if (spool_count(hs->spool))
		hs->host->log(hs->host, ROTA_PLUGIN_LOG_INFO,
			      "%zu records from the spool to send to %s",
			      spool_count(hs->spool), hs->url);
	send_next(hs);
	return 0;
}

static int http_init(const struct rota_host *host,
		     const struct rota_plugin_conf *conf, void **state,
		     char *err, size_t errlen)
{
	struct http_state *hs;
	struct http_conf hc;
	char *auth = NULL;
	int rc;

	if (!ROTA_HOST_HAS(host, loop_priv)) {
		snprintf(err, errlen, "jobcomp/http: the host is too old");
		return -EINVAL;
	}
	rc = read_conf(host, conf, &hc, err, errlen);
	if (rc == 0 && hc.token_file)
		rc = read_token(host, conf, hc.token_file, &auth, err, errlen);
	if (rc < 0 || host->check_only) {
		free(auth);
		return rc;
	}
	if (!host->watch_fd || !host->timer_add) {
		free(auth);
		snprintf(err, errlen, "jobcomp/http: needs the controller's "
				      "event loop");
		return -EINVAL;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	hs = calloc(1, sizeof(*hs));
	if (!hs || !(hs->url = strdup(hc.url))) {
		free(hs);
		free(auth);
		curl_global_cleanup();
		return -ENOMEM;
	}
	hs->host = host;
	hs->c = hc;
	hs->c.url = hs->c.token_file = NULL; /* borrowed: init() only */
	hs->auth = auth;
	hs->backoff_ms = 1000;
	while (strlen(hs->url) > 8 && hs->url[strlen(hs->url) - 1] == '/')
		hs->url[strlen(hs->url) - 1] = '\0';
	rc = start(hs, err, errlen);
	if (rc < 0) {
		http_fini(hs);
		return rc;
	}
	*state = hs;
	return 0;
}

static int http_record(void *state, const struct rota_jobcomp_record *r)
{
	struct http_state *hs = state;
	char *doc = jobcomp_json_encode(r);
	int rc;

	if (!doc)
		return -ENOMEM;
	rc = spool_push(hs->spool, r->id, doc);
	free(doc);
	return rc;
}

static int http_flush(void *state)
{
	struct http_state *hs = state;
	int rc = spool_sync(hs->spool);

	send_next(hs);
	return rc;
}

static const struct rota_jobcomp_ops http_ops = {
	.size = sizeof(http_ops),
	.record = http_record,
	.flush = http_flush,
};

const struct rota_plugin ROTA_PLUGIN_EXPORT(jobcomp, http) = {
	.abi = ROTA_PLUGIN_ABI,
	.kind = ROTA_PLUGIN_JOBCOMP,
	.name = "http",
	.init = http_init,
	.fini = http_fini,
	.ops = &http_ops,
};
