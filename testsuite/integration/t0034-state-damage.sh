#!/bin/bash
# Recoverable state: a real controller's StateDir is damaged at many
# offsets (a byte flipped, 8 bytes zeroed, the file cut).  Damage in the
# newest snapshot: the controller falls back to the previous one and the
# longer journal, says so in its start line, and loses no job.  Damage in
# the middle of the newest journal: it refuses with the file and offset and
# asks for --salvage; rota-ctld --salvage keeps every intact record and
# the next start works with every job but the damaged record's.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge
command -v python3 >/dev/null || skip_all "needs python3"

OFFSETS=${OFFSETS:-8}
plan $((3 * OFFSETS + 12))
NODE_TOPOS="24em64t-2n6c2t-pci.xml 2intel64-1n2c-numaroot.v1tov2.xml"
MIN_JOB_AGE=1h
mkdir -p "$CL" && : >"$CL/pids"
cluster_start_munge && cluster_write_conf && cluster_start_ctld ||
	{ echo "Bail out! controller did not start"; exit 1; }
ok 0 "controller up"
W="$T/work"
S="$CL/state"
mkdir -p "$W" && cd "$W" || exit 1

submit() { # PREFIX N: held jobs PREFIX1..N, "id name" lines to acked
	local i id
	for i in $(seq "$2"); do
		id=$(rota submit -H -o /dev/null --job-name "$1$i" --wrap true) &&
			echo "$id $1$i" >>"$W/acked"
	done
}
listed() { rota queue --all --noheader | awk '{ print $1, $3 }' | sort; }
# lost: acknowledged jobs not listed (the controller must be up)
lost() { listed >"$W/listed"; sort "$W/acked" | comm -23 - "$W/listed" | wc -l; }
newest() { ls "$S" | grep -E "^$1\.[0-9]+\$" | sort -t. -k2 -n | tail -n 1; }
# damage FILE OFFSET KIND: flip a byte, zero 8 bytes or cut the file there
damage() {
	python3 - "$@" <<'PY'
import sys
path, off, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
data = bytearray(open(path, 'rb').read())
if kind == 'flip':
    data[off] ^= 0x55
elif kind == 'zero':
    data[off:off + 8] = bytes(len(data[off:off + 8]))
else:
    del data[off:]
open(path, 'wb').write(data)
PY
}
# records_end FILE: where a journal's records end (zeros follow)
records_end() {
	python3 - "$1" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
off = 0
while off + 8 <= len(data):
    n = int.from_bytes(data[off:off + 4], 'little')
    if n == 0 or off + 8 + n > len(data):
        break
    off += 8 + n
print(off)
PY
}
stop_ctld() { cluster_kill9 "$CL/ctld.pid"; }
restore() { rm -rf "$S" && cp -a "$W/pristine" "$S"; }

# generation N-1 holds a1..20; a stop and a start write two generations;
# b1..10 are then in the newest journal only
submit a 20
kill "$(cat "$CL/ctld.pid")"
wait_for sh -c "! kill -0 $(cat "$CL/ctld.pid") 2>/dev/null"
cluster_restart_ctld
submit b 10
is "$(lost)" 0 "30 jobs acknowledged and listed"
stop_ctld # a crash: the journal keeps b1..10
cp -a "$S" "$W/pristine"
snap=$(newest snapshot)
jour=$(newest journal)
snap_len=$(stat -c %s "$S/$snap")
jour_len=$(stat -c %s "$S/$jour")
jour_end=$(records_end "$S/$jour")
ok $((jour_end == 0)) "newest journal $jour holds records ($jour_end bytes), newest snapshot $snap ($snap_len bytes)"

# the newest snapshot, damaged at OFFSETS offsets spread over it, 3 ways
fell=0
changed=0
for k in $(seq 0 $((OFFSETS - 1))); do
	off=$((k * (snap_len - 1) / (OFFSETS - 1)))
	for kind in flip zero cut; do
		restore
		damage "$S/$snap" "$off" "$kind"
		cmp -s "$S/$snap" "$W/pristine/$snap" || changed=$((changed + 1))
		: >"$CL/log/ctld.log"
		if cluster_restart_ctld; then
			n=$(lost)
			grep -q "state: .*fell back, $S/$snap: damaged record" \
				"$CL/log/ctld.log" && fell=$((fell + 1))
			[ "$k$kind" = 1flip ] &&
				grep "state: " "$CL/log/ctld.log" | sed 's/^/# /'
			stop_ctld
		else
			n=start-failed
		fi
		[ "$kind" = flip ] && ok "$( [ "$n" = 0 ]; echo $?)" \
			"$snap flipped at $off: $n jobs lost"
		[ "$kind" = zero ] && ok "$( [ "$n" = 0 ]; echo $?)" \
			"$snap zeroed at $off: $n jobs lost"
		[ "$kind" = cut ] && ok "$( [ "$n" = 0 ]; echo $?)" \
			"$snap cut at $off: $n jobs lost"
	done
done
is "$fell" "$changed" "each start fell back and said why in its state line ($fell of $((3 * OFFSETS)) copies changed)"

# a torn tail of the newest journal: cut silently, the start goes on
restore
damage "$S/$jour" $((jour_end - 5)) cut
: >"$CL/log/ctld.log"
cluster_restart_ctld && n=$(lost) && stop_ctld
ok "$( [ "$n" -le 1 ]; echo $?)" "a torn last journal record is cut ($n job, the last one's, lost)"

# damage in the middle of the newest journal: refused, then salvaged
restore
mid=$((jour_end / 2))
damage "$S/$jour" "$mid" flip
timeout 30 rota-ctld -f "$CL/rota.conf" >"$W/refused" 2>&1
rc=$?
ok $((rc == 0 || rc == 124)) "the controller refuses to start (exit $rc)"
grep "refusing to start" "$W/refused" >"$W/refused.line"
is "$(wc -l <"$W/refused.line")" 1 "in one line"
off=$(sed -n "s|.*$S/$jour: damaged record at offset \([0-9]*\) of $jour_len.*--salvage.*|\1|p" "$W/refused.line")
ok $(( ${off:-0} == 0 || off > mid || mid - off > 4096 )) \
	"naming $jour and the record's offset ($off, the flip at $mid) and --salvage"
sed 's/^/# /' "$W/refused.line"
rota-ctld -f "$CL/rota.conf" --salvage >"$W/salvage" 2>&1
rc=$?
sed 's/^/# /' "$W/salvage"
is "$rc" 0 "rota-ctld --salvage exits 0"
grep -q "salvage: $S/$jour: dropped [0-9]* bytes at offset $off" "$W/salvage"
ok $? "and says what it dropped: $(grep -o 'dropped [0-9]* bytes at offset [0-9]*: [^(]*' "$W/salvage" | head -n 1)"
cluster_restart_ctld
n=$(lost)
# one record dropped: at most the job it was about is lost
ok $((n > 1)) "the next start works: $n of 30 jobs lost (the damaged record's)"
ok $(( $(comm -23 <(sort "$W/acked") "$W/listed" | grep -c ' a') )) \
	"every job of the intact snapshot is there"
