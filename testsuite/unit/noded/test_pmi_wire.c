// SPDX-License-Identifier: MIT
/*
 * noded/pmi_wire.c through wireup.h: the test plays the tasks (it holds the
 * task ends of the socketpairs task_env makes) and the step supervisor (a
 * fake wireup_ops whose allgather() records this node's blob; the test
 * makes up the other node's and calls done()).  The server runs on a real
 * loop, pumped one pass at a time; nothing sleeps.
 */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/evloop.h"
#include "common/strbuf.h"
#include "noded/wireup.h"

#define MAXC 16

/* The step: node 1 of 2, ranks 0,1 on node 0 and 2,3 here (or per test). */
static uint32_t count[4] = { 2, 2 };
static uint32_t first[4] = { 0, 2 };
static uint32_t ranks[16] = { 0, 1, 2, 3 };
static const char *names[4] = { "n0", "n1", "n2", "n3" };
static struct wireup_step step;

static struct rota_evloop *loop;
static struct wireup_server *srv;
static int fds[MAXC];		/* the tasks' ends, by local index */
static char *gathered;		/* this node's last blob */
static size_t gathered_len;
static int ngathers;
static int gather_rc;		/* what allgather() returns */
static char complaints[4096];	/* the lines, one per line */

static int fake_allgather(void *ctx, const void *blob, size_t len)
{
	(void)ctx;
	ngathers++;
	free(gathered);
	gathered = malloc(len + 1);
	memcpy(gathered, blob, len);
	gathered_len = len;
	return gather_rc;
}

static void fake_complain(void *ctx, const char *line)
{
	(void)ctx;
	ck_assert_ptr_null(strchr(line, '\n'));
	strncat(complaints, line, sizeof(complaints) - strlen(complaints) - 2);
	strcat(complaints, "\n");
}

static const struct wireup_ops ops = {
	.allgather = fake_allgather,
	.complain = fake_complain,
};

static void stop_cb(struct rota_evloop *l, void *arg)
{
	(void)arg;
	rota_evloop_stop(l);
}

/* One pass of the loop: what is ready now is handled. */
static void pump(void)
{
	rota_evloop_add_timer(loop, 0, false, stop_cb, NULL);
	rota_evloop_run(loop);
}

static void start_step(uint32_t nnodes, uint32_t node_id, uint32_t ntasks)
{
	char err[160] = "";
	char **env;
	int fd;

	step = (struct wireup_step){
		.job_id = 42, .step_id = 3, .ntasks = ntasks,
		.nnodes = nnodes, .node_id = node_id, .nodes = names,
		.count = count, .first = first, .ranks = ranks,
		.ncpus_per_task = 1, .tmpdir = "/tmp",
	};
	loop = rota_evloop_create();
	ck_assert_int_eq(wireup_pmi.create(loop, &step, &ops, &srv, err,
					   sizeof(err)), 0);
	for (uint32_t i = 0; i < count[node_id]; i++) {
		uint32_t rank = ranks[first[node_id] + i];

		ck_assert_int_eq(wireup_pmi.task_env(srv, rank, &env, &fd, err,
						     sizeof(err)), 0);
		ck_assert_ptr_nonnull(env);
		ck_assert_int_ge(fd, 0);
		/* the test keeps the task's end, as the forked task would */
		fds[i] = dup(fd);
		wireup_pmi.task_started(srv, rank, 4242);
	}
}

static void setup(void)
{
	/* the default step again (tests run unforked under valgrind) */
	memset(count, 0, sizeof(count));
	count[0] = count[1] = 2;
	first[0] = 0, first[1] = 2;
	for (uint32_t i = 0; i < 16; i++)
		ranks[i] = i;
	complaints[0] = '\0';
	ngathers = 0;
	gather_rc = 0;
	start_step(2, 1, 4);
}

static void teardown(void)
{
	wireup_pmi.destroy(srv);
	rota_evloop_destroy(loop);
	for (uint32_t i = 0; i < count[step.node_id]; i++)
		close(fds[i]);
	free(gathered);
	gathered = NULL;
}

