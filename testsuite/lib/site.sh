# shellcheck shell=bash
# A seed site's etc/<site>.conf on a local cluster: sourced by the site
# tests (t0050-t0054) after tap.sh.  The site's policy lines run as they
# are; only the machine (nodes, addresses, paths) is the local one.

# two nodes of 2 cores, easy to fill (a test may set its own after this)
NODE_TOPOS="2intel64-1n2c-numaroot.v1tov2.xml 2intel64-1n2c-numaroot.v1tov2.xml"
export CLUSTER_QUEUES=no

# site_policy SITE: its file less the machine, queues on all local nodes,
# its sample users (ana, bob) as the test users (rotatest1, rotatest2),
# and $SITE_EDIT (a sed -E script, e.g. a shorter backfill interval).
site_policy() {
	grep -v -E '^(NodeName|ClusterName|CtldAddr|StateDir|SpoolDir|Operators)=' \
		"$top_srcdir/etc/$1.conf" |
		sed -E -e 's/ Nodes=[^ ]+/ Nodes=ALL/' \
			-e 's/\bana\b/rotatest1/' -e 's/\bbob\b/rotatest2/' \
			-e "${SITE_EDIT:-}" |
		grep -v -E '^[[:space:]]*(#|$)'
}

# site_start SITE [EXTRA LINES...]: a cluster with SITE's policy (and the
# extra lines after it), a world-writable work folder as the current one.
site_start() {
	local name=$1
	shift
	cluster_stop
	site_n=$((${site_n:-0} + 1)) # each cluster afresh: no state of the last
	CL="$T/$name.$site_n"
	mapfile -t lines < <(site_policy "$name")
	cluster_start "${lines[@]}" "$@" >&2 || return 1
	mkdir -p "$CL/w" && chmod 1777 "$CL/w" && cd "$CL/w" || return 1
}

# site SITE QUEUE [SUBMIT-ARGS...]: site_start, the other user's blocker
# filling the cluster, and a 1-core job of rotatest1 in QUEUE pending, its
# id in $J (not a subshell: the cluster's environment stays).
site() {
	local name=$1 queue=$2
	shift 2
	site_start "$name" || return 1
	blocker=$(as rotatest2 rota submit -q "$queue" -n 4 -t 10 --wrap 'sleep 60')
	wait_for job_state_is "$blocker" RUNNING || return 1
	J=$(as rotatest1 rota submit -q "$queue" "$@" --wrap true)
}

# prio_of JOB: its priority in rota prio.
prio_of() { rota prio -H "$1" | awk '{ print $6 }'; }

# site_conf_check SITE: rota-ctld -t on etc/SITE.conf as shipped (its
# plugins from the build), its one line on stdout; fails as it does.
site_conf_check() {
	local f="$T/$1.shipped.conf"
	{ cat "$top_srcdir/etc/$1.conf"; echo "PluginDir=$top_builddir/_plugins"; } >"$f"
	rota-ctld -t -f "$f" 2>&1
}
