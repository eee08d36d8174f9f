#!/bin/bash
# IT4I (seed 000, etc/it4i.conf): PBS's job_sort_formula with IT4I's
# project fairshare ratio and eligible time, and backfilling, on live
# daemons; each check names the page's statement it holds to.
. "$top_srcdir/testsuite/lib/tap.sh"
. "$top_srcdir/testsuite/lib/site.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 11
like "$(site_conf_check it4i)" ': ok \(' "etc/it4i.conf loads as shipped (rota-ctld -t)"

# term JOB NAME: the raw value of one term of the job in rota prio -l
term() { rota prio -l "$1" | awk -v t="$2" '$1 == t { sub("raw=", "", $2); print $2 }'; }

# 1000 x 0 (qprod) + 1e6 (a project with no usage) / 1000 +
# eligible seconds / 864000
site it4i qprod || { echo "Bail out! it4i"; exit 1; }
j=$J
like "$(rota prio | head -n 1)" '^Priority formula: 1000\*queue_priority \+ fairshare_priority/1000 \+ eligible_time/864000$' \
	"formula: IT4I's job sort formula, verbatim"
like "$(prio_of "$j")" '^1000\.000[0-9]$' "formula: a qprod job of a project with no usage: 1000.0000"
k=$(as rotatest1 rota submit -q qexp --wrap true)
is "$(rota prio -H | head -n 1 | awk '{ print $1 }')" "$k" \
	"queue priority: a qexp job (priority 150) goes ahead"

# Eligible time accrues only while the job could run: held 3 s of its
# wait, it has at least 3 s less than its age.
t0=$(date +%s)
e=$(as rotatest1 rota submit -q qprod --wrap true)
sleep 1
rota hold "$e"
sleep 3
rota release "$e"
sleep 1
age=$(($(date +%s) - t0)) el=$(term "$e" eligible_time)
echo "# age $age s, eligible_time $el s"
ok "$( ((el <= age - 3 && el >= age - 5)) && echo 0 || echo 1)" \
	"eligible time: not accrued while held ($el s of $age s)"

# Usage: a qexp job charges nothing; qprod jobs charge their project
# cores x walltime; fair-share priority = 1e6 x (1 - project / total).
site_start it4i "Sched=backfill Interval=1s" || { echo "Bail out! it4i usage"; exit 1; }
x=$(as rotatest1 rota submit -q qexp -n 2 --wrap 'sleep 2')
a=$(as rotatest1 rota submit -q qprod --wrap 'sleep 1')
b=$(as rotatest2 rota submit -q qprod -n 2 --wrap 'sleep 2')
for id in $x $a $b; do wait_for job_is_done "$id"; done
# usage ACCOUNT: its RAWUSAGE (core-seconds), VALUE (fair-share priority)
usage() { rota share -l -H | awk -v a="$1" '$1 == a && NF == 12 { print $4, $8 }'; }
uo=$(usage open-24-1) ue=$(usage eu-23-12) ud=$(usage dd-24-7)
echo "# usage, fair-share priority: open-24-1 $uo, eu-23-12 $ue, dd-24-7 $ud"
sx=$(rota show job "$x" | sed -n 's/^StartTime=//p') ex=$(rota show job "$x" | sed -n 's/^EndTime=//p')
sa=$(rota show job "$a" | sed -n 's/^StartTime=//p') ea=$(rota show job "$a" | sed -n 's/^EndTime=//p')
want_o=$(($(date -d "$ea" +%s) - $(date -d "$sa" +%s)))
is "${uo% *}" "$want_o" \
	"usage: qexp jobs not counted; 1 core x the qprod job's walltime ($sa to $ea, qexp $sx to $ex)"
by_hand=$(awk -v p="${uo% *}" -v e="${ue% *}" 'BEGIN { printf "%.0f", 1e6 * (1 - p / (p + e)) }')
is "${uo#* }" "$by_hand" "fair-share priority: 1E6 x (1 - ${uo% *} / (${uo% *} + ${ue% *}))"
is "${ud#* }" 1000000 "fair-share priority: a project with no usage, MAX_FAIRSHARE"
# a pending job carries its project's figure: fairshare_priority/1000
blk=$(as rotatest2 rota submit -q qprod -n 4 -t 10 --wrap 'sleep 60')
wait_for job_state_is "$blk" RUNNING
p=$(as rotatest1 rota submit -q qprod -t 30 --wrap true)
is "$(term "$p" fairshare_priority)" "$(printf %g "${uo#* }")" \
	"fair-share priority: the same for every member of the project"

# Backfilling: a wide job waits for the 4 cores; a short job behind it
# fits in the gap and overtakes it, a long one would delay it and waits.
rota cancel "$p" "$blk"
wait_for job_is_done "$blk"
r=$(as rotatest2 rota submit -q qprod -n 2 -t 10 --wrap 'sleep 60')
wait_for job_state_is "$r" RUNNING
w=$(as rotatest1 rota submit -q qprod -n 4 -t 10 --wrap true)
long=$(as rotatest1 rota submit -q qprod -t 30 --wrap 'sleep 60')
short=$(as rotatest1 rota submit -q qprod -t 1 --wrap 'sleep 60')
wait_for job_state_is "$short" RUNNING
ok $? "backfilling: a job with a small walltime overtakes the top job"
is "$(job_state "$w") $(job_state "$long")" "PENDING PENDING" \
	"backfilling: filler jobs only if they do not delay the top job"
