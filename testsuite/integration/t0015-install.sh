#!/bin/bash
# The installed layout: make install DESTDIR=... puts binaries, plugins
# under $libdir/rota/<kind>/ (no .la), the systemd units, the sample
# config and the command manuals in place; then the units' own ExecStart
# lines, with the paths moved under DESTDIR, run a cluster and a job.
. "$top_srcdir/testsuite/lib/tap.sh"
need_root_and_munge

plan 11
D="$T/root"
make -s -C "$top_builddir" install DESTDIR="$D" >"$T/install.log" 2>&1
ok $? "make install DESTDIR=... (log: install.log)"
prefix=$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")
sysconfdir=$(sed -n 's/^sysconfdir = //p' "$top_builddir/Makefile" | sed "s|\${prefix}|$prefix|")
R="$D$prefix"
ls "$R/sbin/rota-ctld" "$R/sbin/rota-noded" "$R/bin/rota" >/dev/null
ok $? "binaries in sbin and bin"
is "$(cd "$R/lib/rota" && find . -name '*.la'; find . -path './fairshare/fairtree.so' -o -path './jobcomp/file.so' -o -path './jobcomp/http.so' | sort | tr '\n' ' ')" \
	"./fairshare/fairtree.so ./jobcomp/file.so ./jobcomp/http.so " \
	"plugins under \$libdir/rota/<kind>/, no .la"
ls "$R/lib/systemd/system/rota-ctld.service" "$R/lib/systemd/system/rota-noded.service" \
	"$D$sysconfdir/rota/rota.conf.example" "$R/share/doc/rota/deploy.md" >/dev/null
ok $? "systemd units, the sample config, the docs"
is "$(cat "$R/share/doc/rota/commands/rota-history.txt")" "$("$R/bin/rota" help history)" \
	"each command's manual is installed as the text of rota help"
is "$(ls "$R/share/doc/rota/commands" | wc -l)" "$("$R/bin/rota" help | grep -c '^  [a-z]')" \
	"one manual per command"
grep -q '^KillMode=process' "$R/lib/systemd/system/rota-noded.service"
ok $? "rota-noded's unit stops the daemon only, not its jobs"

# the units' command lines, paths under DESTDIR
exec_of() { sed -n 's/^ExecStart=//p' "$R/lib/systemd/system/$1" | sed "s|$prefix/|$R/|g"; }
CTLD_CMD=$(exec_of rota-ctld.service)
NODED_CMD=$(exec_of rota-noded.service)
is "$CTLD_CMD" "$R/sbin/rota-ctld -f $D$sysconfdir/rota/rota.conf" "rota-ctld's ExecStart"
BIN="$R/bin"
PLUGIN_DIR="$R/lib/rota"
NODE_TOPOS="24em64t-2n6c2t-pci.xml 2intel64-1n2c-numaroot.v1tov2.xml"
mkdir -p "$CL"; : >"$CL/pids"
cluster_start_munge && cluster_write_conf "JobComp=file" ||
	{ echo "Bail out! no munged"; exit 1; }
cp "$CL/rota.conf" "$D$sysconfdir/rota/rota.conf"
export ROTA_CONF="$D$sysconfdir/rota/rota.conf"
$CTLD_CMD --addr-file "$CL/ctld.addr" >>"$CL/log/ctld.log" 2>&1 &
echo $! >>"$CL/pids"
wait_for test -s "$CL/ctld.addr"
ROTA_CTLD=$(cat "$CL/ctld.addr"); export ROTA_CTLD
i=1
for t in $NODE_TOPOS; do
	$NODED_CMD -n "n0$i" --topology "$TOPO/$t" --ctld "$ROTA_CTLD" \
		>>"$CL/log/n0$i.log" 2>&1 &
	echo $! >>"$CL/pids"
	i=$((i + 1))
done
wait_for cluster_all_up
ok $? "the installed daemons, started as the units start them, are up"
cd "$T" || exit 1
j=$("$R/bin/rota" submit --wrap 'echo installed')
wait_job_done "$j"
is "$(job_state "$j"):$(cat "rota-$j.out")" "COMPLETED:installed" "a job runs through the installed layout"
wait_for test -s "$CL/state/jobcomp.json"
is "$("$R/bin/rota" history -H | awk '{print $1, $6}')" "$j COMPLETED" \
	"its record, from the installed jobcomp/file plugin, in rota history"
