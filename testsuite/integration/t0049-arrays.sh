#!/bin/bash
# Job arrays on a real cluster (issue 20): rota submit --array, the one
# pending record and the tasks split off as they start, the throttle,
# each task's environment and output name, rota queue's 12_[...] and -r,
# actions on a whole array and on tasks (12_7, 12_[1-5]), MaxArraySize and
# the refusals, and a controller killed in the middle.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 37
# two nodes of 2 cores
NODE_TOPOS="2intel64-1n2c-numaroot.v1tov2.xml 2intel64-1n2c-numaroot.v1tov2.xml"
cluster_start "MaxArraySize=2000" "JobComp=file" ||
	{ echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1
field() { rota show job "$1" | sed -n "s/^$2=//p"; }
rows() { rota queue -H -j "$1" | awk '{ print $1, $5 }' | sort; }

# ---- the environment and the output names ----
a=$(rota submit --array=0-6:3 -J env --wrap \
	'echo $ROTA_ARRAY_JOB_ID $ROTA_ARRAY_TASK_ID $ROTA_ARRAY_TASK_COUNT $ROTA_ARRAY_TASK_MIN $ROTA_ARRAY_TASK_MAX $ROTA_ARRAY_TASK_STEP')
wait_until "[ -s rota-${a}_6.out ] && job_is_done $a"
is "$(cat rota-${a}_0.out rota-${a}_3.out rota-${a}_6.out | tr '\n' ' ')" \
	"$a 0 3 0 6 3 $a 3 3 0 6 3 $a 6 3 0 6 3 " \
	"each task sees its ROTA_ARRAY_* variables; output rota-%A_%a.out"
is "$(rota queue -a -H -j "$a" | wc -l)" 3 "three tasks, one line each once they ran"
is "$(field "$a" ArrayTaskId)" 6 "the array's own record became its last task"
b=$(rota submit --array=1-2 -o 'o-%A-%a-%j.txt' --wrap true)
wait_until "[ -e o-$b-2-$b.txt ]"
ok $? "%A, %a and %j in --output (the last task keeps the array's id)"

# ---- one record while pending; the throttle ----
blk=$(rota submit -n 4 --wrap 'sleep 300')
wait_for job_state_is "$blk" RUNNING
c=$(rota submit --array=1-1000%2 --wrap 'sleep 300')
is "$(rota queue -H -j "$c" | awk '{ print $1, $5 }')" "${c}_[1-1000%2] PD" \
	"a pending array of 1000 tasks is one line: ${c}_[1-1000%2]"
is "$(rota queue -H -r -j "$c" | wc -l)" 1000 "rota queue -r: one line per task"
is "$(rota queue -H -r -j "$c" | sed -n '7p' | awk '{ print $1 }')" "${c}_7" \
	"named ID_TASK"
rota cancel "$blk"
wait_until "[ \$(rota queue -H -t R -j $c | wc -l) = 2 ]"
ok $? "free cores: two tasks start, no more (%2)"
is "$(rota queue -H -t PD -j "$c" | awk '{ print $1, $NF }')" \
	"${c}_[3-1000%2] (JobArrayTaskLimit)" \
	"the rest waits with reason JobArrayTaskLimit"
is "$(field "$c" ArrayTaskThrottle)" 2 "rota show job: ArrayTaskThrottle=2"
is "$(field "$c" ArrayTaskId)" 3-1000 "rota show job: ArrayTaskId, the ids pending"
like "$(rota why "$c")" "^Job ${c}_\\[3-1000%2\\] \\(998 tasks; root, queue" \
	"rota why: the rest in one line, with its task count"
like "$(rota prio -H "$c")" "^${c}_\\[3-1000%2\\] .* tasks=998" \
	"rota prio: likewise"

# ---- tasks by name ----
rota cancel "${c}_1"
wait_until "[ \"\$(job_state ${c})\" = PENDING ] && rota queue -H -t R -j $c | grep -q ${c}_3"
ok $? "rota cancel ID_1 ends that task, the next starts"
rota hold "${c}_[10-12]"
is "$(rota queue -H -t PD -j "$c" | awk '{ print $1, $NF }' | sort)" \
	"${c}_10 (JobHeldUser)
${c}_11 (JobHeldUser)
${c}_12 (JobHeldUser)
${c}_[4-9,13-1000%2] (JobArrayTaskLimit)" \
	"rota hold ID_[10-12]: held, on lines of their own"
is "$(rota release "${c}_[10-12,2000]" 2>&1)" \
	"rota release: job ${c}_[2000]: no such task pending or running" \
	"a task that is not there is named"
is "$(rota queue -H -t R -j "$c" | wc -l)" 2 \
	"released, they wait for the throttle as the rest does"
rota cancel "${c}_[4-9]"
is "$(rota queue -a -H -t CA -j "$c" | wc -l)" 7 "ID_[4-9]: cancelled one by one (and _1)"
is "$(rota hold "${c}_x" 2>&1)" \
	"rota hold: '${c}_x': array tasks: 'x': a task id expected" \
	"a malformed task list is refused"
is "$(rota hold "${blk}_1" 2>&1)" \
	"rota hold: job ${blk}_[1]: $blk is not an array" \
	"tasks of a job that is no array: refused"

# ---- a controller killed in the middle ----
before=$(rota queue -H -j "$c" | awk '{ print $1, $5 }' | sort)
cluster_kill_ctld
cluster_restart_ctld
wait_for rota ping
is "$(rota queue -H -j "$c" | awk '{ print $1, $5 }' | sort)" "$before" \
	"after kill -9 and a restart: the same rest, the same running tasks"
is "$(field "$c" ArrayTaskThrottle)" 2 "and its throttle"
rota cancel "$c"
wait_until "! rota queue -H -j $c | grep -q ' PD \| R '"
ok $? "rota cancel ID: the whole array, running tasks and rest"
is "$(rota queue -a -H -j "$c" | awk '$1 ~ /\[/ { print $1, $5 }')" \
	"${c}_[13-1000%2] CA" "the rest ends as one record, CANCELLED"
wait_until "rota history -j $c 2>/dev/null | grep -q '^${c}_\[13-1000\]'"
ok $? "rota history names it ID_[13-1000]"

# ---- refusals ----
is "$(rota submit --array=1-2001 --wrap true 2>&1)" \
	"rota submit: --array=1-2001: task id 2001: MaxArraySize is 2000 (ids 0 to 1999)" \
	"over MaxArraySize: refused by the controller"
is "$(rota submit --array=5-1 --wrap true 2>&1)" \
	"rota submit: --array=5-1: 5-1: the range runs backwards" \
	"a range that runs backwards"
is "$(rota submit --array=1-9%0 --wrap true 2>&1)" \
	"rota submit: --array=1-9%0: %0: a throttle of 0 runs no task" \
	"a throttle of 0"
is "$(rota submit --array=1-9:0 --wrap true 2>&1)" \
	"rota submit: --array=1-9:0: a step of 0" "a step of 0"
is "$(rota submit --array=a --wrap true 2>&1)" \
	"rota submit: --array=a: 'a': a task id expected" "not a number"
is "$(rota submit --array= --wrap true 2>&1)" \
	"rota submit: --array=: no task ids" "empty"
rota submit --array=1-2001 --wrap true >/dev/null 2>&1
is $? 1 "refused at submit: exit 1"
n=$(rota queue -a -H | wc -l)
printf '#!/bin/sh\n#ROTA --array=1-3\ntrue\n' >s.sh
d=$(rota submit -H s.sh)
is "$(rota queue -H -j "$d" | awk '{ print $1 }')" "${d}_[1-3]" \
	"#ROTA --array in a script"
rota release "$d"
wait_until "[ \$(rota queue -a -H -j $d | wc -l) = 3 ] && job_is_done $d"
ok $? "its three tasks ran"

# ---- job completion records ----
J="$CL/state/jobcomp.json"
wait_until "grep -q '\"array_job_id\":$d' $J"
is "$(grep "\"array_job_id\":$d," "$J" | grep -o '"array_task_id":[0-9]*' | sort | tr '\n' ' ')" \
	'"array_task_id":1 "array_task_id":2 "array_task_id":3 ' \
	"jobcomp records carry array_job_id and array_task_id"
is "$(rota history -j "$d" 2>/dev/null | awk 'NR > 1 { print $1 }' | sort | tr '\n' ' ')" \
	"${d}_1 ${d}_2 ${d}_3 " "rota history names each task ID_TASK"
