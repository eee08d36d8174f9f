#!/bin/bash
# Akka (seed 003, etc/akka.conf): Maui's priority and throttling
# policies, on live daemons: 8 idle + the rest blocked, 72 jobs, 5 days,
# MAXPS soft and hard with the page's own numbers, backfill; each check
# names the page's statement it holds to.
. "$top_srcdir/testsuite/lib/tap.sh"
. "$top_srcdir/testsuite/lib/site.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 15
like "$(site_conf_check akka)" ': ok \(' "etc/akka.conf loads as shipped (rota-ctld -t)"
# one node of 192 cores: room for 72 running jobs and the page's 8-core
# jobs beside a 2-core one
NODE_TOPOS="192em64t-24n8c2t.xml"

# backfill every second rather than Maui's 30 s
SITE_EDIT='s/^(Sched=backfill.*) Interval=30s/\1 Interval=1s/'
site_start akka || { echo "Bail out! akka"; exit 1; }
sub() { as rotatest1 rota submit -q batch "$@" --wrap 'sleep 300'; }
# section JOB: the showq section (ACTIVE, IDLE, BLOCKED) JOB is listed in
section() {
	rota showq | awk -v j="$1" '/ JOBS-*$/ { s = $1 } $1 == j && NF >= 6 { print s }'
}

# Other users fill all but one core.
b1=$(as rotatest2 rota submit -q batch -n 191 -t 10 --wrap 'sleep 300')
b2=$(as rotatest2 rota submit -q batch -n 1 -t 10 --wrap 'sleep 300')
wait_for job_state_is "$b1" RUNNING && wait_for job_state_is "$b2" RUNNING

# XFactorWeight 100 x ~1 + FSUserWeight 1000 x (0.9 share - 0 usage) x
# 100 + queue minutes (0).  The expansion factor is (wait + 1 min) /
# 1 min: each second between submit and rota prio adds 1.67 (a loaded
# machine under ASan takes one or two), so up to 6 s of waiting is taken
ids=()
for i in $(seq 10); do ids+=("$(sub -t 1)"); done
p=$(prio_of "${ids[0]}")
ok "$(awk -v p="$p" 'BEGIN { print !(p >= 90100 && p < 90110) }')" \
	"priority: 100 + 90000: expansion factor and fairshare deviation ($p)"
is "$(for j in "${ids[@]}"; do section "$j"; done | sort | uniq -c | awk '{ printf "%s %s ", $1, $2 }')" \
	"2 BLOCKED 8 IDLE " "10 jobs: the first 8 go to idle, the next 2 to blocked"
like "$(rota show job "${ids[8]}" | sed -n 's/^Reason=//p')" '^MaxIdlePerUser \(8 of 8\)$' \
	"no more than 8 jobs queued for scheduling: the reason"
# a core frees: the first idle job starts, the first blocked one moves up
rota cancel "$b2"
wait_for job_state_is "${ids[0]}" RUNNING
wait_until '[ "$(section "${ids[8]}")" = IDLE ]'
is "$(section "${ids[8]}") $(section "${ids[9]}")" "IDLE BLOCKED" \
	"an idle job starts: a blocked one is upgraded to idle (Maui's order: the oldest)"

# 72 jobs at most, running and idle together
rota cancel "$b1" "${ids[@]}"
for j in "$b1" "${ids[@]}"; do wait_for job_is_done "$j"; done
many=()
for i in $(seq 73); do many+=("$(sub -t 15)"); done
wait_until '[ "$(rota queue -H -u rotatest1 -t RUNNING | wc -l)" -eq 72 ]'
ok $? "72 jobs running (72 x 900 s = 64800 processor-seconds, within MAXPS)"
like "$(rota show job "${many[72]}" | sed -n 's/^Reason=//p')" '^MaxJobsPerUser \(72 of 72\)$' \
	"no more than 72 jobs total (running and idle): the 73rd is blocked"
rota cancel "${many[@]}"
for j in "${many[@]}"; do wait_for job_is_done "$j"; done

# 5 days at most
out=$(as rotatest1 rota submit -q batch -t 5-00:00:01 --wrap true 2>&1)
like "$out" 'exceeds .*5-00:00:00' "a job may not run longer than 5 days (432000 s)"
five=$(as rotatest1 rota submit -q batch -n 1 -t 5-00:00:00 --hold --wrap true)
ok $? "5 days exactly is accepted"
rota cancel "$five"

# MAXPS soft, the page's example: 2 processors with 9:42:28 left =
# 69896; an 8-processor 1-hour job adds 28800: 98696 > 72000.  With
# another idle job beside it, neither starts, pass after pass.
run=$(sub -n 2 -t 9:42:30)
wait_for job_state_is "$run" RUNNING
sleep 2 # 9:42:28 left
# both idle at once (released in one request): each is the other's
i1=$(sub -n 8 -t 1:00:00 --hold)
i2=$(sub -n 8 -t 2:00:00 --hold)
rota release "$i1" "$i2"
sleep 3 # a few main and backfill passes
like "$(rota show job "$i1" | sed -n 's/^Reason=//p')" '^MaxPS soft \(9869[0-9] > 72000\)$' \
	"MAXPS: 69896 s + 28800 s = 98696 s > MAXPS"
is "$(job_state "$i1") $(job_state "$i2") $(section "$i1")" "PENDING PENDING IDLE" \
	"MAXPS: no new jobs while the user has other idle jobs; they stay idle"
# Alone, a job between the soft and the hard limit is considered.
rota cancel "$i2"
wait_for job_state_is "$i1" RUNNING
ok $? "MAXPS: with no other job eligible, a job between SOFT and HARD starts"

# MAXPS hard: never passed.  16 x 18:45:01 = 1080016 on its own is
# refused at submit; 16 x 18:00:00 = 1036800 beside the running jobs
# (69896 + 28800 less a little) passes 1080000 and never starts.
out=$(as rotatest1 rota submit -q batch -n 16 -t 18:45:01 --wrap true 2>&1)
like "$out" '1080016 processor-seconds exceed MaxPSHard 1080000' \
	"MAXPS hard: a job alone above the HARD limit is refused"
h=$(sub -n 16 -t 18:00:00)
sleep 3
like "$(rota show job "$h" | sed -n 's/^Reason=//p')" '^MaxPS hard \(11[0-9]{5} > 1080000\)$' \
	"MAXPS hard: a job may never exceed a HARD limit, even alone"
is "$(job_state "$h") $(section "$h")" "PENDING BLOCKED" "MAXPS hard: blocked"
