#!/bin/bash
# UsageCharge=measured (Grid Engine's usage_weight_list cpu=1,mem=0,io=0):
# a user is charged the CPU seconds his job's cgroup used, not its cores x
# wall time.  One job burns a core, another sleeps on one as long: the
# burner's user is charged its CPU time, the sleeper's about nothing.  A
# running job is charged while it runs (rota-noded reports its cgroup's
# totals with each heartbeat), and once only across a kill -9 and restart
# of rota-ctld.  With the default (allocated), both are charged 1 core x
# their wall time.
#
# Tolerances: a charge must match the CPU time the job's end reports (its
# cgroup's own count) within 2% + 0.05 s: both come from the same counter,
# the usage decays by 7-day half-life over seconds (1e-5 relative), and
# "rota show job" rounds CPUTime to the millisecond.  The sleeper's
# shell and sleep take a few milliseconds of CPU: below 0.3 s.  Wall time
# with the default is the seconds between start and end as the
# controller saw them: 3 s of job, plus up to a heartbeat either side.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge
cpu_mount=$(awk '($3 == "cgroup" && $4 ~ /(^|,)cpuacct(,|$)/) || $3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$cpu_mount" ] || skip_all "no cgroup CPU accounting mounted"

plan 10
NODE_TOPOS="2intel64-1n2c-numaroot.v1tov2.xml 2intel64-1n2c-numaroot.v1tov2.xml"
HEARTBEAT=1s
W="$T/work"

# usage of USER (decayed usage units) from rota share --json
usage_of() {
	rota share --json | python3 -c '
import json, sys
rows = json.load(sys.stdin)["rows"]
print(sum(r["usage"] for r in rows if r.get("user") == sys.argv[1]))' "$1"
}
# the CPU seconds a job's end reported (its cgroup's count)
cpu_of() { rota show job "$1" | sed -n 's/^CPUTime=//p'; }
# is_between X LO HI
is_between() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }
# near X Y: X within 2% + 0.05 of Y
near() { awk -v x="$1" -v y="$2" 'BEGIN { d = x - y; if (d < 0) d = -d; exit !(d <= 0.02 * y + 0.05) }'; }
# run_pair: a burner (rotatest1) and a sleeper (rotatest2), one core each
run_pair() {
	burn=$(as rotatest1 rota submit -n 1 -o /dev/null \
		--wrap 'timeout 3 sha256sum /dev/zero')
	idle=$(as rotatest2 rota submit -n 1 -o /dev/null --wrap 'sleep 3')
	wait_job_done "$burn"
	wait_job_done "$idle"
}

cluster_start "UsageCharge=measured" "UsageWeights=cpu=1,mem=0,io=0" ||
	{ echo "Bail out! cluster did not start"; exit 1; }
grep -q 'jobs in v[12] cgroups' "$CL"/log/n01.log ||
	skip_all "the node daemon puts jobs in no cgroup here"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1

run_pair
c1=$(cpu_of "$burn")
u1=$(usage_of rotatest1)
u2=$(usage_of rotatest2)
is_between "$c1" 0.5 3.2
ok $? "measured: the burner used CPU time (${c1} s in 3 s of wall time)"
near "$u1" "$c1"
ok $? "measured: its user is charged its CPU seconds (${u1} for ${c1} s)"
is_between "$u2" 0 0.3
ok $? "measured: the sleeper's user about nothing (${u2}, not 3 core-seconds)"

# charged while it runs, once across a kill -9 of the controller
long=$(as rotatest1 rota submit -n 1 -o /dev/null \
	--wrap 'timeout 8 sha256sum /dev/zero')
wait_for job_state_is "$long" RUNNING
wait_until "is_between \$(usage_of rotatest1) $(awk -v u="$u1" 'BEGIN { print u + 1 }') 1e9"
is "$(job_state "$long")" RUNNING "measured: charged while it runs"
cluster_kill_ctld
cluster_restart_ctld
WAIT_TIMEOUT=40 wait_job_done "$long"
c3=$(cpu_of "$long")
u3=$(usage_of rotatest1)
want=$(awk -v a="$u1" -v b="$c3" 'BEGIN { print a + b }')
near "$u3" "$want"
ok $? "measured: across a restart, its CPU time once (${u1} + ${c3} s -> ${u3})"
u2b=$(usage_of rotatest2)
is_between "$u2b" 0 0.3
ok $? "measured: a restart charges no wall time either (${u2} -> ${u2b})"

# the default: cores x wall time, for both
cluster_stop
rm -rf "$CL/state" "$CL/spool"
cluster_start || { echo "Bail out! cluster did not start"; exit 1; }
ok 0 "a cluster with the default UsageCharge"
run_pair
u1=$(usage_of rotatest1)
u2=$(usage_of rotatest2)
is_between "$u1" 2.5 5.5
ok $? "allocated: the burner's user is charged 1 core x its wall time (${u1})"
is_between "$u2" 2.5 5.5
ok $? "allocated: so is the sleeper's (${u2})"
awk -v a="$u2" 'BEGIN { exit !(a > 2 * 0.3) }'
ok $? "allocated: the sleeper costs what it holds, measured or not"
