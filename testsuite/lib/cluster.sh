# shellcheck shell=bash
# A local Rota cluster in one scratch directory: a private munged, rota-ctld
# on 127.0.0.1 (any free port) and node daemons on 127.0.0.2.. shaped like
# real machines by hwloc XML.  Sourced by the demo script, the integration
# tests and the benchmarks.  Everything it starts is recorded in $CL/pids,
# and cluster_stop kills only those.
#
# Needs: CL (scratch directory), BIN (folder with rota, rota-ctld and
# rota-noded, or their libtool wrappers), TOPO (folder of XML topologies).

: "${NODE_TOPOS:=24em64t-2n6c2t-pci.xml 32em64t-2n8c2t-pci-wholeio.xml memorysidecaches.xml 28intel64-2p2g7c-CoDgroups.v1tov2.xml}"

# wait_for CMD... : poll CMD up to $WAIT_TIMEOUT seconds (default 20).
wait_for() {
	local deadline=$((SECONDS + ${WAIT_TIMEOUT:-20}))
	until "$@" >/dev/null 2>&1; do
		if ((SECONDS >= deadline)); then
			echo "timed out waiting for: $*" >&2
			return 1
		fi
		sleep 0.05
	done
}

# wait_until 'TEST': wait_for a shell test made afresh each time (its $(...)
# too, and this shell's functions are there), unlike wait_for test "$(x)".
wait_until() { wait_for eval "$1"; }

cluster_start_munge() {
	mkdir -p "$CL/munge"
	chmod 0755 "$CL" "$CL/munge"
	dd if=/dev/urandom of="$CL/munge/munge.key" bs=1024 count=1 2>/dev/null
	chmod 0600 "$CL/munge/munge.key"
	munged --socket="$CL/munge/munge.sock" \
		--key-file="$CL/munge/munge.key" \
		--pid-file="$CL/munge/munged.pid" \
		--log-file="$CL/munge/munged.log" \
		--seed-file="$CL/munge/munged.seed" ${MUNGED_ARGS:-} || return 1
	wait_for test -S "$CL/munge/munge.sock" || return 1
	cat "$CL/munge/munged.pid" >>"$CL/pids"
	export ROTA_MUNGE_SOCKET="$CL/munge/munge.sock"
}

# cluster_write_conf [EXTRA LINES...]: rota.conf for the node count given
# by NODE_TOPOS; extra lines are appended.
cluster_write_conf() {
	local i=1 n
	n=$(echo $NODE_TOPOS | wc -w)
	mkdir -p "$CL/state" "$CL/spool" "$CL/log"
	{
		echo "ClusterName=local"
		echo "CtldAddr=127.0.0.1"
		echo "CtldPort=0"
		echo "StateDir=$CL/state"
		echo "SpoolDir=$CL/spool"
		echo "HeartbeatInterval=${HEARTBEAT:-2s}"
		echo "NodeTimeout=${NODE_TIMEOUT:-10s}"
		echo "KillWait=${KILL_WAIT:-2s}"
		echo "MinJobAge=${MIN_JOB_AGE:-300s}"
		echo "SchedulerInterval=5s"
		echo "LargeMemory=256G"
		[ -z "${PLUGIN_DIR:-}" ] || echo "PluginDir=$PLUGIN_DIR"
		echo "NodeName=n[01-$(printf %02d "$n")] Addr=127.0.0.[2-$((n + 1))]"
		# CLUSTER_QUEUES=no: the extra lines bring their own queues
		if [ "${CLUSTER_QUEUES:-yes}" = yes ]; then
			echo "QueueName=batch Nodes=ALL Default=yes MaxTime=2-00:00:00 DefaultTime=1:00:00"
			echo "QueueName=short Nodes=n[01-02] MaxTime=30"
		fi
		for line in "$@"; do echo "$line"; done
	} >"$CL/rota.conf"
	export ROTA_CONF="$CL/rota.conf"
}

cluster_start_ctld() {
	rm -f "$CL/ctld.addr"
	"$BIN/rota-ctld" -f "$CL/rota.conf" --addr-file "$CL/ctld.addr" \
		${CTLD_ARGS:-} >>"$CL/log/ctld.log" 2>&1 &
	echo $! >>"$CL/pids"
	echo $! >"$CL/ctld.pid"
	disown $! # a killed controller is news only to the tests that kill it
	wait_for test -s "$CL/ctld.addr" || return 1
	ROTA_CTLD=$(cat "$CL/ctld.addr")
	export ROTA_CTLD
}

