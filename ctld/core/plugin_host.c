// SPDX-License-Identifier: MIT
/*
 * The plugin host (plugin_host.h).  Loading is hwloc's components.c and
 * nginx's modules in spirit: one descriptor per .so, checked field by
 * field before anything in it is called.  Settings are handed over as the
 * text rota.conf holds; the getters below parse them and remember which
 * were asked for, so that a misspelt key is refused rather than ignored.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/units.h"
#include "common/xalloc.h"
#include "ctld/core/plugin_host.h"

/* The defaults, linked in (plugins/<kind>/<name>.c built without MODULE). */
extern const struct rota_plugin rota_plugin_fairshare_fairtree;
extern const struct rota_plugin rota_plugin_priority_fifo;
extern const struct rota_plugin rota_plugin_limits_slurm;
extern const struct rota_plugin rota_plugin_sched_builtin;
extern const struct rota_plugin rota_plugin_sched_backfill;

static const struct rota_plugin *const builtins[] = {
	&rota_plugin_fairshare_fairtree,
	&rota_plugin_priority_fifo,
	&rota_plugin_limits_slurm,
	&rota_plugin_sched_builtin,
	/* linked in too, so that rota sim and the tests need no PluginDir */
	&rota_plugin_sched_backfill,
};

static const struct {
	const char *name;	/* folder under PluginDir */
	const char *line;	/* its rota.conf line key */
	size_t ops_min;		/* the ops table up to its required ops */
	/* the oldest ABI minor whose arrays the host still reads right:
	   a view the host passes in arrays grew, changing its stride */
	uint32_t minor_min;
} kinds[] = {
	[ROTA_PLUGIN_PRIORITY] = { "priority", "Priority",
				   offsetof(struct rota_priority_ops,
					    compute) + sizeof(void *) },
	[ROTA_PLUGIN_FAIRSHARE] = { "fairshare", "Fairshare",
				    offsetof(struct rota_fairshare_ops,
					     compute) + sizeof(void *) },
	[ROTA_PLUGIN_LIMITS] = { "limits", "Limits",
				 offsetof(struct rota_limits_ops, classify) +
					 sizeof(void *),
				 15 /* rota_limit_job grew in 1.15 */ },
	[ROTA_PLUGIN_SCHED] = { "sched", "Sched",
				offsetof(struct rota_sched_ops, backfill) +
					sizeof(void *) },
	[ROTA_PLUGIN_JOBCOMP] = { "jobcomp", "JobComp",
				  offsetof(struct rota_jobcomp_ops, record) +
					  sizeof(void *) },
};

struct rota_plugin_conf {
	const struct rota_conf_section *section; /* NULL: no line */
	bool *taken;		/* per setting: asked for */
};

struct plugin {
	const struct rota_plugin *desc;
	void *dl;		/* NULL when built in */
	void *state;
	char *path;		/* for messages: file, or "built-in" */
	struct rota_host host;
	struct rota_plugin_conf conf;
};

const char *plugin_kind_name(enum rota_plugin_kind kind)
{
	if (kind <= ROTA_PLUGIN_NONE || kind > ROTA_PLUGIN_JOBCOMP)
		return "unknown";
	return kinds[kind].name;
}

/* ---- settings ------------------------------------------------------------ */

static const struct rota_conf_setting *
setting_take(const struct rota_plugin_conf *conf, const char *key)
{
	const struct rota_conf_section *s = conf->section;

	for (size_t i = 0; s && i < s->nsettings; i++) {
		if (strcasecmp(s->settings[i].key, key) == 0) {
			conf->taken[i] = true;
			return &s->settings[i];
		}
	}
	return NULL;
}

static int setting_error(const struct rota_conf_setting *st, const char *key,
			 char *err, size_t errlen, const char *why)
{
	snprintf(err, errlen, "%s:%u: %s: '%.40s' %s", st->file, st->line, key,
		 st->value, why);
	return -EINVAL;
}

