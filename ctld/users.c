// SPDX-License-Identifier: MIT
/* A small cache of user names by uid (see users.h). */
#include "config.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/xalloc.h"
#include "ctld/users.h"

struct user_entry {
	uid_t uid;
	char *name;
};

struct user_cache {
	struct user_entry *e;
	size_t n;
	size_t cap;
};

struct user_cache *user_cache_create(void)
{
	return rota_xcalloc(1, sizeof(struct user_cache));
}

void user_cache_destroy(struct user_cache *uc)
{
	if (!uc)
		return;
	for (size_t i = 0; i < uc->n; i++)
		free(uc->e[i].name);
	free(uc->e);
	free(uc);
}

const char *user_cache_name(struct user_cache *uc, uid_t uid)
{
	struct passwd *pw;

	for (size_t i = 0; i < uc->n; i++) {
		if (uc->e[i].uid == uid)
			return uc->e[i].name;
	}
	if (uc->n == uc->cap) {
		uc->cap = uc->cap ? 2 * uc->cap : 16;
		uc->e = rota_xreallocarray(uc->e, uc->cap, sizeof(*uc->e));
	}
	pw = getpwuid(uid);
	uc->e[uc->n].uid = uid;
	uc->e[uc->n].name = pw ? rota_xstrdup(pw->pw_name)
			       : rota_xasprintf("%u", (unsigned)uid);
	return uc->e[uc->n++].name;
}
