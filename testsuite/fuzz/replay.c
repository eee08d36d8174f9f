// SPDX-License-Identifier: MIT
/*
 * Replays a fuzz target's corpus without libFuzzer, so that make check runs
 * every seed and every past crasher through the target with the normal
 * compiler (and ASan+UBSan when configured with --enable-sanitizers).
 * Files are read into heap buffers of exactly their size, as libFuzzer
 * hands them, so an overread shows under ASan.
 *
 * usage: replay_<target> [DIR|FILE]...   with no argument, the corpus the
 * build compiled in (FUZZ_CORPUS).  Prints TAP; a crash kills the process
 * and so fails the test, a file that cannot be read is "not ok".
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testsuite/fuzz/fuzz.h"

static int read_file(const char *path, uint8_t **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	size_t n;

	*data = NULL;
	if (!f)
		return -errno;
	if (fstat(fileno(f), &st) < 0 || st.st_size > (1 << 24)) {
		fclose(f);
		return -EFBIG;
	}
	*size = (size_t)st.st_size;
	*data = malloc(*size ? *size : 1);
	if (!*data)
		abort();
	n = fread(*data, 1, *size, f);
	fclose(f);
	if (n != *size) {
		free(*data);
		*data = NULL;
		return -EIO;
	}
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One file; returns 1 if it could not be read. */
static int replay_one(const char *path, unsigned *n)
{
	uint8_t *data;
	size_t size = 0;
	int rc = read_file(path, &data, &size);

	++*n;
	if (rc < 0) {
		printf("not ok %u - %s: %s\n", *n, path, strerror(-rc));
		return 1;
	}
	fflush(stdout); /* the name is in the log if the target crashes */
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	printf("ok %u - %s\n", *n, path);
	return 0;
}

/* Every file of 'dir' in name order (dot files skipped). */
static int replay_dir(const char *dir, unsigned *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t count = 0;
	int failed = 0;

	if (!d) {
		printf("not ok %u - %s: %s\n", ++*n, dir, strerror(errno));
		return 1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		names = realloc(names, (count + 1) * sizeof(*names));
		if (!names ||
		    asprintf(&names[count], "%s/%s", dir, e->d_name) < 0)
			abort();
		count++;
	}
	closedir(d);
	qsort(names, count, sizeof(*names), name_cmp);
	for (size_t i = 0; i < count; i++) {
		failed += replay_one(names[i], n);
		free(names[i]);
	}
	free(names);
	return failed;
}

int main(int argc, char **argv)
{
	const char *fallback[] = { argv[0], FUZZ_CORPUS };
	unsigned n = 0;
	int failed = 0;
	struct stat st;

	if (argc < 2) {
		argc = 2;
		argv = (char **)fallback;
	}
	for (int i = 1; i < argc; i++) {
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			failed += replay_dir(argv[i], &n);
		else
			failed += replay_one(argv[i], &n);
	}
	printf("1..%u\n", n);
	return failed ? 1 : 0;
}
