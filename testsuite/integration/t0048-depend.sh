#!/bin/bash
# Job dependencies on a real cluster (issue 20): a three-stage pipeline
# runs in order (afterok, then afterany); afternotok after a failing job;
# after, singleton and "?"; afterok on an array (all its tasks) and
# aftercorr (task by task);
# a dependency never satisfied waits, or is cancelled when it asked so;
# unknown ids, bad types and a cycle are refused in one line with nothing
# queued; rota why names the job waited for; a controller killed -9 and
# restarted keeps what a job waits for.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 31
# two nodes of two cores: without the dependencies, the stages would run
# side by side
NODE_TOPOS="2intel64-1n2c-numaroot.v1tov2.xml 2intel64-1n2c-numaroot.v1tov2.xml"
MIN_JOB_AGE=1h
cluster_start || { echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1

field() { rota show job "$1" | sed -n "s/^$2=//p"; }
reason() { field "$1" Reason; }
njobs() { rota queue --all --noheader | wc -l; }

# ---- a pipeline: b after a completed, c after b ended ----
a=$(rota submit -o /dev/null --wrap "sleep 2; echo a >>$W/order")
b=$(rota submit -o /dev/null -d "afterok:$a" --wrap "echo b >>$W/order")
c=$(rota submit -o /dev/null --dependency="afterany:$b" \
	--wrap "echo c >>$W/order; exit 1")
wait_for job_state_is "$a" RUNNING
is "$(reason "$b")" Dependency "b waits: reason Dependency"
is "$(field "$b" Dependency)" "afterok:$a(unfulfilled)" \
	"rota show job: what b waits for"
like "$(rota why "$b")" "waits for job $a \\(RUNNING\\) to complete with exit code 0" \
	"rota why names the job and its state"
like "$(rota show --json job "$c")" "\"dependency\":\"afterany:$b\\(unfulfilled\\)\"" \
	"the JSON has it too"
wait_job_done "$c"
is "$(tr '\n' ' ' <"$W/order")" "a b c " "the stages ran in order"
is "$(job_state "$b") $(job_state "$c")" "COMPLETED FAILED" \
	"each ran once its dependency was met"
is "$(field "$b" Dependency)" "(null)" "a met dependency is dropped"

# ---- afternotok after a failing job; afterok on it never satisfied ----
f=$(rota submit -o /dev/null --wrap "sleep 1; exit 3")
g=$(rota submit -o /dev/null -d "afternotok:$f" --wrap true)
h=$(rota submit -o /dev/null -d "afterok:$f" --wrap true)
k=$(rota submit -o /dev/null -d "afterok:$f" --kill-on-invalid-dep=yes \
	--wrap true)
wait_job_done "$g"
is "$(job_state "$f") $(job_state "$g")" "FAILED COMPLETED" \
	"afternotok: runs after a failed job"
wait_until '[ "$(reason '"$h"')" = DependencyNeverSatisfied ]'
ok $? "afterok on a failed job: reason DependencyNeverSatisfied"
is "$(job_state "$h") $(field "$h" Dependency)" \
	"PENDING afterok:$f(failed)" "it stays pending, the part shown failed"
like "$(rota why "$h")" "can never start" "rota why says it can never start"
wait_job_done "$k"
is "$(job_state "$k") $(reason "$k")" "CANCELLED DependencyNeverSatisfied" \
	"--kill-on-invalid-dep=yes: cancelled"
rota cancel "$h"

# ---- refusals: one line, nothing queued ----
n=$(njobs)
is "$(rota submit -d afterok:999999 --wrap true 2>&1)" \
	"rota submit: dependency: job 999999 not found" "an unknown job id"
is "$(rota submit -d "afterfoo:$a" --wrap true 2>&1)" \
	"rota submit: --dependency: unknown type 'afterfoo' (after, afterany, afterok, afternotok, aftercorr, singleton)" \
	"an unknown type"
is "$(rota submit -d "afterok:$a,afterany:$a?afterok:$b" --wrap true 2>&1)" \
	"rota submit: --dependency 'afterok:$a,afterany:$a?afterok:$b': ',' (all) and '?' (any) cannot be mixed" \
	"',' and '?' mixed"
is "$(njobs)" "$n" "nothing was queued"
x=$(rota submit -o /dev/null --hold --wrap true)
y=$(rota submit -o /dev/null -d "afterany:$x" --wrap true)
is "$(rota update job "$x" "Dependency=afterok:$y" 2>&1)" \
	"rota update: job $x: dependency: job $x would wait for itself (a cycle)" \
	"a cycle is refused"
rota update job "$y" Dependency=
is "$(field "$y" Dependency)" "(null)" "Dependency= drops it"
wait_job_done "$y"
is "$(job_state "$y")" COMPLETED "and the job runs"
rota update job "$y" Dependency=afterok:1 2>/dev/null
is $? 1 "no update once it ended"

# ---- after, singleton, '?' ----
s1=$(rota submit -o /dev/null -J solo --wrap "sleep 3")
wait_for job_state_is "$s1" RUNNING
s2=$(rota submit -o /dev/null -J solo -d singleton --wrap true)
af=$(rota submit -o /dev/null -d "after:$s1" --wrap true)
wait_job_done "$af"
is "$(job_state "$s1") $(reason "$s2")" "RUNNING Dependency" \
	"after: runs once its target started; singleton waits while one of its name runs"
wait_job_done "$s2"
st=$(field "$s2" StartTime) en=$(field "$s1" EndTime)
[[ "$st" == 20* && "$en" == 20* && ! "$st" < "$en" ]]
ok $? "singleton: started once the other had ended"
f=$(rota submit -o /dev/null --wrap "exit 3")
g=$(rota submit -o /dev/null -d "afterok:$f?afternotok:$f" --wrap true)
wait_job_done "$g"
is "$(job_state "$f") $(job_state "$g")" "FAILED COMPLETED" \
	"'?': one part met suffices"

# ---- on arrays: an array's id is all of it; aftercorr task by task ----
ar=$(rota submit -o /dev/null --array=1-3 --wrap "sleep 1")
al=$(rota submit -o /dev/null -d "afterok:$ar" --wrap true)
wait_job_done "$al"
last=$(rota queue -a -H -j "$ar" | wc -l)
is "$last $(job_state "$al")" "3 COMPLETED" "afterok on an array: ran once its 3 tasks had"
st=$(field "$al" StartTime) en=$(field "$ar" EndTime)
[[ "$st" == 20* && "$en" == 20* && ! "$st" < "$en" ]]
ok $? "and not before the last of them ended"
c1=$(rota submit -o "$W/c1-%a" --array=1-2 --wrap 'sleep $((3 * ROTA_ARRAY_TASK_ID - 2)); date +%s.%N')
c2=$(rota submit -o "$W/c2-%a" --array=1-2 -d "aftercorr:$c1" --wrap 'date +%s.%N')
wait_until "[ -s $W/c2-2 ]"
awk -v a="$(cat "$W/c1-1")" -v b="$(cat "$W/c1-2")" -v c="$(cat "$W/c2-1")" \
	-v d="$(cat "$W/c2-2")" 'BEGIN { exit !(c >= a && c < b && d >= b) }'
ok $? "aftercorr: task 1 after task 1 ended, before task 2 did; task 2 after task 2"

# ---- a controller restart keeps what a job waits for ----
p=$(rota submit -o /dev/null --hold --wrap true)
q=$(rota submit -o /dev/null -d "afterok:$p,afterany:$a" --wrap true)
is "$(field "$q" Dependency)" "afterok:$p(unfulfilled)" \
	"a part already met is not listed"
cluster_kill_ctld
cluster_restart_ctld
wait_for rota show job "$q"
is "$(reason "$q") $(field "$q" Dependency)" \
	"Dependency afterok:$p(unfulfilled)" "after kill -9 and restart it still waits"
is "$(job_state "$q")" PENDING "and has not run"
rota release "$p"
wait_job_done "$q"
is "$(job_state "$p") $(job_state "$q")" "COMPLETED COMPLETED" \
	"released, its target ran, then it did"
rota cancel "$x"
