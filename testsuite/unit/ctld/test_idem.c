// SPDX-License-Identifier: MIT
/*
 * The controller's memory of request ids (ctld/idem.c), with a real
 * journal in a scratch folder and the daemon's reply functions stubbed: a
 * repeat gets its first answer, per uid; an id reused for another request
 * is refused; answers survive a journal replay and a compaction, and go
 * once older than ClientRetry plus the margin.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/proto.h"
#include "ctld/ctld.h"
#include "ctld/idem.h"
#include "ctld/journal.h"

#define RID	 "0123456789abcdef0123456789abcdef"
#define BODY	 "{\"jobs\":[7]}"
#define WITH_RID "{\"jobs\":[7],\"rid\":\"" RID "\"}"

/* ---- stubs of what idem.c calls in the daemon ---- */

static int64_t now = 1000000;
static uint16_t sent_type;
static char sent[256];
static int sent_code;

void peer_send(struct peer *p, uint16_t type, const char *body, size_t len)
{
	(void)p;
	sent_type = type;
	snprintf(sent, sizeof(sent), "%.*s", (int)len, body);
}

void peer_send_error(struct peer *p, int code, const char *text)
{
	(void)p;
	sent_type = ROTA_MSG_ERROR;
	sent_code = code;
	snprintf(sent, sizeof(sent), "%s", text);
}

int64_t ctld_now(const struct ctld *ctld)
{
	(void)ctld;
	return now;
}

/* ---- fixture ---- */

static char dir[64];
static struct rota_conf conf = { .client_retry = 60 };
static struct ctld ctld = { .conf = &conf };
static struct peer root = { .ctld = &ctld, .uid = 0 };
static struct peer ana = { .ctld = &ctld, .uid = 1001 };

static int replay_cb(const char *rec, size_t len, void *arg,
		     struct rota_error *err)
{
	int rc = idem_record_apply(arg, idem_keep_since(&ctld), rec, len, err);

	ck_assert_int_eq(rc, 1); /* only request records here */
	return 0;
}

/* (Re)open the journal into a fresh table, as a restarted controller. */
static void restart(void)
{
	struct rota_error err;

	if (ctld.journal)
		journal_close(ctld.journal);
	idem_destroy(ctld.idem);
	ctld.idem = idem_create();
	ck_assert_int_eq(
		journal_open(dir, replay_cb, ctld.idem, &ctld.journal, &err),
		0);
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/rota-idem.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	now = 1000000;
	ctld.stats.requests_repeated = 0;
	restart();
}

