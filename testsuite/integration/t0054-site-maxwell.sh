#!/bin/bash
# Maxwell (seed 004, etc/maxwell.conf): Grid Engine's urgency and
# share-tree tickets, cores kept for t and u, on live daemons, and the
# page's waiting-time crossovers through rota sim on a virtual clock;
# each check names the page's statement it holds to.
. "$top_srcdir/testsuite/lib/tap.sh"
. "$top_srcdir/testsuite/lib/site.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 34

# "We keep some cpus free for t and u jobs": etc/maxwell.conf keeps 2 of
# each 40-core node's cores.  The local nodes have 2 cores, where 2 would
# leave s nothing: the policy lines run with ReservedCores=1 (1 of 2 kept,
# for t and u together), every other line as the file has it.
is "$(grep -c '^QueueName=[tu] .*ReservedCores=2\b' "$top_srcdir/etc/maxwell.conf")" 2 \
	"kept cores: etc/maxwell.conf keeps 2 cores for t and for u"
SITE_EDIT='s/ReservedCores=2\b/ReservedCores=1/'

# ---- priority = nurg x 0.5 + ntckts x 0.5, no POSIX priority term ----

# one pending job of rotatest1 (photon, 2 shares) in t (1 slot: 40100
# and a little), behind the other user's blocker (theory, 1 share),
# running in t on 4 slots (40400 and a little more): Grid Engine's range
# takes the running job in, so the pending job is its minimum, nurg 0.
# Tickets as Grid Engine deals them: the running job, alone among running
# jobs, 10000; the pending one 10000 x stt(photon), at least its share
# 2/3 (theory's usage only grows it), so ntckts = tickets / 10000 and the
# priority 0.5 x 0 + 0.5 x ntckts + 0 x npprior.
site maxwell t || { echo "Bail out! maxwell"; exit 1; }
j=$J
like "$(rota prio | head -1)" 'WeightUrgency=0\.5 WeightTicket=0\.5 WeightPriority=0 ' \
	"priority = nurg x 0.5 + ntckts x 0.5: rota prio's weights"
tk=$(rota prio -l "$j" | grep -E '^ +tickets ')
tk_raw=$(sed -E 's/.* raw=([0-9.]+) .*/\1/' <<<"$tk")
tk_norm=$(sed -E 's/.* norm=([0-9.]+) .*/\1/' <<<"$tk")
ok "$(awk -v r="$tk_raw" -v n="$tk_norm" 'BEGIN { d = n - r / 10000
	print !(r >= 6666 && r < 9999 && d * d < 1e-8) }')" \
	"tickets: the pending job's 10000 x stt(photon), in [6666, 9999) as theory runs, ntckts over the running job's 10000 ($tk)"
is "$(prio_of "$j")" "$(awk -v n="$tk_norm" 'BEGIN { printf "%.4f", 0.5 * n }')" \
	"priority: one job by hand, 0.5 x 0 + 0.5 x ntckts + 0 (the running job's urgency in the range)"
like "$(rota prio -l "$j" | grep -E '^ +priority ')" ' weight=0 +value=0$' \
	"no POSIX priority term: its weight and value are 0"
# sge_share_mon's view, with the scheduler's targets: both users have
# jobs, so long-term 2/3 and 1/3 (photon 2, theory 1 shares); among
# running jobs only rotatest2 (theory): its running-pass target is 1
t1=$(rota share -T -H | awk '$2 == "rotatest1" { print $6, $8 }')
t2=$(rota share -T -H | awk '$2 == "rotatest2" { print $6, $8 }')
is "$t1 / $t2" "0.666667 0.000000 / 0.333333 1.000000" \
	"rota share -T: long-term targets 2/3 and 1/3, running-pass targets 0 and 1 (photon pending, theory running)"
like "$(rota prio -l "$j" | grep 'urgency.slots')" 'raw=1 ' \
	"rrcontr: slots requested x 100 (1 slot)"
like "$(rota prio -l "$j" | grep 'urgency.queue')" 'raw=40000 ' \
	"rrcontr: 40000 if going to a t queue"
u=$(as rotatest1 rota submit -q u --wrap true)
like "$(rota prio -l "$u" | grep 'urgency.queue')" 'raw=80000 ' \
	"rrcontr: 80000 if going to a u queue"
is "$(rota prio -H | awk '$7 == "qw" { print $1 }' | tr '\n' ' ')" "$u $j " \
	"jobs going to the U queue have a higher urgency than jobs going to the T queue"

# ---- rota prio as qstat -urg, -pri and -ext show it ----

# Grid Engine rates running jobs too and shows them, with held ones
# (hqw: rated 0, no figures).  On the cluster above: the blocker runs
# (rotatest2, 4 slots in t), $u and $j wait, and $h is held.
h=$(as rotatest1 rota submit -q t --hold --wrap true)
is "$(rota prio -H | head -n 1 | awk '{ print $1, $7 }')" "$blocker r" \
	"rota prio lists the running job first, state r (as qstat)"
