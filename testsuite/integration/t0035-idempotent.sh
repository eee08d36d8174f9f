#!/bin/bash
# Never twice (issue 18): a client retries while the controller restarts,
# and the request id it keeps over its retries makes a repeat of a request
# the controller did get that request's first answer, not a second job.
#
# First the replay itself, with a request id fixed by ROTA_TEST_REQUEST_ID:
# the same submit twice gives one job and its id twice, across a kill -9
# too; another user's same id is another request; an id reused for another
# request is refused.  Then several shell loops submit while the
# controller is killed with SIGKILL and restarted again and again: no
# submit fails, every acknowledged job exists once, and no job exists that
# its client was not told about.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

KILLS=${KILLS:-10}
CLIENTS=${CLIENTS:-4}
plan 22
NODE_TOPOS="24em64t-2n6c2t-pci.xml 2intel64-1n2c-numaroot.v1tov2.xml"
MIN_JOB_AGE=1h
cluster_start || { echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"

W="$T/work"
mkdir -p "$W"
chmod 0777 "$W"
cd "$W" || exit 1

# jobs listed under the name NAME (the queue's third column)
named() { rota queue --all --noheader | awk -v n="$1" '$3 == n' | wc -l; }
new_rid() { od -An -N16 -tx1 /dev/urandom | tr -d ' \n'; }

# ---- the replay, by a fixed request id ---------------------------------------
rid=$(new_rid)
a=$(ROTA_TEST_REQUEST_ID=$rid rota submit -o /dev/null -H --job-name r1 --wrap true)
b=$(ROTA_TEST_REQUEST_ID=$rid rota submit -o /dev/null -H --job-name r1 --wrap true)
ok $( [ -n "$a" ] && [ "$a" = "$b" ]; echo $? ) \
	"the same request id twice: the first job id again ($a, $b)"
is "$(named r1)" 1 "and one job"

rid2=$(new_rid)
c=$(ROTA_TEST_REQUEST_ID=$rid2 rota submit -o /dev/null -H --job-name r2 --wrap true)
cluster_kill_ctld
cluster_restart_ctld
d=$(ROTA_TEST_REQUEST_ID=$rid2 rota submit -o /dev/null -H --job-name r2 --wrap true)
is "$d" "$c" "after kill -9, the same request id: the first job id again"
# the first restart compacted the answer into the snapshot: from there too
cluster_kill_ctld
cluster_restart_ctld
e=$(ROTA_TEST_REQUEST_ID=$rid2 rota submit -o /dev/null -H --job-name r2 --wrap true)
is "$e" "$c" "after a second kill -9 (the snapshot): the first job id again"
is "$(named r2)" 1 "and one job"

u=$(as rotatest1 env ROTA_TEST_REQUEST_ID="$rid2" \
	rota submit -o /dev/null -H --job-name r2u --wrap true)
ok $( [ -n "$u" ] && [ "$u" != "$c" ]; echo $? ) \
	"another user's same request id is another request (job $u)"
is "$(named r2u)" 1 "which made its own job"

out=$(ROTA_TEST_REQUEST_ID=$rid rota submit -o /dev/null --job-name r3 \
	--wrap true 2>&1)
rc=$?
ok $( [ $rc -ne 0 ]; echo $? ) "an id reused for another request is refused"
like "$out" "request id already used for another request" "and says so"
is "$(named r3)" 0 "no job made"

rid3=$(new_rid)
ROTA_TEST_REQUEST_ID=$rid3 rota cancel "$a"
ok $? "cancel by a fixed request id"
ROTA_TEST_REQUEST_ID=$rid3 rota cancel "$a"
ok $? "the same cancel again: its first answer (no 'already ended')"
out=$(rota cancel "$a" 2>&1)
rc=$?
ok $( [ $rc -ne 0 ]; echo $? ) "a new cancel of it is refused ($out)"

# ---- the messages: waiting, giving up, disabled --------------------------------
cluster_kill_ctld
out=$(ROTA_CLIENT_RETRY=1 rota submit -o /dev/null --wrap true 2>&1)
rc=$?
lines=$(echo "$out" | wc -l)
ok $( [ $rc -ne 0 ] && [ "$lines" -eq 2 ]; echo $? ) \
	"ROTA_CLIENT_RETRY=1: two lines, then failure"
like "$out" "^rota submit: controller at 127\\.0\\.0\\.1:[0-9]+ not answering \\(Connection refused\\); retrying for up to 1s" \
	"one line while it waits"
like "$out" "after 1s; the request was not applied" \
	"one line on giving up, saying it was not applied"
out=$(ROTA_CLIENT_RETRY=0 rota queue 2>&1)
like "$out" "^rota queue: connect to .*Connection refused$" \
	"ROTA_CLIENT_RETRY=0: no retrying"
# a command started while the controller is down waits for it
(rota submit -o /dev/null --job-name r4 --wrap true >"$W/r4.id" 2>"$W/r4.err"; \
	echo $? >"$W/r4.rc") &
wait_for grep -q "not answering" "$W/r4.err"
cluster_restart_ctld
wait_for test -s "$W/r4.rc"
ok $( [ "$(cat "$W/r4.rc")" -eq 0 ] && [ "$(named r4)" -eq 1 ]; echo $? ) \
	"a submit started while the controller was down is done once it is up"

# ---- submit loops against a controller killed with SIGKILL ---------------------
client() { # K: submit jobs named iK-N until told to stop
	local k=$1 n=0 id
	while [ ! -e "$W/stop" ]; do
		n=$((n + 1))
		if id=$(rota submit -o /dev/null --job-name "i$k-$n" --wrap true \
			2>>"$W/stderr.$k"); then
			echo "$id i$k-$n" >>"$W/acked.$k"
		else
			echo "i$k-$n" >>"$W/failed.$k"
		fi
		echo "i$k-$n" >>"$W/tried.$k"
	done
}
repeated() { grep -c "repeated: its first answer again" "$CL/log/ctld.log"; }
r0=$(repeated)
for k in $(seq "$CLIENTS"); do
	client "$k" &
	echo $! >>"$W/clients"
done
wait_until "[ \"\$(cat \"$W\"/acked.* 2>/dev/null | wc -l)\" -ge 20 ]"
for i in $(seq "$KILLS"); do
	# a random moment: 50 to 450 ms of submitting
	sleep "0.$((RANDOM % 5))5"
	cluster_kill_ctld
	# clients meet a closed port for a moment
	sleep 0.3
	cluster_restart_ctld
done
# a last stretch of submits against the last controller
n0=$(cat "$W"/acked.* | wc -l)
wait_until "[ \"\$(cat \"$W\"/acked.* | wc -l)\" -ge $((n0 + 20)) ]"
touch "$W/stop"
for pid in $(cat "$W/clients"); do wait "$pid"; done

cat "$W"/acked.* | sort >"$W/acked"
rota queue --all --noheader | awk '$3 ~ /^i[0-9]+-[0-9]+$/ { print $1, $3 }' |
	sort >"$W/listed"
submits=$(cat "$W"/tried.* | wc -l)
acked=$(wc -l <"$W/acked")
listed=$(wc -l <"$W/listed")
failures=$(cat "$W"/failed.* 2>/dev/null | wc -l)
missing=$(comm -23 "$W/acked" "$W/listed" | wc -l)
untold=$(comm -13 "$W/acked" "$W/listed" | wc -l)
duplicates=$(awk '{ print $2 }' "$W/listed" | sort | uniq -d | wc -l)
repeats=$(($(repeated) - r0))
waited=$(cat "$W"/stderr.* | grep -c "not answering")
echo "# kills: $KILLS, submits: $submits, acknowledged: $acked," \
	"jobs: $listed, duplicates: $duplicates, failures: $failures," \
	"missing: $missing, untold: $untold"
echo "# clients that waited: $waited, requests answered again by id: $repeats"
is "$failures" 0 "no submit from a shell loop failed"
ok $( [ "$missing" -eq 0 ] && [ "$acked" -eq "$submits" ]; echo $? ) \
	"every acknowledged job id exists, under its tag"
ok $( [ "$duplicates" -eq 0 ] && [ "$untold" -eq 0 ] &&
	[ "$listed" -eq "$acked" ]; echo $? ) \
	"no job twice, none its client was not told of"
