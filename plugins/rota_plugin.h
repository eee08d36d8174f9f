/* SPDX-License-Identifier: MIT */
#ifndef ROTA_PLUGINS_ROTA_PLUGIN_H
#define ROTA_PLUGINS_ROTA_PLUGIN_H

/*
 * The plugin API: the one project header a policy plugin includes.
 *
 * A plugin is a .so under PluginDir/<kind>/<name>.so exporting one symbol,
 * 'rota_plugin', a const struct rota_plugin naming its ABI, kind and name
 * and pointing at the ops table of its kind (a kernel driver's
 * file_operations).  The controller's loader refuses, in one line naming
 * the file and the reason, a different ABI major or a newer minor, a kind
 * or name that is not what rota.conf asked for, or a missing required op.
 *
 * Plugins never see the controller's structures: they read const views
 * the host passes in, write their outputs into fields marked so, and call
 * back only through struct rota_host (log, settings).  They keep no
 * globals: their state hangs off the handle init() returns.
 *
 * Growth: new ops and view fields are appended and the minor bumped; a
 * host reads an op only if the table's 'size' covers it.  Removing,
 * reordering or retyping anything bumps the major.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ROTA_PLUGIN_ABI_MAJOR 1
#define ROTA_PLUGIN_ABI_MINOR 1
#define ROTA_PLUGIN_ABI ((ROTA_PLUGIN_ABI_MAJOR << 16) | ROTA_PLUGIN_ABI_MINOR)

/*
 * Built as a module (-DROTA_PLUGIN_MODULE) the descriptor is the
 * well-known 'rota_plugin'; linked into a program as a kind's default it
 * takes a unique name, so that several defaults can live in one binary.
 */
#ifdef ROTA_PLUGIN_MODULE
#define ROTA_PLUGIN_EXPORT(kind, name) rota_plugin
#else
#define ROTA_PLUGIN_EXPORT(kind, name) rota_plugin_##kind##_##name
#endif

enum rota_plugin_kind {
	ROTA_PLUGIN_NONE = 0,
	ROTA_PLUGIN_PRIORITY,
	ROTA_PLUGIN_FAIRSHARE,
	ROTA_PLUGIN_LIMITS,
	ROTA_PLUGIN_SCHED,
	ROTA_PLUGIN_JOBCOMP,
};

enum rota_plugin_log {
	ROTA_PLUGIN_LOG_ERR = 1,
	ROTA_PLUGIN_LOG_WARN,
	ROTA_PLUGIN_LOG_INFO,
	ROTA_PLUGIN_LOG_DEBUG,
};

/* A plugin's settings: the rest of its line(s) in rota.conf. */
struct rota_plugin_conf;

/* The host's event loop, as plugins see it (struct rota_host, ABI 1.1). */
struct rota_host_watch;
struct rota_host_timer;
enum {
	ROTA_HOST_EV_READ = 1,
	ROTA_HOST_EV_WRITE = 2,
	ROTA_HOST_EV_ERROR = 4, /* reported only */
};
typedef void (*rota_host_fd_fn)(int fd, unsigned events, void *arg);
typedef void (*rota_host_timer_fn)(void *arg);

/*
 * What the host offers a plugin.  The settings getters parse the value of
 * 'key' (matched ignoring case) in the plugin's section, or leave '*out'
 * at the caller's default when the key is absent; on a bad value they
 * fill 'err' with "file:line: Key: reason" and return -EINVAL.  A key the
 * plugin never asks for is an error the host reports after init().
 */
