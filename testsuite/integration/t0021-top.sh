#!/bin/bash
# rota top in a real terminal, driven by tmux (send-keys, capture-pane):
# it shows the test's jobs and nodes, filters, holds the selected job with
# 'h' (rota queue sees the hold), redraws on resize, and leaves the
# terminal as it found it on 'q' and on Ctrl-C.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge
command -v tmux >/dev/null || skip_all "needs tmux (scripts/deps.sh)"

plan 15
NODE_TOPOS="2intel64-1n2c-numaroot.v1tov2.xml 2intel64-1n2c-numaroot.v1tov2.xml"
cluster_start || { echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1

blocker=$(rota submit -n 4 -J blocker --wrap 'sleep 300')
wait_for job_state_is "$blocker" RUNNING
a=$(as rotatest1 rota submit -n 1 -J holdme --wrap true)
b=$(as rotatest1 rota submit -n 2 -J other --wrap true)
c=$(as rotatest2 rota submit -n 1 -J theirs --wrap true)

# a tmux server of our own, killed by the cleanup trap
TMUX_SOCK="$T/tmux.sock"
tm() { tmux -S "$TMUX_SOCK" "$@"; }
# (tap_cleanup reads the script's status from $?: hand it on)
trap 'st=$?; touch "$P/done" 2>/dev/null; tm kill-server 2>/dev/null; (exit $st); tap_cleanup' EXIT
screen() { tm capture-pane -p -t top; }
shows() { screen | grep -q -- "$1"; }
# the pane runs rota top as rotatest1 between two snapshots of the
# terminal's settings, which must be equal
P="$T/pane" # the pane's files, written as rotatest1
mkdir -p "$P" && chmod 1777 "$P"
# (the shell traps SIGINT so that Ctrl-C ends rota top, not the script)
cat >"$P/run-top.sh" <<EOS
trap : INT
stty -g >"$P/stty.before"
rota top -d 0.5 --no-color
st=\$?
stty -g >"$P/stty.after"
# written last: the test reads stty.after once it sees top.exit
echo "exit=\$st" >"$P/top.exit"
# the pane stays for a look until the test is over (or its files gone)
while [ -d "$P" ] && [ ! -e "$P/done" ]; do sleep 0.2; done
EOS
chmod 0755 "$P/run-top.sh"
start_top() {
	rm -f "$P/top.exit" "$P/stty.before" "$P/stty.after"
	tm kill-session -t top 2>/dev/null
	tm new-session -d -s top -x 100 -y 30 \
		"runuser -u rotatest1 -- env ROTA_CTLD=$ROTA_CTLD ROTA_CONF=$ROTA_CONF ROTA_MUNGE_SOCKET=$ROTA_MUNGE_SOCKET PATH=$BIN:$PATH TERM=screen sh $P/run-top.sh"
}

start_top
wait_for sh -c "tmux -S $TMUX_SOCK capture-pane -p -t top | grep -Eq '^ +$a rotatest'"
ok $? "rota top shows the test's jobs"
like "$(screen | sed -n 1,2p | tr '\n' ' ')" \
	"cores 4/4 busy +nodes 2 up 0 down 0 drained .*jobs 1 running 3 idle 0 blocked 0 held" \
	"the header counts cores, nodes and jobs"
like "$(screen)" "n01 +U +2/2" "the node panel has a cell per node"
like "$(screen | grep " $blocker ")" "root .* R .* n\[01-02\]" \
	"a running job: its user, state and nodes"

tm send-keys -t top / "user=rotatest1 holdme" Enter
wait_for sh -c "! tmux -S $TMUX_SOCK capture-pane -p -t top | grep -Eq '^ +$c rotatest'"
ok $? "the filter hides other users' jobs"
screen | grep -Eq "^ +$a rotatest" && ! screen | grep -Eq "^ +$b rotatest"
ok $? "and keeps only the job that matches"
like "$(screen | grep "^job $a")" "job $a 'holdme' rotatest1/.* PENDING" \
	"the detail pane shows the selected job"
wait_for shows "priority .*(fifo):"
ok $? "with its priority terms"

tm send-keys -t top h
wait_for shows "job $a: held"
ok $? "h holds it and says so in the status line"
like "$(rota queue | grep "^ *$a ")" "JobHeldUser" "rota queue sees the hold"

tm resize-window -t top -x 80 -y 24
wait_for sh -c "tmux -S $TMUX_SOCK capture-pane -p -t top | grep -q 'JOBID USER'"
is "$(screen | wc -l) $(screen | grep -c '^ *JOBID USER') $(screen | tail -n 1)" \
	"24 1 job $a: held" "resized to 80x24: redrawn, the status line last"

screen >"$T/screen.resized" # kept with the logs if a test fails
tm send-keys -t top q
wait_for grep -q "^exit=" "$P/top.exit"
is "$(cat "$P/top.exit")" "exit=0" "q quits with status 0"
is "$(cat "$P/stty.after")" "$(cat "$P/stty.before")" \
	"and leaves the terminal's settings as they were"

start_top
wait_for sh -c "tmux -S $TMUX_SOCK capture-pane -p -t top | grep -Eq '^ +$a rotatest'"
tm send-keys -t top C-c
wait_for grep -q "^exit=" "$P/top.exit"
is "$(cat "$P/stty.after" 2>/dev/null)" "$(cat "$P/stty.before")" \
	"Ctrl-C restores the terminal too"
tm kill-server; sleep 0.2
rota cancel "$blocker" "$a" "$b" "$c" >/dev/null 2>&1
