// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the PMI server (noded/pmi_wire.c) as two hostile tasks and
 * a hostile allgather see it.  A step of 2 nodes, this one node 1 with
 * ranks 2 and 3; the input is a run of operations, each a header byte
 * (bit 0: which task; bits 1-2: what) and its bytes: write up to 64 bytes
 * to the task's socket, close it, complete the allgather (with a
 * well-formed result around made-up bytes, or with the bytes raw), or
 * pump the loop.  Answers are read and dropped.  The server must neither
 * crash nor leak, must complain in single lines, and must never start an
 * allgather while one is under way (they complete in order).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/evloop.h"
#include "common/strbuf.h"
#include "noded/wireup.h"
#include "testsuite/fuzz/fuzz.h"

static const uint32_t count[2] = { 2, 2 };
static const uint32_t first[2] = { 0, 2 };
static const uint32_t ranks[4] = { 0, 1, 2, 3 };

struct fuzz_state {
	struct rota_evloop *loop;
	struct wireup_server *srv;
	int fds[2];
	bool pending;
	char *blob;
	size_t len;
};

static int fake_allgather(void *ctx, const void *blob, size_t len)
{
	struct fuzz_state *f = ctx;

	FUZZ_CHECK(!f->pending);
	f->pending = true;
	free(f->blob);
	f->blob = malloc(len ? len : 1);
	FUZZ_CHECK(f->blob);
	memcpy(f->blob, blob, len);
	f->len = len;
	return 0;
}

static void fake_complain(void *ctx, const char *line)
{
	(void)ctx;
	FUZZ_CHECK(line[0] && !strchr(line, '\n'));
}

static void stop_cb(struct rota_evloop *loop, void *arg)
{
	(void)arg;
	rota_evloop_stop(loop);
}

static void pump(struct fuzz_state *f)
{
	char buf[4096];

	for (int pass = 0; pass < 2; pass++) {
		rota_evloop_add_timer(f->loop, 0, false, stop_cb, NULL);
		rota_evloop_run(f->loop);
		for (int i = 0; i < 2; i++)
			while (f->fds[i] >= 0 &&
			       read(f->fds[i], buf, sizeof(buf)) > 0)
				;
	}
}

static void finish(struct fuzz_state *f, const uint8_t *d, size_t n,
		   bool raw)
{
	struct rota_strbuf all = { 0 };
	uint32_t be;

	if (raw) {
		rota_strbuf_add(&all, (const char *)d, n);
	} else {
		be = htonl((uint32_t)n);
		rota_strbuf_add(&all, (const char *)&be, 4);
		rota_strbuf_add(&all, (const char *)d, n);
		be = htonl((uint32_t)f->len);
		rota_strbuf_add(&all, (const char *)&be, 4);
		rota_strbuf_add(&all, f->blob ? f->blob : "", f->len);
	}
	f->pending = false;
	wireup_pmi.done(f->srv, all.data ? all.data : "", all.len);
	rota_strbuf_fini(&all);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_state f = { .fds = { -1, -1 } };
	struct wireup_step st = {
		.job_id = 1, .step_id = 0, .ntasks = 4, .nnodes = 2,
		.node_id = 1, .count = count, .first = first, .ranks = ranks,
		.ncpus_per_task = 1, .tmpdir = "/tmp",
	};
	struct wireup_ops ops = { .allgather = fake_allgather,
				  .complain = fake_complain, .ctx = &f };
	char err[160];
	size_t off = 0;

	f.loop = rota_evloop_create();
	FUZZ_CHECK(f.loop);
	FUZZ_CHECK(wireup_pmi.create(f.loop, &st, &ops, &f.srv, err,
				     sizeof(err)) == 0);
	for (uint32_t r = 2; r < 4; r++) {
		char **env;
		int fd;

		FUZZ_CHECK(wireup_pmi.task_env(f.srv, r, &env, &fd, err,
					       sizeof(err)) == 0);
		f.fds[r - 2] = dup(fd);
		fcntl(f.fds[r - 2], F_SETFL, O_NONBLOCK);
		wireup_pmi.task_started(f.srv, r, 1);
	}
	while (off < size) {
		uint8_t h = data[off++];
		int i = h & 1;
		size_t n = size - off < 64 ? size - off : 64;

		switch ((h >> 1) & 3) {
		case 0:
			if (f.fds[i] >= 0)
				send(f.fds[i], data + off, n, MSG_NOSIGNAL);
			off += n;
			break;
		case 1:
			if (f.fds[i] >= 0)
				close(f.fds[i]);
			f.fds[i] = -1;
			break;
		case 2:
			if (f.pending || (h & 8))
				finish(&f, data + off, n, h & 16);
			off += n;
			break;
		default:
			break;
		}
		pump(&f);
	}
	wireup_pmi.destroy(f.srv);
	rota_evloop_destroy(f.loop);
	for (int i = 0; i < 2; i++)
		if (f.fds[i] >= 0)
			close(f.fds[i]);
	free(f.blob);
	return 0;
}
