#!/bin/bash
# Accounts and usage on a real cluster: --account is checked at submit,
# running jobs are charged to their user's account, a Charge=no queue
# charges nothing, rota share shows it, and the usage (a running job's
# included) is all still there after rota-ctld is killed and restarted.
# A broken tree or an unknown plugin stops rota-ctld -t with the line.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 18
NODE_TOPOS="24em64t-2n6c2t-pci.xml 2intel64-1n2c-numaroot.v1tov2.xml"
cluster_start "AccountName=physics Shares=40" "AccountName=chem Shares=60" \
	"AccountName=theory Parent=physics Shares=1" \
	"UserName=rotatest1 Account=physics Shares=3" "UserName=rotatest2 Account=chem" \
	"QueueName=qexp Nodes=ALL Charge=no" "PriorityCalcPeriod=1s" ||
	{ echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1

# usage of USER (core-seconds) in rota share's table
usage_of() { rota share -H | awk -v u="$1" '$2 == u { print $5 }'; }
# is_between X LO HI
is_between() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }

out=$(as rotatest1 rota submit -A chem --wrap true 2>&1)
is "$out" "rota submit: user 'rotatest1' is not in account 'chem' (physics)" \
	"an account the user is not in is refused at submit"
out=$(as rotatest1 rota submit -A nope --wrap true 2>&1)
is "$out" "rota submit: account 'nope' does not exist" "so is an unknown one"

a=$(as rotatest1 rota submit -n 2 --wrap 'sleep 2')
b=$(as rotatest2 rota submit -q qexp -n 4 --wrap 'sleep 2')
wait_job_done "$a"
wait_job_done "$b"
is "$(rota show job "$a" | grep '^Account=')" "Account=physics" \
	"a job without -A is charged to the user's default account"
u1=$(usage_of rotatest1)
is_between "$u1" 3.5 8
ok $? "2 cores for 2 s: about 4 core-seconds charged (got $u1)"
is "$(usage_of rotatest2)" 0 "a Charge=no queue charges nothing"
like "$(rota share | head -n 1)" "^Fairshare fairtree \(native\), usage decay exponential, half-life 7-00:00:00" \
	"rota share names the plugin and the decay"

# a running job when the controller dies is charged for all it ran
c=$(as rotatest2 rota submit --wrap 'sleep 6')
wait_for job_state_is "$c" RUNNING
sleep 2
cluster_kill_ctld
cluster_restart_ctld
WAIT_TIMEOUT=30 wait_job_done "$c"
u1b=$(usage_of rotatest1)
is_between "$u1b" "$(awk -v u="$u1" 'BEGIN { print u * 0.99 }')" "$u1"
ok $? "usage is still there after kill -9 and a restart ($u1 -> $u1b)"
u2=$(usage_of rotatest2)
is_between "$u2" 5 9
ok $? "a job running across the restart: charged once for its 6 s (got $u2)"
like "$(rota share --json)" '^\{"plugin":"fairtree",.*"rows":\[' "rota share --json"
is "$(rota share -T 2>&1; echo "rc=$?")" "rota share: -T: fairshare plugin 'fairtree' computes no targets (Fairshare=sharetree does)
rc=1" "rota share -T under fairtree: one line, exit 1"

# sshare's columns mean what sshare's mean under Fair-Tree.  The tree:
# root > physics 40 (> rotatest1 3, theory 1), chem 60 (> rotatest2);
# both users have used some.  NORMSHARES is among siblings: rotatest1
# 3 / (3 + 1) = 0.75 (of the machine, MACHSHARES, 0.4 x 0.75 = 0.3);
# EFFUSAGE is usage / the parent's: rotatest1 all physics' (theory has
# none), 1; physics and chem split root's; accounts have no FAIRSHARE.
# row NAME: NORMSHARES EFFUSAGE FAIRSHARE MACHSHARES of a user (by
# name) or an account (its own line, where USER is blank: RAWSHARES is
# the 2nd field; a blank FAIRSHARE leaves 12 fields)
row() {
	rota share -l -H | awk -v n="$1" '$2 == n { print $4, $6, $7, $NF }
		$1 == n && $2 ~ /^[0-9]/ { print $3, $5, (NF == 12 ? "fs=blank" : "fs=" $6), $NF }'
}
rota share -l | sed 's/^/# /'
is "$(row rotatest1)" "0.750000 1.000000 $(row rotatest1 | awk '{ print $3 }') 0.300000" \
	"NORMSHARES: the share among siblings (3 of 4); EFFUSAGE: usage / the parent's (1); MACHSHARES: of the machine (0.3)"
like "$(row theory)" '^0\.250000 0\.000000 fs=blank 0\.100000$' \
	"an account below another: 1 of 4 shares, no usage, no FAIRSHARE (Fair-Tree)"
is "$(row physics | awk '{ print $1, $3, $4 }') $(row chem | awk '{ print $1, $3, $4 }')" \
	"0.400000 fs=blank 0.400000 0.600000 fs=blank 0.600000" \
	"first level: NORMSHARES and MACHSHARES alike; accounts' FAIRSHARE blank under fairtree"
is "$(rota share -l -H | awk '($1 == "physics" || $1 == "chem") && $2 ~ /^[0-9]/ { s += $5; n++ }
	$2 == "rotatest2" { e = $6 } END { printf "%d %.5f %s", n, s, e }')" "2 1.00000 1.000000" \
	"EFFUSAGE: physics' and chem's usage over root's add up to 1; rotatest2 has all chem's"
like "$(rota share --json)" '"account":"physics","depth":2,"shares":3\.0,"shares_norm":0\.3[0-9]*,.*"shares_level":0\.75,"usage_level":1\.0,"user":"rotatest1"' \
	"rota share --json: shares_level, usage_level and the machine's shares_norm"

# bad trees and plugins stop the controller before it starts
printf 'AccountName=a Parent=b\nAccountName=b Parent=a\n' >"$T/cycle.conf"
is "$(rota-ctld -t -f "$T/cycle.conf" 2>&1)" \
	"rota-ctld: $T/cycle.conf:1: Parent: account 'a' is its own ancestor (a cycle)" \
	"a cycle in the tree: file, line and key"
printf 'PluginDir=%s\nFairshare=nosuch\n' "$PLUGIN_DIR" >"$T/plugin.conf"
is "$(rota-ctld -t -f "$T/plugin.conf" 2>&1)" \
	"rota-ctld: $PLUGIN_DIR/fairshare/nosuch.so: no such plugin (PluginDir= in rota.conf says where plugins are)" \
	"an unknown fairshare plugin: the file it looked for"
