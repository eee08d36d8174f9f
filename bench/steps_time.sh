# shellcheck shell=bash
# The timing loop of bench/steps, the same on both sides: sourced by the
# Rota job's script and by the script Slurm's salloc runs.  A case is one
# command launched RUNS times (one warm-up run first, not counted), each
# timed from launch to exit with $EPOCHREALTIME: forking date(1) around
# it would be measured too.
#
# Needs STEPS_RESULTS (a file, appended to) and RUNS (default 20);
# STEP_LIMIT (seconds, default 120) ends a run that hangs.

: "${RUNS:=20}" "${STEP_LIMIT:=120}"
export LC_ALL=C # $EPOCHREALTIME's decimal point

# steps_median: the median of the numbers on stdin, "-" if none (of an
# even count, the upper middle one)
steps_median() {
	sort -g | awk '{ a[NR] = $1 } END { print NR ? a[int(NR / 2) + 1] : "-" }'
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
			[ "$(grep -c '^hello .* ok$' "$out")" -eq "$lines" ]; }; then
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
