// SPDX-License-Identifier: MIT
/*
 * The journal and snapshot files: replay order, a torn last record cut off,
 * damage elsewhere refused with file and offset, compaction.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "ctld/journal.h"

static char dir[64];
static char seen[16][64];
static int nseen;

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/rota-journal.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	nseen = 0;
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static int record_cb(const char *rec, size_t len, void *arg,
		     struct rota_error *err)
{
	ck_assert_int_lt(nseen, 16);
	ck_assert_uint_lt(len, sizeof(seen[0]));
	memcpy(seen[nseen], rec, len);
	seen[nseen++][len] = '\0';
	return 0;
}

static struct journal *open_ok(void)
{
	struct journal *j;
	struct rota_error err = { "" };

	nseen = 0;
	ck_assert_msg(journal_open(dir, record_cb, NULL, &j, &err) == 0, "%s",
		      err.text);
	return j;
}

static void write_three(void)
{
	struct journal *j = open_ok();
	struct rota_error err;

	ck_assert_int_eq(journal_append(j, "one", 3), 0);
	ck_assert_int_eq(journal_append(j, "two", 3), 0);
	ck_assert_int_eq(journal_sync(j, &err), 0);
	ck_assert_int_eq(journal_append(j, "three", 5), 0);
	ck_assert_int_eq(journal_sync(j, &err), 0);
	ck_assert_uint_eq(journal_size(j), 3 * 8 + 11);
	journal_close(j);
}

static char *path(const char *name)
{
	static char p[128];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

START_TEST(test_replay_in_order)
{
	struct journal *j;

	write_three();
	j = open_ok();
	ck_assert_int_eq(nseen, 3);
	ck_assert_str_eq(seen[0], "one");
	ck_assert_str_eq(seen[1], "two");
	ck_assert_str_eq(seen[2], "three");
	journal_close(j);
}
END_TEST

START_TEST(test_torn_tail_is_cut)
{
	struct journal *j;
	struct stat st;
	int fd;

	write_three();
	/* a crash while writing a fourth record: its header and half of it */
	fd = open(path("journal"), O_WRONLY | O_APPEND);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "\x0a\0\0\0\x01\x02\x03\x04half", 12), 12);
	close(fd);
	j = open_ok();
	ck_assert_int_eq(nseen, 3);
	journal_close(j);
	ck_assert_int_eq(stat(path("journal"), &st), 0);
	ck_assert_int_eq(st.st_size, 3 * 8 + 11);
}
END_TEST

START_TEST(test_damage_in_the_middle_refused)
{
	struct rota_error err = { "" };
	struct journal *j;
	char want[300];
	int fd;

	write_three();
	/* one bit of "two" flips: records follow, so it is not a torn tail */
	fd = open(path("journal"), O_WRONLY);
	ck_assert_int_eq(pwrite(fd, "T", 1, 8 + 3 + 8), 1);
	close(fd);
	ck_assert_int_eq(journal_open(dir, record_cb, NULL, &j, &err),
			 -EILSEQ);
	ck_assert_ptr_null(j);
	snprintf(want, sizeof(want),
		 "%s: damaged record at offset 11 of 35 (a CRC mismatch); "
		 "refusing to start: run 'rota-ctld --salvage'",
		 path("journal"));
	ck_assert_str_eq(err.text, want);
}
END_TEST

static int emit_two(struct journal_snapshot *s, void *arg)
{
	int rc = journal_snapshot_add(s, "alpha", 5);

	return rc ? rc : journal_snapshot_add(s, "beta", 4);
}

