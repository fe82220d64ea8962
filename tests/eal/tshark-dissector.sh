#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tools/wireshark/ofan.lua in tshark: ofan's ACKs (written by ofan's own
# frame builder, through ofan-pcapgen) decode with their feedback
# extension -- echoed EV, CE and COUNT flags, echoed and cumulative PSN,
# SACK bitmap -- and data frames are left alone.  Without tshark (which
# scripts/install-deps.sh installs) the test fails.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
OFAN_NEEDS=(tools/ofan-pcapgen)
ofan_setup tshark_dissector "$@"

LUA=$SRC/tools/wireshark/ofan.lua
command -v tshark >/dev/null ||
	{ fail "tshark not found (scripts/install-deps.sh installs it)"; ofan_finish; }

# fields PCAP: every ofan ACK as "EV CE COUNT ECHO_PSN CUM_PSN SACK".
fields() {
	tshark -X "lua_script:$LUA" -r "$1" -Y ofan -T fields -E separator=' ' \
		-e udp.srcport -e ofan.ev -e ofan.ce -e ofan.count \
		-e ofan.echo_psn -e ofan.cum_psn -e ofan.sack 2>"$TMP/tshark.err"
}

echo "-- CE-marked ACKs with a SACK bitmap"
"$PCAPGEN" flows --out "$TMP/ce.pcap" --count 12 --flows 2 --size 256 \
	--acks-every 3 --ack-flags 1 --ack-sack 5 --ev-base 50000 >/dev/null
expect_eq "decoded ACKs (UDP sport, EV, CE, COUNT, echo PSN, cum PSN, SACK)" \
	"$(fields "$TMP/ce.pcap" | tr '\n' ';')" \
	"50000 50000 1 0 0 1 0x0000000000000005;50001 50001 1 0 1 2 0x0000000000000005;50000 50000 1 0 2 3 0x0000000000000005;50001 50001 1 0 3 4 0x0000000000000005;"
expect_eq "tshark stderr" "$(grep -v 'Running as user' "$TMP/tshark.err" || true)" ""

echo "-- COUNT ACKs (erasure recovery), no SACK"
"$PCAPGEN" flows --out "$TMP/count.pcap" --count 4 --flows 1 --size 256 \
	--acks-every 2 --ack-flags 2 --ev-base 61000 >/dev/null
expect_eq "decoded ACKs" "$(fields "$TMP/count.pcap" | tr '\n' ';')" \
	"61000 61000 0 1 0 1 0x0000000000000000;61000 61000 0 1 1 2 0x0000000000000000;"

echo "-- data frames are not ofan ACKs"
"$PCAPGEN" flows --out "$TMP/data.pcap" --count 10 --flows 3 --size 512 >/dev/null
expect_eq "ofan fields in a capture without ACKs" \
	"$(fields "$TMP/data.pcap" | wc -l)" 0
expect_eq "the frames are still RoCE to tshark" \
	"$(tshark -X "lua_script:$LUA" -r "$TMP/data.pcap" -Y infiniband 2>/dev/null | wc -l)" 10

ofan_finish
