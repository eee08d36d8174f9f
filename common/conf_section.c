// SPDX-License-Identifier: MIT
/*
 * Plugin lines: "Fairshare=ratio MaxFairshare=1e6" chooses the fairshare
 * plugin 'ratio' and hands it its settings.  The parser only keeps them as
 * text with their file and line: which keys a plugin takes is the
 * plugin's to say, in its init() (the controller reports a key no plugin
 * asked for).  A kind's settings may run over several lines, each naming
 * the same plugin; only Limits and JobComp may name several plugins.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf_internal.h"
#include "common/xalloc.h"

static const struct {
	const char *kind;
	bool several;		/* may several plugins of it be loaded? */
} kinds[] = {
	{ "Priority", false }, { "Fairshare", false }, { "Limits", true },
	{ "Sched", false },    { "JobComp", true },
};

static int kind_index(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (strcasecmp(kinds[i].kind, key) == 0)
			return (int)i;
	}
	return -1;
}

bool conf_is_section(const char *key)
{
	return kind_index(key) >= 0;
}

/* The section this line continues, a new one, or an error. */
static int section_for(struct conf_impl *impl, struct rota_error *err,
		       const struct conf_where *at, int kind,
		       const char *name, struct rota_conf_section **out)
{
	struct rota_conf *conf = &impl->pub;
	struct rota_conf_section *s;

	for (size_t i = 0; i < conf->nsections; i++) {
		s = &conf->sections[i];
		if (strcmp(s->kind, kinds[kind].kind))
			continue;
		if (strcmp(s->name, name) == 0) {
			*out = s;
			return 0;
		}
		if (!kinds[kind].several)
			return conf_errorf(err, -EINVAL, at, kinds[kind].kind,
					   "'%s', but '%s' was chosen at %s:%u",
					   name, s->name, s->file, s->line);
	}
	conf->sections = conf_grow(conf->sections, &impl->section_slots,
				   conf->nsections + 1,
				   sizeof(*conf->sections));
	s = &conf->sections[conf->nsections++];
	*s = (struct rota_conf_section){
		.kind = rota_xstrdup(kinds[kind].kind),
		.name = rota_xstrdup(name),
		.file = at->file,
		.line = at->line,
	};
	*out = s;
	return 0;
}

static int setting_add(struct rota_conf_section *s, struct rota_error *err,
		       const struct conf_where *at,
		       const struct conf_token *tok)
{
	for (size_t i = 0; i < s->nsettings; i++) {
		const struct rota_conf_setting *o = &s->settings[i];

		if (strcasecmp(o->key, tok->key) == 0)
			return conf_errorf(err, -EINVAL, at, tok->key,
					   "given twice (first at %s:%u)",
					   o->file, o->line);
	}
	if (s->nsettings == CONF_SECTION_KEYS_MAX)
		return conf_errorf(err, -EINVAL, at, tok->key,
				   "more than %d settings for %s '%s'",
				   CONF_SECTION_KEYS_MAX, s->kind, s->name);
	/* a few keys each: grow by one */
	s->settings = rota_xreallocarray(s->settings, s->nsettings + 1,
					 sizeof(*s->settings));
	s->settings[s->nsettings++] = (struct rota_conf_setting){
		.key = rota_xstrdup(tok->key),
		.value = rota_xstrdup(tok->value),
		.file = at->file,
		.line = at->line,
	};
	return 0;
}

int conf_section_line(struct conf_impl *impl, struct rota_error *err,
		      const struct conf_where *at,
		      const struct conf_token *tok, size_t ntok)
{
	int kind = kind_index(tok[0].key);
	struct rota_conf_section *s = NULL;
	struct rota_error why;
	int rc;

	if (conf_check_name(tok[0].value, strlen(tok[0].value), &why))
		return conf_errorf(err, -EINVAL, at, kinds[kind].kind, "%s",
				   why.text);
	rc = section_for(impl, err, at, kind, tok[0].value, &s);
	for (size_t i = 1; i < ntok && !rc; i++) {
		if (conf_is_section(tok[i].key))
			rc = conf_errorf(err, -EINVAL, at, tok[i].key,
					 "must start its own line");
		else
			rc = setting_add(s, err, at, &tok[i]);
	}
	return rc;
}

void conf_sections_free(struct conf_impl *impl)
{
	struct rota_conf *conf = &impl->pub;

	for (size_t i = 0; i < conf->nsections; i++) {
		struct rota_conf_section *s = &conf->sections[i];

		for (size_t k = 0; k < s->nsettings; k++) {
			free(s->settings[k].key);
			free(s->settings[k].value);
		}
		free(s->settings);
		free(s->kind);
		free(s->name);
	}
	free(conf->sections);
}

const struct rota_conf_section *
rota_conf_section_find(const struct rota_conf *conf, const char *kind)
{
	for (size_t i = 0; i < conf->nsections; i++) {
		if (strcasecmp(conf->sections[i].kind, kind) == 0)
			return &conf->sections[i];
	}
	return NULL;
}
