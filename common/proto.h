/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_PROTO_H
#define ROTA_COMMON_PROTO_H

/*
 * Message types, in numbered ranges per area.  A retired number stays
 * reserved.  ROTA_PROTO_VERSION bumps whenever a body changes shape: a
 * key removed, renamed or retyped, or a new key that must be sent.  A new
 * optional key, sent only when set (submit's "hold"), is no bump: an older
 * peer refuses it by name ("1 object item(s) left unpacked: hold"), and
 * only the requests that use it, while a bump would refuse every frame
 * between the two versions.  Until a first release, version 1 is
 * whatever shape main has.
 * The request id of a state-changing request ("rid", msg_rid.c) is such
 * an optional key: the controller takes it off before the request's own
 * decoder, and a client that hears an older controller refuse it by name
 * sends the request again without it (client.c).  An ERROR of code
 * -EAGAIN says "busy, try again": clients retry it for ClientRetry.
 * The body of every message is a JSON object, coded in common/msg_*.c.
 */
#define ROTA_PROTO_VERSION 1

enum rota_msg_type {
	ROTA_MSG_NONE = 0,

	/* 1-99: replies common to all areas */
	ROTA_MSG_ERROR = 1,	/* {code, text}: text is the user's line */
	ROTA_MSG_OK = 2,	/* {} */

	/* 100-199: clients to the controller */
	ROTA_MSG_SUBMIT = 100,	    /* -> SUBMIT_REPLY */
	ROTA_MSG_SUBMIT_REPLY = 101,
	ROTA_MSG_JOB_LIST = 102,    /* -> JOB_LIST_REPLY */
	ROTA_MSG_JOB_LIST_REPLY = 103,
	ROTA_MSG_CANCEL = 104,	    /* -> CANCEL_REPLY */
	ROTA_MSG_CANCEL_REPLY = 105,
	ROTA_MSG_NODE_LIST = 106,   /* -> NODE_LIST_REPLY */
	ROTA_MSG_NODE_LIST_REPLY = 107,
	ROTA_MSG_PING = 108,	    /* -> OK */
	ROTA_MSG_JOB_ROWS = 109,    /* {} -> JOB_ROWS_REPLY */
	ROTA_MSG_JOB_ROWS_REPLY = 110,
	ROTA_MSG_DIAG = 111,	    /* {} -> DIAG_REPLY */
	ROTA_MSG_DIAG_REPLY = 112,
	ROTA_MSG_NODE_ADMIN = 113,  /* operators: -> OK */
	ROTA_MSG_SHARE = 114,	    /* {} -> SHARE_REPLY */
	ROTA_MSG_SHARE_REPLY = 115,
	ROTA_MSG_PRIO = 116,	    /* job ids -> PRIO_REPLY */
	ROTA_MSG_PRIO_REPLY = 117,
	ROTA_MSG_RECONFIGURE = 118, /* operators: {} -> OK or ERROR */

	/* 130-139: acting on jobs, and rota top (issue 8) */
	ROTA_MSG_HOLD = 130,	    /* control -> CONTROL_REPLY */
	ROTA_MSG_RELEASE = 131,	    /* control -> CONTROL_REPLY */
	ROTA_MSG_NICE = 132,	    /* control -> CONTROL_REPLY */
	ROTA_MSG_UPDATE = 133,	    /* control -> CONTROL_REPLY */
	ROTA_MSG_REQUEUE = 134,	    /* control -> CONTROL_REPLY */
	ROTA_MSG_CONTROL_REPLY = 135, /* text list: one line per refusal */
	ROTA_MSG_TOP_ROWS = 136,    /* {} -> TOP_ROWS_REPLY */
	ROTA_MSG_TOP_ROWS_REPLY = 137,

