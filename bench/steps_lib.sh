# shellcheck shell=bash
# What both halves of bench/steps share: the packages they need, and the
# timing loop, the same on both sides (sourced by the Rota job's script
# and by the script Slurm's salloc runs).  A case is one command launched
# RUNS times (one warm-up run first, not counted), each timed from launch
# to exit with $EPOCHREALTIME: forking date(1) around it would be
# measured too.
#
# Needs STEPS_RESULTS (a file, appended to) and RUNS (default 20);
# STEP_LIMIT (seconds, default 120) ends a run that hangs.

: "${RUNS:=20}" "${STEP_LIMIT:=120}"
export LC_ALL=C # $EPOCHREALTIME's decimal point

# steps_need PKG...: install the Debian packages missing (as root); the
# bench's own, never the test suite's (scripts/deps.sh has those)
steps_need() {
	local p missing=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q "ok installed" || missing="$missing $p"
	done
	[ -n "$missing" ] || return 0
	echo "installing:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq || return 1
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# MPI for the hellos: Open MPI (PMIx, its libpmix also serves Slurm's
# mpi/pmix, which opens libpmix.so) and MPICH (PMI-2)
# shellcheck disable=SC2034 # for the scripts that source this
STEPS_MPI_PKGS=(openmpi-bin libopenmpi-dev libpmix-dev mpich libmpich-dev)

# steps_median: the median of the numbers on stdin, "-" if none (of an
# even count, the upper middle one)
steps_median() {
	sort -g | awk '{ a[NR] = $1 } END { print NR ? a[int(NR / 2) + 1] : "-" }'
}

# steps_floor N: N processes of true forked at once and waited for: what
# starting them costs on this host before any launcher does anything
steps_floor() {
	local i
	for ((i = 0; i < $1; i++)); do /bin/true & done
	wait
}

# steps_run OUT CMD...: CMD once, its output in OUT, stdin /dev/null;
# its status.  A run past STEP_LIMIT is killed: the watchdog is forked
# once the command runs, so neither side pays for it before its launch.
steps_run() {
	local out=$1 pid dog rc
	shift
	"$@" >"$out" 2>&1 </dev/null &
	pid=$!
	{ sleep "$STEP_LIMIT"; kill -TERM "$pid"; sleep 5; kill -KILL "$pid"; } \
		>/dev/null 2>&1 &
	dog=$!
	wait "$pid"
	rc=$?
	STEPS_T1=$EPOCHREALTIME
	kill "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
	return $rc
}

# steps_time KEY LINES CMD...: time CMD; a run counts if CMD exits 0 and,
# for LINES > 0, printed LINES lines "hello ... ok" (one per MPI rank).
# Appends "KEY MEDIAN_MS GOOD RUNS MS..." to $STEPS_RESULTS; the output
# of the first bad run is kept in $STEPS_RESULTS.KEY.bad.
steps_time() {
	local key=$1 lines=$2 t0 i rc good=0 out
	local -a ms=()
	out="$STEPS_RESULTS.$key.out"
	shift 2
	steps_run "$out" "$@"
	for ((i = 0; i < RUNS; i++)); do
		t0=$EPOCHREALTIME
		steps_run "$out" "$@"
		rc=$?
		if [ "$rc" -eq 0 ] && { [ "$lines" -eq 0 ] ||
			[ "$(grep -c '^rank .* sum ' "$out")" -eq "$lines" ]; }; then
			ms+=("$(awk -v a="$t0" -v b="$STEPS_T1" \
				'BEGIN { printf "%.1f", (b - a) * 1000 }')")
			good=$((good + 1))
		elif [ ! -e "$STEPS_RESULTS.$key.bad" ]; then
			echo "exit status $rc" | cat - "$out" >"$STEPS_RESULTS.$key.bad"
		fi
	done
	rm -f "$out"
	echo "$key $(printf '%s\n' "${ms[@]}" | grep . | steps_median) $good" \
		"$RUNS ${ms[*]}" >>"$STEPS_RESULTS"
}