START_TEST(test_compact)
{
	struct rota_error err;
	struct journal *j;

	write_three();
	j = open_ok();
	ck_assert_int_eq(journal_compact(j, emit_two, NULL, &err), 0);
	ck_assert_uint_eq(journal_size(j), 0);
	ck_assert_int_eq(journal_append(j, "after", 5), 0);
	ck_assert_int_eq(journal_sync(j, &err), 0);
	journal_close(j);
	j = open_ok();
	ck_assert_int_eq(nseen, 3);
	ck_assert_str_eq(seen[0], "alpha");
	ck_assert_str_eq(seen[1], "beta");
	ck_assert_str_eq(seen[2], "after");
	journal_close(j);
	ck_assert_int_eq(access(path("snapshot.1.new"), F_OK), -1);
	/* the previous generation stays: a fresh one, with no snapshot */
	ck_assert_int_eq(access(path("journal"), F_OK), 0);
	ck_assert_int_eq(access(path("snapshot.1"), F_OK), 0);
	ck_assert_int_eq(access(path("journal.1"), F_OK), 0);
}
END_TEST

START_TEST(test_damaged_snapshots_refused)
{
	struct rota_error err = { "" };
	struct journal *j;
	int fd;

	j = open_ok();
	ck_assert_int_eq(journal_compact(j, emit_two, NULL, &err), 0);
	ck_assert_int_eq(journal_compact(j, emit_two, NULL, &err), 0);
	journal_close(j);
	/* both snapshots damaged: nothing to fall back to */
	fd = open(path("snapshot.2"), O_WRONLY | O_APPEND);
	ck_assert_int_eq(write(fd, "\x09\0\0\0xxxxtorn", 12), 12);
	close(fd);
	fd = open(path("snapshot.1"), O_WRONLY);
	ck_assert_int_eq(pwrite(fd, "A", 1, 8), 1);
	close(fd);
	ck_assert_int_eq(journal_open(dir, record_cb, NULL, &j, &err),
			 -EILSEQ);
	ck_assert_msg(strstr(err.text, "snapshot.2: damaged record at "
				       "offset 25 of 53 (records after the "
				       "end record)"),
		      "%s", err.text);
	ck_assert_ptr_nonnull(strstr(err.text, "run 'rota-ctld --salvage'"));
}
END_TEST

START_TEST(test_one_process_at_a_time)
{
	struct rota_error err = { "" };
	struct journal *j = open_ok(), *again;
	char want[300];

	ck_assert_int_eq(journal_salvage(dir, record_cb, NULL, &again, &err),
			 -EBUSY);
	ck_assert_ptr_null(again);
	snprintf(want, sizeof(want),
		 "StateDir '%s' is in use by another rota-ctld (%s is locked)",
		 dir, path("lock"));
	ck_assert_str_eq(err.text, want);
	journal_close(j);
	journal_close(open_ok());
}
END_TEST

static int failing_cb(const char *rec, size_t len, void *arg,
		      struct rota_error *err)
{
	return rota_errorf(err, -ENOENT, "record says no");
}

START_TEST(test_record_error_stops_replay)
{
	struct rota_error err = { "" };
	struct journal *j;

	write_three();
	ck_assert_int_eq(journal_open(dir, failing_cb, NULL, &j, &err),
			 -ENOENT);
	ck_assert_str_eq(err.text, "record says no");
}
END_TEST

/*
 * A model of the controller's use: jobs 1..NJOBS, each record "J<id>=<v>"
 * an upsert of job <id> to version <v>, a snapshot the set of them.  The
 * history is NHIST records, compacted after COMPACT_AT[0] and [1]: the
 * files are then snapshot.1, journal.1, snapshot.2 and journal.2.
 */
#define NJOBS 12
#define NHIST 45
static const int compact_at[] = { 15, 30 };

struct model {
	int ver[NJOBS + 1];
};

static struct model hist_state[NHIST + 1]; /* after each prefix */
static char hist_rec[NHIST][16];

static int model_cb(const char *rec, size_t len, void *arg,
		    struct rota_error *err)
{
	struct model *m = arg;
	char text[32];
	int id, v;

	if (len >= sizeof(text))
		return rota_errorf(err, -EPROTO, "record too long");
	memcpy(text, rec, len);
	text[len] = '\0';
	if (sscanf(text, "J%d=%d", &id, &v) != 2 || id < 1 || id > NJOBS)
		return rota_errorf(err, -EPROTO, "bad record '%s'", text);
	m->ver[id] = v;
	return 0;
}

