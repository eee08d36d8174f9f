// SPDX-License-Identifier: MIT
/*
 * bench/oracle/rota-oracle: Rota's scheduling core driven through a
 * scenario's events on a virtual clock, printing what rota prio and rota
 * share would show at each capture, for the oracles (README.md) to set
 * beside a real Grid Engine's or Slurm's numbers.
 *
 *   rota-oracle [--plugins DIR] CONFIG EVENTS
 *
 * EVENTS, one per line ('#' comments, blank lines ignored):
 *   at T                     the clock to T seconds after the start
 *   usage USER ACCOUNT U     USER's usage under ACCOUNT is U (decayed
 *                            core-seconds) now; the others' stay
 *   submit ID USER ACCOUNT CORES [nice=N] [queue=Q] [qos=Q] [time=S]
 *          [jobshare=N] [dl=T] [max=M] [lic=L] [hold]   dl: an
 *                            initiation deadline, T seconds after the
 *                            start; max: a range CORES-M (Grid Engine's
 *                            -pe mpi CORES-M, rota submit -n CORES-M);
 *                            lic: licenses, rota submit --licenses=L
 *                            (lic:2,ljob:1)
 *   hold ID | release ID | nice ID N
 *   oticket ID N             an operator gives ID N override tickets
 *   pass                     a main pass, then a backfill pass if the
 *                            config has Sched=backfill: what fits starts
 *   start ID                 ID starts, whatever the order says: every
 *                            other pending job is held over a pass (a
 *                            history made under other settings)
 *   end ID                   a running job completes
 *   cancel ID                a job is cancelled (pending or running)
 *   drain NODE               no job starts on NODE (a node that only
 *                            makes wide jobs acceptable)
 *   capture NAME             rate all, print every job and tree node
 * IDs are the scenario's own; they are printed back.
 *
 * Output, per capture: "capture NAME now=T"; per job "job id=ID
 * state=PD|HELD|R user=U account=A cores=N prio=P dealt=TICKETS" then a field
 * "TERM=raw,norm,weight,value" per term of its priority; per tree node
 * "node name=.. parent=.. user=0|1 shares=.. ..." with every field of
 * struct rota_share_node and, from sharetree, oltt, ostt, ostt_running;
 * and "order ID ..." the pending jobs not held, in the order they would
 * be started.
 * A bad line stops it with "EVENTS:LINE: reason".
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/msg.h"
#include "common/xalloc.h"
#include "ctld/core/core.h"
#include "plugins/rota_plugin.h"

#define T0 ((int64_t)1700000000)
#define MAX_JOBS 4096

struct oracle_job {
	unsigned long scen;	/* the scenario's id */
	uint32_t id;		/* the core's */
};

struct oracle {
	struct core *core;
	struct rota_conf *conf;
	int64_t now;
	struct oracle_job jobs[MAX_JOBS];
	size_t njobs;
	const char *file;
	unsigned line;
};

