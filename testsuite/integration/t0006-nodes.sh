#!/bin/bash
# Nodes fail and come back: operators drain, down and resume them; a node
# silent past NodeTimeout goes down and its jobs are requeued (or end as
# NODE_FAIL with --no-requeue); a node daemon that dies leaves its jobs
# running only until its lease runs out, before the controller requeues
# them, so that no job runs in two places.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge
id rotatest1 >/dev/null 2>&1 || skip_all "needs user rotatest1"

plan 18
NODE_TOPOS="24em64t-2n6c2t-pci.xml 2intel64-1n2c-numaroot.v1tov2.xml"
HEARTBEAT=1s NODE_TIMEOUT=5s # a lease of 2s
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
wait_until '[ "$(rota show job "$a" | sed -n "s/^Reason=//p")" = Resources ]'
is "$(job_state "$a")" PENDING "no new job starts on a drained node"
rota node resume n01
wait_job_done "$a"
is "$(job_state "$a")" COMPLETED "after resume it does"

start_n01() {
	"$BIN/rota-noded" -f "$CL/rota.conf" -n n01 --topology \
		"$TOPO/24em64t-2n6c2t-pci.xml" --ctld "$ROTA_CTLD" \
		>>"$CL/log/n01.log" 2>&1 &
	echo $! >>"$CL/pids"; echo $! >"$CL/n01.pid"; disown $!
}

# --- a whole node fails, daemon and jobs: requeue, or NODE_FAIL ---
b=$(rota submit -C ib --wrap 'sleep 1000')
nr=$(rota submit -C ib --no-requeue --wrap 'sleep 1000')
wait_for job_state_is "$nr" RUNNING
cluster_kill9 "$CL/n01.pid"
cluster_kill_jobs
wait_until '[ "$(node_state n01)" = DOWN ]'
is "$(node_state n01)" DOWN "a node silent past NodeTimeout goes down"
runs_of() { rota show job "$1" | sed -n 's/^Runs=//p'; }
is "$(job_state "$b"):$(runs_of "$b")" PENDING:1 \
	"its job waits in the queue again, after its first run"
is "$(job_state "$nr")" NODE_FAIL "a --no-requeue job ends as NODE_FAIL"

# --- a daemon that dies: its job ends with the lease, then runs again ---
start_n01
wait_for test -e "$CL/spool/n01/job$b.2.sup"
marker=$((RANDOM + 300000))
c=$(rota submit -C ib --wrap "sleep $marker")
wait_for test -e "$CL/spool/n01/job$c.1.sup"
cluster_kill9 "$CL/n01.pid"
wait_for job_state_is "$c" PENDING
! pgrep -f "slee[p] $marker" >/dev/null
ok $? "its first run ended with the node's lease, before the requeue"
start_n01
wait_for test -e "$CL/spool/n01/job$c.2.sup"
wait_for test ! -e "$CL/spool/n01/job$c.1.sup"
is "$(ls "$CL/spool/n01/" | grep -c "^job$c\..\.sup$")" 1 \
	"the node comes back: the second run runs there, only it"
wait_until '[ "$(pgrep -fc "slee[p] $marker")" = 1 ]'
is "$(pgrep -fc "slee[p] $marker")" 1 "one copy of the job runs, not two"
rota cancel "$b" "$c"
wait_job_done "$c"
is "$(job_state "$c")" CANCELLED "and it ends once, as its second run"

# --- down ---
rota node down n02 --reason "fan"
is "$(node_state n02)" DOWN "an operator sets a node down"
rota node resume n02
wait_until '[ "$(node_state n02)" = UP ]'
is "$(node_state n02)" UP "and resumes it"

# --- a daemon the controller refuses: said once, asked again slowly ---
sed -e "s/^NodeName=.*/NodeName=n[01-02] Addr=127.0.0.[8-9]/" \
	-e "s|^SpoolDir=.*|SpoolDir=$T/spool2|" "$CL/rota.conf" >"$T/impostor.conf"
"$BIN/rota-noded" -f "$T/impostor.conf" -n n02 --topology \
	"$TOPO/2intel64-1n2c-numaroot.v1tov2.xml" --ctld "$ROTA_CTLD" \
	>>"$CL/log/impostor.log" 2>&1 &
echo $! >>"$CL/pids"
wait_for grep -q "refused registration" "$CL/log/impostor.log"
# what must not happen takes a fixed wait to see: it retried every 0.2s-10s
sleep 3
is "$(grep -c "address does not match" "$CL/log/impostor.log")" 1 \
	"a refused daemon says so once, not at every retry"
is "$(node_state n02)" UP "and the real node is untouched"

# --- a supervisor killed: what it held dies before its end is told ---
marker=$((RANDOM + 400000))
d=$(rota submit --wrap "setsid sleep $marker & sleep $marker")
wait_until "ls $CL/spool/*/job$d.1.sup >/dev/null 2>&1"
read -r sup _ <"$(ls $CL/spool/*/job$d.1.sup)"
kill -9 "$sup"
wait_job_done "$d"
is "$(job_state "$d")" FAILED "a job whose supervisor was killed ends FAILED"
! pgrep -f "slee[p] $marker" >/dev/null
ok $? "and nothing of it runs on (it would hold no lease)"
pkill -f "slee[p] $marker" || true
