#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The fault driver of testbed/soak.sh: faults and reads through telemetry.

  soak_driver.py switch --prefix P --ports 1,2,3,4 --seconds S --out F.json
                 [--capture CAPTURE.SH --capture-dir DIR] [--seed N]
      every 100 ms: fail a random port (down, blackhole or degraded at a
      random rate) or restore one, then read every /ofan/ endpoint and
      check it (the ports' link states are what was asked; counters never
      go backwards); every 3 s a capture for 1 s, of every port first,
      then of a random one (capture.sh --force: the switch reads a pcap
      file); at the end every
      port restored and every capture finished.
  soak_driver.py flap --prefixes P1,P2 --ports 2,3 --until-pid PID
                 --out F.json [--seed N]
      until process PID ends: every 200 ms take a random uplink of a random
      switch down (or black-holed) for 50 to 150 ms, then back.

Both sample the resident memory (VmRSS) of every process whose command
line has "--file-prefix PREFIX" (switch: P; flap: --rss-prefix) once a
second, and write what they did to F.json: faults by kind, telemetry
reads, captures and their packets, errors, and each process's RSS
samples.  Exit 1 if any check failed (the errors are in F.json and on
stderr).
"""
import argparse
import glob
import json
import os
import random
import signal
import socket
import struct
import subprocess
import sys
import time

ENDPOINTS = ("/ofan/ports", "/ofan/queues", "/ofan/drops", "/ofan/policy",
             "/ofan/groups")
MONOTONIC = ("rx", "tx", "rx_drops", "drop", "picked")


def runtime_dir(prefix):
    """Where EAL keeps the runtime files of --file-prefix prefix."""
    return f"/var/run/dpdk/{prefix}"


class Telemetry:
    """One DPDK telemetry connection (SOCK_SEQPACKET, v2 protocol)."""

    def __init__(self, prefix, wait_s=30.0):
        path = f"{runtime_dir(prefix)}/dpdk_telemetry.v2"
        deadline = time.monotonic() + wait_s
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        json.loads(self.sock.recv(1 << 16).decode())   # the greeting

    def ask(self, cmd):
        self.sock.send(cmd.encode())
        reply = json.loads(self.sock.recv(1 << 20).decode())
        return reply[cmd.split(",")[0]]

    def close(self):
        self.sock.close()


def pids_of(prefix):
    """PIDs of the processes started with --file-prefix PREFIX*."""
    out = {}
    for d in glob.glob("/proc/[0-9]*"):
        try:
            argv = open(f"{d}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        for i, a in enumerate(argv[:-1]):
            if a == b"--file-prefix" and argv[i + 1].decode(errors="replace").startswith(prefix):
                out[int(os.path.basename(d))] = argv[i + 1].decode(errors="replace")
    return out


def rss_kib(pid):
    """[VmRSS, RssAnon, RssShmem] in KiB, None if the process is gone."""
    want = {"VmRSS:": 0, "RssAnon:": 1, "RssShmem:": 2}
    out = [None, 0, 0]
    try:
        for line in open(f"/proc/{pid}/status"):
            w = line.split()
            if w and w[0] in want:
                out[want[w[0]]] = int(w[1])
    except OSError:
        return None
    return out if out[0] is not None else None


class Rss:
    """Resident memory of every process of a prefix, once a second:
    [t, VmRSS, RssAnon, RssShmem] (KiB)."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.samples = {}     # name -> [[t, kib], ...]
        self.next = 0.0

    def sample(self, t, force=False):
        if not force and t < self.next:
            return
        self.next = t + 1.0
        for pid, name in pids_of(self.prefix).items():
            kib = rss_kib(pid)
            if kib is not None:
                self.samples.setdefault(name, []).append([round(t, 3)] + kib)


