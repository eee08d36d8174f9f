#!/bin/bash
# A whole-queue rota prio is written in slices, walking the pending list
# itself with a cursor the core keeps valid (issue 23, ctld/stream.h):
# with jobs cancelled and submitted between its slices, every job pending
# from before the listing to after it is listed, once, in the queue's
# order.  The cancels hit jobs the listing has not reached yet and jobs
# it has passed, and the job the cursor stands on.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 7
cluster_start || { echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1

N=20000
"$top_builddir/bench/held_fill" "$ROTA_CTLD" $N 2
ok $? "$N held jobs queued"
rota prio -H | awk '{ print $1 }' >before
is "$(wc -l <before)" $N "rota prio lists them"

# every third job cancelled while the listing is written, in an order
# spread over the queue (ahead of the cursor and behind it), a new held
# job submitted after each cancel
awk 'NR % 3 == 0 { srand(NR); print rand(), $1 }' before | sort -n |
	awk '{ print $2 }' >cancel
"$top_builddir/testsuite/lib/prio_walk" "$ROTA_CTLD" <cancel >listed 2>walk.err
ok $? "the listing came back ($(cat walk.err))"
rota prio -H | awk '{ print $1 }' >after
# the jobs that stayed, in the queue's order
awk 'NR == FNR { b[$1] = 1; next } $1 in b' before after >stayed
changes=$(sed -n 's/.*: \([0-9]*\) cancels and submits while listing/\1/p' walk.err)
gone=$(awk 'NR == FNR { a[$1] = 1; next } !($1 in a)' after before | tr '\n' ' ')
seen=$(for j in $gone; do grep -cx "$j" listed; done | sort | uniq -c | tr '\n' ' ')
ok "$([ "${changes:-0}" -ge 1 ] && echo 0 || echo 1)" \
	"the queue changed while it was written ($changes cancels and submits; $(wc -l <stayed) of $N jobs stayed, $(wc -l <listed) listed; of the cancelled, listed 0/1 times: $seen)"
is "$(awk 'NR == FNR { l[$1] = 1; next } !($1 in l)' listed stayed | wc -l) $(sort listed | uniq -d | wc -l)" \
	"0 0" "every job that stayed is listed, and no job twice"
is "$(awk 'NR == FNR { s[$1] = 1; next } $1 in s' stayed listed | md5sum)" \
	"$(md5sum <stayed)" "in the queue's order"
