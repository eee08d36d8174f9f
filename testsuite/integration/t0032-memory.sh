#!/bin/bash
# --mem as a hard limit (ConstrainRAMSpace=yes, the default): a job runs in
# a memory cgroup of its own with its share as the limit; past it the
# kernel kills it and it ends OUT_OF_MEMORY (ExitCode 0:9), reason
# OutOfMemory; a job within its limit completes; a job without --mem has a
# memory cgroup too, without a limit; what a job left behind outside its
# process group goes with it; its cgroup is removed when it ends.  On the v1
# memory controller (t0036-contain.sh covers every job's cgroup).
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge
mem_mount=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/self/mounts)
[ -n "$mem_mount" ] || skip_all "no cgroup v1 memory controller mounted"
command -v python3 >/dev/null || skip_all "needs python3"

plan 9
NODE_TOPOS="2intel64-1n2c-numaroot.v1tov2.xml 2intel64-1n2c-numaroot.v1tov2.xml"
cluster_start || { echo "Bail out! cluster did not start"; exit 1; }
# limits may be off here for a reason of the host's (a container's view)
grep -q 'jobs in v1 cgroups.*memory limits on' "$CL"/log/n01.log ||
	skip_all "the node daemon has no v1 memory limits: $(grep -m1 'cgroups' "$CL"/log/n01.log)"
# the memory cgroups' base comes first in the log line
base=$(sed -n 's/.* jobs in v1 cgroups in \(.*\/rota\) (and alike).*/\1/p' \
	"$CL"/log/n01.log | head -n 1)
[ -d "$base" ] && case $base in */memory/*) ;; *) false ;; esac ||
	skip_all "the node daemon found no memory cgroup it may use"
ok 0 "cluster up, with memory limits"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1

# the memory cgroup the job ran in, as the job printed it; its directory
cg_of() { sed -n 's/^[0-9]*:[^:]*memory[^:]*://p' "$1"; }
cg_dir() { echo "$base/${1##*/rota/}"; }
alloc() { echo "python3 -c 'b = bytearray($1 << 20); print(\"got\", len(b) >> 20)'"; }

a=$(as rotatest1 rota submit --mem=64M -o a.out --wrap "$(alloc 300); echo survived")
b=$(as rotatest1 rota submit --mem=256M -o b.out \
	--wrap "cat /proc/self/cgroup; $(alloc 100)")
c=$(as rotatest1 rota submit -c 2 --mem-per-cpu=100M -o c.out \
	--wrap "cat /proc/self/cgroup")
d=$(as rotatest1 rota submit -o d.out --wrap "cat /proc/self/cgroup")
for j in "$a" "$b" "$c" "$d"; do wait_job_done "$j"; done

is "$(job_state "$a") $(rota show job "$a" | sed -n 's/^Reason=//p') $(rota show job "$a" | sed -n 's/^ExitCode=//p;s/^Signal=/:/p' | tr -d '\n')" \
	"OUT_OF_MEMORY OutOfMemory 0:9" "past its --mem: killed, OUT_OF_MEMORY, reason OutOfMemory, ExitCode 0:9"
is "$(grep -c '^got' a.out) $(tail -n 1 a.out)" "0 survived" \
	"the kernel killed the process over the limit, not the whole script"
is "$(job_state "$b") $(tail -n 1 b.out)" "COMPLETED got 100" \
	"within its --mem it completes"
cg=$(cg_of b.out)
like "$cg" "/rota/job$b\\.1\\.[0-9]+\$" "it ran in a memory cgroup of its own"
ok "$([ ! -e "$(cg_dir "$cg")" ]; echo $?)" "which is removed when it ends"

# the limits, read while a job runs
e=$(as rotatest1 rota submit --mem=256M -o e.out --wrap 'sleep 300')
f=$(as rotatest1 rota submit -c 2 --mem-per-cpu=100M -o f.out --wrap 'sleep 300')
# a job is RUNNING once started; its .sup file is there once it runs
wait_until "ls $CL/spool/*/job$e.1.sup $CL/spool/*/job$f.1.sup"
limit() { # JOB: its cgroup's limit, found from its script's process
	local sup job
	read -r sup _ job _ <"$(ls "$CL"/spool/*/job"$1".1.sup)"
	cat "$(cg_dir "$(cg_of "/proc/$job/cgroup")")/memory.limit_in_bytes"
}
is "$(limit "$e") $(limit "$f")" "$((256 << 20)) $((200 << 20))" \
	"limits: --mem as given, --mem-per-cpu times its cores"
case $(cg_of d.out) in */rota/job$d.1.*) st=0 ;; *) st=1 ;; esac
ok "$st" "a job without --mem is put in one too"

# a process that left the job's process group still dies with the job
g=$(as rotatest1 rota submit --mem=100M -o g.out \
	--wrap 'setsid sleep 1000 & echo $! >escaped.pid; sleep 1000')
wait_for test -s escaped.pid
rota cancel "$g" "$e" "$f"
for j in "$g" "$e" "$f"; do wait_job_done "$j"; done
# gone, or a zombie that init has yet to reap
gone() { ! grep -q '^State:[[:space:]]*[^Z]' "/proc/$1/status" 2>/dev/null; }
wait_until 'gone "$(cat escaped.pid)"'
ok $? "a process that escaped its process group is killed with its job"
