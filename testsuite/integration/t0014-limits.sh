#!/bin/bash
# Limits on a real cluster: Maui's idle-job limit blocks a user's later
# jobs with the limit and its numbers as their reason, and promotes the
# next one as an idle job starts; Slurm's MaxJobs holds a second job back
# until the first ends; MaxWall refuses at submit; rota showq shows the
# three sections; a broken limit stops rota-ctld -t with its line.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 10
NODE_TOPOS="2intel64-1n2c-numaroot.v1tov2.xml 2intel64-1n2c-numaroot.v1tov2.xml"
cluster_start "AccountName=physics" "UserName=rotatest1 Account=physics" \
	"UserName=rotatest2 Account=physics MaxJobs=1 MaxWall=1:00:00" \
	"Limits=maui MaxIdlePerUser=2 MaxPS=1000000 MaxPSHard=2000000" ||
	{ echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1

# the machine is full: rotatest1's 4 jobs wait, 2 idle and 2 blocked
blocker=$(rota submit -n 4 -t 10 --wrap 'sleep 3')
wait_for job_state_is "$blocker" RUNNING
ids=""
for _ in 1 2 3 4; do
	ids="$ids $(as rotatest1 rota submit -n 4 -t 5 --wrap 'sleep 1')"
done
set -- $ids
wait_for sh -c "rota show job $4 | grep -q '^Reason=MaxIdlePerUser'"
is "$(rota show job "$4" | grep '^Reason=')" "Reason=MaxIdlePerUser (2 of 2)" \
	"the third and later jobs are blocked: the limit and its numbers"
like "$(rota queue | grep "^ *$3 ")" "MaxIdlePerUser \(2 of 2\)" \
	"rota queue shows the reason"
sq=$(rota showq)
like "$sq" "BLOCKED JOBS" "rota showq has a blocked section"
like "$(rota showq --json)" '"blocked":\[' "rota showq --json"
wait_job_done "$1"
wait_for sh -c "! rota show job $3 | grep -q '^Reason=MaxIdle'"
ok $? "as an idle job starts, the next blocked one becomes idle"
for id in "$@"; do wait_job_done "$id"; done

# Slurm's MaxJobs=1 for rotatest2: the second waits for the first
a=$(as rotatest2 rota submit -t 5 --wrap 'sleep 2')
b=$(as rotatest2 rota submit -t 5 --wrap 'sleep 1')
wait_for job_state_is "$a" RUNNING
wait_for sh -c "rota show job $b | grep -q '^Reason=MaxJobs'"
like "$(rota show job "$b" | grep '^Reason=')" "^Reason=MaxJobsPerUser \(1 of 1\)" \
	"MaxJobs: the second job waits, with the reason"
wait_job_done "$a"
wait_job_done "$b"
ok $? "and runs once the first has ended"
like "$(as rotatest2 rota submit -t 2:00:00 --wrap true 2>&1)" \
	"^rota submit: --time=02:00:00 exceeds MaxWall" "MaxWall refuses at submit"

printf 'UserName=u Account=root MaxPS=10 MaxPSHard=5\n' >"$T/bad.conf"
is "$(rota-ctld -t -f "$T/bad.conf" 2>&1)" \
	"rota-ctld: $T/bad.conf:1: MaxPS: 10 is above MaxPSHard 5" \
	"a soft limit above its hard one: file, line and key"
