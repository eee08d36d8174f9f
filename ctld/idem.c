// SPDX-License-Identifier: MIT
/*
 * The controller's memory of recent request ids (idem.h).  A table keyed
 * by (uid, rid): the uid is the munge-authenticated one of the peer, never
 * a body field, so one user can neither replay nor probe another's ids (a
 * different uid with the same id is simply another request).
 *
 * Bounds: an answer is kept IDEM_MARGIN seconds past ClientRetry, the
 * longest a client of this rota.conf keeps retrying, counted from its
 * first answer; older ones are dropped as new ones come, at compaction
 * (they are not written to the snapshot) and at replay.  A time bound,
 * not a count per user, because what must hold is "a retry still gets its
 * answer", and a retry comes within ClientRetry of the first attempt
 * however many other requests its user sends meanwhile.  IDEM_MAX caps the
 * memory whatever the rate (about 200 bytes an id): past it the oldest
 * go first.
 *
 * A repeat must be the same request: its body's SHA-256 is kept and an id
 * reused for a different body or type is refused rather than answered
 * with another request's answer.
 */
#include "config.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/hex.h"
#include "common/log.h"
#include "common/proto.h"
#include "common/sha256.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/idem.h"
#include "ctld/journal.h"

#define IDEM_MARGIN	600	   /* seconds kept past ClientRetry */
#define IDEM_MAX	200000	   /* ids kept at most, over all users */
#define IDEM_BUCKETS	16384	   /* a power of two */
#define IDEM_ANSWER_MAX (1u << 20) /* a longer answer is not kept */

struct idem_entry {
	struct idem_entry *hnext; /* in its bucket */
	struct idem_entry *older; /* the age list: oldest first */
	struct idem_entry *newer;
	uid_t uid;
	char rid[ROTA_RID_LEN + 1];
	int64_t time;	   /* when answered, Unix seconds */
	uint16_t req_type; /* the request's type */
	uint16_t type;	   /* the answer's */
	uint8_t digest[ROTA_SHA256_LEN];
	char *answer;
	size_t len;
};

/* A record waiting for idem_flush(), behind the change it answers. */
struct idem_pending {
	char *rec;
	size_t len;
};

struct idem {
	struct idem_entry *buckets[IDEM_BUCKETS];
	struct idem_entry *oldest;
	struct idem_entry *newest;
	size_t n;
	struct idem_pending *pending;
	size_t npending;
	size_t cap;
};

struct idem *idem_create(void)
{
	return rota_xcalloc(1, sizeof(struct idem));
}

static void entry_free(struct idem_entry *e)
{
	free(e->answer);
	free(e);
}

void idem_destroy(struct idem *t)
{
	if (!t)
		return;
	while (t->oldest) {
		struct idem_entry *e = t->oldest;

		t->oldest = e->newer;
		entry_free(e);
	}
	for (size_t i = 0; i < t->npending; i++)
		free(t->pending[i].rec);
	free(t->pending);
	free(t);
}

size_t idem_count(const struct idem *t)
{
	return t->n;
}

