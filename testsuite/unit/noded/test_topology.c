// SPDX-License-Identifier: MIT
/*
 * noded/topology: summaries of real machines' hwloc XML (see
 * ../shared/topologies/README.md for the expected values), the mapping of
 * described cores onto the host, and load errors.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwloc.h>

#include "common/error.h"
#include "noded/gpu_find.h"
#include "noded/topology.h"

/* $ROTA_TOPOLOGY_DIR wins, so that a distcheck build finds the XML too. */
static const char *topo_dir(void)
{
	const char *d = getenv("ROTA_TOPOLOGY_DIR");

	return d && *d ? d : ROTA_TOPOLOGY_DIR;
}

#define GIB 1024u

/*
 * Under LeakSanitizer: hwloc's PCI plugin (libpciaccess) leaks about 1 KB
 * each time the host is loaded with its I/O devices, as topology_load(NULL)
 * does.  Nothing of ours is allocated beneath hwloc_topology_load(); the
 * plugin has no frame pointers, hence the slow unwinder to see that frame.
 */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "fast_unwind_on_malloc=0:print_suppressions=0";
}

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:hwloc_topology_load\n";
}

struct machine {
	const char *file;
	unsigned sockets;
	unsigned cores;
	unsigned pus;
	uint64_t memory_mb; /* hwloc-ls rounds it: compared within 1 GiB */
	bool has_ib;
};

static const struct machine machines[] = {
	{ "24em64t-2n6c2t-pci.xml", 2, 12, 24, 36 * GIB, true },
	{ "32em64t-2n8c2t-pci-wholeio.xml", 2, 16, 32, 64 * GIB, true },
	{ "192em64t-24n8c2t.xml", 24, 192, 384, 744 * GIB, true },
	{ "memorysidecaches.xml", 2, 40, 80, 1487 * GIB, false },
	{ "2intel64-1n2c-numaroot.v1tov2.xml", 2, 2, 2, 2 * GIB, false },
	{ "28intel64-2p2g7c-CoDgroups.v1tov2.xml", 2, 28, 28, 64 * GIB, false },
	{ "16amd64-4distances.xml", 8, 16, 16, 64 * GIB, false },
};

static char *xml(const char *file)
{
	char *path;

	ck_assert_int_gt(asprintf(&path, "%s/%s", topo_dir(), file), 0);
	return path;
}

static struct topology *load(const char *file)
{
	struct rota_error err = { "" };
	struct topology *topo = NULL;
	char *path = file ? xml(file) : NULL;

	ck_assert_msg(topology_load(path, &topo, &err) == 0, "%s: %s",
		      file ? file : "host", err.text);
	ck_assert_ptr_nonnull(topo);
	free(path);
	return topo;
}

/* Cores of this host as hwloc sees them, or PUs when it shows no cores. */
static unsigned host_cores(void)
{
	const struct topology_summary *sum;
	struct topology *topo = load(NULL);
	unsigned n;

	sum = topology_summary(topo);
	n = sum->cores;
	topology_destroy(topo);
	return n;
}

/* The PUs of host core 'i' straight from hwloc, in the list format. */
static char *host_core_pus(unsigned i)
{
	hwloc_topology_t t;
	hwloc_obj_t core;
	char *list = NULL;

	ck_assert_int_eq(hwloc_topology_init(&t), 0);
	ck_assert_int_eq(hwloc_topology_load(t), 0);
	core = hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, i);
	if (!core)
		core = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, i);
	ck_assert_ptr_nonnull(core);
	ck_assert_int_ge(hwloc_bitmap_list_asprintf(&list, core->cpuset), 0);
	hwloc_topology_destroy(t);
	return list;
}

/*
 * GPUs (issue 24): the compute cards of each machine, in PCI bus order,
 * with the NUMA node and cores nearest each; the console's VGA chips
 * (Matrox G200, ATI ES1000 on the first three) are not GPUs.
 */
