#!/bin/bash
# Priority on a real cluster: with Slurm's multifactor and Fair-Tree, a job
# of the user who has used nothing overtakes an earlier job of one who
# has; rota prio lists pending jobs in the scheduler's order with every
# term; rota show job shows the same; a user may not raise a priority.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 17
# two nodes of 2 cores: easy to fill
NODE_TOPOS="2intel64-1n2c-numaroot.v1tov2.xml 2intel64-1n2c-numaroot.v1tov2.xml"
cluster_start "AccountName=physics Shares=50" "AccountName=chem Shares=50" \
	"UserName=rotatest1 Account=physics" "UserName=rotatest2 Account=chem" \
	"Priority=multifactor WeightAge=1000 WeightFairshare=100000 MaxAge=1d" \
	"PriorityCalcPeriod=1s" "QOSName=high Priority=10" \
	"QueueName=free Nodes=ALL Charge=no" ||
	{ echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1

# rotatest1 uses the machine for a while; rotatest2 never has
u=$(as rotatest1 rota submit -n 4 --wrap 'sleep 2')
wait_job_done "$u"
# root's blocker charges nothing: root ties with rotatest2 (no usage)
blocker=$(rota submit -q free -n 4 --wrap 'sleep 4')
wait_for job_state_is "$blocker" RUNNING
a=$(as rotatest1 rota submit -n 4 --wrap true)
b=$(as rotatest2 rota submit -n 4 --wrap 'sleep 2')
is "$(rota queue -H -u rotatest2 | awk '{ print $1 }')" "$b" \
	"rota queue -u: that user's jobs only (the controller's index)"
order=$(rota prio -H | awk '{ print $1 }' | tr '\n' ' ')
is "$order" "$b $a " "rota prio: the unserved user's later job first"
is "$(rota prio -H -u rotatest2 | awk '{ print $1 }')" "$b" \
	"rota prio -u: that user's jobs only"
is "$(rota prio -H -j "$a,$b" | awk '{ print $1 }' | tr '\n' ' ')" "$a $b " \
	"rota prio -j LIST: those jobs, in the order named"
line=$(rota prio -H "$b")
like "$line" "^$b +rotatest2 +chem +batch +normal +100000\.[0-9]+ age=[0-9.]+ fairshare=1e\+05$" \
	"its terms: age, and fairshare 1.0 x 100000 (the top of 3 users)"
like "$(rota prio | head -n 1)" "^Priority multifactor: WeightAge=1000 WeightFairshare=100000 " \
	"the header names the plugin and its weights"
like "$(rota prio | sed -n 2p)" '^Rated [0-9T:-]+ \([0-9]+ s ago\)' \
	"the second line says when the last rating of all was"
like "$(rota prio | sed -n 3p)" ' PRIORITY TERMS$' \
	"multifactor rates pending jobs only, as sprio: no STATE column"
is "$(rota prio --urg 2>&1; echo "exit $?")" \
	"rota prio: --urg, --pri and --ext are Grid Engine's views: the priority plugin 'multifactor' has no urgency (they need priority/sge)
exit 1" "Grid Engine's views are refused for another plugin"
# rota prio answers as of the last rating: a's, at its submit, came
# before b's user had a job; the next (PriorityCalcPeriod=1s) ranks 3 users
wait_for sh -c "rota prio -l $a | grep -q 'fairshare *raw=0.333333'"
long=$(rota prio -l "$a" | grep fairshare)
like "$long" "^ +fairshare +raw=0\.333333 +norm=0\.333333 +weight=100000 +value=33333\.3$" \
	"rota prio -l: raw, normalized, weight and value (rank 1 of 3 users)"
like "$(rota show job "$a" | grep '^Priority=')" "^Priority=33333\.[0-9]+ \(multifactor\)$" \
	"rota show job shows the priority"
wait_for job_state_is "$b" RUNNING
is "$(job_state "$a")" PENDING "and the scheduler starts the unserved user's job first"
wait_job_done "$b"
wait_job_done "$a"

# a user may lower a priority, never raise it
is "$(as rotatest1 rota submit --nice=-5 --wrap true 2>&1)" \
	"rota submit: --nice=-5: only operators may raise a job's priority" \
	"a negative nice is refused to users"
is "$(as rotatest1 rota submit --urgency=20 --wrap true 2>&1)" \
	"rota submit: --urgency=20: users may only lower it (at most 16)" \
	"so is an urgency above 16"
is "$(as rotatest1 rota submit --qos=gold --wrap true 2>&1)" \
	"rota submit: qos 'gold' does not exist" "an unknown QOS is refused"
c=$(as rotatest1 rota submit --qos=high --nice=10 --wrap true)
ok $? "a known QOS and a positive nice are taken"
wait_job_done "$c"
