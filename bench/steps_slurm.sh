#!/bin/bash
# bench/steps_slurm.sh: Slurm's half of bench/steps, the same launches
# timed with srun on a private Slurm cluster on loopback: slurmctld on
# 127.0.0.1 and four slurmd (s1..s4, the "multiple slurmd" way: one host,
# a port each) with 64 CPUs each, all under one temporary folder, all
# killed at the end whatever happens.  Called by bench/steps; runs alone
# too (as root):
#   bench/steps_slurm.sh [RESULTS-FILE]
# prints its figures; with RESULTS-FILE, also appends them there, a line
# per case: KEY MEDIAN_MS GOOD RUNS MS...  (bench/steps_lib.sh).
#   SLURM_MUNGE_SOCKET  a munged to use (else a private one is started)
#   HELLO_OMPI, HELLO_MPICH  the MPI hellos (else built from
#                       testsuite/mpi/hello.c)
#   RUNS (20)           runs per case
# Needs Debian's slurm-wlm (installed here if missing: a bench is run on
# purpose, the test suite never installs anything).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/steps_lib.sh
. "$here/steps_lib.sh"

# Inside the allocation: salloc runs this script again with --inner.
if [ "${1:-}" = --inner ]; then
	STEPS_RESULTS=$2
	# Open MPI and MPICH on one host posing as four: TCP on loopback,
	# no shared memory between fake nodes (see the notes in
	# ../shared/notes/mpi-on-one-host.md); the bench runs as root.
	export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo \
		OMPI_MCA_oob_tcp_if_include=lo UCX_NET_DEVICES=lo \
		OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	steps_time true64 0 srun -N 4 -n 64 true
	steps_time true256 0 srun -N 4 -n 256 true
	steps_time nodes1 0 srun -N 1 -n 16 true
	steps_time nodes2 0 srun -N 2 -n 32 true
	steps_time pmix64 0 srun --mpi=pmix -N 4 -n 64 true
	steps_time hello_pmix 64 srun --mpi=pmix -N 4 -n 64 "$HELLO_OMPI"
	steps_time hello_pmi2 64 srun --mpi=pmi2 -N 4 -n 64 "$HELLO_MPICH"
	exit 0
fi

[ "$(id -u)" -eq 0 ] || { echo "steps_slurm: run as root" >&2; exit 1; }
steps_need slurm-wlm munge iproute2 "${STEPS_MPI_PKGS[@]}" || exit 1

