#!/bin/bash
# Backfill on real daemons: a short job backfills around a large job
# waiting for cores, a long one that would delay it waits, the large job
# starts at the time rota queue --start gave it, and rota diag counts the
# backfill passes.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 8
# two nodes of 2 cores
NODE_TOPOS="2intel64-1n2c-numaroot.v1tov2.xml 2intel64-1n2c-numaroot.v1tov2.xml"
KILL_WAIT=1s cluster_start \
	"Sched=backfill Interval=1s Resolution=1s NoCaps=yes" ||
	{ echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"
W="$T/work"
mkdir -p "$W" && cd "$W" || exit 1

# A holds 3 of the 4 cores until its limit
a=$(rota submit -n 3 -t 8s --wrap 'sleep 100')
wait_for job_state_is "$a" RUNNING
b=$(rota submit -n 4 -t 30s --wrap 'sleep 1')   # the large job: waits
c=$(rota submit -n 1 -t 3s --wrap 'sleep 1')    # fits before B's start
d=$(rota submit -n 1 -t 60s --wrap 'sleep 1')   # would delay B
wait_for sh -c "rota show job $b | grep -q '^EstStartTime='"
ok $? "the large job has a reservation"
est=$(rota queue --start -H | awk -v j="$b" '$1 == j { print $6 }')
like "$est" "^[0-9]{4}-[0-9]{2}-[0-9]{2}T" "rota queue --start gives its start time"
wait_for sh -c "rota show job $c | grep -q '^State=\(RUNNING\|COMPLETED\)'"
ok $? "a short job backfills around it"
is "$(job_state "$d")" PENDING "a long one that would delay it waits"
est_s=$(date -d "$est" +%s)
WAIT_TIMEOUT=30 wait_for job_state_is "$b" RUNNING
started=$(rota show job "$b" | sed -n 's/^StartTime=//p')
start_s=$(date -d "$started" +%s)
ok $((start_s > est_s + 2)) "it starts at its estimated time ($started, expected $est)"
diag=$(rota diag)
like "$(echo "$diag" | grep '^bf_passes')" "^bf_passes +[1-9]" "rota diag counts backfill passes"
like "$(echo "$diag" | grep '^bf_started')" "^bf_started +[1-9]" "and the jobs they started"
for j in "$a" "$b" "$c" "$d"; do WAIT_TIMEOUT=60 wait_job_done "$j"; done