struct gpu_machine {
	const char *file;
	size_t ngpus;
	const char *first;	/* type busid numa cores of the first */
	const char *last;	/* and of the last */
};

static const struct gpu_machine gpu_machines[] = {
	{ "nvidiaDGX2.xml", 16, "v100 0000:34:00.0 0 0-1",
	  "v100 0000:e7:00.0 1 2-3" },
	{ "power8gpudistances.xml", 4, "p100 0002:01:00.0 0 0-3",
	  "p100 000b:01:00.0 1 4-7" },
	{ "24em64t-2n6c2t-pci.xml", 3, "- 0000:06:00.0 0 0-5",
	  "- 0000:14:00.0 1 6-11" },
	{ "32em64t-2n8c2t-pci-wholeio.xml", 4, "m2075 0000:03:00.0 0 0-7",
	  "r9 0000:84:00.1 1 8-15" },
	{ "192em64t-24n8c2t.xml", 0, NULL, NULL },
	{ "16amd64-4distances.xml", 0, NULL, NULL },
};

static void assert_gpu(const struct topology_gpu *g, const char *want)
{
	char got[128];

	snprintf(got, sizeof(got), "%s %s %u %s", g->type[0] ? g->type : "-",
		 g->busid, g->numa, g->cores);
	ck_assert_str_eq(got, want);
}

START_TEST(test_gpus)
{
	const struct gpu_machine *m = &gpu_machines[_i];
	struct topology *topo = load(m->file);
	const struct topology_summary *sum = topology_summary(topo);

	ck_assert_uint_eq(sum->ngpus, m->ngpus);
	if (m->ngpus) {
		assert_gpu(&sum->gpus[0], m->first);
		assert_gpu(&sum->gpus[m->ngpus - 1], m->last);
	}
	topology_destroy(topo);
}
END_TEST

/* A model with no PCI name: its ids, and no type. */
START_TEST(test_gpu_model_ids)
{
	struct topology *topo = load("24em64t-2n6c2t-pci.xml");

	ck_assert_str_eq(topology_summary(topo)->gpus[0].model,
			 "[10de:06d2]");
	topology_destroy(topo);
}
END_TEST

/* The devices a job of GPUs 1 and 2 of each machine may not open. */
START_TEST(test_gpu_deny_rules)
{
	static const uint32_t mine[] = { 1, 2 };
	struct topology *topo = load("power8gpudistances.xml");
	char **r = gpus_deny_rules(topology_summary(topo), mine, 2);

	ck_assert_str_eq(r[0], "c 195:0 rwm");
	ck_assert_str_eq(r[1], "c 195:3 rwm");
	ck_assert_ptr_null(r[2]);
	gpus_deny_free(r);
	/* a job without GPUs: nothing denied */
	r = gpus_deny_rules(topology_summary(topo), NULL, 0);
	ck_assert_ptr_null(r[0]);
	gpus_deny_free(r);
	topology_destroy(topo);
	/* 2 M2075 and a K40m (NVIDIA), then a Radeon (DRM card 0) */
	topo = load("32em64t-2n8c2t-pci-wholeio.xml");
	r = gpus_deny_rules(topology_summary(topo), mine, 2);
	ck_assert_str_eq(r[0], "c 195:0 rwm");
	ck_assert_str_eq(r[1], "c 226:0 rwm");
	ck_assert_str_eq(r[2], "c 226:128 rwm");
	ck_assert_ptr_null(r[3]);
	gpus_deny_free(r);
	topology_destroy(topo);
}
END_TEST

