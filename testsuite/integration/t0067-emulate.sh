#!/bin/bash
# Emulated nodes end to end (rota-noded-emu, docs/emulate.md): 200 nodes
# in one process register with the real controller, 1,000 short jobs run
# to their ends, and a group of 20 nodes cut off and back has its jobs
# killed by its lease and requeued elsewhere within NodeTimeout; the
# emulator's run log shows no run of any job overlapping another.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

NODES=200
plan 8
mkdir -p "$CL"
: >"$CL/pids"
HEARTBEAT=1s NODE_TIMEOUT=6s MIN_JOB_AGE=1h
cluster_start_munge && cluster_write_emu_conf $NODES "LogLevel=warn" &&
	cluster_start_ctld || { echo "Bail out! controller did not start"; exit 1; }
cluster_start_emu
WAIT_TIMEOUT=30 wait_until "[ \$(emu_nodes_up) -eq $NODES ]"
is "$(emu_nodes_up)" $NODES "$NODES emulated nodes registered, each UP"

W="$T/work"
mkdir -p "$W" && cd "$W" || exit 1
printf '#!/bin/sh\n#ROTA-EMU runtime=0.3\n' >short.sh
rota submit -o /dev/null --array=0-999 short.sh >/dev/null
WAIT_TIMEOUT=40 wait_until \
	"[ \$(grep -c ' COMPLETED ' '$CL/emu.runlog') -ge 1000 ]"
is "$(grep -c ' COMPLETED ' "$CL/emu.runlog")" 1000 \
	"1000 short jobs ran end to end"
wait_until "[ -z \"\$(rota queue --noheader)\" ]"
is "$(rota queue --noheader | wc -l)" 0 "none left in the queue"

# long jobs on every node: e[00001-00020] each run some
printf '#!/bin/sh\n#ROTA-EMU runtime=600\n' >long.sh
rota submit -o /dev/null --array=0-399 long.sh >/dev/null
wait_until "[ \$(grep -c ' start ' '$CL/emu.runlog') -ge 1400 ]"
# the group to lose: 20 of the nodes that run long jobs
running() { # the runs started and not ended, as "job node"
	awk '$2 == "lost" || $2 == "back" { next }
	$2 == "start" { r[$3] = $5; next } { delete r[$3] }
	END { for (j in r) print j, r[j] }' "$CL/emu.runlog"
}
lost=$(running | awk '{ print $2 }' | sort -u | head -20 | tr '\n' ' ')
on_lost=$(running | awk -v l=" $lost" 'index(l, " " $2 " ")' | wc -l)
ok $((on_lost == 0)) "$on_lost long jobs run on the 20 nodes to be lost"
t_lost=$SECONDS
emu_lose $lost
# within NodeTimeout (6 s) of their last answered heartbeat, plus a pass
WAIT_TIMEOUT=20 wait_until \
	"[ \$(grep -c ' NODE_FAIL ' '$CL/emu.runlog') -ge $on_lost ]"
killed=$(grep -c ' NODE_FAIL ' "$CL/emu.runlog")
is "$killed" "$on_lost" "their lease ran out: all $on_lost killed on the lost nodes"
WAIT_TIMEOUT=20 wait_until "[ \$(awk '\$2 == \"start\" && \$4 == 2' \
	'$CL/emu.runlog' | wc -l) -ge $on_lost ]"
again=$(awk '$2 == "start" && $4 == 2' "$CL/emu.runlog" | wc -l)
is "$again" "$on_lost" "all requeued and started again elsewhere ($((SECONDS - t_lost)) s after the loss)"
emu_lose
WAIT_TIMEOUT=30 wait_until "[ \$(emu_nodes_up) -eq $NODES ]"
is "$(emu_nodes_up)" $NODES "the lost nodes are back and UP"
rota cancel --user root >/dev/null
WAIT_TIMEOUT=30 wait_until "[ -z \"\$(rota queue --noheader)\" ]"
twice=$(emu_check_runlog "$CL/emu.runlog")
is "$twice" "" "no run of any job overlapped another (emulator's run log)"
cluster_stop