S=$(mktemp -d /tmp/slurm-bench.XXXXXX)
chmod 0755 "$S"
out=${1:-$S/results}
conf="$S/slurm.conf"
# Every process of this Slurm has SLURM_CONF=$conf in its environment from
# its exec: the daemons, each slurmstepd and every task (srun passes its
# environment on).  This shell has not (each command gets it by env), so
# the sweep at the end kills all of Slurm's and nothing of ours, whatever
# was left behind: a step's slurmstepd is not a child of its slurmd.
slurm_pids() {
	grep -lzxs "SLURM_CONF=$conf" /proc/[0-9]*/environ |
		sed 's|^/proc/\([0-9]*\)/environ$|\1|'
}
slurm_stop() {
	local pids i
	pids=$(slurm_pids)
	[ -n "$pids" ] || return 0
	# shellcheck disable=SC2086
	kill -TERM $pids 2>/dev/null
	for i in $(seq 40); do
		pids=$(slurm_pids)
		[ -n "$pids" ] || break
		sleep 0.05
	done
	# shellcheck disable=SC2086
	[ -z "$pids" ] || kill -KILL $pids 2>/dev/null
	[ -z "$(slurm_pids)" ] || sleep 0.2
	[ -z "$(slurm_pids)" ] || echo "steps_slurm: left: $(slurm_pids)" >&2
}
on_exit() {
	local rc=$?
	slurm_stop
	if [ -n "${munged_pid:-}" ] && kill "$munged_pid" 2>/dev/null; then
		# it writes its seed file on the way out: not into a half-removed $S
		for _ in $(seq 100); do
			kill -0 "$munged_pid" 2>/dev/null || break
			sleep 0.05
		done
	fi
	if [ "$rc" -ne 0 ] && [ -z "${KEEP:-}" ]; then
		echo "steps_slurm: failed, logs:" >&2
		tail -n 5 "$S"/log/*.log >&2 2>/dev/null
	fi
	[ -n "${KEEP:-}" ] || rm -rf "$S"
	exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT TERM HUP

sock=${SLURM_MUNGE_SOCKET:-}
if [ -z "$sock" ]; then
	mkdir -p "$S/munge" && chmod 0755 "$S/munge"
	dd if=/dev/urandom of="$S/munge/munge.key" bs=1024 count=1 2>/dev/null
	chmod 0600 "$S/munge/munge.key"
	munged --socket="$S/munge/munge.sock" --key-file="$S/munge/munge.key" \
		--pid-file="$S/munge/munged.pid" --log-file="$S/munge/munged.log" \
		--seed-file="$S/munge/munged.seed" || exit 1
	munged_pid=$(cat "$S/munge/munged.pid")
	sock="$S/munge/munge.sock"
fi

# five free TCP ports, the controller's and one per slurmd, below the
# kernel's range for outgoing connections (32768 up)
ports=()
while [ ${#ports[@]} -lt 5 ]; do
	p=$((10000 + RANDOM % 20000))
	ss -Htan "sport = :$p" | grep -q . && continue
	[[ " ${ports[*]} " == *" $p "* ]] || ports+=("$p")
done

host=$(hostname -s)
mkdir -p "$S/state" "$S/log" "$S/run"
{
	echo "ClusterName=rotabench"
	# the controller must find its own host name here; all talk is on
	# 127.0.0.1
	echo "SlurmctldHost=$host(127.0.0.1)"
	echo "SlurmctldPort=${ports[0]}"
	echo "SlurmUser=root"
	echo "SlurmdUser=root"
	echo "AuthType=auth/munge"
	echo "CredType=cred/munge"
	echo "AuthInfo=socket=$sock"
	echo "StateSaveLocation=$S/state"
	echo "SlurmdSpoolDir=$S/spool/%n"
	echo "SlurmctldPidFile=$S/run/slurmctld.pid"
	echo "SlurmdPidFile=$S/run/slurmd.%n.pid"
	echo "SlurmctldLogFile=$S/log/slurmctld.log"
	echo "SlurmdLogFile=$S/log/slurmd.%n.log"
	echo "SlurmctldDebug=info"
	echo "SlurmdDebug=info"
	# PMIx servers of several slurmd on one host need their own folders
	echo "TmpFS=$S/tmp/%n"
	echo "PlugStackConfig=$S/plugstack.conf"
	echo "ProctrackType=proctrack/linuxproc"
	echo "TaskPlugin=task/none"
	echo "SelectType=select/cons_tres"
	echo "SelectTypeParameters=CR_Core"
	echo "SchedulerType=sched/builtin"
	echo "MpiDefault=none"
	echo "AccountingStorageType=accounting_storage/none"
	echo "JobAcctGatherType=jobacct_gather/none"
	echo "JobCompType=jobcomp/none"
	echo "ReturnToService=2"
	echo "MailProg=/bin/true"
	# the nodes are declared bigger than the host: 64 CPUs each, so that
	# 256 tasks are 64 per node, as on Rota's 192-core nodes
	echo "SlurmdParameters=config_overrides"
	for i in 1 2 3 4; do
		echo "NodeName=s$i NodeHostname=$host NodeAddr=127.0.0.1" \
			"Port=${ports[$i]} CPUs=64 Boards=1 SocketsPerBoard=1" \
			"CoresPerSocket=64 ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN"
	done
	echo "PartitionName=bench Nodes=s[1-4] Default=YES MaxTime=INFINITE State=UP"
} >"$conf"
: >"$S/plugstack.conf"
for i in 1 2 3 4; do mkdir -p "$S/spool/s$i" "$S/tmp/s$i"; done

sl() { env SLURM_CONF="$conf" "$@"; }
sl slurmctld -D -i -f "$conf" >>"$S/log/slurmctld.out" 2>&1 &
for i in 1 2 3 4; do
	sl slurmd -D -N "s$i" -f "$conf" >>"$S/log/slurmd.s$i.out" 2>&1 &
done
# until all four nodes are idle
for _ in $(seq 600); do
	n=$(sl sinfo -h -o '%T %D' 2>/dev/null | awk '$1 == "idle" { n += $2 } END { print n + 0 }')
	[ "$n" -eq 4 ] && break
	sleep 0.1
done
if [ "$n" -ne 4 ]; then
	echo "steps_slurm: the nodes did not come up:" >&2
	sl sinfo >&2
	exit 1
fi

cd "$S" || exit 1
if [ -z "${HELLO_OMPI:-}" ]; then
	HELLO_OMPI="$S/hello.ompi"
	mpicc.openmpi -O2 -o "$HELLO_OMPI" "$here/../testsuite/mpi/hello.c" || exit 1
fi
if [ -z "${HELLO_MPICH:-}" ]; then
	HELLO_MPICH="$S/hello.mpich"
	mpicc.mpich -O2 -o "$HELLO_MPICH" "$here/../testsuite/mpi/hello.c" || exit 1
fi
export HELLO_OMPI HELLO_MPICH RUNS STEP_LIMIT
: >"$S/results"
# in the background: a signal's trap runs at once, not once salloc is done
sl salloc -Q -N 4 -n 256 -t 60 "$here/steps_slurm.sh" --inner "$S/results" &
wait $! || { echo "steps_slurm: salloc failed" >&2; exit 1; }
[ "$out" = "$S/results" ] || cat "$S/results" >>"$out"
for f in "$S"/results.*.bad; do
	[ -f "$f" ] || continue
	echo "steps_slurm: a bad run of ${f#"$S"/results.}:" >&2
	head -n 5 "$f" | sed 's/^/  /' >&2
done
echo "Slurm $(sl srun --version | awk '{ print $2 }'), 4 slurmd on one host," \
	"$(nproc) cores; median of $RUNS runs (good/runs)"
awk '{ printf "  %-12s %8s ms  (%s/%s)\n", $1, $2, $3, $4 }' "$S/results"
