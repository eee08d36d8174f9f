// SPDX-License-Identifier: MIT
/* rota show licenses: the cluster's licenses, as scontrol show lic. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/msg.h"
#include "common/proto.h"
#include "common/strbuf.h"
#include "ui/cmd.h"

int cmd_show_licenses(bool json)
{
	struct rota_reply reply;
	struct rota_msg_text_list m;
	struct rota_error err;
	struct rota_strbuf b = { 0 };
	size_t len;
	char *text;
	int rc = cmd_call("show", ROTA_MSG_LICENSES, "{}", 2, &reply);

	if (rc < 0)
		return 1;
	rc = rota_msg_text_list_decode(reply.body, reply.len, &m, &err);
	rota_reply_clear(&reply);
	if (rc < 0) {
		cmd_error("show", "bad reply: %s", err.text);
		return 1;
	}
	rota_strbuf_adds(&b, json ? "{\"licenses\":[" : "");
	for (size_t i = 0; i < m.n; i++) {
		char name[256];
		unsigned total, used;

		if (sscanf(m.lines[i], "%255s %u %u", name, &total, &used) != 3)
			continue;
		if (!json) {
			rota_strbuf_addf(&b, "LicenseName=%s\n    Total=%u "
					 "Used=%u Free=%u\n",
					 name, total, used,
					 used < total ? total - used : 0);
			continue;
		}
		rota_strbuf_adds(&b, i ? ",{\"name\":" : "{\"name\":");
		rota_strbuf_add_json(&b, name);
		rota_strbuf_addf(&b, ",\"total\":%u,\"used\":%u}", total, used);
	}
	rota_strbuf_adds(&b, json ? "]}\n" : "");
	text = rota_strbuf_take(&b, &len);
	if (!m.n && !json)
		printf("No licenses configured (rota.conf's Licenses=).\n");
	else if (text)
		fputs(text, stdout);
	free(text);
	rota_msg_text_list_clear(&m);
	return 0;
}
