#!/bin/bash
# GPUs in advance reservations and backfill (issue 24), on a Power8 (8
# cores, 4 P100) and a DGX-2: a reservation of 2 cores and 3 GPUs of the
# Power8 (Slurm's TRES=cpu=2,gres/gpu=3) keeps its GPUs from ordinary
# jobs and gives them to its own; rota resv list counts them, and they
# survive a controller restart; a reservation to come keeps its GPUs from
# a job that would still hold one at its start, not from a short one;
# EASY backfill with GPUs: a small GPU job backfills only when it does
# not delay the waiting GPU job.  Both nodes have 2 nvme (GresTypes=nvme,
# Gres=nvme:2): --gres=nvme:N is counted per node, blocks when taken,
# and is refused at submit beyond what a node has or for a name
# GresTypes lacks; rota show job, rota queue and rota why name it.  A
# reservation's Licenses=matlab:2 keeps them for its own jobs.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 33
NODE_TOPOS="power8gpudistances.xml nvidiaDGX2.xml"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1
mkdir -p "$CL" && : >"$CL/pids"
{ cluster_start_munge &&
	cluster_write_conf "Sched=backfill Interval=1s Resolution=1s NoCaps=yes" \
		"GresTypes=nvme" "Licenses=matlab:2" &&
	sed -i 's/^\(NodeName=[^ ]* Addr=[^ ]*\)$/\1 Gres=nvme:2/' \
		"$CL/rota.conf" &&
	cluster_start_ctld && cluster_start_nodes; } ||
	{ echo "Bail out! cluster did not start"; exit 1; }
wait_for cluster_all_up
ok $? "cluster up: a Power8 (4 P100) and a DGX-2, EASY backfill"

field() { rota show job "$1" | sed -n "s/^$2=//p"; }
resv_row() { rota resv list --noheader | awk -v n="$1" '$1 == n'; }
gpus_of() { field "$1" GpuIdx | sed 's/^[^:]*://'; }

# ---- a reservation holding 3 of n01's GPUs ----
is "$(rota resv create ReservationName=g StartTime=now Duration=1h \
	Nodes=n01 TRES=cpu=2,gres/gpu=3 Users=rotatest1)" \
	"Reservation created: g" "TRES=cpu=2,gres/gpu=3 on n01"
like "$(resv_row g)" "^g +ACTIVE .* 2 +3 +rotatest1 +\(any\) +n01$" \
	"rota resv list: 2 cores, 3 GPUs"
like "$(rota resv list --json)" '"gpus":3,"gpu_count":3' \
	"rota resv list --json carries them"
is "$(rota resv create StartTime=now Duration=1h Nodes=n02 GpuCount=2 \
	Users=root 2>&1)" \
	"rota resv: GpuCount=2: give CoreCount=N too, the cores its jobs run on (Nodes= alone holds the nodes' GPUs)" \
	"GpuCount= without cores: refused with one line"

one=$(as rotatest2 rota submit --gpus=p100:1 -t 10 --wrap 'sleep 600')
wait_until "[ \"\$(job_state $one)\" = RUNNING ]"
ok $? "an ordinary job gets the one P100 the reservation leaves"
two=$(as rotatest2 rota submit --gpus=p100:1 -t 10 --wrap 'sleep 600')
mine=$(as rotatest1 rota submit --reservation=g --gpus=p100:3 -n 2 \
	--wrap 'sleep 600')
wait_until "[ \"\$(job_state $mine)\" = RUNNING ]"
ok $? "the reservation's job gets its 3 GPUs"
is "$(gpus_of "$mine" | tr ',' '\n' | wc -l) $(field "$mine" NodeList)" \
	"3 n01" "on n01, 3 of them"
is "$(job_state "$two")" PENDING \
	"cores free on n01, but no GPU but the reserved ones: a second ordinary job waits"

# ---- the journal keeps the GPUs ----
cluster_kill_ctld
cluster_restart_ctld
wait_for cluster_all_up
like "$(resv_row g)" "^g +ACTIVE .* 2 +3 +rotatest1 " \
	"after a controller restart the reservation holds its 3 GPUs still"
rota cancel "$mine"
wait_until "[ \"\$(job_state $mine)\" != RUNNING ]"
is "$(job_state "$two")" PENDING \
	"its job gone, the reservation keeps its GPUs from the others"
rota resv delete g
wait_until "[ \"\$(job_state $two)\" = RUNNING ]"
ok $? "the reservation deleted: the waiting job gets a P100"
rota cancel "$one" "$two"
wait_until "[ \"\$(rota queue -a --noheader | wc -l)\" = 0 ]"

# ---- a reservation to come: 1 core and all 4 P100 in 10 minutes ----
rota resv create ReservationName=later StartTime=now+10m Duration=1h \
	Nodes=n01 CoreCount=1 GpuCount=4 Users=rotatest1 >/dev/null
long=$(as rotatest2 rota submit --gpus=p100:1 -t 20 --wrap 'sleep 600')
short=$(as rotatest2 rota submit --gpus=p100:1 -t 5 --wrap 'sleep 600')
wait_until "[ \"\$(job_state $short)\" = RUNNING ]"
ok $? "a GPU job that ends before the reservation starts runs"
is "$(job_state "$long")" PENDING \
	"one that would still hold a GPU at its start waits"
rota cancel "$long" "$short"
rota resv delete later
wait_until "[ \"\$(rota queue -a --noheader | wc -l)\" = 0 ]"

