#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Configure (once) and build ofan into build/ (meson, ninja), then make
# the example traffic the configs replay (configs/traffic/).
#
#   scripts/build.sh          takes no arguments; scripts/install-deps.sh
#                             installs what it needs
set -euo pipefail
cd "$(dirname "$0")/.."
case ${1-} in
'') ;;
--version) exec scripts/version.sh "$0" ;;
-h | --help)
	sed -n '3,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"
	exit 0
	;;
*)
	echo "build.sh: unknown argument '$1'; expected none (--help for help)" >&2
	exit 2
	;;
esac
if [ ! -f build/build.ninja ]; then
	meson setup build --buildtype=release >/dev/null
fi
ninja -C build >build/ninja.log 2>&1 || { cat build/ninja.log >&2; exit 1; }
# Traffic the example configs replay (deterministic; regenerated when missing).
mkdir -p configs/traffic
if [ ! -f configs/traffic/leaf-hosts.pcap ]; then
	build/tools/ofan-pcapgen flows --out configs/traffic/leaf-hosts.pcap \
		--count 1000 --flows 1000 --size 512 --src-ip 10.0.0.1 \
		--dst-net 10.0.1.0 --dst-count 700 --acks-every 8 >/dev/null
fi
if [ ! -f configs/traffic/replay-in.pcap ]; then
	build/tools/ofan-pcapgen flows --out configs/traffic/replay-in.pcap \
		--count 4000 --flows 64 --size 256 --src-ip 10.0.0.1 \
		--dst-net 10.1.0.0 --dst-count 60 --acks-every 4 >/dev/null
fi
mkdir -p results/replay
