#!/bin/bash
# Real jobs end to end: two users, identity and groups, output, exit codes
# and signals, core binding, time limits, cancel, node features.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge
id rotatest1 >/dev/null 2>&1 && id rotatest2 >/dev/null 2>&1 ||
	skip_all "needs users rotatest1 and rotatest2 (scripts/test makes them)"

plan 21
cluster_start || { echo "Bail out! cluster did not start"; exit 1; }
ok 0 "four node daemons registered"

W="$T/work"
mkdir -p "$W/u1" "$W/u2"
chown rotatest1: "$W/u1"
chown rotatest2: "$W/u2"

# --- identity, groups, output, environment ---
cat >"$W/u1/who.sh" <<'JOB'
#!/bin/sh
#ROTA --ntasks=2 --job-name=who
echo "uid=$(id -u) gid=$(id -g) groups=$(id -G)"
echo "env=$ROTA_JOB_ID:$ROTA_NTASKS:$ROTA_CPUS_ON_NODE:$ROTA_QUEUE:$ROTA_NODELIST"
echo "pwd=$(pwd)"
echo "to stderr" >&2
JOB
chown rotatest1: "$W/u1/who.sh"
id1=$(cd "$W/u1" && as rotatest1 rota submit -e "err-%j.txt" who.sh)
like "$id1" '^[0-9]+$' "rotatest1 submits and gets a job id"
wait_job_done "$id1"
is "$(job_state "$id1")" COMPLETED "the job completed"
out=$(cat "$W/u1/rota-$id1.out")
like "$out" "uid=$(id -u rotatest1) gid=$(id -g rotatest1) groups=$(id -G rotatest1)" \
	"it ran as rotatest1 with its gid and supplementary groups"
like "$out" "env=$id1:2:2:batch:n0[1-4]" "ROTA_* variables are set"
like "$out" "pwd=$W/u1" "it ran in the submit directory"
is "$(cat "$W/u1/err-$id1.txt")" "to stderr" "stderr went to its own file"
is "$(stat -c %U "$W/u1/rota-$id1.out")" rotatest1 "the output file belongs to the user"

id2=$(cd "$W/u2" && as rotatest2 rota submit --wrap 'id -un')
wait_job_done "$id2"
is "$(cat "$W/u2/rota-$id2.out")" rotatest2 "a second user's job runs as that user"

# --- exit codes and signals ---
e3=$(cd "$W/u1" && as rotatest1 rota submit --wrap 'exit 3')
s9=$(cd "$W/u1" && as rotatest1 rota submit --wrap 'kill -9 $$')
wait_job_done "$e3"
wait_job_done "$s9"
is "$(as rotatest1 rota show job "$e3" | grep -E '^(State|ExitCode)=' | tr '\n' ' ')" \
	"State=FAILED ExitCode=3 " "exit code 3 is recorded"
is "$(as rotatest1 rota show job "$s9" | grep -E '^(State|Signal)=' | tr '\n' ' ')" \
	"State=FAILED Signal=9 " "death by SIGKILL is recorded"

# --- binding: two one-core jobs on n01 get cores 0 and 1 ---
ncores=$(hwloc-calc --number-of core all)
b1=$(cd "$W/u1" && as rotatest1 rota submit -q short -C ib --wrap \
	'grep Cpus_allowed_list /proc/self/status; sleep 3')
b2=$(cd "$W/u1" && as rotatest1 rota submit -q short -C ib --wrap \
	'grep Cpus_allowed_list /proc/self/status; sleep 3')
wait_job_done "$b1"
wait_job_done "$b2"
expect_cpus() { # core index on the node -> host PUs it maps to
	hwloc-calc --po -I pu "core:$(($1 % ncores))" | tr ',' '\n' | sort -n
}
expand_list() { # "0-2,5" -> one number per line
	tr ',' '\n' | awk -F- '{ for (i = $1; i <= ($2 == "" ? $1 : $2); i++) print i }'
}
got1=$(awk '{print $2}' "$W/u1/rota-$b1.out" | expand_list)
got2=$(awk '{print $2}' "$W/u1/rota-$b2.out" | expand_list)
is "$got1" "$(expect_cpus 0)" "first job is bound to the PUs of core 0"
is "$got2" "$(expect_cpus 1)" "second job is bound to the PUs of core 1"

# --- time limit: SIGTERM, grace, SIGKILL ---
marker=$((RANDOM + 100000))
tl=$(cd "$W/u1" && as rotatest1 rota submit --time=0:02 --wrap \
	"trap '' TERM; sleep $marker")
WAIT_TIMEOUT=30 wait_job_done "$tl"
is "$(job_state "$tl")" TIMEOUT "a job past its time limit ends as TIMEOUT"
pgrep -f "slee[p] $marker" >/dev/null
ok $((! $?)) "its processes are gone, SIGTERM ignored or not"

# --- cancel kills the whole process group ---
marker=$((RANDOM + 200000))
cj=$(cd "$W/u1" && as rotatest1 rota submit --wrap \
	"sleep $marker & sleep $marker & wait")
wait_for job_state_is "$cj" RUNNING
wait_for pgrep -f "slee[p] $marker"
as rotatest2 rota cancel "$cj" 2>"$T/cancel.err"
ok $((! $? == 1)) "another user may not cancel it"
like "$(cat "$T/cancel.err")" "job $cj: not yours to cancel" "and is told why"
as rotatest1 rota cancel "$cj"
wait_job_done "$cj"
is "$(job_state "$cj")" CANCELLED "the owner cancels it"
wait_for sh -c "! pgrep -f 'slee[p] $marker'"
ok $? "the job's children are gone too"

# --- constraints ---
nodes=""
for i in 1 2 3 4 5 6; do
	j=$(cd "$W/u1" && as rotatest1 rota submit -n 4 --constraint=ib --wrap 'sleep 1')
	ids="${ids:-} $j"
done
for j in $ids; do
	wait_job_done "$j"
	nodes="$nodes $(rota show job "$j" | sed -n 's/^NodeList=//p')"
done
bad=$(echo $nodes | tr ' ' '\n' | grep -vE '^n0[12]$' || true)
is "$bad" "" "--constraint=ib jobs land only on ib nodes (n01, n02): $nodes"
lm=$(cd "$W/u1" && as rotatest1 rota submit --constraint=largemem --wrap true)
wait_job_done "$lm"
is "$(rota show job "$lm" | sed -n 's/^NodeList=//p')" n03 "--constraint=largemem lands on the large-memory node"
