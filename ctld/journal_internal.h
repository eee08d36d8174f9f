/* SPDX-License-Identifier: MIT */
#ifndef ROTA_CTLD_JOURNAL_INTERNAL_H
#define ROTA_CTLD_JOURNAL_INTERNAL_H

/*
 * What journal.c (appends, compaction) and journal_load.c (replay,
 * fallback, salvage) share; nothing else includes it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "ctld/journal.h"

/* Generations above this are refused as names (no overflow of M = T + 1). */
#define GEN_MAX 2000000000u

struct journal {
	char *dir;
	char *path;	/* the journal file appended to */
	int fd;
	int lock_fd;	/* holds the flock on StateDir/lock */
	unsigned gen;	/* its generation, T */
	unsigned base;	/* the newest snapshot known intact, B */
	uint64_t size;	/* where the records end */
	uint64_t filled; /* the file's size: records, then zeros */
	struct rota_strbuf pending;
	char loaded[512]; /* what the start used, for its log line */
	bool fell_back;
	char **aside;	/* damaged files, set aside at the next compaction */
	size_t naside;
};

/*
 * A snapshot ends in a record of its own: END_MAGIC and the number of
 * records before it (u32), so that one cut short at a record boundary is
 * damage too.  Records starting with a NUL byte are the journal's.
 */
#define END_MAGIC "\0END"
#define END_LEN 8

static inline void journal_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t journal_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* "DIR/KIND.GEN", or "DIR/KIND" for generation 0; caller frees. */
char *journal_gen_path(const char *dir, const char *kind, unsigned gen);

/*
 * Is 'name' KIND.GEN (GEN > 0) or KIND (GEN = 0), followed by 'tail'?
 * Its generation in '*gen'.
 */
bool journal_parse_name(const char *name, const char *kind, const char *tail,
			unsigned *gen);

/*
 * Find the chain of files to start from in j->dir and replay it through
 * 'fn' (damage skipped and reported if 'salvage'); fill j->path (the
 * journal to append to), gen, base, size, filled, loaded, fell_back and
 * the files to set aside.  -EILSEQ with the damage that stops it.
 */
int journal_load(struct journal *j, journal_record_fn fn, void *arg,
		 bool salvage, struct rota_error *err);

/* Forget the files to set aside. */
void journal_aside_clear(struct journal *j);

#endif
