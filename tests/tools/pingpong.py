#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""prdma-pingpong: rdma-core 44's ibv_{rc,uc,ud,srq}_pingpong counterpart.

1. prdma <-> prdma over a memif link, every kind with --chk: both finish,
   each names the other's QP, and a server whose client did not fill the
   data as --chk does reports the bad pages and fails.
2. The TCP exchange of the real tools (tests/data/pcaps/rc_pingpong.pcap,
   ud_pingpong.pcap): the capture's client message is replayed to a
   prdma-pingpong server, which must take the captured address and answer
   with a message in the tools' exact format, then read "done".
3. The RoCE frames (rc_pingpong-roce.pcap, ud_pingpong-roce.pcap, rxe on
   both sides): prdma's own capture of the same run must have the same
   shape: RC SEND First/Middle/Middle/Last of 1 KiB with AckReq on the
   last only, then an ACK; UD SEND Only with Q_Key 0x11111111, the sender's
   QPN in the DETH; every first PSN the one announced over TCP.
usage: pingpong.py <prdma-pingpong> <pcap dir> <tmp dir>
"""

import os
import re
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perf_common import EAL, devargs, dmac, fail, memif_args, pcap_frames, sock_ready  # noqa

MSG_RE = re.compile(rb"^[0-9a-f]{4}:[0-9a-f]{6}:[0-9a-f]{6}:[0-9a-f]{32}\x00$")
ADDR_RE = r"^  %s address: ?\s*LID 0x([0-9a-f]{4}), QPN 0x([0-9a-f]{6}), PSN 0x([0-9a-f]{6}), GID (\S+)$"


def run_pair(pp, kind, args, tmp, port, cargs=(), sdev_extra="", timeout=60):
    """run_pair_once, again once if a process died of a signal: DPDK
    22.11's memif PMD can crash a process on its peer's disconnect (see
    perf_common.run_pair). A second crash is returned as it is."""
    r = run_pair_once(pp, kind, args, tmp, port, cargs, sdev_extra, timeout)
    if r[0] < 0 or r[2] < 0:
        print("WARNING: %s: a process died of a signal (DPDK memif); running the pair "
              "again" % kind)
        r = run_pair_once(pp, kind, args, tmp, port + 50, cargs, sdev_extra, timeout)
    elif "0 sent, 0 received" in r[1] and "retry counter exceeded" in r[3]:
        # Not one frame of the client's crossed the memif link, its link
        # up on both sides: seen under heavy load on this shared machine.
        print("WARNING: %s: the memif link carried nothing; running the pair again" % kind)
        r = run_pair_once(pp, kind, args, tmp, port + 50, cargs, sdev_extra, timeout)
    return r


def run_pair_once(pp, kind, args, tmp, port, cargs, sdev_extra, timeout):
    sock = os.path.join(tmp, "pp-%s-%d.sock" % (kind, port))
    common = [kind, "-p", str(port), "--timeout", "20"] + list(args)
    srv = subprocess.Popen(
        [pp] + memif_args("server", sock, "pps%d" % port, 0) + ["--"] + common +
        ["--devargs", devargs(0) + sdev_extra, "--dmac", dmac(1)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for _ in range(200):
        if sock_ready(sock) or srv.poll() is not None:
            break
        time.sleep(0.05)
    try:
        cli = subprocess.run(
            [pp] + memif_args("client", sock, "ppc%d" % port, 1) + ["--"] + common +
            list(cargs) + ["--devargs", devargs(1), "--dmac", dmac(0), "127.0.0.1"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
        sout, _ = srv.communicate(timeout=timeout)
    finally:
        if srv.poll() is None:
            srv.kill()
    return srv.returncode, sout, cli.returncode, cli.stdout


def addrs(out, which):
    return re.findall(ADDR_RE % which, out, re.M)


def pair_ok(pp, kind, args, tmp, port):
    src, sout, crc, cout = run_pair(pp, kind, args, tmp, port)
    what = " ".join([kind] + args)
    if src != 0 or crc != 0:
        print(sout + cout)
        fail("%s: server rc %d, client rc %d" % (what, src, crc))
    n = int(args[args.index("-n") + 1])
    for out in (sout, cout):
        if not re.search(r"^\d+ bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec$", out, re.M) or \
                not re.search(r"^%d iters in [0-9.]+ seconds = [0-9.]+ usec/iter$" % n, out,
                              re.M):
            print(out)
            fail("%s: no result lines" % what)
    if addrs(sout, "local") != addrs(cout, "remote") or \
            addrs(cout, "local") != addrs(sout, "remote") or not addrs(sout, "local"):
        print(sout + cout)
        fail("%s: the two sides do not name each other's QPs" % what)
    return sout, cout


def pcap_tcp(pcap):
    out = subprocess.run(["tshark", "-r", pcap, "-Y", "tcp.len>0", "-T", "fields",
                          "-e", "tcp.dstport", "-e", "tcp.payload"],
                         capture_output=True, text=True, check=True).stdout
    seq = []
    for line in out.splitlines():
        port, payload = line.split("\t")
        seq.append(("c2s" if port == "18515" else "s2c", bytes.fromhex(payload)))
    return seq


def replay(pp, pcap, kind, size, port):
    """The capture's client message to a prdma-pingpong server (no link:
    net_null); it must answer in the tools' format and read 'done'."""
    ref = pcap_tcp(pcap)
    if [(d, len(b)) for d, b in ref] != [("c2s", 52), ("s2c", 52), ("c2s", 5)]:
        fail("%s: the capture's exchange is not 52/52/5: %r" % (pcap, ref))
    srv = subprocess.Popen(
        [pp] + EAL + ["-l", "0", "--file-prefix", "ppr%d" % port, "--vdev=net_null0", "--",
                      kind, "-p", str(port), "-g", "0", "-s", str(size), "-n", "1",
                      "--timeout", "2",
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
            fail("replay %s: the server never listened" % kind)
        s.sendall(ref[0][1])
        got = b""
        while len(got) < 52:
            chunk = s.recv(52 - len(got))
            if not chunk:
                break
            got += chunk
        s.sendall(ref[2][1])
        s.close()
        out, _ = srv.communicate(timeout=30)
    finally:
        if srv.poll() is None:
            srv.kill()
    if not MSG_RE.match(got) or got[19:51] != b"00000000000000000000ffff0a630002":
        print(out)
        fail("replay %s: the server answered %r, not the tools' 52 bytes with its GID" %
             (kind, got))
    lid, qpn, psn, gid = ref[0][1][:4], ref[0][1][5:11], ref[0][1][12:18], "::ffff:10.99.0.3"
    want = ("  remote address: LID 0x%s, QPN 0x%s, PSN 0x%s, GID %s" %
            (lid.decode(), qpn.decode(), psn.decode(), gid))
    if want not in out:
        print(out)
        fail("replay %s: the server did not take the captured client's address" % kind)
    # Nothing answers on net_null: the ping-pong itself must then time out.
    if srv.returncode == 0 or "no completion" not in out or "malformed" in out:
        print(out)
        fail("replay %s: rc %d after the exchange" % (kind, srv.returncode))
    print("replay %s: the captured client's address taken, answered %s" %
          (kind, got[:51].decode()))


def frames(pcap):
    """[(src ip, opcode, ackreq, dest qp, psn, payload length, deth)] of
    the RoCEv2 frames (IPv4, no VLAN) of a capture."""
    out, seen = [], set()
    for fr in pcap_frames(pcap):
        if len(fr) < 58 or fr[12:14] != b"\x08\x00" or fr[23] != 17 or \
                fr[36:38] != b"\x12\xb7":
            continue
        op = fr[42]
        pad = (fr[43] >> 4) & 3
        # A resend (a process held off the CPU past the ACK timeout) is the
        # same packet again: the shape is that of the first of each.
        key = (fr[26:30], op, fr[51:54])
        if key in seen:
            continue
        seen.add(key)
        hdr = 42 + 12 + (8 if op == 0x64 else 0) + (4 if op == 0x11 else 0)
        out.append((".".join(str(b) for b in fr[26:30]), op, fr[50] >> 7,
                    int.from_bytes(fr[47:50], "big"), int.from_bytes(fr[51:54], "big"),
                    len(fr) - hdr - 4 - pad, fr[54:62] if op == 0x64 else b""))
    return out


def check_shape(name, fr, kind, size, iters, cli_ip, srv_ip, cli, srv):
    """cli/srv: (qpn, psn) each side announced over TCP."""
    if kind == "rc":
        segs = size // 1024
        want_ops = [0x00] + [0x01] * (segs - 2) + [0x02]
        for ip, me, peer in ((cli_ip, cli, srv), (srv_ip, srv, cli)):
            data = [f for f in fr if f[0] == ip and f[1] != 0x11]
            acks = [f for f in fr if f[0] == ip and f[1] == 0x11]
            if len(data) != iters * segs or len(acks) < 1:
                fail("%s: %s sent %d data packets and %d ACKs" % (name, ip, len(data),
                                                                   len(acks)))
            for k in range(iters):
                msg = data[k * segs:(k + 1) * segs]
                if [f[1] for f in msg] != want_ops or [f[2] for f in msg] != \
                        [0] * (segs - 1) + [1] or any(f[5] != 1024 for f in msg):
                    fail("%s: %s's message %d is %r, rxe's SEND First/Middle/Last of "
                         "1 KiB with AckReq on the last" % (name, ip, k, msg))
            if data[0][4] != me[1] or any(f[3] != peer[0] for f in data):
                fail("%s: %s's first PSN %#x (announced %#x), dest QP %#x (peer %#x)" %
                     (name, ip, data[0][4], me[1], data[0][3], peer[0]))
            if [f[4] for f in data] != [(me[1] + i) & 0xffffff for i in range(len(data))]:
                fail("%s: %s's PSNs do not count up from the announced one" % (name, ip))
    else:
        for ip, me, peer in ((cli_ip, cli, srv), (srv_ip, srv, cli)):
            data = [f for f in fr if f[0] == ip]
            if len(data) != iters or any(f[1] != 0x64 or f[5] != size or f[2] != 0 or
                                         f[3] != peer[0] for f in data):
                fail("%s: %s's UD SENDs %r" % (name, ip, data[:2]))
            if any(f[6] != bytes.fromhex("11111111") + me[0].to_bytes(3, "big").rjust(4, b"\0")
                   for f in data):
                fail("%s: %s's DETH %s, want Q_Key 0x11111111 and QPN %#x" %
                     (name, ip, data[0][6].hex(), me[0]))
            if data[0][4] != me[1]:
                fail("%s: %s's first PSN %#x, announced %#x" % (name, ip, data[0][4], me[1]))


def tcp_addr(msg):
    return int(msg[5:11], 16), int(msg[12:18], 16)


def roce_shape(pp, pcaps, tmp, kind, size, port):
    ref = os.path.join(pcaps, "%s_pingpong-roce.pcap" % kind)
    tcp = pcap_tcp(os.path.join(pcaps, "%s_pingpong.pcap" % kind))
    # The checker on rxe's own frames first (5 exchanges in the captures).
    check_shape(ref, frames(ref), kind, size, 5, "10.99.0.3", "10.99.0.2",
                tcp_addr(tcp[0][1]), tcp_addr(tcp[1][1]))
    cap = os.path.join(tmp, "%s.server.pcap" % kind)
    if os.path.exists(cap):
        os.unlink(cap)
    iters = 20
    src, sout, crc, cout = run_pair(pp, kind, ["-g", "0", "-s", str(size), "-n", str(iters)],
                                    tmp, port, sdev_extra=",pcap=" + cap)
    if src != 0 or crc != 0:
        print(sout + cout)
        fail("%s -s %d with a capture: rc %d / %d" % (kind, size, src, crc))
    c = addrs(cout, "local")[0]
    s = addrs(sout, "local")[0]
    check_shape("prdma " + kind, frames(cap), kind, size, iters, "192.0.2.2", "192.0.2.1",
                (int(c[1], 16), int(c[2], 16)), (int(s[1], 16), int(s[2], 16)))
    print("%s -s %d: prdma's frames have rxe's shape (%s)" %
          (kind, size, "SEND First/Middle/Last, AckReq on the last, ACK" if kind == "rc"
           else "UD SEND Only, Q_Key 0x11111111, QPN in the DETH"))


def main():
    pp, pcaps, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(tmp, exist_ok=True)
    base = 20500 + os.getpid() % 400
    for i, (kind, args) in enumerate((("rc", ["-g", "0", "-n", "200", "--chk"]),
                                      ("rc", ["-g", "0", "-n", "100", "-s", "10000",
                                              "--chk"]),
                                      ("uc", ["-g", "0", "-n", "200", "--chk"]),
                                      ("ud", ["-g", "0", "-n", "200", "-s", "1000", "--chk"]),
                                      ("srq", ["-g", "0", "-n", "400", "-q", "4", "--chk"]))):
        pair_ok(pp, kind, args, tmp, base + i)
        print("%s: prdma <-> prdma, --chk passed" % " ".join([kind] + args))
    # The check can fail: a client that does not fill the pages as --chk.
    src, sout, crc, cout = run_pair_chk_server_only(pp, tmp, base + 12)
    if src == 0 or "invalid data in page 0" not in sout or \
            "invalid data in page 1" not in sout or crc != 0:
        print(sout + cout)
        fail("--chk on the server alone: rc %d, its pages not reported" % src)
    print("--chk: a client that does not fill the data fails the server's check")
    replay(pp, os.path.join(pcaps, "rc_pingpong.pcap"), "rc", 4096, base + 20)
    replay(pp, os.path.join(pcaps, "ud_pingpong.pcap"), "ud", 1000, base + 21)
    roce_shape(pp, pcaps, tmp, "rc", 4096, base + 30)
    roce_shape(pp, pcaps, tmp, "ud", 1000, base + 31)
    print("PASS")


def run_pair_chk_server_only(pp, tmp, port):
    """--chk on the server only: the client sends its buffer as it is."""
    sock = os.path.join(tmp, "pp-chk-%d.sock" % port)
    srv = subprocess.Popen(
        [pp] + memif_args("server", sock, "pps%d" % port, 0) + ["--", "rc", "-p", str(port),
                                                                "-g", "0", "-n", "20", "-s",
                                                                "8192", "--chk",
                                                                "--timeout", "20",
                                                                "--devargs", devargs(0),
                                                                "--dmac", dmac(1)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for _ in range(200):
        if sock_ready(sock) or srv.poll() is not None:
            break
        time.sleep(0.05)
    try:
        cli = subprocess.run(
            [pp] + memif_args("client", sock, "ppc%d" % port, 1) +
            ["--", "rc", "-p", str(port), "-g", "0", "-n", "20", "-s", "8192",
             "--timeout", "20", "--devargs", devargs(1), "--dmac", dmac(0), "127.0.0.1"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
        sout, _ = srv.communicate(timeout=60)
    finally:
        if srv.poll() is None:
            srv.kill()
    return srv.returncode, sout, cli.returncode, cli.stdout


if __name__ == "__main__":
    main()
