#!/bin/bash
# GWDG (seed 001, etc/gwdg.conf): Slurm's multifactor with GWDG's
# weights, Fair-Tree and partition tiers, on live daemons; each check
# names the page's statement it holds to.
. "$top_srcdir/testsuite/lib/tap.sh"
. "$top_srcdir/testsuite/lib/site.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 2

# queue 1e6 x 20/100 + fairshare 1e5 x 1.0 (Fair-Tree, no usage)
# + job size 1000 x (1/2 nodes + 1/4 cores) / 2 + age 10000 x t / 5d
site gwdg medium || { echo "Bail out! gwdg"; exit 1; }
j=$J
like "$(prio_of "$j")" '^30037[5-6]\.[0-9]+$' "weights: 200000 + 100000 + 375 + a little age"
like "$(rota prio -H "$j")" ' fairshare=1e\+05 jobsize=375 queue=2e\+05 qos=0$' "weights: its terms"