static int emit_model(struct journal_snapshot *s, void *arg)
{
	const struct model *m = arg;
	char rec[16];
	int rc = 0;

	for (int id = 1; id <= NJOBS && !rc; id++) {
		if (!m->ver[id])
			continue;
		snprintf(rec, sizeof(rec), "J%d=%d", id, m->ver[id]);
		rc = journal_snapshot_add(s, rec, strlen(rec));
	}
	return rc;
}

/* Write the history in 'dir'; fill hist_state and hist_rec. */
static void write_history(void)
{
	struct model m = { { 0 } };
	struct rota_error err;
	struct journal *j;
	size_t c = 0;

	ck_assert_int_eq(journal_open(dir, model_cb, &m, &j, &err), 0);
	hist_state[0] = m;
	for (int i = 0; i < NHIST; i++) {
		int id = (i * 5) % NJOBS + 1;

		if (c < 2 && i == compact_at[c]) {
			ck_assert_int_eq(journal_sync(j, &err), 0);
			ck_assert_int_eq(
				journal_compact(j, emit_model, &m, &err), 0);
			c++;
		}
		m.ver[id]++;
		snprintf(hist_rec[i], sizeof(hist_rec[i]), "J%d=%d", id,
			 m.ver[id]);
		ck_assert_int_eq(journal_append(j, hist_rec[i],
						strlen(hist_rec[i])),
				 0);
		if (i % 3 == 2)
			ck_assert_int_eq(journal_sync(j, &err), 0);
		hist_state[i + 1] = m;
	}
	ck_assert_int_eq(journal_sync(j, &err), 0);
	journal_close(j);
}

static bool same(const struct model *a, const struct model *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* The longest prefix of the history whose state 'm' is, or -1. */
static int prefix_of(const struct model *m)
{
	for (int p = NHIST; p >= 0; p--) {
		if (same(m, &hist_state[p]))
			return p;
	}
	return -1;
}

START_TEST(test_damaged_snapshot_falls_back)
{
	struct model m = { { 0 } };
	struct rota_error err = { "" };
	struct journal *j;
	bool fell_back;
	int fd;

	write_history();
	fd = open(path("snapshot.2"), O_WRONLY);
	ck_assert_int_eq(pwrite(fd, "X", 1, 20), 1);
	close(fd);
	ck_assert_msg(journal_open(dir, model_cb, &m, &j, &err) == 0, "%s",
		      err.text);
	ck_assert(same(&m, &hist_state[NHIST]));
	ck_assert_msg(strstr(journal_loaded(j, &fell_back),
			     "snapshot.1 (12 records) and 30 records of "
			     "journal.1..journal.2; fell back, "),
		      "%s", journal_loaded(j, &fell_back));
	ck_assert(fell_back);
	ck_assert_ptr_nonnull(strstr(journal_loaded(j, &fell_back),
				     "snapshot.2: damaged record at offset"));
	/* the next generation sets the damaged snapshot aside */
	ck_assert_int_eq(journal_compact(j, emit_model, &m, &err), 0);
	journal_close(j);
	ck_assert_int_eq(access(path("snapshot.2.damaged"), F_OK), 0);
	ck_assert_int_eq(access(path("snapshot.2"), F_OK), -1);
	/* snapshot.1 with journals 1..3 is the fallback now: it stays */
	ck_assert_int_eq(access(path("snapshot.1"), F_OK), 0);
	memset(&m, 0, sizeof(m));
	ck_assert_int_eq(journal_open(dir, model_cb, &m, &j, &err), 0);
	ck_assert(same(&m, &hist_state[NHIST]));
	ck_assert(!journal_loaded(j, &fell_back)[0] || !fell_back);
	journal_close(j);
}
END_TEST

START_TEST(test_salvage)
{
	struct model m = { { 0 } };
	struct model want = hist_state[0];
	struct rota_error err = { "" };
	struct journal *j;
	size_t off = 0;
	int fd;

	write_history();
	/* the length of journal.2's 4th record (index 33) is wrong */
	for (int i = 30; i < 33; i++)
		off += 8 + strlen(hist_rec[i]);
	fd = open(path("journal.2"), O_WRONLY);
	ck_assert_int_eq(pwrite(fd, "\x7f", 1, (off_t)off), 1);
	close(fd);
	ck_assert_int_eq(journal_open(dir, model_cb, &m, &j, &err), -EILSEQ);
	ck_assert_msg(strstr(err.text, "journal.2: damaged record at offset "
				       "37 of 184 (a CRC mismatch); "
				       "refusing to start: run 'rota-ctld "
				       "--salvage'"),
		      "%s", err.text);
	memset(&m, 0, sizeof(m));
	ck_assert_int_eq(journal_salvage(dir, model_cb, &m, &j, &err), 0);
	/* every record but the damaged one */
	for (int i = 0; i < NHIST; i++) {
		if (i != 33)
			model_cb(hist_rec[i], strlen(hist_rec[i]), &want, &err);
	}
	ck_assert(same(&m, &want));
	ck_assert_int_eq(journal_compact(j, emit_model, &m, &err), 0);
	ck_assert_int_eq(journal_compact(j, emit_model, &m, &err), 0);
	journal_close(j);
	ck_assert_int_eq(access(path("journal.2.damaged"), F_OK), 0);
	memset(&m, 0, sizeof(m));
	ck_assert_int_eq(journal_open(dir, model_cb, &m, &j, &err), 0);
	ck_assert(same(&m, &want));
	journal_close(j);
}
END_TEST

static void cp(const char *from, const char *to)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "cp -a '%s' '%s'", from, to);
	ck_assert_int_eq(system(cmd), 0);
}

