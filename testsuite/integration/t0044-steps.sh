#!/bin/bash
# Job steps across four real node daemons (issue 19): rota run from a
# batch script (ranks, local ids, cores, --label, output order, stdin,
# exit status and the first failed task), steps side by side, what does
# not fit, a cancel that leaves no process on any node, a node lost
# mid-step, the refusals (another user, a credential replayed, taken by
# another user, forged), and the interactive jobs: rota run outside a
# job, rota alloc, rota run --pty through tmux.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge
command -v pgrep >/dev/null || skip_all "needs pgrep"

skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP $*"; }

plan 40
NODE_TOPOS="24em64t-2n6c2t-pci.xml 24em64t-2n6c2t-pci.xml 24em64t-2n6c2t-pci.xml 24em64t-2n6c2t-pci.xml"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1
STEPLAUNCH="$top_builddir/testsuite/lib/steplaunch"
cluster_start "JobComp=file" || { echo "Bail out! cluster did not start"; exit 1; }

# submit [OPTIONS] SCRIPT-TEXT: a 4x4 job of rotatest1; prints its id
submit() {
	local text=${*: -1}
	printf '#!/bin/sh\n%s\n' "$text" >"job$$.$RANDOM.sh"
	as rotatest1 rota submit -N 4 --ntasks-per-node=4 "${@:1:$#-1}" \
		job$$.*.sh 2>&1
	rm -f job$$.*.sh
}

# -- 16 ranks over four nodes --------------------------------------------
j=$(submit -o ranks.out 'rota run -n 16 sh -c '\''echo "R=$ROTA_PROCID L=$ROTA_LOCALID N=$ROTA_NODEID H=$ROTA_NODENAME C=$ROTA_TASK_CORES T=$ROTA_NTASKS S=$ROTA_STEP_ID A=$(grep Cpus_allowed_list /proc/self/status | cut -f2)"'\''; echo "status $?"')
wait_job_done "$j"
is "$(grep -c '^R=' ranks.out)" 16 "rota run -n 16: sixteen tasks report"
is "$(grep '^R=' ranks.out | sed 's/ .*//' | sort -u | wc -l)" 16 "every rank once"
is "$(grep '^R=' ranks.out | awk '{print $4, $5}' | sort -u | wc -l)" 16 \
	"every task on its own (node, core)"
is "$(grep '^R=' ranks.out | awk '{print $4}' | sort | uniq -c | awk '{print $1}' | sort -u)" 4 \
	"four tasks on each node"
bad=0
ncpu=$(nproc)
while read -r r l n h c t s a; do
	rank=${r#R=} local=${l#L=} node=${n#N=} core=${c#C=} allowed=${a#A=}
	[ "$rank" -eq $((node * 4 + local)) ] || bad=$((bad + 1))
	[ "${t#T=}" = 16 ] && [ "${s#S=}" = 0 ] || bad=$((bad + 1))
	# core i of the described node is host core i mod the host's
	[ "$allowed" = "$((core % ncpu))" ] || bad=$((bad + 1))
done < <(grep '^R=' ranks.out)
is "$bad" 0 "rank = node*4 + local id, ROTA_NTASKS, step 0, bound to its core (Cpus_allowed_list)"
is "$(grep status ranks.out)" "status 0" "rota run exits 0"
rec=$(grep "\"id\":$j," "$CL/state/jobcomp.json")
case $rec in *'"steps":[{"id":0,"name":"sh","ntasks":16,"nodes":"n[01-04]","state":"COMPLETED","exit_code":0,'*)
	ok 0 "the job's record carries its step" ;;
*) ok 1 "the job's record carries its step: $rec" ;; esac

