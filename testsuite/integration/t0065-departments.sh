#!/bin/bash
# Grid Engine's departments on live daemons: DepartmentName= lines give a
# user's jobs its department's functional shares, a user on no line is
# in defaultdepartment, rota prio --ext shows each job's department as
# qstat -ext does, and rota reconfigure moves a user to another
# department at once (as the other share keys take effect).
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge
id rotatest2 >/dev/null 2>&1 || skip_all "needs users rotatest1 and rotatest2"

plan 7
# one node of 2 cores: root's blocker fills it, the others wait
NODE_TOPOS="2intel64-1n2c-numaroot.v1tov2.xml"
CLUSTER_QUEUES=no
cluster_start "QueueName=batch Nodes=ALL Default=yes" "AccountName=physics" \
	"UserName=rotatest1 Account=physics" "UserName=rotatest2 Account=physics" \
	"Fairshare=sharetree Tickets=10000 WeightTicketsFunctional=1000 WeightUser=0 WeightProject=0 WeightDepartment=1 WeightJob=0" \
	"Priority=sge" "PriorityCalcPeriod=1s" \
	"DepartmentName=deptA Users=rotatest1 FShares=1" \
	"DepartmentName=defaultdepartment FShares=3" ||
	{ echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1

blocker=$(rota submit -n 2 --wrap 'sleep 120')
wait_for job_state_is "$blocker" RUNNING
a=$(as rotatest1 rota submit --wrap true)
b=$(as rotatest2 rota submit --wrap true)
# JOBID PRIOR NTCKTS TCKTS OTCKT FTCKT STCKT USER PROJECT DEPARTMENT ...
ext() { rota prio --ext -H "$1" | awk '{ print $10, $6 }'; }

# Rule 9 (bench/oracle/FINDINGS.md): root's running job holds
# defaultdepartment's 3, the sum; rotatest2's job, of the same department,
# is worth 3/2 / 3, rotatest1's (deptA) 1 / 3: rotatest2's is taken
# first, 1000 x 1.5/3 = 500, then rotatest1's with deptA in the sum,
# 1000 x 1/4 = 250.
is "$(ext "$blocker")" "defaultdepartment 1000" \
	"root, on no DepartmentName= line, is in defaultdepartment: all of its functional tickets while alone"
is "$(ext "$a")" "deptA 250" "rotatest1 is in deptA: 1000 x 1/(3 + 1)"
is "$(ext "$b")" "defaultdepartment 500" \
	"rotatest2 shares defaultdepartment with the running job: 1000 x (3/2) / 3"

# move rotatest1 out of deptA and rotatest2 in: the numbers swap
sed -i 's/^DepartmentName=deptA Users=rotatest1 /DepartmentName=deptA Users=rotatest2 /' "$CL/rota.conf"
out=$(rota reconfigure 2>&1)
is "$out:$?" ":0" "rota reconfigure takes the new departments"
wait_until '[ "$(ext "$a")" = "defaultdepartment 500" ]'
is "$(ext "$a")" "defaultdepartment 500" "rotatest1's pending job is in defaultdepartment now"
is "$(ext "$b")" "deptA 250" "and rotatest2's in deptA"
rota cancel "$blocker" "$a" "$b" >/dev/null 2>&1
