#!/bin/bash
# GWDG (seed 001, etc/gwdg.conf): Slurm's multifactor with GWDG's
# weights, Fair-Tree, partition tiers and factors, job size by nodes,
# backfill and the loops' bounds, on live daemons; each check names the
# page's statement it holds to.
. "$top_srcdir/testsuite/lib/tap.sh"
. "$top_srcdir/testsuite/lib/site.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 19

# term JOB NAME: one term of the job in rota prio (NAME=VALUE)
term() { rota prio -H "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# order IDS...: those of IDS pending, in the order rota prio lists them
order() {
	local re
	re=$(echo "$@" | tr ' ' '|')
	rota prio -H | awk '{ print $1 }' | grep -x -E "$re" | tr '\n' ' '
}

# etc/gwdg.conf as shipped: every key known, every plugin setting taken
# (the plugins from the build tree; its nodes are GWDG's illustrative ones)
like "$(site_conf_check gwdg)" \
	': ok \(1408 nodes, 7 queues, 3 accounts, priority multifactor, fairshare fairtree\)$' \
	"config check: rota-ctld -t accepts etc/gwdg.conf as shipped"

# Two nodes of 2 cores, filled by rotatest2's blocker.  A 1-core job of
# rotatest1 (no usage: Fair-Tree's first rank, 1.0) in standard96:
# partition 1e6 x 1/10 + fairshare 1e5 x 1.0 + job size 1000 x 1/2 nodes
# + age 10000 x t / 5d (0.02 a second) = 200500 and a little.
site gwdg standard96 || { echo "Bail out! gwdg"; exit 1; }
j=$J
like "$(prio_of "$j")" '^20050[0-1]\.[0-9]+$' "weights: 100000 + 100000 + 500 + a little age"
like "$(rota prio -H "$j")" ' fairshare=1e\+05 jobsize=500 queue=1e\+05 qos=0$' "weights: its terms"

# "the *:test partitions have a factor of 10, all other partitions a
# factor of 1", normalized by the largest: 1e6 x 10/10, 1e6 x 1/10
t=$(as rotatest1 rota submit -q standard96:test --wrap true)
l=$(as rotatest1 rota submit -q large96 --wrap true)
is "$(term "$t" queue) $(term "$l" queue)" "1e+06 1e+05" \
	"partition factor: *:test 1e6, large96 (tier 20, factor 1) 1e5"

# "the interactive QOS has a factor of 1000, the 2h QOS a factor of 100":
# 1e4 x 1000/1000 and 1e4 x 100/1000
h=$(as rotatest1 rota submit -q standard96 --qos=interactive --wrap true)
q2=$(as rotatest1 rota submit -q standard96 --qos=2h --wrap true)
is "$(term "$h" qos) $(term "$q2" qos)" "1e+04 1000" "QOS: interactive 1e4, 2h 1000"

# "Job size: the number of nodes a job will allocate": twice the cores
# on one node weigh the same, two nodes twice (1000 x 2/2)
n1=$(as rotatest1 rota submit -q standard96 -N 1 -n 2 --wrap true)
n2=$(as rotatest1 rota submit -q standard96 -N 2 -n 2 --wrap true)
is "$(term "$n1" jobsize)" 500 "job size: 2 cores on 1 node of 2 count as 1 node (500)"
is "$(term "$n2" jobsize)" 1000 "job size: 2 nodes of 2 (1000)"

# "*:test partitions have a priority tier of 100 and large96 20, all
# others 1": the *:test job (1100500) first, then the large96 job
# (200500) ahead of the interactive one in standard96 (210500) although
# that one's priority is higher
is "$(order "$t" "$l" "$h")" "$t $l $h " \
	"consideration order: *:test (tier 100), large96 (tier 20), then tier 1"
ph=$(prio_of "$h") pl=$(prio_of "$l")
ok "$(awk -v h="$ph" -v l="$pl" 'BEGIN { print (h > l) ? 0 : 1 }')" \
	"consideration order: the tier-1 job's priority is the higher ($ph > $pl)"

# "If two jobs have the same priority, their submit time is used ... the
# older job first; the exact same submit time: the lower job id first".
# Held jobs accrue no age, so equal jobs keep equal priorities.
submitted() { rota show job "$1" | sed -n 's/^SubmitTime=//p'; }
a1=$(as rotatest1 rota submit -q huge96 -H --wrap true)
s1=$(submitted "$a1")
wait_until '[ "$(date +%Y-%m-%dT%H:%M:%S)" != "$s1" ]'
for try in 1 2 3; do
	a2=$(as rotatest1 rota submit -q huge96 -H --wrap true)
	a3=$(as rotatest1 rota submit -q huge96 -H --wrap true)
	[ "$(submitted "$a2")" = "$(submitted "$a3")" ] && break
done
echo "# submitted: $a1 $s1, $a2 $(submitted "$a2"), $a3 $(submitted "$a3") (try $try)"
is "$(prio_of "$a1") $(order "$a1" "$a2")" "$(prio_of "$a2") $a1 $a2 " \
	"equal priority: the older submit first"
is "$(prio_of "$a2") $(order "$a3" "$a2")" "$(prio_of "$a3") $a2 $a3 " \
	"equal priority, same submit time: the lower job id first"

# GWDG's partition names: submit -q, #ROTA -q, rota queue, showq, why
is "$(rota queue -H -q standard96:test | awk '{ print $1, $2 }')" "$t standard96:test" \
	"partition names: medium40:test style, in rota submit -q and rota queue -q"
printf '#!/bin/sh\n#ROTA -q medium40:test\ntrue\n' >"$CL/w/test.sh"
chmod 644 "$CL/w/test.sh"
m=$(as rotatest1 rota submit "$CL/w/test.sh")
is "$(rota show job "$m" | sed -n 's/^Queue=//p')" "medium40:test" \
	"partition names: a #ROTA -q line"
like "$(rota showq | grep "^$t ") / $(rota why "$t")" \
	"^$t +rotatest1 +Idle .* / Job $t \\(rotatest1, queue standard96:test, " \
	"partition names: rota showq and rota why"

# ... and in the journal: a controller killed and started again restores
# the job to its queue (rota queue --json shows it)
cluster_kill_ctld
cluster_restart_ctld >&2
like "$(rota queue --json -j "$t")" '"queue":"standard96:test"' \
	"partition names: restored from the journal after kill -9"

# "the scheduling loops are interrupted if too many RPCs are pending,
# max_rpc_cnt=50": SchedulerMaxRPC, set to 1 here so that a burst of
# submits finds others waiting; a pass put off runs at the loop turn's
# end, and every job of the burst runs.
SITE_EDIT='s/^SchedulerMaxRPC=50$/SchedulerMaxRPC=1/' site_start gwdg ||
	{ echo "Bail out! gwdg maxrpc"; exit 1; }
grep -q '^SchedulerMaxRPC=1$' "$CL/rota.conf" || { echo "Bail out! SITE_EDIT"; exit 1; }
deferred() { rota diag | awk '$1 == "sched_deferred" { print $2 }'; }
for round in 1 2 3; do
	pids=() # the daemons are this shell's children too: wait for these
	for i in $(seq 16); do
		as rotatest1 rota submit -t 1 --wrap true >"$CL/burst.$round.$i" &
		pids+=($!)
	done
	wait "${pids[@]}"
	[ "$(deferred)" -gt 0 ] && break
done
echo "# sched_deferred $(deferred) after $round burst(s)"
ok "$( [ "$(deferred)" -gt 0 ] && echo 0 || echo 1)" \
	"max_rpc_cnt: passes deferred while requests wait (rota diag: sched_deferred)"
done_all=0
for f in "$CL"/burst.*; do
	wait_for job_is_done "$(cat "$f")" || done_all=1
done
ok $done_all "max_rpc_cnt: every job of the burst scheduled afterwards"

# "Backfill scheduling loop ... able to fill the gaps in between larger
# jobs": a 4-core job waits for the 2 cores in use until its 10 minutes
# are up; a 1-minute job behind it (lower: nice 100, one node) takes the
# free node.  The main pass alone keeps it waiting behind the wide job
# (Priority); backfill starts it.  bf_interval is 45 s: a reconfigure
# builds a new scheduling core, whose first tick runs a backfill pass
# (as the controller's first tick did: wait for that one to be over).
bf_passes() { rota diag | awk '$1 == "bf_passes" { print $2 }'; }
wait_until '[ "$(bf_passes)" -ge 1 ]'
r=$(as rotatest2 rota submit -N 1 -n 2 -t 10 --wrap 'sleep 60')
wait_for job_state_is "$r" RUNNING
w=$(as rotatest2 rota submit -n 4 -t 10 --wrap true)
s=$(as rotatest2 rota submit -t 1 --nice=100 --wrap 'sleep 60')
is "$(job_state "$s") $(rota show job "$s" | sed -n 's/^Reason=//p')" "PENDING Priority" \
	"backfill: the main pass keeps the short job behind the wide one"
rota reconfigure >/dev/null
wait_for job_state_is "$s" RUNNING
is "$(job_state "$s") $(job_state "$w")" "RUNNING PENDING" \
	"backfill: on, the short job fills the gap before the wide job"