is "$(rota prio -H "$h" | awk '{ print $6, $7, NF }')" "- hqw 7" \
	"a held job: state hqw, no priority, no terms"
like "$(rota prio --json)" '"rates_all":true,.*"state":"running".*"department":"defaultdepartment","state":"held"\}\]\}$' \
	"rota prio --json: rows carry their state (and, rated by sge, their department)"
urg=$(rota prio --urg -H)
echo "$urg" | sed 's/^/# /'
# row ID: the job's line in rota prio --urg
row() { echo "$urg" | awk -v id="$1" '$1 == id'; }
like "$(row "$blocker")" "^$blocker +[0-9.]+ +[0-9.]+ +[0-9]+ +40400 +[0-9]+ +0 +rotatest2 +r +t +4$" \
	"--urg: the running job: rrcontr 4 x 100 + 40000, dlcontr 0, 4 slots"
like "$(row "$j")" "^$j +[0-9.]+ +0\.00000 +[0-9]+ +40100 +[0-9]+ +0 +rotatest1 +qw +t +1$" \
	"--urg: the t job: rrcontr 1 x 100 + 40000, the range's lowest urgency: nurg 0"
like "$(row "$h")" "^$h +- +rotatest1 +hqw +t +-$" "--urg: the held job has no figures"
# urg = rrcontr + wtcontr + dlcontr, and nurg = (urg - lowest) / (highest
# - lowest) over the running and pending jobs: the running job in t
# between the t job (lowest) and the u job (highest)
by_hand=$(echo "$urg" | awk -v b="$blocker" -v j="$j" -v u="$u" '
	$1 == b { nurg = $3; x = $4 } $1 == j { lo = $4 } $1 == u { hi = $4 }
	$2 != "-" && $4 != $5 + $6 + $7 { bad = bad " " $1 }
	END { d = nurg - (x - lo) / (hi - lo); if (d < 0) d = -d
	      printf "%s %s", (d < 2e-5 ? "nurg ok" : "nurg " nurg " want " (x - lo) / (hi - lo)), \
		(bad ? "urg !=" bad : "urg ok") }')
is "$by_hand" "nurg ok urg ok" \
	"--urg by hand: urg = rrcontr + wtcontr + dlcontr; the running job's nurg = (urg - lowest) / (highest - lowest)"
pri=$(rota prio --pri -H)
echo "$pri" | sed 's/^/# /'
is "$(echo "$pri" | awk '$2 != "-" {
	d = $2 - (0.5 * $3 + 0.5 * $5); if (d < 0) d = -d
	n++; if (d < 2e-5 && $4 == "0.50000" && $6 == 0) k++ }
	END { print k + 0 "/" n + 0 }')" 3/3 \
	"--pri by hand: prior = 0.5 x nurg + 0.5 x ntckts + 0 x npprior; npprior 0.5 for ppri 0 (3 rated jobs)"
ext=$(rota prio --ext -H)
echo "$ext" | sed 's/^/# /'
is "$(echo "$ext" | awk '$2 != "-" { n++; t[n] = $4; nt[n] = $3
	if ($4 > max) max = $4; if ($7 == $4 && $5 == 0 && $6 == 0) k++ }
	END { for (i = 1; i <= n; i++) { d = nt[i] - (max ? t[i] / max : 0)
	      if (d < 0) d = -d; if (d > 2e-4) k-- }
	      print k + 0 "/" n + 0 }')" 3/3 \
	"--ext: tickets are share-tree tickets (stckt), otckt and ftckt 0, ntckts = tckts / the most any job holds"
# Grid Engine's qalter -ot: only operators give a job override tickets;
# they add to its share-tree tickets, and ntckts normalizes the sum
err=$(as rotatest1 rota update job "$j" OTickets=5000 2>&1)
like "$err" 'only operators may set override tickets' \
	"override tickets: a user may not give its job some (qalter -ot is for operators)"
st=$(rota prio --ext -H "$j" | awk '{ print $7 }')
rota update job "$j" OTickets=5000 >/dev/null
ext=$(rota prio --ext -H "$j")
echo "$ext" | sed 's/^/# /'
is "$(echo "$ext" | awk '{ print $5, $4 - $7 }')" "5000 5000" \
	"override tickets: an operator's 5000 show as OTCKT, and TCKTS = OTCKT + STCKT"
ok "$(echo "$ext" | awk -v st="$st" '{ print !($3 == "1.00000" && $7 > 0) }')" \
	"override tickets: with 5000 more than any other job's tickets, its ntckts is 1"
like "$ext" " rotatest1 +photon +defaultdepartment +qw +t +1$" \
	"--ext: PROJECT and DEPARTMENT as qstat -ext shows them (the account; a user named on no DepartmentName= line is in defaultdepartment)"

