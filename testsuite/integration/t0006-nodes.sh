#!/bin/bash
# Nodes fail and come back: operators drain, down and resume them; a node
# silent past NodeTimeout goes down and its jobs end as NODE_FAIL; a node
# that comes back still running such a job is told to kill it, so that no
# job runs where the controller does not think it runs.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge
id rotatest1 >/dev/null 2>&1 || skip_all "needs user rotatest1"

plan 12
NODE_TOPOS="24em64t-2n6c2t-pci.xml 2intel64-1n2c-numaroot.v1tov2.xml"
HEARTBEAT=1s NODE_TIMEOUT=3s
cluster_start || { echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"
W="$T/work"
mkdir -p "$W" && chmod 0777 "$W" && cd "$W" || exit 1
node_state() { rota nodes --noheader | awk -v n="$1" '$1 == n { print $2 }'; }

# --- drain and resume, operators only ---
err=$(as rotatest1 rota node drain n01 2>&1)
like "$err" "only operators may change nodes" "a user may not drain a node"
rota node drain n01 --reason "new firmware"
is "$(node_state n01)" DRAINED "an operator drains it"
a=$(rota submit -C ib --wrap true)
wait_for test "$(rota show job "$a" | sed -n 's/^Reason=//p')" = Resources
is "$(job_state "$a")" PENDING "no new job starts on a drained node"
rota node resume n01
wait_job_done "$a"
is "$(job_state "$a")" COMPLETED "after resume it does"

# --- a whole node fails: daemon and jobs ---
b=$(rota submit -C ib --wrap 'sleep 1000')
wait_for test "$(job_state "$b")" = RUNNING
cluster_kill_jobs
kill -9 "$(cat "$CL/n01.pid")"
wait_for test "$(node_state n01)" = DOWN
is "$(node_state n01)" DOWN "a node silent past NodeTimeout goes down"
is "$(job_state "$b")" NODE_FAIL "its job ends as NODE_FAIL"

# --- its daemon comes back while a job lives on: the stray is killed ---
"$BIN/rota-noded" -f "$CL/rota.conf" -n n01 --topology \
	"$TOPO/24em64t-2n6c2t-pci.xml" --ctld "$ROTA_CTLD" \
	>>"$CL/log/n01.log" 2>&1 &
echo $! >>"$CL/pids"; echo $! >"$CL/n01.pid"; disown $!
wait_for test "$(node_state n01)" = UP
marker=$((RANDOM + 300000))
c=$(rota submit -C ib --wrap "sleep $marker")
wait_for pgrep -f "slee[p] $marker"
kill -9 "$(cat "$CL/n01.pid")"
wait_for test "$(job_state "$c")" = NODE_FAIL
pgrep -f "slee[p] $marker" >/dev/null
ok $? "the job lives on under its supervisor while its node is down"
"$BIN/rota-noded" -f "$CL/rota.conf" -n n01 --topology \
	"$TOPO/24em64t-2n6c2t-pci.xml" --ctld "$ROTA_CTLD" \
	>>"$CL/log/n01.log" 2>&1 &
echo $! >>"$CL/pids"; echo $! >"$CL/n01.pid"; disown $!
wait_for sh -c "! pgrep -f 'slee[p] $marker'"
ok $? "the node comes back and its stray job is killed there"
is "$(job_state "$c")" NODE_FAIL "and the job stays ended"

# --- down ---
rota node down n02 --reason "fan"
is "$(node_state n02)" DOWN "an operator sets a node down"
rota node resume n02
wait_for test "$(node_state n02)" = UP
is "$(node_state n02)" UP "and resumes it"
