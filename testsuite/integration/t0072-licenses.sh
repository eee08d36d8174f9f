#!/bin/bash
# Cluster-wide licenses (issue 24, point 6), as Slurm's Licenses=: jobs
# ask with --licenses (or -L, or #ROTA), hold them while they run, and
# a job whose licenses are taken waits with reason Licenses while the
# queue goes on past it; the end of a holder lets it start; rota show
# licenses counts them; bad requests are refused at submit with one line.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 12
NODE_TOPOS="24em64t-2n6c2t-pci.xml 24em64t-2n6c2t-pci.xml"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1
cluster_start "Licenses=matlab:2,ansys:1" ||
	{ echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up with Licenses=matlab:2,ansys:1"

refused() { # WANT-STATUS WANT-LINE ARGS...
	local st want=$1 line=$2 out
	shift 2
	out=$(as rotatest1 rota submit "$@" --wrap true 2>&1)
	st=$?
	is "$st $(wc -l <<<"$out") $out" "$want 1 $line" "refused: $*"
}
refused 1 "rota submit: --licenses: 'fluent' is not a license of this cluster (it has: matlab, ansys)" \
	--licenses=fluent:1
refused 1 "rota submit: --licenses=matlab:3: the cluster has 2" -L matlab:3
refused 2 "rota submit: --licenses 'matlab:x': expected NAME[:N]" \
	-L matlab:x:1

a=$(as rotatest1 rota submit -L matlab:2 --wrap 'sleep 600')
printf '#!/bin/sh\n#ROTA --licenses=matlab:1\nsleep 600\n' >b.sh
b=$(as rotatest1 rota submit b.sh)
c=$(as rotatest1 rota submit -L ansys --wrap 'sleep 600')
wait_until "[ \"\$(job_state $c)\" = RUNNING ]"
is "$(job_state "$a")" RUNNING "matlab:2: runs"
is "$(rota show job "$b" | grep '^Reason=')" "Reason=Licenses" \
	"#ROTA --licenses=matlab:1 while both are taken: waits, reason Licenses"
ok 0 "the job after it (ansys:1) started: the queue went on"
is "$(rota show licenses | tr -s ' \n' ' ')" \
	"LicenseName=matlab Total=2 Used=2 Free=0 LicenseName=ansys Total=1 Used=1 Free=0 " \
	"rota show licenses: taken and free"
is "$(rota show --json licenses)" \
	'{"licenses":[{"name":"matlab","total":2,"used":2},{"name":"ansys","total":1,"used":1}]}' \
	"rota show --json licenses"
rota cancel "$a"
wait_until "[ \"\$(job_state $b)\" = RUNNING ]"
ok $? "the holder ends: the waiting job gets its license and runs"
is "$(rota show licenses | sed -n '2p' | tr -s ' ')" " Total=2 Used=1 Free=1" \
	"matlab: 1 of 2 taken"

# ---- the journal keeps them: a controller killed and started again ----
cluster_kill_ctld
cluster_restart_ctld
wait_for cluster_all_up
is "$(rota show licenses | tr -s ' \n' ' ')" \
	"LicenseName=matlab Total=2 Used=1 Free=1 LicenseName=ansys Total=1 Used=1 Free=0 " \
	"after a controller restart the running jobs hold their licenses still"