# Grid Engine's initiation deadline (qsub -dl): only deadlineusers and
# operators may set one; it adds WeightDeadline (3600000) / seconds
# left: an hour ahead, 1000 (a little more as it nears)
like "$(as rotatest2 rota submit -q t --dl=now+1h --wrap true 2>&1)" \
	"^rota submit: --dl: user 'rotatest2' is not in DeadlineUsers: only those users and operators may set an initiation deadline$" \
	"--dl: a user not in DeadlineUsers is refused, in one line"
d=$(rota submit -q t --dl=now+1h --wrap true)
is "$(rota prio --urg -H | awk -v d="$d" '$1 == d { print ($7 >= 1000 && $7 < 1002) ? "ok" : $7 }')" ok \
	"--dl=now+1h by an operator: dlcontr 3600000 / 3600 s left = 1000"

# ---- cores kept for t and u ----

site_start maxwell || { echo "Bail out! maxwell"; exit 1; }
err=$(as rotatest1 rota submit -q s -n 3 --wrap true 2>&1)
like "$err" "more cores than queue 's' may use: 1 of each node's 2 cores are kept for queues t,u \(ReservedCores\)" \
	"kept cores: an s job wider than the cores outside them is refused, naming them"
s1=$(as rotatest2 rota submit -q s -n 2 -t 10 --wrap 'sleep 60')
wait_for job_state_is "$s1" RUNNING
s2=$(as rotatest1 rota submit -q s -n 1 -t 10 --wrap 'sleep 60')
wait_until "[ \"\$(rota show job $s2 | sed -n 's/^Reason=//p')\" = Resources ]"
is "$(job_state "$s2")" PENDING "kept cores: an s job does not get them, however idle"
like "$(rota why "$s2")" 'waits for Resources\. 1 core of node n0[12] is free but kept for queues t,u \(ReservedCores\)' \
	"kept cores: rota why names them as what the s job waits for"
t1=$(as rotatest1 rota submit -q t -n 1 -t 10 --wrap 'sleep 60')
u1=$(as rotatest1 rota submit -q u -n 1 -t 10 --wrap 'sleep 60')
wait_for job_state_is "$t1" RUNNING
ok $? "kept cores: a t job runs in them"
wait_for job_state_is "$u1" RUNNING
ok $? "kept cores: a u job runs in them beside it"

# ---- the crossovers, by rota sim on a virtual clock ----

# "A job submitted to the s64 queue will have to wait 34 hours before it
# has higher priority than a job just submitted to the t2 queue and 74
# hours before ... the u2 queue": urgency 64 x 100 + 0.278 w against 2 x
# 100 + 40000 (t) or 80000 (u) + 0.278 w', w - w' the gap between their
# submits: s64 leads once the gap passes 33800 / 0.278 = 121582.7 s
# (33.8 h), 73800 / 0.278 = 265467.6 s (73.7 h) for u.  One node of 64
# cores, one user (tickets follow the order: with two jobs the more
# urgent gets nurg 1 and, dealt first, the most tickets): a 64-core s job
# holds it until 300000 s; s64 is submitted at 1, t2 or u2 (SWF queue
# 2 or 3: --queues maps them to t and u) at 1 + the gap; when the
# blocker ends only one of them fits, the one of higher priority.  The
# kept cores would start t2 and u2 at once beside anything: the sim
# leaves them out (ReservedCores=0) so that priority alone decides.
W="$T/sim"
mkdir -p "$W" && cd "$W" || exit 1
{
	echo "NodeName=sim CPUs=64"
	site_policy maxwell | sed -E 's/ReservedCores=[0-9]+/ReservedCores=0/'
	grep '^PluginDir=' "$ROTA_CONF"
} >sim.conf
# crossover QUEUE GAP: "s64 first" or "x2 first"
crossover() {
	{
		echo "; MaxProcs: 64"
		echo "1 0 -1 300000 64 -1 -1 64 300000 -1 1 1 1 -1 1 -1 -1 -1"
		echo "2 1 -1 100 64 -1 -1 64 100 -1 1 1 1 -1 1 -1 -1 -1"
		echo "3 $((1 + $2)) -1 100 2 -1 -1 2 100 -1 1 1 1 -1 $1 -1 -1 -1"
	} >"q$1-$2.swf"
	rota sim -q --queues --trace "q$1-$2.swf" --config sim.conf \
		--csv "q$1-$2.csv" >"q$1-$2.out" 2>&1 || return 1
	awk -F, '$1 == 2 { s = $3 } $1 == 3 { x = $3 }
		END { print (s < x ? "s64" : "x2") " first" }' "q$1-$2.csv"
}
is "$(crossover 2 121500)" "x2 first" \
	"s64 waits 34 hours before it has higher priority than t2: not at 33.75 h"
is "$(crossover 2 121700)" "s64 first" \
	"s64 waits 34 hours before it has higher priority than t2: it has at 33.81 h"
is "$(crossover 3 265400)" "x2 first" \
	"s64 waits 74 hours before it has higher priority than u2: not at 73.72 h"
is "$(crossover 3 265550)" "s64 first" \
	"s64 waits 74 hours before it has higher priority than u2: it has at 73.76 h"
