#!/bin/bash
# Open MPI 4.1 started directly over Rota's PMIx server (noded/pmix_server.c,
# rota run --mpi=pmix): testsuite/mpi/pmix_launch plays 4 nodes on this host,
# each a process with its own PMIx server and tmpdir, and plays rota run
# between them (the fence's allgather over socketpairs, no shared file).
# 16 ranks of an MPI hello must all print "sum 120", five times over (Open
# MPI under Slurm's PMIx crashed about 1 run in 10 here: a failure is a bug
# to find, not to retry), with nothing on stderr, then an uneven layout.  Ranks run as rotatest1
# when the test runs as root.
. "$top_srcdir/testsuite/lib/tap.sh"
LAUNCH="$top_builddir/testsuite/mpi/pmix_launch"
[ -x "$LAUNCH" ] || skip_all "rota built without PMIx (libpmix-dev)"
command -v mpicc.openmpi >/dev/null ||
	skip_all "needs Open MPI's mpicc.openmpi (libopenmpi-dev)"

RUNS=5
plan $((RUNS * 4 + 2))
user=()
if [ "$(id -u)" -eq 0 ] && id rotatest1 >/dev/null 2>&1; then
	user=(-u rotatest1)
elif [ "$(id -u)" -eq 0 ]; then
	# Open MPI refuses root unless told twice
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
cd "$T" || exit 1
mpicc.openmpi -o "$T/hello" "$top_srcdir/testsuite/mpi/hello.c" ||
	{ echo "Bail out! mpicc.openmpi cannot build hello.c"; exit 1; }
# what the step supervisor sets when the user did not: several "nodes" on
# one host crash Open MPI's shared-memory transport; loopback only
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo \
	OMPI_MCA_oob_tcp_if_include=lo

# hello NODES TASKS RUN: the launcher's status; output in $T/out.RUN
hello() {
	local dir="$T/tmp.$3"
	mkdir -p "$dir" && chmod 0755 "$dir"
	timeout 120 "$LAUNCH" "${user[@]}" "$1" "$2" "$dir" "$T/hello" \
		>"$T/out.$3" 2>"$T/err.$3"
}

# ranks NTASKS SUM RUN: the ranks of run RUN that printed the right line
ranks() {
	local r
	for ((r = 0; r < $1; r++)); do
		grep -qE "^rank $r of $1 sum $2( on CPU list .*)?$" "$T/out.$3" && echo "$r"
	done | wc -l
}

for run in $(seq 1 $RUNS); do
	hello 4 16 "$run"
	rc=$?
	is "$rc" 0 "run $run: 16 ranks over 4 nodes exit 0"
	is "$(ranks 16 120 "$run")" 16 "run $run: every rank's sum is 120"
	is "$(grep -c . "$T/out.$run")" 16 "run $run: nothing else on stdout"
	# libpmix says when a task cannot attach its store (owned by root)
	is "$(grep -c . "$T/err.$run")" 0 "run $run: nothing on stderr"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T/err.$run" | tail -n 30
done

# 2, 2 and 1 ranks: the maps PMIx gets are not all alike
hello 3 5 uneven
is "$?" 0 "5 ranks over 3 nodes exit 0"
is "$(ranks 5 10 uneven)" 5 "every rank's sum is 10"
