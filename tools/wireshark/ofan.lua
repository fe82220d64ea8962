-- SPDX-License-Identifier: BSD-3-Clause
--
-- Wireshark / tshark dissector for ofan's ACK feedback extension and
-- its marks.
--
-- ofan's frames are RoCEv2 (UDP 4791), which Wireshark's InfiniBand
-- dissector reads up to the BTH and, for ACKs (opcode RC ACKNOWLEDGE,
-- 0x11), the AETH.  The 20 bytes after the AETH are ofan's own
-- (common/ofan_wire.h, struct ofan_ack_ext, network byte order):
--
--   echo_ev   u16  UDP source port (EV) of the data packet acknowledged
--   flags     u8   0x01 CE: that packet arrived marked; 0x02 COUNT:
--                  cum_psn counts packets (erasure recovery); 0x04 PULL:
--                  a receiver's credit, cum_psn the 256-byte quanta
--                  granted so far (UEC's RCCC)
--   reserved  u8
--   echo_psn  u32  PSN of the data packet acknowledged
--   cum_psn   u32  every PSN below it was received (COUNT: packets received)
--   sack      u64  bit i: PSN cum_psn + 1 + i was received
--
-- An ACK whose AETH syndrome has both 0x60 bits is a NAK (ofan.nak): the
-- receiver asks for echo_psn again (a trimmed header's, or go-back-N's
-- expected PSN).
--
-- Marks (common/ofan_wire.h, OFAN_BTH_MARK_*) sit in the BTH's reserved
-- byte (byte 4, the high byte of the destination QP word), which RoCEv2
-- endpoints send as zero: 0x01 trimmed (a switch cut the payload off,
-- ofan.trimmed), 0x02 returned (a switch sent the header back to its
-- sender, addresses swapped, ofan.returned), 0x04 speculative (sent on
-- a receiver-driven sender's first credit, ofan.spec), 0x08 last hop
-- (with 0x01: trimmed in front of a host, ofan.last_hop).  A frame with a
-- mark gets an ofan subtree with ofan.mark and those flags.  A NAK of a
-- last-hop trim has flag 0x08 too (ofan.nack_last_hop).
--
-- This post-dissector adds them as fields ofan.ev, ofan.flags, ofan.ce,
-- ofan.count, ofan.echo_psn, ofan.cum_psn, ofan.sack, ofan.nak,
-- ofan.mark, ofan.trimmed and ofan.returned:
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
local f_pull = ProtoField.bool("ofan.pull", "PULL (cum_psn: credit granted, quanta)", 8, nil, 0x04)
local f_nack_last_hop = ProtoField.bool("ofan.nack_last_hop", "LAST_HOP (the NAKed packet was trimmed on its last hop)", 8, nil, 0x08)
local f_pull_queue = ProtoField.uint8("ofan.pull_queue", "Receiver's PULL queue (bit length of the flows waiting for credit)")
local f_echo_psn = ProtoField.uint32("ofan.echo_psn", "Echoed PSN")
local f_cum_psn = ProtoField.uint32("ofan.cum_psn", "Cumulative PSN")
local f_sack = ProtoField.uint64("ofan.sack", "SACK bitmap", base.HEX)
local f_nak = ProtoField.bool("ofan.nak", "NAK (AETH syndrome 0x60: resend echo_psn)")
local f_mark = ProtoField.uint8("ofan.mark", "Marks (BTH reserved byte)", base.HEX)
local f_trimmed = ProtoField.bool("ofan.trimmed", "Trimmed (payload cut off by a switch)", 8, nil, 0x01)
local f_returned = ProtoField.bool("ofan.returned", "Returned (sent back to its sender)", 8, nil, 0x02)
local f_spec = ProtoField.bool("ofan.spec", "Speculative (on the first credit)", 8, nil, 0x04)
local f_last_hop = ProtoField.bool("ofan.last_hop", "Last hop (trimmed in front of a host)", 8, nil, 0x08)
ofan.fields = { f_ev, f_flags, f_ce, f_count, f_pull, f_nack_last_hop,
	f_pull_queue, f_echo_psn, f_cum_psn, f_sack, f_nak, f_mark, f_trimmed, f_returned,
	f_spec, f_last_hop }

local udp_dst = Field.new("udp.dstport")
local bth_opcode = Field.new("infiniband.bth.opcode")

local ROCEV2_PORT = 4791
local OP_RC_ACK = 0x11
local BTH_SIZE, AETH_SIZE, EXT_SIZE, UDP_SIZE = 12, 4, 20, 8

local MARK_OFFSET, MARK_TRIMMED, MARK_RETURNED = 4, 0x01, 0x02
local SYN_NAK_MASK = 0x60

function ofan.dissector(tvb, pinfo, tree)
	local dst = udp_dst()
	local op = bth_opcode()
	if dst == nil or dst.value ~= ROCEV2_PORT or op == nil then
		return
	end
	-- The BTH starts right after the UDP header; its opcode field is its
	-- first byte, so the BTH's offset in the frame is the opcode's.
	local start = op.offset
	if tvb:len() >= start + BTH_SIZE then
		local mark = tvb(start + MARK_OFFSET, 1):uint()
		if mark ~= 0 then
			local m = tree:add(ofan, tvb(start + MARK_OFFSET, 1))
			m:add(f_mark, tvb(start + MARK_OFFSET, 1))
			m:add(f_trimmed, tvb(start + MARK_OFFSET, 1))
			m:add(f_returned, tvb(start + MARK_OFFSET, 1))
			m:add(f_spec, tvb(start + MARK_OFFSET, 1))
			m:add(f_last_hop, tvb(start + MARK_OFFSET, 1))
			if bit.band(mark, MARK_RETURNED) ~= 0 then
				pinfo.cols.info:append(" [ofan returned]")
			elseif bit.band(mark, MARK_TRIMMED) ~= 0 then
				pinfo.cols.info:append(" [ofan trimmed]")
			end
		end
	end
	if op.value ~= OP_RC_ACK then
		return
	end
	local ext = start + BTH_SIZE + AETH_SIZE
	if tvb:len() < ext + EXT_SIZE then
		return
	end
	local t = tree:add(ofan, tvb(ext, EXT_SIZE))
	t:add(f_ev, tvb(ext, 2))
	t:add(f_flags, tvb(ext + 2, 1))
	t:add(f_ce, tvb(ext + 2, 1))
	t:add(f_count, tvb(ext + 2, 1))
	t:add(f_pull, tvb(ext + 2, 1))
	t:add(f_nack_last_hop, tvb(ext + 2, 1))
	t:add(f_pull_queue, tvb(ext + 3, 1))
	t:add(f_echo_psn, tvb(ext + 4, 4))
	t:add(f_cum_psn, tvb(ext + 8, 4))
	t:add(f_sack, tvb(ext + 12, 8))
	local syn = tvb(start + BTH_SIZE, 1)
	local nak = bit.band(syn:uint(), SYN_NAK_MASK) == SYN_NAK_MASK
	t:add(f_nak, syn, nak)
	local ce = bit.band(tvb(ext + 2, 1):uint(), 1) ~= 0
	pinfo.cols.info:append(string.format(" [ofan %sEV %d%s cum %d]",
		nak and "NAK " or "", tvb(ext, 2):uint(), ce and " CE" or "",
		tvb(ext + 8, 4):uint()))
end

register_postdissector(ofan)