# -- --label, output order per task, stdin to task 0 ------------------------
j=$(submit -o label.out 'rota run -n 8 -l sh -c '\''for i in $(seq 1 40); do echo "$ROTA_PROCID:$i"; done'\''
echo hello | rota run -n 4 -l sh -c '\''read -r x || x=none; echo "got $x"'\''')
wait_job_done "$j"
bad=0
for r in $(seq 0 7); do
	want=$(for i in $(seq 1 40); do echo "$r: $r:$i"; done)
	[ "$(grep "^$r: $r:" label.out)" = "$want" ] || bad=$((bad + 1))
done
is "$bad" 0 "--label: 'rank: ' before each line; each task's lines in order"
is "$(grep -c ': got hello' label.out) $(grep -c ': got none' label.out)" "1 3" \
	"stdin goes to task 0 only"
is "$(grep -c '^0: got hello' label.out)" 1 "... and task 0 it is"

# -- exit status: the largest, the first failure named --------------------
j=$(submit -o exit.out 'rota run -n 4 sh -c '\''[ $ROTA_PROCID = 2 ] && exit 3; [ $ROTA_PROCID = 3 ] && { sleep 1; exit 9; }; exit 0'\''
echo "status $?"
rota run -n 2 sh -c '\''[ $ROTA_PROCID = 1 ] && kill -9 $$; true'\''
echo "status $?"
rota run -n 2 no-such-command-here
echo "status $?"')
wait_job_done "$j"
is "$(grep -m1 status exit.out)" "status 9" "exit status: the largest task's"
grep -q "task 2 on n03 failed first: exit code 3" exit.out
ok $? "the first failed task is named"
is "$(grep status exit.out | sed -n 2p)" "status 137" "a task killed by signal 9: 137"
grep -q "no-such-command-here.*not found" exit.out
ok $? "a command that is not there: one line naming it"

# -- Ctrl-C: SIGINT to every task; twice within a second: killed ---------------
j=$(submit -o int.out 'rota run -n 4 -l sh -c '\''trap "echo int; exit 3" INT; sleep 20 & wait'\'' & p=$!
sleep 1; kill -INT $p; wait $p; echo "status $?"
rota run -n 4 sh -c '\''trap "" INT; sleep 20'\'' & p=$!
sleep 1; kill -INT $p; sleep 0.2; kill -INT $p; wait $p; echo "status $?"')
wait_job_done "$j"
is "$(grep -c ': int$' int.out) $(grep status int.out | head -1)" "4 status 3" \
	"Ctrl-C: SIGINT reaches every task"
is "$(grep status int.out | sed -n 2p)" "status 137" \
	"a second Ctrl-C within a second kills the step"

# -- side by side, --immediate, more than the allocation -----------------
j=$(submit -o side.out 'rota run -n 8 sleep 3 &
sleep 1
rota run -n 8 true; echo "beside $?"
rota run -I -n 12 true; echo "immediate $?"
rota run -n 12 true; echo "waited $?"
wait
rota run -n 17 true; echo "too many $?"')
wait_job_done "$j"
is "$(grep -E '^(beside|immediate|waited|too many)' side.out | tr '\n' ' ')" \
	"beside 0 immediate 1 waited 0 too many 1 " \
	"two steps share the job; one that does not fit waits, or fails with -I"
grep -q "other steps hold its cores" side.out && grep -q "step waiting" side.out
ok $? "... saying why"
grep -q "17 tasks of 1 cpus do not fit job $j's 16" side.out
ok $? "more tasks than the allocation: refused in one line"

# -- a cancel ends every step on every node --------------------------------
tag=73$$
j=$(submit -o cancel.out "rota run -n 16 sh -c 'sleep $tag & sleep $tag'")
wait_until "[ \$(pgrep -u rotatest1 -fx 'sleep $tag' | wc -l) -eq 32 ]"
ok $? "32 sleeps of the step on four nodes"
rota cancel "$j"
wait_job_done "$j"
wait_until "[ \$(pgrep -u rotatest1 -f 'sleep $tag' | wc -l) -eq 0 ]"
ok $? "cancel: no process of the job left on any node"
left=$(pgrep -f "rota-step.*$j\." | wc -l)
is "$left" 0 "no step supervisor left"

# -- a node lost mid-step ------------------------------------------------------
tag=74$$
j=$(submit -o lost.out --no-requeue "rota run -n 16 sh -c 'sleep $tag'; echo status \$?")
wait_until "[ \$(pgrep -u rotatest1 -fx 'sleep $tag' | wc -l) -eq 16 ]"
# the whole of n03: its daemon and its step's supervisor
# (the step's supervisor is the daemon's child: this cluster's only)
n03=$(cat "$CL/n03.pid")
pkill -9 -P "$n03"
kill -9 "$n03"
wait_until "grep -q status lost.out"
grep -q "node n03:.*step failed, its other tasks killed" lost.out
ok $? "a node lost mid-step: the step fails naming it"
wait_until "[ \$(pgrep -u rotatest1 -fx 'sleep $tag' | wc -l) -le 4 ]"
ok $? "... and the tasks on the other nodes are killed"
# n03's daemon comes back: it ends what its dead step supervisor left
"$BIN/rota-noded" -f "$CL/rota.conf" -n n03 --topology "$TOPO/${NODE_TOPOS%% *}" \
	--ctld "$ROTA_CTLD" >>"$CL/log/n03.log" 2>&1 &
echo $! >>"$CL/pids"
wait_for cluster_all_up
if grep -q "cgroups off" "$CL/log/n03.log"; then
	skip "no cgroups here"
	pkill -u rotatest1 -f "sleep $tag"
else
	wait_until "[ \$(pgrep -u rotatest1 -fx 'sleep $tag' | wc -l) -eq 0 ]"
	ok $? "the restarted daemon kills what its lost step left (its cgroup)"
fi
wait_job_done "$j"

# -- refusals ---------------------------------------------------------------------
j=$(submit -o hold.out 'sleep 30')
wait_until "job_state_is $j RUNNING"
out=$(as rotatest2 env ROTA_JOB_ID="$j" rota run -n 1 true 2>&1)
case $out in *"not yours"*) ok 0 "user B cannot run a step in A's job" ;;
*) ok 1 "user B cannot run a step in A's job: $out" ;; esac
as rotatest1 env ROTA_JOB_ID="$j" ROTA_TEST_STEP_CREDS="$W/creds" \
	ROTA_TEST_STEP_HOLD=1 rota run -n 4 -N 1 true
read -r name addr port uid cred <"$W/creds"
out=$(as rotatest2 "$STEPLAUNCH" "$addr" "$port" "$uid" "$cred" true)
case $out in *"may not start tasks in uid"*) ok 0 "A's credential is refused to user B" ;;
*) ok 1 "A's credential is refused to user B: $out" ;; esac
out=$(as rotatest1 "$STEPLAUNCH" "$addr" "$port" "$uid" "$cred" true)
case $out in *replayed*) ok 0 "a credential used once is refused again (replayed)" ;;
*) ok 1 "a credential used once is refused again: $out" ;; esac
forged=$(as rotatest1 munge -S "$ROTA_MUNGE_SOCKET" -s '{"job_id":1}' 2>/dev/null)
out=$(as rotatest1 "$STEPLAUNCH" "$addr" "$port" "$uid" "$forged" true)
case $out in *"not the controller's"*|*"another uid"*) ok 0 "a credential the controller did not seal is refused" ;;
*) ok 1 "a credential the controller did not seal is refused: $out" ;; esac
grep -q "step refused from" "$CL/log/$name.log"
ok $? "refusals are logged by the node daemon"
wait_until "[ \$(rota diag | awk '\$1 == \"steps_refused\" {print \$2}') -ge 3 ]"
ok $? "... and counted in rota diag (steps_refused)"
rota cancel "$j"
wait_job_done "$j"

