#!/bin/bash
# MPI across four real node daemons, no ssh (issue 19): an MPI hello of 16
# ranks (MPI_Allreduce of the ranks gives 120) with Debian's Open MPI and
# MPICH, started by mpirun/mpiexec through rota-rsh inside a batch job,
# and started directly by rota run (MPICH over PMI-2, Open MPI over
# PMIx), each rank on its own cores; then a job killed mid-run leaves no
# process of it on any node.  Parts whose MPI is not installed are
# skipped, saying so.  MPI on one host needs its transports on loopback
# (../shared/notes/mpi-on-one-host.md): the job scripts set them.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge
command -v pgrep >/dev/null || skip_all "needs pgrep"

skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP $*"; }

plan 9
NODE_TOPOS="24em64t-2n6c2t-pci.xml 24em64t-2n6c2t-pci.xml 24em64t-2n6c2t-pci.xml 24em64t-2n6c2t-pci.xml"
W="$T/work"
mkdir -p "$W" && chmod 1777 "$W" && cd "$W" || exit 1
ompi=no mpich=no
if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null &&
	mpicc.openmpi -o hello_ompi "$top_srcdir/testsuite/mpi/hello.c" 2>/dev/null; then
	ompi=yes
fi
if command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null &&
	mpicc.mpich -o hello_mpich "$top_srcdir/testsuite/mpi/hello.c" 2>/dev/null; then
	mpich=yes
fi
[ $ompi = yes ] || [ $mpich = yes ] || skip_all "neither Open MPI nor MPICH (scripts/deps.sh installs both)"
cluster_start || { echo "Bail out! cluster did not start"; exit 1; }

# The MPI settings one host needs (not a real cluster's).
cat >mpienv.sh <<'EOF'
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo
export OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_rmaps_base_oversubscribe=1
export UCX_NET_DEVICES=lo
EOF

# job NAME SCRIPT-TEXT: run a 4x4 job of rotatest1 to its end
job() {
	printf '#!/bin/sh\n. %s/mpienv.sh\n%s\n' "$W" "$2" >"$1.sh"
	j=$(as rotatest1 rota submit -N 4 --ntasks-per-node=4 -t 5 -o "$1.out" "$1.sh")
	wait_job_done "$j"
}

# hello_ok OUT: 16 ranks, each once, every one with sum 120
hello_ok() {
	[ "$(grep -c '^rank .* of 16 sum 120 ' "$1")" -eq 16 ] &&
		[ "$(sed -n 's/^rank \([0-9]*\) of 16.*/\1/p' "$1" | sort -u | wc -l)" -eq 16 ]
}

if [ $ompi = yes ]; then
	job ompi_rsh 'mpirun.openmpi --mca plm_rsh_agent rota-rsh --host "$ROTA_HOSTS" -np 16 ./hello_ompi; echo "status $?"'
	hello_ok ompi_rsh.out && grep -q "status 0" ompi_rsh.out
	ok $? "Open MPI: mpirun through rota-rsh, 16 ranks on four nodes, sum 120"
	job ompi_direct 'rota run --mpi=pmix -n 16 ./hello_ompi; echo "status $?"'
	hello_ok ompi_direct.out && grep -q "status 0" ompi_direct.out
	ok $? "Open MPI: rota run --mpi=pmix -n 16, sum 120"
	lists=$(sed -n 's/^rank .* on CPU list //p' ompi_direct.out | sort | uniq -c | awk '{print $1}' | sort -u)
	is "$lists" 8 "... each rank bound to one core (two host cores here: 8 ranks on each)"
else
	skip "no Open MPI"; skip "no Open MPI"; skip "no Open MPI"
fi
if [ $mpich = yes ]; then
	job mpich_rsh 'mpiexec.mpich -launcher rsh -launcher-exec rota-rsh -hosts "$ROTA_HOSTS" -n 16 ./hello_mpich; echo "status $?"'
	hello_ok mpich_rsh.out && grep -q "status 0" mpich_rsh.out
	ok $? "MPICH: mpiexec through rota-rsh, 16 ranks on four nodes, sum 120"
	job mpich_direct 'rota run -n 16 ./hello_mpich; echo "status $?"'
	hello_ok mpich_direct.out && grep -q "status 0" mpich_direct.out
	ok $? "MPICH: rota run -n 16 (PMI-2), sum 120"
	lists=$(sed -n 's/^rank .* on CPU list //p' mpich_direct.out | sort | uniq -c | awk '{print $1}' | sort -u)
	is "$lists" 8 "... each rank bound to one core"
else
	skip "no MPICH"; skip "no MPICH"; skip "no MPICH"
fi

# killed mid-run: mpirun's daemons and their ranks go on no node
tag=75$$
if [ $ompi = yes ]; then
	cmd="mpirun.openmpi --mca plm_rsh_agent rota-rsh --host \"\$ROTA_HOSTS\" -np 16 sleep $tag"
else
	cmd="mpiexec.mpich -launcher rsh -launcher-exec rota-rsh -hosts \"\$ROTA_HOSTS\" -n 16 sleep $tag"
fi
printf '#!/bin/sh\n. %s/mpienv.sh\n%s\n' "$W" "$cmd" >kill.sh
j=$(as rotatest1 rota submit -N 4 --ntasks-per-node=4 -o kill.out kill.sh)
wait_until "[ \$(pgrep -u rotatest1 -fx 'sleep $tag' | wc -l) -eq 16 ]"
ok $? "16 ranks running under mpirun on four nodes"
rota cancel "$j"
wait_job_done "$j"
# the ranks, mpirun or mpiexec, their daemons on the nodes, rota-rsh's steps
pat="$tag|orted|hydra_pmi_proxy|mpirun|mpiexec|rota run"
wait_until "[ \$(pgrep -u rotatest1 -f '$pat' | wc -l) -eq 0 ]"
ok $? "cancelled: no process of the job left on any node"
left=$(pgrep -u rotatest1 -af "$pat" | head -5)
[ -z "$left" ] || echo "# left: $left"
left=$(pgrep -f "rota-step.*$j\." | wc -l)
is "$left" 0 "no step supervisor left"
cluster_stop