struct rota_host {
	size_t size;
	void (*log)(const struct rota_host *host, enum rota_plugin_log level,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
	int (*conf_double)(const struct rota_plugin_conf *conf,
			   const char *key, double min, double max,
			   double *out, char *err, size_t errlen);
	/* durations as rota.conf writes them: "90s", "168h", "7d" */
	int (*conf_duration)(const struct rota_plugin_conf *conf,
			     const char *key, int64_t min, int64_t max,
			     int64_t *out, char *err, size_t errlen);
	int (*conf_bool)(const struct rota_plugin_conf *conf, const char *key,
			 bool *out, char *err, size_t errlen);
	/* one of 'choices' (NULL-terminated); '*out' is its index */
	int (*conf_choice)(const struct rota_plugin_conf *conf,
			   const char *key, const char *const *choices,
			   unsigned *out, char *err, size_t errlen);
	void *priv;		/* the host's, not the plugin's */
	/*
	 * ABI 1.1: text settings, borrowed until init() returns; and where a
	 * setting is written, "file:line: Key", for the plugin's own checks
	 * (-ENOENT when absent).
	 */
	int (*conf_string)(const struct rota_plugin_conf *conf,
			   const char *key, const char **out, char *err,
			   size_t errlen);
	int (*conf_where)(const struct rota_plugin_conf *conf, const char *key,
			  char *buf, size_t len);
	/*
	 * ABI 1.1: the host's event loop and state directory, for plugins
	 * that do I/O (jobcomp).  Check ROTA_HOST_HAS(host, member) before
	 * use: rota-ctld offers them; a host without a loop (rota sim, unit
	 * tests) leaves them NULL.  Callbacks run on the loop and must not
	 * block; a watcher or timer may be removed from its own callback.
	 * Events are ROTA_HOST_EV_*.
	 */
	struct rota_host_watch *(*watch_fd)(const struct rota_host *host,
					    int fd, unsigned events,
					    rota_host_fd_fn cb, void *arg);
	void (*watch_set)(struct rota_host_watch *w, unsigned events);
	void (*watch_remove)(struct rota_host_watch *w);
	/* call 'cb' once, 'ms' milliseconds from now */
	struct rota_host_timer *(*timer_add)(const struct rota_host *host,
					     int64_t ms, rota_host_timer_fn cb,
					     void *arg);
	void (*timer_cancel)(struct rota_host_timer *t);
	const char *state_dir;	/* StateDir: for the plugin's own files */
	bool check_only;	/* init() only checks settings: no I/O, no
				   files (rota-ctld -t) */
	void *loop_priv;	/* the host's, for the members above */
};

/* Is 'member' of struct rota_host offered by this host? */
#define ROTA_HOST_HAS(host, member)                                        \
	((host)->size >= offsetof(struct rota_host, member) +               \
				 sizeof((host)->member))

/* ---- fairshare ------------------------------------------------------------ */

#define ROTA_SHARE_NONE UINT32_MAX

/*
 * One node of the account tree: an account, or a user's association with
 * one account (a user in two accounts is two leaves).  The host fills the
 * inputs; the plugin writes the outputs for every node.
 */
struct rota_share_node {
	const char *name;	/* account name, or the user's name */
	const char *account;	/* the account itself, or the user's account */
	uint32_t parent;	/* index; ROTA_SHARE_NONE for the root */
	uint32_t first_child;	/* ROTA_SHARE_NONE when a leaf */
	uint32_t next_sibling;	/* ROTA_SHARE_NONE when the last */
	uint32_t depth;		/* 0 for the root */
	bool is_user;
	/* inputs */
	double shares;		/* raw, as rota.conf gives them */
	double shares_norm;	/* of the machine: shares / siblings' along
				   the path; 1 for the root */
	double usage;		/* decayed charged core-seconds of the subtree */
	double usage_norm;	/* usage / the root's usage; 0 when none */
	uint32_t pending;	/* pending jobs of the subtree */
	uint32_t running;	/* running jobs of the subtree */
	/* outputs */
	double usage_eff;	/* the usage the algorithm weighs (classic's
				   effective usage; else usage_norm) */
	double level_fs;	/* Fair-Tree's S/U among siblings; else NAN */
	double value;		/* the algorithm's own figure (IT4I: 0..1e6) */
	double factor;		/* the fairshare factor, in [0, 1] */
	double tickets;		/* share-tree tickets held; else 0 */
};

/*
 * The whole tree, nodes in depth-first preorder (a parent before its
 * children, siblings by name), node 0 the root account "root".
 */
struct rota_share_tree {
	struct rota_share_node *nodes;
	size_t n;
	int64_t now;		/* Unix seconds, from the injected clock */
};

struct rota_fairshare_ops {
	size_t size;		/* sizeof the plugin's table */
	/* required: set every node's outputs */
	int (*compute)(void *state, struct rota_share_tree *tree);
};

/* ---- the descriptor ------------------------------------------------------- */

struct rota_plugin {
	uint32_t abi;		/* ROTA_PLUGIN_ABI it was built against */
	enum rota_plugin_kind kind;
	const char *name;
	/*
	 * Optional: validate 'conf' and create the state (NULL is a fine
	 * state).  0, or -EINVAL with the line to show in 'err'.
	 */
	int (*init)(const struct rota_host *host,
		    const struct rota_plugin_conf *conf, void **state,
		    char *err, size_t errlen);
	void (*fini)(void *state); /* optional */
	const void *ops;	/* struct rota_<kind>_ops */
};

/* ---- jobcomp (ABI 1.1) ---------------------------------------------------- */

/*
 * One finished job, as the controller hands it over once its end is safe
 * in the journal.  A const view: strings are borrowed for the call.
 */
struct rota_jobcomp_record {
	uint32_t id;
	const char *cluster;	/* ClusterName */
	const char *name;	/* the job's name */
	const char *user;
	uint32_t uid;
	uint32_t gid;
	const char *account;
	const char *queue;
	const char *nodes;	/* hostlist text, "n[01-02]"; "" if it never ran */
	uint32_t cores;		/* in all */
	uint64_t memory_mb;	/* per node, as asked */
	int64_t time_limit;	/* seconds */
	int64_t submit;		/* Unix seconds */
	int64_t eligible;	/* could first start (no holds yet: submit) */
	int64_t start;		/* 0 if it never ran */
	int64_t end;
	int exit_code;
	int signal;		/* the signal that killed it, or 0 */
	const char *state;	/* "COMPLETED", "FAILED", "CANCELLED", ... */
	double priority;	/* at its start */
	double usage;		/* core-seconds charged, undecayed */
	uint32_t runs;		/* starts: 2 after one requeue */
};

struct rota_jobcomp_ops {
	size_t size;		/* sizeof the plugin's table */
	/*
	 * Required: take one record.  It must be on its way once flush()
	 * returns: in a file, or in the plugin's spool (sent later): the
	 * host counts it delivered.  0, or -errno (the host logs it).
	 */
	int (*record)(void *state, const struct rota_jobcomp_record *r);
	/* Optional: after a batch of record()s, make them durable (fsync). */
	int (*flush)(void *state);
};

#endif
