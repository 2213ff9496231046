#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""prdma-testpmd driven as a batch: a scripted session on two loopback
devices (objects, a local connection, a CM connection, every engine,
counters, faults) and bad commands, each answer checked.
usage: testpmd_batch.py <prdma-testpmd> <tmp dir>"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perf_common import EAL, fail  # noqa: E402


class Session:
    """stdin is a pipe, so testpmd runs as a batch and echoes each line."""

    def __init__(self, exe):
        self.p = subprocess.Popen([exe] + EAL + ["-l", "0-1", "--"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True, bufsize=1)
        self.log = []

    def cmd(self, line, until):
        """Send a line; read until a line matches @until; return those lines."""
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        out = []
        while True:
            got = self.p.stdout.readline()
            if got == "":
                print("\n".join(self.log + out))
                fail("testpmd ended while waiting for %r after %r" % (until, line))
            got = got.rstrip("\n")
            out.append(got)
            if re.search(until, got, re.M):
                break
        self.log += out
        if not any(o == "testpmd> " + line for o in out):
            fail("the batch did not echo %r" % line)
        return "\n".join(out)

    def expect(self, line, pattern, until=None):
        text = self.cmd(line, until or pattern)
        if not re.search(pattern, text, re.M):
            print(text)
            fail("%r: no line matches %r" % (line, pattern))
        return text


def stream_ops(text, stream):
    m = re.search(r"^%d\s+\d+\s+\w+\s+(\d+)\s+(\d+)" % stream, text, re.M)
    if m is None:
        print(text)
        fail("no statistics for stream %d" % stream)
    return int(m.group(1))


def scripted(exe):
    s = Session(exe)
    s.expect("probe roce:ring=tpt,side=0,ip=192.0.2.1", r"^device 0 \(roce\d+\) probed")
    s.expect("probe roce:ring=tpt,side=1,ip=192.0.2.2", r"^device 1 \(roce\d+\) probed")
    s.expect("show devices", r"^2 device\(s\)")
    s.expect("show port 1 1", r"GID\[0\] ::ffff:192\.0\.2\.2", r"GID")
    s.expect("show device 0", r"max transfer", r"max transfer")
    for d in (0, 1):
        s.expect("pd create %d" % d, r"^pd %d created on device %d" % (d, d))
        s.expect("cq create %d 512" % d, r"^cq %d created on device %d" % (d, d))
        s.expect("qp create %d rc %d %d 64 64" % (d, d, d), r"^qp %d created: QPN 0x[0-9a-f]{6} rc" % d)
    s.expect("mr create 0 8192 lw,rw,rr", r"^mr 0 created: 8192 bytes")
    s.expect("srq create 0 128", r"^srq 0 created on pd 0")
    text = s.expect("show qps 1", r"QP\(s\) on device 1")
    qpn1 = re.search(r"^qp 1: QPN (0x[0-9a-f]{6}) RC RESET", text, re.M)
    if qpn1 is None:
        fail("show qps: no QP 1 in RESET: " + text)
    s.expect("qp modify 0 init", r"^qp 0: now INIT")
    s.expect("qp connect 0 1 %s" % qpn1.group(1), r"connected to qp 1 .*: RTS/RTS")
    s.expect("show qp 1 %s" % qpn1.group(1), r"^qp 1: QPN %s RC RTS" % qpn1.group(1), r"caps:")
    s.expect("set fwd size 128", r"fwd size: 128 bytes")
    for eng, active_only in (("pingpong", False), ("write_bw", True), ("read_bw", True),
                             ("send_bw", False)):
        s.expect("start fwd %s 0,1" % eng, r"stream 1: qp 1 on lcore \d+ \(passive peer\)")
        s.cmd("sleep 300", r"^testpmd> sleep 300")
        live = s.expect("show fwd stats", r"^total: ")
        text = s.expect("stop", r"^total: ")
        if stream_ops(text, 0) == 0 or stream_ops(live, 0) == 0:
            fail("%s: stream 0 did nothing" % eng)
        if not active_only and stream_ops(text, 1) == 0:
            fail("%s: the passive peer did nothing" % eng)
        if eng == "pingpong" and not re.search(r"^0\s.*\s\d+\.\d+\s+\d+\.\d+\s+0$", text, re.M):
            print(text)
            fail("pingpong: no p50/p99 latency")
        print("fwd %s: %d ops" % (eng, stream_ops(text, 0)))
    text = s.expect("show counters 0", r"CNPsReceived")
    frames = re.search(r"RDMAOutFrames\s+(\d+)", text)
    if frames is None or int(frames.group(1)) == 0:
        fail("show counters: no frames sent: " + text)
    # The connection manager, over the same link.
    s.expect("cm listen 0 192.0.2.1 7471", r"listening on 192\.0\.2\.1:7471")
    text = s.expect("cm connect 1 192.0.2.1 7471", r"^cm: connected qp (\d+)",
                    r"^(cm: connected qp|Error)")
    cq = int(re.search(r"^cm: connected qp (\d+)", text, re.M).group(1))
    log = "\n".join(s.log)
    acc = re.search(r"accepted on qp (\d+)", log)
    if acc is None:
        fail("cm: the listener did not accept")
    s.expect("show cm", r"connection: qp %d" % cq, r"ids")
    s.expect("start fwd write_bw %d,%s" % (cq, acc.group(1)), r"stream 1: qp")
    s.cmd("sleep 200", r"^testpmd> sleep 200")
    text = s.expect("stop", r"^total: ")
    if stream_ops(text, 0) == 0:
        fail("write_bw over the CM connection did nothing")
    print("fwd write_bw over CM: %d ops" % stream_ops(text, 0))
    # Fault injection (the soft provider's): loss is recovered, and counted.
    s.expect("set fault 0 tx drop 20000", r"^device 0: tx drop at 20000 ppm")
    s.expect("start fwd write_bw 0,1", r"stream 1: qp 1")
    s.cmd("sleep 300", r"^testpmd> sleep 300")
    text = s.expect("stop", r"^total: ")
    if stream_ops(text, 0) == 0:
        fail("write_bw under 2 % loss did nothing")
    text = s.expect("show counters 1", r"CNPsReceived")
    if int(re.search(r"NAKsSent\s+(\d+)", text).group(1)) == 0 and \
            int(re.search(r"OutOfSequence\s+(\d+)", text).group(1)) == 0:
        text0 = s.expect("show counters 0", r"CNPsReceived")
        if int(re.search(r"Retransmits\s+(\d+)", text0).group(1)) == 0:
            fail("2 % loss left no trace in the counters")
    s.expect("clear fault 0", r"^device 0: faults cleared")
    # Bad commands: one readable line each, and the session goes on.
    bad = [
        ("frobnicate", r"^Error: unknown command"),
        ("qp create 0 rc 0 0", r"^Error: bad arguments"),
        ("pd destroy 7", r"^Error: no PD 7$"),
        ("show qp 0 0x123456", r"^Error: device 0 has no QP 0x123456"),
        ("probe nosuch:x=1", r"^Error: probe 'nosuch:x=1': No such device"),
        ("start fwd warp 0", r"^Error: unknown engine 'warp'"),
        ("cq destroy 0", r"^Error: CQ 0 destroy .*busy"),
        ("qp connect 0 to 0", r"^Error: QP 0 and QP 0 cannot be connected"),
        ("show device 9", r"^Error: no device 9"),
        ("mr create 0 64 xyz", r"^Error: bad access 'xyz'"),
        ("stop", r"^Error: forwarding is not running"),
        ("set fault 9 tx drop 5", r"^Error: no device 9"),
    ]
    for line, pattern in bad:
        s.expect(line, pattern, r"^Error")
    s.expect("qp destroy 1", r"^qp 1 destroyed")
    s.expect("help fwd", r"start fwd <pingpong", r"clear fault")
    s.p.stdin.write("quit\n")
    s.p.stdin.flush()
    rest, _ = s.p.communicate(timeout=30)
    if s.p.returncode != 0 or "bye" not in rest:
        print(rest)
        fail("quit: exit %d" % s.p.returncode)
    if "parse error(s)" not in rest:
        fail("no batch summary")


def from_file(exe, tmp):
    path = os.path.join(tmp, "session.txt")
    with open(path, "w") as f:
        f.write("# a comment is echoed, not run\nprobe roce:ring=tpf,side=0,ip=192.0.2.1\n"
                "pd create 0\nwhat now\nquit\nprobe never:run=1\n")
    p = subprocess.run([exe] + EAL + ["-l", "0", "--", "--cmdline-file", path],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=60)
    out = p.stdout
    for want in ("testpmd> # a comment is echoed, not run",
                 "testpmd> probe roce:ring=tpf,side=0,ip=192.0.2.1",
                 "pd 0 created on device 0", "Error: unknown command or wrong arguments: what now",
                 "batch done: 4 command(s), 1 parse error(s)"):
        if want not in out:
            print(out)
            fail("--cmdline-file: missing %r" % want)
    if "never:run" in out or p.returncode != 0:
        print(out)
        fail("--cmdline-file: ran past quit or failed")


def main():
    exe, tmp = sys.argv[1], sys.argv[2]
    os.makedirs(tmp, exist_ok=True)
    scripted(exe)
    from_file(exe, tmp)
    print("PASS")


if __name__ == "__main__":
    main()
