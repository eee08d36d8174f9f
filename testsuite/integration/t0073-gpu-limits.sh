#!/bin/bash
# Limits on what running jobs hold (issue 24: "a GPU limit blocks with its
# reason"), on two DGX-2 (4 cores and 16 V100 each): a QOS's
# MaxTRESPerUser=gres/gpu=4 lets a user's first two jobs of 2 GPUs run
# and holds the third with Slurm's reason and the numbers, which rota
# queue shows and rota why says in a sentence; another user's job runs;
# the account's GrpTRES=cpu=3 holds a job past it; a job past the limit
# by itself is refused at submit; the third job starts when one ends, and
# rota reconfigure's new values count at once.  Multifactor's WeightTRES
# (Slurm's PriorityWeightTRES) shows its GPU term in rota prio.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 12
NODE_TOPOS="nvidiaDGX2.xml nvidiaDGX2.xml"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1
cluster_start "Sched=backfill Interval=1s Resolution=1s NoCaps=yes" \
	"AccountName=physics GrpTRES=cpu=3" \
	"UserName=rotatest1 Account=physics" \
	"UserName=rotatest2 Account=physics" \
	"QOSName=normal MaxTRESPerUser=gres/gpu=4" \
	"Priority=multifactor WeightTRES=CPU=1000,GRES/gpu=3000" ||
	{ echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up: two DGX-2, MaxTRESPerUser=gres/gpu=4, GrpTRES=cpu=3"

reason_of() { rota show job "$1" | sed -n 's/^Reason=//p'; }

out=$(as rotatest1 rota submit --gpus=5 --wrap true 2>&1)
is "$? $out" "1 rota submit: 5 GPUs exceed MaxTRESPerUser gres/gpu=4 of QOS 'normal'" \
	"a job of 5 GPUs, past the limit by itself: refused at submit"

j1=$(as rotatest1 rota submit --gpus=2 -t 5 --wrap 'sleep 600')
j2=$(as rotatest1 rota submit --gpus=2 -t 5 --wrap 'sleep 600')
wait_until "[ \"\$(job_state $j1)\$(job_state $j2)\" = RUNNINGRUNNING ]"
ok $? "rotatest1's first two jobs of 2 GPUs run"
j3=$(as rotatest1 rota submit --gpus=2 -t 5 --wrap 'sleep 600')
wait_until "[ \"\$(reason_of $j3)\" != None ]"
is "$(reason_of "$j3")" "QOSMaxGRESPerUser (4 + 2 > 4)" \
	"the third waits with Slurm's reason and the numbers"
like "$(rota queue --noheader | awk -v id="$j3" '$1 == id')" "QOSMaxGRESPerUser" \
	"rota queue shows the reason"
is "$(rota why "$j3" | grep -o 'blocked by a limit: .*allows; the job asks 2\.')" \
	"blocked by a limit: QOSMaxGRESPerUser (4 + 2 > 4): user 'rotatest1' holds 4 of the 4 GPUs MaxTRESPerUser=gres/gpu=4 of QOS 'normal' allows; the job asks 2." \
	"rota why names the limit in a sentence with its numbers"
# 1 of the queue's 8 cores, 2 of its 32 GPUs
is "$(rota prio "$j3" | awk -v id="$j3" '$1 == id {print $7, $8}')" \
	"tres/cpu=125 tres/gres/gpu=187.5" \
	"rota prio: WeightTRES terms, the job's share of its queue's cores and GPUs"

k1=$(as rotatest2 rota submit --gpus=2 -t 5 --wrap 'sleep 600')
wait_until "[ \"\$(job_state $k1)\" = RUNNING ]"
ok $? "another user's job of 2 GPUs runs"
k2=$(as rotatest2 rota submit -t 5 --wrap 'sleep 600')
wait_until "[ \"\$(reason_of $k2)\" != None ]"
is "$(reason_of "$k2")" "AssocGrpCpuLimit (3 + 1 > 3)" \
	"the account's 3 cores are held: a fourth job waits (AssocGrpCpuLimit)"

rota cancel "$j1"
wait_until "[ \"\$(job_state $j3)\" = RUNNING ]"
ok $? "one of rotatest1's jobs ends: the third starts"

j4=$(as rotatest1 rota submit --gpus=2 -t 5 --wrap 'sleep 600')
wait_until "[ \"\$(reason_of $j4)\" != None ]"
is "$(reason_of "$j4")" "AssocGrpCpuLimit (3 + 1 > 3)" \
	"a job past both limits shows the first (the account's, then the QOS's)"
sed -i -e 's/MaxTRESPerUser=gres\/gpu=4/MaxTRESPerUser=gres\/gpu=6/' \
	-e 's/GrpTRES=cpu=3/GrpTRES=cpu=5/' "$CL/rota.conf"
rota reconfigure
wait_until "[ \"\$(job_state $j4)\$(job_state $k2)\" = RUNNINGRUNNING ]"
ok $? "rota reconfigure raises both: the two waiting jobs start at once"
