#!/bin/bash
# Job completion records over HTTP to an Elasticsearch-like receiver (a
# small python3 server on 127.0.0.1): each job's record as its document,
# <URL>/<jobid>, with the bearer token; while the receiver is stopped the
# records wait in the spool and arrive afterwards once each, in end order;
# while it hangs (accepts, never answers) the controller keeps scheduling.
# A token file others can read is refused.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge
command -v python3 >/dev/null || skip_all "needs python3"

plan 13
R="$T/recv.log"
recv_start() { # [--hang]: the receiver on $PORT (any port the first time)
	rm -f "$T/recv.port"
	python3 "$top_srcdir/testsuite/lib/receiver.py" --log "$R" \
		--port "${PORT:-0}" --port-file "$T/recv.port" "$@" &
	RECV=$!
	echo $RECV >>"$CL/pids"
	wait_for test -s "$T/recv.port" || return 1
	PORT=$(cat "$T/recv.port")
}
recv_stop() { kill "$RECV"; wait "$RECV" 2>/dev/null; }
got() { [ -f "$R" ] && wc -l <"$R" || echo 0; }
# the job ids the receiver got, in arrival order
ids() { python3 -c 'import json,sys
for l in open(sys.argv[1]): print(json.loads(l)["body"]["id"], end=" ")' "$R"; }

mkdir -p "$CL"; : >"$CL/pids"
recv_start || { echo "Bail out! receiver did not start"; exit 1; }
echo "secret-token-42" >"$T/token"; chmod 600 "$T/token"
cluster_start "JobComp=http URL=http://127.0.0.1:$PORT/rota-jobs/_doc/ TokenFile=$T/token Timeout=2s Retry=1s" ||
	{ echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up with JobComp=http"
cd "$T" || exit 1

a=$(rota submit --wrap 'exit 2')
wait_job_done "$a"
wait_until '[ "$(got)" -ge 1 ]'
read -r method path auth state exit <<<"$(python3 -c 'import json,sys
r = json.loads(open(sys.argv[1]).readline())
print(r["method"], r["path"], r["auth"].replace(" ", "_"), r["body"]["state"], r["body"]["exit_code"])' "$R")"
is "$method $path" "POST /rota-jobs/_doc/$a" "POSTed to URL/<jobid>: the job id is the document id"
is "$auth" "Bearer_secret-token-42" "with the bearer token from TokenFile"
is "$state $exit" "FAILED 2" "the record's fields"

# the receiver goes away; three jobs end one after the other
recv_stop
b=$(rota submit --wrap 'true'); wait_job_done "$b"
c=$(rota submit --wrap 'exit 1'); wait_job_done "$c"
d=$(rota submit --wrap 'true'); wait_job_done "$d"
wait_for grep -q "records kept in the spool" "$CL/log/ctld.log"
sleep 2 # a few retries
is "$(grep -c "records kept in the spool" "$CL/log/ctld.log")" 1 \
	"the controller says the endpoint is down, once, not per retry"
is "$(wc -l <"$CL/state/jobcomp-http.spool")" 3 "the three records wait in StateDir/jobcomp-http.spool"
recv_start
WAIT_TIMEOUT=30 wait_until '[ "$(got)" -ge 4 ]'
sleep 2 # anything more that would come
is "$(ids)" "$a $b $c $d " "back: every record arrived once, in end order"
wait_for test ! -s "$CL/state/jobcomp-http.spool"
ok $? "and the spool is empty again"

# the receiver hangs: the controller goes on scheduling
recv_stop
recv_start --hang
e=$(rota submit --wrap 'true'); wait_job_done "$e"
f=$(rota submit --wrap 'echo still here'); wait_job_done "$f"
is "$(job_state "$f")" COMPLETED "with the endpoint hanging, jobs still start and end"
out=$(timeout 5 rota queue --all 2>&1 | grep -c .)
[ "$out" -ge 2 ]
ok $? "and the controller answers at once"
wait_for grep -q "Timeout was reached\|timed out" "$CL/log/ctld.log"
ok $? "the hung request times out (Timeout=2s) and is retried"
recv_stop
recv_start
WAIT_TIMEOUT=30 wait_until '[ "$(got)" -ge 6 ]'
sleep 2
is "$(ids)" "$a $b $c $d $e $f " "after the hang, e and f arrive, once each, in order"

chmod 644 "$T/token"
printf 'PluginDir=%s\nJobComp=http URL=http://127.0.0.1:1/x/_doc TokenFile=%s\n' "$PLUGIN_DIR" "$T/token" >"$T/bad.conf"
is "$(rota-ctld -t -f "$T/bad.conf" 2>&1)" \
	"rota-ctld: $T/bad.conf:2: TokenFile: '$T/token' must be a file only its owner (root) can read: chmod 600" \
	"a token file others can read is refused with file:line"