static void send_raw(int i, const char *buf, size_t len)
{
	ck_assert_int_eq(write(fds[i], buf, len), (ssize_t)len);
	pump();
}

static void send1(int i, const char *line)
{
	send_raw(i, line, strlen(line));
}

/* A PMI-2 message with its length field. */
static void send2(int i, const char *body)
{
	char buf[1024];
	int n = snprintf(buf, sizeof(buf), "%-6zu%s", strlen(body), body);

	send_raw(i, buf, (size_t)n);
}

static bool readable(int i)
{
	struct pollfd p = { .fd = fds[i], .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

/* What the server sent task i, pumping until it said something. */
static const char *recv_any(int i)
{
	static char buf[8192];
	ssize_t n;

	for (int pass = 0; pass < 50 && !readable(i); pass++)
		pump();
	if (!readable(i))
		return "(nothing)";
	n = read(fds[i], buf, sizeof(buf) - 1);
	if (n <= 0)
		return "(closed)";
	buf[n] = '\0';
	return buf;
}

static void expect(int i, const char *want)
{
	ck_assert_str_eq(recv_any(i), want);
}

static void expect_silent(int i)
{
	pump();
	ck_assert(!readable(i));
}

/* node 0's blob, made up, then ours: the layout of wireup.h */
static void finish_gather(const char *other, size_t other_len)
{
	struct rota_strbuf all = { 0 };
	uint32_t be = htonl((uint32_t)other_len);

	rota_strbuf_add(&all, (const char *)&be, 4);
	rota_strbuf_add(&all, other, other_len);
	be = htonl((uint32_t)gathered_len);
	rota_strbuf_add(&all, (const char *)&be, 4);
	rota_strbuf_add(&all, gathered, gathered_len);
	wireup_pmi.done(srv, all.data, all.len);
	rota_strbuf_fini(&all);
}

static void init1(int i)
{
	send1(i, "cmd=init pmi_version=1 pmi_subversion=1\n");
	expect(i, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
}

static void init2(int i, const char *rank)
{
	char body[128];
	char want[256];

	send1(i, "cmd=init pmi_version=2 pmi_subversion=0\n");
	expect(i, "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n");
	snprintf(body, sizeof(body),
		 "cmd=fullinit;pmijobid=rota.42.3;pmirank=%s;threaded=FALSE;",
		 rank);
	send2(i, body);
	snprintf(want, sizeof(want),
		 "113   cmd=fullinit-response;rc=0;pmi-version=2;"
		 "pmi-subversion=0;rank=%s;size=4;appnum=0;debugged=FALSE;"
		 "pmiverbose=FALSE;",
		 rank);
	expect(i, want);
}

START_TEST(test_env)
{
	char err[160] = "";
	char **env;
	int fd;

	/* the tasks of node 0 are not this node's */
	ck_assert_int_eq(wireup_pmi.task_env(srv, 0, &env, &fd, err,
					     sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "pmi: rank 0: not a new task here");
	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(wireup_pmi.task_env(srv, 2, &env, &fd, err,
					     sizeof(err)), -EINVAL);
}
END_TEST

START_TEST(test_env_vars)
{
	char err[160] = "";
	char **env;
	int fd;
	char want[32];

	wireup_pmi.destroy(srv);
	ck_assert_int_eq(wireup_pmi.create(loop, &step, &ops, &srv, err,
					   sizeof(err)), 0);
	ck_assert_int_eq(wireup_pmi.task_env(srv, 3, &env, &fd, err,
					     sizeof(err)), 0);
	snprintf(want, sizeof(want), "PMI_FD=%d", fd);
	ck_assert_str_eq(env[0], want);
	ck_assert_str_eq(env[1], "PMI_RANK=3");
	ck_assert_str_eq(env[2], "PMI_SIZE=4");
	ck_assert_str_eq(env[3], "PMI_JOBID=rota.42.3");
	ck_assert_str_eq(env[4], "PMI_SPAWNED=0");
	ck_assert_ptr_null(env[5]);
	wireup_pmi.task_started(srv, 3, 4242);
	/* the parent's copy of the task's end is closed */
	ck_assert_int_eq(close(fd), -1);
}
END_TEST

START_TEST(test_v1_fence)
{
	static const char other[] = "k0\0v0\0shared\0from-0\0";

	init1(0);
	init1(1);
	send1(0, "cmd=get_maxes\n");
	expect(0, "cmd=maxes kvsname_max=64 keylen_max=64 vallen_max=1024\n");
	send1(0, "cmd=get_appnum\n");
	expect(0, "cmd=appnum appnum=0\n");
	send1(0, "cmd=get_universe_size\n");
	expect(0, "cmd=universe_size size=4\n");
	send1(0, "cmd=get_my_kvsname\n");
	expect(0, "cmd=my_kvsname kvsname=rota.42.3\n");
	send1(0, "cmd=get kvsname=rota.42.3 key=PMI_process_mapping\n");
	expect(0, "cmd=get_result rc=0 msg=success value=(vector,(0,2,2))\n");
	send1(0, "cmd=put kvsname=rota.42.3 key=k2 value=v2\n");
	expect(0, "cmd=put_result rc=0 msg=success\n");
	send1(1, "cmd=put kvsname=rota.42.3 key=k3 value=v3\n");
	expect(1, "cmd=put_result rc=0 msg=success\n");
	/* before the fence: the node's own puts only */
	send1(0, "cmd=get kvsname=rota.42.3 key=k0\n");
	expect(0, "cmd=get_result rc=-1 msg=key_not_found\n");
	send1(1, "cmd=get kvsname=rota.42.3 key=k2\n");
	expect(1, "cmd=get_result rc=0 msg=success value=v2\n");

	send1(0, "cmd=barrier_in\n");
	expect_silent(0);
	ck_assert_int_eq(ngathers, 0);
	send1(1, "cmd=barrier_in\n");
	ck_assert_int_eq(ngathers, 1);
	ck_assert_int_eq(gathered_len, 12);
	ck_assert_mem_eq(gathered, "k2\0v2\0k3\0v3\0", 12);
	expect_silent(1);
	finish_gather(other, sizeof(other) - 1);
	expect(0, "cmd=barrier_out rc=0\n");
	expect(1, "cmd=barrier_out rc=0\n");
	send1(1, "cmd=get kvsname=rota.42.3 key=k0\n");
	expect(1, "cmd=get_result rc=0 msg=success value=v0\n");
	send1(0, "cmd=get kvsname=rota.42.3 key=shared\n");
	expect(0, "cmd=get_result rc=0 msg=success value=from-0\n");
	send1(0, "cmd=get kvsname=other key=k0\n");
	expect(0, "cmd=get_result rc=-1 msg=key_not_found\n");

	/* the next fence carries only what came since */
	send1(0, "cmd=put kvsname=rota.42.3 key=k4 value=v4\n");
	expect(0, "cmd=put_result rc=0 msg=success\n");
	send1(0, "cmd=barrier_in\n");
	send1(1, "cmd=barrier_in\n");
	ck_assert_int_eq(ngathers, 2);
	ck_assert_mem_eq(gathered, "k4\0v4\0", 6);
	finish_gather("", 0);
	expect(0, "cmd=barrier_out rc=0\n");
	expect(1, "cmd=barrier_out rc=0\n");
	send1(0, "cmd=finalize\n");
	expect(0, "cmd=finalize_ack\n");
	send1(1, "cmd=finalize\n");
	expect(1, "cmd=finalize_ack\n");
	close(fds[0]);
	fds[0] = dup(fds[1]);
	pump();
	ck_assert_str_eq(complaints, "");
}
END_TEST

START_TEST(test_v2_fence)
{
	static const char other[] = "k0\0v;0\0";

	init2(0, "2");
	init2(1, "3");
	send2(0, "cmd=job-getid;");
	expect(0, "44    cmd=job-getid-response;rc=0;jobid=rota.42.3;");
	send2(0, "cmd=info-getjobattr;key=PMI_process_mapping;");
	expect(0, "68    cmd=info-getjobattr-response;rc=0;found=TRUE;"
		  "value=(vector,(0,2,2));");
	send2(1, "cmd=info-getjobattr;key=universeSize;");
	expect(1, "53    cmd=info-getjobattr-response;rc=0;found=TRUE;"
		  "value=4;");
	send2(1, "cmd=info-getjobattr;key=nothing;");
	expect(1, "46    cmd=info-getjobattr-response;rc=0;found=FALSE;");
	/* ';' in a value is doubled on the wire both ways */
	send2(0, "cmd=kvs-put;key=k2;value=a;;b;");
	expect(0, "26    cmd=kvs-put-response;rc=0;");
	send2(0, "cmd=kvs-fence;thrid=0x55aa;");
	expect_silent(0);
	send2(1, "cmd=kvs-fence;");
	ck_assert_int_eq(ngathers, 1);
	ck_assert_mem_eq(gathered, "k2\0a;b\0", 7);
	finish_gather(other, sizeof(other) - 1);
	expect(0, "41    cmd=kvs-fence-response;rc=0;thrid=0x55aa;");
	expect(1, "28    cmd=kvs-fence-response;rc=0;");
	send2(1, "cmd=kvs-get;jobid=rota.42.3;srcid=-1;key=k0;");
	expect(1, "48    cmd=kvs-get-response;rc=0;found=TRUE;value=v;;0;");
	send2(1, "cmd=kvs-get;jobid=rota.42.3;srcid=-1;key=k2;");
	expect(1, "48    cmd=kvs-get-response;rc=0;found=TRUE;value=a;;b;");
	send2(1, "cmd=kvs-get;jobid=rota.42.3;srcid=-1;key=k9;");
	expect(1, "38    cmd=kvs-get-response;rc=0;found=FALSE;");
	/* node attributes: a waiting get is answered by the put */
	send2(1, "cmd=info-getnodeattr;key=shm;wait=TRUE;");
	expect_silent(1);
	send2(0, "cmd=info-putnodeattr;key=shm;value=seg1;");
	expect(0, "35    cmd=info-putnodeattr-response;rc=0;");
	expect(1, "57    cmd=info-getnodeattr-response;rc=0;found=TRUE;"
		  "value=seg1;");
	send2(0, "cmd=finalize;");
	expect(0, "27    cmd=finalize-response;rc=0;");
	ck_assert_str_eq(complaints, "");
}
END_TEST

/*
 * MPICH 4.0's simple PMI-2 client counts its length field twice: 6 stray
 * bytes (its stack, NULs or not) follow the message and are ignored.
 */
START_TEST(test_v2_stray_tail)
{
	static const char msg[] = "24    cmd=kvs-get;key=k;\0\0;x\0=";

	init2(0, "2");
	send_raw(0, msg, sizeof(msg) - 1);
	expect(0, "38    cmd=kvs-get-response;rc=0;found=FALSE;");
	send_raw(0, "18    cmd=kvs-get;key=k;", 24);
	expect(0, "38    cmd=kvs-get-response;rc=0;found=FALSE;");
	send_raw(0, "12    cmd=a\0b;c=d;", 18);
	expect(0, "(closed)");
	ck_assert_str_eq(complaints,
			 "pmi: rank 2: control character in message\n");
}
END_TEST

/* A PMI-2 client that starts with fullinit, without the PMI-1 greeting. */
START_TEST(test_v2_direct)
{
	send2(1, "cmd=fullinit;threaded=TRUE;");
	expect(1, "113   cmd=fullinit-response;rc=0;pmi-version=2;"
		  "pmi-subversion=0;rank=3;size=4;appnum=0;debugged=FALSE;"
		  "pmiverbose=FALSE;");
	send2(1, "cmd=finalize;");
	expect(1, "27    cmd=finalize-response;rc=0;");
	ck_assert_str_eq(complaints, "");
}
END_TEST

/* Layouts: nodes, tasks per node, ranks in node order, the mapping. */
static const struct {
	uint32_t nnodes;
	uint32_t count[4];
	uint32_t ranks[16];
	const char *mapping;
} layouts[] = {
	{ 4, { 4, 4, 4, 4 }, { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
			       14, 15 },
	  "(vector,(0,4,4))" },
	{ 2, { 3, 1 }, { 0, 1, 2, 3 }, "(vector,(0,1,3),(1,1,1))" },
	{ 2, { 2, 2 }, { 0, 2, 1, 3 }, "(vector,(0,2,1),(0,2,1))" },
	{ 3, { 1, 2, 2 }, { 0, 1, 2, 3, 4 }, "(vector,(0,1,1),(1,2,2))" },
	{ 1, { 3 }, { 0, 1, 2 }, "(vector,(0,1,3))" },
};

START_TEST(test_mapping)
{
	char want[128];
	uint32_t n = 0;

	teardown();
	memset(count, 0, sizeof(count));
	for (uint32_t i = 0; i < layouts[_i].nnodes; i++) {
		count[i] = layouts[_i].count[i];
		first[i] = n;
		n += count[i];
	}
	memcpy(ranks, layouts[_i].ranks, sizeof(ranks));
	start_step(layouts[_i].nnodes, 0, n);
	init1(0);
	send1(0, "cmd=get kvsname=rota.42.3 key=PMI_process_mapping\n");
	snprintf(want, sizeof(want), "cmd=get_result rc=0 msg=success "
				     "value=%s\n", layouts[_i].mapping);
	expect(0, want);
}
END_TEST

/* Hostile input: what is sent, what comes back, the complaint. */
static const struct {
	const char *send;
	const char *answer;
	const char *complaint;
} hostile[] = {
	{ "hello\n", "(closed)", "pmi: rank 2: word without '='\n" },
	{ "cmd=init pmi_version=1 pmi_subversion=1\nkey=v\n",
	  "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n",
	  "pmi: rank 2: message does not start with cmd=\n" },
	{ "cmd=get_maxes\n", "(closed)", "pmi: rank 2: command before init\n" },
	{ "cmd=init pmi_version=1 pmi_subversion=1\ncmd=frobnicate a=b\n",
	  "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n"
	  "cmd=frobnicate_result rc=-1 msg=unknown_command\n",
	  "pmi: rank 2: unknown command 'frobnicate'\n" },
	{ "cmd=init pmi_version=3 pmi_subversion=0\n",
	  "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1\n",
	  "pmi: rank 2: init: unsupported PMI version\n" },
	{ "cmd=init\tpmi_version=1\n", "(closed)",
	  "pmi: rank 2: control character in message\n" },
	{ "cmd=init pmi_version=2 pmi_subversion=0\nabcdef",
	  "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n",
	  "pmi: rank 2: bad PMI-2 length field\n" },
	{ "cmd=init pmi_version=2 pmi_subversion=0\n999999",
	  "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n",
	  "pmi: rank 2: PMI-2 message of 999999 bytes (limit 65536)\n" },
	{ "cmd=init pmi_version=2 pmi_subversion=0\n8     cmd=a;b;",
	  "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n",
	  "pmi: rank 2: pair without '='\n" },
	{ "cmd=init pmi_version=2 pmi_subversion=0\n17    cmd=kvs-put;key=;",
	  "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n"
	  "51    cmd=kvs-put-response;rc=-1;errmsg=bad key or value;",
	  "pmi: rank 2: bad key or value\n" },
	{ "cmd=init pmi_version=2 pmi_subversion=0\n"
	  "27    cmd=fullinit;pmirank=3;a=b;",
	  "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n"
	  "56    cmd=fullinit-response;rc=-1;errmsg=not this task's rank;",
	  "pmi: rank 2: fullinit: not this task's rank\n" },
	{ "cmd=init pmi_version=1 pmi_subversion=1\n"
	  "cmd=put kvsname=rota.42.3 key=a;b value=1\n",
	  "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n"
	  "cmd=put_result rc=-1 msg=bad_key_or_value\n",
	  "pmi: rank 2: bad key or value\n" },
	{ "cmd=init pmi_version=1 pmi_subversion=1\n"
	  "cmd=finalize\ncmd=get_maxes\n",
	  "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n"
	  "cmd=finalize_ack\n",
	  "pmi: rank 2: command after finalize\n" },
	{ "cmd=init pmi_version=1 pmi_subversion=1\nmcmd=spawn\nnprocs=2\n"
	  "execname=/bin/sh\nendcmd\n",
	  "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n"
	  "cmd=spawn_result rc=-1 errmsg=spawn_not_supported\n",
	  "" },
};

START_TEST(test_hostile)
{
	char buf[256];
	struct rota_strbuf got = { 0 };

	send1(0, hostile[_i].send);
	for (int pass = 0; pass < 10; pass++) {
		const char *r = recv_any(0);

		if (!strcmp(r, "(nothing)"))
			break;
		rota_strbuf_adds(&got, r);
		if (!strcmp(r, "(closed)"))
			break;
	}
	snprintf(buf, sizeof(buf), "%s", got.data ? got.data : "(nothing)");
	/* the first answer and what follows, closed or not */
	ck_assert_msg(!strncmp(buf, hostile[_i].answer,
			       strlen(hostile[_i].answer)),
		      "got '%s'", buf);
	ck_assert_str_eq(complaints, hostile[_i].complaint);
	rota_strbuf_fini(&got);
}
END_TEST

START_TEST(test_long_line)
{
	char *line = malloc(10000);

	memset(line, 'x', 9999);
	memcpy(line, "cmd=", 4);
	line[9999] = '\0';
	init1(0);
	/* the server reads it in pieces: no newline within 4096 bytes */
	ck_assert_int_eq(write(fds[0], line, 9999), 9999);
	free(line);
	expect(0, "(closed)");
	ck_assert_str_eq(complaints,
			 "pmi: rank 2: line longer than 4096 bytes\n");
}
END_TEST

START_TEST(test_long_value)
{
	char line[1500];

	init1(0);
	memset(line, 'v', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	memcpy(line, "cmd=put kvsname=rota.42.3 key=k value=", 38);
	line[sizeof(line) - 2] = '\n';
	send1(0, line);
	expect(0, "cmd=put_result rc=-1 msg=bad_key_or_value\n");
}
END_TEST

START_TEST(test_complaints_bounded)
{
	init1(0);
	for (int i = 0; i < 8; i++)
		send1(0, "cmd=nope\n");
	ck_assert_ptr_nonnull(strstr(complaints, "too many errors, closed"));
	while (strcmp(recv_any(0), "(closed)"))
		;
}
END_TEST

/* A task that leaves mid-fence fails it for the others, PMI-1 and -2. */
START_TEST(test_close_mid_fence)
{
	init1(0);
	init2(1, "3");
	send1(0, "cmd=barrier_in\n");
	close(fds[1]);
	fds[1] = dup(fds[0]);
	pump();
	ck_assert_int_eq(ngathers, 0);
	/* PMI-1 clients do not read barrier_out's rc: closed */
	expect(0, "(closed)");
	ck_assert_str_eq(complaints,
			 "pmi: rank 3 closed its connection without finalize\n"
			 "pmi: fence failed: rank 3 left without finalize\n");
}
END_TEST

START_TEST(test_close_then_fence_v2)
{
	init2(0, "2");
	close(fds[1]); /* never spoke: no complaint of its own */
	fds[1] = dup(fds[0]);
	pump();
	ck_assert_str_eq(complaints, "");
	send2(0, "cmd=kvs-fence;");
	expect(0, "65    cmd=kvs-fence-response;rc=-1;"
		  "errmsg=rank 3 left without finalize;");
	ck_assert_int_eq(ngathers, 0);
	ck_assert_str_eq(complaints,
			 "pmi: fence failed: rank 3 left without finalize\n");
}
END_TEST

START_TEST(test_bad_gather)
{
	static const char broken[] = "k0\0v0"; /* unterminated */

	init2(0, "2");
	init2(1, "3");
	send2(0, "cmd=kvs-fence;");
	send2(1, "cmd=kvs-fence;");
	ck_assert_int_eq(ngathers, 1);
	finish_gather(broken, sizeof(broken) - 1);
	expect(0, "61    cmd=kvs-fence-response;rc=-1;"
		  "errmsg=blob: unterminated value;");
	expect(1, "61    cmd=kvs-fence-response;rc=-1;"
		  "errmsg=blob: unterminated value;");
	ck_assert_str_eq(complaints,
			 "pmi: fence failed: blob: unterminated value\n");
	/* a result nobody asked for is refused */
	wireup_pmi.done(srv, "", 0);
	ck_assert_ptr_nonnull(strstr(complaints, "nobody asked for"));
	/* a result with a node missing */
	send2(0, "cmd=kvs-fence;");
	send2(1, "cmd=kvs-fence;");
	ck_assert_int_eq(ngathers, 2);
	wireup_pmi.done(srv, "\0\0\0\0", 4);
	expect(1, "51    cmd=kvs-fence-response;rc=-1;"
		  "errmsg=node 1 missing;");
}
END_TEST

START_TEST(test_gather_fails)
{
	gather_rc = -EPIPE;
	init1(0);
	init2(1, "3");
	send2(1, "cmd=kvs-fence;");
	send1(0, "cmd=barrier_in\n");
	ck_assert_int_eq(ngathers, 1);
	expect(0, "(closed)");
	expect(1, "64    cmd=kvs-fence-response;rc=-1;"
		  "errmsg=the step's exchange is gone;");
}
END_TEST

START_TEST(test_abort)
{
	init2(0, "2");
	send2(0, "cmd=abort;isworld=TRUE;msg=out of\ncheese;");
	expect(0, "(closed)");
	ck_assert_str_eq(complaints, "pmi: rank 2: abort: out of cheese\n");
	init1(1);
	send1(1, "cmd=abort exitcode=7\n");
	expect(1, "(closed)");
	ck_assert_ptr_nonnull(
		strstr(complaints, "pmi: rank 3: abort (exit code 7)\n"));
}
END_TEST

START_TEST(test_fork_failed)
{
	char err[160];
	char **env;
	int fd;

	teardown();
	count[0] = 2, count[1] = 2, first[0] = 0, first[1] = 2;
	for (int i = 0; i < 4; i++)
		ranks[i] = (uint32_t)i;
	step.node_id = 1;
	loop = rota_evloop_create();
	ck_assert_int_eq(wireup_pmi.create(loop, &step, &ops, &srv, err,
					   sizeof(err)), 0);
	ck_assert_int_eq(wireup_pmi.task_env(srv, 2, &env, &fd, err,
					     sizeof(err)), 0);
	fds[0] = dup(fd);
	wireup_pmi.task_started(srv, 2, 4242);
	ck_assert_int_eq(wireup_pmi.task_env(srv, 3, &env, &fd, err,
					     sizeof(err)), 0);
	fds[1] = dup(fd);
	wireup_pmi.task_started(srv, 3, -1);
	init1(0);
	send1(0, "cmd=barrier_in\n");
	expect(0, "(closed)");
	ck_assert_str_eq(complaints,
			 "pmi: fence failed: rank 3 left without finalize\n");
}
END_TEST

static Suite *pmi_suite(void)
{
	Suite *s = suite_create("pmi_wire");
	TCase *tc = tcase_create("pmi_wire");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_env);
	tcase_add_test(tc, test_env_vars);
	tcase_add_test(tc, test_v1_fence);
	tcase_add_test(tc, test_v2_fence);
	tcase_add_test(tc, test_v2_direct);
	tcase_add_test(tc, test_v2_stray_tail);
	tcase_add_loop_test(tc, test_mapping, 0,
			    sizeof(layouts) / sizeof(layouts[0]));
	tcase_add_loop_test(tc, test_hostile, 0,
			    sizeof(hostile) / sizeof(hostile[0]));
	tcase_add_test(tc, test_long_line);
	tcase_add_test(tc, test_long_value);
	tcase_add_test(tc, test_complaints_bounded);
	tcase_add_test(tc, test_close_mid_fence);
	tcase_add_test(tc, test_close_then_fence_v2);
	tcase_add_test(tc, test_bad_gather);
	tcase_add_test(tc, test_gather_fails);
	tcase_add_test(tc, test_abort);
	tcase_add_test(tc, test_fork_failed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(pmi_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
