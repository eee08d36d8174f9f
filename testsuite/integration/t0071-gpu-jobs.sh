#!/bin/bash
# GPU jobs (issue 24, points 2-4): on a DGX-2 (4 cores, 16 V100 in two
# NUMA nodes) and a Power8 (8 cores, 4 P100), real jobs ask with Slurm's
# options; two jobs never share a GPU; what CUDA_VISIBLE_DEVICES says
# inside a job is its allocation (rota show job GpuIdx, rota show node
# Job=); GPUs come with the cores nearest them; EASY backfill keeps the
# head job's GPUs (a job that would run past its start waits, a short one
# runs); bad requests are refused at submit with one line.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 22
NODE_TOPOS="nvidiaDGX2.xml power8gpudistances.xml"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1
cluster_start "Sched=backfill Interval=1s Resolution=1s NoCaps=yes" ||
	{ echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up: a DGX-2 and a Power8, EASY backfill"

# ---- bad requests: one line each, nothing queued ----
refused() { # WANT-STATUS WANT-LINE ARGS...: rota submit ARGS' answer
	local st want=$1 line=$2 out
	shift 2
	out=$(as rotatest1 rota submit "$@" --wrap true 2>&1)
	st=$?
	is "$st $(wc -l <<<"$out") $out" "$want 1 $line" "refused: $*"
}
refused 2 "rota submit: --gpus '0': count must be 1 to 1000000" --gpus=0
refused 2 "rota submit: --gres 'gpu:v100:x': count 'x' is not a number" \
	--gres=gpu:v100:x
refused 1 "rota submit: --gpus-per-node=17: more GPUs than any node of queue 'batch' has (most: 16)" \
	--gpus=17
refused 1 "rota submit: --gpus: no node of queue 'batch' has GPUs of type 'a100' (it has: v100, p100)" \
	--gpus=a100:1
is "$(rota queue -a --noheader | wc -l)" 0 "none of them was queued"

# ---- what a job sees is what it got, and no GPU twice ----
gpus_of() { # JOB: its GPU indexes as rota show job says (GpuIdx=n02:0,1)
	rota show job "$1" | sed -n 's/^GpuIdx=[^:]*://p'
}
a=$(as rotatest1 rota submit --gpus=p100:2 -t 5 -o a.out \
	--wrap 'echo "CVD=$CUDA_VISIBLE_DEVICES ROTA=$ROTA_JOB_GPUS"; sleep 600')
wait_until "grep -q CVD a.out"
is "$(cat a.out)" "CVD=$(gpus_of "$a") ROTA=$(gpus_of "$a")" \
	"inside the job: CUDA_VISIBLE_DEVICES and ROTA_JOB_GPUS are its allocation"
is "$(rota show job "$a" | grep -E '^(TresPerNode|NodeList)=' | tr '\n' ' ')" \
	"NodeList=n02 TresPerNode=gres/gpu:p100:2 " "rota show job: asked and where"
is "$(rota show node n02 | grep -c "Job=$a\$")" 2 "rota show node: its 2 GPUs carry its id"
is "$(rota queue | awk 'NR == 1 {print $8} NR == 2 {print $1, $8}' | tr '\n' ' ')" \
	"GRES $a gpu:p100:2 " "rota queue: a GRES column once a job asks for GPUs"

# ---- EASY with GPUs: the head's GPUs are kept for it ----
c=$(as rotatest1 rota submit --gpus=p100:4 -t 10 --wrap 'sleep 600')
wait_until "rota show job $c | grep -q '^EstStartTime='"
is "$(rota show job "$c" | sed -n 's/^EstNodes=//p')" n02 \
	"the head job (4 P100) waits with a start estimate on the Power8"
like "$(rota why "$c")" "waits for Resources\. It asks for 4 GPUs \(p100\) per node; its queue's nodes have 2 such GPUs free of 4\." \
	"rota why names the GPUs it waits for"
long=$(as rotatest1 rota submit --gpus=p100:2 -t 20 --wrap 'sleep 600')
short=$(as rotatest1 rota submit --gpus=p100:2 -t 1 -o s.out \
	--wrap 'echo "CVD=$CUDA_VISIBLE_DEVICES"; sleep 600')
wait_until "[ \"\$(job_state $short)\" = RUNNING ]"
ok $? "2 free P100 and a job that ends before the head's start: backfilled"
is "$(job_state "$long")" PENDING \
	"2 free P100, but it would hold them past the head's start: it waits"
# meanwhile a job without GPUs (1 core, 30 min) backfills on the free
# cores (test_gpus checks the shape cache that must not skip it)
cpu=$(as rotatest1 rota submit -t 30 --wrap 'sleep 600')
wait_until "[ \"\$(job_state $cpu)\" = RUNNING ]"
ok $? "a CPU job shaped like the GPU job that did not fit: backfilled all the same"
rota cancel "$cpu"
wait_until "grep -q CVD s.out"
is "$(sort -u <(tr ',' '\n' <<<"$(gpus_of "$a")") <(sed 's/CVD=//' s.out | tr ',' '\n') | wc -l)" 4 \
	"the two running jobs' GPUs are 4 different ones"

# ---- locality on the DGX-2: a job's GPUs near its cores ----
l1=$(as rotatest1 rota submit --gpus=v100:2 -c 2 --wrap 'sleep 600')
l2=$(as rotatest1 rota submit --gpus=v100:2 -c 2 --wrap 'sleep 600')
wait_until "[ \"\$(job_state $l2)\" = RUNNING ]"
is "$(gpus_of "$l1") $(gpus_of "$l2")" "0,1 8,9" \
	"2 GPUs + 2 cores: the first job one socket's, the next the other's"
t=$(as rotatest1 rota submit --gpus-per-task=v100:3 -n 2 --wrap 'sleep 600')
wait_until "[ \"\$(job_state $t)\" = RUNNING ] || rota show job $t | grep -q Reason=Resources"
is "$(rota show job "$t" | sed -n 's/^TresPerTask=//p')" "gres/gpu:v100:3" \
	"--gpus-per-task: asked per task"
rota cancel "$l1" "$l2"
wait_until "[ \"\$(job_state $t)\" = RUNNING ]"
is "$(gpus_of "$t" | tr ',' '\n' | wc -l)" 6 "2 tasks x 3 GPUs: 6 GPUs"

# ---- confinement: the other GPUs' device files are denied ----
mkdir -p "$W/dev" && for i in 0 1 2 3; do mknod -m 666 "$W/dev/nvidia$i" c 195 $i; done
cat >probe.sh <<'EOF'
#!/bin/sh
for i in 0 1 2 3; do
	if err=$( (exec 3<"$1/nvidia$i") 2>&1); then r=ok
	else case $err in *"not permitted"*) r=denied ;; *) r=allowed ;; esac; fi
	printf '%s:%s ' "$i" "$r"
