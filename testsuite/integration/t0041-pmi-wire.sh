#!/bin/bash
# MPICH wired up through noded/pmi_wire.c alone: testsuite/mpi/pmi_launch
# plays 4 nodes' PMI servers in one process (the allgather done as
# `rota run` does it) and starts 16 ranks of an MPI hello compiled with
# mpicc.mpich; every rank must see the sum 0 + ... + 15 = 120, over 4
# allgathers or so, without a complaint from any server.  Then an MPI
# program that aborts must be reported, and a rank that dies before the
# fence must fail it rather than hang it.  PMI-2: a client built on Slurm's
# libpmi2 (libpmi2-0-dev; skipped without it) puts, fences and gets over
# 2 fake nodes.  No daemon, no mpirun, no file.
. "$top_srcdir/testsuite/lib/tap.sh"
command -v mpicc.mpich >/dev/null ||
	skip_all "needs mpicc.mpich (Debian: mpich libmpich-dev)"
LAUNCH="$top_builddir/testsuite/mpi/pmi_launch"
[ -x "$LAUNCH" ] || skip_all "no $LAUNCH"
plan 8

# MPICH refuses nothing as root, but run it as a test user where we can
run() {
	if [ "$(id -u)" -eq 0 ] && id rotatest1 >/dev/null 2>&1; then
		runuser -u rotatest1 -- env UCX_NET_DEVICES=lo \
			${PMI_LAUNCH_KEEP:+PMI_LAUNCH_KEEP=1} \
			PMI_LAUNCH_TIMEOUT=90 "$LAUNCH" "$@"
	else
		env UCX_NET_DEVICES=lo PMI_LAUNCH_TIMEOUT=90 "$LAUNCH" "$@"
	fi
}

mpicc.mpich -o "$T/hello" "$top_srcdir/testsuite/mpi/hello.c" 2>"$T/cc.err"
ok $? "hello.c compiles with mpicc.mpich"
cat >"$T/abort.c" <<'C'
#include <mpi.h>
int main(int argc, char **argv)
{
	int rank;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 1)
		MPI_Abort(MPI_COMM_WORLD, 7);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
C
mpicc.mpich -o "$T/abort" "$T/abort.c" 2>>"$T/cc.err"
cat >"$T/die.c" <<'C'
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	/* rank 3 leaves before MPI_Init's fences: they must fail, not hang */
	if (atoi(getenv("PMI_RANK")) == 3)
		return 3;
	MPI_Init(&argc, &argv);
	MPI_Finalize();
	return 0;
}
C
mpicc.mpich -o "$T/die" "$T/die.c" 2>>"$T/cc.err"
chmod 0755 "$T"/hello "$T"/abort "$T"/die
have_pmi2=no
if cc -o "$T/pmi2c" "$top_srcdir/testsuite/mpi/pmi2_client.c" -lpmi2 \
	2>>"$T/cc.err"; then
	have_pmi2=yes
	chmod 0755 "$T/pmi2c"
fi

run 4 4 "$T/hello" >"$T/out" 2>"$T/err"
ok $? "16 ranks over 4 fake nodes exit 0"
is "$(grep -c '^rank [0-9]* of 16 sum 120 on CPU list ' "$T/out")" 16 \
	"all 16 ranks print sum 120"
is "$(grep -c '^node' "$T/err")" 0 "no server complained"
grep '^node' "$T/err" | head -n 5 | sed 's/^/#   /'

run 2 2 "$T/abort" >"$T/out2" 2>"$T/err2"
rc=$?
like "$rc $(grep -c 'rank 1: abort' "$T/err2")" '^1 1$' \
	"MPI_Abort: the launcher fails and one line names rank 1"

# one node, so that no other node waits in the allgather, and the
# launcher kills no rank: the fence must fail by itself
start=$(date +%s)
PMI_LAUNCH_KEEP=1 run 1 4 "$T/die" >"$T/out3" 2>"$T/err3"
rc=$?
is "$rc" 1 "a rank that never inits makes the step fail"
elapsed=$(($(date +%s) - start))
like "$elapsed $(grep -c 'fence failed: rank 3 left' "$T/err3")" \
	'^([0-9]|[1-5][0-9]) [1-9][0-9]*$' \
	"its node's fence fails at once (no timeout) and says why"
if [ $have_pmi2 = yes ]; then
	run 2 3 "$T/pmi2c" >"$T/out4" 2>"$T/err4"
	rc=$?
	is "$rc $(grep -c '^pmi2 rank [0-5] of 6 mapping (vector,(0,2,3)) ok$' \
		"$T/out4")" "0 6" "PMI-2 (Slurm's libpmi2): 6 ranks over 2 nodes"
else
	ok 0 "# SKIP no libpmi2 (Debian: libpmi2-0-dev)"
fi
[ "$tap_failed" -eq 0 ] || { tail -n 20 "$T"/err*; }
