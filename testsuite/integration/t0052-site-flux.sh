#!/bin/bash
# Flux (seed 002, etc/flux.conf): the six weighted factors with the
# user's urgency, on live daemons; each check names the page's statement
# it holds to.
. "$top_srcdir/testsuite/lib/tap.sh"
. "$top_srcdir/testsuite/lib/site.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 3

# fairshare 1e5 x 1.0 + job size 1000 x 0.375; an urgency of 8
# takes 1600 x (8 - 16) / 16 = 800 off
site flux pbatch || { echo "Bail out! flux"; exit 1; }
j=$J
like "$(prio_of "$j")" '^10037[5-6]\.[0-9]+$' "weights: 100000 + 375 + a little wait time"
k=$(as rotatest1 rota submit -q pbatch --urgency=8 --wrap true)
like "$(prio_of "$k")" '^9957[5-6]\.[0-9]+$' "user factor: a lower urgency lowers it by 800"
like "$(rota prio -H "$k")" ' user=-800$' "user factor: the user term"
