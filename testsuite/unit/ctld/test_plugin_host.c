// SPDX-License-Identifier: MIT
/*
 * ctld/core/plugin_host through plugin_host.h: the built-in default loads
 * without dlopen, real plugins load from PluginDir/<kind>/<name>.so, and
 * each deliberately broken plugin (testsuite/plugins/broken.c) is refused
 * with one line naming the file and the reason.  So are a misspelt or bad
 * setting, by file and line.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/xalloc.h"
#include "ctld/core/plugin_host.h"
#include "ctld/core/share.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *builddir(void)
{
	const char *b = getenv("top_builddir");

	return b && *b ? b : ROTA_TOP_BUILDDIR;
}

/*
 * Load the fairshare plugin 'line' asks for from 'dir' under the build.
 * The plugin's settings are the config's: it lives until teardown.
 */
static struct rota_conf *conf;

static void teardown(void)
{
	rota_conf_destroy(conf);
	conf = NULL;
}

static int load(const char *dir, const char *line, struct plugin **p,
		struct rota_error *err)
{
	char *text = rota_xasprintf("PluginDir=%s/%s\n%s\n", builddir(), dir,
				    line);
	static const char *const host_keys[] = { "Convention", NULL };
	int rc = rota_conf_load_buffer("test.conf", text, strlen(text), &conf,
				       err);

	free(text);
	ck_assert_msg(rc == 0, "config: %s", err->text);
	return plugin_load(conf, ROTA_PLUGIN_FAIRSHARE, "fairtree", host_keys,
			   p, err);
}

/* "1.<minor>": whatever minor the plugin API is at */
#define STR_(x) #x
#define STR(x) STR_(x)

static const struct {
	const char *line;
	int rc;
	const char *error; /* after "<builddir>/_testplugins/fairshare/" */
} refused[] = {
	{ "Fairshare=badabi", -EINVAL,
	  "badabi.so: built for plugin ABI 2.0, this controller takes 1.0 to "
	  "1." STR(ROTA_PLUGIN_ABI_MINOR) },
	{ "Fairshare=badkind", -EINVAL,
	  "badkind.so: a priority plugin, not a fairshare plugin" },
	{ "Fairshare=noop", -EINVAL,
	  "noop.so: required op 'compute' is missing" },
	{ "Fairshare=nosym", -EINVAL,
	  "nosym.so: no 'rota_plugin' descriptor: not a Rota plugin" },
	{ "Fairshare=badname", -EINVAL,
	  "badname.so: calls itself 'someone-else', not 'badname'" },
	{ "Fairshare=absent", -ENOENT,
	  "absent.so: no such plugin (PluginDir= in rota.conf says where "
	  "plugins are)" },
};

START_TEST(test_refused)
{
	struct plugin *p = (struct plugin *)&p;
	struct rota_error err = { "" };
	char *want = rota_xasprintf("%s/_testplugins/fairshare/%s", builddir(),
				    refused[_i].error);

	ck_assert_int_eq(load("_testplugins", refused[_i].line, &p, &err),
			 refused[_i].rc);
	ck_assert_ptr_null(p);
	ck_assert_str_eq(err.text, want);
	free(want);
}
END_TEST

/*
 * A limits plugin built before its job view grew (ABI 1.15): the host
 * would step through the views it is given with the wrong size.
 */
START_TEST(test_old_limits)
{
	char *text = rota_xasprintf("PluginDir=%s/_testplugins\n"
				    "Limits=oldlimits\n", builddir());
	char *want = rota_xasprintf(
		"%s/_testplugins/limits/oldlimits.so: built for plugin ABI "
		"1.14, this controller takes 1.15 to 1." STR(
			ROTA_PLUGIN_ABI_MINOR),
		builddir());
	struct rota_error err = { "" };
	struct plugin *p = NULL;

	ck_assert_int_eq(rota_conf_load_buffer("test.conf", text, strlen(text),
					       &conf, &err), 0);
	ck_assert_int_eq(plugin_load(conf, ROTA_PLUGIN_LIMITS, "slurm", NULL,
				     &p, &err), -EINVAL);
	ck_assert_ptr_null(p);
	ck_assert_str_eq(err.text, want);
	free(text);
	free(want);
}
END_TEST

