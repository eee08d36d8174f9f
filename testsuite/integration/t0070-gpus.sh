#!/bin/bash
# GPUs found by hwloc (issue 24, point 1): a DGX-2 (16 V100) and an IBM
# Power8 (4 P100) described by ../shared/topologies register their GPUs
# with model and locality; rota nodes lists them (gpu:v100:16), rota show
# node says where each sits, JSON carries them; a Gres= line that asks for
# more than a node has takes it down with the numbers as its reason, one
# that asks for fewer restricts it and says so in one line; a Gres= naming
# a resource GresTypes does not declare is refused with its line.
. "$top_srcdir/testsuite/lib/tap.sh"
PATH="$BIN:$PATH"
need_root_and_munge

plan 12
NODE_TOPOS="nvidiaDGX2.xml power8gpudistances.xml"
cluster_start || { echo "Bail out! cluster did not start"; exit 1; }
ok 0 "cluster up: a DGX-2 and a Power8 node"

is "$(rota nodes --noheader | awk '{print $1, $NF}' | tr '\n' ' ')" \
	"n01 gpu:v100:16 n02 gpu:p100:4 " \
	"rota nodes: a GRES column, GPUs counted by type"
is "$(rota show node n02 | grep -E '^(Gres|GresUsed|Gpu[0-9]+)=' | tr '\n' '|')" \
	"Gres=gpu:p100:4|GresUsed=none|Gpu0=p100 Model=Tesla P100-SXM2-16GB Bus=0002:01:00.0 Numa=0 Cores=0-3|Gpu1=p100 Model=Tesla P100-SXM2-16GB Bus=0003:01:00.0 Numa=0 Cores=0-3|Gpu2=p100 Model=Tesla P100-SXM2-16GB Bus=000a:01:00.0 Numa=1 Cores=4-7|Gpu3=p100 Model=Tesla P100-SXM2-16GB Bus=000b:01:00.0 Numa=1 Cores=4-7|" \
	"rota show node: each GPU in bus order with its NUMA node and nearest cores"
is "$(rota show node n01 | grep -c '^Gpu')" 16 "the DGX-2's 16 GPUs, one line each"
like "$(rota nodes --json)" '"gpus":\[\{"type":"v100","model":"Tesla V100-SXM3-32GB-H","busid":"0000:34:00.0","cores":"0-1","numa":0\}' \
	"rota nodes --json: the GPUs in full"

# ---- Gres= on the node line: more than found takes the node down ----
conf_with() { # GRES: the node line with Gres=GRES, then reconfigure
	sed -i "s/^\(NodeName=[^ ]* Addr=[^ ]*\).*/\1 $1/" "$CL/rota.conf"
	rota reconfigure
}
conf_with "Gres=gpu:v100:16"
wait_until "rota show node n02 | grep -q '^State=DOWN'"
is "$(rota show node n02 | grep '^Reason=')" \
	"Reason=node 'n02' has 0 gpu:v100, rota.conf says 16" \
	"Gres=gpu:v100:16 on the Power8: down, the numbers as its reason"
wait_until "rota show node n01 | grep -q '^State=UP'"
is "$(rota nodes --noheader | awk '$1 == "n01" {print $2, $NF}')" \
	"UP gpu:v100:16" "the DGX-2 has what the line says: up"

# ---- fewer than found: the first N, said in one line ----
conf_with "Gres=gpu:2"
kill -HUP "$(cat "$CL/n02.pid")" # refused, it would try again in a minute
wait_for cluster_all_up
ok $? "Gres=gpu:2: both nodes up again"
is "$(rota nodes --noheader | awk '{print $1, $NF}' | tr '\n' ' ')" \
	"n01 gpu:v100:2 n02 gpu:p100:2 " "each restricted to its first 2 GPUs"
wait_for grep -q "node 'n01' has 16 gpu, rota.conf declares 2: the first 2 used" "$CL/log/ctld.log"
ok $? "the controller says so in one line"

# ---- a generic resource GresTypes does not name: refused with its line ----
conf_with "Gres=gpu:2,nvme:2"
out=$(rota reconfigure 2>&1)
like "$out" "rota.conf:[0-9]*: Gres: 'nvme' is not in GresTypes" \
	"Gres=nvme:2 without GresTypes=nvme: refused, with its line"
echo "GresTypes=nvme" >>"$CL/rota.conf"
rota reconfigure
wait_for cluster_all_up
is "$(rota nodes --noheader | awk '$1 == "n01" {print $NF}')" "gpu:v100:2,nvme:2" \
	"with GresTypes=nvme: the node's GRES counts both"