START_TEST(test_gpu_type_of)
{
	static const char *const cases[][2] = {
		{ "Tesla V100-SXM3-32GB-H", "v100" },
		{ "NVIDIA A100-SXM4-80GB", "a100" },
		{ "NVIDIA H100 80GB HBM3", "h100" },
		{ "AMD Instinct MI250X", "mi250x" },
		{ "Tesla K40m", "k40m" },
		{ "NVIDIA GeForce RTX 3090", "rtx" },
		{ "Intel(R) Data Center GPU Max 1550", "max" },
		{ "[10de:06d2]", "" },
		{ "", "" },
		{ "NVIDIA", "" },
	};
	char type[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		gpu_type_of(cases[i][0], type, sizeof(type));
		ck_assert_msg(strcmp(type, cases[i][1]) == 0,
			      "'%s': got '%s', want '%s'", cases[i][0], type,
			      cases[i][1]);
	}
}
END_TEST

START_TEST(test_summary)
{
	const struct machine *m = &machines[_i];
	const struct topology_summary *sum;
	struct topology *topo = load(m->file);
	uint64_t diff;

	sum = topology_summary(topo);
	ck_assert_uint_eq(sum->sockets, m->sockets);
	ck_assert_uint_eq(sum->cores, m->cores);
	ck_assert_uint_eq(sum->pus, m->pus);
	diff = sum->memory_mb > m->memory_mb ? sum->memory_mb - m->memory_mb
					     : m->memory_mb - sum->memory_mb;
	ck_assert_msg(diff < GIB, "%s: %ju MB, expected about %ju", m->file,
		      (uintmax_t)sum->memory_mb, (uintmax_t)m->memory_mb);
	ck_assert_int_eq(sum->has_ib, m->has_ib);
	topology_destroy(topo);
}
END_TEST

START_TEST(test_host)
{
	const struct topology_summary *sum;
	struct topology *topo = load(NULL);
	char *list;

	sum = topology_summary(topo);
	ck_assert_uint_ge(sum->sockets, 1);
	ck_assert_uint_ge(sum->cores, 1);
	ck_assert_uint_ge(sum->pus, sum->cores);
	ck_assert_uint_gt(sum->memory_mb, 0);
	/* Without XML the mapping is the identity. */
	for (unsigned i = 0; i < sum->cores; i++) {
		char *want = host_core_pus(i);

		list = topology_host_cpulist(topo, &i, 1);
		ck_assert_str_eq(list, want);
		free(list);
		free(want);
	}
	topology_destroy(topo);
}
END_TEST

/* Described core i of a 12-core machine runs on host core (i mod n). */
START_TEST(test_mapping)
{
	struct topology *topo = load("24em64t-2n6c2t-pci.xml");
	unsigned n = host_cores();
	unsigned core = _i;
	char *want = host_core_pus(core % n);
	char *list;

	list = topology_host_cpulist(topo, &core, 1);
	ck_assert_ptr_nonnull(list);
	ck_assert_str_eq(list, want);
	free(list);
	free(want);
	topology_destroy(topo);
}
END_TEST

/* Several cores bind to the union of their host cores' PUs. */
START_TEST(test_mapping_union)
{
	struct topology *topo = load("24em64t-2n6c2t-pci.xml");
	unsigned cores[12];
	hwloc_topology_t t;
	char *want = NULL;
	char *list;

	for (unsigned i = 0; i < 12; i++)
		cores[i] = 11 - i;
	/* All 12 described cores cover every host core here (12 >= n). */
	ck_assert_int_eq(hwloc_topology_init(&t), 0);
	ck_assert_int_eq(hwloc_topology_load(t), 0);
	if (hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE) <= 12) {
		hwloc_bitmap_list_asprintf(
			&want, hwloc_topology_get_allowed_cpuset(t));
		list = topology_host_cpulist(topo, cores, 12);
		ck_assert_str_eq(list, want);
		free(list);
	}
	free(want);
	hwloc_topology_destroy(t);
	topology_destroy(topo);
}
END_TEST