cluster_start_nodes() {
	local i=1 name t
	for t in $NODE_TOPOS; do
		name=n$(printf %02d $i)
		"$BIN/rota-noded" -f "$CL/rota.conf" -n "$name" \
			--topology "$TOPO/$t" --ctld "$ROTA_CTLD" \
			>>"$CL/log/$name.log" 2>&1 &
		echo $! >>"$CL/pids"
		echo $! >"$CL/$name.pid"
		i=$((i + 1))
	done
	wait_for cluster_all_up
}

cluster_all_up() {
	local n
	n=$(echo $NODE_TOPOS | wc -w)
	[ "$("$BIN/rota" nodes --noheader | awk '$2 == "UP"' | wc -l)" -eq "$n" ]
}

cluster_start() {
	mkdir -p "$CL"
	: >"$CL/pids"
	cluster_start_munge && cluster_write_conf "$@" && cluster_start_ctld &&
		cluster_start_nodes
}

# cluster_kill_cgroups SUP: empty and remove the job cgroups a supervisor
# made ("<...>/rota/job<ID>.<RUN>.<SUP>", on v1 one per hierarchy, on v2
# one), which it would have removed itself: thawed if it was killed while
# freezing them, everything in them killed, then gone.
cluster_kill_cgroups() {
	local d
	for d in $(find /sys/fs/cgroup -type d -path "*/rota/job*.*.$1" 2>/dev/null); do
		[ -f "$d/freezer.state" ] && echo THAWED >"$d/freezer.state" 2>/dev/null
		[ -f "$d/cgroup.kill" ] && echo 1 >"$d/cgroup.kill" 2>/dev/null
		WAIT_TIMEOUT=5 wait_until \
			"xargs -r kill -9 <'$d/cgroup.procs'; rmdir '$d'"
	done
}

# Jobs outlive their node daemons (each has a supervisor): a stopped test
# cluster takes its jobs and their supervisors with it.
cluster_kill_jobs() {
	local sup start job rest
	for f in "$CL"/spool/*/job*.sup; do
		[ -f "$f" ] || continue
		read -r sup start job rest <"$f"
		# a job that ended: its supervisor is tidying up, let it
		kill -0 "$job" 2>/dev/null ||
			WAIT_TIMEOUT=3 wait_for sh -c "! kill -0 $sup"
		# the supervisor first: else it would report its job's death
		kill -9 "$sup" 2>/dev/null
		kill -9 -- "-$job" 2>/dev/null
		# and what is left in its cgroups, even outside the process group
		cluster_kill_cgroups "$sup"
	done
}

cluster_stop() {
	local pid
	[ -f "$CL/pids" ] || return 0
	cluster_kill_jobs
	# node daemons and the controller first, munged last
	tac "$CL/pids" | while read -r pid; do
		kill "$pid" 2>/dev/null
	done
	for pid in $(cat "$CL/pids"); do
		for _ in $(seq 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
		kill -9 "$pid" 2>/dev/null
	done
	: >"$CL/pids"
}

# job_state ID: the job's state word from `rota show job`
job_state() {
	"$BIN/rota" show job "$1" 2>/dev/null | sed -n 's/^State=//p'
}

# job_state_is ID STATE: for wait_for, which must re-run the check
# (wait_for test "$(job_state ID)" = X would compare one snapshot)
job_state_is() {
	[ "$(job_state "$1")" = "$2" ]
}

# wait_job_done ID: until the job has ended (any final state)
job_is_done() {
	case "$(job_state "$1")" in
	COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) return 0 ;;
	*) return 1 ;;
	esac
}
wait_job_done() {
	wait_for job_is_done "$1"
}

# cluster_kill9 PIDFILE: SIGKILL the daemon it names, wait until it is gone,
# and drop it from the pids cluster_stop kills: pids wrap (pid_max can be
# 32768), and a stale one would be some other process by then.
cluster_kill9() {
	local pid
	pid=$(cat "$1")
	kill -9 "$pid" 2>/dev/null
	wait_for sh -c "! kill -0 $pid 2>/dev/null"
	sed -i "/^$pid\$/d" "$CL/pids"
}

# cluster_kill_ctld: SIGKILL the controller (a crash at this very moment).
cluster_kill_ctld() {
	cluster_kill9 "$CL/ctld.pid"
}

# cluster_restart_ctld: start the controller again on the port it had, so
# that node daemons and clients find it where they left it.
cluster_restart_ctld() {
	local port=${ROTA_CTLD##*:}
	sed -i "s/^CtldPort=.*/CtldPort=$port/" "$CL/rota.conf"
	cluster_start_ctld
}

