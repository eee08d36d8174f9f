// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the controller's state files (ctld/journal.h), as a crash,
 * a bad disk or a hostile hand leaves them.  The input is byte 0 (flags),
 * a u16 (LE) length, then that many bytes of "snapshot.2" and the rest as
 * "journal.2"; flag 1 adds an intact generation 1 before them (a snapshot
 * of two records and a journal of one), so that the fallback runs.
 *
 * An open either replays valid records (non-empty, not the journal's own)
 * or refuses with a line that names a file and asks for --salvage.  A
 * salvage always succeeds; compacted and opened again, the state gives the
 * very records the salvage kept, in order.  No crash and no leak, ever.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common/crc32c.h"
#include "common/log.h"
#include "ctld/journal.h"
#include "testsuite/fuzz/fuzz.h"

/* The records an open gave, kept to compare. */
struct seen {
	size_t n;
	size_t cap;
	char **rec;
	size_t *len;
};

static int seen_cb(const char *rec, size_t len, void *arg,
		   struct rota_error *err)
{
	struct seen *s = arg;

	FUZZ_CHECK(len >= 1 && len <= JOURNAL_RECORD_MAX && rec[0] != '\0');
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->rec = realloc(s->rec, s->cap * sizeof(*s->rec));
		s->len = realloc(s->len, s->cap * sizeof(*s->len));
		if (!s->rec || !s->len)
			abort();
	}
	s->rec[s->n] = malloc(len);
	if (!s->rec[s->n])
		abort();
	memcpy(s->rec[s->n], rec, len);
	s->len[s->n++] = len;
	return 0;
}

static void seen_free(struct seen *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->rec[i]);
	free(s->rec);
	free(s->len);
	memset(s, 0, sizeof(*s));
}

static int emit_seen(struct journal_snapshot *snap, void *arg)
{
	const struct seen *s = arg;
	int rc = 0;

	for (size_t i = 0; i < s->n && !rc; i++)
		rc = journal_snapshot_add(snap, s->rec[i], s->len[i]);
	return rc;
}

static void put_file(const char *dir, const char *name, const void *p,
		     size_t n)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(write(fd, p, n) == (ssize_t)n);
	close(fd);
}

static void framed(uint8_t *out, const char *rec, uint32_t n)
{
	uint32_t crc = rota_crc32c(0, rec, n);

	for (int i = 0; i < 4; i++) {
		out[i] = (uint8_t)(n >> 8 * i);
		out[4 + i] = (uint8_t)(crc >> 8 * i);
	}
	memcpy(out + 8, rec, n);
}

/* snapshot.1 {"a", "b", end}, journal.1 {"c"} */
static void put_generation_1(const char *dir)
{
	uint8_t snap[9 + 9 + 16], jour[9];
	char end[8] = { 0, 'E', 'N', 'D', 2, 0, 0, 0 };

	framed(snap, "a", 1);
	framed(snap + 9, "b", 1);
	framed(snap + 18, end, sizeof(end));
	framed(jour, "c", 1);
	put_file(dir, "snapshot.1", snap, sizeof(snap));
	put_file(dir, "journal.1", jour, sizeof(jour));
}

static void empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	FUZZ_CHECK(d != NULL);
	while ((e = readdir(d))) {
		if (e->d_name[0] != '.')
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

static char state_dir_path[64];

static void remove_state_dir(void)
{
	empty_dir(state_dir_path);
	rmdir(state_dir_path);
}

/* One StateDir for the process, removed at its exit. */
static const char *state_dir(void)
{
	char *dir = state_dir_path;

	if (!dir[0]) {
		snprintf(dir, sizeof(state_dir_path),
			 "/tmp/rota-fuzz-state.XXXXXX");
		FUZZ_CHECK(mkdtemp(dir) != NULL);
		rota_log_set_level(ROTA_LOG_ERR);
		atexit(remove_state_dir);
	}
	return dir;
}

/* Salvage, compact, open again: the same records. */
static void check_salvage(const char *dir)
{
	struct seen salvaged = { 0 }, again = { 0 };
	struct rota_error err = { "" };
	struct journal *j;

	FUZZ_CHECK(journal_salvage(dir, seen_cb, &salvaged, &j, &err) == 0);
	FUZZ_CHECK(journal_compact(j, emit_seen, &salvaged, &err) == 0);
	journal_close(j);
	FUZZ_CHECK(journal_open(dir, seen_cb, &again, &j, &err) == 0);
	journal_close(j);
	FUZZ_CHECK(again.n == salvaged.n);
	for (size_t i = 0; i < again.n; i++) {
		FUZZ_CHECK(again.len[i] == salvaged.len[i]);
		FUZZ_CHECK(!memcmp(again.rec[i], salvaged.rec[i],
				   again.len[i]));
	}
	seen_free(&salvaged);
	seen_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = state_dir();
	struct seen s = { 0 };
	struct rota_error err = { "" };
	struct journal *j = NULL;
	size_t split;
	bool fell_back;
	int rc;

	if (size < 3)
		return 0;
	split = (size_t)data[1] | (size_t)data[2] << 8;
	split = split < size - 3 ? split : size - 3;
	empty_dir(dir);
	if (data[0] & 1)
		put_generation_1(dir);
	put_file(dir, "snapshot.2", data + 3, split);
	put_file(dir, "journal.2", data + 3 + split, size - 3 - split);
	rc = journal_open(dir, seen_cb, &s, &j, &err);
	if (rc == 0) {
		FUZZ_CHECK(j != NULL);
		FUZZ_CHECK(journal_loaded(j, &fell_back)[0] != '\0');
		journal_close(j);
	} else {
		FUZZ_CHECK(rc == -EILSEQ && j == NULL);
		FUZZ_CHECK(strstr(err.text, "--salvage") != NULL);
		FUZZ_CHECK(strstr(err.text, dir) != NULL);
	}
	seen_free(&s);
	check_salvage(dir);
	return 0;
}
