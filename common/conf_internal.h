/* SPDX-License-Identifier: MIT */
#ifndef ROTA_COMMON_CONF_INTERNAL_H
#define ROTA_COMMON_CONF_INTERNAL_H

/*
 * Shared by the files of rota.conf's parser only: conf.c (key tables,
 * global keys, the whole built and checked), conf_read.c (files, lines,
 * tokens), conf_node.c (NodeName lines), conf_queue.c (QueueName lines),
 * conf_value.c (value setters), conf_account.c (the account tree),
 * conf_qos.c (QOSName lines), conf_dept.c (DepartmentName lines) and
 * conf_section.c (plugin lines).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/conf.h"
#include "common/error.h"

#define CONF_LINE_MAX 4096
#define CONF_DEPTH_MAX 8
#define CONF_FILE_MAX (16 << 20)
#define CONF_TOKENS_MAX 32
#define CONF_LINE_KEYS_MAX 24	   /* keys one kind of line may have */
#define CONF_QUEUES_MAX 4096
#define CONF_ACCOUNTS_MAX 65536	   /* AccountName and UserName lines each */
#define CONF_SECTION_KEYS_MAX 256  /* keys of one plugin's lines in all */
#define CONF_MEMBERS_MAX (1 << 20) /* names in all queues' Nodes= lists */
#define CONF_NAME_MAX 64	   /* cluster, queue, feature and user names */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define FIELD(base, key, type) ((type *)((char *)(base) + (key)->offset))

struct conf_key {
	const char *name;	/* canonical spelling, matched ignoring case */
	int (*set)(const struct conf_key *key, const char *value, void *base,
		   struct rota_error *err);
	size_t offset;
	int64_t min;
	int64_t max;
	const char *def;	/* given to 'set' first; NULL: zero */
};

struct conf_impl {
	struct rota_conf pub;
	char **files;		/* names that nodes' and queues' 'file' use */
	size_t nfiles;
	char ***featsets;	/* one features list per NodeName line */
	size_t nfeatsets;
	const struct rota_conf_node **node_order; /* sorted by name */
	size_t node_slots;	/* allocated sizes of the arrays above */
	size_t queue_slots;
	size_t featset_slots;
	size_t file_slots;
	size_t account_slots;
	size_t user_slots;
	size_t section_slots;
	size_t qos_slots;
	size_t dept_slots;
};

struct conf_where {
	const char *file;
	unsigned line;
};

struct conf_token {
	char *key;
	char *value;
};

/* One reading of rota.conf: the object it builds and where it is. */
struct conf_parser {
	struct conf_impl *impl;
	struct rota_error *err;
	struct conf_where *seen;	/* per global key: first setting */
	struct {
		dev_t dev;
		ino_t ino;
	} open[CONF_DEPTH_MAX + 1];	/* files being read, for cycles */
	size_t nopen;
	unsigned depth;			/* Include nesting */
	struct rota_hostlist **queue_nodes; /* per queue; NULL: all */
	size_t members;			/* names in all of them */
};

/* Text read as if it were the file 'name' (rota_conf_load_buffer). */
struct conf_buffer {
	const char *name;
	const char *text;
	size_t len;
};

