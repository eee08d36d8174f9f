# shellcheck shell=bash
# Whose processes are whose, seen from outside with ps(1) and /proc: for
# the integration tests that must show that a job (and every step of it)
# leaves nothing behind on any node, whatever it did (setsid, double
# forks, a cleared environment), and what a node daemon's tree holds.
# t0036 counted one test's tagged sleeps; this asks by job.  Sourced after
# cluster.sh (uses CL, and tap.sh's ok for proctree_assert_job_gone).
#
# A process belongs to job N of this cluster if it is
#   - a supervisor of the job: named "rotasup:N" (prctl; a step's "rota...:
#     N.S") below a node daemon of this cluster (pids in $CL/nNN.pid), or
#     named in a .sup file of its spool (the daemon may be gone);
#   - a descendant of one of them;
#   - in a cgroup of theirs ("<...>/rota/job<N>.<RUN>.<SUP>" and below, on
#     v1 in every hierarchy).  Supervisors seen once are remembered
#     ($CL/proctree.sups), so that the cgroups of one that has exited are
#     still searched: ask once while the job runs;
#   - or started with ROTA_JOB_ID=N in its environment and its job's
#     submit directory (ROTA_SUBMIT_DIR) in $PROCTREE_SCOPE (default $T in
#     a test, else $CL): what escaped both tree and cgroup.  Job ids repeat
#     across the test clusters sharing a host; the scope tells them apart.
# Zombies do not count: nothing of them runs but their exit status.
# Step supervisors (noded/step.c, one a step a node) are expected to name
# themselves the same way, "rota<word>:<job>.<step>"; if they do not, the
# pattern in _proctree_sups is the one place to change.
#
# In a test (after tap.sh and this):
#   proctree_job "$j"              # while it runs: what it is, remembered
#   rota cancel "$j"; wait_job_done "$j"
#   proctree_assert_job_gone "$j"  # ok, or not ok naming what is left

# proctree_descendants PID...: those of PID... alive, and all their
# descendants, a pid a line
proctree_descendants() {
	[ $# -gt 0 ] || return 0
	ps -e -o pid=,ppid= | awk -v roots="$*" '
	BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) keep[r[i]] = 1 }
	{ parent[$1] = $2 }
	END {
		do {
			more = 0
			for (p in parent)
				if (!(p in keep) && (parent[p] in keep)) {
					keep[p] = 1
					more = 1
				}
		} while (more)
		for (p in keep)
			if (p in parent)
				print p
	}'
}

# proctree_cgroup_pids DIR...: the processes in cgroup DIRs and below
proctree_cgroup_pids() {
	local d
	for d in "$@"; do
		[ -d "$d" ] && find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null
	done
}

# proctree_show: "PID USER COMMAND" of the pids on stdin that still run,
# by pid (a supervisor's COMMAND is the name it gave itself, "rotasup:N":
# its command line is the node daemon's); none: no output, status 1
proctree_show() {
	local pids
	pids=$(sort -n -u | grep -x '[0-9]\+' | paste -s -d, -)
	[ -n "$pids" ] || return 1
	ps -o pid=,user:32=,stat=,comm:32=,args= -p "$pids" | awk '
	$3 ~ /^Z/ { next }
	{
		cmd = $0
		sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", cmd)
		if ($4 ~ /^rota[a-z]*:[0-9]/)
			cmd = $4
		print $1, $2, cmd
		n++
	}
	END { exit n ? 0 : 1 }'
}

# _proctree_sups [JOB]: "PID JOB" of the live supervisors below this
# cluster's node daemons and in its spool's .sup files, of every job or of
# JOB; the name a supervisor gives itself is what proves a pid still his
_proctree_sups() {
	local job=${1:-} f sup rest noded=()
	for f in "$CL"/n[0-9]*.pid; do
		[ -f "$f" ] && noded+=("$(cat "$f")")
	done
	{
		# shellcheck disable=SC2046
		ps -o pid=,comm= -p "$(proctree_descendants "${noded[@]}" |
			paste -s -d, -)" 2>/dev/null
		for f in "$CL"/spool/*/job"${job:-*}".*.sup; do
			[ -f "$f" ] || continue
			read -r sup rest <"$f"
			ps -o pid=,comm= -p "$sup" 2>/dev/null
		done
	} | awk -v job="$job" '
	$2 ~ /^rota[a-z]*:[0-9]+([.].*)?$/ {
		j = $2
		sub(/^[^:]*:/, "", j)
		sub(/[.].*/, "", j)
		if (job == "" || j == job)
			print $1, j
	}' | sort -u
}

