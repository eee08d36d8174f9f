#!/bin/bash
# Jobs outlive their daemons: a node daemon killed with SIGKILL and
# restarted finds its jobs again; an end that happens while it is down is
# delivered once it is back; a controller killed and restarted in the
# middle of running jobs still records every job's true exit code.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 9
NODE_TOPOS="24em64t-2n6c2t-pci.xml 2intel64-1n2c-numaroot.v1tov2.xml"
NODE_TIMEOUT=30s
cluster_start || { echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"
W="$T/work"
mkdir -p "$W" && cd "$W" || exit 1

restart_node() { # NAME: SIGKILL its daemon and start it again
	local name=$1 i=${1#n}
	local t
	t=$(echo $NODE_TOPOS | cut -d' ' -f$((10#$i)))
	cluster_kill9 "$CL/$name.pid"
	# $3 a glob: the spool names files job<id>.<run>.<what>
	[ "${2:-}" = "and-wait-for" ] && wait_for sh -c "ls $3 >/dev/null 2>&1"
	"$BIN/rota-noded" -f "$CL/rota.conf" -n "$name" --topology "$TOPO/$t" \
		--ctld "$ROTA_CTLD" >>"$CL/log/$name.log" 2>&1 &
	echo $! >>"$CL/pids"
	echo $! >"$CL/$name.pid"
	disown $!
}

# 1. the daemon dies and comes back while the job runs
a=$(rota submit -C ib --wrap 'sleep 3; echo "done a"; exit 4')
wait_for job_state_is "$a" RUNNING
restart_node n01
WAIT_TIMEOUT=30 wait_job_done "$a"
is "$(rota show job "$a" | grep -E '^(State|ExitCode)=' | tr '\n' ' ')" \
	"State=FAILED ExitCode=4 " "a job outlives its node daemon's SIGKILL"
is "$(cat "rota-$a.out")" "done a" "and its output is whole"

# 2. the job ends while the daemon is down: the end waits on the node
b=$(rota submit -C ib --wrap 'sleep 1; exit 0')
wait_for job_state_is "$b" RUNNING
restart_node n01 and-wait-for "$CL/spool/n01/job$b.*.end"
WAIT_TIMEOUT=30 wait_job_done "$b"
is "$(job_state "$b")" COMPLETED "an end that happened while it was down is delivered"
wait_for sh -c "! ls '$CL'/spool/n01/job$b.* 2>/dev/null"
ok $? "and forgotten on the node once the controller has it"

# 3. the controller dies and comes back in the middle of running jobs
c=$(rota submit -C ib --wrap 'sleep 2; exit 7')
d=$(rota submit -C ib --wrap 'sleep 4; exit 0')
wait_for job_state_is "$d" RUNNING
cluster_kill_ctld
cluster_restart_ctld
WAIT_TIMEOUT=30 wait_job_done "$c"
WAIT_TIMEOUT=30 wait_job_done "$d"
is "$(rota show job "$c" | grep -E '^(State|ExitCode)=' | tr '\n' ' ')" \
	"State=FAILED ExitCode=7 " "a controller restart: the true exit code (7)"
is "$(job_state "$d")" COMPLETED "and the other job completed"

# 4. nothing runs twice, nothing is left behind
is "$(ls "$CL"/spool/*/job*.sup 2>/dev/null | wc -l)" 0 \
	"no supervisor is left once every job has ended"
is "$(rota queue --noheader | wc -l)" 0 "the queue is empty"
