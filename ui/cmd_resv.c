// SPDX-License-Identifier: MIT
/*
 * rota resv create|list|delete: advance reservations, as Slurm's
 * scontrol create/show/delete reservation.  create sends the operator's
 * KEY=VALUE words as typed: the controller parses them on its own clock
 * and says what is wrong, so every client says the same.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/proto.h"
#include "common/units.h"
#include "common/xalloc.h"
#include "ui/cmd.h"

static const char help[] =
	"usage: rota resv create KEY=VALUE...\n"
	"       rota resv list [--noheader] [--json]\n"
	"       rota resv delete NAME...\n"
	"\n"
	"Advance reservations: cores of some nodes (their GPUs too, and\n"
	"licenses) set aside over a span of time for the jobs that name the\n"
	"reservation (rota submit --reservation=NAME) and whose user and\n"
	"account it allows.  While it is active no other job runs on its\n"
	"cores or GPUs, and no other job starts that would still hold them\n"
	"when it begins.  Its jobs wait (reason Reservation) until it\n"
	"starts, run only on its cores, and are considered before any other\n"
	"job; when it ends they run on to their own time limits, and the\n"
	"reservation is forgotten.  Operators (root, and the users rota.conf\n"
	"names in Operators) create and delete; anyone lists.\n"
	"\n"
	"create keys (as scontrol create reservation; case does not matter):\n"
	"  ReservationName=NAME  default resv1, resv2, ...\n"
	"  StartTime=TIME        now, now+2h, 2026-12-24T08:00[:00], @UNIX\n"
	"  Duration=TIME         [D-]HH:MM:SS, MM, 90m, 2h, 7d, UNLIMITED\n"
	"  EndTime=TIME          instead of Duration\n"
	"  Nodes=HOSTLIST        whole nodes (n[01-04])\n"
	"  CoreCount=N           N cores, on Nodes= if given, else on any\n"
	"                        nodes, around other reservations\n"
	"  GpuCount=M            with CoreCount=, M GPUs among those cores\n"
	"                        (on nodes with free GPUs first); Nodes=\n"
	"                        alone holds all the nodes' GPUs\n"
	"  TRES=cpu=N,gres/gpu=M Slurm's spelling of CoreCount=N GpuCount=M\n"
	"  Licenses=matlab:2     cluster licenses held for its jobs alone\n"
	"  Users=a,b             users who may use it\n"
	"  Accounts=x,y          accounts that may use it (with Users=, a\n"
	"                        job must match both)\n"
	"StartTime, Duration or EndTime, Nodes or CoreCount, and Users or\n"
	"Accounts are required.  A reservation is refused that would hold\n"
	"cores another one holds over the same time, or cores running jobs\n"
	"would still hold when it starts (CoreCount= goes around both).\n"
	"\n"
	"      --noheader   list: no header line\n"
	"      --json       list: every reservation in full, one JSON object\n"
	"                   (docs/json.md)\n"
	"  -h, --help       this text\n"
	"\n"
	"Example: rota resv create StartTime=now Duration=2h Nodes=n[1-2] "
	"Users=ana\n"
	"\n"
	"Exit status: 0 done, 1 refused (the reason on stderr), 2 bad usage.\n";

static int usage(void)
{
	fputs(help, stderr);
	return 2;
}

static int resv_create(int argc, char **argv)
{
	struct rota_msg_resv_create m = { 0 };
	struct rota_reply reply;
	struct rota_error err;
	char *name = NULL;
	size_t len;
	char *body;
	int rc;

	if (argc < 2)
		return usage();
	m.set = rota_xcalloc((size_t)argc, sizeof(*m.set));
	for (int i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq || eq == argv[i]) {
			cmd_error("resv", "'%s': expected KEY=VALUE", argv[i]);
			rota_msg_resv_create_clear(&m);
			return 2;
		}
		m.set[m.nset].key = rota_xstrndup(argv[i],
						  (size_t)(eq - argv[i]));
		m.set[m.nset++].value = rota_xstrdup(eq + 1);
	}
	body = rota_msg_resv_create_encode(&m, &len);
	rota_msg_resv_create_clear(&m);
	rc = cmd_call("resv", ROTA_MSG_RESV_CREATE, body, len, &reply);
	free(body);
	if (rc < 0)
		return 1;
	rc = rota_msg_name_decode(reply.body, reply.len, &name, &err);
	rota_reply_clear(&reply);
	if (rc < 0) {
		cmd_error("resv", "bad reply: %s", err.text);
		return 1;
	}
	printf("Reservation created: %s\n", name);
	free(name);
	return 0;
}

static int resv_delete(int argc, char **argv)
{
	struct rota_reply reply;
	int failed = 0;

	if (argc < 2)
		return usage();
	for (int i = 1; i < argc; i++) {
		size_t len;
		char *body = rota_msg_name_encode(argv[i], &len);

		if (cmd_call("resv", ROTA_MSG_RESV_DELETE, body, len,
			     &reply) < 0)
			failed = 1;
		else
			rota_reply_clear(&reply);
		free(body);
	}
	return failed;
}

/* "a,b" of a name list, or "(any)" for none. */
static void join(char *const *v, char *buf, size_t len)
{
	size_t at = 0;

	snprintf(buf, len, "(any)");
	for (size_t i = 0; v && v[i] && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       i ? "," : "", v[i]);
}

