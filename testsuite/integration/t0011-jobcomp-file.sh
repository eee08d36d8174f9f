#!/bin/bash
# Job completion records to a file and rota history over them: one JSON
# line per finished job with the right fields, each once (also across a
# controller's kill -9 and restart), filters, --json, and bad settings
# refused with file:line like every other plugin setting.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge
id rotatest1 >/dev/null 2>&1 && id rotatest2 >/dev/null 2>&1 ||
	skip_all "needs users rotatest1 and rotatest2 (scripts/test makes them)"

plan 18
NODE_TOPOS="24em64t-2n6c2t-pci.xml 2intel64-1n2c-numaroot.v1tov2.xml"
cluster_start "JobComp=file" ||
	{ echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up with JobComp=file"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1
J="$CL/state/jobcomp.json"
lines() { [ -f "$J" ] && wc -l <"$J" || echo 0; }

a=$(as rotatest1 rota submit -n 2 --job-name=first --wrap 'sleep 1')
b=$(as rotatest2 rota submit -c 2 --mem-per-cpu=100M --wrap 'exit 3')
c=$(as rotatest1 rota submit --wrap 'sleep 60')
wait_for job_state_is "$c" RUNNING
rota cancel "$c"
wait_job_done "$a"; wait_job_done "$b"; wait_job_done "$c"
wait_until '[ "$(lines)" -eq 3 ]'
ok $? "three jobs ended: three lines in StateDir/jobcomp.json"

rec_a=$(grep "\"id\":$a," "$J")
like "$rec_a" "^\{\"id\":$a,\"cluster\":\"local\",\"name\":\"first\",\"user\":\"rotatest1\",\"uid\":$(id -u rotatest1),\"gid\":$(id -g rotatest1),\"account\":\"root\",\"queue\":\"batch\",\"nodes\":\"n0[12]\",\"cores\":2,\"memory_mb\":0,\"time_limit\":3600,\"submit\":[0-9]+,\"eligible\":[0-9]+,\"start\":[0-9]+,\"end\":[0-9]+,\"exit_code\":0,\"signal\":0,\"state\":\"COMPLETED\",\"priority\":0(\.0)?,\"usage\":[0-9.]+,\"runs\":1,\"cpu_usec\":[0-9]+,\"mem_peak\":[0-9]+,\"@timestamp\":\"[0-9T:-]+Z\",\"tres\":\"cpu=2,node=1\"\}$" \
	"a record has every field, in order"
usage=$(python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(r["usage"] == 2 * (r["end"] - r["start"]) and r["start"] >= r["submit"])' "$rec_a")
is "$usage" True "usage charged: 2 cores x its run time"
like "$(grep "\"id\":$b," "$J")" '"cores":2,"memory_mb":200,' \
	"--mem-per-cpu: memory_mb is what its node held (2 x 100M)"

is "$(rota history -H | wc -l)" 3 "rota history lists the three"
is "$(rota history | head -n 1 | awk '{print $1, $2, $6, $7}')" "JOBID NAME STATE EXIT" "with a header"
is "$(rota history -H -u rotatest1 | awk '{print $1}' | tr '\n' ' ')" "$c $a " "--user, in end order (c was cancelled first)"
is "$(rota history -H -s failed | awk '{print $1, $6, $7}')" "$b FAILED 3:0" "--state, case-insensitive; exit code:signal"
is "$(rota history -H -s CANCELLED,TIMEOUT -A root | awk '{print $1}')" "$c" "--state list and --account"
is "$(rota history -H -S now-1h -E now | wc -l)" 3 "--starttime/--endtime around them"
is "$(rota history -H -E @1 | wc -l)" 0 "a window before them: none"
is "$(rota history --json -u rotatest2 | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d), d[0]["exit_code"], d[0]["state"])')" \
	"1 3 FAILED" "--json: the records as a JSON array"

# kill -9 and restart: the 'recorded' mark is journaled, nothing again
d=$(rota submit --wrap 'true')
wait_job_done "$d"
wait_until '[ "$(lines)" -eq 4 ]'
sleep 1.5 # a tick: the mark reaches the journal
cluster_kill_ctld
cluster_restart_ctld
e=$(rota submit --wrap 'true')
wait_job_done "$e"
wait_until '[ "$(lines)" -eq 5 ]'
is "$(sed 's/^{"id":\([0-9]*\),.*/\1/' "$J" | sort -n | uniq -d)" "" \
	"after kill -9 and a restart no record came twice"

out=$(rota history --bogus 2>&1); rc=$?
is "$out:$rc" "rota history: unknown option '--bogus':2" "an unknown option: one line, exit 2"
out=$(rota history --file "$T/none.json" 2>&1); rc=$?
is "$out:$rc" "rota history: $T/none.json: No such file or directory:1" "a missing file: one line, exit 1"

printf 'PluginDir=%s\nJobComp=file Path=relative.json\n' "$PLUGIN_DIR" >"$T/bad1.conf"
is "$(rota-ctld -t -f "$T/bad1.conf" 2>&1)" \
	"rota-ctld: $T/bad1.conf:2: Path: 'relative.json' is not an absolute path" \
	"JobComp=file with a relative Path: file:line"
printf 'PluginDir=%s\nJobComp=file\nJobComp=file Pathh=/tmp/x\n' "$PLUGIN_DIR" >"$T/bad2.conf"
is "$(rota-ctld -t -f "$T/bad2.conf" 2>&1)" \
	"rota-ctld: $T/bad2.conf:3: Pathh: not a setting of JobComp 'file'" \
	"a misspelt JobComp setting: file:line"
