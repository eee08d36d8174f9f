// SPDX-License-Identifier: MIT
/* Frame header encoding and the checks every received header must pass. */
#include "config.h"

#include <errno.h>

#include "common/frame.h"
#include "common/proto.h"

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

void rota_frame_header_encode(uint8_t out[ROTA_FRAME_HEADER_LEN],
			      uint16_t type, uint32_t cred_len,
			      uint32_t body_len)
{
	put32(out, ROTA_FRAME_MAGIC);
	out[4] = (uint8_t)(ROTA_PROTO_VERSION >> 8);
	out[5] = (uint8_t)ROTA_PROTO_VERSION;
	out[6] = (uint8_t)(type >> 8);
	out[7] = (uint8_t)type;
	put32(out + 8, cred_len);
	put32(out + 12, body_len);
}

int rota_frame_header_decode(const uint8_t *buf, size_t len, size_t max_frame,
			     struct rota_frame_header *h,
			     struct rota_error *err)
{
	*h = (struct rota_frame_header){ 0 };
	if (len < ROTA_FRAME_HEADER_LEN)
		return -EAGAIN;
	if (get32(buf) != ROTA_FRAME_MAGIC)
		return rota_errorf(err, -EPROTO, "not a rota frame (bad magic)");
	h->version = (uint16_t)(buf[4] << 8 | buf[5]);
	h->type = (uint16_t)(buf[6] << 8 | buf[7]);
	h->cred_len = get32(buf + 8);
	h->body_len = get32(buf + 12);
	if (h->version != ROTA_PROTO_VERSION)
		return rota_errorf(err, -EPROTO,
				   "protocol version %u, this side speaks %u",
				   h->version, ROTA_PROTO_VERSION);
	if (h->cred_len > ROTA_FRAME_CRED_MAX)
		return rota_errorf(err, -EPROTO,
				   "credential of %u bytes exceeds %u",
				   h->cred_len, ROTA_FRAME_CRED_MAX);
	if ((uint64_t)h->cred_len + h->body_len > max_frame)
		return rota_errorf(err, -EPROTO,
				   "frame of %llu bytes exceeds the limit of %zu",
				   (unsigned long long)h->cred_len + h->body_len,
				   max_frame);
	return 0;
}

const char *rota_msg_type_name(unsigned type)
{
	switch (type) {
	case ROTA_MSG_ERROR: return "ERROR";
	case ROTA_MSG_OK: return "OK";
	case ROTA_MSG_SUBMIT: return "SUBMIT";
	case ROTA_MSG_SUBMIT_REPLY: return "SUBMIT_REPLY";
	case ROTA_MSG_JOB_LIST: return "JOB_LIST";
	case ROTA_MSG_JOB_LIST_REPLY: return "JOB_LIST_REPLY";
	case ROTA_MSG_CANCEL: return "CANCEL";
	case ROTA_MSG_CANCEL_REPLY: return "CANCEL_REPLY";
	case ROTA_MSG_NODE_LIST: return "NODE_LIST";
	case ROTA_MSG_NODE_LIST_REPLY: return "NODE_LIST_REPLY";
	case ROTA_MSG_PING: return "PING";
	case ROTA_MSG_JOB_ROWS: return "JOB_ROWS";
	case ROTA_MSG_JOB_ROWS_REPLY: return "JOB_ROWS_REPLY";
	case ROTA_MSG_DIAG: return "DIAG";
	case ROTA_MSG_DIAG_REPLY: return "DIAG_REPLY";
	case ROTA_MSG_NODE_ADMIN: return "NODE_ADMIN";
	case ROTA_MSG_SHARE: return "SHARE";
	case ROTA_MSG_SHARE_REPLY: return "SHARE_REPLY";
	case ROTA_MSG_PRIO: return "PRIO";
	case ROTA_MSG_PRIO_REPLY: return "PRIO_REPLY";
	case ROTA_MSG_RECONFIGURE: return "RECONFIGURE";
	case ROTA_MSG_NODE_REGISTER: return "NODE_REGISTER";
	case ROTA_MSG_HEARTBEAT: return "HEARTBEAT";
	case ROTA_MSG_JOB_END: return "JOB_END";
	case ROTA_MSG_JOB_USAGE: return "JOB_USAGE";
	case ROTA_MSG_LAUNCH: return "LAUNCH";
	case ROTA_MSG_SIGNAL_JOB: return "SIGNAL_JOB";
	case ROTA_MSG_JOB_END_ACK: return "JOB_END_ACK";
	case ROTA_MSG_RECONFIGURE_NODE: return "RECONFIGURE_NODE";
	case ROTA_MSG_HOLD: return "HOLD";
	case ROTA_MSG_RELEASE: return "RELEASE";
	case ROTA_MSG_NICE: return "NICE";
	case ROTA_MSG_UPDATE: return "UPDATE";
	case ROTA_MSG_REQUEUE: return "REQUEUE";
	case ROTA_MSG_CONTROL_REPLY: return "CONTROL_REPLY";
	case ROTA_MSG_TOP_ROWS: return "TOP_ROWS";
	case ROTA_MSG_TOP_ROWS_REPLY: return "TOP_ROWS_REPLY";
	case ROTA_MSG_RESV_CREATE: return "RESV_CREATE";
	case ROTA_MSG_RESV_CREATE_REPLY: return "RESV_CREATE_REPLY";
	case ROTA_MSG_RESV_DELETE: return "RESV_DELETE";
	case ROTA_MSG_RESV_LIST: return "RESV_LIST";
	case ROTA_MSG_RESV_LIST_REPLY: return "RESV_LIST_REPLY";
	case ROTA_MSG_WHY: return "WHY";
	case ROTA_MSG_WHY_REPLY: return "WHY_REPLY";
	case ROTA_MSG_STEP_CREATE: return "STEP_CREATE";
	case ROTA_MSG_STEP_CREATE_REPLY: return "STEP_CREATE_REPLY";
	case ROTA_MSG_STEP_COMPLETE: return "STEP_COMPLETE";
	case ROTA_MSG_STEP_LIST: return "STEP_LIST";
	case ROTA_MSG_STEP_LIST_REPLY: return "STEP_LIST_REPLY";
	case ROTA_MSG_STEPS_KILL: return "STEPS_KILL";
	case ROTA_MSG_STEP_LAUNCH: return "STEP_LAUNCH";
	case ROTA_MSG_STEP_IO: return "STEP_IO";
	case ROTA_MSG_STEP_SIGNAL: return "STEP_SIGNAL";
	case ROTA_MSG_STEP_TASK_END: return "STEP_TASK_END";
	case ROTA_MSG_STEP_WIREUP: return "STEP_WIREUP";
	case ROTA_MSG_STEP_WINSIZE: return "STEP_WINSIZE";
	case ROTA_MSG_STEP_DONE: return "STEP_DONE";
	default: return "UNKNOWN";
	}
}
