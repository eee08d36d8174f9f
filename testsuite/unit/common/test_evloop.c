// SPDX-License-Identifier: MIT
/*
 * rota_evloop_ready(): how many connections of a loop turn are still to
 * be served, as SchedulerMaxRPC reads it.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/evloop.h"

#define NPAIRS 4

struct turn {
	struct rota_evloop *loop;
	int fds[NPAIRS][2];
	struct rota_watch *w[NPAIRS];
	size_t seen[NPAIRS];	/* ready() in each callback, in order */
	size_t ncalls;
	size_t in_timer;
	int remove_other;	/* the first callback removes another */
};

static void read_cb(struct rota_evloop *loop, int fd, unsigned events,
		    void *arg)
{
	struct turn *t = arg;
	char c;

	(void)events;
	ck_assert_int_eq(read(fd, &c, 1), 1);
	t->seen[t->ncalls++] = rota_evloop_ready(loop);
	if (t->remove_other && t->ncalls == 1) {
		for (int i = 0; i < NPAIRS; i++) {
			if (t->fds[i][0] != fd && t->w[i]) {
				rota_watch_remove(t->w[i]);
				t->w[i] = NULL;
				break;
			}
		}
	}
}

static void stop_cb(struct rota_evloop *loop, void *arg)
{
	struct turn *t = arg;

	t->in_timer = rota_evloop_ready(loop) + 1;
	rota_evloop_stop(loop);
}

static void run_turn(struct turn *t)
{
	t->loop = rota_evloop_create();
	ck_assert_ptr_nonnull(t->loop);
	for (int i = 0; i < NPAIRS; i++) {
		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0,
					    t->fds[i]), 0);
		ck_assert_int_eq(write(t->fds[i][1], "x", 1), 1);
		t->w[i] = rota_evloop_add_fd(t->loop, t->fds[i][0],
					     ROTA_EV_READ, read_cb, t);
	}
	ck_assert_uint_eq(rota_evloop_ready(t->loop), 0); /* not running */
	rota_evloop_add_timer(t->loop, 0, false, stop_cb, t);
	ck_assert_int_eq(rota_evloop_run(t->loop), 0);
	for (int i = 0; i < NPAIRS; i++) {
		close(t->fds[i][0]);
		close(t->fds[i][1]);
	}
	rota_evloop_destroy(t->loop);
}

/* Four ready in one turn: each callback sees those after it. */
START_TEST(test_ready_counts_down)
{
	struct turn t = { 0 };

	run_turn(&t);
	ck_assert_uint_eq(t.ncalls, NPAIRS);
	for (size_t i = 0; i < NPAIRS; i++)
		ck_assert_uint_eq(t.seen[i], NPAIRS - 1 - i);
	ck_assert_uint_eq(t.in_timer, 1); /* timers: nothing left */
}
END_TEST

/* A watcher removed in the turn is not waiting any more. */
START_TEST(test_ready_skips_removed)
{
	struct turn t = { .remove_other = 1 };

	run_turn(&t);
	ck_assert_uint_eq(t.seen[0], NPAIRS - 1);
	ck_assert_uint_eq(t.ncalls, NPAIRS - 1);
	ck_assert_uint_eq(t.seen[t.ncalls - 1], 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("evloop");
	TCase *tc = tcase_create("evloop");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_ready_counts_down);
	tcase_add_test(tc, test_ready_skips_removed);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
