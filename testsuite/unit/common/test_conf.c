// SPDX-License-Identifier: MIT
/*
 * rota.conf: good files (globals, nodes, queues, Includes in a scratch
 * folder), each kind of broken line with its exact message, and garbage.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/units.h"
#include "common/xalloc.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static char dir[64];

static void dir_setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/rota-test-conf-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static int remove_cb(const char *path, const struct stat *st, int flag,
		     struct FTW *ftw)
{
	return remove(path);
}

static void dir_teardown(void)
{
	ck_assert_int_eq(nftw(dir, remove_cb, 8, FTW_DEPTH | FTW_PHYS), 0);
}

/* Write 'text' to dir/name (creating dir/sub if named); returns the path. */
static char *put(const char *name, const char *text)
{
	char *path = rota_xasprintf("%s/%s", dir, name);
	char *sub = rota_xasprintf("%s/sub", dir);
	FILE *f;

	mkdir(sub, 0700);
	free(sub);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

static struct rota_conf *load_ok(const char *text)
{
	struct rota_conf *conf = NULL;
	struct rota_error err = { "" };
	int rc = rota_conf_load_buffer("rota.conf", text, strlen(text), &conf,
				       &err);

	ck_assert_msg(rc == 0, "load failed: %s", err.text);
	ck_assert_ptr_nonnull(conf);
	return conf;
}

START_TEST(test_defaults)
{
	struct rota_conf *conf = load_ok("# nothing but a comment\n\n");

	ck_assert_str_eq(conf->path, "rota.conf");
	ck_assert_str_eq(conf->cluster_name, "rota");
	ck_assert_str_eq(conf->ctld_addr, "127.0.0.1");
	ck_assert_uint_eq(conf->ctld_port, 6817);
	ck_assert_str_eq(conf->ctld_user, "root");
	ck_assert_uint_eq(conf->noded_port, 0);
	ck_assert_str_eq(conf->state_dir, "/var/spool/rota/ctld");
	ck_assert_str_eq(conf->spool_dir, "/var/spool/rota/noded");
	ck_assert_ptr_null(conf->log_file);
	ck_assert_str_eq(conf->log_level, "info");
	ck_assert_int_eq(conf->heartbeat_interval, 30);
	ck_assert_int_eq(conf->node_timeout, 300);
	ck_assert_int_eq(conf->node_lease, 300 - 2 - 6); /* margin 2s + 2% */
	ck_assert_int_eq(conf->kill_wait, 30);
	ck_assert_int_eq(conf->min_job_age, 300);
	ck_assert_int_eq(conf->sched_interval, 60);
	ck_assert_uint_eq(conf->largemem_mb, 256 * 1024);
	ck_assert_uint_eq(conf->max_frame, 16 << 20);
	ck_assert_ptr_nonnull(conf->operators);
	ck_assert_ptr_null(conf->operators[0]);
	ck_assert_ptr_nonnull(conf->plugin_dir);
	ck_assert_uint_eq(conf->nnodes, 0);
	ck_assert_uint_eq(conf->nqueues, 0);
	ck_assert_ptr_null(rota_conf_default_queue(conf));
	ck_assert_ptr_null(rota_conf_node_find(conf, "n1"));
	ck_assert(rota_conf_is_operator(conf, "root"));
	ck_assert(!rota_conf_is_operator(conf, "ana"));
	rota_conf_destroy(conf);
	rota_conf_destroy(NULL);
}
END_TEST

static const char full[] =
	"# a small cluster\n"
	"ClusterName=tiny\n"
	"ctldaddr=10.0.0.1   # keys in any case\n"
	"CTLDPORT=0\r\n"
	"NodedPort=6818 StateDir=\"/var/lib/rota state\"\n"
	"\tSpoolDir=/tmp/spool\n"
	"LogFile=/var/log/rota.log\n"
	"LogLevel=DEBUG\n"
	"HeartbeatInterval=1s\n"
	"NodeTimeout=1:30\n"
	"KillWait=0s\n"
	"MinJobAge=1d\n"
	"SchedulerInterval=2m\n"
	"LargeMemory=1.5T\n"
	"MaxMessageSize=64K\n"
	"Operators=ana,bob\n"
	"PluginDir=/opt/rota/lib\n"
	"NodeName=n[01-04] Addr=127.0.0.[2-5] Features=gpu,ib CPUs=8 "
	"RealMemory=64G Gres=gpu:V100:4,nvme:2\n"
	"NodeName=login1\n"
	"QueueName=batch Nodes=n[01-03] MaxTime=1-00:00:00 DefaultTime=60 "
	"PriorityTier=2\n"
	"QueueName=debug Nodes=ALL Default=YES MaxTime=30\n"
	"QueueName=all\n"
	"QueueName=late Nodes=late[1-2]\n"
	"NodeName=late[1-2]\n"
	"GresTypes=nvme\n";

START_TEST(test_full)
{
	struct rota_conf *conf = load_ok(full);
	const struct rota_conf_node *node;
	const struct rota_conf_queue *q;

	ck_assert_str_eq(conf->cluster_name, "tiny");
	ck_assert_str_eq(conf->ctld_addr, "10.0.0.1");
	ck_assert_uint_eq(conf->ctld_port, 0);
	ck_assert_uint_eq(conf->noded_port, 6818);
	ck_assert_str_eq(conf->state_dir, "/var/lib/rota state");
	ck_assert_str_eq(conf->spool_dir, "/tmp/spool");
	ck_assert_str_eq(conf->log_file, "/var/log/rota.log");
	ck_assert_str_eq(conf->log_level, "debug");
	ck_assert_int_eq(conf->heartbeat_interval, 1);
	ck_assert_int_eq(conf->node_timeout, 90);
	ck_assert_int_eq(conf->node_lease, 90 - 2 - 2); /* 1.8s: 2 */
	ck_assert_int_eq(conf->kill_wait, 0);
	ck_assert_int_eq(conf->min_job_age, 86400);
	ck_assert_int_eq(conf->sched_interval, 120);
	ck_assert_uint_eq(conf->largemem_mb, 1536 * 1024);
	ck_assert_uint_eq(conf->max_frame, 65536);
	ck_assert_str_eq(conf->operators[0], "ana");
	ck_assert_str_eq(conf->operators[1], "bob");
	ck_assert_ptr_null(conf->operators[2]);
	ck_assert(rota_conf_is_operator(conf, "bob"));
	ck_assert(rota_conf_is_operator(conf, "root"));
	ck_assert(!rota_conf_is_operator(conf, "eve"));
	ck_assert_str_eq(conf->plugin_dir, "/opt/rota/lib");

	ck_assert_uint_eq(conf->nnodes, 7);
	node = rota_conf_node_find(conf, "n03");
	ck_assert_ptr_nonnull(node);
	ck_assert_str_eq(node->addr, "127.0.0.4");
	ck_assert_str_eq(node->features[0], "gpu");
	ck_assert_str_eq(node->features[1], "ib");
	ck_assert_ptr_null(node->features[2]);
	ck_assert_uint_eq(node->cpus, 8);
	ck_assert_uint_eq(node->memory_mb, 65536);
	ck_assert_uint_eq(node->ngres, 2);
	ck_assert_str_eq(node->gres[0].name, "gpu");
	ck_assert_str_eq(node->gres[0].type, "v100");
	ck_assert_uint_eq(node->gres[0].count, 4);
	ck_assert_str_eq(node->gres[1].name, "nvme");
	ck_assert_uint_eq(node->gres[1].count, 2);
	ck_assert_str_eq(conf->gres_types[0], "nvme");
	ck_assert_str_eq(node->file, "rota.conf");
	ck_assert_uint_eq(node->line, 18);
	node = rota_conf_node_find(conf, "login1");
	ck_assert_ptr_nonnull(node);
	ck_assert_ptr_null(node->addr);
	ck_assert_ptr_null(node->features[0]);
	ck_assert_uint_eq(node->cpus, 0);
	ck_assert_ptr_null(node->gres);
	ck_assert_uint_eq(node->ngres, 0);
	ck_assert_str_eq(conf->nodes[0].name, "n01");
	ck_assert_str_eq(conf->nodes[6].name, "late2");
	ck_assert_ptr_null(rota_conf_node_find(conf, "n05"));

	ck_assert_uint_eq(conf->nqueues, 4);
	q = rota_conf_queue_find(conf, "batch");
	ck_assert_ptr_nonnull(q);
	ck_assert_uint_eq(q->nnodes, 3);
	ck_assert_str_eq(q->nodes[2], "n03");
	ck_assert_ptr_null(q->nodes[3]);
	ck_assert_int_eq(q->max_time, 86400);
	ck_assert_int_eq(q->default_time, 3600);
	ck_assert_uint_eq(q->priority_tier, 2);
	ck_assert(!q->is_default);
	ck_assert_uint_eq(q->line, 20);
	q = rota_conf_default_queue(conf);
	ck_assert_str_eq(q->name, "debug");
	ck_assert_int_eq(q->max_time, 1800);
	ck_assert_int_eq(q->default_time, ROTA_DURATION_UNLIMITED);
	ck_assert_uint_eq(q->nnodes, 7);
	q = rota_conf_queue_find(conf, "all");
	ck_assert_uint_eq(q->nnodes, 7);
	ck_assert_int_eq(q->max_time, ROTA_DURATION_UNLIMITED);
	q = rota_conf_queue_find(conf, "late");
	ck_assert_uint_eq(q->nnodes, 2);
	ck_assert_str_eq(q->nodes[1], "late2");
	ck_assert_ptr_null(rota_conf_queue_find(conf, "nope"));
	rota_conf_destroy(conf);
}
END_TEST

/* Slurm's partition names: GWDG's "medium40:test", and others'. */
START_TEST(test_queue_name_chars)
{
	static const char *const names[] = { "medium40:test", "fat+",
					     "gpu/a100@x", "-x_1.2" };
	struct rota_conf *conf = load_ok("NodeName=a\nQueueName=medium40\n"
					 "QueueName=medium40:test\n"
					 "QueueName=fat+\n"
					 "QueueName=gpu/a100@x\n"
					 "QueueName=-x_1.2\n");

	ck_assert_uint_eq(conf->nqueues, 5);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		ck_assert_ptr_nonnull(rota_conf_queue_find(conf, names[i]));
	ck_assert_str_eq(rota_conf_queue_find(conf, "medium40")->name,
			 "medium40");
	rota_conf_destroy(conf);
}
END_TEST

/* Without Default=yes, the first queue is the default. */
START_TEST(test_first_queue_default)
{
	struct rota_conf *conf =
		load_ok("NodeName=a\nQueueName=one\nQueueName=two\n");

	ck_assert_str_eq(rota_conf_default_queue(conf)->name, "one");
	rota_conf_destroy(conf);
}
END_TEST

static const struct {
	const char *text;
	const char *error;
} bad[] = {
	{ "Bogus=1", "rota.conf:1: Bogus: unknown key" },
	{ "CtldPort=1\nCtldPort=2",
	  "rota.conf:2: CtldPort: given twice (first at rota.conf:1)" },
	{ "ctldport=1\n\nCTLDPORT=2",
	  "rota.conf:3: CtldPort: given twice (first at rota.conf:1)" },
	{ "KillWait=-3s", "rota.conf:1: KillWait: '-3s' is below 0" },
	{ "KillWait=2h", "rota.conf:1: KillWait: '2h' is above 1h" },
	{ "KillWait=30",
	  "rota.conf:1: KillWait: '30' has no unit (write 30s, 30m, 30h or "
	  "30d)" },
	{ "KillWait=soon", "rota.conf:1: KillWait: 'soon' is not a duration" },
	{ "HeartbeatInterval=0s",
	  "rota.conf:1: HeartbeatInterval: '0s' is below 1s" },
	{ "MinJobAge=UNLIMITED",
	  "rota.conf:1: MinJobAge: 'UNLIMITED' is above 30d" },
	{ "CtldPort=65536", "rota.conf:1: CtldPort: '65536' is above 65535" },
	{ "CtldPort=-1", "rota.conf:1: CtldPort: '-1' is below 0" },
	{ "CtldPort=abc", "rota.conf:1: CtldPort: 'abc' is not a number" },
	{ "CtldPort=0x10", "rota.conf:1: CtldPort: '0x10' is not a number" },
	{ "CtldPort=99999999999999999999",
	  "rota.conf:1: CtldPort: '99999999999999999999' is too large" },
	{ "MaxMessageSize=32K",
	  "rota.conf:1: MaxMessageSize: '32K' is below 64K" },
	{ "MaxMessageSize=2G",
	  "rota.conf:1: MaxMessageSize: '2G' is above 1G" },
	{ "LargeMemory=12Q", "rota.conf:1: LargeMemory: '12Q' is not a size" },
	{ "LargeMemory=-1G", "rota.conf:1: LargeMemory: '-1G' is below 1M" },
	{ "LogLevel=verbose",
	  "rota.conf:1: LogLevel: 'verbose' is not one of fatal, error, warn, "
	  "info, debug" },
	{ "StateDir=relative/x",
	  "rota.conf:1: StateDir: 'relative/x' is not an absolute path" },
	{ "ClusterName=a/b", "rota.conf:1: ClusterName: 'a/b' is not a valid "
			     "name" },
	{ "Operators=ana,,bob", "rota.conf:1: Operators: empty name in list" },
	{ "Operators=ana,", "rota.conf:1: Operators: empty name in list" },
	{ "just text", "rota.conf:1: line has no '='" },
	{ "# c\n/etc/rota.conf", "rota.conf:2: line has no '='" },
	{ "ClusterName=\"my cluster",
	  "rota.conf:1: ClusterName: unterminated quote" },
	{ "ClusterName=\"a\"b",
	  "rota.conf:1: ClusterName: text after closing quote" },
	{ "ClusterName=a\"b",
	  "rota.conf:1: ClusterName: stray quote in value" },
	{ "ClusterName=", "rota.conf:1: ClusterName: empty value" },
	{ "ClusterName=\"\"", "rota.conf:1: ClusterName: empty value" },
	{ "ClusterName=x CtldPort", "rota.conf:1: CtldPort: missing '='" },
	{ "=x", "rota.conf:1: missing key before '='" },
	{ "Cluster.Name=x",
	  "rota.conf:1: bad character in key 'Cluster.Name'" },
	{ "ClusterName=x NodeName=n1",
	  "rota.conf:1: NodeName: must start its line" },
	{ "ClusterName=a\x01", "rota.conf:1: control character 0x01 in line" },
	{ "ClusterName=a\rb", "rota.conf:1: control character 0x0d in line" },
	{ "Include", "rota.conf:1: Include: missing file name" },
	{ "Include a b", "rota.conf:1: Include: text after the file name" },
	{ "Include \"a", "rota.conf:1: Include: unterminated quote" },
	{ "NodeTimeout=10s\nHeartbeatInterval=30s",
	  "rota.conf:1: NodeTimeout: 10s is not above HeartbeatInterval 30s" },
	{ "HeartbeatInterval=1h",
	  "rota.conf:1: NodeTimeout: 5m is not above HeartbeatInterval 1h" },
	{ "NodeLease=295s",
	  "rota.conf:1: NodeLease: a node lease of 295s leaves less than 8s "
	  "of NodeTimeout 5m for the kill and clock drift" },
	{ "NodeLease=20s\nHeartbeatInterval=20s",
	  "rota.conf:1: NodeLease: a node lease of 20s is not above "
	  "HeartbeatInterval 20s (raise NodeTimeout, or set NodeLease=off)" },
	{ "NodeTimeout=4s\nHeartbeatInterval=2s",
	  "rota.conf:1: NodeTimeout: a node lease of 1s is not above "
	  "HeartbeatInterval 2s (raise NodeTimeout, or set NodeLease=off)" },
	{ "NodeLease=soon",
	  "rota.conf:1: NodeLease: 'soon' is not a duration" },
	/* nodes */
	{ "NodeName=n[1-2]\nNodeName=n2",
	  "rota.conf:2: NodeName: 'n2' already declared at rota.conf:1" },
	{ "NodeName=a,b,a",
	  "rota.conf:1: NodeName: 'a' already declared at rota.conf:1" },
	{ "NodeName=n[1-3] Addr=10.0.0.[1-2]",
	  "rota.conf:1: Addr: 2 addresses for 3 nodes" },
	{ "NodeName=n1 CPUs=0", "rota.conf:1: CPUs: '0' is below 1" },
	{ "NodeName=n1 CPUs=2 cpus=3",
	  "rota.conf:1: CPUs: given twice on this line" },
	{ "NodeName=n1 Bogus=1",
	  "rota.conf:1: Bogus: unknown key on a NodeName line" },
	{ "NodeName=n1 Default=yes",
	  "rota.conf:1: Default: unknown key on a NodeName line" },
	{ "NodeName=n1 Features=gpu,a:b",
	  "rota.conf:1: Features: 'a:b' is not a valid name" },
	{ "NodeName=n1 RealMemory=lots",
	  "rota.conf:1: RealMemory: 'lots' is not a size" },
	{ "NodeName=n1 Gres=gpu:v100:x",
	  "rota.conf:1: Gres: 'gpu:v100:x': count 'x' is not a number" },
	{ "NodeName=n1 Gres=gpu:0", "rota.conf:1: Gres: 'gpu:0': count must be 1 to 1000000" },
	{ "GresTypes=fpga\nNodeName=n1\nNodeName=n2 Gres=gpu:2,nvme:1",
	  "rota.conf:3: Gres: 'nvme' is not in GresTypes" },
	{ "NodeName=n[5-3]", "rota.conf:1: NodeName: reversed range '5-3'" },
	{ "NodeName=n[1-3", "rota.conf:1: NodeName: unbalanced '['" },
	{ "NodeName=n[1-65536]\nNodeName=m1",
	  "rota.conf:2: NodeName: more than 65536 nodes in all" },
	/* queues */
	{ "NodeName=n1\nQueueName=q Nodes=n2",
	  "rota.conf:2: Nodes: 'n2' is not a declared node" },
	{ "QueueName=q Nodes=n1\n# later\nNodeName=n2",
	  "rota.conf:1: Nodes: 'n1' is not a declared node" },
	{ "NodeName=n1\nQueueName=q Nodes=n1,n1",
	  "rota.conf:2: Nodes: 'n1' listed twice" },
	{ "NodeName=n1\nQueueName=a Default=yes\nQueueName=b Default=yes",
	  "rota.conf:3: Default: queue 'a' at rota.conf:2 is already the "
	  "default" },
	{ "QueueName=a DefaultTime=2:00:00 MaxTime=60",
	  "rota.conf:1: DefaultTime: 02:00:00 is above MaxTime 01:00:00" },
	{ "QueueName=a MaxTime=1h DefaultTime=UNLIMITED",
	  "rota.conf:1: DefaultTime: UNLIMITED is above MaxTime 01:00:00" },
	{ "QueueName=a\nQueueName=a",
	  "rota.conf:2: QueueName: 'a' already declared at rota.conf:1" },
	{ "QueueName=a Default=maybe",
	  "rota.conf:1: Default: 'maybe' is not yes or no" },
	{ "QueueName=a MaxTime=0", "rota.conf:1: MaxTime: '0' is below 1s" },
	{ "QueueName=a MaxTime=-5", "rota.conf:1: MaxTime: '-5' is below 1s" },
	{ "QueueName=a PriorityTier=65536",
	  "rota.conf:1: PriorityTier: '65536' is above 65535" },
	{ "QueueName=a b", "rota.conf:1: b: missing '='" },
	{ "QueueName=\"a b\"", "rota.conf:1: QueueName: 'a b' is not a valid "
			       "queue name (no space, '=', ',', '#' or '\"')" },
	{ "QueueName=a,b", "rota.conf:1: QueueName: 'a,b' is not a valid "
			   "queue name (no space, '=', ',', '#' or '\"')" },
	{ "QueueName=\"a=b\"", "rota.conf:1: QueueName: 'a=b' is not a valid "
			       "queue name (no space, '=', ',', '#' or '\"')" },
	{ "QueueName=a Nodes=n[1-2", "rota.conf:1: Nodes: unbalanced '['" },
	{ "QueueName=a Charge=sometimes",
	  "rota.conf:1: Charge: 'sometimes' is not yes or no" },
	/* the account tree */
	{ "AccountName=a Parent=b\nAccountName=b Parent=a",
	  "rota.conf:1: Parent: account 'a' is its own ancestor (a cycle)" },
	{ "AccountName=a Parent=a",
	  "rota.conf:1: Parent: account 'a' is its own ancestor (a cycle)" },
	{ "AccountName=a\nAccountName=b Parent=nope",
	  "rota.conf:2: Parent: 'nope' is not a declared account" },
	{ "AccountName=a Shares=-5", "rota.conf:1: Shares: '-5' is below 0" },
	{ "AccountName=a Shares=1000000001",
	  "rota.conf:1: Shares: '1000000001' is above 1000000000" },
	{ "AccountName=a Shares=x", "rota.conf:1: Shares: 'x' is not a number" },
	{ "AccountName=a FShares=-1", "rota.conf:1: FShares: '-1' is below 0" },
	{ "AccountName=a OTickets=1000000001",
	  "rota.conf:1: OTickets: '1000000001' is above 1000000000" },
	{ "AccountName=a\nAccountName=a",
	  "rota.conf:2: AccountName: 'a' already declared at rota.conf:1" },
	{ "AccountName=root",
	  "rota.conf:1: AccountName: 'root' is the implicit top of the tree" },
	{ "AccountName=a Bogus=1",
	  "rota.conf:1: Bogus: unknown key on a AccountName line" },
	{ "UserName=ana", "rota.conf:1: UserName: 'ana' is in no account: add "
			  "Account=NAME" },
	{ "UserName=ana Account=nope",
	  "rota.conf:1: Account: 'nope' is not a declared account" },
	/* Grid Engine's departments */
	{ "DepartmentName=d1 Users=ana\nDepartmentName=d2 Users=bob,ana",
	  "rota.conf:2: Users: user 'ana' is already in department 'd1' at "
	  "rota.conf:1" },
	{ "DepartmentName=d1 Users=ana,ana",
	  "rota.conf:1: Users: user 'ana' is already in department 'd1' at "
	  "rota.conf:1" },
	{ "DepartmentName=d1\nDepartmentName=d1",
	  "rota.conf:2: DepartmentName: 'd1' already declared at rota.conf:1" },
	{ "DepartmentName=d1 FShares=-3",
	  "rota.conf:1: FShares: '-3' is below 0" },
	{ "DepartmentName=d1 OTickets=1000000001",
	  "rota.conf:1: OTickets: '1000000001' is above 1000000000" },
	{ "DepartmentName=d1 Users=a/b",
	  "rota.conf:1: Users: 'a/b' is not a valid name" },
	{ "DepartmentName=d1 Shares=3",
	  "rota.conf:1: Shares: unknown key on a DepartmentName line" },
	{ "ClusterName=x DepartmentName=d1",
	  "rota.conf:1: DepartmentName: must start its line" },
	{ "UserName=ana Account=a Shares=-1",
	  "rota.conf:1: Shares: '-1' is below 0" },
	{ "AccountName=a\nUserName=ana Account=a\nUserName=ana Account=a",
	  "rota.conf:3: Account: user 'ana' is already in 'a' at rota.conf:2" },
	{ "AccountName=a\nAccountName=b\nUserName=ana Account=a Default=yes\n"
	  "UserName=ana Account=b Default=yes",
	  "rota.conf:4: Default: user 'ana' already defaults to 'a' at "
	  "rota.conf:3" },
	{ "ClusterName=x UserName=ana",
	  "rota.conf:1: UserName: must start its line" },
	{ "UsageHalfLife=0s", "rota.conf:1: UsageHalfLife: '0s' is below 1s" },
	{ "UsageHalfLife=0", "rota.conf:1: UsageHalfLife: '0' has no unit "
			     "(write 0s, 0m, 0h or 0d)" },
	{ "UsageDecay=linear", "rota.conf:1: UsageDecay: 'linear' is not "
			       "exponential or halving" },
	{ "UsageMemWeight=-1", "rota.conf:1: UsageMemWeight: '-1' is below 0" },
	{ "UsageMemWeight=abc",
	  "rota.conf:1: UsageMemWeight: 'abc' is not a number" },
	/* limits */
	{ "UserName=ana Account=root MaxPS=100 MaxPSHard=50",
	  "rota.conf:1: MaxPS: 100 is above MaxPSHard 50" },
	{ "AccountName=a MaxJobs=-1",
	  "rota.conf:1: MaxJobs: '-1' is not a whole number from 0 (or "
	  "UNLIMITED)" },
	{ "AccountName=a MaxTRES=gpu=2",
	  "rota.conf:1: MaxTRES: unknown resource 'gpu' (cpu, mem, node, gres/gpu)" },
	{ "AccountName=a MaxTRES=cpu",
	  "rota.conf:1: MaxTRES: 'cpu' is not resource=value" },
	{ "AccountName=a MaxTRES=cpu=-4",
	  "rota.conf:1: MaxTRES: cpu: '-4' is not a whole number" },
	{ "AccountName=a GrpTRESRunMins=mem=5",
	  "rota.conf:1: GrpTRESRunMins: unknown resource 'mem' (cpu)" },
	{ "AccountName=a GrpTRES=gres/gpu=x",
	  "rota.conf:1: GrpTRES: gres/gpu: 'x' is not a whole number" },
	{ "QOSName=q MaxTRESPerUser=licenses=2",
	  "rota.conf:1: MaxTRESPerUser: unknown resource 'licenses' (cpu, "
	  "mem, node, gres/gpu)" },
	{ "AccountName=a MaxTRESPerUser=gres/gpu=2",
	  "rota.conf:1: MaxTRESPerUser: unknown key on a AccountName line" },
	{ "QOSName=q MaxWall=-5", "rota.conf:1: MaxWall: '-5' is negative" },
	{ "QOSName=q MaxIdle=lots",
	  "rota.conf:1: MaxIdle: 'lots' is not a whole number from 0 (or "
	  "UNLIMITED)" },
	/* plugin lines */
	{ "Fairshare=ratio\nFairshare=classic",
	  "rota.conf:2: Fairshare: 'classic', but 'ratio' was chosen at "
	  "rota.conf:1" },
	{ "Fairshare=ratio A=1\nFairshare=ratio a=2",
	  "rota.conf:2: a: given twice (first at rota.conf:1)" },
	{ "Fairshare=ratio Priority=fifo",
	  "rota.conf:1: Priority: must start its own line" },
	{ "Fairshare=a/b", "rota.conf:1: Fairshare: 'a/b' is not a valid name" },
	{ "ClusterName=x Fairshare=ratio",
	  "rota.conf:1: Fairshare: must start its line" },
};

START_TEST(test_bad)
{
	struct rota_conf *conf = (struct rota_conf *)&conf;
	struct rota_error err = { "" };
	int rc = rota_conf_load_buffer("rota.conf", bad[_i].text,
				       strlen(bad[_i].text), &conf, &err);

	ck_assert_int_eq(rc, -EINVAL);
	ck_assert_ptr_null(conf);
	ck_assert_str_eq(err.text, bad[_i].error);
}
END_TEST

/* The tree as written, parents given later, defaults applied. */
START_TEST(test_accounts)
{
	struct rota_conf *conf = load_ok(
		"AccountName=theory Parent=physics Shares=10\n"
		"AccountName=physics Shares=40 FShares=25 OTickets=600\n"
		"AccountName=chem\n"
		"UserName=ana Account=theory Shares=3 FShares=10\n"
		"UserName=ana Account=chem OTickets=400\n"
		"UserName=bob Account=chem Default=yes\n"
		"UserName=bob Account=root\n"
		"QueueName=qexp Charge=no\nQueueName=qprod\n"
		"UsageHalfLife=168h UsageDecay=halving UsageMemWeight=0.25\n");

	ck_assert_uint_eq(conf->naccounts, 3);
	ck_assert_str_eq(conf->accounts[0].parent, "physics");
	ck_assert_uint_eq(conf->accounts[0].shares, 10);
	ck_assert_str_eq(conf->accounts[2].parent, "root");
	ck_assert_uint_eq(conf->accounts[2].shares, 1);
	ck_assert_uint_eq(conf->nusers, 4);
	ck_assert(conf->users[0].is_default);	/* ana: her first line */
	ck_assert(!conf->users[1].is_default);
	ck_assert(conf->users[2].is_default);	/* bob: marked */
	ck_assert(!conf->users[3].is_default);
	ck_assert_uint_eq(conf->users[1].shares, 1);
	/* Grid Engine's fshare and oticket, 0 unless given */
	ck_assert_uint_eq(conf->accounts[1].fshares, 25);
	ck_assert_uint_eq(conf->accounts[1].otickets, 600);
	ck_assert_uint_eq(conf->accounts[2].fshares, 0);
	ck_assert_uint_eq(conf->users[0].fshares, 10);
	ck_assert_uint_eq(conf->users[0].otickets, 0);
	ck_assert_uint_eq(conf->users[1].otickets, 400);
	ck_assert(!conf->queues[0].charge);
	ck_assert(conf->queues[1].charge);
	ck_assert_int_eq(conf->usage_half_life, 168 * 3600);
	ck_assert_int_eq(conf->usage_decay, ROTA_DECAY_HALVING);
	ck_assert(conf->usage_mem_weight == 0.25);
	ck_assert_ptr_nonnull(rota_conf_account_find(conf, "chem"));
	ck_assert_ptr_null(rota_conf_account_find(conf, "root"));
	rota_conf_destroy(conf);
}
END_TEST

/* Departments: users in one each; defaultdepartment may be given values. */
START_TEST(test_departments)
{
	struct rota_conf *conf = load_ok(
		"DepartmentName=deptA Users=oracle1,oracle2 FShares=30\n"
		"departmentname=deptB users=oracle3 FShares=70 OTickets=5\n"
		"DepartmentName=defaultdepartment FShares=2\n");

	ck_assert_uint_eq(conf->ndepartments, 3);
	ck_assert_str_eq(conf->departments[0].name, "deptA");
	ck_assert_str_eq(conf->departments[0].users[1], "oracle2");
	ck_assert_ptr_null(conf->departments[0].users[2]);
	ck_assert_uint_eq(conf->departments[0].otickets, 0);
	ck_assert_uint_eq(conf->departments[1].otickets, 5);
	ck_assert_ptr_null(conf->departments[2].users[0]);
	ck_assert_str_eq(rota_conf_department_of(conf, "oracle3")->name,
			 "deptB");
	ck_assert_ptr_null(rota_conf_department_of(conf, "rotatest1"));
	rota_conf_destroy(conf);
}
END_TEST

/* Limit keys on the three kinds of lines; unset ones are -1. */
START_TEST(test_limits)
{
	struct rota_conf *conf = load_ok(
		"AccountName=physics MaxJobs=10 MaxTRES=cpu=64,mem=2G,node=4 "
		"GrpTRESRunMins=cpu=100000\n"
		"UserName=ana Account=physics MaxIdle=8 MaxPS=72000 "
		"MaxPSHard=1080000 MaxWall=5-00:00:00\n"
		"QOSName=long MaxWall=14-00:00:00 MaxSubmitJobs=UNLIMITED "
		"Allocation=5000 GrpTRES=node=8,gres/gpu=16 "
		"MaxTRESPerUser=gres/gpu=8,mem=64G MaxTRESPerAccount=cpu=512\n"
		"AccountName=chem GrpTRES=cpu=100,mem=1T\n");
	const struct rota_conf_limits *a = &conf->accounts[0].limits;
	const struct rota_conf_limits *u = &conf->users[0].limits;
	const struct rota_conf_limits *q = &conf->qos[0].limits;

	ck_assert_int_eq(a->max_jobs, 10);
	ck_assert_int_eq(a->max_cpus, 64);
	ck_assert_int_eq(a->max_mem, 2048);
	ck_assert_int_eq(a->max_nodes, 4);
	ck_assert_int_eq(a->cpu_run_mins, 100000);
	ck_assert_int_eq(a->max_idle, -1);
	ck_assert_int_eq(u->max_idle, 8);
	ck_assert_int_eq(u->max_ps, 72000);
	ck_assert_int_eq(u->max_ps_hard, 1080000);
	ck_assert_int_eq(u->max_wall, 5 * 86400);
	ck_assert_int_eq(u->max_jobs, -1);
	ck_assert_int_eq(q->max_wall, 14 * 86400);
	ck_assert_int_eq(q->max_submit, -1);
	ck_assert_int_eq(q->allocation, 5000);
	ck_assert_int_eq(q->grp.node, 8);
	ck_assert_int_eq(q->grp.gpu, 16);
	ck_assert_int_eq(q->grp.cpu, -1);
	ck_assert_int_eq(q->per_user.gpu, 8);
	ck_assert_int_eq(q->per_user.mem, 65536);
	ck_assert_int_eq(q->per_account.cpu, 512);
	ck_assert_int_eq(q->per_account.gpu, -1);
	ck_assert_int_eq(a->grp.cpu, -1);
	ck_assert_int_eq(a->per_user.gpu, -1);
	ck_assert_int_eq(conf->accounts[1].limits.grp.cpu, 100);
	ck_assert_int_eq(conf->accounts[1].limits.grp.mem, 1024 * 1024);
	rota_conf_destroy(conf);
}
END_TEST

/* Plugin lines keep their settings as text, over several lines. */
START_TEST(test_sections)
{
	struct rota_conf *conf = load_ok(
		"Fairshare=ratio MaxFairshare=1e6\n"
		"JobComp=file Path=/var/log/rota/jobs.json\n"
		"fairshare=ratio Flux=no\n"
		"JobComp=http URL=\"http://x:9200/rota/_doc\"\n");
	const struct rota_conf_section *fs =
		rota_conf_section_find(conf, "FAIRSHARE");

	ck_assert_uint_eq(conf->nsections, 3);
	ck_assert_ptr_nonnull(fs);
	ck_assert_str_eq(fs->kind, "Fairshare");
	ck_assert_str_eq(fs->name, "ratio");
	ck_assert_uint_eq(fs->nsettings, 2);
	ck_assert_str_eq(fs->settings[1].key, "Flux");
	ck_assert_uint_eq(fs->settings[1].line, 3);
	ck_assert_str_eq(conf->sections[2].name, "http");
	ck_assert_str_eq(conf->sections[2].settings[0].value,
			 "http://x:9200/rota/_doc");
	ck_assert_ptr_null(rota_conf_section_find(conf, "Priority"));
	rota_conf_destroy(conf);
}
END_TEST

/* Queue memberships are bounded, Nodes=ALL included. */
START_TEST(test_members_bound)
{
	struct rota_conf *conf = NULL;
	struct rota_error err = { "" };
	size_t len = 0;
	char *text = rota_xmalloc(64 * 1024);

	len += (size_t)sprintf(text, "NodeName=n[1-65536]\n");
	/* 16 x 64K is the limit: the 17th queue, on line 18, is too many. */
	for (int i = 0; i < 17; i++)
		len += (size_t)sprintf(text + len, "QueueName=q%d\n", i);
	ck_assert_int_eq(rota_conf_load_buffer("m.conf", text, len, &conf,
					       &err),
			 -EINVAL);
	ck_assert_ptr_null(conf);
	ck_assert_str_eq(err.text,
			 "m.conf:18: Nodes: more than 1048576 queue nodes in all");

	len = (size_t)sprintf(text, "NodeName=n[1-65536]\n");
	for (int i = 0; i < 17; i++)
		len += (size_t)sprintf(text + len,
				       "QueueName=q%d Nodes=n[1-65536]\n", i);
	ck_assert_int_eq(rota_conf_load_buffer("m.conf", text, len, &conf,
					       &err),
			 -EINVAL);
	ck_assert_str_eq(err.text,
			 "m.conf:18: Nodes: more than 1048576 queue nodes in all");
	free(text);
}
END_TEST

START_TEST(test_nul_and_long_lines)
{
	static const char nul[] = "ClusterName=a\nCtldPort=1\0 2\n";
	struct rota_conf *conf = NULL;
	struct rota_error err = { "" };
	char *text = rota_xmalloc(5000);
	int rc;

	rc = rota_conf_load_buffer("x.conf", nul, sizeof(nul) - 1, &conf, &err);
	ck_assert_int_eq(rc, -EINVAL);
	ck_assert_str_eq(err.text, "x.conf:2: NUL byte in line");

	/* A 4096-byte line is fine, 4097 is not. */
	memset(text, ' ', 4096);
	memcpy(text, "ClusterName=a", 13);
	text[4096] = '\n';
	ck_assert_int_eq(rota_conf_load_buffer("x.conf", text, 4097, &conf,
					       &err),
			 0);
	rota_conf_destroy(conf);
	text[4096] = ' ';
	text[4097] = '\n';
	rc = rota_conf_load_buffer("x.conf", text, 4098, &conf, &err);
	ck_assert_int_eq(rc, -EINVAL);
	ck_assert_ptr_null(conf);
	ck_assert_str_eq(err.text, "x.conf:1: line longer than 4096 bytes");
	free(text);
}
END_TEST

START_TEST(test_include)
{
	struct rota_conf *conf = NULL;
	struct rota_error err = { "" };
	char *top = put("rota.conf", "ClusterName=inc\n"
				     "include sub/nodes.conf # relative\n"
				     "Include \"sub/my queues.conf\"\n");
	char *nodes = put("sub/nodes.conf", "NodeName=n[1-2]\n"
					    "Include more.conf\n");
	char *more = put("sub/more.conf", "\n\nNodeName=m1\n");
	char *queues = put("sub/my queues.conf", "QueueName=q Nodes=n1,m1\n");

	ck_assert_msg(rota_conf_load(top, &conf, &err) == 0, "%s", err.text);
	ck_assert_str_eq(conf->path, top);
	ck_assert_str_eq(conf->cluster_name, "inc");
	ck_assert_uint_eq(conf->nnodes, 3);
	ck_assert_str_eq(conf->nodes[0].file, nodes);
	ck_assert_uint_eq(conf->nodes[0].line, 1);
	ck_assert_str_eq(conf->nodes[2].file, more);
	ck_assert_uint_eq(conf->nodes[2].line, 3);
	ck_assert_str_eq(conf->queues[0].file, queues);
	ck_assert_uint_eq(conf->queues[0].nnodes, 2);
	rota_conf_destroy(conf);

	/* A buffer includes relative to its name's folder. */
	conf = NULL;
	ck_assert_int_eq(rota_conf_load_buffer(top, "Include sub/more.conf\n",
					       22, &conf, &err),
			 0);
	ck_assert_uint_eq(conf->nnodes, 1);
	rota_conf_destroy(conf);
	free(top);
	free(nodes);
	free(more);
	free(queues);
}
END_TEST

static void expect_fail(const char *path, int code, const char *error)
{
	struct rota_conf *conf = (struct rota_conf *)&conf;
	struct rota_error err = { "" };

	ck_assert_int_eq(rota_conf_load(path, &conf, &err), code);
	ck_assert_ptr_null(conf);
	ck_assert_str_eq(err.text, error);
}

START_TEST(test_include_missing)
{
	char *top = put("rota.conf", "NodeName=a\n\nInclude nope.conf\n");
	char *want = rota_xasprintf(
		"%s:3: Include: cannot read '%s/nope.conf': No such file or directory",
		top, dir);
	char *none = rota_xasprintf("%s/none.conf", dir);
	char *want2 = rota_xasprintf("%s: No such file or directory", none);
	char *want3 = rota_xasprintf("%s: not a regular file", dir);

	expect_fail(top, -ENOENT, want);
	expect_fail(none, -ENOENT, want2);
	expect_fail(dir, -EINVAL, want3);
	free(top);
	free(want);
	free(none);
	free(want2);
	free(want3);
}
END_TEST

START_TEST(test_include_cycle)
{
	char *a = put("a.conf", "ClusterName=a\nInclude b.conf\n");
	char *b = put("b.conf", "Include a.conf\n");
	char *self = put("self.conf", "Include ./self.conf\n");
	char *want = rota_xasprintf("%s:1: Include: cycle through '%s'", b, a);
	char *want2 = rota_xasprintf("%s:1: Include: cycle through '%s/./"
				     "self.conf'",
				     self, dir);

	expect_fail(a, -ELOOP, want);
	expect_fail(self, -ELOOP, want2);
	free(a);
	free(b);
	free(self);
	free(want);
	free(want2);
}
END_TEST

START_TEST(test_include_depth)
{
	char name[32];
	char text[64];
	char *path;
	char *top;
	char *want;
	struct rota_conf *conf = NULL;
	struct rota_error err = { "" };

	/* f0 includes f1 ... f8 includes f9: f9 is 9 levels deep. */
	for (int i = 0; i <= 9; i++) {
		snprintf(name, sizeof(name), "f%d.conf", i);
		snprintf(text, sizeof(text), "Include f%d.conf\n", i + 1);
		free(put(name, i == 9 ? "NodeName=deep\n" : text));
	}
	top = rota_xasprintf("%s/f0.conf", dir);
	path = rota_xasprintf("%s/f8.conf", dir);
	want = rota_xasprintf("%s:1: Include: nested deeper than 8 levels",
			      path);
	expect_fail(top, -ELOOP, want);
	free(path);
	free(want);
	free(top);

	/* From f1, f9 is 8 levels deep: allowed. */
	top = rota_xasprintf("%s/f1.conf", dir);
	ck_assert_msg(rota_conf_load(top, &conf, &err) == 0, "%s", err.text);
	ck_assert_str_eq(conf->nodes[0].name, "deep");
	rota_conf_destroy(conf);
	free(top);
}
END_TEST

/* Garbage made from a good file must give an error or a conf, no crash. */
START_TEST(test_mutations)
{
	static const char alphabet[] = "=\"#,[]-: \n\t0\r\x01ANx";
	size_t len = sizeof(full) - 1;
	char *text = rota_xmalloc(len);
	unsigned seed = 42;

	for (int round = 0; round < 3000; round++) {
		struct rota_conf *conf = NULL;
		struct rota_error err = { "" };
		int rc;

		memcpy(text, full, len);
		for (int k = 0; k < 1 + round % 8; k++) {
			size_t at = (size_t)rand_r(&seed) % len;
			size_t c = (size_t)rand_r(&seed) % (sizeof(alphabet) - 1);

			text[at] = alphabet[c];
		}
		rc = rota_conf_load_buffer("fuzz.conf", text,
					   (size_t)rand_r(&seed) % (len + 1),
					   &conf, &err);
		ck_assert(rc == 0 || rc == -EINVAL);
		ck_assert(rc == 0 ? conf != NULL
				  : conf == NULL && err.text[0] != '\0');
		rota_conf_destroy(conf);
	}
	free(text);
}
END_TEST

static Suite *conf_suite(void)
{
	Suite *s = suite_create("conf");
	TCase *tc = tcase_create("buffer");
	TCase *files = tcase_create("files");

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_full);
	tcase_add_test(tc, test_first_queue_default);
	tcase_add_test(tc, test_queue_name_chars);
	tcase_add_loop_test(tc, test_bad, 0, N(bad));
	tcase_add_test(tc, test_accounts);
	tcase_add_test(tc, test_departments);
	tcase_add_test(tc, test_sections);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_nul_and_long_lines);
	tcase_add_test(tc, test_members_bound);
	tcase_add_test(tc, test_mutations);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(files, dir_setup, dir_teardown);
	tcase_add_test(files, test_include);
	tcase_add_test(files, test_include_missing);
	tcase_add_test(files, test_include_cycle);
	tcase_add_test(files, test_include_depth);
	suite_add_tcase(s, files);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(conf_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}