static void die(const struct oracle *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static void die(const struct oracle *o, const char *fmt, ...)
{
	va_list ap;

	if (o)
		fprintf(stderr, "%s:%u: ", o->file, o->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		die(NULL, "%s: %s", path, strerror(errno));
	do {
		if (cap - n < 4096)
			buf = rota_xrealloc(buf, cap = 2 * cap + 4096);
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
	} while (got > 0);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static void start(struct oracle *o, const char *path, const char *plugins)
{
	struct rota_error err = { "" };
	size_t len;
	char *text = slurp(path, &len);

	if (plugins) {
		char *more = rota_xasprintf("%s\nPluginDir=%s\n", text,
					    plugins);

		free(text);
		text = more;
		len = strlen(text);
	}
	if (rota_conf_load_buffer(path, text, len, &o->conf, &err) < 0 ||
	    core_create(o->conf, &o->core, &err) < 0)
		die(NULL, "%s", err.text);
	free(text);
	o->now = T0;
	for (size_t i = 0; i < o->conf->nnodes; i++) {
		struct rota_node_info info = {
			.name = o->conf->nodes[i].name,
			.state = "UP",
			.reason = "",
			.sockets = 1,
			.cores = o->conf->nodes[i].cpus,
			.pus = o->conf->nodes[i].cpus,
			.memory_mb = o->conf->nodes[i].memory_mb,
		};

		if (core_node_register(o->core, o->now, &info, &err) < 0)
			die(NULL, "%s", err.text);
	}
}

static void drop_actions(struct core *core)
{
	struct core_action *a;

	core_take_actions(core, &a);
	free(a);
}

static unsigned long number(const struct oracle *o, const char *s,
			    const char *what)
{
	char *end;
	unsigned long v;

	if (!s)
		die(o, "%s missing", what);
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-')
		die(o, "%s: '%s' is not a number", what, s);
	return v;
}

static struct oracle_job *job_of(struct oracle *o, const char *s)
{
	unsigned long scen = number(o, s, "job id");

	for (size_t i = 0; i < o->njobs; i++)
		if (o->jobs[i].scen == scen)
			return &o->jobs[i];
	die(o, "job %lu: not submitted", scen);
}

static void ev_submit(struct oracle *o, char **tok, int ntok)
{
	struct rota_error err = { "" };
	struct rota_job_desc d = {
		.name = rota_xstrdup("oracle"),
		.script = rota_xstrdup("#!/bin/sh\ntrue\n"),
		.workdir = rota_xstrdup("/tmp"),
		.cpus_per_task = 1,
	};
	struct core_submit s = { .desc = &d, .uid = 1000, .gid = 1000,
				 .operator = true };
	struct oracle_job *j;

	if (ntok < 5)
		die(o, "submit: expected ID USER ACCOUNT CORES");
	if (o->njobs == MAX_JOBS)
		die(o, "more than %d jobs", MAX_JOBS);
	j = &o->jobs[o->njobs];
	j->scen = number(o, tok[1], "job id");
	for (size_t i = 0; i < o->njobs; i++)
		if (o->jobs[i].scen == j->scen)
			die(o, "job %lu: submitted twice", j->scen);
	s.user = tok[2];
	d.account = rota_xstrdup(tok[3]);
	d.ntasks = (uint32_t)number(o, tok[4], "cores");
	for (int i = 5; i < ntok; i++) {
		char *eq = strchr(tok[i], '=');

		if (!strcmp(tok[i], "hold"))
			d.hold = true;
		else if (!eq)
			die(o, "submit: '%s': expected key=value", tok[i]);
		else if (!strncmp(tok[i], "nice=", 5))
			d.nice = (int32_t)strtol(eq + 1, NULL, 10);
		else if (!strncmp(tok[i], "queue=", 6))
			d.queue = rota_xstrdup(eq + 1);
		else if (!strncmp(tok[i], "qos=", 4))
			d.qos = rota_xstrdup(eq + 1);
		else if (!strncmp(tok[i], "time=", 5))
			d.time_limit = (int64_t)number(o, eq + 1, "time");
		else if (!strncmp(tok[i], "jobshare=", 9))
			d.jobshare = (uint32_t)number(o, eq + 1, "jobshare");
		else if (!strncmp(tok[i], "dl=", 3))
			d.deadline = T0 + (int64_t)number(o, eq + 1, "dl");
		else if (!strncmp(tok[i], "max=", 4))
			d.ntasks_max = (uint32_t)number(o, eq + 1, "max");
		else if (!strncmp(tok[i], "lic=", 4))
			d.licenses = rota_xstrdup(eq + 1);
		else
			die(o, "submit: unknown '%s'", tok[i]);
	}
	if (core_submit(o->core, o->now, &s, &j->id, &err) < 0)
		die(o, "submit: %s", err.text);
	rota_job_desc_clear(&d);
	o->njobs++;
}

static void ev_usage(struct oracle *o, char **tok, int ntok)
{
	struct core_usage *all = NULL, *v;
	size_t n, k = 0;
	bool found = false;
	char *end;
	double u;

	if (ntok != 4)
		die(o, "usage: expected USER ACCOUNT USAGE");
	u = strtod(tok[3], &end);
	if (end == tok[3] || *end || !(u >= 0))
		die(o, "usage: '%s' is not a usage", tok[3]);
	/* every other usage as it is now, this one replaced */
	n = core_usage_take(o->core, o->now, true, &all);
	v = rota_xcalloc(n + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		v[k] = all[i];
		if (!strcmp(all[i].user, tok[1]) &&
		    !strcmp(all[i].account, tok[2])) {
			v[k].usage = u;
			found = true;
		}
		k++;
	}
	if (!found)
		v[k++] = (struct core_usage){ .account = tok[2],
					      .user = tok[1], .usage = u };
	core_usage_restore(o->core, v, k, o->now);
	free(v);
	free(all);
}

static const char *state_of(const struct core_job *j)
{
	if (j->state == ROTA_JOB_RUNNING)
		return "R";
	if (j->state != ROTA_JOB_PENDING)
		return "DONE";
	return j->hold ? "HELD" : "PD";
}

static void print_order(const struct core_job *j, void *arg)
{
	struct oracle *o = arg;

	for (size_t i = 0; i < o->njobs; i++)
		if (o->jobs[i].id == j->id && !j->hold)
			printf(" %lu", o->jobs[i].scen);
}

static void capture(struct oracle *o, const char *name)
{
	const struct rota_share_tree *t;

	core_prio_update(o->core, o->now);
	printf("capture %s now=%lld\n", name, (long long)(o->now - T0));
	for (size_t i = 0; i < o->njobs; i++) {
		const struct core_job *j = core_job_find(o->core,
							 o->jobs[i].id);
		struct rota_prio_factor f[ROTA_PRIO_FACTORS_MAX];
		size_t n;

		if (!j || (j->state != ROTA_JOB_RUNNING &&
			   j->state != ROTA_JOB_PENDING))
			continue;
		n = core_prio_explain(o->core, j, f,
				      ROTA_PRIO_FACTORS_MAX);
		printf("job id=%lu state=%s user=%s account=%s cores=%u "
		       "prio=%.9g dealt=%.9g", o->jobs[i].scen,
		       state_of(j), j->user, j->desc.account,
		       j->desc.ntasks * j->desc.cpus_per_task, j->priority,
		       j->tickets);
		for (size_t k = 0; k < n; k++)
			printf(" %s=%.9g,%.9g,%.9g,%.9g", f[k].name, f[k].raw,
			       f[k].norm, f[k].weight, f[k].value);
		putchar('\n');
	}
	printf("order");
	core_pending_foreach(o->core, print_order, o);
	putchar('\n');
	t = core_share_tree(o->core);
	for (size_t i = 0; t && i < t->n; i++) {
		const struct rota_share_node *n = &t->nodes[i];

		printf("node name=%s account=%s parent=%s user=%d "
		       "shares=%.9g shares_norm=%.9g usage=%.9g "
		       "usage_norm=%.9g usage_eff=%.9g level_fs=%.9g "
		       "value=%.9g factor=%.9g tickets=%.9g pending=%u "
		       "running=%u", n->name, n->account,
		       n->parent == ROTA_SHARE_NONE ? "-"
						     : t->nodes[n->parent].name,
		       n->is_user, n->shares, n->shares_norm, n->usage,
		       n->usage_norm, n->usage_eff, n->level_fs, n->value,
		       n->factor, n->tickets, n->pending, n->running);
		if (t->targets)
			printf(" oltt=%.9g ostt=%.9g ostt_running=%.9g",
			       t->targets[i].oltt, t->targets[i].ostt,
			       t->targets[i].ostt_running);
		putchar('\n');
	}
}

static void ev_control(struct oracle *o, char **tok, int ntok)
{
	struct rota_error err = { "" };
	struct oracle_job *j = job_of(o, tok[1]);
	int rc;

	if (!strcmp(tok[0], "hold"))
		rc = core_hold(o->core, o->now, j->id, 0, true, false, &err);
	else if (!strcmp(tok[0], "release"))
		rc = core_release(o->core, o->now, j->id, 0, true, &err);
	else if (!strcmp(tok[0], "cancel"))
		rc = core_cancel(o->core, o->now, j->id, 0, true, &err);
	else if (!strcmp(tok[0], "nice")) {
		if (ntok != 3)
			die(o, "nice: expected ID N");
		rc = core_nice(o->core, o->now, j->id, 0, true,
			       (int32_t)strtol(tok[2], NULL, 10), false, &err);
	} else if (!strcmp(tok[0], "oticket")) {
		struct core_update u = { .set_oticket = true };

		if (ntok != 3)
			die(o, "oticket: expected ID N");
		u.oticket = (uint32_t)number(o, tok[2], "oticket");
		rc = core_update(o->core, o->now, j->id, 0, true, &u, &err);
	} else {
		const struct core_job *cj = core_job_find(o->core, j->id);
		struct rota_msg_job_end e = { .job_id = j->id,
					      .state = ROTA_JOB_COMPLETED };

		if (!cj || cj->state != ROTA_JOB_RUNNING)
			die(o, "end %s: not running", tok[1]);
		e.run = cj->run;
		rc = core_job_end(o->core, o->now,
				  core_node_get(o->core, cj->alloc[0].node)
					  ->name,
				  &e, &err);
	}
	if (rc < 0)
		die(o, "%s %s: %s", tok[0], tok[1], err.text);
	drop_actions(o->core);
}

static void pass(struct oracle *o)
{
	struct rota_sched_stats st;

	core_schedule(o->core, o->now);
	if (core_backfill(o->core, o->now, &st) < 0)
		die(o, "pass: the backfill pass failed");
	drop_actions(o->core);
}

static void start_one(struct oracle *o, const char *id)
{
	struct rota_error err = { "" };
	struct oracle_job *j = job_of(o, id);
	const struct core_job *cj;
	bool *held = rota_xcalloc(o->njobs + 1, sizeof(*held));

	for (size_t i = 0; i < o->njobs; i++) {
		cj = core_job_find(o->core, o->jobs[i].id);
		held[i] = &o->jobs[i] != j && cj &&
			  cj->state == ROTA_JOB_PENDING && !cj->hold &&
			  core_hold(o->core, o->now, o->jobs[i].id, 0, true,
				    false, &err) == 0;
	}
	pass(o);
	for (size_t i = 0; i < o->njobs; i++)
		if (held[i])
			core_release(o->core, o->now, o->jobs[i].id, 0, true,
				     &err);
	free(held);
	cj = core_job_find(o->core, j->id);
	if (!cj || cj->state != ROTA_JOB_RUNNING)
		die(o, "start %s: it does not fit", id);
}

static void event(struct oracle *o, char *line)
{
	char *tok[16];
	int ntok = 0;

	for (char *p = strtok(line, " \t\r\n"); p && ntok < 16;
	     p = strtok(NULL, " \t\r\n"))
		tok[ntok++] = p;
	if (ntok == 0 || tok[0][0] == '#')
		return;
	if (!strcmp(tok[0], "at")) {
		int64_t t = T0 + (int64_t)number(o, ntok > 1 ? tok[1] : NULL,
						 "at");

		if (t < o->now)
			die(o, "at: the clock goes forward only");
		o->now = t;
	} else if (!strcmp(tok[0], "usage")) {
		ev_usage(o, tok, ntok);
	} else if (!strcmp(tok[0], "submit")) {
		ev_submit(o, tok, ntok);
	} else if (!strcmp(tok[0], "pass")) {
		pass(o);
	} else if (!strcmp(tok[0], "start")) {
		if (ntok != 2)
			die(o, "start: expected a job id");
		start_one(o, tok[1]);
	} else if (!strcmp(tok[0], "drain")) {
		struct rota_error err = { "" };

		if (ntok != 2 || core_node_admin(o->core, o->now, tok[1],
						 "drain", "oracle", &err) < 0)
			die(o, "drain: %s", ntok == 2 ? err.text
						      : "expected a node");
	} else if (!strcmp(tok[0], "capture")) {
		capture(o, ntok > 1 ? tok[1] : "-");
	} else if (!strcmp(tok[0], "hold") || !strcmp(tok[0], "release") ||
		   !strcmp(tok[0], "nice") || !strcmp(tok[0], "end") ||
		   !strcmp(tok[0], "cancel") || !strcmp(tok[0], "oticket")) {
		if (ntok < 2)
			die(o, "%s: expected a job id", tok[0]);
		ev_control(o, tok, ntok);
	} else {
		die(o, "unknown event '%s'", tok[0]);
	}
}

int main(int argc, char **argv)
{
	struct oracle *o = rota_xcalloc(1, sizeof(*o));
	const char *plugins = NULL;
	char line[1024];
	FILE *f;

	if (argc == 5 && !strcmp(argv[1], "--plugins")) {
		plugins = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc != 3)
		die(NULL, "usage: rota-oracle [--plugins DIR] CONFIG EVENTS");
	start(o, argv[1], plugins);
	o->file = argv[2];
	f = fopen(o->file, "r");
	if (!f)
		die(NULL, "%s: %s", o->file, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		o->line++;
		event(o, line);
	}
	fclose(f);
	core_destroy(o->core);
	rota_conf_destroy(o->conf);
	free(o);
	return 0;
}
