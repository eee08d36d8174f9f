#!/bin/bash
# Fencing under a real network partition.  Each node daemon lives in a
# network namespace of its own, linked to the controller's by a veth pair
# with addresses of the test's own; under a steady submit load, one node's
# link after another is cut (the host's end of its veth goes down: packets
# vanish, no reset) and healed: short cuts, which the lease rides out, and
# long ones, past NodeTimeout, after which the controller requeues the
# node's jobs elsewhere.  Every job writes ticks (its run's node and pid,
# and the time) as it runs; afterwards no two runs of one job may overlap.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge
id rotatest1 >/dev/null 2>&1 || skip_all "needs user rotatest1"
command -v ip >/dev/null || skip_all "needs ip (iproute2)"
NS="rp$$"
ip netns add "${NS}probe" 2>/dev/null || skip_all "cannot make network namespaces"
ip netns del "${NS}probe"

# 10.213.<node>.1 the controller's end, .2 the node's
NODES=4 NET=10.213
ns_cleanup() {
	for i in $(seq $NODES); do
		ip netns del "${NS}n$i" 2>/dev/null
		ip link del "${NS}h$i" 2>/dev/null
	done
}
trap 'tap_cleanup; ns_cleanup' EXIT
for i in $(seq $NODES); do
	ip netns add "${NS}n$i" &&
		ip link add "${NS}h$i" type veth peer name eth0 netns "${NS}n$i" &&
		ip addr add "$NET.$i.1/24" dev "${NS}h$i" &&
		ip link set "${NS}h$i" up &&
		ip -n "${NS}n$i" addr add "$NET.$i.2/24" dev eth0 &&
		ip -n "${NS}n$i" link set eth0 up &&
		ip -n "${NS}n$i" link set lo up ||
		skip_all "cannot link network namespaces"
done

plan 7
# NodeLease: 8s - 3s = 5s; a short cut lasts 2s, a long one 12s
HEARTBEAT=1s NODE_TIMEOUT=8s KILL_WAIT=1s
SHORT=2 LONG=12
mkdir -p "$CL"
: >"$CL/pids"
cluster_start_munge || { echo "Bail out! munged did not start"; exit 1; }
cluster_write_conf
sed -i -e "s/^CtldAddr=.*/CtldAddr=0.0.0.0/" \
	-e "s/^NodeName=.*/NodeName=n[01-0$NODES] Addr=$NET.[1-$NODES].2/" \
	"$CL/rota.conf"
cluster_start_ctld || { echo "Bail out! rota-ctld did not start"; exit 1; }
PORT=${ROTA_CTLD##*:}
export ROTA_CTLD="127.0.0.1:$PORT"
set -- $NODE_TOPOS
for i in $(seq $NODES); do
	ip netns exec "${NS}n$i" "$BIN/rota-noded" -f "$CL/rota.conf" \
		-n "n0$i" --topology "$TOPO/$1" --ctld "$NET.$i.1:$PORT" \
		>>"$CL/log/n0$i.log" 2>&1 &
	echo $! >>"$CL/pids"
	shift
done
wait_for cluster_all_up
ok $? "four node daemons in namespaces of their own registered"

W="$T/work"
mkdir -p "$W" && chmod 0777 "$W"
cat >"$W/job.sh" <<'EOF'
#!/bin/bash
# ticks for 14 seconds, longer than NodeTimeout, so that a run left alive
# by a cut would still tick when the controller starts the next one:
# "<node>:<pid> <time>", one line each
end=$((SECONDS + 14))
while [ "$SECONDS" -lt "$end" ]; do
	printf '%s:%s %s\n' "$ROTA_NODELIST" "$$" "$EPOCHREALTIME" \
		>>"ticks.$ROTA_JOB_ID"
	sleep 0.2
done
EOF
chmod 0755 "$W/job.sh"
cd "$W" || exit 1

# the load: a job every 0.8s until told to stop
submitter() {
	while [ ! -e "$W/stop" ]; do
		as rotatest1 rota submit -n 4 -t 5 ./job.sh >>"$W/ids" 2>>"$W/submit.err"
		sleep 0.8
	done
}
submitter &
load=$!

node_state() { rota nodes --noheader | awk -v n="$1" '$1 == n { print $2 }'; }
# the node running most jobs now (a long cut there has most to requeue)
busiest() {
	rota queue --noheader -t R | awk '{ c[$NF]++ }
		END { for (n in c) if (c[n] > m) { m = c[n]; b = n }; print b }'
}
cuts=0 long=0 downs=0
for round in 1 2 3 4; do
	for kind in short long; do
		i=$(( (cuts % NODES) + 1 ))
		b=$(busiest)
		[ $kind = short ] || [ -z "$b" ] || i=${b#n0}
		echo "# $(date +%T.%N) $kind cut of n0$i"
		ip link set "${NS}h$i" down
		if [ $kind = short ]; then
			sleep $SHORT
		else
			sleep $LONG
			long=$((long + 1))
			[ "$(node_state "n0$i")" = DOWN ] && downs=$((downs + 1))
		fi
		ip link set "${NS}h$i" up
		echo "# $(date +%T.%N) healed"
		cuts=$((cuts + 1))
		WAIT_TIMEOUT=40 wait_until "[ \"\$(node_state n0$i)\" = UP ]"
	done
done
touch "$W/stop"
wait $load
is "$downs" "$long" "each long cut set its node down ($long of $long)"

# every job ends, COMPLETED
njobs=$(wc -l <"$W/ids")
all_done() {
	[ "$(rota queue --noheader | wc -l)" -eq 0 ]
}
WAIT_TIMEOUT=90 wait_for all_done
ok $? "all $njobs jobs ended"
failed=0
for id in $(cat "$W/ids"); do
	[ "$(job_state "$id")" = COMPLETED ] || failed=$((failed + 1))
done
is "$failed" 0 "every job COMPLETED, whatever its node went through"
is "$(wc -c <"$W/submit.err")" 0 "no submit failed"

# runs of one job never overlap: per job, each run's first and last tick
read -r runs twice requeued < <(awk '
	{ job = FILENAME; sub(/.*ticks\./, "", job)
	  if (!((job, $1) in first)) { first[job, $1] = $2; nruns[job]++ }
	  last[job, $1] = $2 }
	END {
		for (k in first) {
			split(k, jk, SUBSEP); total++
			for (o in first) {
				split(o, ok, SUBSEP)
				if (ok[1] != jk[1] || o == k) continue
				# two runs of one job overlap in time
				if (first[o] <= last[k] && first[k] <= last[o])
					overlap++
			}
		}
		for (j in nruns) if (nruns[j] > 1) rq++
		print total + 0, overlap / 2, rq + 0
	}' "$W"/ticks.*)
echo "# cuts: $cuts ($long long, $((cuts - long)) short), jobs: $njobs, runs: $runs, jobs run again after a cut: $requeued, ran twice at once: $twice"
is "$twice" 0 "no job ran in two places at once"
[ "$requeued" -gt 0 ]
ok $? "the long cuts made jobs run again elsewhere ($requeued)"
