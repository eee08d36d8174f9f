#!/bin/bash
# Task ranges (issue 22, point 7): rota submit -n MIN-MAX, as Grid
# Engine's qsub -pe mpi 2-6.  On two nodes of 2 cores, beside a 1-core
# job, a -n 2-6 job starts with the 3 cores free; its environment, its
# steps and rota show job say 3, while a range still waiting shows
# 2-6 and its Grid Engine urgency takes UrgencySlots=avg (4 slots);
# both survive a controller killed and restarted (the journal); bad
# ranges are refused at submit with one line.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 15
NODE_TOPOS="2intel64-1n2c-numaroot.v1tov2.xml 2intel64-1n2c-numaroot.v1tov2.xml"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1
cluster_start "Priority=sge UrgencySlots=avg WeightWaitingTime=0" ||
	{ echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up: 2 nodes of 2 cores, Priority=sge UrgencySlots=avg"

# ---- bad ranges: one line, exit status 2, nothing queued ----
refused() { # RANGE WANT: rota submit -n RANGE's status and its one line
	local out st
	out=$(as rotatest1 rota submit -n "$1" --wrap true 2>&1)
	st=$?
	is "$st $(wc -l <<<"$out") $out" "2 1 $2" "-n $1 refused at submit"
}
refused 6-2 "rota submit: --ntasks '6-2': expected MIN-MAX with 1 <= MIN <= MAX <= 1048576"
refused 0-4 "rota submit: --ntasks '0-4': expected MIN-MAX with 1 <= MIN <= MAX <= 1048576"
refused 2- "rota submit: --ntasks '2-': expected N or MIN-MAX"
is "$(rota queue -a --noheader | wc -l)" 0 "none of them was queued"

# ---- a range starts with what is free: 3 of 2-6 ----
b=$(as rotatest1 rota submit -n 1 -o b.out --wrap 'sleep 300')
wait_until "[ \"\$(job_state $b)\" = RUNNING ]"
printf '#!/bin/sh\n#ROTA -n 2-6\n%s\n' \
	'echo "T=$ROTA_NTASKS H=$ROTA_HOSTS"; rota run sh -c "echo task \$ROTA_PROCID"; sleep 300' \
	>range.sh
r=$(as rotatest1 rota submit -o r.out range.sh)
wait_until "grep -q '^task' r.out && [ \$(grep -c '^task' r.out) -ge 3 ]"
is "$(grep '^T=' r.out)" "T=3 H=n01:1,n02:2" \
	"#ROTA -n 2-6 beside a 1-core job: ROTA_NTASKS=3, ROTA_HOSTS the 3 free cores"
is "$(grep -c '^task' r.out)" 3 "rota run in it: one task per granted core, 3"
is "$(rota show job "$r" | grep '^NTasks=')" "NTasks=3" \
	"rota show job: the tasks granted once it runs"

# ---- a range that waits shows its range, rated by UrgencySlots=avg ----
p=$(as rotatest1 rota submit -n 2-6 --wrap true)
wait_until "rota show job $p | grep -q '^Reason=Resources'"
is "$(rota show job "$p" | grep '^NTasks=')" "NTasks=2-6" \
	"rota show job: a pending job's range"
like "$(rota queue -j "$p" --json)" '"ntasks":2,.*"ntasks_max":6' \
	"rota queue --json: ntasks 2 and ntasks_max 6 while it waits"
like "$(rota prio -l "$p" | grep 'urgency.slots')" 'raw=4 ' \
	"Grid Engine's urgency: UrgencySlots=avg of 2-6 is 4 slots"
like "$(rota prio -l "$r" | grep 'urgency.slots')" 'raw=4 ' \
	"a running range job too, as Grid Engine rates it (not its 3 granted)"

# ---- the journal keeps them: a controller killed and started again ----
cluster_kill_ctld
cluster_restart_ctld || { echo "Bail out! controller did not restart"; exit 1; }
wait_for cluster_all_up
is "$(rota show job "$r" | grep '^NTasks=') $(job_state "$r") / $(rota show job "$p" | grep '^NTasks=')" \
	"NTasks=3 RUNNING / NTasks=2-6" \
	"after a kill -9 and restart: the running job's 3 tasks, the pending range"
# its range's minimum came back from the journal: requeued while n02
# drains, only n01's free core is left, so it waits showing 2-6 (3-6 if
# the restart had taken its 3 granted tasks for its minimum)
rota node drain n02 >/dev/null
rota requeue "$r"
wait_until "rota show job $r | grep -q '^Reason=Resources'"
is "$(rota show job "$r" | grep '^NTasks=') $(job_state "$r")" "NTasks=2-6 PENDING" \
	"requeued after the restart: it asks its whole range again, 2-6"
rota node resume n02 >/dev/null
wait_until "[ \"\$(job_state $r)\" = RUNNING ]"
is "$(rota show job "$r" | grep '^NTasks=') $(rota show job "$p" | grep '^NTasks=')" \
	"NTasks=3 NTasks=2-6" \
	"n02 back: it runs again on the 3 free cores, ahead of the later range"
rota cancel "$r" "$p" "$b"
for j in "$r" "$p" "$b"; do wait_job_done "$j"; done
