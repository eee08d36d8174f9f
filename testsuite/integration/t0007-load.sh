#!/bin/bash
# Load: many clients submitting and listing at once against a controller
# with many node daemons: no request fails.  (bench/load runs the full
# 200 clients x 50 nodes x 60 s and reports latencies and memory.)
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 3
NODE_TOPOS=$(for i in $(seq 10); do echo 2intel64-1n2c-numaroot.v1tov2.xml; done | tr '\n' ' ')
cluster_start || { echo "Bail out! cluster did not start"; exit 1; }
ok 0 "ten node daemons up"
cd "$T" || exit 1
out=$("$top_builddir/testsuite/lib/loadgen" "$ROTA_CTLD" 20 8)
rc=$?
ok $rc "20 clients for 8 s, none failed: $out"
kill -0 "$(cat "$CL/ctld.pid")"
ok $? "the controller is still running"
