/* SPDX-License-Identifier: MIT */
#ifndef ROTA_NODED_PMI_INTERNAL_H
#define ROTA_NODED_PMI_INTERNAL_H

/*
 * Shared by the files of the PMI server (wireup_pmi): pmi_wire.c owns the
 * connections, fences and the wireup_impl, pmi_cmd.c the commands.  Not
 * for use outside them.  Everything here runs on the step's loop.
 */
#include <stdbool.h>
#include <stdint.h>

#include "common/strbuf.h"
#include "noded/pmi_kvs.h"
#include "noded/pmi_parse.h"
#include "noded/wireup.h"

#define PMI_KVS_BYTES (64u << 20) /* a step's whole key-value space */
#define PMI_OUT_MAX (1u << 20)	   /* answers a client leaves unread */
#define PMI_COMPLAINTS 8	   /* then the client is closed */
#define PMI_APPNUM "0"

enum client_state {
	CLIENT_NONE = 0,  /* before task_env */
	CLIENT_SILENT,	  /* connected, has said nothing yet */
	CLIENT_ACTIVE,	  /* has sent init */
	CLIENT_FINALIZED, /* said finalize: may leave */
	CLIENT_GONE,	  /* closed */
};

enum client_wait {
	WAIT_NONE = 0,
	WAIT_FENCE,    /* in a barrier or fence */
	WAIT_NODEATTR, /* info-getnodeattr with wait=TRUE */
};

struct pmi_client {
	struct wireup_server *srv;
	uint32_t rank;
	enum client_state state;
	enum client_wait wait;
	bool v2;	  /* after "init pmi_version=2": length-prefixed */
	bool in_mcmd;	  /* skipping a PMI-1 multi-line command */
	bool answer;	  /* fence_answer's mark */
	bool busy;	  /* in process(): answers it causes wait for it */
	int fd;		  /* our end, -1 once closed */
	int child_fd;	  /* the task's end, until task_started */
	struct rota_watch *watch;
	char *in;	  /* PMI2_LEN_SIZE + PMI2_BODY_MAX bytes */
	size_t inlen;
	struct rota_strbuf out;
	size_t outpos;	  /* sent of out */
	unsigned complaints;
	char thrid[64];	  /* echoed in a delayed PMI-2 answer */
	char wait_key[PMI_KEY_MAX + 1];
	char *env[8];	  /* NULL-terminated */
};

struct wireup_server {
	struct rota_evloop *loop;
	const struct wireup_step *st;
	struct wireup_ops ops;
	uint32_t nlocal;
	struct pmi_client *clients; /* nlocal, in local order */
	struct pmi_kvs *kvs;
	struct pmi_kvs *nodeattr;   /* PMI-2 node attributes, this node only */
	struct rota_strbuf blob;    /* this node's puts since the last fence */
	uint32_t nfence;	    /* local tasks in the fence */
	bool gathering;		    /* an allgather is under way */
	uint32_t lost_rank;	    /* the first rank that left, if lost */
	bool lost;
	char kvsname[64];
	char *mapping;		    /* PMI_process_mapping, or NULL */
};

/* One line through ops->complain(). */
void pmi_complain(struct wireup_server *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A client broke the protocol: complain, close it after PMI_COMPLAINTS. */
void pmi_client_complain(struct pmi_client *c, const char *what);
/* Close a client already complained of (no second line). */
void pmi_client_drop(struct pmi_client *c);
/* Read or not, write or not, after the client's wait or output changed. */
void pmi_update_events(struct pmi_client *c);
/*
 * Queue an answer: PMI-1 "cmd=x a=b" (the newline is added), PMI-2
 * "cmd=x;a=b;" with values escaped (the length and thrid are added).
 * May close the client.
 */
void pmi_reply(struct pmi_client *c, const char *text);
/* PMI-2 "cmd=<cmd>;rc=0;found=...;value=...;" for 'val' or NULL. */
void pmi_reply_found(struct pmi_client *c, const char *cmd, const char *val);
/* PMI-2 "cmd=<cmd>-response;rc=-1;errmsg=<msg>;". */
void pmi_reply_v2_error(struct pmi_client *c, const char *cmd,
			const char *msg);
/* Handle the client's whole messages, unless it waits for an answer. */
void pmi_process(struct pmi_client *c);
/* The client is in the fence: start the allgather if all local ones are. */
void pmi_enter_fence(struct pmi_client *c);

/* Run one parsed message (pmi_cmd.c). */
void pmi_dispatch(struct pmi_client *c, const struct pmi_msg *m);

#endif
