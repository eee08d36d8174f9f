#!/bin/bash
# IT4I (seed 000, etc/it4i.conf): PBS's job_sort_formula with IT4I's
# project fairshare ratio and eligible time, on live daemons; each check
# names the page's statement it holds to.
. "$top_srcdir/testsuite/lib/tap.sh"
. "$top_srcdir/testsuite/lib/site.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 3

# 1000 x 0 (qprod) + 1e6 (a project with no usage) / 1000 +
# eligible seconds / 864000
site it4i qprod || { echo "Bail out! it4i"; exit 1; }
j=$J
like "$(rota prio | head -n 1)" '^Priority formula: 1000\*queue_priority \+ fairshare_priority/1000 \+ eligible_time/864000$' \
	"formula: IT4I's job sort formula, verbatim"
like "$(prio_of "$j")" '^1000\.000[0-9]$' "formula: a qprod job of a project with no usage: 1000.0000"
k=$(as rotatest1 rota submit -q qexp --wrap true)
is "$(rota prio -H | head -n 1 | awk '{ print $1 }')" "$k" \
	"queue priority: a qexp job (priority 150) goes ahead"
