#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""prdma-perf's out-of-band exchange against perftest's bytes.

1. A prdma-perf server and client over 127.0.0.1 (data over a memif link):
   the messages, their sizes and order must be those of the perftest
   captures (tests/data/pcaps/<test>.pcap, TCP 18515), the fixed messages
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
from perf_common import EAL, fail, run_pair, write_stamps  # noqa: E402

KEY_RE = re.compile(rb"^[0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{6}:[0-9a-f]{6}:[0-9a-f]{8}:"
                    rb"[0-9a-f]{16}:([0-9a-f]{2}:){16}[0-9a-f]{8}:\x00$")
# perftest's no-GID key (cm-perftest-facts.md 5.2): the same first 50 bytes,
# the srqn and a NUL.
KEY59_RE = re.compile(rb"^[0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{6}:[0-9a-f]{6}:[0-9a-f]{8}:"
                      rb"[0-9a-f]{16}:[0-9a-f]{8}\x00$")


def to59(b):
    """A 108-byte key as the same peer sends it without a GID index."""
    return b[:50] + b[98:106] + b"\x00" if len(b) == 108 else b


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


def replay(perf, pcap, test, port, short_keys=False):
    ref = pcap_exchange(pcap)
    if short_keys:
        ref = [(d, to59(b)) for d, b in ref]
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
                if len(b) not in (59, 108) and buf != b:
                    fail("replay %s: server sent %s, perftest %s" % (test, buf.hex(), b.hex()))
                if len(b) == 108 and not KEY_RE.match(buf):
                    fail("replay %s: bad key message %r" % (test, buf))
                if len(b) == 59 and not KEY59_RE.match(buf):
                    fail("replay %s: bad 59-byte key message %r" % (test, buf))
        s.close()
        out, _ = srv.communicate(timeout=30)
    finally:
        if srv.poll() is None:
            srv.kill()
    if srv.returncode != 0:
        print(out)
        fail("replay %s: the server failed (rc %d)" % (test, srv.returncode))
    # The server must have taken the capture's client key as its peer.
    if "QPN 0x0011 PSN 0x" not in out or \
            (not short_keys and "255:255:10:99:00:03" not in out):
        print(out)
        fail("replay %s: the server did not print the captured peer's key" % test)
    print("replay %s%s: %d server messages match perftest's sizes" %
          (test, " (59-byte keys)" if short_keys else "", len(got)))