# ---- emulated nodes (rota-noded-emu, docs/emulate.md) ----------------------

# emu_addr I: the I-th emulated node's address (1-based), 127.1.0.1 on,
# 250 to a /24: 127.1.X.Y, Y in 1..250
emu_addr() {
	echo "127.1.$((($1 - 1) / 250)).$((($1 - 1) % 250 + 1))"
}

# cluster_write_emu_conf N [EXTRA LINES...]: rota.conf for N emulated nodes
# e00001.. (one NodeName line per /24 of addresses), a batch queue on all.
cluster_write_emu_conf() {
	local n=$1 first last
	shift
	mkdir -p "$CL/state" "$CL/spool" "$CL/log"
	{
		echo "ClusterName=emu"
		echo "CtldAddr=127.0.0.1"
		echo "CtldPort=0"
		echo "StateDir=$CL/state"
		echo "SpoolDir=$CL/spool"
		echo "HeartbeatInterval=${HEARTBEAT:-2s}"
		echo "NodeTimeout=${NODE_TIMEOUT:-10s}"
		echo "KillWait=${KILL_WAIT:-2s}"
		echo "MinJobAge=${MIN_JOB_AGE:-300s}"
		echo "SchedulerInterval=5s"
		[ -z "${PLUGIN_DIR:-}" ] || echo "PluginDir=$PLUGIN_DIR"
		for ((first = 1; first <= n; first += 250)); do
			last=$((first + 249 > n ? n : first + 249))
			printf 'NodeName=e[%05d-%05d] Addr=127.1.%d.[%d-%d]\n' \
				"$first" "$last" $(((first - 1) / 250)) 1 \
				$((last - first + 1))
		done
		if [ "${CLUSTER_QUEUES:-yes}" = yes ]; then
			echo "QueueName=batch Nodes=ALL Default=yes MaxTime=2-00:00:00 DefaultTime=1:00:00"
		fi
		for line in "$@"; do echo "$line"; done
	} >"$CL/rota.conf"
	export ROTA_CONF="$CL/rota.conf"
}

# cluster_start_emu [EMU ARGS...]: rota-noded-emu for every node of
# rota.conf, topologies cycled from NODE_TOPOS, its run log in
# $CL/emu.runlog, lost nodes named in $CL/emu.lost (emu_lose/emu_back).
cluster_start_emu() {
	local t topos=()
	for t in $NODE_TOPOS; do topos+=(--topology "$TOPO/$t"); done
	: >"$CL/emu.lost"
	"$BIN/rota-noded-emu" -f "$CL/rota.conf" --ctld "$ROTA_CTLD" \
		"${topos[@]}" --control "$CL/emu.lost" \
		--run-log "$CL/emu.runlog" "$@" >>"$CL/log/emu.log" 2>&1 &
	echo $! >>"$CL/pids"
	echo $! >"$CL/emu.pid"
}

# emu_lose HOSTLIST...: those nodes are cut off, the others back
emu_lose() {
	echo "$@" >"$CL/emu.lost"
	kill -USR1 "$(cat "$CL/emu.pid")"
}

# emu_nodes_up: how many nodes `rota nodes` lists UP
emu_nodes_up() {
	"$BIN/rota" nodes --noheader | awk '$2 == "UP"' | wc -l
}

# emu_check_runlog FILE: from the emulator's run log, every run of a job
# that overlaps another run of it, or starts again, one line each;
# nothing printed: nothing ran twice.
emu_check_runlog() {
	awk '$2 == "lost" || $2 == "back" { next }
	$2 == "start" {
		if ($3 in running)
			print "job " $3 " run " $4 " started at " $1 " ms on " $5 \
				" while run " running[$3] " runs on " where[$3]
		if (($3 "." $4) in seen)
			print "job " $3 " run " $4 " started again at " $1 " ms"
		seen[$3 "." $4] = 1
		running[$3] = $4
		where[$3] = $5
		next
	}
	{
		if (!($3 in running) || running[$3] != $4)
			print "job " $3 " run " $4 " ended (" $2 ") at " $1 \
				" ms but was not running"
		delete running[$3]
	}' "$1"
}