static void teardown(void)
{
	char cmd[128];

	journal_close(ctld.journal);
	ctld.journal = NULL;
	idem_destroy(ctld.idem);
	ctld.idem = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static struct rota_frame frame(uint16_t type, const char *body)
{
	return (struct rota_frame){ .type = type,
				    .body = body,
				    .body_len = strlen(body) };
}

/* A request as a handler sees it: true if idem answered it already. */
static bool begin(struct peer *p, uint16_t type, const char *body,
		  struct idem_req *r)
{
	struct rota_frame f = frame(type, body);

	sent_type = 0;
	sent[0] = '\0';
	return idem_begin(p, &f, r);
}

/* Accept it with 'answer', and commit as state_commit would. */
static void accept(struct idem_req *r, const char *answer)
{
	struct rota_error err;

	idem_answer(r, ROTA_MSG_CANCEL_REPLY, answer, strlen(answer));
	idem_flush(ctld.idem, ctld.journal);
	ck_assert_int_eq(journal_sync(ctld.journal, &err), 0);
	idem_end(r);
}

/* ---- tests ---- */

START_TEST(test_no_rid)
{
	struct idem_req r;

	ck_assert(!begin(&root, ROTA_MSG_CANCEL, BODY, &r));
	ck_assert_str_eq(r.rid, "");
	ck_assert_str_eq(r.f.body, BODY);
	accept(&r, "{\"lines\":[]}");
	ck_assert_uint_eq(idem_count(ctld.idem), 0);
	/* an older client's repeat is a new request */
	ck_assert(!begin(&root, ROTA_MSG_CANCEL, BODY, &r));
	idem_end(&r);
}
END_TEST

START_TEST(test_repeat)
{
	struct idem_req r;

	ck_assert(!begin(&root, ROTA_MSG_CANCEL, WITH_RID, &r));
	ck_assert_str_eq(r.rid, RID);
	/* the handler's decoder sees the body without the id */
	ck_assert_uint_eq(r.f.body_len, strlen(BODY));
	ck_assert(memcmp(r.f.body, BODY, r.f.body_len) == 0);
	accept(&r, "{\"lines\":[\"first\"]}");
	ck_assert_uint_eq(idem_count(ctld.idem), 1);

	ck_assert(begin(&root, ROTA_MSG_CANCEL, WITH_RID, &r));
	ck_assert_uint_eq(sent_type, ROTA_MSG_CANCEL_REPLY);
	ck_assert_str_eq(sent, "{\"lines\":[\"first\"]}");
	ck_assert_uint_eq(ctld.stats.requests_repeated, 1);
}
END_TEST

START_TEST(test_per_uid)
{
	struct idem_req r;

	ck_assert(!begin(&root, ROTA_MSG_CANCEL, WITH_RID, &r));
	accept(&r, "{\"lines\":[\"root's\"]}");
	/* another user's same id is another request, never root's answer */
	ck_assert(!begin(&ana, ROTA_MSG_CANCEL, WITH_RID, &r));
	ck_assert_uint_eq(sent_type, 0);
	accept(&r, "{\"lines\":[\"ana's\"]}");
	ck_assert(begin(&ana, ROTA_MSG_CANCEL, WITH_RID, &r));
	ck_assert_str_eq(sent, "{\"lines\":[\"ana's\"]}");
	ck_assert(begin(&root, ROTA_MSG_CANCEL, WITH_RID, &r));
	ck_assert_str_eq(sent, "{\"lines\":[\"root's\"]}");
}
END_TEST

START_TEST(test_reused)
{
	struct idem_req r;

	ck_assert(!begin(&root, ROTA_MSG_CANCEL, WITH_RID, &r));
	accept(&r, "{\"lines\":[]}");
	/* another body */
	ck_assert(begin(&root, ROTA_MSG_CANCEL,
			"{\"jobs\":[8],\"rid\":\"" RID "\"}", &r));
	ck_assert_uint_eq(sent_type, ROTA_MSG_ERROR);
	ck_assert_int_eq(sent_code, -EINVAL);
	ck_assert_str_eq(sent, "request id already used for another request");
	/* another type, the same body */
	ck_assert(begin(&root, ROTA_MSG_HOLD, WITH_RID, &r));
	ck_assert_uint_eq(sent_type, ROTA_MSG_ERROR);
}
END_TEST

START_TEST(test_malformed)
{
	struct idem_req r;

	ck_assert(begin(&root, ROTA_MSG_CANCEL, "{\"rid\":\"ABC\"}", &r));
	ck_assert_uint_eq(sent_type, ROTA_MSG_ERROR);
	ck_assert_int_eq(sent_code, -EPROTO);
	ck_assert_str_eq(sent, "rid: expected 32 lowercase hex digits");
}
END_TEST

START_TEST(test_forget)
{
	struct rota_error err;
	struct idem_req r;

	ck_assert(!begin(&root, ROTA_MSG_CANCEL, WITH_RID, &r));
	idem_answer(&r, ROTA_MSG_CANCEL_REPLY, "{}", 2);
	idem_forget(&r); /* the commit failed before it flushed */
	idem_end(&r);
	ck_assert_uint_eq(idem_count(ctld.idem), 0);
	ck_assert(!begin(&root, ROTA_MSG_CANCEL, WITH_RID, &r));
	idem_end(&r);
	/* nor does its record reach the journal with the next commit */
	idem_flush(ctld.idem, ctld.journal);
	ck_assert_int_eq(journal_sync(ctld.journal, &err), 0);
	restart();
	ck_assert_uint_eq(idem_count(ctld.idem), 0);
}
END_TEST

START_TEST(test_replay)
{
	struct idem_req r;

	ck_assert(!begin(&root, ROTA_MSG_CANCEL, WITH_RID, &r));
	accept(&r, "{\"lines\":[\"\\\"quoted\\\"\"]}");
	restart(); /* kill -9 after the commit: the journal has it */
	ck_assert_uint_eq(idem_count(ctld.idem), 1);
	ck_assert(begin(&root, ROTA_MSG_CANCEL, WITH_RID, &r));
	ck_assert_str_eq(sent, "{\"lines\":[\"\\\"quoted\\\"\"]}");
	ck_assert(!begin(&ana, ROTA_MSG_CANCEL, WITH_RID, &r));
	idem_end(&r);
}
END_TEST

static int emit(struct journal_snapshot *s, void *arg)
{
	return idem_snapshot(arg, idem_keep_since(&ctld), s);
}

START_TEST(test_snapshot_and_expiry)
{
	struct rota_error err;
	struct idem_req r;

	ck_assert(!begin(&root, ROTA_MSG_CANCEL, WITH_RID, &r));
	accept(&r, "{\"lines\":[\"old\"]}");
	now += 300;
	ck_assert(!begin(
		&root, ROTA_MSG_CANCEL,
		"{\"jobs\":[7],\"rid\":\"ffffffffffffffffffffffffffffffff\"}",
		&r));
	accept(&r, "{\"lines\":[\"new\"]}");
	ck_assert_int_eq(journal_compact(ctld.journal, emit, ctld.idem, &err),
			 0);
	restart(); /* from the snapshot */
	ck_assert_uint_eq(idem_count(ctld.idem), 2);
	/* ClientRetry (60s) plus 600s after the first: it is let go */
	now += 60 + 600 - 300 + 1;
	ck_assert(!begin(&root, ROTA_MSG_CANCEL, WITH_RID, &r));
	idem_end(&r);
	ck_assert_uint_eq(idem_count(ctld.idem), 1);
	ck_assert_int_eq(journal_compact(ctld.journal, emit, ctld.idem, &err),
			 0);
	restart();
	ck_assert_uint_eq(idem_count(ctld.idem), 1);
	/* and at replay, what expired meanwhile is not taken back */
	now += 300;
	restart();
	ck_assert_uint_eq(idem_count(ctld.idem), 0);
}
END_TEST

static Suite *idem_suite(void)
{
	Suite *s = suite_create("idem");
	TCase *tc = tcase_create("idem");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_no_rid);
	tcase_add_test(tc, test_repeat);
	tcase_add_test(tc, test_per_uid);
	tcase_add_test(tc, test_reused);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_forget);
	tcase_add_test(tc, test_replay);
	tcase_add_test(tc, test_snapshot_and_expiry);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(idem_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}
