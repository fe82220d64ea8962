#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Transmit rate of a DPDK port through its telemetry socket.

  telemetry-rate.py SOCKET PORT WARMUP_S DURATION_S
  telemetry-rate.py --count SOCKET PORT WAIT_S

Waits WARMUP_S, then reads /ethdev/stats,PORT (opackets) once a second
until DURATION_S have passed since the start, and prints
"MEAN_MPPS N SAMPLE;SAMPLE;..." (each sample the rate over its second by
the clock between the reads), or "nan 0 -" when the socket never answered.
With --count: waits up to WAIT_S for the socket and prints the port's
opackets once (or "nan").
For programs like l3fwd that print no rates of their own; a --no-huge
primary cannot have secondaries, so dpdk-proc-info is no option.
"""
import json
import socket
import sys
import time


def opackets(path, port):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        s.connect(path)
        s.recv(1024)                       # the greeting
        s.send(("/ethdev/stats,%d" % port).encode())
        reply = json.loads(s.recv(1 << 16).decode())
        return reply["/ethdev/stats"]["opackets"]
    finally:
        s.close()


def count(path, port, wait):
    start = time.monotonic()
    while time.monotonic() - start < wait:
        try:
            print(opackets(path, port))
            return
        except (OSError, ValueError, KeyError):
            time.sleep(0.2)
    print("nan")


def main():
    if sys.argv[1] == "--count":
        count(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
        return
    path, port = sys.argv[1], int(sys.argv[2])
    warmup, duration = float(sys.argv[3]), float(sys.argv[4])
    start = time.monotonic()
    prev = None
    while time.monotonic() - start < warmup + duration + 30:
        try:
            prev = (time.monotonic(), opackets(path, port))
            break
        except (OSError, ValueError, KeyError):
            time.sleep(0.1)
    if prev is None:
        print("nan 0 -")
        return
    time.sleep(max(0.0, warmup - (time.monotonic() - start)))
    prev = (time.monotonic(), opackets(path, port))
    rates = []
    while time.monotonic() - start < warmup + duration - 0.5:
        time.sleep(1.0)
        now = (time.monotonic(), opackets(path, port))
        rates.append((now[1] - prev[1]) / (now[0] - prev[0]) / 1e6)
        prev = now
    if not rates:
        print("nan 0 -")
        return
    print("%.3f %d %s" % (sum(rates) / len(rates), len(rates),
                          ";".join("%.3f" % r for r in rates)))


if __name__ == "__main__":
    main()