static size_t bucket_of(uid_t uid, const char *rid)
{
	uint32_t h = 2166136261u ^ (uint32_t)uid;

	for (const char *s = rid; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h & (IDEM_BUCKETS - 1);
}

static struct idem_entry *find(struct idem *t, uid_t uid, const char *rid)
{
	struct idem_entry *e = t->buckets[bucket_of(uid, rid)];

	while (e && (e->uid != uid || strcmp(e->rid, rid) != 0))
		e = e->hnext;
	return e;
}

static void unlink_entry(struct idem *t, struct idem_entry *e)
{
	struct idem_entry **pp = &t->buckets[bucket_of(e->uid, e->rid)];

	while (*pp != e)
		pp = &(*pp)->hnext;
	*pp = e->hnext;
	if (e->older)
		e->older->newer = e->newer;
	else
		t->oldest = e->newer;
	if (e->newer)
		e->newer->older = e->older;
	else
		t->newest = e->older;
	t->n--;
	entry_free(e);
}

/* Let go of answers older than 'before', and the oldest past IDEM_MAX. */
static void expire(struct idem *t, int64_t before)
{
	while (t->oldest && (t->oldest->time < before || t->n > IDEM_MAX))
		unlink_entry(t, t->oldest);
}

/* Remember (replacing an entry of the same key); takes 'e'. */
static void insert(struct idem *t, struct idem_entry *e)
{
	struct idem_entry *old = find(t, e->uid, e->rid);
	size_t b = bucket_of(e->uid, e->rid);

	if (old)
		unlink_entry(t, old);
	e->hnext = t->buckets[b];
	t->buckets[b] = e;
	e->older = t->newest;
	e->newer = NULL;
	if (t->newest)
		t->newest->newer = e;
	else
		t->oldest = e;
	t->newest = e;
	t->n++;
}

static char *record_encode(const struct idem_entry *e, size_t *len)
{
	char digest[2 * ROTA_SHA256_LEN + 1];
	json_t *o;
	char *text;

	rota_hex_encode(e->digest, sizeof(e->digest), digest);
	o = json_pack("{s:s, s:I, s:s, s:I, s:i, s:i, s:s, s:s%}", "kind",
		      "request", "uid", (json_int_t)e->uid, "rid", e->rid,
		      "time", (json_int_t)e->time, "req_type", e->req_type,
		      "type", e->type, "digest", digest, "answer", e->answer,
		      e->len);
	if (!o)
		rota_fatal("idem: cannot encode the answer of request %s",
			   e->rid);
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (!text)
		rota_fatal("out of memory");
	*len = strlen(text);
	return text;
}

static bool is_request_record(const char *rec, size_t len)
{
	static const char head[] = "{\"kind\":\"request\"";

	return len >= sizeof(head) - 1 &&
	       memcmp(rec, head, sizeof(head) - 1) == 0;
}

int idem_record_apply(struct idem *t, int64_t before, const char *rec,
		      size_t len, struct rota_error *err)
{
	json_t *o;
	json_int_t uid, time, req_type, type;
	const char *kind, *rid, *digest, *answer;
	size_t alen;
	struct idem_entry *e;

	if (!is_request_record(rec, len))
		return 0;
	o = json_loadb(rec, len, JSON_REJECT_DUPLICATES, NULL);
	if (!o ||
	    json_unpack(o, "{s:s, s:I, s:s, s:I, s:I, s:I, s:s, s:s%}", "kind",
			&kind, "uid", &uid, "rid", &rid, "time", &time,
			"req_type", &req_type, "type", &type, "digest", &digest,
			"answer", &answer, &alen) < 0 ||
	    uid < 0 || uid > UINT32_MAX || !rota_rid_is_valid(rid) ||
	    req_type <= 0 || req_type > UINT16_MAX || type <= 0 ||
	    type > UINT16_MAX) {
		json_decref(o);
		return rota_errorf(err, -EINVAL, "malformed request record");
	}
	e = rota_xcalloc(1, sizeof(*e));
	if (rota_hex_decode(digest, e->digest, sizeof(e->digest)) < 0) {
		free(e);
		json_decref(o);
		return rota_errorf(err, -EINVAL, "malformed request record");
	}
	e->uid = (uid_t)uid;
	memcpy(e->rid, rid, sizeof(e->rid));
	e->time = time;
	e->req_type = (uint16_t)req_type;
	e->type = (uint16_t)type;
	e->answer = rota_xmalloc(alen + 1);
	memcpy(e->answer, answer, alen);
	e->answer[alen] = '\0';
	e->len = alen;
	json_decref(o);
	insert(t, e);
	expire(t, before);
	return 1;
}

int idem_snapshot(struct idem *t, int64_t before, struct journal_snapshot *s)
{
	int rc = 0;

	expire(t, before);
	for (struct idem_entry *e = t->oldest; e && rc == 0; e = e->newer) {
		size_t len;
		char *rec = record_encode(e, &len);

		rc = journal_snapshot_add(s, rec, len);
		free(rec);
	}
	return rc;
}

int64_t idem_keep_since(const struct ctld *ctld)
{
	return ctld_now(ctld) - ctld->conf->client_retry - IDEM_MARGIN;
}

static void digest_of(const struct rota_frame *f, uint8_t *out)
{
	struct rota_sha256 s;

	rota_sha256_init(&s);
	rota_sha256_update(&s, f->body, f->body_len);
	rota_sha256_final(&s, out);
}

bool idem_begin(struct peer *p, const struct rota_frame *f, struct idem_req *r)
{
	struct ctld *ctld = p->ctld;
	const struct idem_entry *e;
	struct rota_error err;
	size_t len;

	*r = (struct idem_req){ .p = p, .f = *f };
	if (rota_msg_rid_take(f->body, f->body_len, r->rid, &r->body, &len,
			      &err) < 0) {
		rota_warn("client: malformed %s: %s",
			  rota_msg_type_name(f->type), err.text);
		peer_send_error(p, -EPROTO, err.text);
		return true;
	}
	if (r->body) {
		r->f.body = r->body;
		r->f.body_len = len;
	}
	if (!r->rid[0])
		return false;
	digest_of(&r->f, r->digest);
	expire(ctld->idem, idem_keep_since(ctld));
	e = find(ctld->idem, p->uid, r->rid);
	if (!e)
		return false;
	if (e->req_type != f->type ||
	    memcmp(e->digest, r->digest, sizeof(e->digest)) != 0) {
		rota_warn("uid %u: request id %s reused for another request",
			  (unsigned)p->uid, r->rid);
		peer_send_error(p, -EINVAL,
				"request id already used for "
				"another request");
	} else {
		rota_info("uid %u: %s %s repeated: its first answer again",
			  (unsigned)p->uid, rota_msg_type_name(f->type),
			  r->rid);
		ctld->stats.requests_repeated++;
		peer_send(p, e->type, e->answer, e->len);
	}
	idem_end(r);
	return true;
}

void idem_answer(struct idem_req *r, uint16_t type, const char *body,
		 size_t len)
{
	struct ctld *ctld = r->p->ctld;
	struct idem *t = ctld->idem;
	struct idem_entry *e;
	size_t rlen;
	char *rec;

	if (!r->rid[0] || len > IDEM_ANSWER_MAX)
		return;
	e = rota_xcalloc(1, sizeof(*e));
	e->uid = r->p->uid;
	memcpy(e->rid, r->rid, sizeof(e->rid));
	e->time = ctld_now(ctld);
	e->req_type = r->f.type;
	e->type = type;
	memcpy(e->digest, r->digest, sizeof(e->digest));
	e->answer = rota_xmalloc(len + 1);
	memcpy(e->answer, body, len);
	e->answer[len] = '\0';
	e->len = len;
	rec = record_encode(e, &rlen);
	insert(t, e);
	r->kept = true;
	r->pending_at = t->npending;
	if (t->npending == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 4;
		t->pending =
			rota_xrealloc(t->pending, t->cap * sizeof(*t->pending));
	}
	t->pending[t->npending++] = (struct idem_pending){ rec, rlen };
}

void idem_flush(struct idem *t, struct journal *j)
{
	for (size_t i = 0; i < t->npending; i++) {
		journal_append(j, t->pending[i].rec, t->pending[i].len);
		free(t->pending[i].rec);
	}
	t->npending = 0;
}

void idem_forget(struct idem_req *r)
{
	struct idem *t = r->p->ctld->idem;
	struct idem_entry *e;

	if (!r->kept)
		return;
	e = find(t, r->p->uid, r->rid);
	if (e)
		unlink_entry(t, e);
	/* its record, if the commit failed before flushing it */
	while (t->npending > r->pending_at)
		free(t->pending[--t->npending].rec);
	r->kept = false;
}

void idem_end(struct idem_req *r)
{
	free(r->body);
	r->body = NULL;
}
