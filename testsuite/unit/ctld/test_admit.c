// SPDX-License-Identifier: MIT
/*
 * Connection admission (ctld/admit.h): the per-address cap, the total cap
 * for clients, the pool of nodes' addresses apart from it, releases that
 * make room again, and caps changed by a new config.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "common/conf.h"
#include "ctld/admit.h"

static struct rota_conf *conf_with(unsigned total, unsigned per_addr)
{
	char text[512];
	struct rota_conf *conf = NULL;
	struct rota_error err;

	snprintf(text, sizeof(text),
		 "MaxConnections=%u\nMaxConnectionsPerAddr=%u\n"
		 "NodeName=n[1-2] Addr=10.0.0.[1-2]\n"
		 "QueueName=q Nodes=ALL Default=yes\n",
		 total, per_addr);
	ck_assert_msg(rota_conf_load_buffer("test.conf", text, strlen(text),
					    &conf, &err) == 0,
		      "%s", err.text);
	return conf;
}

START_TEST(test_per_addr)
{
	struct rota_conf *conf = conf_with(100, 3);
	struct admit *a = admit_create(conf);
	bool node;

	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(admit_take(a, "192.0.2.7", &node), ADMIT_OK);
	ck_assert(!node);
	ck_assert_int_eq(admit_take(a, "192.0.2.7", &node), ADMIT_OVER_ADDR);
	/* another address is not affected */
	ck_assert_int_eq(admit_take(a, "192.0.2.8", &node), ADMIT_OK);
	admit_release(a, "192.0.2.7", false);
	ck_assert_int_eq(admit_take(a, "192.0.2.7", &node), ADMIT_OK);
	ck_assert_uint_eq(admit_open(a), 4);
	admit_destroy(a);
	rota_conf_destroy(conf);
}
END_TEST

START_TEST(test_total_spares_nodes)
{
	struct rota_conf *conf = conf_with(4, 2);
	struct admit *a = admit_create(conf);
	char addr[32];
	bool node;

	for (int i = 0; i < 4; i++) {
		snprintf(addr, sizeof(addr), "192.0.2.%d", i + 1);
		ck_assert_int_eq(admit_take(a, addr, &node), ADMIT_OK);
	}
	ck_assert_int_eq(admit_take(a, "192.0.2.99", &node), ADMIT_OVER_TOTAL);
	/* clients at their cap: a node's daemon still gets in */
	ck_assert_int_eq(admit_take(a, "10.0.0.2", &node), ADMIT_OK);
	ck_assert(node);
	ck_assert_uint_eq(admit_clients(a), 4);
	ck_assert_uint_eq(admit_open(a), 5);
	/* and nodes' addresses are held to the per-address cap */
	ck_assert_int_eq(admit_take(a, "10.0.0.2", &node), ADMIT_OK);
	ck_assert_int_eq(admit_take(a, "10.0.0.2", &node), ADMIT_OVER_ADDR);
	admit_release(a, "192.0.2.1", false);
	ck_assert_int_eq(admit_take(a, "192.0.2.99", &node), ADMIT_OK);
	admit_destroy(a);
	rota_conf_destroy(conf);
}
END_TEST

START_TEST(test_reconfigure)
{
	struct rota_conf *conf = conf_with(100, 1);
	struct rota_conf *more = conf_with(100, 2);
	struct admit *a = admit_create(conf);
	bool node;

	ck_assert_int_eq(admit_take(a, "192.0.2.7", &node), ADMIT_OK);
	ck_assert_int_eq(admit_take(a, "192.0.2.7", &node), ADMIT_OVER_ADDR);
	admit_reconfigure(a, more);
	ck_assert_int_eq(admit_take(a, "192.0.2.7", &node), ADMIT_OK);
	admit_release(a, "192.0.2.7", false);
	admit_release(a, "192.0.2.7", false);
	ck_assert_uint_eq(admit_open(a), 0);
	admit_destroy(a);
	rota_conf_destroy(conf);
	rota_conf_destroy(more);
}
END_TEST

static Suite *admit_suite(void)
{
	Suite *s = suite_create("admit");
	TCase *tc = tcase_create("caps");

	tcase_add_test(tc, test_per_addr);
	tcase_add_test(tc, test_total_spares_nodes);
	tcase_add_test(tc, test_reconfigure);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(admit_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}
