#!/bin/bash
# A stranger gets little: a thousand hostile connections that announce huge
# frames and trickle or push bytes without a valid credential cost the
# controller a bounded amount of memory, other clients are served all the
# while, connections over MaxConnectionsPerAddr and MaxConnections are
# refused at accept (node daemons still get in), and rota diag counts it all.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge
# a thousand sockets on each side, and the controller's own
ulimit -n 8192 || { echo "1..0 # SKIP cannot raise the open files limit"; exit 0; }

plan 17
NODE_TOPOS="24em64t-2n6c2t-pci.xml 2intel64-1n2c-numaroot.v1tov2.xml"
HEARTBEAT=1s NODE_TIMEOUT=5s
cluster_start "MaxConnections=1250" "MaxConnectionsPerAddr=110" ||
	{ echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"
cd "$T" || exit 1
FLOOD="$top_builddir/testsuite/lib/flood"
pid=$(cat "$CL/ctld.pid")
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$pid/status"; }
counter() { rota diag | awk -v n="$1" '$1 == n { print $2 }'; }
elapsed_ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b - a) * 1000 }'; }
rota submit -o /dev/null --wrap true >/dev/null
rss0=$(rss)

# 1000 from ten addresses, 100 each, announcing a 4 KiB credential and a
# 15 MiB body and trickling a byte a second: held until AuthTimeout (5 s),
# then at it again
srcs=""
for i in $(seq 10); do srcs="$srcs 127.0.1.$i:100"; done
"$FLOOD" "$ROTA_CTLD" 30 trickle $srcs >"$T/flood1.out" 2>&1 &
f1=$!
# 40 that push bodies behind huge headers with no, a bogus or a garbage
# credential, as fast as the controller takes them
"$FLOOD" "$ROTA_CTLD" 30 mix 127.0.4.1:40 >"$T/flood4.out" 2>&1 &
f4=$!
echo "$f4" >>"$CL/pids"
# 150 more from one address: 40 over MaxConnectionsPerAddr
"$FLOOD" "$ROTA_CTLD" 30 trickle 127.0.2.1:150 >"$T/flood2.out" 2>&1 &
f2=$!
echo "$f1" >>"$CL/pids"
echo "$f2" >>"$CL/pids"
held() { [ "$(counter conns_open)" -ge "$1" ] 2>/dev/null; }
WAIT_TIMEOUT=30 wait_for held 1000
ok $? "the controller holds a thousand hostile connections ($(counter conns_open) open)"

# meanwhile other clients are served, quickly, and memory stays put
worst=0 rss_max=$rss0 served=0 open_max=0
for i in $(seq 8); do
	t0=$EPOCHREALTIME
	rota submit -o /dev/null --wrap true >/dev/null && rota queue >/dev/null &&
		served=$((served + 1))
	t1=$EPOCHREALTIME
	ms=$(elapsed_ms "$t0" "$t1")
	[ "$ms" -gt "$worst" ] && worst=$ms
	r=$(rss)
	[ "$r" -gt "$rss_max" ] && rss_max=$r
	o=$(counter conns_open)
	[ "$o" -gt "$open_max" ] && open_max=$o
	sleep 0.5 # pacing the samples, not waiting for an outcome
done
is "$served" 8 "rota submit and rota queue succeed during the flood"
ok $((worst > 2000)) "each pair within 2 s (the slowest took $worst ms)"
echo "# controller RSS before the flood: $rss0 kB, during: at most $rss_max kB"
echo "# connections open at the controller during the flood: up to $open_max"
if ldd "$BIN/rota-ctld" | grep -q libasan; then
	echo "ok 5 # SKIP memory bound not measurable under AddressSanitizer"
	tap_n=$((tap_n + 1))
else
	ok $((rss_max - rss0 > 65536)) \
		"the controller grew less than 64 MB ($rss0 -> $rss_max kB)"
fi

# over MaxConnections: clients are refused at accept with one line, while a
# node daemon that restarts still gets its link back
"$FLOOD" "$ROTA_CTLD" 15 trickle 127.0.3.1:100 127.0.3.2:100 \
	127.0.3.3:100 >"$T/flood3.out" 2>&1 &