static int conf_double(const struct rota_plugin_conf *conf, const char *key,
		       double min, double max, double *out, char *err,
		       size_t errlen)
{
	const struct rota_conf_setting *st = setting_take(conf, key);
	char why[64];
	char *end;
	double v;

	if (!st)
		return 0;
	errno = 0;
	v = strtod(st->value, &end);
	if (end == st->value || *end || errno || !isfinite(v))
		return setting_error(st, key, err, errlen, "is not a number");
	if (v < min || v > max) {
		snprintf(why, sizeof(why), "is not within [%g, %g]", min, max);
		return setting_error(st, key, err, errlen, why);
	}
	*out = v;
	return 0;
}

static int conf_duration(const struct rota_plugin_conf *conf, const char *key,
			 int64_t min, int64_t max, int64_t *out, char *err,
			 size_t errlen)
{
	const struct rota_conf_setting *st = setting_take(conf, key);
	struct rota_error why;
	int64_t v;

	if (!st)
		return 0;
	if (rota_duration_parse(st->value, ROTA_DURATION_NEED_UNIT, &v,
				&why) < 0) {
		snprintf(err, errlen, "%s:%u: %s: %s", st->file, st->line, key,
			 why.text);
		return -EINVAL;
	}
	if (v < min)
		return setting_error(st, key, err, errlen, "is too short");
	if (v > max)
		return setting_error(st, key, err, errlen, "is too long");
	*out = v;
	return 0;
}

static int conf_bool(const struct rota_plugin_conf *conf, const char *key,
		     bool *out, char *err, size_t errlen)
{
	const struct rota_conf_setting *st = setting_take(conf, key);

	if (st && rota_bool_parse(st->value, out) < 0)
		return setting_error(st, key, err, errlen,
				     "is not yes or no");
	return 0;
}

static int conf_choice(const struct rota_plugin_conf *conf, const char *key,
		       const char *const *choices, unsigned *out, char *err,
		       size_t errlen)
{
	const struct rota_conf_setting *st = setting_take(conf, key);
	char why[128] = "is not one of";
	size_t used = strlen(why);

	if (!st)
		return 0;
	for (unsigned i = 0; choices[i]; i++) {
		if (strcasecmp(choices[i], st->value) == 0) {
			*out = i;
			return 0;
		}
		if (used < sizeof(why))
			used += (size_t)snprintf(why + used,
						 sizeof(why) - used, "%s %s",
						 i ? "," : "", choices[i]);
	}
	return setting_error(st, key, err, errlen, why);
}

static int conf_string(const struct rota_plugin_conf *conf, const char *key,
		       const char **out, char *where, size_t wherelen)
{
	const struct rota_conf_setting *st = setting_take(conf, key);

	if (!st)
		return 0;
	*out = st->value;
	snprintf(where, wherelen, "%s:%u", st->file, st->line);
	return 0;
}

static int conf_where(const struct rota_plugin_conf *conf, const char *key,
		      char *buf, size_t len)
{
	const struct rota_conf_section *s = conf->section;

	for (size_t i = 0; s && i < s->nsettings; i++) {
		if (strcasecmp(s->settings[i].key, key) == 0) {
			snprintf(buf, len, "%s:%u: %s", s->settings[i].file,
				 s->settings[i].line, s->settings[i].key);
			return 0;
		}
	}
	snprintf(buf, len, "%s", key);
	return -ENOENT;
}

static void host_log(const struct rota_host *host, enum rota_plugin_log level,
		     const char *fmt, ...)
{
	const struct plugin *p = host->priv;
	enum rota_log_level l = level == ROTA_PLUGIN_LOG_ERR ? ROTA_LOG_ERR
				: level == ROTA_PLUGIN_LOG_WARN ? ROTA_LOG_WARN
				: level == ROTA_PLUGIN_LOG_INFO ? ROTA_LOG_INFO
								: ROTA_LOG_DEBUG;
	char text[512];
	va_list ap;

	if (!rota_log_enabled(l))
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	rota_log(l, "plugin", "%s/%s: %s", plugin_kind_name(p->desc->kind),
		 p->desc->name, text);
}

/* ---- loading ------------------------------------------------------------- */

static const struct rota_plugin *builtin_find(enum rota_plugin_kind kind,
					      const char *name)
{
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++) {
		if (builtins[i]->kind == kind &&
		    strcmp(builtins[i]->name, name) == 0)
			return builtins[i];
	}
	return NULL;
}