def malformed(perf, pcap, port):
    """A key message perftest could not parse: one clear line, exit 1."""
    ref = pcap_exchange(pcap)
    srv = subprocess.Popen(
        [perf] + EAL + ["-l", "0", "--file-prefix", "mal", "--vdev=net_null0",
                        "--", "read_lat", "-p", str(port), "--timeout", "20",
                        "--devargs", "roce:port=0,ip=10.99.0.2,mac=52:54:00:99:00:02",
                        "--dmac", "52:54:00:99:00:03"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        s = None
        for _ in range(100):
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=20)
                break
            except OSError:
                time.sleep(0.1)
        if s is None:
            fail("malformed: the server never listened")
        for d, b in ref:
            if d == "c2s" and len(b) == 108:
                # One GID byte loses a digit: perftest would read the
                # srqn from the wrong place.
                s.sendall(b[:52] + b[53:] + b"\x00")
                break
            if d == "c2s":
                s.sendall(b)
            else:
                s.recv(len(b))
        out, err = srv.communicate(timeout=30)
        s.close()
    finally:
        if srv.poll() is None:
            srv.kill()
    lines = [l for l in err.splitlines() if "malformed" in l]
    if srv.returncode == 0 or len(lines) != 1:
        print(out + err)
        fail("malformed key: rc %d, lines %r" % (srv.returncode, lines))
    print("malformed key refused: %s" % lines[0])


def write_lat_roles(perf, pcaps, tmp, port):
    """write_lat as perftest plays it (write_lat-roce.pcap): the server
    writes first, and each side's stamps run 1, 2, ... as (char)++scnt, so
    the 256th is 0. prdma's own capture of -n 300 must show the same."""
    ref = write_stamps(os.path.join(pcaps, "write_lat-roce.pcap"))
    if not ref or ref[0][0] != "10.99.0.2":
        fail("write_lat-roce.pcap: the reference does not start with the server's WRITE")
    for ip in ("10.99.0.2", "10.99.0.3"):
        if [b for a, b in ref if a == ip] != list(range(1, 11)):
            fail("write_lat-roce.pcap: stamps of %s are not 1..10" % ip)
    cap = os.path.join(tmp, "write_lat.server.pcap")
    if os.path.exists(cap):
        os.unlink(cap)
    n = 300
    run_pair(perf, "write_lat", ["-n", str(n), "-s", "64"], tmp, port,
             sdev_extra=",pcap=" + cap)
    got = write_stamps(cap)
    if not got or got[0][0] != "192.0.2.1":
        fail("write_lat: the first WRITE is not the server's (perftest's server writes "
             "first): %r" % got[:3])
    want = [(i + 1) % 256 for i in range(n)]
    for ip in ("192.0.2.1", "192.0.2.2"):
        mine = [b for a, b in got if a == ip]
        if mine != want:
            fail("write_lat: %s's stamps %r..., perftest's (char)++scnt gives %r..." %
                 (ip, mine[250:260], want[250:260]))
    print("write_lat: the server writes first, stamps wrap 255 -> 0, as perftest")


def key_lengths(trace):
    return sorted({len(b) for _, b in trace if len(b) in (59, 108)})


def result_row(out, size):
    return re.search(r"^ %d +\d+ " % size, out, re.M) is not None


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
    write_lat_roles(perf, pcaps, tmp, base + 9)
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
    # send_bw is not write_bw (send_bw.c): 4 handshakes before the traffic
    # (303 per QP, 354, 376 per QP, 490 once the receives are up), none of
    # the BW report (only with -b), then ctx_close_connection.
    for test, extra, nqp in (("send_bw", ["-n", "300", "-s", "1024"], 1),
                             ("send_bw", ["-n", "300", "-s", "1024", "-q", "2"], 2),
                             ("send_bw", ["-n", "200", "-s", "1024", "-c", "UD"], 1)):
        sout, cout, st, ct = run_pair(perf, test, extra, tmp, base + 12 + nqp)
        cv = from_trace(ct, True) + [from_trace(st, False)[-1]]
        want = []
        for n in (16, 4, 4, 2) + (108,) * (2 * nqp + 3):
            want += [("c2s", n), ("s2c", n)]
        want += sorted([("c2s", 5), ("s2c", 5)])
        if shape(cv) != want:
            fail("%s: exchange %s, perftest's %s" % (" ".join([test] + extra), shape(cv), want))
        if not result_row(sout, 1024) or not result_row(cout, 1024):
            print(sout + cout)
            fail("%s: no result row" % " ".join([test] + extra))
        print("%s: perftest's send_bw exchange, no BW report" % " ".join([test] + extra))
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
    # -R with a duration, and with several QPs: one CM connection each.
    for i, (test, extra) in enumerate((("write_bw", ["-D", "0.5", "-s", "4096"]),
                                       ("send_lat", ["-D", "0.5", "-s", "64"]),
                                       ("write_bw", ["-q", "4", "-n", "300", "-s", "4096"]),
                                       ("send_bw", ["-q", "4", "-n", "300", "-s", "1024"]))):
        sout, cout, st, ct = run_pair(perf, test, ["-R"] + extra, tmp, base + 40 + i,
                                      host="192.0.2.1")
        size = int(extra[extra.index("-s") + 1])
        nqp = int(extra[extra.index("-q") + 1]) if "-q" in extra else 1
        if not result_row(cout, size) or "Number of qps   : %d" % nqp not in cout:
            print(cout)
            fail("-R %s: no result row" % " ".join([test] + extra))
        if len(re.findall(r"^ remote address", sout, re.M)) != nqp or st or ct:
            print(sout)
            fail("-R %s: the server did not connect %d QPs through the CM" %
                 (" ".join([test] + extra), nqp))
        print("-R %s: %d CM connection(s) for data, results printed" %
              (" ".join([test] + extra), nqp))
    # -R -c UD: each data QP finds its peer with SIDR (RDMA_PS_UDP), as perftest
    # with rdma_cm; the client's remote QPNs are the server's own, from the SIDR_REP.
    for i, (test, extra) in enumerate((("send_lat", ["-n", "200", "-s", "64"]),
                                       ("send_bw", ["-q", "2", "-n", "300", "-s", "1024"]))):
        sout, cout, st, ct = run_pair(perf, test, ["-R", "-c", "UD"] + extra, tmp,
                                      base + 70 + i, host="192.0.2.1")
        nqp = int(extra[extra.index("-q") + 1]) if "-q" in extra else 1
        what = " ".join([test, "-R", "-c", "UD"] + extra)
        if not result_row(cout, int(extra[-1])) or "Connection type : UD" not in cout or \
                "rdma_cm QPs\t : ON" not in cout:
            print(cout)
            fail("%s: no result row" % what)
        if st or ct:
            fail("%s: the TCP exchange was used" % what)
        qpn = r"^ %s address: LID \w+ QPN (0x[0-9a-f]+)"
        srv_local = re.findall(qpn % "local", sout, re.M)
        cli_remote = re.findall(qpn % "remote", cout, re.M)
        if len(srv_local) != nqp or cli_remote != srv_local:
            print(sout)
            print(cout)
            fail("%s: the client's remote QPNs %s, the server's %s" %
                 (what, cli_remote, srv_local))
        print("%s: %d SIDR(s), results printed" % (what, nqp))
    # UC and UD between processes: the keys carry what UD needs (QPN, GID).
    for i, (test, extra) in enumerate((("send_lat", ["-c", "UD", "-n", "200", "-s", "64"]),
                                       ("send_bw", ["-c", "UD", "-n", "500", "-s", "1024"]),
                                       ("write_bw", ["-c", "UC", "-n", "300", "-s", "4096"]))):
        sout, cout, st, ct = run_pair(perf, test, extra, tmp, base + 50 + i)
        if not result_row(cout, int(extra[-1])) or \
                "Connection type : %s" % extra[1] not in cout:
            print(cout)
            fail("%s: no result row" % " ".join([test] + extra))
        check_keys(test, from_trace(ct, True))
        print("%s: results over the TCP exchange" % " ".join([test] + extra))
    # 59-byte keys: perftest sends them when its gid_index stays -1 (an IB
    # link, or --force-link IB, without -x). The GID then comes from the
    # out-of-band address, so each side's RoCE IP is its TCP address.
    ips = ("127.0.0.2", "127.0.0.1")
    sout, cout, st, ct = run_pair(perf, "write_lat", ["-n", "50", "--force-link", "IB"], tmp,
                                  base + 60, host=ips[0], ips=ips)
    cv = from_trace(ct, True)
    ref = [(d, to59(b)) for d, b in pcap_exchange(os.path.join(pcaps, "write_lat.pcap"))]
    if shape(cv) != shape(ref) or key_lengths(ct) != [59] or key_lengths(st) != [59]:
        fail("59-byte write_lat: exchange %s, perftest's %s" % (shape(cv), shape(ref)))
    for _, b in ct + st:
        if len(b) == 59 and not KEY59_RE.match(b):
            fail("59-byte write_lat: bad key %r" % b)
    if not result_row(cout, 2):
        print(cout)
        fail("59-byte write_lat: no result row")
    print("write_lat with 59-byte keys: perftest's exchange, traffic ran")
    # A client without a GID index and a server with one: the server
    # answers in the client's format, as the client reads it.
    sout, cout, st, ct = run_pair(perf, "send_lat", ["-n", "50"], tmp, base + 61,
                                  host=ips[0], ips=ips, cextra=["--force-link", "IB"])
    if key_lengths(ct) != [59] or key_lengths(st) != [59] or not result_row(cout, 2):
        print(sout + cout)
        fail("mixed send_lat: keys %s / %s" % (key_lengths(ct), key_lengths(st)))
    print("send_lat: a -x server answers a 59-byte client with 59-byte keys")
    replay(perf, os.path.join(pcaps, "read_lat.pcap"), "read_lat", base + 62, short_keys=True)
    malformed(perf, os.path.join(pcaps, "read_lat.pcap"), base + 63)
    print("PASS")


if __name__ == "__main__":
    main()