	/* 140-149: advance reservations, start estimates (issue 6) */
	ROTA_MSG_RESV_CREATE = 140, /* operators: resv create -> name */
	ROTA_MSG_RESV_CREATE_REPLY = 141, /* name: the one created */
	ROTA_MSG_RESV_DELETE = 142, /* operators: name -> OK */
	ROTA_MSG_RESV_LIST = 143,   /* {} -> RESV_LIST_REPLY */
	ROTA_MSG_RESV_LIST_REPLY = 144,
	ROTA_MSG_WHY = 145,	    /* job id -> WHY_REPLY (rota why) */
	ROTA_MSG_WHY_REPLY = 146,
	ROTA_MSG_LICENSES = 147,    /* {} -> LICENSES_REPLY */
	ROTA_MSG_LICENSES_REPLY = 148, /* text list: "NAME TOTAL USED" */

	/*
	 * Job steps (msg_step.c): `rota run` asks for a step inside its
	 * job and gets a credential per node, sealed by the controller;
	 * it reports the step's end.
	 */
	ROTA_MSG_STEP_CREATE = 150,	  /* -> STEP_CREATE_REPLY */
	ROTA_MSG_STEP_CREATE_REPLY = 151,
	ROTA_MSG_STEP_COMPLETE = 152,	  /* -> OK */
	ROTA_MSG_STEP_LIST = 153,	  /* {job_id}: 0 all -> STEP_LIST_REPLY */
	ROTA_MSG_STEP_LIST_REPLY = 154,

	/* 200-299: node daemons to the controller */
	/*
	 * REGISTER and HEARTBEAT are answered in order, OK {"lease":N}
	 * (msg_node.c) or ERROR: an OK renews the node's lease for N seconds
	 * from when the node sent what it answers; an older controller's OK
	 * is {}, no lease.
	 */
	ROTA_MSG_NODE_REGISTER = 200, /* -> OK or ERROR */
	ROTA_MSG_HEARTBEAT = 201,     /* -> OK or ERROR */
	ROTA_MSG_JOB_END = 202,	      /* -> JOB_END_ACK */
	ROTA_MSG_JOB_USAGE = 203,     /* no reply: UsageCharge=measured, each
					 running job's cgroup totals so far;
					 the next report repeats them */

	/* 300-399: the controller to node daemons */
	ROTA_MSG_LAUNCH = 300,	    /* no reply: JOB_END follows */
	ROTA_MSG_SIGNAL_JOB = 301,  /* no reply */
	ROTA_MSG_JOB_END_ACK = 302, /* the controller has recorded the end */
	ROTA_MSG_RECONFIGURE_NODE = 303, /* {}: re-read rota.conf, register */
	ROTA_MSG_STEPS_KILL = 304,  /* {job_id, run}: the job is over: end
				       its steps here */

	/*
	 * 400-499: `rota run` and the step supervisor of one node
	 * (noded/step.c), on a connection of their own: the first frame
	 * opens the session, every later one is sealed (auth.h).
	 */
	ROTA_MSG_STEP_LAUNCH = 400,   /* credential + command -> OK or ERROR */
	ROTA_MSG_STEP_IO = 401,	      /* raw: "<rank> <fd>\n" + bytes; to the
					 node only fd 0 of rank 0 (stdin);
					 no bytes: end of that stream */
	ROTA_MSG_STEP_SIGNAL = 402,   /* {signal}: to every task here */
	ROTA_MSG_STEP_TASK_END = 403, /* {rank, status}: a wait() status */
	ROTA_MSG_STEP_WIREUP = 404,   /* raw: this node's allgather blob; to
					 the node: all of them (wireup.h) */
	ROTA_MSG_STEP_WINSIZE = 405,  /* {rows, cols}: the --pty terminal's */
	ROTA_MSG_STEP_DONE = 406,     /* {cpu_usec, mem_peak}: every task
					 here has ended; the node closes */
};

/* "SUBMIT", "JOB_LIST", ...; "UNKNOWN" for others.  Static string. */
const char *rota_msg_type_name(unsigned type);

#endif
