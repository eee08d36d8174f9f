#!/bin/bash
# Backfill on real daemons: a short job backfills around a large job
# waiting for cores, a long one that would delay it waits, the large job
# starts at the time rota queue --start gave it, and rota diag counts the
# backfill passes.  Then rota why: a job behind a reserved one names it,
# and the longest limit that would backfill it now; rota show job gives
# the reserved job's expected nodes (EstNodes=).
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 15
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

# rota why: E holds 3 cores for 5 minutes, F (all 4) is reserved at its
# end, G (1 core for 10 minutes) would delay F but fits with a shorter limit
e=$(rota submit -n 3 -t 5m --wrap 'sleep 300')
wait_for job_state_is "$e" RUNNING
f=$(rota submit -n 4 -t 1m --wrap 'sleep 1')
g=$(rota submit -n 1 -t 10m --wrap 'sleep 1')
wait_for sh -c "rota show job $f | grep -q '^EstStartTime='"
ok $? "the wide job has a reservation again"
like "$(rota show job "$f" | grep "^EstNodes=")" "^EstNodes=n" \
	"rota show job gives its expected nodes"
like "$(rota queue --start -H | awk -v j="$f" '$1 == j { print $8 }')" \
	"[a-z]" "rota queue --start gives them too"
why=$(rota why "$g")
like "$why" "Ahead of it, job $f holds a backfill reservation" \
	"rota why names the job ahead"
like "$why" "With --time=[0-9:]+ or less it would backfill now" \
	"and the limit that would backfill it now ($why)"
like "$(rota why "$e")" "is not waiting: it is running" \
	"a running job is not waiting"
rota hold "$g" >/dev/null
like "$(rota why "$g")" "is held by its owner \\(JobHeldUser\\): 'rota release $g'" \
	"a held job says who holds it and how to release it"
for j in "$e" "$f" "$g"; do rota cancel "$j" >/dev/null; done
for j in "$e" "$f" "$g"; do WAIT_TIMEOUT=60 wait_job_done "$j"; done
