#!/bin/bash
# Akka (seed 003, etc/akka.conf): Maui's priority and throttling
# policies, on live daemons; each check names the page's statement it
# holds to.
. "$top_srcdir/testsuite/lib/tap.sh"
. "$top_srcdir/testsuite/lib/site.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 1

# XFactorWeight 100 x ~1 + FSUserWeight 1000 x (0.9 share - 0 usage) x
# 100 + queue minutes (0)
site akka batch || { echo "Bail out! akka"; exit 1; }
j=$J
like "$(prio_of "$j")" '^90100\.0[0-9]+$' "priority: 100 + 90000: expansion factor and fairshare deviation"
