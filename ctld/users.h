/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_USERS_H
#define ROTA_CTLD_USERS_H

#include <sys/types.h>

/*
 * uid -> user name, looked up once per uid: listing 50,000 jobs must not
 * call getpwuid 50,000 times.
 */
struct user_cache;

struct user_cache *user_cache_create(void);
void user_cache_destroy(struct user_cache *uc);
/* The name, or the number as text for an unknown uid; borrowed. */
const char *user_cache_name(struct user_cache *uc, uid_t uid);

#endif