class Report:
    def __init__(self):
        self.errors = []
        self.faults = {}
        self.reads = 0

    def error(self, msg):
        if len(self.errors) < 50:
            self.errors.append(msg)
        print(f"soak_driver: {msg}", file=sys.stderr)

    def fault(self, kind):
        self.faults[kind] = self.faults.get(kind, 0) + 1


def fail_cmd(port, mode, rate_g=None):
    return f"/ofan/fail,{port},{mode}" + (f",{rate_g}G" if rate_g else "")


def apply(tel, rep, cmd, what):
    r = tel.ask(cmd)
    for _ in range(50):
        if r is not None:
            break
        # Not registered yet: the switch is still starting.
        time.sleep(0.1)
        r = tel.ask(cmd)
    if not isinstance(r, dict) or r.get("result") != "applied":
        rep.error(f"{cmd}: {r}")
        return False
    rep.fault(what)
    return True


def check_reads(tel, rep, links, prev):
    """Every endpoint answers; links as asked; counters never go back."""
    for ep in ENDPOINTS:
        r = tel.ask(ep)
        rep.reads += 1
        if not isinstance(r, (dict, list)) or not r:
            rep.error(f"{ep}: empty or not JSON: {r!r:.200}")
            return
        if ep != "/ofan/ports":
            continue
        for p, want in links.items():
            got = r.get(str(p), {}).get("link")
            if got != want:
                rep.error(f"/ofan/ports: port {p} is {got}, asked {want}")
        for p, d in r.items():
            for k in MONOTONIC:
                key = (p, k)
                if key in prev and d.get(k, 0) < prev[key]:
                    rep.error(f"/ofan/ports: port {p} {k} went back "
                              f"from {prev[key]} to {d.get(k)}")
                prev[key] = d.get(k, 0)


class Stop(Exception):
    """SIGTERM: end now, cleanly (the capture first)."""


def on_term(signum, frame):
    raise Stop()


def stop_capture(cap, rep, captures, now=False):
    """End a capture still running before anyone stops the switch: a
    switch stopping with a capture attached crashes (capture.sh).  It
    ends by itself after its second; now: at once (capture.sh stops
    dumpcap cleanly on SIGINT), as when this driver is stopped."""
    if cap is None:
        return
    if now:
        cap[0].send_signal(signal.SIGINT)
    try:
        cap[0].wait(timeout=3 if now else 30)
    except subprocess.TimeoutExpired:
        cap[0].send_signal(signal.SIGINT)
        try:
            cap[0].wait(timeout=3)
        except subprocess.TimeoutExpired:
            cap[0].kill()
            cap[0].wait()
    captures.append(finish_capture(cap, rep))


