# shellcheck shell=bash
# TAP for the integration tests: plan, ok, is, skip, skip_all; a scratch
# directory per test ($T) and a trap that stops only what this test started.

set -u
: "${top_srcdir:?run through make check}" "${top_builddir:?}"
BIN="$top_builddir/_bin"
TOPO="${ROTA_TOPOLOGY_DIR:-$top_srcdir/../shared/topologies}"
RAWSEND="$top_builddir/testsuite/lib/rawsend"
PLUGIN_DIR="$top_builddir/_plugins"
tap_n=0
tap_failed=0

# Binaries in one folder, as an installation would have them.
mkdir -p "$BIN"
ln -sf "$top_builddir/ui/rota" "$top_builddir/ui/rota-rsh" \
	"$top_builddir/ctld/rota-ctld" \
	"$top_builddir/noded/rota-noded" \
	"$top_builddir/noded/rota-noded-emu" "$BIN/"

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

plan() { echo "1..$1"; }

# skip REASON: one check this host cannot make, counted as passed
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP $*"; }

ok() {
	local cond=$1
	shift
	tap_n=$((tap_n + 1))
	if [ "$cond" -eq 0 ]; then
		echo "ok $tap_n - $*"
	else
		echo "not ok $tap_n - $*"
		tap_failed=$((tap_failed + 1))
	fi
}

# is GOT WANT DESCRIPTION
is() {
	local got=$1 want=$2
	shift 2
	if [ "$got" = "$want" ]; then
		ok 0 "$*"
	else
		ok 1 "$*"
		echo "#   got:  '$got'"
		echo "#   want: '$want'"
	fi
}

# like GOT REGEX DESCRIPTION
like() {
	local got=$1 re=$2
	shift 2
	if [[ $got =~ $re ]]; then
		ok 0 "$*"
	else
		ok 1 "$*"
		echo "#   got:  '$got'"
		echo "#   want: /$re/"
	fi
}

need_root_and_munge() {
	[ "$(id -u)" -eq 0 ] || skip_all "needs root (jobs run as test users)"
	command -v munged >/dev/null || skip_all "needs munged"
	[ -d "$TOPO" ] || skip_all "no topologies at $TOPO"
}

# Scratch directory, world-readable so that test users can reach it.
T=$(mktemp -d "${TMPDIR:-/tmp}/rota-test.XXXXXX")
chmod 0755 "$T"
CL="$T/cluster"
# shellcheck source=testsuite/lib/cluster.sh
. "$top_srcdir/testsuite/lib/cluster.sh"

tap_cleanup() {
	local rc=$? # a test that bailed out keeps its logs too
	cluster_stop
	# daemons report sanitizer findings (leaks: at exit) in their logs
	if grep -l -E "ERROR: (Address|Leak)Sanitizer|runtime error:" \
		"$CL"/log/*.log >/dev/null 2>&1; then
		echo "Bail out! a daemon's sanitizer report: $(grep -l -E \
			'ERROR: (Address|Leak)Sanitizer|runtime error:' \
			"$CL"/log/*.log | tr '\n' ' ')"
		tap_failed=$((tap_failed + 1))
	fi
	if [ "$tap_failed" -ne 0 ] || [ "$rc" -ne 0 ]; then
		echo "# logs kept in $T"
		for f in "$CL"/log/*.log; do
			[ -f "$f" ] || continue
			echo "# --- $f"
			tail -n 20 "$f" | sed 's/^/#   /'
		done
	else
		rm -rf "$T"
	fi
}
trap tap_cleanup EXIT

# as USER CMD...: run a command as a test user with the cluster's env.
as() {
	local user=$1
	shift
	runuser -u "$user" -- env ROTA_CTLD="$ROTA_CTLD" ROTA_CONF="$ROTA_CONF" \
		ROTA_MUNGE_SOCKET="$ROTA_MUNGE_SOCKET" PATH="$BIN:$PATH" "$@"
}
