#!/bin/bash
# Install what Rota needs to build and test on Debian 12 (as root).
set -euo pipefail
pkgs="build-essential autoconf automake libtool pkg-config
	libmunge-dev munge libssl-dev libhwloc-dev hwloc libjansson-dev check
	libcurl4-openssl-dev libncurses-dev procps util-linux
	clang libclang-rt-14-dev
	python3 tmux zlib1g-dev
	mpich libmpich-dev libpmix-dev openmpi-bin libopenmpi-dev"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