def run_switch(a):
    rng = random.Random(a.seed)
    ports = [int(p) for p in a.ports.split(",")]
    rep = Report()
    rss = Rss(a.prefix)
    links = {p: "up" for p in ports}
    prev = {}
    captures = []
    attach_retries = []     # dumpcap's output of each capture retried
    cap = None
    retry_port = None       # the port of a capture that did not attach
    tel = None
    start = time.monotonic()
    next_cap = start + 1.0
    tick = start
    signal.signal(signal.SIGTERM, on_term)
    try:
        tel = Telemetry(a.prefix)
        while time.monotonic() - start < a.seconds:
            now = time.monotonic()
            rss.sample(now - start)
            failed = [p for p in ports if links[p] != "up"]
            if failed and rng.random() < 0.4:
                p = rng.choice(failed)
                if apply(tel, rep, f"/ofan/restore,{p}", "restore"):
                    links[p] = "up"
            else:
                p = rng.choice(ports)
                mode = rng.choice(("down", "blackhole", "degraded"))
                rate = rng.choice((1, 2, 5)) if mode == "degraded" else None
                if apply(tel, rep, fail_cmd(p, mode, rate), mode):
                    links[p] = mode
            check_reads(tel, rep, links, prev)
            if a.capture and cap is None and now >= next_cap:
                out = f"{a.capture_dir}/capture-{len(captures)}.pcapng"
                # The first of every port; then one at random.
                p = "all" if not captures else \
                    rng.choice([str(x) for x in ports] + ["0", "all"])
                if retry_port is not None:
                    p = retry_port
                # Not on this driver's CPU alone: dpdk-dumpcap pinned to
                # the CPU of the switch's control threads can time out
                # disabling its capture, and DPDK 22.11 then leaves the
                # switch copying into a freed ring (docs/switch.md,
                # "Telemetry and capture").
                cap = (subprocess.Popen(
                    [a.capture, "--file-prefix", a.prefix, "--port", str(p),
                     "--duration", "1", "--out", out, "--force"],
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                    text=True, preexec_fn=lambda: os.sched_setaffinity(
                        0, range(os.cpu_count()))),
                    out, p)
                next_cap = now + 3.0
            if cap is not None and cap[0].poll() is not None:
                c = finish_capture(cap, rep, may_retry=retry_port is None)
                if "retry" in c:
                    # Once, half a second later; a second miss is an error.
                    attach_retries.append(c["retry"])
                    retry_port = c["port"]
                    next_cap = now + 0.5
                else:
                    captures.append(c)
                    retry_port = None
                cap = None
            tick += 0.1
            time.sleep(max(0.0, tick - time.monotonic()))
        stop_capture(cap, rep, captures)
        cap = None
        for p in ports:
            if links[p] != "up" and apply(tel, rep, f"/ofan/restore,{p}",
                                          "restore"):
                links[p] = "up"
        check_reads(tel, rep, links, prev)
    except Stop:
        rep.error("stopped by SIGTERM before the end")
    except (OSError, ValueError, KeyError) as e:
        # The switch is gone or answers nonsense: that is the finding.
        rep.error(f"telemetry: {type(e).__name__}: {e}")
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        stop_capture(cap, rep, captures, now=True)
        if tel is not None:
            tel.close()
    rss.sample(time.monotonic() - start, force=True)
    done(a, rep, rss, start, captures=captures,
         packets_captured=sum(c["packets"] for c in captures),
         capture_attach_retries=attach_retries)


def pcapng_packets(path):
    """Enhanced packet blocks (type 6) in a pcapng file."""
    n = 0
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return 0
    off = 0
    order = "<" if data[8:12] == b"\x4d\x3c\x2b\x1a" else ">"
    while off + 12 <= len(data):
        btype, blen = struct.unpack_from(order + "II", data, off)
        if blen < 12:
            break
        n += btype == 6
        off += blen
    return n


def finish_capture(cap, rep, may_retry=False):
    """The capture's figures.  One that never attached (capture.sh did not
    say "capturing": dpdk-dumpcap's secondary could not probe the switch's
    ports -- seen once in CI, under load, in DPDK's vdev probe; the switch
    is not touched) is marked "retry" when may_retry, not an error."""
    proc, out, port = cap
    text = proc.communicate()[0]
    packets = pcapng_packets(out)
    if proc.returncode != 0 and may_retry and \
            "capture.sh: capturing" not in text:
        try:
            os.unlink(out)
        except OSError:
            pass
        return {"port": port, "packets": 0, "bytes": 0,
                "status": proc.returncode, "retry": text[-2000:]}
    if proc.returncode != 0:
        rep.error(f"capture of port {port} failed ({proc.returncode}): {text[-2000:]}")
    elif packets == 0 and port in ("all", "0"):
        # The source port receives all the time; an uplink may be down.
        rep.error(f"capture of port {port} caught nothing: {text[-300:]}")
    try:
        size = os.path.getsize(out)
        os.unlink(out)     # the counts are kept, not the files
    except OSError:
        size = 0
    return {"port": port, "packets": packets, "bytes": size,
            "status": proc.returncode}


def alive(pid):
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    # A zombie (exited, not yet reaped) is gone too.
    try:
        return open(f"/proc/{pid}/stat").read().split()[2] != "Z"
    except OSError:
        return False