/* Open 'd' as it is, and check it holds the whole history. */
static void check_whole(const char *d)
{
	struct model m = { { 0 } };
	struct rota_error err = { "" };
	struct journal *j;

	ck_assert_msg(journal_open(d, model_cb, &m, &j, &err) == 0, "%s: %s",
		      d, err.text);
	ck_assert_msg(same(&m, &hist_state[NHIST]), "%s", d);
	journal_close(j);
}

/*
 * A kill -9 at each step of a compaction: the files it leaves are built
 * from copies before (A) and after (B) a real one.
 */
START_TEST(test_compaction_crash_points)
{
	struct model m = { { 0 } };
	struct rota_error err;
	struct journal *j;
	char a[128], b[128], c[160], cmd[512];

	write_history();
	snprintf(a, sizeof(a), "%s/A", dir);
	snprintf(b, sizeof(b), "%s/B", dir);
	ck_assert_int_eq(mkdir(a, 0700), 0);
	snprintf(cmd, sizeof(cmd), "cp -a %s/snapshot.* %s/journal.* %s", dir,
		 dir, a);
	ck_assert_int_eq(system(cmd), 0);
	cp(a, b);
	ck_assert_int_eq(journal_open(b, model_cb, &m, &j, &err), 0);
	ck_assert_int_eq(journal_compact(j, emit_model, &m, &err), 0);
	journal_close(j);
	/* B: snapshot.1 gone, snapshot.2 + journal.2 the fallback */
	snprintf(c, sizeof(c), "%s/snapshot.1", b);
	ck_assert_int_eq(access(c, F_OK), -1);
	check_whole(b);
	/* 1: a half-written snapshot.3.new */
	snprintf(cmd, sizeof(cmd),
		 "head -c 30 %s/snapshot.3 > %s/snapshot.3.new", b, a);
	ck_assert_int_eq(system(cmd), 0);
	check_whole(a);
	/* 2: journal.3 created, empty */
	snprintf(c, sizeof(c), "%s/journal.3", a);
	fclose(fopen(c, "w"));
	check_whole(a);
	/* 3: renamed, the older generations not removed yet */
	snprintf(cmd, sizeof(cmd), "rm %s/snapshot.3.new; cp %s/snapshot.3 %s",
		 a, b, a);
	ck_assert_int_eq(system(cmd), 0);
	check_whole(a);
	/* and each of those with the newest snapshot damaged */
	snprintf(c, sizeof(c), "%s/snapshot.3", a);
	truncate(c, 20);
	check_whole(a);
}
END_TEST