static int dl_open(struct plugin *p, struct rota_error *err)
{
	const char *why;

	p->dl = dlopen(p->path, RTLD_NOW | RTLD_LOCAL);
	if (!p->dl) {
		why = dlerror();
		/* dlerror() starts with the path: say it once */
		if (why && strncmp(why, p->path, strlen(p->path)) == 0)
			why += strlen(p->path) + (why[strlen(p->path)] ? 2 : 0);
		/* the usual cause: PluginDir is not where they were installed */
		if (access(p->path, F_OK) != 0)
			return rota_errorf(err, -ENOENT,
					   "%s: no such plugin (PluginDir= in "
					   "rota.conf says where plugins are)",
					   p->path);
		return rota_errorf(err, -ENOENT, "%s: cannot load: %s", p->path,
				   why && *why ? why : "unknown error");
	}
	p->desc = dlsym(p->dl, "rota_plugin");
	if (!p->desc)
		return rota_errorf(err, -EINVAL,
				   "%s: no 'rota_plugin' descriptor: not a "
				   "Rota plugin", p->path);
	return 0;
}

/* Everything about the descriptor that can be wrong, one line each. */
static int desc_check(const struct plugin *p, enum rota_plugin_kind kind,
		      const char *name, struct rota_error *err)
{
	const struct rota_plugin *d = p->desc;
	uint32_t major = d->abi >> 16;
	uint32_t minor = d->abi & 0xffff;

	if (major != ROTA_PLUGIN_ABI_MAJOR || minor > ROTA_PLUGIN_ABI_MINOR ||
	    minor < kinds[kind].minor_min)
		return rota_errorf(err, -EINVAL,
				   "%s: built for plugin ABI %u.%u, this "
				   "controller takes %u.%u to %u.%u",
				   p->path, major, minor,
				   ROTA_PLUGIN_ABI_MAJOR, kinds[kind].minor_min,
				   ROTA_PLUGIN_ABI_MAJOR,
				   ROTA_PLUGIN_ABI_MINOR);
	if (d->kind != kind)
		return rota_errorf(err, -EINVAL,
				   "%s: a %s plugin, not a %s plugin", p->path,
				   plugin_kind_name(d->kind),
				   plugin_kind_name(kind));
	if (!d->name || strcmp(d->name, name) != 0)
		return rota_errorf(err, -EINVAL,
				   "%s: calls itself '%.40s', not '%s'",
				   p->path, d->name ? d->name : "", name);
	if (!d->ops || *(const size_t *)d->ops < kinds[kind].ops_min)
		return rota_errorf(err, -EINVAL, "%s: %s", p->path,
				   d->ops ? "ops table too short for this kind"
					  : "no ops table");
	if ((kind == ROTA_PLUGIN_FAIRSHARE &&
	     !((const struct rota_fairshare_ops *)d->ops)->compute) ||
	    (kind == ROTA_PLUGIN_PRIORITY &&
	     !((const struct rota_priority_ops *)d->ops)->compute))
		return rota_errorf(err, -EINVAL,
				   "%s: required op 'compute' is missing",
				   p->path);
	if (kind == ROTA_PLUGIN_SCHED &&
	    !((const struct rota_sched_ops *)d->ops)->backfill)
		return rota_errorf(err, -EINVAL,
				   "%s: required op 'backfill' is missing",
				   p->path);
	if (kind == ROTA_PLUGIN_LIMITS &&
	    !((const struct rota_limits_ops *)d->ops)->classify)
		return rota_errorf(err, -EINVAL,
				   "%s: required op 'classify' is missing",
				   p->path);
	if (kind == ROTA_PLUGIN_JOBCOMP &&
	    !((const struct rota_jobcomp_ops *)d->ops)->record)
		return rota_errorf(err, -EINVAL,
				   "%s: required op 'record' is missing",
				   p->path);
	return 0;
}