def hosts_running(prefix, seen, log=None):
    """Whether the hosts' process (PREFIX-hosts-*) runs its traffic; seen[0]
    once it did.  Once its log (LOG) says it holds its ports (--hold-exit),
    the traffic is over and testbed.sh stops the switches."""
    up = any(n.startswith(prefix + "hosts") for n in pids_of(prefix).values())
    seen[0] = seen[0] or up
    if up and log is not None:
        try:
            with open(log, errors="replace") as f:
                up = "holding the ports" not in f.read()
        except OSError:
            pass
    return up


def run_flap(a):
    rng = random.Random(a.seed)
    ports = [int(p) for p in a.ports.split(",")]
    prefixes = a.prefixes.split(",")
    rep = Report()
    rss = Rss(a.rss_prefix)
    tels = {}
    down = {}       # (prefix, port) -> time to restore
    seen = [False]
    start = time.monotonic()
    next_flap = start + 0.5

    def tel(pfx):
        if pfx not in tels:
            tels[pfx] = Telemetry(pfx, wait_s=5.0)
        return tels[pfx]

    # Until the hosts are done: then the switches stop, and a process
    # that is stopping is neither flapped nor measured.
    while alive(a.until_pid) and (hosts_running(a.rss_prefix, seen,
                                                a.hosts_log) or
                                  not seen[0]):
        now = time.monotonic()
        rss.sample(now - start)
        try:
            for key, until in list(down.items()):
                if now >= until:
                    pfx, p = key
                    if apply(tel(pfx), rep, f"/ofan/restore,{p}", "restore"):
                        del down[key]
            if now >= next_flap:
                next_flap = now + 0.2
                pfx, p = rng.choice(prefixes), rng.choice(ports)
                if (pfx, p) not in down:
                    mode = "down" if rng.random() < 0.8 else "blackhole"
                    if apply(tel(pfx), rep, fail_cmd(p, mode), mode):
                        down[(pfx, p)] = now + rng.uniform(0.05, 0.15)
        except (OSError, ValueError, KeyError) as e:
            # Before the switches answer, or once they stop: not errors.
            if hosts_running(a.rss_prefix, seen, a.hosts_log):
                rep.error(f"telemetry: {e}")
            for t in tels.values():
                t.close()
            tels = {}
            time.sleep(0.1)
        time.sleep(0.01)
    # The hosts hold their ports now: measure them once more, so that a
    # part whose traffic took under a second of samples still has them.
    rss.sample(time.monotonic() - start, force=True)
    for t in tels.values():
        t.close()
    done(a, rep, rss, start)


def done(a, rep, rss, start, **extra):
    res = {"seconds": round(time.monotonic() - start, 3),
           "faults": rep.faults, "faults_total": sum(rep.faults.values()),
           "telemetry_reads": rep.reads, "errors": rep.errors,
           "rss_kib": rss.samples}
    res.update(extra)
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    sys.exit(1 if rep.errors else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    s = sub.add_parser("switch")
    s.add_argument("--prefix", required=True)
    s.add_argument("--ports", required=True)
    s.add_argument("--seconds", type=float, required=True)
    s.add_argument("--capture")
    s.add_argument("--capture-dir")
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--out", required=True)
    f = sub.add_parser("flap")
    f.add_argument("--prefixes", required=True)
    f.add_argument("--ports", required=True)
    f.add_argument("--until-pid", type=int, required=True)
    f.add_argument("--rss-prefix", required=True)
    f.add_argument("--hosts-log", help="the hosts' log: its traffic is over "
                   "once it says it holds its ports (--hold-exit)")
    f.add_argument("--seed", type=int, default=1)
    f.add_argument("--out", required=True)
    a = ap.parse_args()
    (run_switch if a.what == "switch" else run_flap)(a)


if __name__ == "__main__":
    main()
