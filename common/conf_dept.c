// SPDX-License-Identifier: MIT
/*
 * DepartmentName lines: Grid Engine's departments (usersets of type
 * DEPT), whose functional shares and override tickets the jobs of their
 * users share (ctld/core/ftickets.h):
 *   DepartmentName=physics Users=ana,bob FShares=30 OTickets=0
 * A user is in one department at most, as Grid Engine insists; a user
 * in none is in "defaultdepartment", which exists without a line (fshare
 * and oticket 0) and takes its values from one if given.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf_internal.h"
#include "common/xalloc.h"

#define CONF_DEPTS_MAX 4096

struct dept_line {
	char *name;
	char **users;
	unsigned fshares;
	unsigned otickets;
};

#define DEPT(n, s, f, lo, hi, d)                                               \
	{                                                                      \
		.name = n, .set = s, .offset = offsetof(struct dept_line, f),  \
		.min = lo, .max = hi, .def = d,                                \
	}

static const struct conf_key dept_keys[] = {
	DEPT("DepartmentName", conf_set_name, name, 0, 0, NULL),
	DEPT("Users", conf_set_names, users, 0, 0, NULL),
	DEPT("FShares", conf_set_uint, fshares, 0, 1000000000, "0"),
	DEPT("OTickets", conf_set_uint, otickets, 0, 1000000000, "0"),
};

static const struct rota_conf_department *
dept_find(const struct rota_conf *conf, const char *name)
{
	for (size_t i = 0; i < conf->ndepartments; i++)
		if (strcmp(conf->departments[i].name, name) == 0)
			return &conf->departments[i];
	return NULL;
}

int conf_dept_line(struct conf_impl *impl, struct rota_error *err,
		   const struct conf_where *at, const struct conf_token *tok,
		   size_t ntok)
{
	struct rota_conf *conf = &impl->pub;
	const struct rota_conf_department *old;
	struct dept_line dl = { 0 };
	int rc;

	conf_keys_default(dept_keys, ARRAY_SIZE(dept_keys), &dl);
	rc = conf_line_apply(err, at, dept_keys, ARRAY_SIZE(dept_keys), &dl,
			     tok, ntok);
	old = rc ? NULL : dept_find(conf, dl.name);
	if (old)
		rc = conf_errorf(err, -EINVAL, at, "DepartmentName",
				 "'%s' already declared at %s:%u", dl.name,
				 old->file, old->line);
	if (!rc && conf->ndepartments == CONF_DEPTS_MAX)
		rc = conf_errorf(err, -EINVAL, at, "DepartmentName",
				 "more than %d departments", CONF_DEPTS_MAX);
	if (rc) {
		free(dl.name);
		conf_list_free(dl.users);
		return rc;
	}
	conf->departments =
		conf_grow(conf->departments, &impl->dept_slots,
			  conf->ndepartments + 1, sizeof(*conf->departments));
	conf->departments[conf->ndepartments++] = (struct rota_conf_department){
		.name = dl.name,
		.users = dl.users ? dl.users : rota_xcalloc(1, sizeof(char *)),
		.fshares = dl.fshares,
		.otickets = dl.otickets,
		.file = at->file,
		.line = at->line,
	};
	return 0;
}

/* A user named on a department line. */
struct dept_member {
	const char *user;
	const struct rota_conf_department *dept;
	size_t order;		/* in the file, for the message's "first" */
};

static int member_cmp(const void *a, const void *b)
{
	const struct dept_member *x = a, *y = b;
	int c = strcmp(x->user, y->user);

	return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* No user in two departments (nor twice in one): sorted, n log n. */
int conf_depts_finish(struct conf_impl *impl, struct rota_error *err)
{
	const struct rota_conf *conf = &impl->pub;
	struct dept_member *m;
	size_t n = 0;
	int rc = 0;

	for (size_t i = 0; i < conf->ndepartments; i++)
		for (char **u = conf->departments[i].users; *u; u++)
			n++;
	m = rota_xreallocarray(NULL, n + 1, sizeof(*m));
	n = 0;
	for (size_t i = 0; i < conf->ndepartments; i++)
		for (char **u = conf->departments[i].users; *u; u++, n++)
			m[n] = (struct dept_member){ *u, &conf->departments[i],
						     n };
	qsort(m, n, sizeof(*m), member_cmp);
	for (size_t i = 1; i < n && !rc; i++) {
		const struct rota_conf_department *a = m[i - 1].dept;
		const struct rota_conf_department *b = m[i].dept;

		if (strcmp(m[i - 1].user, m[i].user) == 0)
			rc = conf_errorf(
				err, -EINVAL,
				&(struct conf_where){ b->file, b->line },
				"Users",
				"user '%s' is already in department "
				"'%s' at %s:%u",
				m[i].user, a->name, a->file, a->line);
	}
	free(m);
	return rc;
}

void conf_depts_free(struct conf_impl *impl)
{
	for (size_t i = 0; i < impl->pub.ndepartments; i++) {
		free(impl->pub.departments[i].name);
		conf_list_free(impl->pub.departments[i].users);
	}
	free(impl->pub.departments);
}

const struct rota_conf_department *
rota_conf_department_of(const struct rota_conf *conf, const char *user)
{
	for (size_t i = 0; i < conf->ndepartments; i++)
		for (char **u = conf->departments[i].users; *u; u++)
			if (strcmp(*u, user) == 0)
				return &conf->departments[i];
	return NULL;
}
