#!/usr/bin/env bash
# Configure (once) and build ofan into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
	meson setup build --buildtype=release >/dev/null
fi
ninja -C build >build/ninja.log 2>&1 || { cat build/ninja.log >&2; exit 1; }
# Traffic the example configs replay (deterministic; regenerated when missing).
mkdir -p configs/traffic
if [ ! -f configs/traffic/leaf-hosts.pcap ]; then
	build/tests/tools/ofan-pcapgen flows --out configs/traffic/leaf-hosts.pcap \
		--count 1000 --flows 1000 --size 512 --src-ip 10.0.0.1 \
		--dst-net 10.0.1.0 --dst-count 700 --acks-every 8 >/dev/null
fi
if [ ! -f configs/traffic/replay-in.pcap ]; then
	build/tests/tools/ofan-pcapgen flows --out configs/traffic/replay-in.pcap \
		--count 4000 --flows 64 --size 256 --src-ip 10.0.0.1 \
		--dst-net 10.1.0.0 --dst-count 60 --acks-every 4 >/dev/null
fi
mkdir -p results/replay
