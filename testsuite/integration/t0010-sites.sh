#!/bin/bash
# The seed sites' configurations (etc/<site>.conf) load and run: each
# site's policy lines (priority, fairshare, queues, QOS, accounts) on a
# local cluster, one job of each rated by rota prio exactly as worked out
# by hand below.  A blocker of the other user keeps the job pending.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 12
NODE_TOPOS="2intel64-1n2c-numaroot.v1tov2.xml 2intel64-1n2c-numaroot.v1tov2.xml"
export CLUSTER_QUEUES=no

# A site's policy: its file less the machine (nodes, addresses, paths),
# queues on all local nodes, its sample users as the test users.
policy() {
	grep -v -E '^(NodeName|ClusterName|CtldAddr|StateDir|SpoolDir|Operators)=' \
		"$top_srcdir/etc/$1.conf" |
		sed -E -e 's/ Nodes=[^ ]+/ Nodes=ALL/' \
			-e 's/\bana\b/rotatest1/' -e 's/\bbob\b/rotatest2/' |
		grep -v -E '^[[:space:]]*(#|$)'
}

# site SITE QUEUE [SUBMIT-ARGS...]: a cluster with SITE's policy, the
# other user's blocker filling it, and a 1-core job of rotatest1 in QUEUE
# pending, its id in $J (not a subshell: the cluster's environment stays).
site() {
	local name=$1 queue=$2
	shift 2
	cluster_stop
	CL="$T/$name"
	mapfile -t lines < <(policy "$name")
	cluster_start "${lines[@]}" >&2 || return 1
	mkdir -p "$CL/w" && chmod 1777 "$CL/w" && cd "$CL/w" || return 1
	blocker=$(as rotatest2 rota submit -q "$queue" -n 4 --wrap 'sleep 60')
	wait_for job_state_is "$blocker" RUNNING || return 1
	J=$(as rotatest1 rota submit -q "$queue" "$@" --wrap true)
}
prio_of() { rota prio -H "$1" | awk '{ print $6 }'; }

# IT4I: 1000 x 0 (qprod) + 1e6 (a project with no usage) / 1000 +
# eligible seconds / 864000
site it4i qprod || { echo "Bail out! it4i"; exit 1; }
j=$J
like "$(rota prio | head -n 1)" '^Priority formula: 1000\*queue_priority \+ fairshare_priority/1000 \+ eligible_time/864000$' \
	"it4i: IT4I's formula, verbatim"
like "$(prio_of "$j")" '^1000\.000[0-9]$' "it4i: a qprod job of a project with no usage: 1000.0000"
k=$(as rotatest1 rota submit -q qexp --wrap true)
is "$(rota prio -H | head -n 1 | awk '{ print $1 }')" "$k" \
	"it4i: a qexp job (priority 150) goes ahead"

# GWDG: queue 1e6 x 20/100 + fairshare 1e5 x 1.0 (Fair-Tree, no usage)
# + job size 1000 x (1/2 nodes + 1/4 cores) / 2 + age 10000 x t / 5d
site gwdg medium || { echo "Bail out! gwdg"; exit 1; }
j=$J
like "$(prio_of "$j")" '^30037[5-6]\.[0-9]+$' "gwdg: 200000 + 100000 + 375 + a little age"
like "$(rota prio -H "$j")" ' fairshare=1e\+05 jobsize=375 queue=2e\+05 qos=0$' "gwdg: its terms"

# Flux: fairshare 1e5 x 1.0 + job size 1000 x 0.375; an urgency of 8
# takes 1600 x (8 - 16) / 16 = 800 off
site flux pbatch || { echo "Bail out! flux"; exit 1; }
j=$J
like "$(prio_of "$j")" '^10037[5-6]\.[0-9]+$' "flux: 100000 + 375 + a little wait time"
k=$(as rotatest1 rota submit -q pbatch --urgency=8 --wrap true)
like "$(prio_of "$k")" '^9957[5-6]\.[0-9]+$' "flux: a lower urgency lowers it by 800"
like "$(rota prio -H "$k")" ' user=-800$' "flux: the user term"

# Akka (Maui): XFactorWeight 100 x ~1 + FSUserWeight 1000 x (0.9 share
# - 0 usage) x 100 + queue minutes (0)
site akka batch || { echo "Bail out! akka"; exit 1; }
j=$J
like "$(prio_of "$j")" '^90100\.0[0-9]+$' "akka: 100 + 90000: expansion factor and fairshare deviation"

# Maxwell (Grid Engine): one pending job: normalized urgency 0.5 x 0.1,
# all tickets 1.0 x 0.01, POSIX priority 0 -> 1023/2047 x 1.0
site maxwell t || { echo "Bail out! maxwell"; exit 1; }
j=$J
is "$(prio_of "$j")" 0.5598 "maxwell: 0.05 + 0.01 + 0.499756"
like "$(rota prio -l "$j" | grep 'urgency.queue')" 'raw=40000 ' \
	"maxwell: the t queue's urgency of 40000"
like "$(rota share -l -H | awk '$2 == "rotatest1"')" ' 10000\.0 +1 +0$' \
	"maxwell: its user holds all 10000 tickets"