# _proctree_job_cgroups JOB SUP...: the job's cgroups made by those
# supervisors (the top ones; proctree_cgroup_pids looks below)
_proctree_job_cgroups() {
	local job=$1 alt
	shift
	[ $# -gt 0 ] || return 0
	alt=$(printf '%s\n' "$@" | paste -s -d'|' -)
	find /sys/fs/cgroup -type d -regextype posix-extended \
		-regex ".*/rota/job$job\\.[0-9]+\\.($alt)" 2>/dev/null
}

# proctree_node_pids NAME [CGROUP-DIR...]: node daemon NAME's tree: the
# daemon, its descendants (the job supervisors and what they started),
# what is in the cgroups of its supervisors' jobs, and in CGROUP-DIRs
proctree_node_pids() {
	local name=$1 pid sups s
	shift
	pid=$(cat "$CL/$name.pid" 2>/dev/null) || return 0
	sups=$(ps -o pid=,comm= -p "$(proctree_descendants "$pid" |
		paste -s -d, -)" 2>/dev/null |
		awk '$2 ~ /^rota[a-z]*:[0-9]/ { print $1 }')
	proctree_descendants "$pid"
	for s in $sups; do
		# shellcheck disable=SC2046 # paths without blanks
		proctree_cgroup_pids $(find /sys/fs/cgroup -type d \
			-path "*/rota/job*.*.$s" 2>/dev/null)
	done
	proctree_cgroup_pids "$@"
}

# proctree_node NAME [CGROUP-DIR...]: the same as "PID USER COMMAND"
proctree_node() {
	proctree_node_pids "$@" | proctree_show
}

# proctree_job_pids JOB: the processes of job JOB on every node of this
# cluster, a pid a line (see the top of this file)
proctree_job_pids() {
	local job=$1 live sups scope re f
	live=$(_proctree_sups "$job")
	if [ -n "$live" ]; then
		# "JOB SUP" lines, each once (this is polled)
		{
			cat "$CL/proctree.sups" 2>/dev/null
			echo "$live" | awk '{ print $2, $1 }'
		} | sort -u >"$CL/proctree.sups.new" &&
			mv "$CL/proctree.sups.new" "$CL/proctree.sups"
	fi
	sups=$(awk -v j="$job" '$1 == j { print $2 }' \
		"$CL/proctree.sups" 2>/dev/null)
	# shellcheck disable=SC2046,SC2086 # pids and paths without blanks
	{
		proctree_descendants $(echo "$live" | awk '{ print $1 }')
		proctree_cgroup_pids $(_proctree_job_cgroups "$job" $sups)
		scope=${PROCTREE_SCOPE:-${T:-$CL}}
		re=$(printf '%s' "$scope" | sed 's/[]\\.[*^$]/\\&/g')
		for f in $(grep -lzxs "ROTA_JOB_ID=$job" /proc/[0-9]*/environ |
			xargs -r grep -lzs "^ROTA_SUBMIT_DIR=$re\\(/\\|\$\\)"); do
			f=${f#/proc/}
			echo "${f%/environ}"
		done
	} | sort -n -u
}

# proctree_job JOB: the processes of job JOB as "PID USER COMMAND"; status
# 1 if there are none
proctree_job() {
	proctree_job_pids "$1" | proctree_show
}

# proctree_job_gone JOB: true when no process of job JOB is left anywhere
proctree_job_gone() {
	! proctree_job "$1" >/dev/null
}

# proctree_assert_job_gone JOB [DESCRIPTION]: a TAP assertion that no
# process of job JOB is left on any node, once its end has had
# WAIT_TIMEOUT (default 10) seconds to take them; lists the ones left
proctree_assert_job_gone() {
	local job=$1 desc=${2:-"no process of job $1 is left on any node"}
	if WAIT_TIMEOUT=${WAIT_TIMEOUT:-10} wait_for proctree_job_gone "$job"; then
		ok 0 "$desc"
	else
		ok 1 "$desc"
		proctree_job "$job" | sed 's/^/#   left: /'
	fi
}