/* The files of the history, read once. */
struct image {
	const char *name;
	char *data;
	size_t len;
};

static struct image images[] = {
	{ .name = "snapshot.1" },
	{ .name = "journal.1" },
	{ .name = "snapshot.2" },
	{ .name = "journal.2" },
};
#define NIMAGES (sizeof(images) / sizeof(images[0]))

static void image_read(struct image *im)
{
	FILE *f = fopen(path(im->name), "rb");

	ck_assert_ptr_nonnull(f);
	im->data = malloc(1 << 16);
	im->len = fread(im->data, 1, 1 << 16, f);
	fclose(f);
}

static void image_write(const char *d, const struct image *im, size_t len)
{
	char p[160];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", d, im->name);
	f = fopen(p, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(im->data, 1, len, f), len);
	fclose(f);
}

enum damage { FLIP, ZERO8, CUT, NDAMAGE };

struct tally {
	unsigned offsets, recovered, fell_back, refused, salvaged;
	unsigned tail_cut;	/* newest journal records cut as a torn tail */
	unsigned tail_cases;	/* in how many copies */
	unsigned lost;		/* records before the damage not recovered */
	unsigned salvage_lost;	/* intact records a salvage missed */
};

/* Records of journal.2 (history 30..) that the damage [lo, hi) touches. */
static bool touched(int i, size_t lo, size_t hi)
{
	size_t off = 0;

	for (int k = compact_at[1]; k < i; k++)
		off += 8 + strlen(hist_rec[k]);
	return off < hi && off + 8 + strlen(hist_rec[i]) > lo;
}

static int intact_before(size_t lo)
{
	int p = compact_at[1];

	while (p < NHIST && !touched(p, lo, SIZE_MAX))
		p++;
	return p;
}

/* Salvage 'd' and check it kept every record the damage spared. */
static void salvage_check(const char *d, size_t lo, size_t hi,
			  struct tally *t)
{
	struct model m = { { 0 } }, want = hist_state[compact_at[1]];
	struct rota_error err = { "" };
	struct journal *j;
	int rc = journal_salvage(d, model_cb, &m, &j, &err);

	ck_assert_msg(rc == 0, "%s", err.text);
	for (int i = compact_at[1]; i < NHIST; i++) {
		if (!touched(i, lo, hi))
			model_cb(hist_rec[i], strlen(hist_rec[i]), &want, &err);
	}
	for (int id = 1; id <= NJOBS; id++)
		t->salvage_lost += m.ver[id] != want.ver[id];
	ck_assert_int_eq(journal_compact(j, emit_model, &m, &err), 0);
	journal_close(j);
	t->salvaged++;
	want = m;
	memset(&m, 0, sizeof(m));
	ck_assert_msg(journal_open(d, model_cb, &m, &j, &err) == 0, "%s",
		      err.text);
	ck_assert(same(&m, &want));
	journal_close(j);
}

static void damage_one(const char *d, size_t f, size_t off, enum damage k,
		       struct tally *t)
{
	struct image *im = &images[f];
	bool newest_journal = f == NIMAGES - 1;
	size_t len = k == CUT ? off : im->len, hi = off + (k == ZERO8 ? 8 : 1);
	char save[8];
	struct model m = { { 0 } };
	struct rota_error err = { "" };
	struct journal *j;
	bool fell_back;
	int rc, p;