f3=$!
echo "$f3" >>"$CL/pids"
WAIT_TIMEOUT=20 wait_until '[ "$(counter refused_max_conns 2>/dev/null)" -gt 0 ] 2>/dev/null'
regs() { grep -c "registered with the controller" "$CL/log/n01.log"; }
r0=$(regs)
cluster_kill9 "$CL/n01.pid"
"$BIN/rota-noded" -f "$CL/rota.conf" -n n01 \
	--topology "$TOPO/24em64t-2n6c2t-pci.xml" --ctld "$ROTA_CTLD" \
	>>"$CL/log/n01.log" 2>&1 &
echo $! >>"$CL/pids"
echo $! >"$CL/n01.pid"
disown $!
WAIT_TIMEOUT=10 wait_until "[ \$(regs) -gt $r0 ]"
ok $? "a node daemon restarted during the flood registers again"

wait "$f1" "$f2" "$f3" "$f4"
echo "# flood of 1000 trickling: $(tail -1 "$T/flood1.out")"
echo "# flood of 40 pushing: $(tail -1 "$T/flood4.out")"
echo "# flood of 150 from one address: $(tail -1 "$T/flood2.out")"
echo "# flood of 300 over the total: $(tail -1 "$T/flood3.out")"
WAIT_TIMEOUT=20 wait_until '[ "$(counter conns_open)" -le 5 ] 2>/dev/null'
ok $? "the hostile connections are gone ($(counter conns_open) open)"
rss2=$(rss)
echo "# controller RSS after the flood: $rss2 kB"
rota queue >/dev/null
ok $? "the controller serves as before"

# a client turned away at the cap hears why, in one line: with the cap
# lowered (a reconfigure takes it) and held full
sed -i 's/^MaxConnections=.*/MaxConnections=50/' "$CL/rota.conf"
rota reconfigure >/dev/null
"$FLOOD" "$ROTA_CTLD" 10 trickle 127.0.5.1:60 >"$T/flood5.out" 2>&1 &
f5=$!
echo "$f5" >>"$CL/pids"
wait_for grep -q '^held' "$T/flood5.out"
err= tries=0
while [ $tries -lt 20 ]; do
	tries=$((tries + 1))
	# without retries (ClientRetry waits out a full cap as a busy one)
	err=$(ROTA_CLIENT_RETRY=0 rota queue 2>&1 >/dev/null) && continue
	case $err in *MaxConnections*) break ;; esac
done
like "$err" "^rota queue: too many connections \\(MaxConnections\\)" \
	"a client over the total cap gets one line (try $tries): $err"
wait "$f5"

diag=$(rota diag)
c() { echo "$diag" | awk -v n="$1" '$1 == n { print $2 }'; }
echo "# rota diag: conns_accepted $(c conns_accepted) refused_max_conns $(c refused_max_conns) refused_per_addr $(c refused_per_addr) preauth_too_large $(c preauth_too_large) preauth_timeouts $(c preauth_timeouts) auth_refused $(c auth_refused)"
ok $(($(c conns_accepted) < 1000)) "rota diag counts the connections accepted ($(c conns_accepted))"
ok $(($(c refused_per_addr) < 1)) "and those over MaxConnectionsPerAddr ($(c refused_per_addr))"
ok $(($(c refused_max_conns) < 1)) "and those over MaxConnections ($(c refused_max_conns))"
ok $(($(c preauth_too_large) < 1)) "and the frames too large before authentication ($(c preauth_too_large))"
ok $(($(c preauth_timeouts) < 1)) "and the deadlines missed ($(c preauth_timeouts))"
ok $(($(c auth_refused) < 1)) "and the bad credentials ($(c auth_refused))"
like "$(echo "$diag" | grep '^started_at')" \
	"^started_at +[0-9]+ \\([0-9-]+ [0-9:]+ UTC: counters since\\)" \
	"rota diag says since when it counts"
kill -0 "$pid"
ok $? "the controller is still running"
