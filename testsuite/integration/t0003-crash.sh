#!/bin/bash
# Never lose a job: clients submit as fast as they can while the controller
# is killed with SIGKILL at random moments, 20 times.  After each restart,
# every job whose id a client was given exists with the name it was
# submitted with, and no job exists twice.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

CRASHES=${CRASHES:-20}
CLIENTS=3
plan $((CRASHES + 4))
NODE_TOPOS="24em64t-2n6c2t-pci.xml 2intel64-1n2c-numaroot.v1tov2.xml"
MIN_JOB_AGE=1h
cluster_start || { echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"

W="$T/work"
mkdir -p "$W"
cd "$W" || exit 1
client() { # K: submit jobs named cK-N until told to stop
	local k=$1 n=0 id
	while [ ! -e "$W/stop" ]; do
		n=$((n + 1))
		if id=$(rota submit -o /dev/null --job-name "c$k-$n" --wrap true \
			2>/dev/null); then
			echo "$id c$k-$n" >>"$W/acked.$k"
		fi
	done
}
for k in $(seq $CLIENTS); do
	client "$k" &
	echo $! >>"$W/clients"
done

# every job acknowledged before the listing was taken is listed under its
# name; no job is listed twice
check_jobs() {
	cat "$W"/acked.* 2>/dev/null | sort >"$W/acked"
	rota queue --all --noheader | awk '{ print $1, $3 }' | sort >"$W/listed"
	lost=$(comm -23 "$W/acked" "$W/listed" | wc -l)
	twice=$(awk '{ print $1 }' "$W/listed" | uniq -d | wc -l)
	[ "$lost" -eq 0 ] && [ "$twice" -eq 0 ]
}

for i in $(seq "$CRASHES"); do
	# a random moment: 50 to 450 ms of submitting
	sleep "0.$((RANDOM % 5))5"
	cluster_kill_ctld
	cluster_restart_ctld
	check_jobs
	ok $? "crash $i: $(wc -l <"$W/acked") acknowledged, $lost lost, $twice twice"
done
touch "$W/stop"
for pid in $(cat "$W/clients"); do wait "$pid"; done
check_jobs
acked=$(wc -l <"$W/acked")
ok $((acked < 50)) "clients were answered throughout ($acked jobs acknowledged)"
is "$lost" 0 "no acknowledged job lost"
is "$twice" 0 "no job twice"