/* conf.c */
int conf_errorf(struct rota_error *err, int code, const struct conf_where *at,
		const char *key, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
const struct conf_key *conf_key_find(const struct conf_key *table, size_t n,
				     const char *name);
void conf_keys_default(const struct conf_key *table, size_t n, void *base);
/* Keys of one NodeName, QueueName, ... line into 'base'. */
int conf_line_apply(struct rota_error *err, const struct conf_where *at,
		    const struct conf_key *table, size_t n, void *base,
		    const struct conf_token *tok, size_t ntok);
/* Keys of a line that no other kind of line claims, into p->impl->pub. */
int conf_global_apply(struct conf_parser *p, const struct conf_where *at,
		      const struct conf_token *tok, size_t ntok);

/* conf_read.c: files, Includes and lines; each line to its kind's parser. */
/* Read the file named by 'arg' (a const char *) and what it includes. */
int conf_read_path(struct conf_parser *p, const void *arg);
/* Read the struct conf_buffer at 'arg' and what it includes. */
int conf_read_buffer(struct conf_parser *p, const void *arg);

/* conf_node.c: NodeName lines, then the nodes' index by name. */
int conf_node_line(struct conf_parser *p, const struct conf_where *at,
		   const struct conf_token *tok, size_t ntok);
/* Fill impl->node_order; a name declared twice is an error at its 2nd line. */
int conf_nodes_index(struct conf_parser *p);
/* bsearch() comparator of a node name with an entry of impl->node_order. */
int conf_nodes_gres_check(struct conf_parser *p);
int conf_node_key_cmp(const void *key, const void *elem);

/* conf_queue.c: QueueName lines, then each queue's nodes resolved. */
int conf_queue_line(struct conf_parser *p, const struct conf_where *at,
		    const struct conf_token *tok, size_t ntok);
/*
 * Point queue 'qi' at its nodes' names (after conf_nodes_index); 'mark'
 * has a slot per node and flags names already listed.
 */
int conf_queue_resolve(struct conf_parser *p, size_t qi, size_t *mark);

/* conf_value.c */
/* Room for 'need' elements of 'size' bytes in 'array' of '*slots'. */
void *conf_grow(void *array, size_t *slots, size_t need, size_t size);
void conf_show_seconds(int64_t v, char *buf, size_t len);
int conf_check_name(const char *s, size_t len, struct rota_error *err);
/* QueueName: a Slurm partition's characters, less rota.conf's syntax. */
int conf_set_queue_name(const struct conf_key *key, const char *value,
			void *base, struct rota_error *err);
void conf_list_free(char **list);
int conf_set_uint(const struct conf_key *key, const char *value, void *base,
		  struct rota_error *err);
int conf_set_int(const struct conf_key *key, const char *value, void *base,
		 struct rota_error *err);
int conf_set_double(const struct conf_key *key, const char *value, void *base,
		    struct rota_error *err);
int conf_set_duration(const struct conf_key *key, const char *value,
		      void *base, struct rota_error *err);
int conf_set_time(const struct conf_key *key, const char *value, void *base,
		  struct rota_error *err);
int conf_set_size_mb(const struct conf_key *key, const char *value,
		     void *base, struct rota_error *err);
int conf_set_size_bytes(const struct conf_key *key, const char *value,
			void *base, struct rota_error *err);
int conf_set_bool(const struct conf_key *key, const char *value, void *base,
		  struct rota_error *err);
int conf_set_string(const struct conf_key *key, const char *value,
		    void *base, struct rota_error *err);
int conf_set_path(const struct conf_key *key, const char *value, void *base,
		  struct rota_error *err);
int conf_set_name(const struct conf_key *key, const char *value, void *base,
		  struct rota_error *err);
int conf_set_names(const struct conf_key *key, const char *value,
		   void *base, struct rota_error *err);
int conf_set_billing(const struct conf_key *key, const char *value,
		     void *base, struct rota_error *err);
/* Licenses=: 'base' is the whole struct rota_conf */
int conf_set_licenses(const struct conf_key *key, const char *value,
		      void *base, struct rota_error *err);
int conf_set_log_level(const struct conf_key *key, const char *value,
		       void *base, struct rota_error *err);
int conf_set_hostlist(const struct conf_key *key, const char *value,
		      void *base, struct rota_error *err);
int conf_set_queue_nodes(const struct conf_key *key, const char *value,
			 void *base, struct rota_error *err);

/* conf_limits.c: limit keys of UserName, AccountName and QOSName lines. */
int conf_set_limit(const struct conf_key *key, const char *value, void *base,
		   struct rota_error *err);
int conf_set_limit_time(const struct conf_key *key, const char *value,
			void *base, struct rota_error *err);
int conf_set_tres(const struct conf_key *key, const char *value, void *base,
		  struct rota_error *err);
int conf_set_run_mins(const struct conf_key *key, const char *value,
		      void *base, struct rota_error *err);
int conf_set_grp_tres(const struct conf_key *key, const char *value,
		      void *base, struct rota_error *err);
int conf_set_tres_per_user(const struct conf_key *key, const char *value,
			   void *base, struct rota_error *err);
int conf_set_tres_per_account(const struct conf_key *key, const char *value,
			      void *base, struct rota_error *err);
void conf_limits_init(struct rota_conf_limits *l);
int conf_limits_check(const struct rota_conf_limits *l,
		      const struct conf_where *at, struct rota_error *err);
/*
 * The limit keys' table entries for a line struct with a 'limits' member
 * of type struct rota_conf_limits: LIMIT_KEYS(struct account_line).  The
 * TRES setters fill several fields: their offset is the whole set's
 * (max_jobs is its first member).
 */
#define LIMIT_KEY(line, n, s, f)                                               \
	{                                                                      \
		.name = n, .set = s,                                           \
		.offset = offsetof(line, limits) +                             \
			  offsetof(struct rota_conf_limits, f),                \
	}
#define LIMIT_KEYS(line)                                                       \
	LIMIT_KEY(line, "MaxJobs", conf_set_limit, max_jobs),                  \
	LIMIT_KEY(line, "MaxSubmitJobs", conf_set_limit, max_submit),          \
	LIMIT_KEY(line, "MaxWall", conf_set_limit_time, max_wall),             \
	LIMIT_KEY(line, "MaxTRES", conf_set_tres, max_jobs),                   \
	LIMIT_KEY(line, "GrpTRESRunMins", conf_set_run_mins, max_jobs),        \
	LIMIT_KEY(line, "GrpTRES", conf_set_grp_tres, max_jobs),               \
	LIMIT_KEY(line, "MaxIdle", conf_set_limit, max_idle),                  \
	LIMIT_KEY(line, "MaxPS", conf_set_limit, max_ps),                      \
	LIMIT_KEY(line, "MaxPSHard", conf_set_limit, max_ps_hard),             \
	LIMIT_KEY(line, "Allocation", conf_set_limit, allocation)
/* Slurm's QOS-only limits on what one user's or account's jobs hold. */
#define QOS_LIMIT_KEYS(line)                                                   \
	LIMIT_KEY(line, "MaxTRESPerUser", conf_set_tres_per_user, max_jobs),   \
	LIMIT_KEY(line, "MaxTRESPerAccount", conf_set_tres_per_account,       \
		  max_jobs)

/* conf_account.c: AccountName and UserName lines, then the whole tree. */
int conf_account_line(struct conf_impl *impl, struct rota_error *err,
		      const struct conf_where *at,
		      const struct conf_token *tok, size_t ntok);
int conf_user_line(struct conf_impl *impl, struct rota_error *err,
		   const struct conf_where *at, const struct conf_token *tok,
		   size_t ntok);
int conf_accounts_finish(struct conf_impl *impl, struct rota_error *err);
void conf_accounts_free(struct conf_impl *impl);

/* conf_qos.c: QOSName lines. */
int conf_qos_line(struct conf_impl *impl, struct rota_error *err,
		  const struct conf_where *at, const struct conf_token *tok,
		  size_t ntok);
void conf_qos_free(struct conf_impl *impl);

/* conf_dept.c: DepartmentName lines, then no user in two. */
int conf_dept_line(struct conf_impl *impl, struct rota_error *err,
		   const struct conf_where *at, const struct conf_token *tok,
		   size_t ntok);
int conf_depts_finish(struct conf_impl *impl, struct rota_error *err);
void conf_depts_free(struct conf_impl *impl);

/* conf_section.c: a plugin's line (Fairshare=NAME Key=Value ...). */
bool conf_is_section(const char *key);
int conf_section_line(struct conf_impl *impl, struct rota_error *err,
		      const struct conf_where *at,
		      const struct conf_token *tok, size_t ntok);
void conf_sections_free(struct conf_impl *impl);

#endif