# ---- EASY with GPUs: a small job backfills only if it does not delay ----
a=$(as rotatest1 rota submit --gpus=p100:3 -t 10 --wrap 'sleep 600')
wait_until "[ \"\$(job_state $a)\" = RUNNING ]"
head=$(as rotatest1 rota submit --gpus=p100:4 -t 10 --wrap 'sleep 600')
wait_until "rota show job $head | grep -q '^EstStartTime='"
is "$(field "$head" EstNodes)" n01 \
	"the head job (4 P100) waits with a start estimate on n01"
slow=$(as rotatest2 rota submit --gpus=p100:1 -t 30 --wrap 'sleep 600')
quick=$(as rotatest2 rota submit --gpus=p100:1 -t 2 --wrap 'sleep 600')
wait_until "[ \"\$(job_state $quick)\" = RUNNING ]"
ok $? "the free P100 for 2 minutes, ending before the head's start: backfilled"
is "$(job_state "$slow")" PENDING \
	"the free P100 for 30 minutes would delay the head job: it waits"
rota cancel "$a" "$head" "$slow" "$quick"
wait_until "[ \"\$(rota queue -a --noheader | wc -l)\" = 0 ]"

# ---- generic resources other than GPUs: nvme, counts per node ----
refused() { # WANT-LINE ARGS...: rota submit ARGS' one line, exit 1
	local st want=$1 out
	shift
	out=$(as rotatest1 rota submit "$@" --wrap true 2>&1)
	st=$?
	is "$st $(wc -l <<<"$out") $out" "1 1 $want" "refused: $*"
}
refused "rota submit: --gres=nvme:3: more than any node of queue 'batch' has (most: 2)" \
	--gres=nvme:3
refused "rota submit: --gres=ssd:1: 'ssd' is not a generic resource of this cluster (GresTypes=)" \
	--gres=ssd:1
n1=$(as rotatest1 rota submit --gres=nvme:2 --wrap 'sleep 600')
n2=$(as rotatest1 rota submit --gres=nvme:2 --wrap 'sleep 600')
wait_until "[ \"\$(job_state $n1)\" = RUNNING ] && [ \"\$(job_state $n2)\" = RUNNING ]"
ok $? "two jobs of nvme:2 run, one on each node"
is "$(field "$n1" NodeList) $(field "$n2" NodeList)" "n01 n02" "on n01 and n02"
printf '#!/bin/sh\n#ROTA --gres=nvme:1\nsleep 600\n' >nv.sh
n3=$(as rotatest1 rota submit nv.sh)
wait_until "[ \"\$(field $n3 Reason)\" = Resources ] || [ \"\$(field $n3 Reason)\" = Priority ]"
is "$(job_state "$n3")" PENDING \
	"#ROTA --gres=nvme:1 while every nvme is taken: it waits"
is "$(field "$n3" TresPerNode)" "gres/nvme:1" "rota show job: TresPerNode=gres/nvme:1"
is "$(rota queue | awk -v j="$n3" 'NR == 1 {print $8} $1 == j {print $8}' | tr '\n' ' ')" \
	"GRES nvme:1 " "rota queue: its GRES column"
like "$(rota why "$n3")" "It asks for nvme:1 per node; its queue's nodes have 0 such free of 4\." \
	"rota why names the nvme it waits for"
rota cancel "$n1"
wait_until "[ \"\$(job_state $n3)\" = RUNNING ]"
ok $? "a holder ends: the waiting job gets its nvme"
is "$(rota show node n01 | grep '^GresUsed=')" "GresUsed=nvme:1" \
	"rota show node: GresUsed=nvme:1"
cluster_kill_ctld
cluster_restart_ctld
wait_for cluster_all_up
n4=$(as rotatest1 rota submit --gres=nvme:2 --wrap 'sleep 600')
wait_until "[ -n \"\$(field $n4 Reason)\" ]"
is "$(job_state "$n4")" PENDING \
	"after a controller restart the running jobs hold their nvme still: nvme:2 waits"
rota cancel "$n4"
both=$(as rotatest1 rota submit --gres=gpu:p100:1,nvme:1 --wrap 'sleep 600')
wait_until "[ \"\$(job_state $both)\" = RUNNING ]"
is "$(field "$both" TresPerNode) $(field "$both" NodeList)" \
	"gres/gpu:p100:1,gres/nvme:1 n01" "--gres=gpu:p100:1,nvme:1: both, on the Power8"
rota cancel "$n2" "$n3" "$both"
wait_until "[ \"\$(rota queue -a --noheader | wc -l)\" = 0 ]"

# ---- a reservation holding both matlab licenses ----
is "$(rota resv create ReservationName=lic StartTime=now Duration=1h \
	Nodes=n02 CoreCount=1 Licenses=matlab:2 Users=rotatest1)" \
	"Reservation created: lic" "Licenses=matlab:2 on a reservation"
like "$(rota resv list --json)" '"licenses":"matlab:2"' \
	"rota resv list --json: its licenses"
other=$(as rotatest2 rota submit -L matlab:1 --wrap 'sleep 600')
wait_until "[ \"\$(field $other Reason)\" = Licenses ]"
ok $? "an ordinary job of matlab:1 waits (reason Licenses): the reservation holds both"
mine=$(as rotatest1 rota submit --reservation=lic -L matlab:2 --wrap 'sleep 600')
wait_until "[ \"\$(job_state $mine)\" = RUNNING ]"
ok $? "the reservation's job gets both"
rota cancel "$other" "$mine"
rota resv delete lic

