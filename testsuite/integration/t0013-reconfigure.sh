#!/bin/bash
# rota reconfigure and SIGHUP: a broken rota.conf is refused with its line
# and the cluster runs on, on the old one; a good one takes effect (a new
# queue, node features) without dropping a running job; node daemons
# follow; only operators may ask.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge
id rotatest1 >/dev/null 2>&1 || skip_all "needs user rotatest1"

plan 14
NODE_TOPOS="24em64t-2n6c2t-pci.xml 2intel64-1n2c-numaroot.v1tov2.xml"
cluster_start || { echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1
cp "$CL/rota.conf" "$T/good.conf"

a=$(rota submit --wrap 'sleep 6; exit 5')
wait_for job_state_is "$a" RUNNING

out=$(as rotatest1 rota reconfigure 2>&1); rc=$?
is "$out:$rc" "rota reconfigure: only operators may reconfigure:1" "users may not reconfigure"

echo "NoSuchKey=1" >>"$CL/rota.conf"
n=$(wc -l <"$CL/rota.conf")
out=$(rota reconfigure 2>&1); rc=$?
like "$out" "^rota reconfigure: $CL/rota.conf:$n: NoSuchKey: " "a broken file: the operator gets its line"
is "$rc" 1 "and exit 1"
grep -q "reconfigure refused, keeping the old configuration: $CL/rota.conf:$n" "$CL/log/ctld.log"
ok $? "the controller logs it"
is "$(job_state "$a")" RUNNING "the running job is untouched"
b=$(rota submit --wrap true); wait_job_done "$b"
is "$(job_state "$b")" COMPLETED "and the cluster runs on, on the old config"


# a good file: a new queue, a site feature on every node
cp "$T/good.conf" "$CL/rota.conf"
sed -i 's/^NodeName=.*/& Features=newfeat/' "$CL/rota.conf"
echo "QueueName=newq Nodes=ALL MaxTime=10" >>"$CL/rota.conf"
out=$(rota reconfigure 2>&1); rc=$?
is "$out:$rc" ":0" "a good file: rota reconfigure says nothing, exit 0"
c=$(rota submit -q newq --wrap true); wait_job_done "$c"
is "$(job_state "$c")" COMPLETED "the new queue takes jobs"
wait_for cluster_all_up
ok $? "node daemons registered again"
is "$(rota nodes --noheader | grep -c newfeat)" 2 "both nodes carry the new feature"
WAIT_TIMEOUT=30 wait_job_done "$a"
is "$(rota show job "$a" | grep -E '^(State|ExitCode)=' | tr '\n' ' ')" \
	"State=FAILED ExitCode=5 " "the job running across the reconfigure ended with its own exit code"

# SIGHUP does the same
echo "QueueName=hupq Nodes=ALL" >>"$CL/rota.conf"
kill -HUP "$(cat "$CL/ctld.pid")"
wait_for rota submit -q hupq --wrap true
ok $? "SIGHUP: the controller re-read rota.conf"

# a node daemon given a broken file keeps the old one
echo "Broken line" >>"$CL/rota.conf"
kill -HUP "$(cat "$CL/n01.pid")"
wait_for grep -q "reconfigure refused, keeping the old configuration" "$CL/log/n01.log"
sed -i '$d' "$CL/rota.conf" # rota reads it too
# nodes are UNKNOWN until they register again (see docs/deploy.md)
wait_for cluster_all_up
d=$(rota submit -C ib --wrap true); wait_job_done "$d"
is "$(job_state "$d")" COMPLETED "a node daemon refuses a broken file and runs on"
