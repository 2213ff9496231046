#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""prdma-perf's out-of-band exchange against perftest's bytes.

1. A prdma-perf server and client over 127.0.0.1 (data over a memif link):
   the messages, their sizes and order must be those of the perftest
   captures (shared/pcaps/<test>.pcap, TCP 18515), the fixed messages
   byte for byte, the key messages in perftest's exact 108-byte format.
2. The client bytes of a real perftest capture are replayed to a
   prdma-perf server, which must answer each with a message of the size
   perftest read and finish cleanly.
usage: perf_oob.py <prdma-perf> <pcap dir> <tmp dir>
"""

import os
import re
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perf_common import EAL, fail, run_pair  # noqa: E402

KEY_RE = re.compile(rb"^[0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{6}:[0-9a-f]{6}:[0-9a-f]{8}:"
                    rb"[0-9a-f]{16}:([0-9a-f]{2}:){16}[0-9a-f]{8}:\x00$")


def pcap_exchange(pcap):
    out = subprocess.run(["tshark", "-r", pcap, "-Y", "tcp.len>0", "-T", "fields",
                          "-e", "tcp.dstport", "-e", "tcp.payload"],
                         capture_output=True, text=True, check=True).stdout
    seq = []
    for line in out.splitlines():
        port, payload = line.split("\t")
        seq.append(("c2s" if port == "18515" else "s2c", bytes.fromhex(payload)))
    return seq


def from_trace(trace, client):
    m = {"tx": "c2s", "rx": "s2c"} if client else {"tx": "s2c", "rx": "c2s"}
    return [(m[d], b) for d, b in trace]


def shape(seq):
    """(dir, len) list; the two closing 'done' may come in either order."""
    s = [(d, len(b)) for d, b in seq]
    if len(s) >= 2 and s[-1][1] == 5 and s[-2][1] == 5:
        s[-2:] = sorted(s[-2:])
    return s


def check_keys(test, seq):
    for d, b in seq:
        if len(b) != 108:
            continue
        if not KEY_RE.match(b):
            fail("%s: key message not in perftest's format: %r" % (test, b))
        out_reads = int(b[5:9], 16)
        if test in ("write_lat", "send_lat", "write_bw") and out_reads != 1:
            fail("%s: out_reads %d, perftest sends 1 for this test" % (test, out_reads))
        if test in ("read_lat", "atomic_lat") and out_reads < 2:
            fail("%s: out_reads %d, expected the device's READ limit" % (test, out_reads))
        if test == "send_lat" and b[24:32] != b"00000000":
            fail("send_lat: perftest advertises rkey 0 for SEND tests")


def compare(test, ours, ref):
    if shape(ours) != shape(ref):
        fail("%s: exchange differs from perftest's:\n ours %s\n perftest %s" %
             (test, shape(ours), shape(ref)))
    for (d, b), (_, r) in zip(ours, ref):
        if len(b) != 108 and b != r and len(b) != 8:
            # the closing 'done' may be swapped but is identical in content
            fail("%s: %s message differs: ours %s, perftest %s" % (test, d, b.hex(), r.hex()))
    check_keys(test, ours)


def bw_reference():
    """write_bw's exchange (the capture's snaplen cut the TCP payload):
    fixed messages, 3 keys, 1 key, 5 BW report values, 1 key, done."""
    seq = []
    for n in (16, 4, 4, 2) + (108,) * 4:
        seq += [("c2s", n), ("s2c", n)]
    for _ in range(5):
        seq += [("c2s", 8), ("s2c", 8)]
    seq += [("c2s", 108), ("s2c", 108), ("c2s", 5), ("s2c", 5)]
    return sorted(seq[-2:]) and seq[:-2] + sorted(seq[-2:])


def replay(perf, pcap, test, port):
    ref = pcap_exchange(pcap)
    srv = subprocess.Popen(
        [perf] + EAL + ["-l", "0", "--file-prefix", "r" + test, "--vdev=net_null0",
                        "--", test, "-p", str(port), "--timeout", "20",
                        "--devargs", "roce:port=0,ip=10.99.0.2,mac=52:54:00:99:00:02",
                        "--dmac", "52:54:00:99:00:03"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        s = None
        for _ in range(100):
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=20)
                break
            except OSError:
                time.sleep(0.1)
        if s is None:
            fail("replay %s: the server never listened" % test)
        got = []
        for d, b in ref:
            if d == "c2s":
                s.sendall(b)
            else:
                buf = b""
                while len(buf) < len(b):
                    chunk = s.recv(len(b) - len(buf))
                    if not chunk:
                        break
                    buf += chunk
                got.append(buf)
                if len(buf) != len(b):
                    fail("replay %s: server sent %d bytes where perftest sent %d" %
                         (test, len(buf), len(b)))
                if len(b) != 108 and buf != b:
                    fail("replay %s: server sent %s, perftest %s" % (test, buf.hex(), b.hex()))
                if len(b) == 108 and not KEY_RE.match(buf):
                    fail("replay %s: bad key message %r" % (test, buf))
        s.close()
        out, _ = srv.communicate(timeout=30)
    finally:
        if srv.poll() is None:
            srv.kill()
    if srv.returncode != 0:
        print(out)
        fail("replay %s: the server failed (rc %d)" % (test, srv.returncode))
    # The server must have taken the capture's client key as its peer.
    if "QPN 0x0011 PSN 0x" not in out or "255:255:10:99:00:03" not in out:
        print(out)
        fail("replay %s: the server did not print the captured peer's key" % test)
    print("replay %s: %d server messages match perftest's sizes" % (test, len(got)))


def main():
    perf, pcaps, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(tmp, exist_ok=True)
    base = 19300 + os.getpid() % 500
    for i, test in enumerate(("write_lat", "read_lat", "send_lat", "atomic_lat")):
        sout, cout, st, ct = run_pair(perf, test, ["-n", "50"], tmp, base + i)
        ref = pcap_exchange(os.path.join(pcaps, test + ".pcap"))
        # Neither side reads the other's closing "done": take it from the
        # other side's trace to see the whole conversation.
        cv, sv = from_trace(ct, True), from_trace(st, False)
        if cv and len(cv[-1][1]) == 5:
            cv.append(sv[-1])
            sv.append(from_trace(ct, True)[-1])
        compare(test, cv, ref)
        compare(test, sv, ref)
        # What one side sent is what the other received.
        tx = [b for d, b in ct if d == "tx"]
        rx = [b for d, b in st if d == "rx"]
        if tx[:len(rx)] != rx or len(tx) - len(rx) > 1:
            fail("%s: server received other bytes than the client sent" % test)
        print("%s: %d messages, same order, sizes and fixed bytes as perftest" %
              (test, len(ct)))
    sout, cout, st, ct = run_pair(perf, "write_bw", ["-n", "200", "-s", "4096"],
                                  tmp, base + 10)
    cv = from_trace(ct, True) + [from_trace(st, False)[-1]]
    if shape(cv) != bw_reference():
        fail("write_bw: exchange %s, perftest's %s" % (shape(cv), bw_reference()))
    check_keys("write_bw", from_trace(ct, True))
    if "MsgRate[Mpps]" not in sout or " 4096 " not in sout:
        print(sout)
        fail("write_bw: the server did not print the client's report")
    print("write_bw: exchange and BW report as perftest's")
    # -R: the connection manager instead of TCP; the exchange rides on SENDs.
    for i, test in enumerate(("write_bw", "send_lat", "read_lat")):
        sout, cout, st, ct = run_pair(perf, test, ["-R", "-n", "200", "-s", "64"], tmp,
                                      base + 30 + i, host="192.0.2.1")
        if "rdma_cm QPs\t : ON" not in cout or not re.search(r"^ 64 ", cout, re.M):
            print(cout)
            fail("-R %s: no result row" % test)
        if st or ct:
            fail("-R %s: the TCP exchange was used" % test)
        print("-R %s: connected through the CM, results printed" % test)
    for i, test in enumerate(("read_lat", "atomic_lat")):
        replay(perf, os.path.join(pcaps, test + ".pcap"), test, base + 20 + i)
    print("PASS")


if __name__ == "__main__":
    main()
