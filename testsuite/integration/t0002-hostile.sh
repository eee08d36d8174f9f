#!/bin/bash
# Bad input loses nothing: refused credentials and frames, refused submits,
# broken config lines; the controller keeps serving through all of it.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 27
NODE_TOPOS="24em64t-2n6c2t-pci.xml 2intel64-1n2c-numaroot.v1tov2.xml"
cluster_start || { echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up"

is "$($RAWSEND "$ROTA_CTLD" nocred)" "ERROR: no munge credential" \
	"a request without a credential is refused"
is "$($RAWSEND "$ROTA_CTLD" forged)" \
	"ERROR: munge credential does not match the message" \
	"a credential made for another message is refused"
like "$($RAWSEND "$ROTA_CTLD" replay)" "OK.ERROR: munge credential replayed" \
	"a replayed credential is refused"
is "$($RAWSEND "$ROTA_CTLD" badtype)" "ERROR: unknown message type" \
	"an unknown message type is refused"
is "$($RAWSEND "$ROTA_CTLD" garbage)" CLOSED "garbage gets the connection closed"
is "$($RAWSEND "$ROTA_CTLD" cut)" CLOSED "a client may hang up mid-frame"
is "$($RAWSEND "$ROTA_CTLD" huge)" CLOSED "a frame over the size limit is cut off"
is "$($RAWSEND "$ROTA_CTLD" nosession)" \
	"ERROR: no session: send a munge credential first" \
	"a MAC on a connection with no session is refused"
like "$($RAWSEND "$ROTA_CTLD" badmac)" \
	"OK.ERROR: session MAC does not match the message" \
	"a frame with a wrong session MAC is refused"
is "$($RAWSEND "$ROTA_CTLD" otheruid)" \
	"ERROR: munge credential meant for another uid" \
	"a credential sealed for another uid cannot be opened"
is "$($RAWSEND "$ROTA_CTLD" ping)" OK "and the controller still answers"
kill -0 "$(cat "$CL/ctld.pid")"
ok $? "the controller is still running"
diag=$(rota diag)
counter() { echo "$diag" | awk -v n="$1" '$1 == n { print $2 }'; }
ok $(($(counter auth_refused) < 6)) \
	"rota diag counts the refused credentials ($(counter auth_refused))"
ok $(($(counter bad_frames) < 2)) \
	"and the frames cut off ($(counter bad_frames))"
ok $(($(counter unknown_types) < 1)) \
	"and the unknown types ($(counter unknown_types))"

# --- submit refuses with one clear line ---
refuse() { # WANT-REGEX ARGS...: rota submit ARGS must fail with one line
	local want=$1
	shift
	local err rc
	err=$(rota submit "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -ne 0 ] && [ "$(echo "$err" | wc -l)" -eq 1 ] &&
		[[ $err =~ $want ]]; then
		ok 0 "refused: rota submit $*"
	else
		ok 1 "refused: rota submit $* (rc $rc)"
		echo "#   got: $err"
	fi
}
refuse "unknown option or missing value: '--frobnicate'" --frobnicate --wrap true
refuse "queue 'nope' does not exist" -q nope --wrap true
refuse "more cores than the nodes of queue 'batch' have" -n 100 --wrap true
refuse "no node of queue 'batch' has that much memory" --mem=10T --wrap true
refuse "--time '5 hours'" --time "5 hours" --wrap true
refuse "exceeds the maximum of queue 'short'" -q short -t 45 --wrap true
refuse "no node of queue 'batch' has these features" -C gpu --wrap true
refuse "--ntasks '0'" -n 0 --wrap true

# --- a broken config line stops a daemon with file:line ---
sed 's/^KillWait=.*/KillWait=-3s/' "$CL/rota.conf" >"$T/bad.conf"
line=$(grep -n '^KillWait=' "$T/bad.conf" | cut -d: -f1)
err=$(rota-ctld -f "$T/bad.conf" -t 2>&1)
rc=$?
ok $((rc == 0)) "rota-ctld refuses a bad config"
like "$err" "bad.conf:$line: KillWait:" "naming file, line and key: $err"
err=$(rota-noded -f "$T/bad.conf" -n n01 -t 2>&1)
like "$err" "bad.conf:$line: KillWait:" "rota-noded too"
