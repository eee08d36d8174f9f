#!/bin/bash
# Job control on a real cluster (issue 8): rota hold, release, nice,
# update job, requeue and cancel's filters, as two users and root (an
# operator).  Every authorization rule is tried both ways; a held job
# does not start and its age stands still; nice moves a multifactor
# priority by exactly its value; changes outlive a controller restart.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 55
# two nodes of 2 cores; a 4-core blocker fills them
NODE_TOPOS="2intel64-1n2c-numaroot.v1tov2.xml 2intel64-1n2c-numaroot.v1tov2.xml"
cluster_start "Priority=multifactor WeightAge=1000 MaxAge=1d" \
	"PriorityCalcPeriod=1s" ||
	{ echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1

# prio ID: the job's priority as rota prio gives it
prio() { rota prio -H "$1" | awk '{ print $6 }'; }
reason() { rota show job "$1" | sed -n 's/^Reason=//p'; }
field() { rota show job "$1" | sed -n "s/^$2=//p"; }

blocker=$(rota submit -n 4 --wrap 'sleep 300')
wait_for job_state_is "$blocker" RUNNING
a=$(as rotatest1 rota submit -n 1 -J mine --wrap true)
b=$(as rotatest2 rota submit -n 1 --wrap true)

# ---- hold and release ----
is "$(as rotatest2 rota hold "$a" 2>&1)" \
	"rota hold: job $a: permission denied: it belongs to rotatest1" \
	"a user may not hold another's job"
as rotatest2 rota hold "$a" 2>/dev/null
is $? 1 "and the command exits 1"
as rotatest1 rota hold "$a"
ok $? "the owner holds it"
is "$(reason "$a")" JobHeldUser "rota show job: JobHeldUser"
like "$(rota queue | grep "^ *$a ")" "JobHeldUser" "rota queue shows the hold"
is "$(as rotatest1 rota hold --operator "$b" 2>&1)" \
	"rota hold: job $b: permission denied: it belongs to rotatest2" \
	"--operator on another's job: refused"
is "$(as rotatest2 rota hold --operator "$b" 2>&1)" \
	"rota hold: job $b: only operators place an operator hold" \
	"--operator is for operators only"
rota hold --operator "$b"
ok $? "an operator holds any job, with an operator hold"
is "$(reason "$b")" JobHeldAdmin "rota show job: JobHeldAdmin"
is "$(as rotatest2 rota release "$b" 2>&1)" \
	"rota release: job $b: held by an operator: only an operator may release it" \
	"the owner may not release an operator hold"
rota release "$b"
ok $? "an operator may"
is "$(as rotatest1 rota release "$b" 2>&1)" \
	"rota release: job $b: permission denied: it belongs to rotatest2" \
	"a user may not release another's job"
as rotatest2 rota hold "$b"
ok $? "a user's hold again on b"

# ---- a held job's age stands still; an eligible one's grows ----
c=$(as rotatest2 rota submit -n 1 --wrap true)
d=$(as rotatest1 rota submit --hold -n 1 --wrap true)
pa=$(prio "$a")
pc=$(prio "$c")
pd=$(prio "$d")
sleep 2 # time must pass for age to show
is "$(prio "$a")" "$pa" "a held job's age stands still"
is "$(reason "$d") $(prio "$d")" "JobHeldUser $pd" \
	"submit --hold: held from the start, its age never grew"
as rotatest1 rota release "$d" && rota cancel "$d"
ok $? "its owner releases it"
ok "$(awk -v x="$(prio "$c")" -v y="$pc" 'BEGIN { print !(x > y) }')" \
	"an eligible job's age grows"

# ---- nice ----
as rotatest1 rota nice "$a" +100
ok $? "the owner adds 100 to its nice"
is "$(awk -v x="$(prio "$a")" -v y="$pa" 'BEGIN { printf "%.3f", y - x }')" \
	"100.000" "its priority drops by exactly 100 at once"
like "$(rota prio -l "$a" | grep nice)" "nice +raw=100 .*value=-100" \
	"rota prio -l shows the nice term"
is "$(as rotatest1 rota nice "$a" -150 2>&1)" \
	"rota nice: job $a: permission denied: only operators may set a negative nice (-50)" \
	"a user may not take it below 0"
as rotatest1 rota nice "$a" -100
ok $? "but may bring it back to 0"
is "$(as rotatest2 rota nice "$a" +5 2>&1)" \
	"rota nice: job $a: permission denied: it belongs to rotatest1" \
	"nor touch another's job"
rota nice "$a" -50
ok $? "an operator sets a negative nice"
is "$(awk -v x="$(prio "$a")" -v y="$pa" 'BEGIN { printf "%.3f", x - y }')" \
	"50.000" "and the priority rises by exactly 50"

# ---- update job ----
as rotatest1 rota update job "$a" TimeLimit=30
ok $? "the owner lowers the time limit"
is "$(field "$a" TimeLimit)" "00:30:00" "rota show job has it"
is "$(as rotatest1 rota update job "$a" TimeLimit=2:00:00 2>&1)" \
	"rota update: job $a: permission denied: only operators may raise a time limit (02:00:00 above 00:30:00)" \
	"a user may not raise it"
rota update job "$a" TimeLimit=2:00:00
ok $? "an operator may"
is "$(rota update job "$a" TimeLimit=3-00:00:00 2>&1)" \
	"rota update: job $a: TimeLimit=3-00:00:00 exceeds the maximum of queue 'batch' (2-00:00:00)" \
	"not past the queue's MaxTime, even for an operator"
is "$(as rotatest1 rota update job "$a" Queue=short 2>&1)" \
	"rota update: job $a: TimeLimit=02:00:00 exceeds the maximum of queue 'short' (00:30:00)" \
	"a move re-checks the new queue's MaxTime"
as rotatest1 rota update job "$a" TimeLimit=20 Queue=short Name=renamed
ok $? "lower and move at once"
is "$(field "$a" Queue) $(field "$a" Name)" "short renamed" "queue and name changed"
is "$(as rotatest1 rota update job "$a" Urgency=20 2>&1)" \
	"rota update: job $a: permission denied: users may only lower the urgency (16 to 20)" \
	"a user may not raise the urgency"
as rotatest1 rota update job "$a" Urgency=10
ok $? "but may lower it"
is "$(as rotatest2 rota update job "$a" Name=x 2>&1)" \
	"rota update: job $a: permission denied: it belongs to rotatest1" \
	"nor change another's job"
is "$(rota update job "$a" Bogus=1 2>&1)" \
	"rota update: Bogus: unknown key (TimeLimit, Queue, Name, Urgency, Dependency, JobShare, OTickets)" \
	"an unknown key is one clear line"

# ---- changes are journaled: a restarted controller has them ----
cluster_kill_ctld
cluster_restart_ctld
# (a cancel sent before the nodes are back would be lost: see the report)
wait_for cluster_all_up
is "$(reason "$a") $(field "$a" Queue) $(field "$a" TimeLimit)" \
	"JobHeldUser short 00:20:00" "hold, queue and limit outlive a crash"
like "$(rota prio -l "$a" | grep nice)" "raw=-50" "and so does the nice"

# ---- cancel's filters free the nodes; release lets a job run ----
is "$(as rotatest1 rota cancel --user root 2>&1)" \
	"rota cancel: job $blocker: not yours to cancel" \
	"cancel --user: another's jobs are refused one by one"
rota cancel --user root --state RUNNING
ok $? "an operator cancels root's running jobs by filter"
wait_job_done "$blocker"
is "$(job_state "$a")" PENDING "a held job does not start on free nodes"
as rotatest1 rota release "$a"
ok $? "the owner releases it"
wait_job_done "$a"
is "$(job_state "$a")" COMPLETED "and it runs"

# ---- requeue ----
r=$(as rotatest2 rota submit -n 1 --wrap 'sleep 300')
wait_for job_state_is "$r" RUNNING
is "$(as rotatest1 rota requeue "$r" 2>&1)" \
	"rota requeue: job $r: permission denied: it belongs to rotatest2" \
	"a user may not requeue another's job"
as rotatest2 rota requeue "$r"
ok $? "the owner requeues it"
wait_for sh -c "rota show job $r | grep -q '^Runs=2$'"
ok $? "it runs again, its second run"
is "$(as rotatest2 rota requeue "$b" 2>&1)" \
	"rota requeue: job $b: not running (PENDING): only a running job can be requeued" \
	"a pending job cannot be requeued"
# ---- --json on the read commands (docs/json.md) ----
py() { python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"; }
is "$(rota queue --json -j "$r" | py 'd["jobs"][0]["id"], d["jobs"][0]["user"], d["jobs"][0]["runs"]')" \
	"$r rotatest2 2" "rota queue --json: the job in full"
is "$(rota nodes --json | py '[n["name"] for n in d["nodes"]]')" \
	"['n01', 'n02']" "rota nodes --json: every node"
is "$(rota show --json job "$b" | py 'd["jobs"][0]["reason"]')" \
	"JobHeldUser" "rota show --json job"
is "$(rota show --json node n02 | py 'd["nodes"][0]["cores"]')" "2" \
	"rota show --json node"
ok "$(rota diag --json | py 'int(not d["requests"] > 0 or "denied" not in d)')" \
	"rota diag --json: the counters by name"
as rotatest2 rota cancel --name wrap --state R >/dev/null 2>&1
rota cancel --state PENDING >/dev/null 2>&1
wait_for sh -c "! rota queue | grep -q ' R '"
ok $? "cancel --state, --name clean up"
