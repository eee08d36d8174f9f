#!/bin/bash
# Flux (seed 002, etc/flux.conf): the six weighted factors with the
# user's urgency, on live daemons; each check names the page's statement
# it holds to.
. "$top_srcdir/testsuite/lib/tap.sh"
. "$top_srcdir/testsuite/lib/site.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 11
like "$(site_conf_check flux)" ': ok \(' "etc/flux.conf loads as shipped (rota-ctld -t)"

# A pending job of an account with no usage: fairshare 1e5 x 1.0, job
# size 1000 x 1 node / 2, QoS normal 10000 x 5 / 10, queue pbatch 0, wait
# time 1000 x t / 7d (a little), user factor 0 at the default urgency 16
site flux pbatch || { echo "Bail out! flux"; exit 1; }
j=$J
like "$(prio_of "$j")" '^10550[0-1]\.[0-9]+$' \
	"six weighted factors: 100000 + 500 + 5000 + a little wait time"
like "$(rota prio -H "$j")" ' fairshare=1e\+05 jobsize=500 queue=0 qos=5000 user=0$' \
	"job size: the number of nodes (1 of 2), not cores"
# an urgency of 8 takes 1600 x (8 - 16) / 16 = 800 off
k=$(as rotatest1 rota submit -q pbatch --urgency=8 --wrap true)
like "$(prio_of "$k")" '^10470[0-1]\.[0-9]+$' "user factor: a lower urgency lowers it by 800"
like "$(rota prio -H "$k")" ' user=-800$' "user factor: the user term"
out=$(as rotatest1 rota submit -q pbatch --urgency=17 --wrap true 2>&1)
like "$out" 'urgency' "user factor: can only lower a job's priority, not raise it"
s=$(as rotatest1 rota submit -q pbatch --qos=standby --wrap true)
like "$(rota prio -H "$s")" ' qos=0 user=0$' "QoS: standby lowers the priority below normal"

# Fair-share at par: both accounts (1000 shares each) use the same
# core-seconds: two 1-core jobs released in one request (one pass starts
# both), cancelled in one request.  The factor is 2^(-U/S), S = 0.5 and U
# the account's part of all usage, worked out here from rota share.
site_start flux || { echo "Bail out! flux at par"; exit 1; }
a=$(as rotatest1 rota submit -q pbatch --hold --wrap 'sleep 60')
b=$(as rotatest2 rota submit -q pbatch --hold --wrap 'sleep 60')
rota release "$a" "$b"
wait_for job_state_is "$a" RUNNING && wait_for job_state_is "$b" RUNNING
sleep 2
rota cancel "$a" "$b"
wait_for job_is_done "$a" && wait_for job_is_done "$b"
share() { rota share -H | awk -v u="$1" '$2 == u { print $5, $7 }'; }
# by_hand USAGE OTHER: 2^(-(USAGE / (USAGE + OTHER)) / 0.5), as printed
by_hand() { awk -v u="$1" -v o="$2" 'BEGIN { printf "%.6f", 2 ^ (-2 * u / (u + o)) }'; }
ua=$(share rotatest1) ub=$(share rotatest2)
echo "# usage, fairshare: rotatest1 $ua, rotatest2 $ub"
is "${ua#* }" "$(by_hand "${ua% *}" "${ub% *}")" \
	"fair-share: 2^(-U/S) of the usage shown ($ua of ${ub% *})"
if [ "${ua% *}" = "${ub% *}" ]; then
	is "${ua#* } ${ub#* }" "0.500000 0.500000" \
		"fair-share: 0.5 for an account served exactly as its shares"
else
	ok 0 "# SKIP the two jobs were charged different seconds ($ua, $ub)"
fi
# then one account uses more: below 0.5 (over-serviced), the other above
c=$(as rotatest2 rota submit -q pbatch --wrap 'sleep 60')
wait_for job_state_is "$c" RUNNING && sleep 2 && rota cancel "$c"
wait_for job_is_done "$c"
ua=$(share rotatest1) ub=$(share rotatest2)
awk -v f="${ub#* }" 'BEGIN { exit !(f > 0 && f < 0.5) }'
ok $? "fair-share: towards 0.0 over-serviced ($ub)"
awk -v f="${ua#* }" 'BEGIN { exit !(f > 0.5 && f < 1) }'
ok $? "fair-share: towards 1.0 under-serviced ($ua)"