static void print_table(const struct rota_msg_resv_list *l, bool header)
{
	char start[32], end[32], dur[32], users[256], accounts[256];

	if (header)
		printf("%-16s %-8s %-19s %-19s %12s %6s %5s %-16s %-16s %s\n",
		       "NAME", "STATE", "START", "END", "DURATION", "CORES",
		       "GPUS", "USERS", "ACCOUNTS", "NODES");
	for (size_t i = 0; i < l->n; i++) {
		const struct rota_resv_info *r = &l->resvs[i];

		cmd_format_time(r->start, start, sizeof(start));
		if (r->end == INT64_MAX)
			snprintf(end, sizeof(end), "UNLIMITED");
		else
			cmd_format_time(r->end, end, sizeof(end));
		rota_duration_format(r->end == INT64_MAX
					     ? ROTA_DURATION_UNLIMITED
					     : r->end - r->start,
				     dur, sizeof(dur));
		join(r->users, users, sizeof(users));
		join(r->accounts, accounts, sizeof(accounts));
		printf("%-16s %-8s %-19s %-19s %12s %6u %5u %-16s %-16s %s\n",
		       r->name, r->state, start, end, dur, r->cores, r->gpus,
		       users, accounts, r->nodes);
	}
}

static int resv_list(int argc, char **argv)
{
	struct rota_msg_resv_list l;
	struct rota_reply reply;
	struct rota_error err;
	bool json = false, header = true;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		else if (strcmp(argv[i], "--noheader") == 0)
			header = false;
		else
			return usage();
	}
	if (cmd_call("resv", ROTA_MSG_RESV_LIST, "{}", 2, &reply) < 0)
		return 1;
	if (json) {
		cmd_print_reply(&reply);
		return 0;
	}
	rc = rota_msg_resv_list_decode(reply.body, reply.len, &l, &err);
	rota_reply_clear(&reply);
	if (rc < 0) {
		cmd_error("resv", "bad reply: %s", err.text);
		return 1;
	}
	print_table(&l, header);
	rota_msg_resv_list_clear(&l);
	return 0;
}

static int resv_run(int argc, char **argv)
{
	if (cmd_wants_help(argc, argv))
		return cmd_print_help(&cmd_resv);
	if (argc < 2)
		return usage();
	if (strcmp(argv[1], "create") == 0)
		return resv_create(argc - 1, argv + 1);
	if (strcmp(argv[1], "list") == 0 || strcmp(argv[1], "show") == 0)
		return resv_list(argc - 1, argv + 1);
	if (strcmp(argv[1], "delete") == 0)
		return resv_delete(argc - 1, argv + 1);
	cmd_error("resv", "'%s': expected create, list or delete", argv[1]);
	return 2;
}

const struct cmd cmd_resv = {
	.name = "resv",
	.summary = "create, list or delete advance reservations",
	.help = help,
	.run = resv_run,
};
