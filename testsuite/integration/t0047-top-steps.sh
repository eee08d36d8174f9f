#!/bin/bash
# rota top shows a running job's steps (issue 19): over the four node
# daemons of the default test cluster, a job runs 'rota run -n 4 sleep
# 30' in its script; an indented line for step JOB.0 (command, tasks,
# time, nodes) appears right under the job's line, follows the filter,
# hides and comes back with 't', and is gone once the step has ended
# while the job still runs.  Driven through tmux as t0021-top.sh is.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge
command -v tmux >/dev/null || skip_all "needs tmux (scripts/deps.sh)"

plan 11
cluster_start || { echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1

# a task on each of the four nodes; the script goes on once its step ends
printf '#!/bin/sh\nrota run -n 4 sleep 30\necho "step $?" >step.done\nsleep 300\n' \
	>steps.sh
j=$(as rotatest1 rota submit -N 4 -n 4 -J withsteps steps.sh)
wait_for job_state_is "$j" RUNNING

TMUX_SOCK="$T/tmux.sock"
tm() { tmux -S "$TMUX_SOCK" "$@"; }
trap 'st=$?; touch "$P/done" 2>/dev/null; tm kill-server 2>/dev/null; (exit $st); tap_cleanup' EXIT
screen() { tm capture-pane -p -t top; }
P="$T/pane"
mkdir -p "$P" && chmod 1777 "$P"
cat >"$P/run-top.sh" <<EOS
rota top -d 0.5 --no-color
echo "exit=\$?" >"$P/top.exit"
while [ -d "$P" ] && [ ! -e "$P/done" ]; do sleep 0.2; done
EOS
chmod 0755 "$P/run-top.sh"
tm new-session -d -s top -x 120 -y 30 \
	"runuser -u rotatest1 -- env ROTA_CTLD=$ROTA_CTLD ROTA_CONF=$ROTA_CONF ROTA_MUNGE_SOCKET=$ROTA_MUNGE_SOCKET PATH=$BIN:$PATH TERM=screen sh $P/run-top.sh"

# the job's line, and the step's: "`- JOB.0 sleep  R  4 tasks  TIME NODES"
job_re="^ +$j rotatest .* R "
step_re="^ +\`- $j\.0 sleep +R +4 tasks +[0-9:]+ n\[01-04\] *\$"
has_job() { screen | grep -Eq "$job_re"; }
has_step() { screen | grep -Eq "$step_re"; }

wait_for has_step
ok $? "the running step has its line: id, command, tasks, time, nodes"
like "$(screen | grep -E -A1 "$job_re" | sed -n 2p)" "^ +\`- $j\.0 sleep" \
	"right under its job's line, indented"
like "$(rota queue --steps | grep "^$j\.0 ")" "sleep .* R .* 4 n\[01-04\]" \
	"rota queue --steps lists the same step"
like "$(screen | grep "^running ")" "on n\[01-04\]  1 step running" \
	"the detail pane counts the job's running steps"

tm send-keys -t top t
wait_until '! screen | grep -q "\`- $j\.0"'
ok $? "t hides the steps"
has_job
ok $? "and keeps the job"
tm send-keys -t top t
wait_for has_step
ok $? "t again shows them"

tm send-keys -t top / "state=PD" Enter
wait_until '! has_job && ! screen | grep -q "\`- $j\.0"'
ok $? "a filter that hides the job hides its steps"
tm send-keys -t top / Enter
wait_for has_step
ok $? "and they are back with the job"

# the step ends (sleep 30); the job goes on
WAIT_TIMEOUT=60 wait_for test -e step.done
WAIT_TIMEOUT=5 wait_until '! has_step && has_job'
ok $? "once the step has ended its line is gone, the job's stays"

screen >"$T/screen.last"
tm send-keys -t top q
wait_for grep -q "^exit=" "$P/top.exit"
rota cancel "$j" >/dev/null 2>&1
