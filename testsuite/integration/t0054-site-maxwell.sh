#!/bin/bash
# Maxwell (seed 004, etc/maxwell.conf): Grid Engine's urgency and
# share-tree tickets, cores kept for t and u, on live daemons; each check
# names the page's statement it holds to.
. "$top_srcdir/testsuite/lib/tap.sh"
. "$top_srcdir/testsuite/lib/site.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 3

# one pending job: normalized urgency 0.5 x 0.1, all tickets 1.0 x 0.01,
# POSIX priority 0 -> 1023/2047 x 1.0
site maxwell t || { echo "Bail out! maxwell"; exit 1; }
j=$J
is "$(prio_of "$j")" 0.5598 "priority: 0.05 + 0.01 + 0.499756"
like "$(rota prio -l "$j" | grep 'urgency.queue')" 'raw=40000 ' \
	"urgency: the t queue's urgency of 40000"
like "$(rota share -l -H | awk '$2 == "rotatest1"')" ' 10000\.0 +1 +0$' \
	"tickets: its user holds all 10000 tickets"