START_TEST(test_bind_out_of_range)
{
	struct topology *topo = load("24em64t-2n6c2t-pci.xml");
	struct rota_error err = { "" };
	unsigned cores[] = { 0, 12 };

	ck_assert_int_eq(topology_bind_cores(topo, cores, 2, &err), -EINVAL);
	ck_assert_str_eq(err.text, "core 12 out of range (node has 12)");
	ck_assert_ptr_null(topology_host_cpulist(topo, cores, 2));
	topology_destroy(topo);
}
END_TEST

/* Binding this (forked test) process shows in its affinity mask. */
START_TEST(test_bind)
{
	struct topology *topo = load("24em64t-2n6c2t-pci.xml");
	struct rota_error err = { "" };
	unsigned core = 7;
	hwloc_topology_t t;
	hwloc_bitmap_t set;
	char *want;
	char *got = NULL;

	ck_assert_msg(topology_bind_cores(topo, &core, 1, &err) == 0, "%s",
		      err.text);
	want = topology_host_cpulist(topo, &core, 1);
	ck_assert_int_eq(hwloc_topology_init(&t), 0);
	ck_assert_int_eq(hwloc_topology_load(t), 0);
	set = hwloc_bitmap_alloc();
	ck_assert_int_eq(hwloc_get_cpubind(t, set, HWLOC_CPUBIND_PROCESS), 0);
	hwloc_bitmap_list_asprintf(&got, set);
	ck_assert_str_eq(got, want);
	free(got);
	free(want);
	hwloc_bitmap_free(set);
	hwloc_topology_destroy(t);
	topology_destroy(topo);
}
END_TEST

struct bad_file {
	const char *name;
	const char *content; /* NULL: the file does not exist */
};

static const struct bad_file bad_files[] = {
	{ "missing.xml", NULL },
	{ "garbage.xml", "this is not XML\n" },
	{ "empty.xml", "" },
	{ "wrong.xml", "<?xml version=\"1.0\"?>\n<notatopology/>\n" },
};

START_TEST(test_bad_xml)
{
	const struct bad_file *bad = &bad_files[_i];
	struct rota_error err = { "" };
	struct topology *topo = (struct topology *)&err;
	char dir[] = "/tmp/rota-topo-XXXXXX";
	char *path;
	char *prefix;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_gt(asprintf(&path, "%s/%s", dir, bad->name), 0);
	if (bad->content) {
		f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fputs(bad->content, f);
		ck_assert_int_eq(fclose(f), 0);
	}
	ck_assert_int_eq(topology_load(path, &topo, &err), -EINVAL);
	ck_assert_ptr_null(topo);
	ck_assert_int_gt(asprintf(&prefix, "topology '%s': ", path), 0);
	ck_assert_msg(strncmp(err.text, prefix, strlen(prefix)) == 0, "%s",
		      err.text);
	if (!bad->content)
		ck_assert_str_eq(err.text + strlen(prefix),
				 "cannot read XML: No such file or directory");
	unlink(path);
	rmdir(dir);
	free(prefix);
	free(path);
}
END_TEST

static Suite *topology_suite(void)
{
	Suite *s = suite_create("topology");
	TCase *tc = tcase_create("topology");
	int nmachines = sizeof(machines) / sizeof(machines[0]);
	int nbad = sizeof(bad_files) / sizeof(bad_files[0]);

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_summary, 0, nmachines);
	tcase_add_test(tc, test_host);
	tcase_add_loop_test(tc, test_gpus, 0,
			    sizeof(gpu_machines) / sizeof(*gpu_machines));
	tcase_add_test(tc, test_gpu_model_ids);
	tcase_add_test(tc, test_gpu_type_of);
	tcase_add_test(tc, test_gpu_deny_rules);
	tcase_add_loop_test(tc, test_mapping, 0, 12);
	tcase_add_test(tc, test_mapping_union);
	tcase_add_test(tc, test_bind_out_of_range);
	tcase_add_test(tc, test_bind);
	tcase_add_loop_test(tc, test_bad_xml, 0, nbad);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(topology_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
