#!/bin/bash
# rota top's refreshes send what changed (issue 23): after a first full
# refresh, a refresh that says what it saw carries exactly the jobs a
# submit, a cancel and a hold changed, then the cancelled job as gone
# once it is purged; the model with the deltas applied is a full
# refresh, row for row.  A number from before the controller started
# gets every row, and so does the first after a reconfigure (a new
# core, numbered on); an older rota top's request gets every row and no
# change number.  Held and dependency-waiting jobs only, so that no pass
# changes anything between two refreshes.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 11
export MIN_JOB_AGE=2s
cluster_start || { echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1
td() { "$top_builddir/testsuite/lib/topdelta" "$ROTA_CTLD" "$@"; }
S="$T/top.snap"

h1=$(rota submit --hold -o /dev/null --wrap true)
h2=$(rota submit --hold -o /dev/null --wrap true)
d1=$(rota submit -d "afterok:$h1" -o /dev/null --wrap true)
is "$(td full "$S")" "full change set rows 3" \
	"a first refresh: every row, and a change number"
is "$(td delta "$S" | tr '\n' ' ')" "delta rows - gone - equal " \
	"nothing changed: an empty delta"

h3=$(rota submit --hold -o /dev/null --wrap true)
rota cancel "$h2" >/dev/null
rota hold "$d1" >/dev/null
is "$(td delta "$S" | tr '\n' ' ')" "delta rows $h2,$d1,$h3 gone - equal " \
	"a submit, a cancel, a hold: exactly those rows; the model is a full refresh"

# MinJobAge=2s: the cancelled job leaves the table
wait_until '[ "$(td old)" = "old change 0 rows 3" ]'
ok $? "the cancelled job is purged"
is "$(td delta "$S" | tr '\n' ' ')" "delta rows - gone $h2 equal " \
	"the purged job comes as gone, and the model drops it"

rota release "$d1" >/dev/null
is "$(td delta "$S" | tr '\n' ' ')" "delta rows $d1 gone - equal " \
	"a release of a job still waiting on its dependency: its row alone"

# more changed rows than one loop turn writes: the delta goes in slices
"$top_builddir/bench/held_fill" "$ROTA_CTLD" 300 2 >/dev/null
out=$(td delta "$S")
is "$(echo "$out" | awk 'NR == 1 { printf "%s %d %s ", $1, split($3, a, ","), $5 }
	NR == 2 { print }')" \
	"delta 300 - equal" "300 new jobs: a delta of 300 rows, in slices, the model a full refresh"

rota reconfigure >/dev/null
is "$(td delta "$S" | tr '\n' ' ')" "full rows 303 equal " \
	"after rota reconfigure: every row, the model the same"
is "$(td since 1)" "full rows 303" \
	"a change number from before this controller started: every row"
is "$(td old)" "old change 0 rows 303" \
	"an older rota top's request: every row and no change number"
