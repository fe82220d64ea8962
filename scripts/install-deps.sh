#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install every Debian package ofan needs to build, test and plot.
# Idempotent: quiet and quick when everything is already there.
#
#   scripts/install-deps.sh [--help]
#
# Exit status: 0 everything is installed; 1 packages are missing and
# this is not root; apt-get's status if it fails.
set -euo pipefail
case ${1-} in
--version) exec "$(dirname "$0")/version.sh" "$0" ;;
-h | --help)
	sed -n '3,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"
	exit 0
	;;
esac

packages=(
	build-essential pkg-config meson ninja-build
	dpdk dpdk-dev libdpdk-dev
	libpcap-dev libiniparser-dev check
	libprotobuf-c-dev protobuf-c-compiler
	clang-14 libclang-rt-14-dev
	tshark gnuplot-nox python3-scapy iperf3 iproute2 iputils-ping traceroute
	shellcheck
	chromium fonts-dejavu-core
	openmpi-bin libopenmpi-dev
	dpdk-doc
	valgrind
)

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages: ${missing[*]}; run as root (or: sudo apt-get install ${missing[*]})" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no, non-interactively.
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
