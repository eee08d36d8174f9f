#!/bin/bash
# Advance reservations on a real cluster (issue 6): root creates one, a
# user may not; bad words are refused with one line each; a job of the
# reservation runs on the reserved node, an ordinary job never lands
# there; list (table and JSON) and delete; the reservation and its job
# survive a controller crash and restart, and a reconfigure; a future one
# makes its job wait (reason Reservation); --mem-per-cpu is charged per
# core on the node.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 42
# two nodes of 2 cores each
NODE_TOPOS="2intel64-1n2c-numaroot.v1tov2.xml 2intel64-1n2c-numaroot.v1tov2.xml"
cluster_start || { echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1

field() { rota show job "$1" | sed -n "s/^$2=//p"; }
resv_row() { rota resv list --noheader | awk -v n="$1" '$1 == n'; }
reason_is() { [ "$(field "$1" Reason)" = "$2" ]; }

# ---- who may create, and what is refused ----
is "$(as rotatest1 rota resv create StartTime=now Duration=1h Nodes=n01 \
	Users=rotatest1 2>&1)" \
	"rota resv: only operators may create reservations" \
	"a user may not create a reservation"
as rotatest1 rota resv create StartTime=now Duration=1h Nodes=n01 \
	Users=rotatest1 2>/dev/null
is $? 1 "and the command exits 1"
is "$(rota resv create StartTime=now Duration=1h Nodes=n01 Users=rotatest1)" \
	"Reservation created: resv1" "root creates resv1 on n01"
is "$(rota resv create StartTime=now Duration=30 Nodes=n01 Users=rotatest1 \
	2>&1)" \
	"rota resv: Nodes=n01: node 'n01' is in reservation 'resv1' over that time" \
	"an overlapping reservation is refused"
is "$(rota resv create StartTime=now Duration=1h Nodes=n09 Users=root 2>&1)" \
	"rota resv: Nodes=n09: unknown node 'n09'" "an unknown node"
is "$(rota resv create StartTime=now Duration=0 Nodes=n02 Users=root 2>&1)" \
	"rota resv: Duration=0: must be above zero" "a zero duration"
is "$(rota resv create StartTime=soon Duration=1h Nodes=n02 Users=root 2>&1)" \
	"rota resv: StartTime=soon: not a time (now, now+2h, YYYY-MM-DD[THH:MM[:SS]], @UNIXSECONDS)" \
	"a bad time"
is "$(rota resv create StartTime=now Duration=1h Nodes=n02 \
	Users=nosuchuser 2>&1)" \
	"rota resv: Users=nosuchuser: unknown user" "an unknown user"
is "$(rota resv create StartTime=now Duration=1h Nodes=n02 Color=red \
	Users=root 2>&1)" \
	"rota resv: Color: unknown key (ReservationName, StartTime, Duration, EndTime, Nodes, CoreCount, GpuCount, TRES, Licenses, Users, Accounts)" \
	"an unknown key"
is "$(rota resv create StartTime=now Duration=1h Nodes=n02 2>&1)" \
	"rota resv: give Users= or Accounts=: who may use it" "nobody named"

# ---- list ----
like "$(resv_row resv1)" "^resv1 +ACTIVE .* 2 +0 +rotatest1 +\(any\) +n01$" \
	"rota resv list shows it, active, 2 cores of n01"
like "$(rota resv list --json)" '"name":"resv1","state":"ACTIVE"' \
	"rota resv list --json"
like "$(as rotatest2 rota resv list)" "^NAME .*resv1" "anyone may list"

# ---- submit ----
is "$(as rotatest2 rota submit -n 1 --reservation=resv1 --wrap true 2>&1)" \
	"rota submit: --reservation=resv1: not open to user 'rotatest2'" \
	"a user the reservation does not name is refused at submit"
is "$(as rotatest1 rota submit --reservation=nope --wrap true 2>&1)" \
	"rota submit: --reservation=nope: no such reservation" \
	"an unknown reservation is refused at submit"
o1=$(as rotatest2 rota submit -n 2 --wrap 'sleep 300')
o2=$(as rotatest2 rota submit -n 2 --wrap 'sleep 300')
wait_for job_state_is "$o1" RUNNING
is "$(field "$o1" NodeList)" n02 "an ordinary job runs on n02"
rota queue >/dev/null # a pass has come and gone
is "$(job_state "$o2")" PENDING "the next one waits: n01 is reserved"
r=$(as rotatest1 rota submit -n 2 --reservation=resv1 --wrap 'sleep 300')
wait_for job_state_is "$r" RUNNING
is "$(field "$r" NodeList)" n01 "the reservation's job runs on n01"
is "$(field "$r" Reservation)" resv1 "rota show job names its reservation"
like "$(rota queue --json)" "\"reservation\":\"resv1\"" \
	"rota queue --json too"
is "$(rota queue -H -R resv1 | awk '{ print $1, $5, $8 }')" "$r R n01" \
	"rota queue -R lists the reservation's jobs only"
is "$(job_state "$o2")" PENDING "the ordinary job still waits"

# ---- a controller crash and restart ----
cluster_kill_ctld
cluster_restart_ctld && wait_for cluster_all_up
ok $? "the controller is back"
like "$(resv_row resv1)" "^resv1 +ACTIVE .* n01$" "the reservation survived"
is "$(job_state "$r")" RUNNING "its job runs on"
rota reconfigure && wait_for cluster_all_up
ok $? "rota reconfigure"
like "$(resv_row resv1)" "^resv1 +ACTIVE .* n01$" \
	"the reservation moved over to the new configuration"
is "$(as rotatest1 rota resv delete resv1 2>&1)" \
	"rota resv: only operators may delete reservations" \
	"a user may not delete it"

# ---- delete: n01 is anyone's again ----
rota resv delete resv1
ok $? "root deletes it"
is "$(rota resv list --noheader)" "" "the list is empty"
is "$(rota resv delete resv1 2>&1)" "rota resv: reservation 'resv1': not found" \
	"deleting it twice"
rota cancel "$r"
wait_for job_state_is "$o2" RUNNING
is "$(field "$o2" NodeList)" n01 "the ordinary job gets n01 now"

# ---- a future reservation ----
rota cancel "$o1" "$o2"
wait_job_done "$o1" && wait_job_done "$o2"
is "$(rota resv create ReservationName=later StartTime=now+1h \
	Duration=2h Nodes=n02 Users=rotatest1)" \
	"Reservation created: later" "a reservation that starts in an hour"
like "$(resv_row later)" "^later +INACTIVE " "listed as inactive"
f=$(as rotatest1 rota submit --reservation=later --wrap true)
wait_for reason_is "$f" Reservation
is "$(field "$f" Reason)" Reservation "its job waits: reason Reservation"
cluster_kill_ctld
cluster_restart_ctld && wait_for cluster_all_up
like "$(resv_row later)" "^later +INACTIVE .* n02$" \
	"it survives a restart too"

# ---- one that starts in a few seconds: its job starts with it ----
rota resv create ReservationName=soon StartTime=now+3s Duration=1h \
	Nodes=n01 Users=rotatest1 >/dev/null
s=$(as rotatest1 rota submit --reservation=soon -n 2 --wrap 'sleep 300')
is "$(field "$s" Reason)" Reservation "a job waits for its reservation"
WAIT_TIMEOUT=30 wait_for job_state_is "$s" RUNNING
is "$(field "$s" NodeList)" n01 "and starts in it once it begins"
rota cancel "$s"

# ---- --mem-per-cpu ----
is "$(rota submit --mem=1G --mem-per-cpu=1G --wrap true 2>&1)" \
	"rota submit: --mem and --mem-per-cpu: give one of them" \
	"--mem and --mem-per-cpu together are refused"
m=$(rota submit -n 2 -t 10 --mem-per-cpu=100M --wrap 'sleep 300')
wait_for job_state_is "$m" RUNNING
is "$(field "$m" MemPerCPU)" 100M "rota show job: MemPerCPU"
node=$(field "$m" NodeList)
like "$(rota nodes | awk -v n="$node" '$1 == n')" " 200M/" \
	"its node holds 2 x 100M"
rota cancel "$m"
