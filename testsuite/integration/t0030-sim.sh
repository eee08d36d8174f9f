#!/bin/bash
# rota sim makes the daemon's decisions: a hand-made trace of ten
# seconds-long jobs (1 to 4 cores, on two nodes of 2 cores, EASY backfill)
# is replayed through real rota-ctld and rota-noded (each job submitted
# at its time with rota submit -n N -t LIMIT --wrap 'sleep RUN') and
# through rota sim with the same rota.conf; the jobs start in the same
# order.  The events of the trace are at least a second apart, so that
# the daemons' sub-second delays (a launch, a backfill pass up to
# Interval later) cannot reorder them.  Also: rota sim's outputs and
# errors on the command line, and --dependencies (SWF fields 17, 18).
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 15
NODE_TOPOS="2intel64-1n2c-numaroot.v1tov2.xml 2intel64-1n2c-numaroot.v1tov2.xml"
KILL_WAIT=1s cluster_start "Sched=backfill Interval=1s Resolution=1s NoCaps=yes" ||
	{ echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"
W="$T/work"
mkdir -p "$W" && cd "$W" || exit 1

# SUBMIT CORES RUN LIMIT, one job a line (trace seconds).  On paper:
# 1 runs 0-6; 2 (4 cores) waits for it, reserved at 1's limit (10);
# 3 and 5 backfill around it; 4 would delay 2 and waits; 2 runs when 1
# ends; then 4, 6... in order as cores free up, 8 and 9 backfilling.
cat >jobs <<'EOF'
0 2 6 10
0 4 3 6
1 1 2 4
1 2 9 12
2 1 2 3
4 3 3 6
8 1 2 4
13 1 2 4
13 2 2 4
16 4 2 4
EOF
{
	echo "; MaxProcs: 4"
	echo "; MaxNodes: 2"
	awk '{ printf "%d %d -1 %d %d -1 -1 %d %d -1 1 1 1 -1 -1 -1 -1 -1\n",
		NR, $1, $3, $2, $2, $4 }' jobs
} >trace.swf
# the simulator cannot ask hwloc: the config spells out the nodes' cores
sed 's/^NodeName=.*/& CPUs=2/' "$ROTA_CONF" >sim.conf

t0=$(date +%s.%N)
ids=""
while read -r sub cores run limit; do
	now=$(date +%s.%N)
	pause=$(echo "$t0 + $sub - $now" | bc)
	case $pause in -* | 0) ;; *) sleep "$pause" ;; esac
	ids="$ids $(rota submit -n "$cores" -t "${limit}s" --wrap "sleep $run")"
done <jobs
for j in $ids; do WAIT_TIMEOUT=90 wait_job_done "$j"; done
# the daemon's start order: by start time, then submit order
n=0
for j in $ids; do
	n=$((n + 1))
	s=$(rota show job "$j" | sed -n 's/^StartTime=//p')
	echo "$(date -d "$s" +%s) $n"
done | sort -k1,1n -k2,2n | awk '{ print $2 }' | tr '\n' ' ' >real.order
ok $([ "$(wc -w <real.order)" -eq 10 ]; echo $?) "the daemons ran all ten jobs"

rota sim -q --trace trace.swf --config sim.conf --csv sim.csv >sim.out 2>sim.err
ok $? "rota sim replays the trace"
awk -F, 'NR > 1 { print $3, $1 }' sim.csv | sort -k1,1n -k2,2n |
	awk '{ print $2 }' | tr '\n' ' ' >sim.order
is "$(cat sim.order)" "$(cat real.order)" "the same start order as the daemons"
like "$(grep '^backfilled' sim.out)" "^backfilled +[1-9]" "the simulator backfilled jobs too"

# the same again: the same bytes
rota sim -q --trace trace.swf --config sim.conf --csv sim2.csv >sim2.out 2>&1
ok $(cmp -s sim.out sim2.out && cmp -s sim.csv sim2.csv; echo $?) "the same output twice"
# gzip and --compare
gzip -c trace.swf >trace.swf.gz
cp sim.conf fifo.conf && sed -i 's/^Sched=backfill.*/Sched=builtin/' fifo.conf
rota sim -q --trace trace.swf.gz --compare sim.conf fifo.conf >cmp.out 2>&1
like "$(grep '^backfilled' cmp.out)" "^backfilled +[1-9][0-9]* +0$" "--compare: a column per config"
# options after --compare's configs are options, not configs; every
# config is checked before the first replay, with no output on failure
err=$(rota sim -q --trace trace.swf.gz --compare sim.conf fifo.conf --csv x.csv 2>&1)
is "$?:$err" "2:rota sim: --compare takes the configs as arguments, and no --config or --csv" \
	"--compare: an option after the configs is read as one"
rota sim -q --trace trace.swf.gz --compare sim.conf fifo.conf --svg x.svg >/dev/null 2>&1
is "$(grep -c '<polyline' x.svg)" 6 "--compare --svg: both configs' lines in one picture"
printf 'Priority=nosuch\n' >bad.conf
out=$(rota sim -q --trace trace.swf.gz --compare sim.conf bad.conf 2>sim.err)
is "$?:$out" "1:" "--compare: a config whose plugin is missing stops the run before any output"
like "$(cat sim.err)" "nosuch.so: no such plugin \(PluginDir= in rota.conf says where plugins are\)$" \
	"a missing plugin's error says where plugins are looked for"
# errors: one line, the file and line named
echo "11 20 -1 x 1 -1 -1 1 5 -1 1 1 1 -1 -1 -1 -1 -1" >>trace.swf
err=$(rota sim --trace trace.swf --config sim.conf 2>&1 >/dev/null)
is "$?:$err" "1:rota sim: trace.swf:13: field 4: 'x' is not a number" "a malformed line is an error naming its line"
like "$(rota sim --lenient --trace trace.swf --config sim.conf | grep malformed)" \
	"malformed +1 lines skipped" "--lenient skips and counts it"
# --dependencies: job 2 (recorded at 0) follows job 1 (0-100) with a
# think time of 30 s, so it runs 130-140; without the option, 0-10
printf '%s\n' "; MaxProcs: 4" \
	"1 0 -1 100 1 -1 -1 1 200 -1 1 1 1 -1 -1 -1 -1 -1" \
	"2 0 -1 10 1 -1 -1 1 200 -1 1 1 1 -1 -1 -1 1 30" >deps.swf
rota sim -q --flat --trace deps.swf >nodeps.out 2>&1
rota sim -q --flat --dependencies --trace deps.swf >deps.out 2>&1
is "$(grep '^makespan' nodeps.out):$(grep -c dependencies nodeps.out)" \
	"makespan      100 s (0-00:01:40):0" "without --dependencies job 2 runs at its recorded time"
is "$(grep -E '^(makespan|dependencies)' deps.out)" \
	"dependencies  1 jobs follow an earlier job (field 17): 1 submitted later than recorded, 0 earlier, 0 at it
makespan      140 s (0-00:02:20)" "--dependencies: job 2 after job 1's end and its think time"
cluster_stop
