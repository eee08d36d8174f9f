/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_CORE_PLUGIN_HOST_H
#define ROTA_CTLD_CORE_PLUGIN_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "plugins/rota_plugin.h"

/*
 * The plugin host: finds the plugin rota.conf names for a kind (its line,
 * "Fairshare=ratio ..."), checks it and runs its init() with its settings.
 * A kind's default is linked in (no dlopen: the core, rota sim and the
 * tests work without PluginDir); any other name is dlopen'ed from
 * PluginDir/<kind>/<name>.so and refused, in one line naming the file and
 * the reason, for a different ABI major or a newer minor, another kind or
 * name than asked, a missing ops table or required op, or a setting its
 * init() did not take.
 */
struct rota_conf;
struct plugin;

/*
 * Load the plugin of 'kind' that 'conf' chooses, or 'default_name'.
 * 'host_keys' (NULL-terminated, or NULL) are settings of that line the
 * host reads itself with plugin_host()'s getters, not the plugin.  The
 * settings are borrowed from 'conf': getters may be used while it lives
 * (the plugin's own are read in init()).  Caller frees with
 * plugin_unload().  -ENOENT (no such file), -EINVAL (refused,
 * or init failed) with the line in 'err'.
 */
int plugin_load(const struct rota_conf *conf, enum rota_plugin_kind kind,
		const char *default_name, const char *const *host_keys,
		struct plugin **out, struct rota_error *err);
/*
 * The same for one given section ('s': one of several JobComp lines; NULL:
 * the default), with 'io' (or NULL): the host's event loop members of
 * struct rota_host (watch_fd .. loop_priv), copied into the plugin's.
 */
struct rota_conf_section;
int plugin_load_section(const struct rota_conf *conf,
			const struct rota_conf_section *s,
			enum rota_plugin_kind kind, const char *default_name,
			const char *const *host_keys,
			const struct rota_host *io, struct plugin **out,
			struct rota_error *err);
/* fini(), then dlclose(); accepts NULL. */
void plugin_unload(struct plugin *p);

/* "fairshare", "priority", ...; static. */
const char *plugin_kind_name(enum rota_plugin_kind kind);

/* Borrowed until plugin_unload(). */
const struct rota_plugin *plugin_desc(const struct plugin *p);
const char *plugin_name(const struct plugin *p);
void *plugin_state(const struct plugin *p);
/* The ops table, or NULL if it is shorter than 'min_size' (an old one). */
const void *plugin_ops(const struct plugin *p, size_t min_size);
/*
 * Whether 'ops', a table from plugin_ops(), reaches 'field': a plugin
 * built for an older ABI minor has a shorter one, without later fields.
 */
#define PLUGIN_OPS_HAS(ops, field)                                       \
	((ops)->size >= offsetof(__typeof__(*(ops)), field) +            \
				sizeof((ops)->field))

/* For reading the 'host_keys' of plugin_load(). */
const struct rota_host *plugin_host(const struct plugin *p);
const struct rota_plugin_conf *plugin_conf(const struct plugin *p);

#endif
