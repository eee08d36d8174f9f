#!/bin/bash
# testsuite/lib/proctree.sh, which the job step tests use to show that
# nothing of a job is left on any node, tried on a plain batch job: it
# finds every process of a running job (its supervisor, its script, a
# child, a double-forked and a setsid'd process, one with an empty
# environment, and one put into the job's cgroup from outside), the node
# daemon's tree holds them and the other node's none; after a cancel none
# is left; a stray with the job's environment is found and reported, one
# of another cluster's job of the same id is not.  With CgroupVersion=auto
# and v2, as t0036-contain.sh.
. "$top_srcdir/testsuite/lib/tap.sh"
. "$top_srcdir/testsuite/lib/proctree.sh"
PATH="$BIN:$PATH"
need_root_and_munge
command -v pgrep >/dev/null || skip_all "needs pgrep"

plan 16
NODE_TOPOS="2intel64-1n2c-numaroot.v1tov2.xml 2intel64-1n2c-numaroot.v1tov2.xml"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1

# the sleeps of one pass: sleep <tag>1 .. <tag>7
sleeps() { pgrep -f "^(/bin/)?sleep $1[1-7]\$" | wc -l; }
count() { grep -c " \\(/bin/\\)\\?sleep $1[1-7]\$"; }

tree() { # VERSION TAG
	local v=$1 tag=$2$$ cg=yes line j node other sup job n out stray
	CL="$T/cluster-$v"
	cluster_start "CgroupVersion=$v" ||
		{ echo "Bail out! cluster did not start"; exit 1; }
	line=$(grep -m1 'cgroups' "$CL/log/n01.log")
	case $line in *"cgroups off"*) cg=no ;; esac
	echo "# ${line#*: }"
	ok 0 "CgroupVersion=$v: cluster up, jobs get cgroups: $cg"

	j=$(as rotatest1 rota submit -N 1 -o "job$v.out" --wrap "
		sleep ${tag}1 &
		(sleep ${tag}2 &)
		setsid sh -c 'sleep ${tag}3 & wait' &
		env -i /bin/sleep ${tag}4 &
		sleep ${tag}5")
	wait_until "[ \$(sleeps $tag) -eq 5 ] && ls $CL/spool/*/job$j.1.sup"
	read -r sup _ job _ <"$(ls "$CL"/spool/*/job"$j".1.sup)"
	node=$(rota show job "$j" | sed -n 's/^NodeList=//p')
	[ "$node" = n01 ] && other=n02 || other=n01
	# one from outside in the job's cgroups: only they tell it is the job's
	# (init's child, not ours: nobody here waits for it)
	n=5
	if [ "$cg" = yes ]; then
		(env -i /bin/sleep "${tag}6" &)
		wait_until "[ \$(sleeps $tag) -eq 6 ]"
		out=$(pgrep -f "^/bin/sleep ${tag}6\$")
		for line in $(find /sys/fs/cgroup -type d -path "*/rota/job$j.1.$sup"); do
			echo "$out" >"$line/cgroup.procs"
		done
		n=6
	fi

	out=$(proctree_job "$j")
	echo "$out" | sed 's/^/# /'
	is "$(echo "$out" | awk -v s="$sup" -v j="$job" \
		'$1 == s || $1 == j { print $2 }' | sort | paste -s -d' ' -)" \
		"root rotatest1" \
		"CgroupVersion=$v: a running job's supervisor and script are its"
	is "$(echo "$out" | count "$tag")" "$n" \
		"CgroupVersion=$v: and its $n sleeps, escaped or not"
	# the job's node: its tree and its jobs' cgroups hold them all; its
	# tree alone all but the double-forked one
	[ "$cg" = yes ] || n=4
	is "$(proctree_node "$node" | count "$tag") $(proctree_node "$other" |
		count "$tag")" "$n 0" \
		"CgroupVersion=$v: $node's tree holds them, $other's none"

	rota cancel "$j"
	wait_job_done "$j"
	proctree_assert_job_gone "$j" \
		"CgroupVersion=$v: after a cancel no process of the job is left"

	# a stray that the job's end missed, as proctree sees one
	env ROTA_JOB_ID="$j" ROTA_SUBMIT_DIR="$W" sleep "${tag}7" &
	stray=$!
	wait_until "[ \$(sleeps $tag) -eq 1 ]"
	is "$(proctree_job "$j")" "$stray root sleep ${tag}7" \
		"CgroupVersion=$v: a stray with the job's environment is its"
	out=$(tap_n=0 WAIT_TIMEOUT=1 proctree_assert_job_gone "$j" 2>/dev/null)
	like "$(echo "$out" | paste -s -d' ' -)" \
		"^not ok 1 - .* #   left: $stray root sleep ${tag}7\$" \
		"CgroupVersion=$v: and the assertion fails, naming it"
	kill "$stray"
	wait "$stray" 2>/dev/null
	# another test cluster's job with the same id
	env ROTA_JOB_ID="$j" ROTA_SUBMIT_DIR="$T.other" sleep "${tag}7" &
	stray=$!
	wait_until "[ \$(sleeps $tag) -eq 1 ]"
	ok "$(proctree_job_gone "$j"; echo $?)" \
		"CgroupVersion=$v: another cluster's job $j is not this one's"
	kill "$stray"
	wait "$stray" 2>/dev/null
	cluster_stop
}

tree auto 43
tree v2 44