	hi = k == CUT ? SIZE_MAX : hi < im->len ? hi : im->len;
	memcpy(save, im->data + off, hi - off < 8 ? hi - off : 8);
	if (k == FLIP)
		im->data[off] ^= 0x55;
	if (k == ZERO8)
		memset(im->data + off, 0, hi - off);
	for (size_t i = 0; i < NIMAGES; i++)
		image_write(d, &images[i], i == f ? len : images[i].len);
	if (k != CUT)
		memcpy(im->data + off, save, hi - off);
	t->offsets++;
	rc = journal_open(d, model_cb, &m, &j, &err);
	if (rc == -EILSEQ) {
		/* only damage in the journal every chain needs stops it */
		ck_assert_msg(newest_journal, "%s %zu: %s", im->name, off,
			      err.text);
		ck_assert_ptr_nonnull(strstr(err.text, "--salvage"));
		t->refused++;
		salvage_check(d, off, hi, t);
		return;
	}
	ck_assert_msg(rc == 0, "%s %zu: %s", im->name, off, err.text);
	t->recovered++;
	journal_loaded(j, &fell_back);
	t->fell_back += fell_back;
	journal_close(j);
	p = prefix_of(&m);
	ck_assert_msg(p >= 0, "%s %zu: not a state of the history", im->name,
		      off);
	if (newest_journal) {
		t->lost += p < intact_before(off) ? 1 : 0;
		t->tail_cut += (unsigned)(NHIST - p);
		t->tail_cases += p < NHIST;
	} else {
		t->lost += (unsigned)(NHIST - p);
	}
}

/*
 * Every offset of every file, flipped, zeroed (8 bytes) and cut: what
 * opens is a state of the history; damage outside the newest journal
 * loses nothing (a damaged newest snapshot falls back); damage in it
 * either cuts a torn tail or refuses, and then a salvage keeps every
 * record the damage spared.
 */
START_TEST(test_damage_sweep)
{
	struct tally t = { 0 };
	char d[128];

	write_history();
	for (size_t i = 0; i < NIMAGES; i++)
		image_read(&images[i]);
	snprintf(d, sizeof(d), "%s/w", dir);
	rota_log_set_level(ROTA_LOG_ERR);
	for (size_t f = 0; f < NIMAGES; f++) {
		for (size_t off = 0; off < images[f].len; off++) {
			for (int k = 0; k < NDAMAGE; k++) {
				char cmd[160];

				snprintf(cmd, sizeof(cmd), "rm -rf %s", d);
				ck_assert_int_eq(system(cmd), 0);
				ck_assert_int_eq(mkdir(d, 0700), 0);
				damage_one(d, f, off, (enum damage)k, &t);
			}
		}
	}
	fprintf(stderr,
		"damage sweep: %u damaged copies, %u recovered (%u by "
		"falling back), %u refused and salvaged (%u), %u records "
		"lost, %u cut as a torn tail (in %u copies), %u intact "
		"records missed by salvage\n",
		t.offsets, t.recovered, t.fell_back, t.refused, t.salvaged,
		t.lost, t.tail_cut, t.tail_cases, t.salvage_lost);
	ck_assert_uint_eq(t.lost, 0);
	ck_assert_uint_eq(t.salvage_lost, 0);
	ck_assert_uint_gt(t.fell_back, 0);
	ck_assert_uint_gt(t.refused, 0);
	for (size_t i = 0; i < NIMAGES; i++)
		free(images[i].data);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("journal");
	TCase *tc = tcase_create("files");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_replay_in_order);
	tcase_add_test(tc, test_torn_tail_is_cut);
	tcase_add_test(tc, test_damage_in_the_middle_refused);
	tcase_add_test(tc, test_compact);
	tcase_add_test(tc, test_damaged_snapshots_refused);
	tcase_add_test(tc, test_record_error_stops_replay);
	tcase_add_test(tc, test_one_process_at_a_time);
	tcase_add_test(tc, test_damaged_snapshot_falls_back);
	tcase_add_test(tc, test_salvage);
	tcase_add_test(tc, test_compaction_crash_points);
	tcase_add_test(tc, test_damage_sweep);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
