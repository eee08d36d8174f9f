// SPDX-License-Identifier: MIT
/*
 * noded/pmix_layout: a step's layout as PMIx is told it (node list, proc
 * map, local peers, places of ranks) and the unpacking of an allgather's
 * result, for block, uneven and cyclic layouts and for broken input.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "noded/pmix_layout.h"

static const char *const names[] = { "n01", "n02", "n03", "n04" };

struct layout_case {
	uint32_t ntasks;
	uint32_t nnodes;
	uint32_t count[4];
	uint32_t ranks[16];
	const char *ppn;
	const char *peers1; /* node 1's */
	uint32_t leader1;
	uint32_t node_of_last; /* the node of rank ntasks-1 */
	uint32_t local_of_last;
};

static const struct layout_case layouts[] = {
	{ 16, 4, { 4, 4, 4, 4 },
	  { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	  "0,1,2,3;4,5,6,7;8,9,10,11;12,13,14,15", "4,5,6,7", 4, 3, 3 },
	{ 5, 3, { 2, 2, 1 }, { 0, 1, 2, 3, 4 }, "0,1;2,3;4", "2,3", 2, 2, 0 },
	/* cyclic: nothing may assume blocks */
	{ 4, 2, { 2, 2 }, { 0, 2, 3, 1 }, "0,2;3,1", "3,1", 1, 1, 0 },
	{ 1, 1, { 1 }, { 0 }, "0", NULL, 0, 0, 0 },
};

static void step_of(const struct layout_case *c, struct wireup_step *st,
		    uint32_t *first)
{
	uint32_t n;

	memset(st, 0, sizeof(*st));
	st->ntasks = c->ntasks;
	st->nnodes = c->nnodes;
	st->nodes = names;
	st->count = c->count;
	st->ranks = c->ranks;
	st->first = first;
	for (n = 0; n < c->nnodes; n++)
		first[n] = n ? first[n - 1] + c->count[n - 1] : 0;
}

START_TEST(test_layout)
{
	const struct layout_case *c = &layouts[_i];
	struct pmix_place places[16];
	struct rota_error err = { "" };
	struct wireup_step st;
	uint32_t first[4];
	char *s;

	step_of(c, &st, first);
	ck_assert_int_eq(pmix_layout_places(&st, places, &err), 0);
	ck_assert_uint_eq(places[c->ntasks - 1].node, c->node_of_last);
	ck_assert_uint_eq(places[c->ntasks - 1].local, c->local_of_last);
	s = pmix_layout_ppn(&st);
	ck_assert_str_eq(s, c->ppn);
	free(s);
	s = pmix_layout_nodes(&st);
	ck_assert_str_eq(s, c->nnodes == 1 ? "n01" :
			    c->nnodes == 2 ? "n01,n02" :
			    c->nnodes == 3 ? "n01,n02,n03" :
					     "n01,n02,n03,n04");
	free(s);
	if (!c->peers1)
		return;
	s = pmix_layout_peers(&st, 1);
	ck_assert_str_eq(s, c->peers1);
	free(s);
	ck_assert_uint_eq(pmix_layout_leader(&st, 1), c->leader1);
}
END_TEST

struct bad_case {
	uint32_t ntasks;
	uint32_t count[2];
	uint32_t ranks[4];
	const char *text;
};

static const struct bad_case bad[] = {
	{ 4, { 2, 1 }, { 0, 1, 2 }, "step has 4 tasks but its nodes 3" },
	{ 3, { 2, 1 }, { 0, 1, 1 }, "node 1: rank 1 given twice" },
	{ 3, { 2, 1 }, { 0, 3, 1 }, "node 0: rank 3 out of range" },
};

START_TEST(test_bad_layout)
{
	const struct bad_case *c = &bad[_i];
	struct pmix_place places[4];
	struct rota_error err = { "" };
	uint32_t first[2] = { 0, c->count[0] };
	struct wireup_step st = {
		.ntasks = c->ntasks, .nnodes = 2, .nodes = names,
		.count = c->count, .first = first, .ranks = c->ranks,
	};

	ck_assert_int_eq(pmix_layout_places(&st, places, &err), -EINVAL);
	ck_assert_str_eq(err.text, c->text);
}
END_TEST

struct join_case {
	const char *all; /* the allgather's result */
	size_t len;
	uint32_t nnodes;
	int rc;
	const char *joined;
	const char *text;
};

static const struct join_case joins[] = {
	{ "\0\0\0\3abc\0\0\0\0\0\0\0\2de", 17, 3, 0, "abcde", "" },
	{ "\0\0\0\0\0\0\0\0", 8, 2, 0, NULL, "" },
	{ "\0\0\0\3abc", 7, 2, -EPROTO, NULL, "allgather: 1 of 2 blobs" },
	{ "\0\0\0\5abc", 7, 1, -EPROTO, NULL,
	  "allgather: blob 0: 5 bytes, 3 left" },
	{ "\0\0\0\1ab", 6, 1, -EPROTO, NULL,
	  "allgather: 1 bytes after 1 blobs" },
	{ "\xff\xff\xff\xff", 4, 1, -EPROTO, NULL,
	  "allgather: blob 0: 4294967295 bytes, 0 left" },
	{ "", 0, 1, -EPROTO, NULL, "allgather: 0 of 1 blobs" },
};

START_TEST(test_join)
{
	const struct join_case *c = &joins[_i];
	struct rota_error err = { "" };
	char *out = (char *)1;
	size_t len = 99;

	ck_assert_int_eq(pmix_layout_join(c->all, c->len, c->nnodes, &out,
					  &len, &err),
			 c->rc);
	ck_assert_str_eq(err.text, c->text);
	if (!c->joined) {
		ck_assert_ptr_null(out);
		ck_assert_uint_eq(len, 0);
		return;
	}
	ck_assert_uint_eq(len, strlen(c->joined));
	ck_assert_mem_eq(out, c->joined, len);
	free(out);
}
END_TEST

static Suite *layout_suite(void)
{
	Suite *s = suite_create("pmix_layout");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_layout, 0,
			    sizeof(layouts) / sizeof(layouts[0]));
	tcase_add_loop_test(tc, test_bad_layout, 0,
			    sizeof(bad) / sizeof(bad[0]));
	tcase_add_loop_test(tc, test_join, 0, sizeof(joins) / sizeof(joins[0]));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(layout_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