done
echo
EOF
chmod 755 probe.sh
rota cancel "$t" "$short" "$a" "$c" "$long"
wait_until "[ \"\$(rota queue -a --noheader | wc -l)\" = 0 ]"
p=$(as rotatest1 rota submit --gpus=p100:2 -o p.out --wrap "$W/probe.sh $W/dev")
wait_until "[ -s p.out ]"
want=""
for i in 0 1 2 3; do
	case ",$(gpus_of "$p")," in *",$i,"*) r=allowed ;; *) r=denied ;; esac
	want="$want$i:$r "
done
if grep -q "cgroups: .*devices" "$CL/log/n02.log" && ! grep -q "off: .*devices" "$CL/log/n02.log"; then
	is "$(cat p.out)" "$want" "its own GPUs' device files open, the other two denied (devices cgroup)"
else
	skip "no v1 devices controller here (the rules are checked in test_topology)"
fi
n=$(as rotatest1 rota submit -o n.out --wrap "$W/probe.sh $W/dev")
wait_until "[ -s n.out ]"
is "$(cat n.out)" "0:allowed 1:allowed 2:allowed 3:allowed " \
	"a job without GPUs: nothing denied (as Slurm without ConstrainDevices)"

# ---- job steps: each node's tasks see that node's own GPUs ----
wait_until "[ \"\$(rota queue -a --noheader | wc -l)\" = 0 ]"
hold=$(as rotatest1 rota submit --gpus=p100:1 --wrap 'sleep 600')
wait_until "[ \"\$(job_state $hold)\" = RUNNING ]"
m=$(as rotatest1 rota submit -N 2 -n 2 --gpus-per-node=1 -o m.out \
	--wrap "$BIN/rota run -n 2 sh -c 'echo \$ROTA_NODENAME:\$CUDA_VISIBLE_DEVICES'; sleep 600")
# (only the tasks' lines: a sanitizer build may write warnings there too)
wait_until "[ \"\$(grep -c '^n0[12]:' m.out)\" = 2 ]"
is "$(grep '^n0[12]:' m.out | sort | tr '\n' ' ')" \
	"$(rota show job "$m" | sed -n 's/^GpuIdx=//p' | tr ' ' '\n' | sort | tr '\n' ' ')" \
	"rota run on two nodes: each task's CUDA_VISIBLE_DEVICES is its node's GPUs"
rota cancel "$m" "$hold"