static const struct {
	const char *line;
	const char *error;
} bad_settings[] = {
	{ "Fairshare=strict Factor=2",
	  "test.conf:2: Factor: '2' is not within [0, 1]" },
	{ "Fairshare=strict Factor=lots",
	  "test.conf:2: Factor: 'lots' is not a number" },
	{ "Fairshare=strict Factr=0.5",
	  "test.conf:2: Factr: not a setting of Fairshare 'strict'" },
};

/* A setting the plugin refuses, or never asks for, stops the load. */
START_TEST(test_bad_settings)
{
	struct plugin *p = NULL;
	struct rota_error err = { "" };

	ck_assert_int_eq(load("_testplugins", bad_settings[_i].line, &p, &err),
			 -EINVAL);
	ck_assert_ptr_null(p);
	ck_assert_str_eq(err.text, bad_settings[_i].error);
}
END_TEST

/* A good one: its settings reach it, its ops run, host keys pass. */
START_TEST(test_loaded)
{
	struct plugin *p = NULL;
	struct rota_error err = { "" };
	struct rota_share_node node = { .name = "root" };
	struct rota_share_tree tree = { .nodes = &node, .n = 1 };
	const struct rota_fairshare_ops *ops;
	unsigned conv = 0;
	char msg[80];

	ck_assert_int_eq(load("_testplugins",
			      "Fairshare=strict Factor=0.25 Convention=flux",
			      &p, &err), 0);
	ck_assert_str_eq(plugin_name(p), "strict");
	/* its table ends before factors() (ABI 1.4) */
	ck_assert_ptr_null(plugin_ops(p, sizeof(*ops)));
	ops = plugin_ops(p, offsetof(struct rota_fairshare_ops, factors));
	ck_assert_ptr_nonnull(ops);
	ck_assert_int_eq(ops->compute(plugin_state(p), &tree), 0);
	ck_assert(node.factor == 0.25);
	ck_assert_int_eq(plugin_host(p)->conf_choice(
				 plugin_conf(p), "Convention",
				 (const char *const[]){ "native", "flux", NULL },
				 &conv, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(conv, 1);
	plugin_unload(p);
}
END_TEST

/*
 * A plugin whose ops table predates factors() rates through compute()
 * when the host asks for the factors alone.
 */
START_TEST(test_older_ops_table)
{
	struct plugin *p = NULL;
	struct rota_error err = { "" };
	const struct rota_share_tree *t;
	struct share *s;

	ck_assert_int_eq(load("_testplugins", "Fairshare=strict Factor=0.25",
			      &p, &err), 0);
	s = share_create(conf, p, false);
	share_prepare(s, 1700000000);
	t = share_factors(s);
	ck_assert_uint_ge(t->n, 1);
	ck_assert(t->nodes[0].factor == 0.25);
	share_destroy(s);
	plugin_unload(p);
}
END_TEST

/* No line: the default, linked in, no PluginDir needed. */
START_TEST(test_builtin_default)
{
	struct plugin *p = NULL;
	struct rota_error err = { "" };

	ck_assert_int_eq(load("nowhere", "ClusterName=x", &p, &err), 0);
	ck_assert_str_eq(plugin_name(p), "fairtree");
	ck_assert_int_eq(plugin_desc(p)->kind, ROTA_PLUGIN_FAIRSHARE);
	plugin_unload(p);
}
END_TEST

static const char *const real[] = { "classic", "fairtree", "ratio",
				    "sharetree" };

/* The installed kind of plugin: built .so files through dlopen. */
START_TEST(test_real_plugins)
{
	char *line = rota_xasprintf("Fairshare=%s", real[_i]);
	struct plugin *p = NULL;
	struct rota_error err = { "" };

	ck_assert_msg(load("_plugins", line, &p, &err) == 0, "%s", err.text);
	ck_assert_str_eq(plugin_name(p), real[_i]);
	plugin_unload(p);
	free(line);
}
END_TEST

static Suite *plugin_host_suite(void)
{
	Suite *s = suite_create("plugin_host");
	TCase *tc = tcase_create("load");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_loop_test(tc, test_refused, 0, N(refused));
	tcase_add_test(tc, test_old_limits);
	tcase_add_loop_test(tc, test_bad_settings, 0, N(bad_settings));
	tcase_add_test(tc, test_loaded);
	tcase_add_test(tc, test_older_ops_table);
	tcase_add_test(tc, test_builtin_default);
	tcase_add_loop_test(tc, test_real_plugins, 0, N(real));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(plugin_host_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