/* Run init(); then every setting must have been asked for. */
static int plugin_init(struct plugin *p, struct rota_error *err)
{
	const struct rota_conf_section *s = p->conf.section;
	char text[sizeof(err->text)] = "";
	int rc = 0;

	if (p->desc->init)
		rc = p->desc->init(&p->host, &p->conf, &p->state, text,
				   sizeof(text));
	if (rc < 0)
		return rota_errorf(err, rc, "%s", text[0] ? text : "init failed");
	for (size_t i = 0; s && i < s->nsettings; i++) {
		if (!p->conf.taken[i])
			return rota_errorf(err, -EINVAL,
					   "%s:%u: %s: not a setting of %s '%s'",
					   s->settings[i].file,
					   s->settings[i].line,
					   s->settings[i].key, s->kind,
					   s->name);
	}
	return 0;
}

int plugin_load(const struct rota_conf *conf, enum rota_plugin_kind kind,
		const char *default_name, const char *const *host_keys,
		struct plugin **out, struct rota_error *err)
{
	return plugin_load_section(conf, rota_conf_section_find(
						 conf, kinds[kind].line),
				   kind, default_name, host_keys, NULL, out,
				   err);
}

/* The members of struct rota_host past 'priv' that the host offers. */
static void host_io_copy(struct rota_host *h, const struct rota_host *io)
{
	if (!io)
		return;
	h->watch_fd = io->watch_fd;
	h->watch_set = io->watch_set;
	h->watch_remove = io->watch_remove;
	h->timer_add = io->timer_add;
	h->timer_cancel = io->timer_cancel;
	h->state_dir = io->state_dir;
	h->check_only = io->check_only;
	h->loop_priv = io->loop_priv;
}

int plugin_load_section(const struct rota_conf *conf,
			const struct rota_conf_section *s,
			enum rota_plugin_kind kind, const char *default_name,
			const char *const *host_keys,
			const struct rota_host *io, struct plugin **out,
			struct rota_error *err)
{
	const char *name = s ? s->name : default_name;
	struct plugin *p = rota_xcalloc(1, sizeof(*p));
	int rc = 0;

	*out = NULL;
	p->conf.section = s;
	p->conf.taken = rota_xcalloc(s ? s->nsettings + 1 : 1, sizeof(bool));
	p->host = (struct rota_host){
		.size = sizeof(p->host),
		.log = host_log,
		.conf_double = conf_double,
		.conf_duration = conf_duration,
		.conf_bool = conf_bool,
		.conf_choice = conf_choice,
		.priv = p,
		.conf_string = conf_string,
		.conf_where = conf_where,
	};
	host_io_copy(&p->host, io);
	for (size_t i = 0; host_keys && host_keys[i]; i++)
		setting_take(&p->conf, host_keys[i]);
	p->desc = builtin_find(kind, name);
	if (p->desc) {
		p->path = rota_xasprintf("built-in %s/%s",
					 plugin_kind_name(kind), name);
	} else {
		p->path = rota_xasprintf("%s/%s/%s.so", conf->plugin_dir,
					 plugin_kind_name(kind), name);
		rc = dl_open(p, err);
	}
	if (!rc)
		rc = desc_check(p, kind, name, err);
	if (!rc)
		rc = plugin_init(p, err);
	if (rc) {
		plugin_unload(p);
		return rc;
	}
	*out = p;
	return 0;
}

void plugin_unload(struct plugin *p)
{
	if (!p)
		return;
	if (p->state && p->desc->fini)
		p->desc->fini(p->state);
	if (p->dl)
		dlclose(p->dl);
	free(p->conf.taken);
	free(p->path);
	free(p);
}

const struct rota_plugin *plugin_desc(const struct plugin *p)
{
	return p->desc;
}

const char *plugin_name(const struct plugin *p)
{
	return p->desc->name;
}

void *plugin_state(const struct plugin *p)
{
	return p->state;
}

const void *plugin_ops(const struct plugin *p, size_t min_size)
{
	return *(const size_t *)p->desc->ops >= min_size ? p->desc->ops : NULL;
}

const struct rota_host *plugin_host(const struct plugin *p)
{
	return &p->host;
}

const struct rota_plugin_conf *plugin_conf(const struct plugin *p)
{
	return &p->conf;
}