# -- interactive ---------------------------------------------------------------------
# a pending interactive job says why it waits, once a few seconds have passed
j=$(as rotatest2 rota submit -N 4 --exclusive -t 5 --wrap 'sleep 60')
wait_until "job_state_is $j RUNNING"
as rotatest1 timeout -s INT 6 rota run -n 1 true 2>wait.err
grep -q "waiting: " wait.err && grep -q "cancelled" wait.err
ok $? "a pending interactive job says why it waits; Ctrl-C cancels it"
rota cancel "$j"
wait_job_done "$j"

out=$(as rotatest1 rota run -n 6 -l sh -c 'echo $ROTA_NODENAME' 2>&1)
is "$(echo "$out" | grep -c ': n0')" 6 "rota run outside a job: its own job, six tasks"
last=$(rota queue --all --noheader | awk '$4 ~ /^rotatest/ {id=$1} END {print id}')
is "$(job_state "$last")" COMPLETED "... ended COMPLETED with its step"
out=$(as rotatest1 rota run -n 2 sh -c 'exit 4' 2>&1)
last=$(rota queue --all --noheader | awk '$4 ~ /^rotatest/ {id=$1} END {print id}')
is "$(job_state "$last")" FAILED "... FAILED when a task failed"
out=$(as rotatest1 rota alloc -N 2 --ntasks-per-node=2 sh -c 'rota run -l sh -c "echo \$ROTA_JOB_ID \$ROTA_NODENAME"' 2>/dev/null)
is "$(echo "$out" | awk '{print $3}' | sort | uniq -c | awk '{print $1}' | tr '\n' ' ')" "2 2 " \
	"rota alloc: rota run inside uses its two nodes"
last=$(rota queue --all --noheader | awk '$4 ~ /^rotatest/ {id=$1} END {print id}')
is "$(job_state "$last")" COMPLETED "rota alloc: the job ends COMPLETED with the shell"

if command -v tmux >/dev/null; then
	export TMUX_TMPDIR="$T"
	tmux new-session -d -s pty -x 97 -y 31 \
		"runuser -u rotatest1 -- env ROTA_CTLD=$ROTA_CTLD ROTA_CONF=$ROTA_CONF ROTA_MUNGE_SOCKET=$ROTA_MUNGE_SOCKET PATH=$BIN:$PATH sh -c 'cd $W; rota run --pty bash --norc -i; echo rc=\$? >$W/pty.rc'"
	wait_until "tmux capture-pane -p -t pty | grep -q 'bash'"
	ok $? "rota run --pty bash: a prompt"
	tmux send-keys -t pty 'stty size' Enter
	wait_until "tmux capture-pane -p -t pty | grep -q '^31 97'"
	ok $? "stty size says the pane's size"
	tmux send-keys -t pty 'exit' Enter
	wait_for test -s "$W/pty.rc"
	last=$(rota queue --all --noheader | awk '$4 ~ /^rotatest/ {id=$1} END {print id}')
	is "$(cat "$W/pty.rc") $(job_state "$last")" "rc=0 COMPLETED" "exit ends the job COMPLETED"
	tmux kill-server 2>/dev/null
else
	skip "no tmux"; skip "no tmux"; skip "no tmux"
fi
cluster_stop
