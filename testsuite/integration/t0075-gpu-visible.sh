#!/bin/bash
# GPUs visible everywhere (issue 24): rota top's header and node panel
# count GPUs used of total, a job's completion record carries what it
# held as Slurm's AllocTRES (gres/gpu=2) with its GPU indexes, and rota
# history shows them in two last columns, only when a job shown had GPUs.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge
id rotatest1 >/dev/null 2>&1 ||
	skip_all "needs user rotatest1 (scripts/test makes it)"

plan 10
# n01: a Power8 of 8 cores and 4 P100; n02: 2 cores, no GPU
NODE_TOPOS="power8gpudistances.xml 2intel64-1n2c-numaroot.v1tov2.xml"
cluster_start "JobComp=file" ||
	{ echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up: a node with 4 GPUs and one without, JobComp=file"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1
J="$CL/state/jobcomp.json"
gpus_of() { # JOB: its GPU indexes as rota show job says (GpuIdx=n01:0,1)
	rota show job "$1" | sed -n 's/^GpuIdx=//p'
}

g=$(as rotatest1 rota submit --gpus=p100:2 -J gjob --wrap 'sleep 600')
c=$(as rotatest1 rota submit -J cjob --wrap 'sleep 1')
wait_for job_state_is "$g" RUNNING
idx=$(gpus_of "$g")

# ---- rota top, in a tmux pane of our own ----
if command -v tmux >/dev/null; then
	TMUX_SOCK="$T/tmux.sock"
	tm() { tmux -S "$TMUX_SOCK" "$@"; }
	trap 'st=$?; tm kill-server 2>/dev/null; (exit $st); tap_cleanup' EXIT
	tm new-session -d -s top -x 100 -y 30 \
		"env ROTA_CTLD=$ROTA_CTLD ROTA_CONF=$ROTA_CONF ROTA_MUNGE_SOCKET=$ROTA_MUNGE_SOCKET PATH=$BIN:$PATH TERM=screen rota top -d 0.5 --no-color"
	screen() { tm capture-pane -p -t top; }
	wait_for sh -c "tmux -S $TMUX_SOCK capture-pane -p -t top | grep -q 'gpus 2/4 busy'"
	ok $? "rota top's header: gpus 2/4 busy"
	like "$(screen)" "n01 +U +[0-9]+/8 +g2/4" \
		"its node panel: n01's GPUs used/total after its cores"
	! screen | grep -Eq 'n02 .*g[0-9]'
	ok $? "a node without GPUs: no GPU figure"
	tm kill-server
else
	for _ in 1 2 3; do skip "no tmux"; done
fi

rota cancel "$g"
wait_job_done "$g"; wait_job_done "$c"
wait_until '[ -f "$J" ] && [ "$(wc -l <"$J")" -eq 2 ]'
rec=$(grep "\"id\":$g," "$J")
like "$rec" "\"tres\":\"cpu=1(,mem=[0-9.]+[MGT])?,node=1,gres/gpu=2,gres/gpu:p100=2\",\"gpus\":2,\"gpu_idx\":\"$idx\"" \
	"the GPU job's record: AllocTRES with gres/gpu=2, and its GPUs ($idx)"
rec=$(grep "\"id\":$c," "$J")
like "$rec" "\"tres\":\"cpu=1(,mem=[0-9.]+[MGT])?,node=1\"" \
	"a job without GPUs: its TRES without them..."
! grep -q gpu <<<"$rec"
ok $? "...and no GPU fields"

is "$(rota history | head -n 1 | awk '{print $(NF - 1), $NF}')" "GPUS GPUIDX" \
	"rota history: GPUS and GPUIDX last"
is "$(rota history -H | awk '{print $1, $(NF - 1), $NF}' | sort -n | tr '\n' ' ')" \
	"$g 2 $idx $c 0 - " "its job's GPUs; '-' for the job without"
is "$(rota history -j "$c" | awk 'NR == 1 {print $NF}')" MEMPEAK \
	"no job shown had GPUs: no GPU columns"
