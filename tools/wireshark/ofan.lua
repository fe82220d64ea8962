-- SPDX-License-Identifier: BSD-3-Clause
--
-- Wireshark / tshark dissector for ofan's ACK feedback extension.
--
-- ofan's frames are RoCEv2 (UDP 4791), which Wireshark's InfiniBand
-- dissector reads up to the BTH and, for ACKs (opcode RC ACKNOWLEDGE,
-- 0x11), the AETH.  The 20 bytes after the AETH are ofan's own
-- (common/ofan_wire.h, struct ofan_ack_ext, network byte order):
--
--   echo_ev   u16  UDP source port (EV) of the data packet acknowledged
--   flags     u8   0x01 CE: that packet arrived marked; 0x02 COUNT:
--                  cum_psn counts packets (erasure recovery)
--   reserved  u8
--   echo_psn  u32  PSN of the data packet acknowledged
--   cum_psn   u32  every PSN below it was received (COUNT: packets received)
--   sack      u64  bit i: PSN cum_psn + 1 + i was received
--
-- This post-dissector adds them as fields ofan.ev, ofan.flags, ofan.ce,
-- ofan.count, ofan.echo_psn, ofan.cum_psn and ofan.sack:
--
--   tshark -X lua_script:tools/wireshark/ofan.lua -r capture.pcap \
--       -Y ofan -T fields -e ofan.ev -e ofan.ce -e ofan.cum_psn -e ofan.sack
--
-- or copy it into Wireshark's personal plugins folder (Help > About >
-- Folders).
local ofan = Proto("ofan", "ofan ACK feedback")

local f_ev = ProtoField.uint16("ofan.ev", "Echoed EV (UDP source port)")
local f_flags = ProtoField.uint8("ofan.flags", "Flags", base.HEX)
local f_ce = ProtoField.bool("ofan.ce", "CE (acknowledged packet arrived marked)", 8, nil, 0x01)
local f_count = ProtoField.bool("ofan.count", "COUNT (cum_psn counts packets)", 8, nil, 0x02)
local f_echo_psn = ProtoField.uint32("ofan.echo_psn", "Echoed PSN")
local f_cum_psn = ProtoField.uint32("ofan.cum_psn", "Cumulative PSN")
local f_sack = ProtoField.uint64("ofan.sack", "SACK bitmap", base.HEX)
ofan.fields = { f_ev, f_flags, f_ce, f_count, f_echo_psn, f_cum_psn, f_sack }

local udp_dst = Field.new("udp.dstport")
local bth_opcode = Field.new("infiniband.bth.opcode")

local ROCEV2_PORT = 4791
local OP_RC_ACK = 0x11
local BTH_SIZE, AETH_SIZE, EXT_SIZE, UDP_SIZE = 12, 4, 20, 8

function ofan.dissector(tvb, pinfo, tree)
	local dst = udp_dst()
	local op = bth_opcode()
	if dst == nil or dst.value ~= ROCEV2_PORT or op == nil or
	   op.value ~= OP_RC_ACK then
		return
	end
	-- The BTH starts right after the UDP header; its opcode field is its
	-- first byte, so the BTH's offset in the frame is the opcode's.
	local start = op.offset
	local ext = start + BTH_SIZE + AETH_SIZE
	if tvb:len() < ext + EXT_SIZE then
		return
	end
	local t = tree:add(ofan, tvb(ext, EXT_SIZE))
	t:add(f_ev, tvb(ext, 2))
	t:add(f_flags, tvb(ext + 2, 1))
	t:add(f_ce, tvb(ext + 2, 1))
	t:add(f_count, tvb(ext + 2, 1))
	t:add(f_echo_psn, tvb(ext + 4, 4))
	t:add(f_cum_psn, tvb(ext + 8, 4))
	t:add(f_sack, tvb(ext + 12, 8))
	local ce = bit.band(tvb(ext + 2, 1):uint(), 1) ~= 0
	pinfo.cols.info:append(string.format(" [ofan EV %d%s cum %d]",
		tvb(ext, 2):uint(), ce and " CE" or "", tvb(ext + 8, 4):uint()))
end

register_postdissector(ofan)
