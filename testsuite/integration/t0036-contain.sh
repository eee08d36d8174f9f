#!/bin/bash
# Every job in a cgroup of its own, whatever it asked for: what a job
# started with setsid or a double fork dies at its end (the hostile
# tester's 'setsid sleep 7374 & sleep 1'), MaxTasksPerJob stops a fork
# loop, the cpuset holds the job's cores even against sched_setaffinity,
# and its CPU time and memory peak are in 'rota show job'.  Twice: with
# CgroupVersion=auto (v1 on a v1 or hybrid host, v2 on a v2-only one) and
# with CgroupVersion=v2.  What a host's hierarchy lacks (a controller not
# delegated to the daemon) is skipped, saying so.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge
command -v python3 >/dev/null || skip_all "needs python3"
command -v pgrep >/dev/null || skip_all "needs pgrep"


plan 20
PLUGIN_DIR=${PLUGIN_DIR:-}
NODE_TOPOS="2intel64-1n2c-numaroot.v1tov2.xml 2intel64-1n2c-numaroot.v1tov2.xml"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1

# count TAG: the user's processes that are 'sleep TAG', zombies aside
count() { pgrep -u rotatest1 -f "^sleep $1\$" | wc -l; }

contain() { # VERSION: one cluster, the checks
	local v=$1 line with escaped=0 left=0 i j tags="" out n
	CL="$T/cluster-$v"
	cluster_start "CgroupVersion=$v" "MaxTasksPerJob=20" "JobComp=file" ||
		{ echo "Bail out! cluster did not start"; exit 1; }
	line=$(grep -m1 'cgroups' "$CL/log/n01.log")
	echo "# CgroupVersion=$v: ${line#*: }"
	case $line in
	*"cgroups off"*) ok 1 "CgroupVersion=$v: jobs get cgroups"
		cluster_stop; return ;;
	esac
	ok 0 "CgroupVersion=$v: jobs get cgroups"
	# "with memory, pids, ...;": the controllers jobs get
	with=${line#* with }
	with=${with%%;*}

	# escapes: each job leaves three sleeps behind, outside its group
	for i in 1 2 3 4; do
		tag=7$i$$
		tags="$tags $tag"
		j=$(as rotatest1 rota submit -t 2 -o esc$i.out --wrap "
			setsid sleep $tag &
			(setsid sh -c 'sleep $tag & sleep $tag &' &)
			sleep 1
			echo escaped \$(pgrep -f '^sleep $tag\$' | wc -l)
			cat /proc/self/cgroup")
		eval "job$i=$j"
	done
	for i in 1 2 3 4; do eval wait_job_done "\$job$i"; done
	for i in 1 2 3 4; do
		n=$(sed -n 's/^escaped //p' esc$i.out)
		escaped=$((escaped + ${n:-0}))
	done
	for tag in $tags; do
		WAIT_TIMEOUT=5 wait_until "[ \$(count $tag) -eq 0 ]"
		left=$((left + $(count "$tag")))
	done
	echo "# escapes: $left of $escaped"
	ok "$([ "$escaped" -eq 12 ] && [ "$left" -eq 0 ]; echo $?)" \
		"CgroupVersion=$v: setsid and double-forked processes die with their job"
	if [ "$v" = v2 ]; then
		like "$(grep '^0::' esc1.out)" "/rota/job$job1\\.1\\.[0-9]+\$" \
			"CgroupVersion=v2: the job ran in a v2 cgroup of its own"
	else
		like "$(grep ':freezer:\|^0::' esc1.out | head -n 1)" \
			"/rota/job$job1\\.1\\.[0-9]+\$" \
			"CgroupVersion=$v: the job ran in a cgroup of its own"
	fi

	# a fork loop under MaxTasksPerJob=20 (its shell and python count)
	if grep -q 'MaxTasksPerJob 20' "$CL/log/n01.log"; then
		j=$(as rotatest1 rota submit -o fork.out --wrap "python3 -c '
# forkloop$$
import os, time
n = 0
try:
    for i in range(100):
        if os.fork() == 0:
            time.sleep(300)
            os._exit(0)
        n += 1
except OSError as e:
    print(\"refused\", e.errno)
print(\"forked\", n)
'")
		wait_job_done "$j"
		out=$(tr '\n' ' ' <fork.out)
		echo "# fork loop: $out"
		like "$out" "^refused 11 forked 1[0-9] \$" \
			"CgroupVersion=$v: MaxTasksPerJob stops a fork loop"
		WAIT_TIMEOUT=5 wait_until "! pgrep -f 'forkloop$$' >/dev/null"
		ok $? "CgroupVersion=$v: and what it forked dies with it"
	else
		skip "CgroupVersion=$v: no pids controller"
		skip "CgroupVersion=$v: no pids controller"
	fi

	# the cpuset: a 1-core job cannot widen itself to every CPU
	if [[ $with == *cpuset* ]]; then
		j=$(as rotatest1 rota submit -c 1 -o cpus.out --wrap "
			python3 -c 'import os; print(sorted(os.sched_getaffinity(0)))'
			python3 -c 'import os; os.sched_setaffinity(0, range(os.cpu_count())); print(sorted(os.sched_getaffinity(0)))'")
		wait_job_done "$j"
		out=$(tr '\n' ' ' <cpus.out)
		echo "# cpus: $out (host: $(nproc --all))"
		like "$out" "^(\\[[0-9]+\\]) \\1 \$" \
			"CgroupVersion=$v: the cpuset holds the job's cores"
	else
		skip "CgroupVersion=$v: no cpuset controller"
	fi

	# CPU time and memory peak
	j=$(as rotatest1 rota submit -o use.out --wrap \
		"python3 -c 'b = bytearray(80 << 20); sum(range(20000000))'")
	wait_job_done "$j"
	rota show job "$j" | grep -E '^(CPUTime|MemPeak)=' | sed 's/^/# /'
	# and in the job's completion record (rota history: columns 13, 14)
	wait_until "rota history -H | awk '\$1 == $j' | grep -q ."
	out=$(rota history -H | awk -v j="$j" '$1 == j { print $13, $14 }')
	echo "# rota history: CPUTIME MEMPEAK $out"
	like "$(rota show job "$j" | sed -n 's/^CPUTime=//p') ${out% *}" \
		'^([0-9]+\.[0-9]{3}) \1$' \
		"CgroupVersion=$v: CPU time in rota show job and rota history"
	if [[ $with == *memory* ]]; then
		n=$(rota show --json job "$j" | grep -o '"mem_peak": *[0-9]*' |
			grep -o '[0-9]*$')
		ok "$([ "${n:-0}" -ge $((80 << 20)) ]; echo $?)" \
			"CgroupVersion=$v: memory peak in rota show job (${n:-none} bytes)"
	else
		skip "CgroupVersion=$v: no memory controller"
	fi
	# both kept in the controller's journal
	out=$(rota show job "$j" | grep -E '^(CPUTime|MemPeak)=')
	cluster_kill9 "$CL/ctld.pid"
	cluster_restart_ctld
	is "$(rota show job "$j" | grep -E '^(CPUTime|MemPeak)=')" "$out" \
		"CgroupVersion=$v: the same after a controller restart"

	# the harness's cluster_kill_jobs, for a job still running at the end
	tag=79$$
	j=$(as rotatest1 rota submit -o stop.out --wrap "
		(setsid sh -c 'sleep $tag &' &); sleep 300")
	wait_until "ls $CL/spool/*/job$j.1.sup && [ \$(count $tag) -eq 1 ]"
	read -r sup _ <"$(ls "$CL"/spool/*/job"$j".1.sup)"
	cluster_stop
	n=$(find /sys/fs/cgroup -type d -path "*/rota/job*.*.$sup" | wc -l)
	is "$(count $tag) $n" "0 0" \
		"CgroupVersion=$v: cluster_kill_jobs leaves nothing of a running job"
}

contain auto
contain v2
