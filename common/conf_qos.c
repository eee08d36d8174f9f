// SPDX-License-Identifier: MIT
/*
 * QOSName lines: qualities of service a job asks for with --qos.
 *   QOSName=interactive Priority=1000 TargetWait=2h
 * "normal" is what a job gets without --qos; it exists whether or not
 * a line declares it (declaring it sets its values).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf_internal.h"
#include "common/xalloc.h"

#define CONF_QOS_MAX 4096

struct qos_line {
	char *name;
	unsigned priority;
	int64_t target_wait;
	struct rota_conf_limits limits;
};

#define QOS(n, s, f, lo, hi, d)                                                \
	{                                                                      \
		.name = n, .set = s, .offset = offsetof(struct qos_line, f),   \
		.min = lo, .max = hi, .def = d,                                \
	}

static const struct conf_key qos_keys[] = {
	QOS("QOSName", conf_set_name, name, 0, 0, NULL),
	QOS("Priority", conf_set_uint, priority, 0, 1000000000, NULL),
	QOS("TargetWait", conf_set_time, target_wait, 0, 366 * 86400, NULL),
	LIMIT_KEYS(struct qos_line),
	QOS_LIMIT_KEYS(struct qos_line),
};

int conf_qos_line(struct conf_impl *impl, struct rota_error *err,
		  const struct conf_where *at, const struct conf_token *tok,
		  size_t ntok)
{
	struct rota_conf *conf = &impl->pub;
	const struct rota_conf_qos *old;
	struct qos_line ql = { 0 };
	int rc;

	conf_keys_default(qos_keys, ARRAY_SIZE(qos_keys), &ql);
	conf_limits_init(&ql.limits);
	rc = conf_line_apply(err, at, qos_keys, ARRAY_SIZE(qos_keys), &ql, tok,
			     ntok);
	if (!rc)
		rc = conf_limits_check(&ql.limits, at, err);
	old = rc ? NULL : rota_conf_qos_find(conf, ql.name);
	if (old)
		rc = conf_errorf(err, -EINVAL, at, "QOSName",
				 "'%s' already declared at %s:%u", ql.name,
				 old->file, old->line);
	if (!rc && conf->nqos == CONF_QOS_MAX)
		rc = conf_errorf(err, -EINVAL, at, "QOSName",
				 "more than %d QOS", CONF_QOS_MAX);
	if (rc) {
		free(ql.name);
		return rc;
	}
	conf->qos = conf_grow(conf->qos, &impl->qos_slots, conf->nqos + 1,
			      sizeof(*conf->qos));
	conf->qos[conf->nqos++] = (struct rota_conf_qos){
		.name = ql.name,
		.priority = ql.priority,
		.target_wait = ql.target_wait,
		.limits = ql.limits,
		.file = at->file,
		.line = at->line,
	};
	return 0;
}

void conf_qos_free(struct conf_impl *impl)
{
	for (size_t i = 0; i < impl->pub.nqos; i++)
		free(impl->pub.qos[i].name);
	free(impl->pub.qos);
}

const struct rota_conf_qos *rota_conf_qos_find(const struct rota_conf *conf,
					       const char *name)
{
	for (size_t i = 0; i < conf->nqos; i++) {
		if (strcmp(conf->qos[i].name, name) == 0)
			return &conf->qos[i];
	}
	return NULL;
}
